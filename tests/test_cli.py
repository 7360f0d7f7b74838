"""The ``troika`` command line declares only the command typed: it reads it as the
whole parser would."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bot.cli import COMMANDS, build_parser, main
from bot.service import TroikaService
from storage import SqliteEventStore

TYPED = {
    "replay": ["replay", "game.json", "--trace", "game.trace.jsonl", "--json"],
    "routes": ["routes", "game.json", "--at", "40", "--check-logged"],
    "render": ["render", "game.json", "--out", "pictures", "--routes"],
    "selfplay": ["selfplay", "--games", "3", "--seed", "7", "--title", "1867"],
    "arena": ["arena", "--title", "1867", "--seats", "computer,greedy,random", "--games", "2", "--json"],
    "run": ["run", "--db", "x.db", "--workers", "0"],
    "export": ["export", "--game", "2", "--out", "x.json"],
    "backup": ["backup", "copy.db"],
    "migrate": ["migrate", "--from", "sqlite:a.db", "--to", "sqlite:b.db"],
    "admin": ["admin", "accept", "3", "--yes"],
    "bench": ["bench", "--json"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_reads_as_the_whole_parser_reads_it(command: str) -> None:
    words = TYPED[command]
    assert vars(build_parser(command).parse_args(words)) == vars(build_parser().parse_args(words))


def test_an_unknown_command_is_refused_naming_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser("bogus").parse_args(["bogus"])
    err = capsys.readouterr().err
    assert all(f"'{name}'" in err for name in COMMANDS)


async def test_export_overwrites_an_existing_file_only_when_forced(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 35: `troika export --out FILE` replaced a file that was there without a word."""
    db, out = tmp_path / "troika.db", tmp_path / "game.json"
    async with SqliteEventStore(db) as store:
        players = [("a", "Anna"), ("b", "Boris"), ("c", "Clara")]
        await TroikaService(store, pictures=False).start_local_game("c1", players)
    out.write_text("mine")
    export = ["export", "--db", str(db), "--game", "1", "--out", str(out)]
    assert await asyncio.to_thread(main, export) == 2
    assert out.read_text() == "mine"
    assert capsys.readouterr().err == f"troika: {out} exists; give --force to overwrite it\n"
    assert await asyncio.to_thread(main, [*export, "--force"]) == 0
    assert json.loads(out.read_text())["title"] == "1861"
