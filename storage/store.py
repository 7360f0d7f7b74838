"""The event store's interface: games, their seats, one append-only event log per game,
and an outbox of posts for the bot.

Backends implement :class:`EventStore` (one SQL store, :mod:`storage.sql`, in two
dialects: SQLite, :mod:`storage.sqlite`; PostgreSQL, :mod:`storage.postgres`); code above
them sees only the types and errors defined here. Sequence numbers of a game's
events run 1, 2, 3, ... without gaps; a game without events is at sequence 0.
"""

from __future__ import annotations

import enum
import unicodedata
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self


class StoreError(Exception):
    """The store could not do what was asked (database unreadable, locked, misused...)."""


class DatabaseDamaged(StoreError):
    """SQLite's own check finds the database damaged: only a backup can help."""


class DatabaseAccess(StoreError):
    """The database is there but this user may not use it as Troika must: it is
    read-only, permission is denied, or the server refuses the login. The message names which."""


class UnfinishedCopy(StoreError):
    """A copy into this database (``troika migrate``) began and was never proved complete."""

    def __init__(self, where: str, started: datetime) -> None:
        super().__init__(
            f"a copy into the database {where} began {started:%Y-%m-%d %H:%M} UTC and did not finish: it may lack "
            "games; run the same `troika migrate` again to finish it"
        )


class AppendConflict(StoreError):
    """Someone appended to the game after the caller last looked at it; nothing was written."""

    def __init__(self, game_id: int, expected_seq: int, actual_seq: int) -> None:
        super().__init__(
            f"game {game_id} has moved on: you acted on event {expected_seq} but the latest "
            f"is event {actual_seq}; look at the game again and retry"
        )
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq


class GameNotFound(StoreError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"there is no game {game_id}")
        self.game_id = game_id


class CorruptEvent(StoreError):
    """An event cannot be read or replayed, so its game refuses to load.

    ``seq`` is 0 when the game's set-up itself is at fault.
    """

    def __init__(self, game_id: int, seq: int, reason: str) -> None:
        where = f"event {seq}" if seq else "set-up"
        super().__init__(f"game {game_id} cannot be loaded ({where}): {reason}")
        self.game_id = game_id
        self.seq = seq
        self.reason = reason


class DuplicateRequest(StoreError):
    """An event carrying this request key is already stored: the request was carried out."""

    def __init__(self, request_key: str) -> None:
        super().__init__(f"request {request_key} was carried out already")
        self.request_key = request_key


class ChannelBusy(StoreError):
    """The channel already has a game that is being set up or running."""

    def __init__(self, channel_id: str, game_id: int) -> None:
        super().__init__(f"channel {channel_id} already has an active game ({game_id})")
        self.channel_id = channel_id
        self.game_id = game_id


class GameStatus(enum.StrEnum):
    SETTING_UP = "setting-up"
    RUNNING = "running"
    FINISHED = "finished"
    ABANDONED = "abandoned"


ACTIVE_STATUSES = frozenset({GameStatus.SETTING_UP, GameStatus.RUNNING})
"""A channel holds at most one game in these states."""


class EventKind(enum.StrEnum):
    ACTION = "action"  # a game action for the engine
    UNDO = "undo"  # {"type": "undo", "action_id"?: seq}
    REDO = "redo"  # {"type": "redo"}
    SEAT = "seat"  # the seats changed; never undone, no effect on the engine
    ADMIN = "admin"  # an administrative record; never undone, no effect on the engine


CLAIM_LEASE = timedelta(seconds=60)
"""How long a bot process's claim on a game's deliveries lasts unless renewed."""
LONGEST_CLAIM = timedelta(days=1)
"""A claim running out later than this from now (and than the lease asked for) was
written by no claim: it is damage, and taken over."""


def shard_of(guild_id: str | None, shards: int) -> int:
    """The shard that owns a server's games, by Discord's rule ``(guild_id >> 22) % shards``.

    Games outside any server (the console's) belong to shard 0."""
    if guild_id is None or not guild_id.isdigit():
        return 0
    return (int(guild_id) >> 22) % shards


@dataclass(frozen=True)
class Shard:
    """One of ``count`` bot processes, numbered from 0; it owns its servers' games."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count:
            raise ValueError(f"shard {self.index} does not exist: shards are numbered 0 to {self.count - 1}")

    def owns(self, guild_id: str | None) -> bool:
        return shard_of(guild_id, self.count) == self.index


def unstorable(text: str) -> str | None:
    """What in ``text`` no store can keep faithfully, if anything: a lone UTF-16 surrogate
    (not encodable as UTF-8), a NUL (PostgreSQL refuses it) or another control character
    (tabs and line breaks are fine)."""
    for char in text:
        if "\ud800" <= char <= "\udfff":
            return "broken Unicode (a lone surrogate)"
        if unicodedata.category(char) == "Cc" and char not in "\t\n\r":
            return f"a control character (U+{ord(char):04X})"
    return None


def utc_now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Seat:
    """One seat at the table. ``player_id`` is the engine's id for the player."""

    seat: int
    player_id: str
    display_name: str
    discord_user_id: str | None = None
    commissioner: bool = False


def check_seats(seats: Sequence[Seat]) -> None:
    """Raise ValueError unless seat numbers and player ids are each unique."""
    seat_numbers, player_ids = [str(s.seat) for s in seats], [s.player_id for s in seats]
    for label, values in (("seat", seat_numbers), ("player", player_ids)):
        repeated = sorted(value for value, n in Counter(values).items() if n > 1)
        if repeated:
            raise ValueError(f"each {label} may appear once, but {', '.join(repeated)} repeats")


@dataclass(frozen=True)
class GameRecord:
    """A game's metadata as stored; its state is the replay of its events."""

    id: int
    title: str
    options: dict[str, Any]
    seed: int
    created_by: str
    status: GameStatus
    engine_version: int
    created_at: datetime
    guild_id: str | None = None
    channel_id: str | None = None
    seats: tuple[Seat, ...] = ()
    problem: str | None = None
    """Why the stored set-up cannot be read (then ``options`` is empty); None if it can."""
    archived_at: datetime | None = None
    """When the game was archived for want of moves (None: it is not)."""


@dataclass(frozen=True)
class NewGame:
    """What :meth:`EventStore.create_game` needs; the store assigns id and time."""

    title: str
    options: dict[str, Any]
    seed: int
    created_by: str
    engine_version: int
    seats: Sequence[Seat] = ()
    guild_id: str | None = None
    channel_id: str | None = None
    status: GameStatus = GameStatus.SETTING_UP

    def record(self, game_id: int, created_at: datetime) -> GameRecord:
        """The record this game gets once stored under ``game_id``."""
        return GameRecord(
            id=game_id,
            title=self.title,
            options=self.options,
            seed=self.seed,
            created_by=self.created_by,
            status=self.status,
            engine_version=self.engine_version,
            created_at=created_at,
            guild_id=self.guild_id,
            channel_id=self.channel_id,
            seats=tuple(sorted(self.seats, key=lambda s: s.seat)),
        )


@dataclass(frozen=True)
class Event:
    """One entry of a game's log. ``state_hash`` fingerprints the engine state after it."""

    game_id: int
    seq: int
    kind: EventKind
    action: dict[str, Any]
    actor: str | None
    created_at: datetime
    note: str | None = None
    state_hash: str | None = None
    request_key: str | None = None


@dataclass(frozen=True)
class NewEvent:
    """An event to append; the store assigns its sequence number (and time if None).

    ``request_key`` names the incoming request (a Discord message or interaction) that
    caused the event; the store holds each key at most once across all games."""

    action: dict[str, Any]
    kind: EventKind = EventKind.ACTION
    actor: str | None = None
    note: str | None = None
    state_hash: str | None = None
    created_at: datetime | None = None
    request_key: str | None = None

    def at(self, game_id: int, seq: int, now: datetime) -> Event:
        """This event as stored at ``seq`` (``now`` unless it carries its own time)."""
        return Event(
            game_id=game_id,
            seq=seq,
            kind=self.kind,
            action=self.action,
            actor=self.actor,
            created_at=self.created_at or now,
            note=self.note,
            state_hash=self.state_hash,
            request_key=self.request_key,
        )


@dataclass(frozen=True)
class Snapshot:
    """A game's engine state saved after event ``seq`` by engine ``engine_version``;
    ``state_hash`` is that state's hash, the one event ``seq`` records."""

    seq: int
    engine_version: int
    state_hash: str
    data: bytes


@dataclass(frozen=True)
class OutboxMessage:
    """A post the bot owes a game's channel; ``sent_at`` is None until delivered.

    ``problem`` says why a stored payload cannot be read (then ``payload`` is empty).
    ``pictures_for``: a post sent before its pictures were attached, where it went (the
    frontend's reference to the message) until they are."""

    id: int
    game_id: int
    payload: dict[str, Any]
    created_at: datetime
    sent_at: datetime | None = None
    problem: str | None = None
    pictures_for: str | None = None


class EventStore(ABC):
    """Durable storage of games and their event logs. Use as ``async with Store(...)``.

    A store that is the target of an unfinished copy refuses to open with
    :class:`UnfinishedCopy` unless made with ``accept_unfinished_copy`` (the copy itself)."""

    refuses_nul = False
    """Whether the backend cannot hold a NUL character in text (PostgreSQL cannot)."""

    @abstractmethod
    async def open(self) -> None:
        """Connect and bring the schema up to date."""

    @abstractmethod
    async def close(self) -> None:
        """Release the connection; safe to call twice."""

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @abstractmethod
    async def create_game(self, game: NewGame, events: Sequence[NewEvent] = ()) -> GameRecord:
        """Store a new game (and, atomically, its first events). Raises :class:`ChannelBusy`."""

    @abstractmethod
    async def get_game(self, game_id: int) -> GameRecord:
        """The game's record with its seats. Raises :class:`GameNotFound`. Options that
        cannot be read come back empty with the record's ``problem`` set."""

    @abstractmethod
    async def list_games(self, statuses: Collection[GameStatus] | None = None) -> list[GameRecord]:
        """All games (or those in ``statuses``), oldest first."""

    @abstractmethod
    async def active_game_in_channel(self, channel_id: str) -> GameRecord | None:
        """The channel's game that is being set up or running, if any."""

    @abstractmethod
    async def set_status(self, game_id: int, status: GameStatus) -> None:
        """Change a game's status. Raises :class:`ChannelBusy` if it would make two active."""

    @abstractmethod
    async def set_archived(self, game_id: int, at: datetime | None) -> None:
        """Archive the game as of ``at`` (None: bring it back). Raises :class:`GameNotFound`."""

    @abstractmethod
    async def set_engine_version(self, game_id: int, version: int) -> None:
        """Record the engine version the game is known to replay under."""

    @abstractmethod
    async def last_seq(self, game_id: int) -> int:
        """The sequence number of the game's latest event (0 if none)."""

    @abstractmethod
    async def append_many(
        self,
        game_id: int,
        expected_seq: int,
        events: Sequence[NewEvent],
        *,
        outbox: Sequence[dict[str, Any]] = (),
        seats: Sequence[Seat] | None = None,
        status: GameStatus | None = None,
    ) -> list[Event]:
        """Append ``events`` as ``expected_seq + 1, ...`` if the game is still at
        ``expected_seq``, else raise :class:`AppendConflict`; if an event's
        ``request_key`` is stored already, raise :class:`DuplicateRequest` (checked
        first). In the same transaction, queue ``outbox`` posts and, if given, replace
        the game's seats and set its status (:class:`ChannelBusy` as for
        :meth:`set_status`). All or nothing."""

    async def append(
        self,
        game_id: int,
        expected_seq: int,
        event: NewEvent,
        *,
        outbox: Sequence[dict[str, Any]] = (),
        seats: Sequence[Seat] | None = None,
        status: GameStatus | None = None,
    ) -> Event:
        """Append one event; see :meth:`append_many`."""
        written = await self.append_many(
            game_id, expected_seq, [event], outbox=outbox, seats=seats, status=status
        )
        return written[0]

    @abstractmethod
    async def events(self, game_id: int, after_seq: int = 0) -> list[Event]:
        """The game's events after ``after_seq``, in order. Raises :class:`CorruptEvent`
        for an entry that cannot be decoded."""

    @abstractmethod
    async def outbox_add(self, game_id: int, payload: dict[str, Any]) -> int:
        """Queue a post for the game's channel; returns its id."""

    @abstractmethod
    async def outbox_unsent(
        self, limit: int | None = 100, after_id: int = 0, *, game_id: int | None = None
    ) -> list[OutboxMessage]:
        """Posts not yet marked sent with an id above ``after_id`` (all, or ``limit``; of
        one game if given), oldest first. A payload that cannot be read comes back with
        its ``problem`` instead of raising."""

    @abstractmethod
    async def outbox_mark_sent(self, message_id: int, pictures_for: str | None = None) -> None:
        """Mark a post delivered (again is harmless). With ``pictures_for``, its pictures are
        owed to the message its text went to (see :meth:`outbox_owed`), unless it was marked
        delivered before. Raises :class:`StoreError` if unknown."""

    @abstractmethod
    async def outbox_owed(self, *, game_id: int | None = None) -> list[OutboxMessage]:
        """Posts delivered whose pictures are still owed (of one game if given), oldest first,
        each with its ``pictures_for``; a payload that cannot be read comes with its ``problem``."""

    @abstractmethod
    async def outbox_pictures_done(self, message_id: int) -> None:
        """The post's pictures are attached (or given up): they are owed no more."""

    async def put_snapshot(self, game_id: int, snapshot: Snapshot) -> None:  # noqa: B027 (a default, not abstract)
        """Keep ``snapshot`` as the game's snapshot for its engine version, replacing
        an earlier one. Snapshots are a cache: a backend may keep none (this default)."""

    async def get_snapshot(self, game_id: int, engine_version: int) -> Snapshot | None:
        """The game's snapshot saved under ``engine_version``, if one is kept."""
        return None

    @abstractmethod
    async def claim_game(self, game_id: int, owner: str, lease: timedelta = CLAIM_LEASE) -> bool:
        """Make ``owner`` the one process delivering the game's posts and reminders for
        ``lease`` from now, unless another owner's claim has not yet run out. Renews the
        owner's own claim. Raises :class:`GameNotFound`."""

    @abstractmethod
    async def release_claims(self, owner: str) -> None:
        """Give up every claim of ``owner`` (a process shutting down)."""

    @abstractmethod
    async def restore_game(
        self, record: GameRecord, events: Sequence[Event], outbox: Sequence[OutboxMessage] = ()
    ) -> None:
        """Store a game exactly as another store holds it: its id, times, seats, events
        and posts (sent or not), all or nothing. For copies between stores; raises
        :class:`StoreError` if the id is taken."""

    async def copy_started(self) -> datetime | None:
        """When a copy into this store began, if it is not yet marked finished."""
        return None

    async def mark_copy(self, started: datetime | None) -> None:
        """Mark this store the target of a copy under way since ``started``; None: finished."""
        raise StoreError(f"{type(self).__name__} cannot be the target of a copy")

    @abstractmethod
    async def backup(self, path: str | Path) -> None:
        """Write a consistent copy of the whole store to ``path`` while it stays in use."""
