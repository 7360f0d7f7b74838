"""Shared test helpers: where the real games live, and small game builders."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import agent_named, load_board
from engine.actions import Action, action_from_dict
from engine.game import Game
from engine.rules import Rules
from storage import SqliteEventStore
from storage.pg_temp import PostgresServer, Unavailable

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TROIKA_SHARED", ROOT.parent / "shared"))

os.environ.setdefault("TROIKA_WEB", "off")
"""The `troika run`s of the tests (and their children) serve no web page unless a test
asks for one with --web: the console's default address may be taken on this machine."""
GAMES = SHARED / "games"
DATA = ROOT / "tests" / "data"


@pytest.fixture
async def store() -> AsyncIterator[SqliteEventStore]:
    """An empty in-memory SQLite store (test modules of the stores define their own)."""
    async with SqliteEventStore(":memory:") as opened:
        yield opened


def shared_game(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A game log and its trace from ``shared/games`` (``generated/`` ones are gzipped)."""
    folder = GAMES / "generated" if "-gen-" in name else GAMES
    suffix = ".gz" if "-gen-" in name else ""
    log_path = folder / f"{name}.json{suffix}"
    if not log_path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"the shared games are missing: {log_path}")
        pytest.skip(f"shared games not found at {GAMES}")
    log = read_json(log_path)
    trace = read_json_lines(folder / f"{name}.trace.jsonl{suffix}")
    return log, [t for t in trace if "header" not in t]


class DataFileError(Exception):
    """A test data file that is not valid (gzipped) JSON, named."""


def read_json(path: Path) -> Any:
    """The data of a ``.json`` or ``.json.gz`` file (a missing one: FileNotFoundError, named)."""
    return _parsed(_text(path), str(path))


def read_json_lines(path: Path) -> list[Any]:
    """The data of each non-blank line of a ``.jsonl`` or ``.jsonl.gz`` file."""
    lines = _text(path).splitlines()
    return [_parsed(line, f"{path} line {n}") for n, line in enumerate(lines, 1) if line.strip()]


def _text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:  # a bad gzip file is an OSError
        raise DataFileError(f"cannot read {path}: {exc}") from None


def _parsed(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFileError(f"{where} is not valid JSON: {exc}") from None


def kept_game(name: str, moves: int | None = None) -> Game:
    """A game kept in tests/data as ``{title, seed, seats, rules, note, actions}``:
    started as ``troika arena`` starts it, then its actions applied (the first ``moves``)."""
    kept = read_json(DATA / f"{name}.json.gz")
    if kept["rules"] != "rulebook":
        raise DataFileError(f"{name}: a kept game plays by the rulebook, not {kept['rules']!r}")
    seats = [(f"p{i}", f"{agent_named(agent, 0).name.title()} {i + 1}") for i, agent in enumerate(kept["seats"])]
    rules = Rules.rulebook(market=load_board(kept["title"]).default_market)
    game = Game.new(seats, kept["seed"], rules, kept["title"])
    for move in kept["actions"][:moves]:
        game.apply(action_from_dict(move))
    return game


def replayed(name: str, until: int, rules: Rules | None = None) -> Game:
    """The game ``name`` replayed up to and including log id ``until``."""
    from engine.replay import replay

    log, _ = shared_game(name)
    game = replay(log, None, until=until).game
    if rules is not None:
        game.ctx.rules = rules
    return game


def before_first_trade_in() -> tuple[Game, dict[str, Any]]:
    """A generated 1867 game just before its first trade-in (8.11), and that logged action."""
    from engine.replay import replay

    log, _ = shared_game("1867-gen-P2-column-S5011")
    trade = next(a for a in log["actions"] if a["type"] == "buy_train" and a.get("exchange") and not a.get("skip"))
    return replay(log, None, until=trade["id"] - 1).game, trade


PLAYERS3 = [("a", "Anna"), ("b", "Boris"), ("c", "Clara")]


def new_game(players: list[tuple[str, str]] = PLAYERS3, **options: Any) -> Game:
    """A rulebook game with Anna first."""
    return Game.new(players, seed=1, rules=Rules.rulebook(**options), first_player=0)


def play(game: Game, *actions: Action) -> None:
    for action in actions:
        game.apply(action)


def refused(game: Game, action: Action, match: str) -> None:
    """Assert the action is refused with a message containing ``match`` and that
    the state is exactly as before."""
    from engine.errors import EngineError

    before = game.dump()
    with pytest.raises(EngineError, match=match):
        game.apply(action)
    assert game.dump() == before


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole session, started on first use. Skipped with the
    reason where PostgreSQL cannot run; in CI, where setup installs it, that is a failure."""
    try:
        server = PostgresServer()
        server.start()
    except Unavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is needed in CI: {exc}")
        pytest.skip(f"the PostgreSQL half is skipped: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a fresh, empty database on the session's server."""
    return postgres_server.new_database()
