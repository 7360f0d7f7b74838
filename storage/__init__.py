"""Troika's event store: games are logs of accepted actions, replayed by the engine.

``SqliteEventStore`` keeps the logs in a local SQLite file; ``GameRepository`` turns
them into live games through an engine adapter (``TroikaEngine`` for the real one).
"""

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
    Snapshot,
    StoreError,
)

__all__ = [
    "ActResult",
    "AppendConflict",
    "ChannelBusy",
    "CorruptEvent",
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
    "Snapshot",
    "SqliteEventStore",
    "StoreError",
    "TroikaEngine",
    "UndoError",
]
