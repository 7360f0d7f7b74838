"""The console: real games typed in as commands, a hot-seat session, ``troika run``/``backup``.

Each runs with the worker processes ``troika run`` starts by default and with
``--workers 0`` (the engine in the console's own process)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.console import CHANNEL, Console
from bot.discord_bot import load_token
from bot.service import TroikaService
from bot.transcript import log_commands
from bot.workers import ServicePool
from engine.importer import read_log
from storage import EventStore, GameStatus, SqliteEventStore
from tests.conftest import ROOT, shared_game

WORKERS = pytest.mark.parametrize("workers", [None, 0], ids=["default-workers", "workers-0"])
"""The console's engine in worker processes (``troika run``'s default), or in its own."""


@asynccontextmanager
async def serving(store: EventStore, workers: int | None, **settings: Any) -> AsyncIterator[Any]:
    """The service the console runs on: a pool of ``workers`` (None: the default), or
    with 0 the service in this process."""
    if workers == 0:
        yield TroikaService(store, **settings)
        return
    async with ServicePool(store, workers=workers, **settings) as pool:
        yield pool


@asynccontextmanager
async def console_game(workers: int | None, players: list[tuple[str, str]], first_player: int,
                       out: list[str]) -> AsyncIterator[Console]:
    """A console writing to ``out`` on a started game of ``players`` (seed 7), its first
    posts delivered."""
    async with SqliteEventStore(":memory:") as store, serving(store, workers, pictures=False) as service:
        console = Console(service, Path("unused"), out.append)
        await service.start_local_game(CHANNEL, players, first_player=first_player, seed=7)
        await service.flush(console._deliver)
        yield console


def repo_of(service: TroikaService | ServicePool) -> Any:
    """The repository of the bot's process, to read the stored game back."""
    return service.front.repo if isinstance(service, ServicePool) else service.repo


@pytest.mark.slow
@pytest.mark.parametrize("name,workers", [
    *((name, 0) for name in ("1861-29683", "1861-bank-breaks", "1867-21268", "1867-19792")),
    ("1861-29683", None), ("1867-19792", None),  # a game of each title through the pool: the suite's time
])
async def test_a_real_game_typed_in_ends_with_its_logged_result(name: str, workers: int | None) -> None:
    log, _ = shared_game(name)
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store, serving(store, workers, pictures=False) as service:
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
        game = (await repo_of(service).load(record.id)).game
        assert game.result() == {str(k): v for k, v in log["result"].items()}
        reason = {"final_phase": "final phase", "manually_ended": "manually ended"}[log["game_end_reason"]]
        currency = "$" if log["title"] == "1867" else "₽"
        end_post, stats = out[-2], out[-1]  # the end post, then the game's time at the table (issue 38)
        assert end_post.split("\n")[-1].startswith(f"Game over ({reason}): ")
        assert currency in end_post.split("\n")[-1]
        assert stats.startswith(f"Time at the table, game {record.id}") and stats.count("\n") == len(players)


@pytest.mark.slow
@WORKERS
async def test_a_hot_seat_session_writes_the_pictures(tmp_path: Path, workers: int | None) -> None:
    out: list[str] = []
    async with SqliteEventStore(tmp_path / "troika.db") as store, serving(store, workers) as service:
        console = Console(service, tmp_path / "pictures", out.append)
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


@pytest.mark.slow
@WORKERS
def test_troika_run_without_a_token_is_the_console(tmp_path: Path, workers: int | None) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_TOKEN")}
    typed = "new Anna Boris Clara\nbid TSR 20\nstatus\nimport ../missing.json\nquit\n"
    choice = [] if workers is None else ["--workers", str(workers)]
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run", *choice], input=typed, capture_output=True, text=True,
        cwd=tmp_path, env=env | {"PYTHONPATH": str(ROOT)}, timeout=60, check=True,
    )
    assert "picture: pictures/map.png" in done.stdout and "bids on TSR (waiting" in done.stdout
    assert "✗ Cannot read ../missing.json" in done.stdout
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


@pytest.mark.slow
@WORKERS
async def test_undo_and_redo_are_typed_by_whoever_made_the_move_or_the_undo(workers: int | None) -> None:
    """Finding 24: at one keyboard, a bare `redo` after the commissioner's `as Anna undo
    REASON` is Anna's, not the player called again; a bare `undo` is the last mover's."""
    out: list[str] = []
    async with console_game(workers, [("Anna", "Anna"), ("Boris", "Boris"), ("Clara", "Clara")], 1, out) as console:
        await console.line("pass")  # Boris, who acts first
        await console.line("as Anna undo Boris meant to bid")
        assert "↶ Anna takes back #1 (Boris: `pass`)" in out[-1]
        out.clear()
        await console.line("redo")  # Boris is called again, but the undo was Anna's
        assert not [line for line in out if line.startswith("✗")], out
        assert out[0].startswith("↷ Anna redoes #1 (Boris: `pass`)")
        out.clear()
        await console.line("undo")  # Clara is called now; the move is Boris's
        assert out[0].startswith("↶ Boris takes back #1 (Boris: `pass`)"), out


async def test_a_name_of_two_words_may_be_quoted_after_as() -> None:
    """Checker of issue 35: `as "Player 3" pass` answered "Whom do you mean?" while
    `as Player 3 pass` worked; a quoted name is the name."""
    out: list[str] = []
    async with console_game(None, [("p1", "Player 1"), ("p2", "Player 2"), ("p3", "Player 3")], 2, out) as console:
        out.clear()
        await console.line('as "Player 3" pass')
        assert not [line for line in out if line.startswith("✗")], out
        assert any("Player 3" in line and "pass" in line for line in out), out


@pytest.mark.slow
@WORKERS
async def test_a_site_game_is_imported_at_the_console_and_played_on(tmp_path: Path, workers: int | None) -> None:
    """`import PATH` (E1's class: with worker processes the file's name collided with the
    pool's own parameter), every seat at this keyboard."""
    log, _ = shared_game("1867-21268")
    path = tmp_path / "21268.json"
    path.write_text(json.dumps({**log, "actions": log["actions"][:40]}))
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store, serving(store, workers, pictures=False) as service:
        console = Console(service, tmp_path / "pictures", out.append)
        await console.line(f"import {path}")
        assert "imports 1867 game 21268 from 18xx.games as game 1 (37 actions" in out[0], out
        await console.line("status")
        assert "Stock round 1" in out[-1] and "To act" in out[-1]


@pytest.mark.slow
async def test_the_log_shows_each_move_as_it_must_be_retyped_a_lay_s_loan_included() -> None:
    """Finding 11 of the new-user trial: the log showed `lay B12 9 2` for a lay that
    borrowed, and retyping it was refused. Every command the log shows, typed again into
    a fresh game, replays it to the same state."""
    log, _ = shared_game("1867-21268")
    commands = list(log_commands(log))[:160]  # the 160th: the first lay that takes a loan
    players = [(str(p["id"]), p["name"]) for p in log["players"]]
    rules = read_log(log)[0].ctx.rules

    async def table(store: SqliteEventStore, out: list[str]) -> tuple[TroikaService, Console]:
        service = TroikaService(store, pictures=False)
        await service.start_local_game(CHANNEL, players, rules=rules, first_player=0,
                                       seed=log["settings"]["seed"], title=log["title"])
        return service, Console(service, Path("unused"), out.append)

    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service, console = await table(store, out)
        for player, command in commands:
            await console.line(f"as {player} {command}")
        pages = []
        for page in range(1, 100):
            out.clear()
            await console.line(f"log page {page}")
            if out[0].startswith("There is no page"):
                break
            pages = out[0].split("\n") + pages
        [record] = await store.list_games()
        expected = (await service.repo.load(record.id)).game.dump()
    shown = [re.fullmatch(r"#\d+ .+? \d\d:\d\d (.+?)(?: for \S+)?: `(.+)`", line) for line in pages]
    retyped = [(m[1], m[2]) for m in shown if m]
    assert retyped[-1] == (commands[-1][0], "lay L12 637 1 loan") and len(retyped) == len(commands)
    async with SqliteEventStore(":memory:") as store:
        service, console = await table(store, out)
        for player, command in retyped:
            out.clear()
            await console.line(f"as {player} {command}")
            assert not [line for line in out if line.startswith("✗")], (command, out)
        [record] = await store.list_games()
        assert (await service.repo.load(record.id)).game.dump() == expected


@pytest.mark.slow
async def test_at_the_console_a_bare_pass_is_for_the_company_the_last_prompt_named() -> None:
    """Finding 7 of the new-user trial: a plain `pass` right after the prompt named the
    player's next company was questioned ("`pass` again to pass KB") 112 times in a game.
    At the console every reply is read before the next line: the pass goes to that company."""
    log, _ = shared_game("1867-19792")
    players = [(str(p["id"]), p["name"]) for p in log["players"]]
    out: list[str] = []
    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        await service.start_local_game(CHANNEL, players, rules=read_log(log)[0].ctx.rules, first_player=0,
                                       seed=log["settings"]["seed"], title=log["title"])
        console = Console(service, Path("unused"), out.append)
        bare = 0
        for player, command in log_commands(log):
            if command.startswith("pass "):  # what Discord would question, typed bare
                command, bare = "pass", bare + 1
            out.clear()
            await console.line(f"as {player} {command}")
            assert not [line for line in out if line.startswith("✗")], (command, out)
        [record] = await store.list_games()
        game = (await service.repo.load(record.id)).game
    assert bare == 3 and game.state.finished
    assert game.result() == {str(k): v for k, v in log["result"].items()}


@pytest.mark.slow
def test_ctrl_c_quits_the_console_with_text_on_the_line(tmp_path: Path) -> None:
    """Finding 12 of the new-user trial: Ctrl-C with text typed only cleared the line
    (asyncio's handler waited for the blocked loop); README lists it as a way to quit."""
    import pty
    import select
    import time

    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_TOKEN")} | {"PYTHONPATH": str(ROOT)}
    pid, fd = pty.fork()
    if pid == 0:  # the child: `troika run` at a terminal
        os.chdir(tmp_path)
        os.execve(sys.executable, [sys.executable, "-m", "bot.cli", "run"], env)

    def read_until(text: str) -> str:
        seen = ""
        while text not in seen:
            ready, _, _ = select.select([fd], [], [], 60)
            assert ready, f"no {text!r} in {seen[-300:]!r}"
            seen += os.read(fd, 4096).decode(errors="replace")
        return seen

    done = 0
    try:
        read_until("troika> ")
        os.write(fd, b"status")
        read_until("status")
        # as a person types: the interpreter's line editor notices a signal while waiting for
        # a key, not one that comes while it is still drawing the keys sent all at once
        select.select([], [], [], 0.5)
        os.write(fd, b"\x03")
        deadline = time.monotonic() + 60  # on a busy machine; a quit takes well under a second
        after = b""
        while not done and time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            try:
                if select.select([fd], [], [], 0.2)[0]:
                    after += os.read(fd, 4096)  # what it prints on the way out
            except OSError:
                time.sleep(0.2)  # the terminal closed with the process
    finally:
        if not done:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert done and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"Ctrl-C did not quit: {after[-500:]!r}"
