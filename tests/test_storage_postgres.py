"""What only the PostgreSQL backend promises: its own migrations, the log protected in
the database, its errors turned into ours, safe URLs, and SQLite backups."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import suppress
from pathlib import Path
from urllib.parse import unquote, urlsplit

import asyncpg
import pytest

from storage.bench import bench_store
from storage.codec import migration_scripts
from storage.copy import store_at
from storage.postgres import MIGRATIONS_DIR, PostgresEventStore, _driver_url, safe_url
from storage.sqlite import SqliteEventStore
from storage.store import ChannelBusy, CorruptEvent, GameStatus, NewEvent, NewGame, Seat, StoreError

SEATS = (Seat(0, "p1", "Anna"), Seat(1, "p2", "Boris"))


@pytest.fixture
async def store(postgres_url: str) -> AsyncIterator[PostgresEventStore]:
    async with PostgresEventStore(postgres_url) as opened:
        yield opened


async def make_game(store: PostgresEventStore, channel: str | None = None) -> int:
    return (await store.create_game(NewGame("1861", {}, 7, "u1", 1, SEATS, channel_id=channel))).id


def action(n: int) -> NewEvent:
    return NewEvent({"type": "score", "entity": "p1", "points": n})


async def test_migrations_apply_once_even_when_opened_at_once(postgres_url: str) -> None:
    stores = [PostgresEventStore(postgres_url) for _ in range(4)]
    await asyncio.gather(*(s.open() for s in stores))
    for s in stores:
        await s.close()
    raw = await asyncpg.connect(postgres_url)
    try:
        versions = [r[0] for r in await raw.fetch("SELECT version FROM schema_version ORDER BY version")]
        assert versions == list(range(1, len(migration_scripts(MIGRATIONS_DIR)) + 1))
        await raw.execute("INSERT INTO schema_version VALUES (99, now())")
    finally:
        await raw.close()
    with pytest.raises(StoreError, match="schema version 99 but this Troika only knows up to"):
        await PostgresEventStore(postgres_url).open()


async def test_the_log_cannot_be_rewritten(store: PostgresEventStore, postgres_url: str) -> None:
    game_id = await make_game(store)
    await store.append(game_id, 0, action(1))
    raw = await asyncpg.connect(postgres_url)
    try:
        for statement in ("UPDATE events SET action = '{}'", "DELETE FROM events"):
            with pytest.raises(asyncpg.RaiseError, match="append-only"):
                await raw.execute(statement)
        await raw.execute(
            "INSERT INTO events (game_id, seq, kind, action, created_at) VALUES ($1, 2, 'action', $2, now())",
            game_id, '{"type": "score", ',
        )
    finally:
        await raw.close()
    with pytest.raises(CorruptEvent, match=r"\(event 2\): its action is not valid JSON"):
        await store.events(game_id)


async def test_concurrent_games_in_one_channel(store: PostgresEventStore) -> None:
    tries = [store.create_game(NewGame("1861", {}, n, "u", 1, SEATS, channel_id="busy",
                                       status=GameStatus.RUNNING)) for n in range(8)]
    results = await asyncio.gather(*tries, return_exceptions=True)
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, ChannelBusy) for r in results if isinstance(r, BaseException))


async def test_driver_errors_become_store_errors(postgres_url: str, tmp_path: Path) -> None:
    nowhere = "postgresql://troika:hunter2@/nothing?host=" + str(tmp_path)
    with pytest.raises(StoreError, match="cannot open the database") as caught:
        await PostgresEventStore(nowhere).open()
    assert "hunter2" not in str(caught.value)
    store = PostgresEventStore(postgres_url)
    with pytest.raises(StoreError, match="not open"):
        await store.last_seq(1)
    async with store:
        with pytest.raises(StoreError, match="database error while appending"):
            await store.append(2**63, 0, action(1))  # out of range for a game id


def test_urls_pick_the_backend_and_hide_passwords(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert safe_url("postgresql://bot:s3cret@db:5432/troika") == "postgresql://bot:***@db:5432/troika"
    assert safe_url("postgresql://bot@db/troika") == "postgresql://bot@db/troika"
    pasted = _driver_url("postgres://bot:Wr/o?n#g@x:y@db:5433/troika?sslmode=disable")  # R4: not encoded
    parts = urlsplit(pasted)
    assert (unquote(parts.password or ""), parts.username, parts.port, parts.query) == (
        "Wr/o?n#g@x:y", "bot", 5433, "sslmode=disable")
    assert isinstance(store_at("postgres://db/troika"), PostgresEventStore)
    assert isinstance(store_at("postgresql://db/troika"), PostgresEventStore)
    for location in ("games.db", "sqlite:games.db", Path("games.db")):
        sqlite = store_at(location)
        assert isinstance(sqlite, SqliteEventStore) and sqlite.path == "games.db"
    (tmp_path / "password").write_text("s3cret\n")
    monkeypatch.setenv("TROIKA_DB_PASSWORD_FILE", str(tmp_path / "password"))
    store = store_at("postgresql://bot@db/troika")
    assert isinstance(store, PostgresEventStore) and store._password == "s3cret"


async def test_a_backup_is_a_sqlite_file_of_one_moment(store: PostgresEventStore, tmp_path: Path) -> None:
    game_id = await make_game(store, channel="c")

    async def write() -> None:
        for seq in range(200):
            await store.append(game_id, seq, action(seq), outbox=[{"seq": seq + 1}])

    writing = asyncio.create_task(write())
    await asyncio.sleep(0.05)
    await store.backup(tmp_path / "copy.db")
    await writing
    async with SqliteEventStore(tmp_path / "copy.db") as copy:
        seqs = [e.seq for e in await copy.events(game_id)]
        posts = [m.payload["seq"] for m in await copy.outbox_unsent(limit=None)]
    assert len(seqs) > 0 and seqs == list(range(1, len(seqs) + 1)) and posts == seqs
    with pytest.raises(StoreError, match="it exists"):
        await store.backup(tmp_path / "copy.db")


@pytest.mark.slow
async def test_the_store_benchmark_runs_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    figures = await bench_store(tmp_path, location=postgres_url, warm_loads=20)
    assert set(figures) == {"append_p50_ms", "append_p95_ms", "load_cold_ms", "load_cold_full_replay_ms",
                            "load_warm_ms"}
    assert 0 < figures["append_p50_ms"] <= figures["append_p95_ms"]
    async with PostgresEventStore(postgres_url) as store:
        [game] = await store.list_games()
        assert await store.last_seq(game.id) == 700


async def test_cancelled_appends_leave_the_store_usable(store: PostgresEventStore) -> None:
    game_id = await make_game(store)
    rng = random.Random(67)
    for batch in range(100):  # cancel at random points: before, inside, after the transaction
        size = rng.choice([1, 5, 50])
        batch_events = [NewEvent({"batch": batch, "size": size}) for _ in range(size)]
        seq = await store.last_seq(game_id)
        task = asyncio.create_task(store.append_many(game_id, seq, batch_events))
        for _ in range(rng.randrange(100)):
            await asyncio.sleep(0)
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
    events = await store.events(game_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    sizes = Counter(e.action["batch"] for e in events)
    assert all(sizes[e.action["batch"]] == e.action["size"] for e in events)
    await store.append(game_id, len(events), action(1))
