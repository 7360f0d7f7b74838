"""A store holding hostile or damaged data: snapshots are data and never run code, a
healthy WAL database is never refused, and a row Python cannot read is its own game's
problem only (issue 26; the reproductions of the reliability probe of 2026-12-01)."""

from __future__ import annotations

import asyncio
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


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("payload", ["pickle", "zlib pickle"])
async def test_a_hostile_snapshot_row_runs_no_code(
        tmp_path: Path, payload: str, backend: str, request: pytest.FixtureRequest) -> None:
    """N4 (and N14): a snapshot row whose hash fits, holding a pickle that calls os.system."""
    from storage.postgres import PostgresEventStore

    where = request.getfixturevalue("postgres_url") if backend == "postgres" else None
    async with (PostgresEventStore(where) if where else SqliteEventStore(tmp_path / "games.db")) as store:
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
    from datetime import UTC, datetime

    from storage.store import GameRecord, GameStatus

    meta = GameRecord(1, "1861", {"first_player": 0}, 1, "a", GameStatus.RUNNING, 1, datetime.now(UTC),
                      seats=(Seat(0, "a", "Anna"), Seat(1, "b", "Boris"), Seat(2, "c", "Clara")))
    assert engine.restore(meta, data).dump() == game.dump()
    for hostile in (pickle.dumps(Path("/etc/passwd")), pickle.dumps(print), pickle.dumps(os.system),
                    pickle.dumps(getattr)):
        with pytest.raises(SnapshotRefused):
            engine.restore(meta, zlib.compress(hostile))
    bomb = zlib.compress(b"\0" * (80 * 2**20), 1)  # 80 MB of zeros in 360 KB
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
    # R4 (2026-12-04): pasted unencoded, as a passphrase, twice, or as libpq's key=value string
    f"postgresql://bot:Wrong/{SECRET}@127.0.0.1:1/troika",
    f"postgresql://bot:Wrong#{SECRET}@127.0.0.1:1/troika",
    f"postgresql://bot:Wrong?{SECRET}@127.0.0.1:1/troika",
    f"postgresql://bot:Wrong:{SECRET}@127.0.0.1:99999/troika",
    f"postgresql://bot@127.0.0.1:1/troika?sslpassword={SECRET}",
    f"postgresql://bot@127.0.0.1:1/troika?a=1&password={SECRET}&password={SECRET}#x",
    f"host=127.0.0.1 port=1 user=bot password={SECRET} dbname=troika",
    f"host=127.0.0.1 port=1 user=bot password='{SECRET} x' dbname=troika",
    f"dbname=troika password = {SECRET}",
]


@pytest.mark.parametrize("url", SECRET_URLS)
def test_a_database_password_is_never_printed(url: str, capfd: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    """N7, R4: a password in the query string, under another scheme or its capitals, next
    to a bad port or bad syntax, holding ``/ # ? : @`` unencoded, or in a ``key=value``
    string, is masked in every message and log line of every command; no such location is
    ever taken for a file's name."""
    from bot.cli import main
    from storage.postgres import is_postgres_url, safe_url

    assert SECRET not in safe_url(url)
    assert is_postgres_url(url) is url.lower().startswith("postgres")
    for name in ("DISCORD_TOKEN", "DISCORD_TOKEN_FILE", "TROIKA_DB_PASSWORD_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    for argv in (["run", "--db", url], ["backup", "/nonexistent/b.db", "--db", url],
                 ["admin", "accept", "1", "--yes", "--db", url],
                 ["export", "--db", url, "--game", "1", "--out", str(tmp_path / "x.json")],
                 ["migrate", "--from", url, "--to", "sqlite:/nonexistent/x.db"],
                 ["migrate", "--from", "sqlite:/nonexistent/x.db", "--to", url]):
        assert main(argv) != 0
        out, err = capfd.readouterr()
        assert SECRET not in out + err + caplog.text and err.startswith("troika: ") and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no file made under the location's name


_KILLED_DURING_CHECKPOINT = r"""
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("BEGIN IMMEDIATE")
for seq in range(2, 402):
    db.execute("INSERT INTO events (game_id, seq, kind, action, created_at) VALUES (1, ?, 'admin', ?, ?)",
               (seq, '{"type": "note", "text": "%s"}' % ("x" * 900), "2026-12-01T00:00:00+00:00"))
db.execute("COMMIT")
print(os.path.getsize(sys.argv[1]), flush=True)
db.execute("PRAGMA wal_checkpoint(PASSIVE)")
os.kill(os.getpid(), signal.SIGKILL)
"""


async def cut_short_by_a_checkpoint(path: Path) -> None:
    """N1's file: a WAL that grew the database by 400 events, a checkpoint that wrote page 1
    (the new size) but none of the pages past the old end, then SIGKILL: the main file is
    shorter than its header while the -wal still holds every page."""
    import subprocess
    import sys

    async with SqliteEventStore(path) as store:
        from storage.store import NewEvent, NewGame

        game = await store.create_game(NewGame("1861", {}, 1, "111", 1, SEATS))
        await store.append(game.id, 0, NewEvent({"type": "note"}, kind=__import__("storage").EventKind.ADMIN))
    done = subprocess.run([sys.executable, "-c", _KILLED_DURING_CHECKPOINT, str(path)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == -9, done.stderr
    old_size = int(done.stdout)
    with path.open("r+b") as handle:
        handle.truncate(old_size)
        handle.seek(28)
        pages = int.from_bytes(handle.read(4), "big")
    assert pages * 4096 > old_size and Path(f"{path}-wal").stat().st_size > 400 * 900


async def test_a_healthy_wal_database_cut_short_by_a_checkpoint_is_used(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """N1: `run`, `backup` and `admin accept` all open it, with every event."""
    from bot.cli import main

    path = tmp_path / "games.db"
    await cut_short_by_a_checkpoint(path)
    assert await asyncio.to_thread(main, ["backup", str(tmp_path / "copy.db"), "--db", str(path)]) == 0
    assert await asyncio.to_thread(main, ["admin", "accept", "1", "--yes", "--db", str(path)]) == 0
    out, err = capfd.readouterr()
    assert "damaged" not in out + err
    for location in (path, tmp_path / "copy.db"):
        async with SqliteEventStore(location) as store:
            assert await store.last_seq(1) == 401


async def test_only_damage_sqlite_confirms_gets_the_restore_hint(tmp_path: Path) -> None:
    """The same file without its -wal is really cut short: refused as damaged, and the
    hint to restore a backup comes with that and nothing else."""
    from bot.cli import RESTORE_HINT, _store_problem
    from storage.store import DatabaseDamaged

    path = tmp_path / "games.db"
    await cut_short_by_a_checkpoint(path)
    Path(f"{path}-wal").unlink()
    Path(f"{path}-shm").unlink(missing_ok=True)
    with pytest.raises(DatabaseDamaged, match="cut short") as caught:
        await SqliteEventStore(path).open()
    assert RESTORE_HINT in _store_problem(caught.value)
    from storage import StoreError

    assert RESTORE_HINT not in _store_problem(StoreError("database error while x: database is locked"))


def _without_dac_override(*argv: str) -> list[str]:
    """``argv`` run so that file permissions apply even to root (as they do to the bot's user)."""
    import shutil
    import sys

    if os.geteuid() != 0:
        return [sys.executable, *argv]
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file permissions cannot be made to apply")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", "--", sys.executable, *argv]


@pytest.mark.slow
@pytest.mark.parametrize("case", ["file 0444", "file 0000", "folder 0555", "new database in a 0555 folder"])
async def test_a_database_this_user_cannot_write_is_refused_at_start(tmp_path: Path, case: str) -> None:
    """N5, N12: named as read-only (not damage, no restore hint), one line, exit 2, before
    any game is played, where before it started and failed every write."""
    import subprocess

    folder = tmp_path / "db"
    folder.mkdir()
    path = folder / "games.db"
    if case != "new database in a 0555 folder":
        await cut_short_by_a_checkpoint(path)  # a database with a -wal to replay, as after a crash
        async with SqliteEventStore(path):
            pass
    (path if case.startswith("file") else folder).chmod(int(case.split()[-1], 8) if case.startswith("file") else 0o555)
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
        run = subprocess.run(_without_dac_override("-m", "bot.cli", "run", "--db", str(path), "--pictures",
                                                   str(tmp_path / "pics")),
                             input="new Anna Boris\nquit\n", capture_output=True, text=True, timeout=120, env=env,
                             cwd=Path(__file__).resolve().parent.parent)
    finally:
        folder.chmod(0o755)
        path.chmod(0o644) if path.exists() else None
    assert run.returncode == 2, (run.stdout, run.stderr)
    [line] = run.stderr.strip().splitlines()
    assert ("not readable" if case == "file 0000" else "not writable") in line and "backup" not in line, line


async def test_postgres_login_and_read_only_problems_are_named(postgres_url: str) -> None:
    """N5 on PostgreSQL: a role the server refuses, and a role that may only read."""

    from storage.postgres import PostgresEventStore
    from storage.store import DatabaseAccess

    async with PostgresEventStore(postgres_url):
        pass  # the schema is there
    nobody = postgres_url.replace("postgresql://", "postgresql://no_such_role_x", 1).split("@", 1)
    stranger = nobody[0].split("//")[0] + "//no_such_role_x@" + nobody[1]
    with pytest.raises(DatabaseAccess, match="refuses the login"):
        await PostgresEventStore(stranger).open()
    with pytest.raises(DatabaseAccess, match="not writable"):
        await PostgresEventStore(await reading_login(postgres_url, "troika_reader")).open()


async def reading_login(postgres_url: str, role: str) -> str:
    """The URL of ``postgres_url``'s database for a new login ``role`` that may only read."""
    import asyncpg

    admin = await asyncpg.connect(postgres_url)
    try:
        await admin.execute(f"DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN;"
                            f" GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    finally:
        await admin.close()
    user = postgres_url.split("//", 1)[1].split("@", 1)[0]
    return postgres_url.replace(f"//{user}@", f"//{role}@", 1)


def test_start_up_problems_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capfd: pytest.CaptureFixture[str]) -> None:
    """N12: a token file that is not UTF-8, a password file that is missing: one line, exit 2."""
    from bot.cli import main

    token = tmp_path / "token"
    token.write_bytes(b"\xff\xfe not utf-8")
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.setenv("DISCORD_TOKEN_FILE", str(token))
    assert main(["run", "--db", str(tmp_path / "a.db")]) == 2
    assert "not UTF-8" in capfd.readouterr().err
    monkeypatch.delenv("DISCORD_TOKEN_FILE")
    monkeypatch.setenv("TROIKA_DB_PASSWORD_FILE", str(tmp_path / "nope"))
    assert main(["run", "--db", "postgresql://bot@127.0.0.1:1/troika"]) == 2
    out, err = capfd.readouterr()
    [line] = err.strip().splitlines()
    assert "TROIKA_DB_PASSWORD_FILE" in line and "No such file" in line and not (tmp_path / "a.db").exists()


def _hostile_logs() -> dict[str, object]:
    """N13's hostile 18xx.games files, each built from the first actions of a real game."""
    import json

    from tests.conftest import shared_game

    log, _ = shared_game("1861-29683")
    base = {**log, "actions": log["actions"][:5]}
    deep = "[" * 100_000 + "]" * 100_000
    return {
        "nested 100,000 deep": '{"players": ' + deep + "}",
        "a 5,000-digit seed": json.dumps(base).replace('"seed": ', '"seed": ' + "9" * 5000 + ", \"x\": ", 1),
        "seed NaN": {**base, "settings": {**base["settings"], "seed": float("nan")}},
        "seed text": {**base, "settings": {**base["settings"], "seed": "abc"}},
        "seed over 2**63": {**base, "settings": {**base["settings"], "seed": 2**70}},
        "settings a string": {**base, "settings": "grid"},
        "players not objects": {**base, "players": [1, 2, 3]},
        "players without names": {**base, "players": [{"id": 1}, {"id": 2}]},
        "players a string": {**base, "players": "Anna"},
        "auto_actions a string": {**base, "actions": [{**base["actions"][0], "auto_actions": "pass"}]},
        "an action not an object": {**base, "actions": [7]},
        "an unknown title": {**base, "title": "chess"},
        "a title not a string": {**base, "title": {"name": "1861"}},
    }


@pytest.mark.parametrize("case", ["nested 100,000 deep", "a 5,000-digit seed", "seed NaN", "seed text",
                                  "seed over 2**63", "settings a string", "players not objects",
                                  "players without names", "players a string", "auto_actions a string",
                                  "an action not an object", "an unknown title", "a title not a string"])
def test_hostile_game_files_are_one_line(tmp_path: Path, case: str, capfd: pytest.CaptureFixture[str]) -> None:
    """N13: `replay`, `routes` and `render` on a hostile file: one line, no traceback."""
    import json

    from bot.cli import main

    content = _hostile_logs()[case]
    path = tmp_path / "game.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    for argv in (["replay", str(path)], ["routes", str(path)], ["render", str(path), "--out", str(tmp_path / "p")]):
        try:
            code = main(argv)
        except SystemExit as exc:
            code, message = 2, str(exc)
        else:
            message = ""
        out, err = capfd.readouterr()
        said = (err + message).strip()
        assert code == 2 and said.startswith("troika: ") and len(said.splitlines()) == 1, (argv, said, out)


def test_a_gzip_bomb_is_not_decompressed_into_memory(tmp_path: Path) -> None:
    """N13: a log that inflates past the cap is refused while it inflates."""
    import gzip

    from bot.gamefiles import MAX_FILE_BYTES, GameFileError, read_log

    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as out:
        chunk = b" " * 2**20
        for _ in range(MAX_FILE_BYTES // len(chunk) + 8):
            out.write(chunk)
    assert bomb.stat().st_size < MAX_FILE_BYTES // 100
    with pytest.raises(GameFileError, match="larger than"):
        read_log(bomb)


@pytest.mark.parametrize("damage", ["seed over 2**63", "created_at 1e20", "created_at NaN",
                                    "seat -1", "a 10 MB name", "a NUL in a name", "a note not text"])
async def test_an_imported_log_of_impossible_values_is_refused(store: SqliteEventStore, damage: str) -> None:
    """N13: `import_game` refuses, naming the field, what the store cannot hold."""
    from storage import InvalidGameLog

    repo = GameRepository(store, TroikaEngine())
    record = await repo.create_game("1861", {"first_player": 0}, 7, SEATS, "111")
    await repo.start_game(record.id)
    log = await repo.export_game(record.id)
    log["actions"].append({"id": len(log["actions"]) + 1, "type": "pass", "entity": "p1", "created_at": 1})
    action, player = log["actions"][-1], log["players"][1]
    match damage:
        case "seed over 2**63":
            log["settings"]["seed"] = 2**63
        case "created_at 1e20":
            action["created_at"] = 1e20
        case "created_at NaN":
            action["created_at"] = float("nan")
        case "seat -1":
            player["seat"] = -1
        case "a 10 MB name":
            player["name"] = "x" * 10_000_000
        case "a NUL in a name":
            player["name"] = "Bo\x00ris"
        case "a note not text":
            action["troika"] = {"note": {"a": 1}}
    with pytest.raises(InvalidGameLog):
        await repo.import_game(log, "111")
    assert [g.id for g in await store.list_games()] == [record.id]


async def test_postgres_cold_loads_start_from_a_snapshot(postgres_url: str) -> None:
    """N14: PostgreSQL keeps snapshots, so a cold load replays only the events after one."""
    from storage.fake_engine import FakeEngine
    from storage.postgres import PostgresEventStore
    from storage.repository import SNAPSHOT_EVERY

    async with PostgresEventStore(postgres_url) as store:
        repo = GameRepository(store, FakeEngine())
        record = await repo.create_game("points", {}, 5, SEATS[:2], "111")
        live = await repo.start_game(record.id)
        for n in range(SNAPSHOT_EVERY + 5):
            live = (await repo.act(record.id, live.seq, {"type": "score", "entity": "p1", "points": n % 7}, "111")).live
        engine = FakeEngine()
        cold = await GameRepository(store, engine).load(record.id)
        assert (cold.seq, cold.state_hash) == (live.seq, live.state_hash)
        assert (engine.snapshots_restored, engine.games_created) == (1, 0)
