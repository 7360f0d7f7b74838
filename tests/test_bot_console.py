"""The console: real games typed in as commands, a hot-seat session, ``troika run``/``backup``."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.console import CHANNEL, Console
from bot.discord_bot import load_token
from bot.service import TroikaService
from bot.transcript import log_commands
from engine.importer import read_log
from storage import GameStatus, SqliteEventStore
from tests.conftest import ROOT, shared_game


@pytest.mark.slow
@pytest.mark.parametrize("name", ["1861-29683", "1861-bank-breaks", "1867-21268", "1867-19792"])
async def test_a_real_game_typed_in_ends_with_its_logged_result(name: str) -> None:
    log, _ = shared_game(name)
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), out.append)
        players = [(str(p["id"]), p["name"]) for p in log["players"]]
        rules = read_log(log)[0].ctx.rules  # Rules.site(), with the log's market
        await service.start_local_game(CHANNEL, players, rules=rules, first_player=0, seed=log["settings"]["seed"],
                                       title=log["title"])
        for number, (player, command) in enumerate(log_commands(log), 1):
            start = len(out)
            await console.line(f"as {player} {command}")
            refused = [line for line in out[start:] if line.startswith("✗")]
            assert not refused, f"command {number} `{command}` by {player}: {refused}"
        [record] = await store.list_games()
        assert record.status is GameStatus.FINISHED
        game = (await service.repo.load(record.id)).game
        assert game.result() == {str(k): v for k, v in log["result"].items()}
        reason = {"final_phase": "final phase", "manually_ended": "manually ended"}[log["game_end_reason"]]
        currency = "$" if log["title"] == "1867" else "₽"
        assert out[-1].split("\n")[-1].startswith(f"Game over ({reason}): ")
        assert currency in out[-1].split("\n")[-1]


async def test_a_hot_seat_session_writes_the_pictures(tmp_path: Path) -> None:
    out: list[str] = []
    async with SqliteEventStore(tmp_path / "troika.db") as store:
        console = Console(TroikaService(store), tmp_path / "pictures", out.append)
        await console.line("new 3 Anna Boris Clara column")
        assert out[0].startswith("Game 1 of 1861 begins (column market). Seats: Anna → Boris → Clara.")
        assert f"  picture: {tmp_path / 'pictures' / 'map.png'}" in out
        assert (tmp_path / "pictures" / "table.png").read_bytes().startswith(b"\x89PNG")
        first = out[0].split("\n")[-1].split()[1]
        out.clear()
        await console.line("bid TSR 20")  # typed by whoever must act
        assert out[0].startswith(f"{first}: `bid TSR 20`\n▶")
        out.clear()
        await console.line(f"as {first} pass")
        assert out[0].startswith("✗ Not your turn: ")
        await console.line("new Dmitri Elena Fyodor")
        assert "already has game 1" in out[-1]


def test_troika_run_without_a_token_is_the_console(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_TOKEN")}
    typed = "new Anna Boris Clara\nbid TSR 20\nstatus\nquit\n"
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"], input=typed, capture_output=True, text=True,
        cwd=tmp_path, env=env | {"PYTHONPATH": str(ROOT)}, timeout=60, check=True,
    )
    assert "picture: pictures/map.png" in done.stdout and "bids on TSR (waiting" in done.stdout
    assert (tmp_path / "pictures" / "market.png").exists() is False  # only what changed is drawn
    backup = tmp_path / "copy.db"
    subprocess.run([sys.executable, "-m", "bot.cli", "backup", str(backup)], cwd=tmp_path,
                   env=env | {"PYTHONPATH": str(ROOT)}, timeout=60, check=True, capture_output=True)
    with sqlite3.connect(backup) as db:
        assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] >= 2


def test_the_token_comes_from_the_environment_or_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("DISCORD_TOKEN_FILE", raising=False)
    assert load_token() is None
    (tmp_path / "token").write_text("secret-file\n")
    monkeypatch.setenv("DISCORD_TOKEN_FILE", str(tmp_path / "token"))
    assert load_token() == "secret-file"
    monkeypatch.setenv("DISCORD_TOKEN", "secret-env")
    assert load_token() == "secret-env"


async def test_undo_and_redo_are_typed_by_whoever_made_the_move_or_the_undo() -> None:
    """Finding 24: at one keyboard, a bare `redo` after the commissioner's `as Anna undo
    REASON` is Anna's, not the player called again; a bare `undo` is the last mover's."""
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        console = Console(service, Path("unused"), out.append)
        await service.start_local_game(CHANNEL, [("Anna", "Anna"), ("Boris", "Boris"), ("Clara", "Clara")],
                                       first_player=1, seed=7)
        await service.flush(console._deliver)
        await console.line("pass")  # Boris, who acts first
        await console.line("as Anna undo Boris meant to bid")
        assert "↶ Anna takes back #2 (Boris: `pass`)" in out[-1]
        out.clear()
        await console.line("redo")  # Boris is called again, but the undo was Anna's
        assert not [line for line in out if line.startswith("✗")], out
        assert out[0].startswith("↷ Anna redoes #2 (Boris: `pass`)")
        out.clear()
        await console.line("undo")  # Clara is called now; the move is Boris's
        assert out[0].startswith("↶ Boris takes back #2 (Boris: `pass`)"), out
