"""The EventStore contract, run against every backend: SQLite, PostgreSQL (on the
session's own server) and an in-memory fake."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from storage.postgres import PostgresEventStore
from storage.sqlite import SqliteEventStore
from storage.store import (
    ACTIVE_STATUSES,
    CLAIM_LEASE,
    AppendConflict,
    ChannelBusy,
    DuplicateRequest,
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
    StoreError,
    check_seats,
    utc_now,
)


class MemoryEventStore(EventStore):
    """A second backend, all in memory; ``backup`` pickles it and ``open`` reads that back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._games: dict[int, GameRecord] = {}
        self._events: dict[int, list[Event]] = {}
        self._outbox: dict[int, OutboxMessage] = {}
        self._claims: dict[int, tuple[str, datetime]] = {}

    async def open(self) -> None:
        if self.path.exists():
            self._games, self._events, self._outbox = pickle.loads(self.path.read_bytes())

    async def close(self) -> None:
        pass

    async def create_game(self, game: NewGame, events: Sequence[NewEvent] = ()) -> GameRecord:
        check_seats(game.seats)
        _encode([game.options, *(e.action for e in events)])
        if game.channel_id is not None and game.status in ACTIVE_STATUSES:
            self._check_channel_free(game.channel_id, None)
        record = game.record(max(self._games, default=0) + 1, utc_now())
        self._games[record.id] = copy.deepcopy(record)
        self._events[record.id] = []
        self._insert(record.id, events)
        return record

    async def get_game(self, game_id: int) -> GameRecord:
        return copy.deepcopy(self._game(game_id))

    async def list_games(self, statuses: Collection[GameStatus] | None = None) -> list[GameRecord]:
        return [copy.deepcopy(g) for g in self._games.values()
                if statuses is None or g.status in statuses]

    async def active_game_in_channel(self, channel_id: str) -> GameRecord | None:
        return next((copy.deepcopy(g) for g in self._games.values()
                     if g.channel_id == channel_id and g.status in ACTIVE_STATUSES), None)

    async def set_status(self, game_id: int, status: GameStatus) -> None:
        game = self._game(game_id)
        if game.channel_id is not None and status in ACTIVE_STATUSES:
            self._check_channel_free(game.channel_id, game_id)
        self._games[game_id] = replace(game, status=status)

    async def set_archived(self, game_id: int, at: datetime | None) -> None:
        self._games[game_id] = replace(self._game(game_id), archived_at=at)

    async def set_engine_version(self, game_id: int, version: int) -> None:
        game = self._game(game_id)
        self._games[game_id] = replace(game, engine_version=version)

    async def last_seq(self, game_id: int) -> int:
        self._game(game_id)
        return len(self._events[game_id])

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
        if not events:
            raise ValueError("append_many needs at least one event")
        if seats is not None:
            check_seats(seats)
        _encode([*(e.action for e in events), *outbox])
        keys = {e.request_key for log in self._events.values() for e in log}
        for event in events:
            if event.request_key is not None and event.request_key in keys:
                raise DuplicateRequest(event.request_key)
        last = await self.last_seq(game_id)
        if last != expected_seq:
            raise AppendConflict(game_id, expected_seq, last)
        channel_id = self._games[game_id].channel_id
        if channel_id is not None and status in ACTIVE_STATUSES:
            self._check_channel_free(channel_id, game_id)
        stored = self._insert(game_id, events)
        if seats is not None:
            game = self._games[game_id]
            ordered = tuple(sorted(seats, key=lambda s: s.seat))
            self._games[game_id] = replace(game, seats=ordered)
        for payload in outbox:
            await self.outbox_add(game_id, payload)
        if status is not None:
            await self.set_status(game_id, status)
        return stored

    async def events(self, game_id: int, after_seq: int = 0) -> list[Event]:
        self._game(game_id)
        return copy.deepcopy(self._events[game_id][after_seq:])

    async def outbox_add(self, game_id: int, payload: dict[str, Any]) -> int:
        self._game(game_id)
        _encode([payload])
        message = OutboxMessage(max(self._outbox, default=0) + 1, game_id, copy.deepcopy(payload), utc_now())
        self._outbox[message.id] = message
        return message.id

    async def outbox_unsent(
        self, limit: int | None = 100, after_id: int = 0, *, game_id: int | None = None
    ) -> list[OutboxMessage]:
        return [m for m in self._outbox.values()
                if m.sent_at is None and m.id > after_id and game_id in (None, m.game_id)][:limit]

    async def outbox_mark_sent(self, message_id: int, pictures_for: str | None = None) -> None:
        message = self._outbox.get(message_id)
        if message is None:
            raise StoreError(f"there is no outbox message {message_id}")
        if message.sent_at is None:
            self._outbox[message_id] = replace(message, sent_at=utc_now(), pictures_for=pictures_for)

    async def outbox_owed(self, *, game_id: int | None = None) -> list[OutboxMessage]:
        return [m for m in self._outbox.values() if m.pictures_for is not None and game_id in (None, m.game_id)]

    async def outbox_pictures_done(self, message_id: int) -> None:
        if message_id in self._outbox:
            self._outbox[message_id] = replace(self._outbox[message_id], pictures_for=None)

    async def claim_game(self, game_id: int, owner: str, lease: timedelta = CLAIM_LEASE) -> bool:
        self._game(game_id)
        now = utc_now()
        held = self._claims.get(game_id)
        if held is not None and held[0] != owner and held[1] >= now:
            return False
        self._claims[game_id] = (owner, now + lease)
        return True

    async def release_claims(self, owner: str) -> None:
        self._claims = {g: held for g, held in self._claims.items() if held[0] != owner}

    async def restore_game(
        self, record: GameRecord, events: Sequence[Event], outbox: Sequence[OutboxMessage] = ()
    ) -> None:
        check_seats(record.seats)
        if record.id in self._games:
            raise StoreError(f"game {record.id} is already in the store")
        self._games[record.id] = copy.deepcopy(record)
        self._events[record.id] = copy.deepcopy(list(events))
        self._outbox.update((m.id, copy.deepcopy(m)) for m in outbox)

    async def backup(self, path: str | Path) -> None:
        Path(path).write_bytes(pickle.dumps((self._games, self._events, self._outbox)))

    def _game(self, game_id: int) -> GameRecord:
        if game_id not in self._games:
            raise GameNotFound(game_id)
        return self._games[game_id]

    def _check_channel_free(self, channel_id: str, except_game: int | None) -> None:
        for game in self._games.values():
            if game.channel_id == channel_id and game.status in ACTIVE_STATUSES \
                    and game.id != except_game:
                raise ChannelBusy(channel_id, game.id)

    def _insert(self, game_id: int, events: Sequence[NewEvent]) -> list[Event]:
        log = self._events[game_id]
        now = utc_now()
        stored = [e.at(game_id, len(log) + i, now) for i, e in enumerate(events, 1)]
        log.extend(copy.deepcopy(stored))
        return stored


def _encode(values: list[Any]) -> None:
    for value in values:
        json.dumps(value, allow_nan=False)


@dataclass(frozen=True)
class Backend:
    """How to make an empty store of a backend, and to open a backup it wrote."""

    make: Callable[[Path], Awaitable[EventStore]]
    open_backup: Callable[[Path], EventStore]


async def _postgres(request: pytest.FixtureRequest) -> Backend:
    server = request.getfixturevalue("postgres_server")

    async def make(_: Path) -> EventStore:
        return PostgresEventStore(server.new_database())

    return Backend(make, SqliteEventStore)  # its backups are SQLite files


async def _local(make: Callable[[Path], EventStore]) -> Backend:
    async def made(path: Path) -> EventStore:
        return make(path)

    return Backend(made, make)


BACKENDS = ("sqlite", "postgres", "memory")


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "postgres":
        return await _postgres(request)
    return await _local(SqliteEventStore if request.param == "sqlite" else MemoryEventStore)


@pytest.fixture
async def store(backend: Backend, tmp_path: Path) -> AsyncIterator[EventStore]:
    async with await backend.make(tmp_path / "games.db") as opened:
        yield opened


SEATS = (
    Seat(1, "p2", "Boris", "222"),
    Seat(0, "p1", "Anna", "111", commissioner=True),
    Seat(2, "p3", "Vera"),
)


def new_game(channel: str | None = "chan-1", status: GameStatus = GameStatus.RUNNING) -> NewGame:
    return NewGame(
        title="1861", options={"market": "grid"}, seed=42, created_by="111",
        engine_version=3, seats=SEATS, guild_id="guild-1", channel_id=channel, status=status,
    )


def action(n: int) -> NewEvent:
    return NewEvent({"type": "score", "entity": "p1", "points": n}, actor="111")


async def test_create_and_get_game(store: EventStore) -> None:
    created = await store.create_game(new_game())
    fetched = await store.get_game(created.id)
    assert fetched == created
    assert fetched.title == "1861" and fetched.options == {"market": "grid"} and fetched.seed == 42
    assert (fetched.guild_id, fetched.channel_id, fetched.created_by) == ("guild-1", "chan-1", "111")
    assert fetched.status is GameStatus.RUNNING and fetched.engine_version == 3
    assert [s.player_id for s in fetched.seats] == ["p1", "p2", "p3"]
    assert fetched.seats[0].commissioner and fetched.seats[2].discord_user_id is None
    assert fetched.created_at.tzinfo is not None
    assert abs(fetched.created_at - datetime.now(UTC)) < timedelta(minutes=1)
    assert await store.last_seq(created.id) == 0 and await store.events(created.id) == []


async def test_a_game_is_archived_and_brought_back(store: EventStore) -> None:
    """Issue 38: an idle game's archive time is kept (to the second) and cleared; the game
    stays listed and in its channel (still running), its record otherwise unchanged."""
    created = await store.create_game(new_game())
    assert created.archived_at is None
    at = datetime(2027, 2, 3, 4, 5, 6, tzinfo=UTC)
    await store.set_archived(created.id, at)
    archived = await store.get_game(created.id)
    assert archived.archived_at == at and replace(archived, archived_at=None) == created
    assert [g.archived_at for g in await store.list_games([GameStatus.RUNNING])] == [at]
    assert (await store.active_game_in_channel("chan-1")) == archived
    await store.set_archived(created.id, None)
    assert await store.get_game(created.id) == created
    with pytest.raises(GameNotFound, match="there is no game 99"):
        await store.set_archived(99, at)


async def test_unknown_game_is_game_not_found(store: EventStore) -> None:
    for attempt in (
        store.get_game(99), store.last_seq(99), store.events(99),
        store.append(99, 0, action(1)), store.set_status(99, GameStatus.FINISHED),
        store.set_engine_version(99, 4), store.outbox_add(99, {"text": "hi"}),
    ):
        with pytest.raises(GameNotFound, match="there is no game 99"):
            await attempt


async def test_duplicate_seats_are_refused(store: EventStore) -> None:
    twice = NewGame("1861", {}, 1, "u", 1, seats=[Seat(0, "p1", "A"), Seat(1, "p1", "B")])
    with pytest.raises(ValueError, match="p1 repeats"):
        await store.create_game(twice)
    assert await store.list_games() == []


async def test_list_games_by_status(store: EventStore) -> None:
    running = await store.create_game(new_game("a"))
    lobby = await store.create_game(new_game("b", GameStatus.SETTING_UP))
    done = await store.create_game(new_game("c", GameStatus.FINISHED))
    assert [g.id for g in await store.list_games()] == [running.id, lobby.id, done.id]
    assert await store.list_games([GameStatus.RUNNING]) == [running]
    assert [g.id for g in await store.list_games(ACTIVE_STATUSES)] == [running.id, lobby.id]
    assert await store.list_games([]) == []


async def test_one_active_game_per_channel(store: EventStore) -> None:
    first = await store.create_game(new_game("chan", GameStatus.SETTING_UP))
    assert await store.active_game_in_channel("chan") == first
    with pytest.raises(ChannelBusy, match=f"channel chan already has an active game \\({first.id}\\)"):
        await store.create_game(new_game("chan"))
    await store.set_status(first.id, GameStatus.RUNNING)  # still the same game: allowed
    await store.set_status(first.id, GameStatus.ABANDONED)
    assert await store.active_game_in_channel("chan") is None
    second = await store.create_game(new_game("chan"))
    with pytest.raises(ChannelBusy):
        await store.set_status(first.id, GameStatus.RUNNING)
    assert (await store.active_game_in_channel("chan")) == second
    await store.create_game(new_game("chan", GameStatus.FINISHED))  # inactive games don't count
    await store.create_game(new_game(None))
    await store.create_game(new_game(None))  # no channel: never busy


async def test_appends_are_numbered_in_order(store: EventStore) -> None:
    game = await store.create_game(new_game())
    first = await store.append(game.id, 0, action(1))
    batch = await store.append_many(game.id, 1, [action(2), action(3)])
    assert [first.seq, *(e.seq for e in batch)] == [1, 2, 3]
    assert await store.last_seq(game.id) == 3
    events = await store.events(game.id)
    assert [(e.seq, e.action["points"], e.kind, e.actor) for e in events] == [
        (n, n, EventKind.ACTION, "111") for n in (1, 2, 3)
    ]
    assert events == [first, *batch]
    assert [e.seq for e in await store.events(game.id, after_seq=1)] == [2, 3]
    assert await store.events(game.id, after_seq=3) == []


async def test_event_fields_round_trip(store: EventStore) -> None:
    game = await store.create_game(new_game())
    when = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)
    await store.append(game.id, 0, NewEvent(
        {"type": "undo", "action_id": 0, "text": "Привет"}, EventKind.UNDO, "222", "oops", "abc",
        created_at=when,
    ))
    [event] = await store.events(game.id)
    assert (event.kind, event.actor, event.note) == (EventKind.UNDO, "222", "oops")
    assert event.state_hash == "abc"
    assert event.action == {"type": "undo", "action_id": 0, "text": "Привет"}
    assert event.created_at == when


async def test_append_conflict_writes_nothing(store: EventStore) -> None:
    game = await store.create_game(new_game())
    await store.append(game.id, 0, action(1))
    latest = "you acted on event 0 but the latest is event 1"
    with pytest.raises(AppendConflict, match=latest) as caught:
        await store.append(game.id, 0, action(2))
    assert (caught.value.expected_seq, caught.value.actual_seq) == (0, 1)
    with pytest.raises(AppendConflict):
        await store.append_many(game.id, 5, [action(2), action(3)])
    assert [e.action["points"] for e in await store.events(game.id)] == [1]


async def test_batch_append_is_all_or_nothing(store: EventStore) -> None:
    game = await store.create_game(new_game())
    with pytest.raises(TypeError):
        await store.append_many(game.id, 0, [action(1), NewEvent({"type": "x", "bad": {1, 2}})])
    with pytest.raises(ValueError, match="at least one event"):
        await store.append_many(game.id, 0, [])
    with pytest.raises(AppendConflict):
        await store.append_many(game.id, 1, [action(1)], outbox=[{"text": "never"}])
    assert await store.events(game.id) == [] and await store.outbox_unsent() == []


async def test_append_replaces_seats_and_queues_posts_atomically(store: EventStore) -> None:
    game = await store.create_game(new_game())
    seats = [Seat(0, "p1", "Anna"), Seat(1, "p2", "Gleb", "333"), Seat(2, "p3", "Vera")]
    seat_event = NewEvent({"type": "seats"}, EventKind.SEAT, "111")
    await store.append(game.id, 0, seat_event, seats=seats, outbox=[{"text": "Gleb sits down"}])
    assert (await store.get_game(game.id)).seats == tuple(seats)
    [post] = await store.outbox_unsent()
    assert (post.game_id, post.payload) == (game.id, {"text": "Gleb sits down"})
    with pytest.raises(AppendConflict):
        await store.append(game.id, 0, seat_event, seats=list(SEATS), outbox=[{"text": "no"}])
    assert (await store.get_game(game.id)).seats == tuple(seats)
    assert len(await store.outbox_unsent()) == 1


async def test_outbox_lists_unsent_in_order_and_marks_sent(store: EventStore) -> None:
    game = await store.create_game(new_game())
    ids = [await store.outbox_add(game.id, {"n": n}) for n in range(3)]
    assert [m.id for m in await store.outbox_unsent()] == ids
    assert [m.payload for m in await store.outbox_unsent(limit=2)] == [{"n": 0}, {"n": 1}]
    await store.outbox_mark_sent(ids[1])
    await store.outbox_mark_sent(ids[1])  # again: harmless
    assert [m.id for m in await store.outbox_unsent()] == [ids[0], ids[2]]
    with pytest.raises(StoreError, match="no outbox message 999"):
        await store.outbox_mark_sent(999)


async def test_outbox_pages_past_an_id(store: EventStore) -> None:
    game = await store.create_game(new_game())
    ids = [await store.outbox_add(game.id, {"n": n}) for n in range(4)]
    assert [m.id for m in await store.outbox_unsent(limit=2, after_id=ids[1])] == ids[2:]


async def test_a_request_key_is_carried_out_once(store: EventStore) -> None:
    game = await store.create_game(new_game())
    other = await store.create_game(new_game("chan-2"))
    keyed = replace(action(1), request_key="message-7")
    [event] = await store.append_many(game.id, 0, [keyed])
    assert (await store.events(game.id))[0].request_key == "message-7" == event.request_key
    for game_id, seq in ((game.id, 1), (game.id, 0), (other.id, 0)):  # checked before the seq
        with pytest.raises(DuplicateRequest, match="message-7"):
            await store.append(game_id, seq, keyed, outbox=[{"text": "never"}])
    assert await store.last_seq(game.id) == 1 and await store.last_seq(other.id) == 0
    assert await store.outbox_unsent() == []


async def test_an_append_may_set_the_status_in_its_transaction(store: EventStore) -> None:
    game = await store.create_game(new_game())
    await store.append(game.id, 0, action(1), status=GameStatus.FINISHED)
    assert (await store.get_game(game.id)).status is GameStatus.FINISHED
    assert await store.active_game_in_channel("chan-1") is None
    newer = await store.create_game(new_game())
    with pytest.raises(ChannelBusy):
        await store.append(game.id, 1, action(2), status=GameStatus.RUNNING)
    assert await store.last_seq(game.id) == 1
    assert (await store.active_game_in_channel("chan-1")).id == newer.id  # type: ignore[union-attr]


async def test_create_game_with_its_first_events(store: EventStore) -> None:
    game = await store.create_game(new_game(), [action(1), action(2)])
    assert [e.seq for e in await store.events(game.id)] == [1, 2]
    with pytest.raises(TypeError):
        await store.create_game(new_game("other"), [NewEvent({"bad": object()})])
    assert [g.id for g in await store.list_games()] == [game.id]


async def test_status_and_engine_version_updates(store: EventStore) -> None:
    game = await store.create_game(new_game())
    await store.set_status(game.id, GameStatus.FINISHED)
    await store.set_engine_version(game.id, 7)
    record = await store.get_game(game.id)
    assert (record.status, record.engine_version) == (GameStatus.FINISHED, 7)


async def test_backup_is_a_complete_copy(store: EventStore, backend: Backend, tmp_path: Path) -> None:
    game = await store.create_game(new_game())
    await store.append_many(game.id, 0, [action(n) for n in range(1, 6)])
    await store.outbox_add(game.id, {"text": "pending"})
    await store.backup(tmp_path / "copy.db")
    await store.append(game.id, 5, action(6))  # after the backup: not in it
    async with backend.open_backup(tmp_path / "copy.db") as copy_store:
        assert await copy_store.get_game(game.id) == await store.get_game(game.id)
        assert await copy_store.events(game.id) == (await store.events(game.id))[:5]
        assert [m.payload for m in await copy_store.outbox_unsent()] == [{"text": "pending"}]


async def test_outbox_unsent_of_one_game_or_all(store: EventStore) -> None:
    first, second = await store.create_game(new_game("a")), await store.create_game(new_game("b"))
    ids = [await store.outbox_add(game.id, {"n": n}) for n, game in enumerate([first, second] * 60)]
    assert [m.id for m in await store.outbox_unsent(limit=None)] == ids
    assert len(await store.outbox_unsent()) == 100
    assert [m.id for m in await store.outbox_unsent(limit=None, game_id=second.id)] == ids[1::2]
    assert [m.payload["n"] for m in await store.outbox_unsent(2, game_id=first.id)] == [0, 2]


async def test_pictures_owed_are_kept_until_attached(store: EventStore) -> None:
    """R1: a post sent before its pictures keeps where it went until they are attached;
    marking it sent again does not make them owed again once attached."""
    first, second = await store.create_game(new_game("a")), await store.create_game(new_game("b"))
    ids = [await store.outbox_add(game.id, {"n": n}) for n, game in enumerate([first, second, first])]
    await store.outbox_mark_sent(ids[0], pictures_for="message 1")
    await store.outbox_mark_sent(ids[1], pictures_for="message 2")
    await store.outbox_mark_sent(ids[2])  # no pictures
    owed = await store.outbox_owed()
    assert [(m.id, m.pictures_for, m.payload) for m in owed] == [(ids[0], "message 1", {"n": 0}),
                                                                   (ids[1], "message 2", {"n": 1})]
    assert all(m.sent_at is not None for m in owed) and await store.outbox_unsent() == []
    assert [m.id for m in await store.outbox_owed(game_id=second.id)] == [ids[1]]
    await store.outbox_pictures_done(ids[0])
    await store.outbox_mark_sent(ids[0], pictures_for="message 1")  # a late second mark
    assert [m.id for m in await store.outbox_owed()] == [ids[1]]


async def test_a_claim_gives_a_game_to_one_owner_at_a_time(store: EventStore) -> None:
    game, other = await store.create_game(new_game("a")), await store.create_game(new_game("b"))
    assert await store.claim_game(game.id, "shard-0")
    assert not await store.claim_game(game.id, "shard-1")
    assert await store.claim_game(game.id, "shard-0")  # renewed
    assert await store.claim_game(other.id, "shard-1")
    await store.release_claims("shard-0")
    assert await store.claim_game(game.id, "shard-1")
    assert not await store.claim_game(other.id, "shard-0")
    with pytest.raises(GameNotFound):
        await store.claim_game(99, "shard-0")


async def test_an_expired_claim_may_be_taken(store: EventStore) -> None:
    game = await store.create_game(new_game())
    assert await store.claim_game(game.id, "crashed", timedelta(milliseconds=1))
    await asyncio.sleep(0.01)
    assert await store.claim_game(game.id, "successor")
    assert not await store.claim_game(game.id, "crashed")


async def test_a_restored_game_keeps_its_ids_times_and_posts(store: EventStore) -> None:
    when = datetime(2025, 3, 1, 9, 15, 30, 123456, tzinfo=UTC)
    record = new_game().record(7, when)
    events = [action(n).at(7, n, when + timedelta(minutes=n)) for n in range(1, 4)]
    posts = [OutboxMessage(40, 7, {"text": "pending"}, when)]
    await store.restore_game(record, events, posts)
    assert await store.get_game(7) == record
    assert await store.events(7) == events
    assert await store.outbox_unsent() == posts
    with pytest.raises(StoreError, match="game 7 is already"):
        await store.restore_game(replace(record, channel_id=None), [], [])
    later = await store.create_game(new_game("elsewhere"))
    assert later.id == 8 and await store.outbox_add(later.id, {"text": "new"}) == 41
    await store.append(7, 3, action(4))  # the restored log goes on
    assert [e.seq for e in await store.events(7)] == [1, 2, 3, 4]


async def test_snapshots_are_kept_per_engine_version(store: EventStore, backend: Backend) -> None:
    """SQLite and PostgreSQL both keep the latest snapshot of each engine version (N14);
    the in-memory fake keeps none, which the contract allows."""
    from storage.store import Snapshot

    game = await store.create_game(new_game())
    await store.append_many(game.id, 0, [action(n) for n in range(3)])
    keeps = not isinstance(store, MemoryEventStore)
    await store.put_snapshot(game.id, Snapshot(1, 3, "h1", b"one"))
    await store.put_snapshot(game.id, Snapshot(3, 3, "h3", b"\x00three"))
    await store.put_snapshot(game.id, Snapshot(2, 4, "h2", b"two"))
    assert await store.get_snapshot(game.id, 3) == (Snapshot(3, 3, "h3", b"\x00three") if keeps else None)
    assert await store.get_snapshot(game.id, 4) == (Snapshot(2, 4, "h2", b"two") if keeps else None)
    assert await store.get_snapshot(game.id, 5) is None
    if keeps:
        with pytest.raises(GameNotFound):
            await store.put_snapshot(999, Snapshot(1, 3, "h", b"x"))
