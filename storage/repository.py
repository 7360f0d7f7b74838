"""Live games: a game's event log replayed through the rules engine, and cached.

:class:`GameRepository` turns commands into events and events into engine state. It
keeps recently used games in an LRU cache checked against the game's last sequence
number, so a command costs one engine step and one append rather than a full replay.
A cache entry is rebuilt from the log whenever in doubt: the log has moved on, or a
step failed and the state may have changed.

Each event the repository writes carries a hash of the engine state after it. A game
whose log replays to a different state (a rules change altered its history) refuses to
load with :class:`ReplayMismatch` until :meth:`GameRepository.accept_replay`.

Every :data:`SNAPSHOT_EVERY` events the engine state is saved with the store as a
snapshot, keyed by engine version and by the state hash its event records, so a game
not in the cache loads from its snapshot plus the few events after it.

Engine work (steps, replays, hashes) runs in worker threads, each game's in turn under
its lock, so one game's slow step keeps no other game waiting on the event loop.

The engine is injected as an :class:`EngineAdapter`; :class:`TroikaEngine` adapts the
real one, :class:`storage.fake_engine.FakeEngine` stands in for it in tests.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import io
import json
import logging
import pickle
import sys
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, is_dataclass, replace
from typing import Any, Protocol

from engine import effective_entries, redo_stack

from .gamelog import InvalidGameLog, export_log, parse_log
from .store import (
    AppendConflict,
    CorruptEvent,
    DuplicateRequest,
    Event,
    EventKind,
    EventStore,
    GameRecord,
    GameStatus,
    NewEvent,
    NewGame,
    Seat,
    Snapshot,
    StoreError,
    utc_now,
)

SNAPSHOT_EVERY = 100
"""Events between a game's snapshots: a cold load replays at most about this many."""

SNAPSHOT_MAX_BYTES = 64 * 2**20
"""The most a snapshot may decompress to (a real state is well under 1 MB)."""

log = logging.getLogger("troika.storage")


class EngineAdapter(Protocol):
    """What storage needs from a rules engine."""

    @property
    def version(self) -> int:
        """The engine's version; a new version may replay old logs differently."""

    def new_game(self, meta: GameRecord) -> Any:
        """A fresh game for the record's title, options, seed and seats (in seat order)."""

    def apply(self, game: Any, action: Any, *, replaying: bool = False, saved: bytes | None = None) -> list[str]:
        """Apply an action (the engine's own value, or its stored form) and return its log
        lines. On refusal raise, leaving ``game`` as it was; when ``replaying`` a refused
        game is thrown away, so that may be skipped. ``saved`` is the game's :meth:`save`
        taken since its last change, if at hand, for the engine to keep as its safety copy."""

    def save(self, game: Any) -> bytes:
        """The state as bytes that :meth:`load_saved` reads back (same engine version):
        written once per step and used for every copy of that state."""

    def load_saved(self, game: Any, data: bytes) -> Any:
        """A game like ``game`` in the state :meth:`save` wrote as ``data``."""

    def encode(self, action: Any) -> dict[str, Any]:
        """An action's stored form (JSON-able), which :meth:`apply` reads back."""

    def dump(self, game: Any) -> dict[str, Any]:
        """The whole state as JSON-able data; equal dumps mean equal states."""

    def snapshot(self, game: Any, saved: bytes | None = None) -> bytes:
        """The state saved as bytes that :meth:`restore` reads back (same engine version),
        from its :meth:`save` if at hand."""

    def restore(self, meta: GameRecord, data: bytes) -> Any:
        """The game of ``meta`` in the state :meth:`snapshot` saved as ``data``."""


SETUP_KEYS = ("first_player", "site_game", "site_moves", "on_timeout")
"""Keys of a game's stored options that set it up rather than name its rules: the seat
that plays first, the 18xx.games game it was imported from (``{"id", "description"}``,
written back by an export), how many of its first moves came from that game's log
(replayed as the site loads a log, ``Game.new(site_moves=...)``), and the table's
time-out policy chosen at `new` (:mod:`bot.timekeeping`)."""


def rules_options(options: dict[str, Any]) -> dict[str, Any]:
    """A game's stored options less its :data:`SETUP_KEYS`: what :meth:`Rules.from_dict` reads."""
    return {k: v for k, v in options.items() if k not in SETUP_KEYS}


class TroikaEngine:
    """The real rules engine (package :mod:`engine`), imported on first use.

    A game's options are :meth:`engine.rules.Rules.to_dict` plus, optionally,
    ``first_player`` (seat index; else drawn from the seed), which games imported
    from 18xx.games need, and ``site_game`` (:data:`SETUP_KEYS`)."""

    @property
    def version(self) -> int:
        import engine

        return int(engine.ENGINE_VERSION)

    def new_game(self, meta: GameRecord) -> Any:
        from engine import Game, Rules

        players = [(s.player_id, s.display_name) for s in meta.seats]
        first_player = meta.options.get("first_player")
        rules = Rules.from_dict(rules_options(meta.options))
        site_moves = meta.options.get("site_moves", 0)
        return Game.new(players, meta.seed, rules, meta.title, first_player=first_player, site_moves=site_moves)

    def apply(self, game: Any, action: Any, *, replaying: bool = False, saved: bytes | None = None) -> list[str]:
        from engine import Action, action_from_dict

        if not isinstance(action, Action):
            action = action_from_dict(action)
        return list(game.apply(action, check=not replaying, saved=saved))

    def save(self, game: Any) -> bytes:
        return bytes(game.save())

    def load_saved(self, game: Any, data: bytes) -> Any:
        from engine import Game

        return Game(game.ctx, pickle.loads(data))

    def encode(self, action: Any) -> dict[str, Any]:
        from engine import Action

        return action.to_dict() if isinstance(action, Action) else dict(action)

    def dump(self, game: Any) -> dict[str, Any]:
        return dict(game.dump())

    def snapshot(self, game: Any, saved: bytes | None = None) -> bytes:
        return zlib.compress(saved if saved is not None else self.save(game), 1)

    def restore(self, meta: GameRecord, data: bytes) -> Any:
        """The saved state, read as data: see :func:`load_engine_state`."""
        game = self.new_game(meta)
        game.state = load_engine_state(data)
        return game


class SnapshotRefused(ValueError):
    """A snapshot holds something other than the engine's state, or too much of it."""


def load_engine_state(data: bytes) -> Any:
    """A state saved by :meth:`TroikaEngine.snapshot`, decompressed to at most
    :data:`SNAPSHOT_MAX_BYTES` and unpickled with only the engine's own dataclasses, named
    tuples and enums allowed, so a hostile row (in a "backup" handed to an operator, say) can build
    nothing that runs code. Raises :class:`SnapshotRefused`."""
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(data, SNAPSHOT_MAX_BYTES)
    except zlib.error as exc:
        raise SnapshotRefused(f"not a compressed snapshot ({exc})") from exc
    if inflate.unconsumed_tail:
        raise SnapshotRefused(f"it would decompress to larger than {SNAPSHOT_MAX_BYTES} bytes")
    try:
        return _EngineUnpickler(io.BytesIO(raw)).load()
    except SnapshotRefused:
        raise
    except Exception as exc:  # truncated or garbled pickle data
        raise SnapshotRefused(f"unreadable ({type(exc).__name__}: {exc})") from exc


def _is_named_tuple(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


class _EngineUnpickler(pickle.Unpickler):
    """Builds only classes defined in the ``engine`` package that are dataclasses, named
    tuples or enums: no functions, no attributes reached through dots, nothing from
    elsewhere."""

    def find_class(self, module: str, name: str) -> Any:
        found = getattr(sys.modules.get(module), name, None) if module.startswith("engine.") else None
        if (
            "." not in name
            and isinstance(found, type)
            and found.__module__ == module
            and (is_dataclass(found) or issubclass(found, enum.Enum) or _is_named_tuple(found))
        ):
            return found
        raise SnapshotRefused(f"it names {module}.{name}, which is not engine state")


class ReplayMismatch(CorruptEvent):
    """The log replays without error but not to the state recorded when it was played."""


class UndoError(ValueError):
    """An undo or redo that would change nothing."""


@dataclass(frozen=True)
class LiveGame:
    """A game's current state. ``game`` is the engine's object, shared with the cache:
    read it (or ``dump`` it), never change it. ``saved`` is the state as the engine's
    ``save`` wrote it after the latest step (None if not taken): a copy of the state that
    is the caller's own, without serialising it again."""

    game_id: int
    seq: int
    game: Any
    state_hash: str
    saved: bytes | None = None


@dataclass(frozen=True)
class ActResult:
    live: LiveGame
    lines: list[str]


@dataclass(frozen=True)
class ReplayProblem:
    game_id: int
    title: str
    message: str


@dataclass
class _Entry:
    seq: int
    game: Any
    state_hash: str
    snapshot_seq: int = 0
    """The event the game's stored snapshot was taken after (0: none known)."""
    saved: bytes | None = None
    """The state as the engine's ``save`` wrote it at ``seq`` (None: not taken): the next
    step's safety copy, the snapshot's body, a post's copy to draw from."""


PostBuilder = Callable[[Any, list[str]], Sequence[dict[str, Any]]]
"""Given the game after an action and the action's log lines, the outbox posts to queue with it."""

GamePosts = Callable[[Any, int], Sequence[dict[str, Any]]]
"""Given the game after an event and the event's sequence number, the posts to queue with it."""

StatusAfter = Callable[[Any], GameStatus | None]
"""Given the game after an action, the status to give the game with it (None: unchanged)."""

NoteAfter = Callable[[Any], str | None]
"""Given the game after an action, the note to store with its event."""

_request_key: ContextVar[str | None] = ContextVar("request_key", default=None)


@contextmanager
def request(key: str | None) -> Iterator[None]:
    """Tag the events written inside the block with ``key``, the incoming request's
    id, so the store refuses to carry the same request out twice."""
    token = _request_key.set(key)
    try:
        yield
    finally:
        _request_key.reset(token)


def _keyed(event: NewEvent) -> NewEvent:
    key = _request_key.get()
    return event if key is None else replace(event, request_key=key)


def state_hash(dump: dict[str, Any]) -> str:
    """A fingerprint of an engine state: SHA-256 of its canonical JSON."""
    text = json.dumps(dump, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def effective_events(events: Sequence[Event]) -> list[Event]:
    """The action events in effect once undo and redo are accounted for, in order."""
    return effective_entries((e.seq, _history_view(e), e) for e in events)


def undos_to_redo(events: Sequence[Event]) -> list[Event]:
    """The undo events a redo would take back now, the next last."""
    return redo_stack((e.seq, _history_view(e), e) for e in events)


def _seqs(events: Sequence[Event]) -> list[int]:
    return [e.seq for e in events]


def _history_view(event: Event) -> dict[str, Any]:
    """The event as :func:`engine.history.effective_entries` reads it: the kind decides."""
    if event.kind is EventKind.UNDO:
        return {"type": "undo", "action_id": event.action.get("action_id")}
    if event.kind is EventKind.REDO:
        return {"type": "redo"}
    if event.kind is EventKind.ACTION:
        return {"type": "action"}
    return {"type": "message"}  # seat and admin events: kept, never undone, no effect


class GameRepository:
    """Games as live engine state over an :class:`EventStore`."""

    def __init__(self, store: EventStore, engine: EngineAdapter, *, cache_size: int = 32) -> None:
        self.store = store
        self.engine = engine
        self._cache_size = cache_size
        self._cache: OrderedDict[int, _Entry] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}

    async def create_game(
        self,
        title: str,
        options: dict[str, Any],
        seed: int,
        seats: Sequence[Seat],
        created_by: str,
        *,
        guild_id: str | None = None,
        channel_id: str | None = None,
    ) -> GameRecord:
        """Store a game being set up, under the current engine version."""
        return await self.store.create_game(NewGame(
            title, options, seed, created_by, self.engine.version, seats, guild_id, channel_id
        ))

    async def start_game(
        self,
        game_id: int,
        *,
        record_start: NewEvent | None = None,
        outbox: GamePosts | None = None,
    ) -> LiveGame:
        """Start a game being set up; the engine's own error if its set-up is not playable.

        With ``record_start`` (an admin event), that event, the posts ``outbox`` builds
        from the new game and the status change are written in one transaction."""
        async with self._lock(game_id):
            seq = await self.store.last_seq(game_id)
            record = await self.store.get_game(game_id)
            if record.status is not GameStatus.SETTING_UP:
                raise ValueError(f"game {game_id} is {record.status}, not being set up")
            game = self.engine.new_game(record)
            if record_start is None:
                await self.store.set_status(game_id, GameStatus.RUNNING)
                return self._live(game_id, await self._current(game_id))
            digest = self._hash(game)
            event = await self.store.append(
                game_id, seq, _keyed(replace(record_start, state_hash=digest)),
                outbox=list(outbox(game, seq + 1)) if outbox else [], status=GameStatus.RUNNING,
            )
            entry = _Entry(event.seq, game, digest)
            self._remember(game_id, entry)
            return self._live(game_id, entry)

    async def load(self, game_id: int) -> LiveGame:
        """The game's current state, from the cache or replayed from its log.

        Raises :class:`CorruptEvent` (naming game and event) if the log does not replay."""
        async with self._lock(game_id):
            return self._live(game_id, await self._current(game_id))

    async def act(
        self,
        game_id: int,
        expected_seq: int,
        action: Any,
        actor: str | None,
        *,
        note: str | NoteAfter | None = None,
        outbox: PostBuilder | None = None,
        status: StatusAfter | None = None,
    ) -> ActResult:
        """Apply ``action`` (the engine's value, or its stored form) to the game as last
        seen at ``expected_seq`` and log it (encoded only for the store).

        The engine's error if illegal; :class:`AppendConflict` if the game moved on. Posts
        built by ``outbox`` from the log lines, and the status ``status`` gives the game
        after the action (a game it finished), are stored in the same transaction; a
        ``note`` given as a function is read from the game after the action too."""
        async with self._lock(game_id):
            entry = await self._current(game_id)
            if entry.seq != expected_seq:
                raise await self._moved_on(game_id, expected_seq, entry.seq)
            try:
                lines, saved, digest, posts, new_status = await asyncio.to_thread(
                    self._step, entry, action, outbox, status
                )
                written = note(entry.game) if callable(note) else note
                event = await self.store.append(
                    game_id, expected_seq,
                    _keyed(NewEvent(self.engine.encode(action), EventKind.ACTION, actor, written, digest)),
                    outbox=posts, status=new_status,
                )
            except Exception:
                if not await asyncio.to_thread(self._unchanged, entry):
                    self._cache.pop(game_id, None)
                raise
            except BaseException:  # cancelled: the engine's thread may still be at work
                self._cache.pop(game_id, None)
                raise
            entry.seq, entry.state_hash, entry.saved = event.seq, digest, saved
            await self._snapshot_if_due(game_id, entry)
            return ActResult(self._live(game_id, entry), lines)

    async def undo(
        self,
        game_id: int,
        expected_seq: int,
        actor: str | None,
        *,
        action_id: int | None = None,
        note: str | None = None,
        outbox: GamePosts | None = None,
    ) -> LiveGame:
        """Take back the latest action in effect, or every action after ``action_id``;
        the posts ``outbox`` builds from the game after it are queued with it."""
        marker = {"type": "undo"} if action_id is None else {"type": "undo", "action_id": action_id}
        undo = NewEvent(marker, EventKind.UNDO, actor, note)
        return await self._travel(game_id, expected_seq, undo, outbox)

    async def redo(
        self,
        game_id: int,
        expected_seq: int,
        actor: str | None,
        *,
        note: str | None = None,
        outbox: GamePosts | None = None,
    ) -> LiveGame:
        """Restore what the latest undo not yet redone took back: undos are redone in
        turn, latest first, until a new action is taken (18xx.games's redo stack)."""
        marker = NewEvent({"type": "redo"}, EventKind.REDO, actor, note)
        return await self._travel(game_id, expected_seq, marker, outbox)

    async def set_seats(
        self,
        game_id: int,
        expected_seq: int,
        seats: Sequence[Seat],
        actor: str | None,
        *,
        note: str | None = None,
    ) -> Event:
        """Replace the game's seats, logged as a seat event. Once the game has started,
        seats may change hands and names but the players (seat to player id) stay."""
        async with self._lock(game_id):
            record = await self.store.get_game(game_id)
            seated = replace(record, seats=tuple(sorted(seats, key=lambda s: s.seat)))
            action = {"type": "seats", "seats": [asdict(s) for s in seated.seats]}
            if record.status is GameStatus.SETTING_UP:
                self._cache.pop(game_id, None)
                change = _keyed(NewEvent(action, EventKind.SEAT, actor, note))
                return await self.store.append(game_id, expected_seq, change, seats=seats)
            if [(s.seat, s.player_id) for s in seated.seats] != [
                (s.seat, s.player_id) for s in record.seats
            ]:
                raise ValueError(f"game {game_id} has started: seats may change hands, not players")
            entry = await self._current(game_id)
            if entry.seq != expected_seq:
                raise await self._moved_on(game_id, expected_seq, entry.seq)
            game, digest = await asyncio.to_thread(
                self._replay_hashed, seated, await self.store.events(game_id)
            )
            event = await self.store.append(
                game_id, expected_seq, _keyed(NewEvent(action, EventKind.SEAT, actor, note, digest)),
                seats=seats,
            )
            self._remember(game_id, _Entry(event.seq, game, digest))
            return event

    async def change_seats(
        self,
        game_id: int,
        change: Callable[[GameRecord], Sequence[Seat]],
        actor: str | None,
        *,
        note: str | None = None,
    ) -> Event:
        """:meth:`set_seats` to ``change(record)``, the record read after the sequence
        number, so a seat change made meanwhile elsewhere is an :class:`AppendConflict`
        rather than overwritten."""
        seq = await self.store.last_seq(game_id)
        seats = change(await self.store.get_game(game_id))
        return await self.set_seats(game_id, seq, seats, actor, note=note)

    async def record_admin(
        self,
        game_id: int,
        expected_seq: int,
        action: dict[str, Any],
        actor: str | None,
        *,
        note: str | None = None,
        outbox: Sequence[dict[str, Any]] = (),
        status: GameStatus | None = None,
    ) -> Event:
        """Log an administrative record (it never reaches the engine and is never undone),
        with its ``outbox`` posts and a new ``status``, if given, in the same transaction."""
        async with self._lock(game_id):
            entry = await self._current(game_id)
            if entry.seq != expected_seq:
                raise await self._moved_on(game_id, expected_seq, entry.seq)
            event = await self.store.append(
                game_id, expected_seq,
                _keyed(NewEvent(action, EventKind.ADMIN, actor, note, entry.state_hash)),
                outbox=outbox, status=status,
            )
            entry.seq = event.seq
            return event

    async def accept_replay(self, game_id: int, actor: str | None, note: str) -> LiveGame:
        """Accept the state the current engine replays a game to (after a
        :class:`ReplayMismatch`), logged as an admin event; the game loads again."""
        async with self._lock(game_id):
            entry = await self._rebuild(game_id, check=False)
            action = {"type": "accept_replay", "engine_version": self.engine.version}
            event = await self.store.append(
                game_id, entry.seq, NewEvent(action, EventKind.ADMIN, actor, note, entry.state_hash)
            )
            await self.store.set_engine_version(game_id, self.engine.version)
            entry.seq = event.seq
            self._remember(game_id, entry)
            return self._live(game_id, entry)

    async def first_difference(self, game_id: int) -> Event | None:
        """The first event after which this engine's replay differs from the state
        recorded when it was played (None if none does). Raises :class:`CorruptEvent`
        if the log does not replay at all."""
        record = await self.store.get_game(game_id)
        events = await self.store.events(game_id)
        game = self._replay(record, [])
        for i, event in enumerate(events):
            if event.kind is EventKind.ACTION:
                try:
                    self.engine.apply(game, event.action, replaying=True)
                except Exception as exc:
                    raise CorruptEvent(game_id, event.seq, f"the engine refuses it: {exc}") from exc
            elif event.kind in (EventKind.UNDO, EventKind.REDO):
                game = self._replay(record, events[: i + 1])
            else:
                continue
            if event.state_hash is not None and event.state_hash != self._hash(game):
                return event
        return None

    async def verify_running_games(self, *, other_versions_only: bool = False) -> list[ReplayProblem]:
        """Replay every running game from its whole log (or only those last verified
        under another engine version) and report those that fail or replay to a
        different state. The others are cached and marked playable under this engine.
        The replays run in a worker thread, one game at a time, each under its game's
        lock: the bot may run this in the background while it serves commands."""
        problems = []
        for record in await self.store.list_games([GameStatus.RUNNING]):
            if other_versions_only and record.engine_version == self.engine.version:
                continue
            async with self._lock(record.id):
                self._cache.pop(record.id, None)
                try:
                    self._remember(record.id, await self._rebuild(record.id, from_snapshot=False))
                except Exception as exc:  # that game's problem: the others are still checked
                    problems.append(ReplayProblem(record.id, record.title, str(exc)))
                    continue
            if record.engine_version != self.engine.version:
                await self.store.set_engine_version(record.id, self.engine.version)
        return problems

    async def export_game(self, game_id: int) -> dict[str, Any]:
        """The game as an 18xx.games-style JSON log (see :mod:`storage.gamelog`)."""
        return export_log(await self.store.get_game(game_id), await self.store.events(game_id))

    async def import_game(
        self,
        log: Any,
        created_by: str,
        *,
        guild_id: str | None = None,
        channel_id: str | None = None,
        status: GameStatus | None = None,
    ) -> GameRecord:
        """Store a game from a log, as a new game, after checking that it replays.

        ``status`` defaults to the log's own (else running). Raises :class:`InvalidGameLog`."""
        parsed = parse_log(log)
        new = NewGame(
            parsed.title, parsed.options, parsed.seed, created_by, self.engine.version,
            parsed.seats, guild_id, channel_id, status or parsed.status or GameStatus.RUNNING,
        )
        probe = new.record(0, utc_now())
        events = [e.at(0, seq, probe.created_at) for seq, e in enumerate(parsed.events, 1)]
        try:
            _, digest = await asyncio.to_thread(self._replay_hashed, probe, events)
        except CorruptEvent as exc:
            where = f"action {exc.seq}" if exc.seq else "set-up"
            raise InvalidGameLog(f"the log does not replay ({where}): {exc.reason}") from exc
        to_store = list(parsed.events)
        if to_store:
            to_store[-1] = replace(to_store[-1], state_hash=digest)
        return await self.store.create_game(new, to_store)

    async def _travel(
        self, game_id: int, expected_seq: int, marker: NewEvent, outbox: GamePosts | None
    ) -> LiveGame:
        """Append an undo or redo, if it changes which actions are in effect."""
        async with self._lock(game_id):
            entry = await self._current(game_id)
            if entry.seq != expected_seq:
                raise await self._moved_on(game_id, expected_seq, entry.seq)
            record = await self.store.get_game(game_id)
            events = await self.store.events(game_id)
            if len(events) != expected_seq:
                raise AppendConflict(game_id, expected_seq, len(events))
            after = [*events, marker.at(game_id, expected_seq + 1, utc_now())]
            if _seqs(effective_events(after)) == _seqs(effective_events(events)):
                target = marker.action.get("action_id")
                raise UndoError(f"nothing to {marker.kind}" + (
                    f" after action {target}" if target is not None else ""))
            game, digest = await asyncio.to_thread(self._replay_hashed, record, after)
            marker = _keyed(replace(marker, state_hash=digest))
            posts = list(outbox(game, expected_seq + 1)) if outbox else []
            event = await self.store.append(game_id, expected_seq, marker, outbox=posts)
            entry = _Entry(event.seq, game, digest)
            self._remember(game_id, entry)
            return self._live(game_id, entry)

    async def _moved_on(self, game_id: int, expected_seq: int, seq: int) -> StoreError:
        """The error for a game that moved past ``expected_seq``: :class:`DuplicateRequest`
        if an event since carries this request's key (another process carried the same
        request out), else :class:`AppendConflict`."""
        key = _request_key.get()
        if key is not None and any(e.request_key == key for e in await self.store.events(game_id, expected_seq)):
            return DuplicateRequest(key)
        return AppendConflict(game_id, expected_seq, seq)

    async def _current(self, game_id: int) -> _Entry:
        """The cached entry if it is at the log's last event, else a fresh replay."""
        last = await self.store.last_seq(game_id)
        entry = self._cache.get(game_id)
        if entry is None or entry.seq != last:
            entry = await self._rebuild(game_id)
        self._remember(game_id, entry)
        return entry

    async def _rebuild(self, game_id: int, *, check: bool = True, from_snapshot: bool = True) -> _Entry:
        """The game replayed from its log: from its snapshot and the events after it if
        the snapshot fits (see :meth:`_resume`), else the whole log. With ``check``, the
        state must be the one recorded. Saves a snapshot when one is due."""
        record = await self.store.get_game(game_id)
        entry = await self._resume(record) if check and from_snapshot else None
        if entry is None:
            events = await self.store.events(game_id)
            entry = await asyncio.to_thread(self._replay_checked, record, events, check)
            if events and events[-1].state_hash == entry.state_hash:
                await self._snapshot_if_due(game_id, entry)
        return entry

    async def _resume(self, record: GameRecord) -> _Entry | None:
        """The game from its snapshot and the events after it, or None if that will not
        do: no snapshot under this engine version, the snapshot's hash is not the one its
        event records, an undo or redo since it (it may reach back before it), or the
        replay after it fails or ends in another state than the one the last event records."""
        snapshot = await self.store.get_snapshot(record.id, self.engine.version)
        if snapshot is None or record.problem is not None:
            return None
        tail = await self.store.events(record.id, after_seq=snapshot.seq - 1)
        if not tail or tail[0].seq != snapshot.seq or tail[0].state_hash != snapshot.state_hash:
            return None
        later = tail[1:]
        if any(e.kind in (EventKind.UNDO, EventKind.REDO) for e in later):
            return None
        try:
            game, digest = await asyncio.to_thread(self._replay_from, record, snapshot, later)
        except Exception as exc:  # a stale or unreadable snapshot costs a full replay
            log.warning("game %s: snapshot at event %s not used: %s", record.id, snapshot.seq, exc)
            return None
        if digest != tail[-1].state_hash:
            log.warning("game %s: snapshot at event %s replays to another state", record.id, snapshot.seq)
            return None
        return _Entry(tail[-1].seq, game, digest, snapshot.seq)

    def _replay_from(self, record: GameRecord, snapshot: Snapshot, later: Sequence[Event]) -> tuple[Any, str]:
        game = self.engine.restore(record, snapshot.data)
        for event in later:
            if event.kind is EventKind.ACTION:
                self.engine.apply(game, event.action, replaying=True)
        return game, self._hash(game)

    def _replay_checked(self, record: GameRecord, events: Sequence[Event], check: bool) -> _Entry:
        """The whole log replayed; with ``check``, compared with the recorded state."""
        game, digest = self._replay_hashed(record, events)
        recorded = events[-1].state_hash if events else None
        if check and recorded is not None and recorded != digest:
            raise ReplayMismatch(
                record.id, events[-1].seq,
                f"engine v{self.engine.version} replays the log to a different state from the "
                f"one recorded (last verified under v{record.engine_version}); a rules change "
                "altered this game's history",
            )
        return _Entry(events[-1].seq if events else 0, game, digest)

    async def _snapshot_if_due(self, game_id: int, entry: _Entry) -> None:
        """Save the entry's state as the game's snapshot once :data:`SNAPSHOT_EVERY`
        events have passed since the last; the entry's hash must be the one its event
        records. A store that cannot save it costs nothing but speed."""
        if entry.seq - entry.snapshot_seq < SNAPSHOT_EVERY:
            return
        data = await asyncio.to_thread(self.engine.snapshot, entry.game, entry.saved)
        try:
            await self.store.put_snapshot(
                game_id, Snapshot(entry.seq, self.engine.version, entry.state_hash, data)
            )
        except StoreError as exc:
            log.warning("game %s: snapshot not saved: %s", game_id, exc)
            return
        entry.snapshot_seq = entry.seq

    def _step(
        self, entry: _Entry, action: Any, outbox: PostBuilder | None, status: StatusAfter | None
    ) -> tuple[list[str], bytes, str, list[dict[str, Any]], GameStatus | None]:
        """Apply an action to the entry's game and read what :meth:`act` stores with it
        (run in a worker thread): the state after it is saved once, the copy the next step,
        the snapshot and the post's pictures share."""
        game = entry.game
        saved, entry.saved = entry.saved, None  # the state is about to change
        lines = self.engine.apply(game, action, saved=saved)
        after = self.engine.save(game)
        posts = list(outbox(game, lines)) if outbox else []
        return lines, after, self._hash(game), posts, status(game) if status else None

    def _replay_hashed(self, record: GameRecord, events: Sequence[Event]) -> tuple[Any, str]:
        game = self._replay(record, events)
        return game, self._hash(game)

    def _replay(self, record: GameRecord, events: Sequence[Event]) -> Any:
        if record.problem is not None:
            raise CorruptEvent(record.id, 0, record.problem)
        try:
            game = self.engine.new_game(record)
        except Exception as exc:
            raise CorruptEvent(record.id, 0, f"the engine refuses the set-up: {exc}") from exc
        for event in effective_events(events):
            try:
                self.engine.apply(game, event.action, replaying=True)
            except Exception as exc:
                raise CorruptEvent(
                    record.id, event.seq,
                    f"the engine refuses its {event.action.get('type')!r} action: {exc}",
                ) from exc
        return game

    def _unchanged(self, entry: _Entry) -> bool:
        """After a failed step, whether the cached game's state is provably unchanged."""
        try:
            return self._hash(entry.game) == entry.state_hash
        except Exception:
            return False

    def _hash(self, game: Any) -> str:
        return state_hash(self.engine.dump(game))

    def _remember(self, game_id: int, entry: _Entry) -> None:
        self._cache[game_id] = entry
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    @staticmethod
    def _live(game_id: int, entry: _Entry) -> LiveGame:
        return LiveGame(game_id, entry.seq, entry.game, entry.state_hash, entry.saved)
