"""One answer to "what may this player do now": every action the generator offers is
accepted, and actions the engine refuses are never offered. Positions come from the
real games of both titles (18xx.games rules) and from self-play (rulebook rules)."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator

import pytest

from engine import notation
from engine.actions import (
    Action,
    Bid,
    BuyShare,
    BuyTrain,
    Dividend,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    RunBest,
    RunRoutes,
    SellShares,
)
from engine.errors import EngineError
from engine.game import Game
from engine.importer import actions_of, read_log
from engine.legal import legal_actions
from engine.notation import hints
from engine.route_search import best_routes
from engine.routes import to_route
from engine.rules import Rules
from tests.conftest import shared_game

EVERY = 4
"""Check every fourth position of a game (all would take a while)."""


def _accepted(game: Game, action: Action) -> str | None:
    """None if the engine applies ``action`` here, else its refusal; the game is untouched."""
    trial = Game(game.ctx, pickle.loads(pickle.dumps(game.state)))
    try:
        trial.apply(action, check=False)
    except EngineError as exc:
        return str(exc)
    return None


def _real_positions(name: str) -> Iterator[Game]:
    log, _ = shared_game(name)
    game, logged = read_log(log)
    for k, entry in enumerate(logged):
        if k % EVERY == 0 and not game.state.finished:
            yield game
        for action in actions_of(lambda: game.state, entry):
            game.apply(action, check=False)


def _selfplay_positions(title: str, seed: int) -> Iterator[Game]:
    rng = random.Random(seed)
    game = Game.new([(f"p{i}", f"P{i}") for i in range(4)], seed, Rules.rulebook(), title)
    k = 0
    while not game.state.finished:
        if k % EVERY == 0:
            yield game
        options = legal_actions(game)
        assert options, f"nobody can act in {game.round_name}"
        game.apply(rng.choice(options))
        k += 1


def _strangers(game: Game, rng: random.Random) -> list[Action]:
    """Actions a careless or mischievous player might type here."""
    state, actor = game.state, game.actor() or ""
    players = [p.id for p in state.players]
    majors = [s for s, c in state.companies.items() if c.is_major]
    hexes = sorted(game.ctx.board.hexes)
    trains = [t.id for t in state.depot.upcoming[:3]] + [t.id for c in state.companies.values() for t in c.trains]
    return [
        Pass(rng.choice(players)),
        Bid(actor, rng.choice(majors), rng.choice((5, 50, 100, 105))),
        BuyShare(actor, rng.choice(majors), rng.choice(("treasury", "pool"))),
        SellShares(actor, rng.choice(majors), rng.randint(1, 6)),
        Par(actor, rng.choice(majors), rng.choice((70, 75, 100, 200))),
        PlaceToken(actor, rng.choice(hexes), rng.randint(0, 2)),
        LayTile(actor, rng.choice(hexes), rng.choice(("8", "9", "57", "14", "63")), rng.randint(0, 5)),
        BuyTrain(actor, rng.choice(trains) if trains else "2-0", rng.choice((1, 100, 999))),
        Dividend(actor, rng.choice(("payout", "half", "withhold"))),
    ]


pytestmark = pytest.mark.slow  # every offered action at every position of four games: 40 s

POSITIONS = [("real", "1861-29683"), ("real", "1867-21268"), ("selfplay", "1861"), ("selfplay", "1867")]


@pytest.mark.parametrize("source,name", POSITIONS, ids=[f"{s}-{n}" for s, n in POSITIONS])
def test_offered_actions_apply_and_refused_ones_are_not_offered(source: str, name: str) -> None:
    rng = random.Random(7)
    positions = _real_positions(name) if source == "real" else _selfplay_positions(name, 3)
    checked = 0
    for game in positions:
        offered = legal_actions(game)
        assert offered, f"{name}: nothing offered to {game.actor()} in {game.round_name}"
        for action in offered:
            refusal = _accepted(game, action)
            assert refusal is None, f"{name}: offered {action} but refused: {refusal}"
        assert len(hints(game)) <= len(offered)
        for action in _strangers(game, rng):
            if _accepted(game, action) is not None:
                assert action not in offered, f"{name}: {action} is refused yet offered"
        checked += 1
    assert checked > 50


def _as_typed(game: Game, action: Action) -> Action:
    """The action a player's command stores: ``run best`` (what menus offer, solved when
    applied) is stored as the routes it names."""
    if not isinstance(action, RunBest):
        return action
    company = game.state.companies[action.entity]
    return RunRoutes(action.entity, tuple(to_route(r) for r in best_routes(game.ctx, game.state, company)))


@pytest.mark.parametrize("source,name", POSITIONS, ids=[f"{s}-{n}" for s, n in POSITIONS])
def test_every_offered_action_reads_back_from_its_command(source: str, name: str) -> None:
    """One notation: ``parse(command(a)) == a`` for every action offered."""
    positions = _real_positions(name) if source == "real" else _selfplay_positions(name, 5)
    checked = 0
    for game in positions:
        for action in legal_actions(game):
            typed = notation.command(game, action)
            assert notation.parse(game, typed) == _as_typed(game, action), f"{name}: `{typed}` is not {action}"
            checked += 1
    assert checked > 300
