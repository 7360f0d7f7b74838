"""Snapshots: a cold load starts from the game's saved state and replays only the
events after it, lands on the state the log records, and falls back to a full replay
whenever the snapshot does not fit (stale, damaged, another engine, an undo since)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast

import pytest

from storage.fake_engine import FakeEngine
from storage.repository import SNAPSHOT_EVERY, GameRepository
from storage.sqlite import SqliteEventStore
from storage.store import EventStore, GameStatus, Seat, Snapshot

SEATS = [Seat(0, "p1", "Anna", "111", commissioner=True), Seat(1, "p2", "Boris", "222")]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteEventStore]:
    async with SqliteEventStore(db_path) as opened:
        yield opened


async def played(repo: GameRepository, actions: int) -> int:
    """A running game of the points game with ``actions`` scoring actions."""
    record = await repo.create_game("points", {}, 5, SEATS, "111")
    live = await repo.start_game(record.id)
    for n in range(actions):
        entity = ("p1", "p2")[n % 2]
        live = (await repo.act(record.id, live.seq, {"type": "score", "entity": entity, "points": n % 7},
                               "111")).live
    return record.id


async def cold(store: EventStore, game_id: int, version: int = 1) -> tuple[dict[str, Any], FakeEngine]:
    """The state a repository with an empty cache loads, and its engine (to count replays)."""
    engine = FakeEngine(version)
    live = await GameRepository(store, engine).load(game_id)
    return engine.dump(live.game), engine


def replayed(store: EventStore, game_id: int) -> Any:
    """The state a full replay reaches: a store that keeps no snapshots."""
    return cold(cast(EventStore, _NoSnapshots(store)), game_id)


class _NoSnapshots:
    """The store under test with the base class's snapshot methods: what another
    backend gets by default (keeps none)."""

    def __init__(self, inner: EventStore) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    put_snapshot = EventStore.put_snapshot
    get_snapshot = EventStore.get_snapshot


async def test_a_cold_load_starts_from_the_latest_snapshot(store: SqliteEventStore) -> None:
    game_id = await played(GameRepository(store, FakeEngine()), 2 * SNAPSHOT_EVERY + 30)
    snapshot = await store.get_snapshot(game_id, 1)
    assert snapshot is not None and snapshot.seq == 2 * SNAPSHOT_EVERY  # the latest one is kept
    event = (await store.events(game_id, after_seq=snapshot.seq - 1))[0]
    assert snapshot.state_hash == event.state_hash
    state, engine = await cold(store, game_id)
    assert (engine.snapshots_restored, engine.games_created) == (1, 0)
    full, full_engine = await replayed(store, game_id)
    assert state == full and full_engine.snapshots_restored == 0 and state["moves"] == 2 * SNAPSHOT_EVERY + 30


async def test_a_snapshot_that_does_not_fit_costs_only_a_full_replay(
    store: SqliteEventStore, db_path: Path
) -> None:
    game_id = await played(GameRepository(store, FakeEngine()), SNAPSHOT_EVERY + 5)
    good = await store.get_snapshot(game_id, 1)
    assert good is not None
    full, _ = await replayed(store, game_id)

    for bad in (
        Snapshot(good.seq, 1, good.state_hash, b"not a snapshot"),  # damaged bytes
        Snapshot(good.seq, 1, "another state", good.data),  # not the state its event records
        Snapshot(good.seq - 1, 1, good.state_hash, good.data),  # saved against the wrong event
    ):
        await store.put_snapshot(game_id, bad)
        state, engine = await cold(store, game_id)
        assert state == full and engine.games_created == 1, bad
    await store.put_snapshot(game_id, good)
    with sqlite3.connect(db_path) as raw:  # bytes that read, but hold another state
        raw.execute("UPDATE snapshots SET data = CAST(REPLACE(CAST(data AS TEXT), '\"moves\": ', "
                    "'\"moves\": 1') AS BLOB)")
    state, engine = await cold(store, game_id)
    assert state == full and (engine.snapshots_restored, engine.games_created) == (1, 1)

    other, engine = await cold(store, game_id, version=2)  # another engine: not its snapshot
    assert other == full and (engine.snapshots_restored, engine.games_created) == (0, 1)


async def test_an_undo_since_the_snapshot_is_replayed_in_full(store: SqliteEventStore) -> None:
    repo = GameRepository(store, FakeEngine())
    game_id = await played(repo, SNAPSHOT_EVERY + 3)
    seq = (await repo.load(game_id)).seq
    await repo.undo(game_id, seq, "111", action_id=SNAPSHOT_EVERY - 10)  # reaches behind the snapshot
    state, engine = await cold(store, game_id)
    assert engine.games_created == 1 and state["moves"] == SNAPSHOT_EVERY - 10
    assert state == (await replayed(store, game_id))[0]


async def test_a_store_without_snapshots_still_loads(store: SqliteEventStore) -> None:
    game_id = await played(GameRepository(cast(EventStore, _NoSnapshots(store)), FakeEngine()), SNAPSHOT_EVERY + 1)
    assert await store.get_snapshot(game_id, 1) is None
    state, engine = await cold(cast(EventStore, _NoSnapshots(store)), game_id)
    assert state["moves"] == SNAPSHOT_EVERY + 1 and engine.games_created == 1


async def test_only_games_of_another_engine_version_are_checked(store: SqliteEventStore) -> None:
    old = GameRepository(store, FakeEngine(1))
    first, second = await played(old, 3), await played(old, 4)
    current = GameRepository(store, FakeEngine(2))
    await store.set_engine_version(second, 2)
    assert await current.verify_running_games(other_versions_only=True) == []
    assert current.engine.games_created == 1  # the first game only
    assert [(await store.get_game(g)).engine_version for g in (first, second)] == [2, 2]
    assert [g.id for g in await store.list_games([GameStatus.RUNNING])] == [first, second]
