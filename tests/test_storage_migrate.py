"""``troika migrate``: a SQLite database with the shared real games, a game being played
(its posts not yet delivered) and one being set up, copied to PostgreSQL; every game
replays to the same state there."""

from __future__ import annotations

import asyncio
from itertools import islice
from pathlib import Path

import pytest

from bot.bench import troika_log
from bot.cli import main
from bot.service import Account, TroikaService
from bot.transcript import log_commands
from engine.importer import read_log
from storage import GameRepository, GameStatus, SqliteEventStore, TroikaEngine
from storage.postgres import PostgresEventStore
from storage.repository import state_hash
from tests.conftest import shared_game

SHARED = ["1861-29683", "1861-bank-breaks"]


async def troika(argv: list[str]) -> int:
    """The ``troika`` command, in a thread of its own (it runs its own event loop)."""
    return await asyncio.to_thread(main, argv)


async def fill(path: Path) -> None:
    """The shared games imported as finished games, a third being played through the
    service with its posts left in the outbox, and a fourth being set up (one seat:
    it does not replay yet)."""
    async with SqliteEventStore(path) as store:
        repo = GameRepository(store, TroikaEngine())
        for name in SHARED:
            log, _ = shared_game(name)
            await repo.import_game(troika_log(log), "importer", status=GameStatus.FINISHED)
        service = TroikaService(store, pictures=False)
        log, _ = shared_game(SHARED[0])
        players = [(str(p["id"]), p["name"]) for p in log["players"]]
        await service.start_local_game("table", players, rules=read_log(log)[0].ctx.rules,
                                       first_player=0, seed=log["settings"]["seed"])
        names = {name: pid for pid, name in players}
        for name, command in islice(log_commands(log), 40):
            await service.handle("table", Account(names[name], name), command)
        await service.handle("lobby", Account("111", "Anna"), "new column")  # nobody has joined


async def states(store: SqliteEventStore | PostgresEventStore) -> dict[int, object]:
    """Each game's replayed state hash (or the refusal), its events and pending posts."""
    found: dict[int, object] = {}
    posts = await store.outbox_unsent(limit=None)
    for record in await store.list_games():
        repo = GameRepository(store, TroikaEngine())
        try:
            replayed = state_hash(TroikaEngine().dump((await repo.load(record.id)).game))
        except Exception as exc:  # a game being set up does not replay
            replayed = type(exc).__name__
        found[record.id] = (record, replayed, await store.events(record.id),
                            [(m.id, m.payload) for m in posts if m.game_id == record.id])
    return found


@pytest.mark.slow
async def test_a_sqlite_database_migrates_to_postgresql(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "troika.db"
    await fill(source)
    assert await troika(["migrate", "--from", f"sqlite:{source}", "--to", postgres_url]) == 0
    said = capsys.readouterr().out
    assert "copied 4 games" in said and "3 of 4 games replay to the same state on both sides" in said
    async with SqliteEventStore(source) as before, PostgresEventStore(postgres_url) as after:
        original, copied = await states(before), await states(after)
    assert copied == original
    assert [g[1] for g in original.values()].count("CorruptEvent") == 1  # the lobby: one seat
    assert sum(len(g[3]) for g in original.values()) > 10  # posts of the game being played
    # Once there, the games go on: the one being played takes its next command.
    async with PostgresEventStore(postgres_url) as store:
        service = TroikaService(store, pictures=False)
        log, _ = shared_game(SHARED[0])
        name, command = next(islice(log_commands(log), 40, None))
        player = next(str(p["id"]) for p in log["players"] if p["name"] == name)
        await service.handle("table", Account(player, name), command)
        assert await store.last_seq(3) == len(original[3][2]) + 1


async def test_migrate_refuses_a_target_with_games_and_a_missing_source(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "small.db"
    async with SqliteEventStore(source) as store:
        service = TroikaService(store, pictures=False)
        await service.handle("lobby", Account("111", "Anna"), "new")
    assert await troika(["migrate", "--from", str(source), "--to", postgres_url]) == 0
    assert await troika(["migrate", "--from", str(source), "--to", postgres_url]) == 1
    assert "the target already holds games" in capsys.readouterr().err
    assert await troika(["migrate", "--from", f"sqlite:{tmp_path / 'none.db'}", "--to", postgres_url]) == 2
    assert "no database at" in capsys.readouterr().err


_KILLED_AFTER_TWO_GAMES = r"""
import os, signal, sys
sys.path.insert(0, ".")
from storage.sqlite import SqliteEventStore
from bot.cli import main
restore = SqliteEventStore.restore_game
copied = []
async def restore_then_die(self, record, events, outbox=()):
    if len(copied) == 2:
        os.kill(os.getpid(), signal.SIGKILL)  # as a kill -9 half-way through the copy
    await restore(self, record, events, outbox)
    copied.append(record.id)
SqliteEventStore.restore_game = restore_then_die
main(["migrate", "--from", sys.argv[1], "--to", sys.argv[2]])
"""


async def played_games(path: Path, games: int) -> None:
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        for n in range(games):
            await service.start_local_game(f"c{n}", [("111", "Anna"), ("222", "Boris"), ("333", "Clara")],
                                           seed=n, first_player=0)
            await service.handle(f"c{n}", Account("111", "Anna"), "pass")


async def test_a_migration_killed_half_way_is_refused_until_finished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """N6: SIGKILL after 2 of 4 games: the target is refused by `run` and `backup` as an
    unfinished copy, the same `migrate` again finishes it, then it is used."""
    import subprocess
    import sys

    source, target = tmp_path / "source.db", tmp_path / "target.db"
    await played_games(source, 4)
    killed = subprocess.run([sys.executable, "-c", _KILLED_AFTER_TWO_GAMES, str(source), f"sqlite:{target}"],
                            capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parent.parent)
    assert killed.returncode == -9, killed.stderr
    async with SqliteEventStore(target, accept_unfinished_copy=True) as partial:
        assert len(await partial.list_games()) == 2
    for argv in (["backup", str(tmp_path / "b.db"), "--db", str(target)],):
        assert await troika(argv) != 0
        assert "did not finish" in capsys.readouterr().err
    from storage import UnfinishedCopy

    with pytest.raises(UnfinishedCopy, match="troika migrate"):
        await SqliteEventStore(target).open()
    assert await troika(["migrate", "--from", str(source), "--to", f"sqlite:{target}"]) == 0
    assert "copied 2 games" in capsys.readouterr().out
    async with SqliteEventStore(target) as finished:
        assert len(await finished.list_games()) == 4


async def test_rows_that_cannot_be_copied_are_all_named_and_none_is_copied_as_empty(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """N6: an unreadable event, an unreadable post and a NUL byte in a note, in three
    games: each is named; the other game is copied; the copy stays marked unfinished (so
    not run) until the rows are mended and `migrate` is run again; no post becomes `{}`."""
    import sqlite3

    source = tmp_path / "source.db"
    await played_games(source, 4)
    with sqlite3.connect(source, isolation_level=None) as db:
        db.execute("INSERT INTO events (game_id, seq, kind, action, created_at) VALUES"
                   " (1, 3, 'action', '{\"type\": ', '2026-01-01T00:00:00+00:00')")
        db.execute("INSERT INTO outbox (game_id, payload, created_at) VALUES (2, '{\"text\": ', '2026-01-01')")
        db.execute("INSERT INTO events (game_id, seq, kind, action, created_at, note) VALUES"
                   " (3, 3, 'admin', '{\"type\": \"pause\"}', '2026-01-01T00:00:00+00:00', 'a' || char(0) || 'b')")
    assert await troika(["migrate", "--from", str(source), "--to", postgres_url]) == 1
    err = capsys.readouterr().err
    assert "game 1" in err and "event 3" in err and "post" in err and "game 2" in err
    assert "game 3" in err and "NUL" in err and "event 3" in err
    async with PostgresEventStore(postgres_url, accept_unfinished_copy=True) as copy:
        assert [g.id for g in await copy.list_games()] == [4]
        assert all(m.payload for m in await copy.outbox_unsent(limit=None))
    with pytest.raises(Exception, match="did not finish"):
        await PostgresEventStore(postgres_url).open()
