"""What only the SQLite backend promises: durability settings, migrations, the file's
protection of the log, and its errors turned into ours."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import suppress
from pathlib import Path

import pytest

from storage.sqlite import SqliteEventStore, _statements
from storage.store import CorruptEvent, NewEvent, NewGame, Seat, StoreError

SEATS = (Seat(0, "p1", "Anna"), Seat(1, "p2", "Boris"))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "troika.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteEventStore]:
    async with SqliteEventStore(db_path) as opened:
        yield opened


async def make_game(store: SqliteEventStore, channel: str | None = None) -> int:
    game = await store.create_game(NewGame("1861", {}, 7, "u1", 1, SEATS, channel_id=channel))
    return game.id


def action(n: int) -> NewEvent:
    return NewEvent({"type": "score", "entity": "p1", "points": n})


def raw(db_path: Path) -> sqlite3.Connection:
    """A plain connection to the file, for looking behind the store's back."""
    return sqlite3.connect(db_path, isolation_level=None)


async def test_wal_and_full_sync(store: SqliteEventStore, db_path: Path) -> None:
    assert raw(db_path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db is not None
    pragmas = {name: next(iter(await store._db.execute_fetchall(f"PRAGMA {name}")))[0]
               for name in ("synchronous", "foreign_keys", "busy_timeout")}
    assert pragmas == {"synchronous": 2, "foreign_keys": 1, "busy_timeout": 10_000}


async def test_migrations_apply_once(store: SqliteEventStore, db_path: Path) -> None:
    await store.close()
    async with SqliteEventStore(db_path):
        pass
    versions = raw(db_path).execute("SELECT version FROM schema_version").fetchall()
    assert versions == [(1,), (2,), (3,), (4,), (5,), (6,), (7,)]  # 001_init, 002_request_keys, 003_claims,
    # 004_snapshots, 005_copy_marker, 006_pictures_owed, 007_archived
    listing = raw(db_path).execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    tables = {row[0] for row in listing}
    assert {"games", "seats", "events", "outbox", "claims", "snapshots", "copy_marker", "schema_version"} <= tables


async def test_a_newer_schema_is_refused(db_path: Path) -> None:
    async with SqliteEventStore(db_path):
        pass
    raw(db_path).execute("INSERT INTO schema_version VALUES (99, 'later')")
    with pytest.raises(StoreError, match="schema version 99 but this Troika only knows up to 7"):
        await SqliteEventStore(db_path).open()


def test_statement_splitting_keeps_triggers_whole() -> None:
    script = "CREATE TABLE t (a);\n-- note\nCREATE TRIGGER x AFTER INSERT ON t\nBEGIN\n" \
             "  SELECT 1;\nEND;\n-- trailing comment\n"
    statements = list(_statements(script))
    assert len(statements) == 3
    assert statements[1].strip().startswith("-- note\nCREATE TRIGGER")
    assert statements[1].rstrip().endswith("END;")


async def test_the_log_cannot_be_rewritten(store: SqliteEventStore, db_path: Path) -> None:
    game_id = await make_game(store)
    await store.append(game_id, 0, action(1))
    for statement in ("UPDATE events SET action = '{}'", "DELETE FROM events"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw(db_path).execute(statement)
    assert [e.action["points"] for e in await store.events(game_id)] == [1]


async def test_a_failure_inside_a_batch_rolls_it_back(store: SqliteEventStore, db_path: Path) -> None:
    game_id = await make_game(store)
    raw(db_path).execute(
        "CREATE TRIGGER fail_third BEFORE INSERT ON events WHEN NEW.seq = 3"
        " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )
    with pytest.raises(StoreError, match="appending to game 1: disk on fire"):
        await store.append_many(game_id, 0, [action(1), action(2), action(3)], outbox=[{"t": 1}])
    assert await store.events(game_id) == [] and await store.outbox_unsent() == []
    await store.append_many(game_id, 0, [action(1), action(2)])  # the store is still usable
    assert await store.last_seq(game_id) == 2


async def test_unreadable_rows_are_corrupt_events(store: SqliteEventStore, db_path: Path) -> None:
    broken, healthy = await make_game(store), await make_game(store)
    await store.append(broken, 0, action(1))
    await store.append(healthy, 0, action(1))
    raw(db_path).execute(
        "INSERT INTO events (game_id, seq, kind, action, created_at) VALUES (?, 2, 'action', ?, ?)",
        (broken, '{"type": "score", ', "2024-01-01T00:00:00+00:00"),
    )
    message = r"game 1 cannot be loaded \(event 2\): its action is not valid JSON"
    with pytest.raises(CorruptEvent, match=message) as caught:
        await store.events(broken)
    assert (caught.value.game_id, caught.value.seq) == (broken, 2)
    assert len(await store.events(broken, after_seq=2)) == 0
    assert [e.seq for e in await store.events(healthy)] == [1]


async def test_a_gap_in_the_log_is_a_corrupt_event(store: SqliteEventStore, db_path: Path) -> None:
    game_id = await make_game(store)
    await store.append(game_id, 0, action(1))
    raw(db_path).execute(
        "INSERT INTO events (game_id, seq, kind, action, created_at) VALUES (?, 3, 'action', '{}', ?)",
        (game_id, "2024-01-01T00:00:00+00:00"),
    )
    with pytest.raises(CorruptEvent, match=r"\(event 2\): this event is missing"):
        await store.events(game_id)


async def test_driver_errors_become_store_errors(tmp_path: Path) -> None:
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("shopping list: " * 100)
    with pytest.raises(StoreError, match="file is not a database"):
        await SqliteEventStore(not_a_db).open()
    with pytest.raises(StoreError, match="cannot open the database"):
        await SqliteEventStore(tmp_path / "missing-dir" / "x.db").open()
    store = SqliteEventStore(tmp_path / "ok.db")
    with pytest.raises(StoreError, match="not open"):
        await store.last_seq(1)
    async with store:
        with pytest.raises(StoreError, match="onto itself"):
            await store.backup(tmp_path / "ok.db")
        with pytest.raises(StoreError, match="backing up"):
            await store.backup(tmp_path / "missing-dir" / "copy.db")


async def test_a_post_due_at_a_crash_is_listed_once_after_restart(
    store: SqliteEventStore, db_path: Path
) -> None:
    game_id = await make_game(store)
    await store.append(game_id, 0, action(1), outbox=[{"text": "p1 scores 1"}])
    await store.close()  # the bot died before posting
    async with SqliteEventStore(db_path) as restarted:
        [due] = await restarted.outbox_unsent()
        assert due.payload == {"text": "p1 scores 1"}
        await restarted.outbox_mark_sent(due.id)
    async with SqliteEventStore(db_path) as again:
        assert await again.outbox_unsent() == []


async def test_cancelled_appends_leave_the_store_usable(store: SqliteEventStore) -> None:
    game_id = await make_game(store)
    rng = random.Random(61)
    for batch in range(200):  # cancel at random points: before, inside, after the transaction
        size = rng.choice([1, 5, 50])
        batch_events = [NewEvent({"batch": batch, "size": size}) for _ in range(size)]
        seq = await store.last_seq(game_id)
        task = asyncio.create_task(store.append_many(game_id, seq, batch_events))
        for _ in range(rng.randrange(300)):
            await asyncio.sleep(0)
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
    events = await store.events(game_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    sizes = Counter(e.action["batch"] for e in events)
    assert all(sizes[e.action["batch"]] == e.action["size"] for e in events)
    await store.append(game_id, len(events), action(1))


async def test_a_throwaway_in_memory_database(tmp_path: Path) -> None:
    async with SqliteEventStore(":memory:") as memory:
        game_id = await make_game(memory)
        await memory.append(game_id, 0, action(1))
        await memory.backup(tmp_path / "kept.db")
    async with SqliteEventStore(tmp_path / "kept.db") as kept:
        assert [e.seq for e in await kept.events(game_id)] == [1]


async def test_backup_passes_integrity_check(store: SqliteEventStore, tmp_path: Path) -> None:
    game_id = await make_game(store, channel="c")
    await store.append_many(game_id, 0, [action(n) for n in range(50)])
    await store.backup(tmp_path / "backup.db")
    copy = raw(tmp_path / "backup.db")
    assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert copy.execute("SELECT COUNT(*) FROM events").fetchone() == (50,)
