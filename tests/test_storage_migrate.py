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
