"""A store holding hostile or damaged data: snapshots are data and never run code, a
healthy WAL database is never refused, and a row Python cannot read is its own game's
problem only (issue 26; the reproductions of the reliability probe of 2026-12-01)."""

from __future__ import annotations

import os
import pickle
import zlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import GameRepository, SqliteEventStore, TroikaEngine
from storage.repository import SnapshotRefused
from storage.store import EventStore, Seat, Snapshot

SEATS = [Seat(0, "p1", "Anna", "111", commissioner=True), Seat(1, "p2", "Boris", "222"),
         Seat(2, "p3", "Clara", "333")]


class _Hostile:
    """Unpickled, this would create the file ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, ...]]:
        return os.system, (f"touch {self.marker}",)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteEventStore]:
    async with SqliteEventStore(tmp_path / "games.db") as opened:
        yield opened


async def real_game(store: EventStore, moves: int = 3) -> tuple[int, int, str]:
    """A running 1861 game with ``moves`` passes: its id, last event and state hash."""
    repo = GameRepository(store, TroikaEngine())
    record = await repo.create_game("1861", {"first_player": 0}, 7, SEATS, "111")
    live = await repo.start_game(record.id)
    for _ in range(moves):
        live = (await repo.act(record.id, live.seq, {"type": "pass", "entity": live.game.actor()}, "111")).live
    return record.id, live.seq, live.state_hash


@pytest.mark.parametrize("payload", ["pickle", "zlib pickle"])
async def test_a_hostile_snapshot_row_runs_no_code(store: SqliteEventStore, tmp_path: Path, payload: str) -> None:
    """N4: a snapshot row whose hash fits, holding a pickle that calls os.system."""
    game_id, seq, digest = await real_game(store)
    marker = tmp_path / "PWNED"
    data = pickle.dumps(_Hostile(marker))
    if payload == "zlib pickle":
        data = zlib.compress(data)
    engine = TroikaEngine()
    await store.put_snapshot(game_id, Snapshot(seq, engine.version, digest, data))
    live = await GameRepository(store, engine).load(game_id)
    assert not marker.exists()
    assert (live.seq, live.state_hash) == (seq, digest)  # a full replay, as if no snapshot


def test_snapshots_hold_only_engine_data() -> None:
    """A real state round-trips; anything outside the engine's dataclasses and enums, and
    a decompression bomb, is refused before it is built."""
    from tests.conftest import new_game

    engine = TroikaEngine()
    game = new_game()
    data = engine.snapshot(game)
    from storage.store import GameRecord, GameStatus
    from datetime import UTC, datetime

    meta = GameRecord(1, "1861", {"first_player": 0}, 1, "a", GameStatus.RUNNING, 1, datetime.now(UTC),
                      seats=(Seat(0, "a", "Anna"), Seat(1, "b", "Boris"), Seat(2, "c", "Clara")))
    assert engine.restore(meta, data).dump() == game.dump()
    for hostile in (pickle.dumps(Path("/etc/passwd")), pickle.dumps(print), pickle.dumps(os.system),
                    pickle.dumps(getattr)):
        with pytest.raises(SnapshotRefused):
            engine.restore(meta, zlib.compress(hostile))
    bomb = zlib.compress(b"\0" * (80 * 2**20), 9)  # 80 MB of zeros in 80 KB
    with pytest.raises(SnapshotRefused, match="larger"):
        engine.restore(meta, bomb)


SECRET = "Sekret-PW-5678"
SECRET_URLS = [
    f"postgresql://bot@127.0.0.1:1/troika?password={SECRET}",
    f"postgresql://bot@127.0.0.1:1/troika?sslmode=disable&PassWord={SECRET}",
    f"postgresql+asyncpg://bot:{SECRET}@127.0.0.1:1/troika",
    f"POSTGRESQL://bot:{SECRET}@127.0.0.1:1/troika",
    f"Postgres://bot:{SECRET}@127.0.0.1:99999/troika",
    f"postgresql://bot:{SECRET}@[127.0.0.1/troika",
    f"postgresql://bot:Wrong@{SECRET}@127.0.0.1:1/troika",
    f"mysql://bot:{SECRET}@127.0.0.1/troika",
]


@pytest.mark.parametrize("url", SECRET_URLS)
def test_a_database_password_is_never_printed(url: str, capfd: pytest.CaptureFixture[str]) -> None:
    """N7: a password in the query string, under another scheme or its capitals, next to a
    bad port or bad syntax, is masked in every message; the URL is never taken for a path."""
    from bot.cli import main
    from storage.postgres import is_postgres_url, safe_url

    assert SECRET not in safe_url(url)
    assert is_postgres_url(url) is not url.startswith("mysql")
    for argv in (["backup", "/nonexistent/b.db", "--db", url], ["admin", "accept", "1", "--yes", "--db", url],
                 ["migrate", "--from", url, "--to", "sqlite:/nonexistent/x.db"]):
        assert main(argv) != 0
        out, err = capfd.readouterr()
        assert SECRET not in out + err and err.startswith("troika: ") and "Traceback" not in err
