"""Troika's event store: games are logs of accepted actions, replayed by the engine.

``SqliteEventStore`` keeps the logs in a local SQLite file, ``PostgresEventStore``
(:mod:`storage.postgres`) in a PostgreSQL database: two dialects of one SQL store,
:mod:`storage.sql`. ``store_at`` picks one from a path or URL. ``GameRepository``
turns logs into live games through an engine adapter (``TroikaEngine`` for the real one).
"""

from .copy import store_at
from .gamelog import InvalidGameLog
from .repository import (
    ActResult,
    EngineAdapter,
    GameRepository,
    LiveGame,
    ReplayMismatch,
    ReplayProblem,
    TroikaEngine,
    UndoError,
)
from .sqlite import SqliteEventStore
from .store import (
    AppendConflict,
    ChannelBusy,
    CorruptEvent,
    DatabaseAccess,
    DatabaseDamaged,
    Event,
    EventKind,
    EventStore,
    GameNotFound,
    GameRecord,
    GameStatus,
    NewEvent,
    NewGame,
    OutboxMessage,
    Seat,
    Shard,
    Snapshot,
    StoreError,
    UnfinishedCopy,
)

__all__ = [
    "ActResult",
    "AppendConflict",
    "ChannelBusy",
    "CorruptEvent",
    "DatabaseAccess",
    "DatabaseDamaged",
    "EngineAdapter",
    "Event",
    "EventKind",
    "EventStore",
    "GameNotFound",
    "GameRecord",
    "GameRepository",
    "GameStatus",
    "InvalidGameLog",
    "LiveGame",
    "NewEvent",
    "NewGame",
    "OutboxMessage",
    "ReplayMismatch",
    "ReplayProblem",
    "Seat",
    "Shard",
    "Snapshot",
    "SqliteEventStore",
    "StoreError",
    "TroikaEngine",
    "store_at",
    "UnfinishedCopy",
    "UndoError",
]
