"""The worked example of the opening (shared/seeds/004, in Dutch): a player wins the
Nikolaev, runs Moscow–St Petersburg and converts it into the GRR. Grid market, four
players with 315 each, rulebook rules."""

from __future__ import annotations

import pytest

from engine import market
from engine.actions import Bid, BuyShare, BuyTrain, Convert, Merge, Pass, RunRoutes
from engine.game import Game
from engine.route_search import best_routes
from engine.routes import route_text, to_route
from engine.trains import change_phase
from tests.conftest import play

PLAYERS = [("s1", "S1"), ("s2", "S2"), ("s3", "S3"), ("s4", "S4")]


def _figures(game: Game) -> tuple[int, int, int]:
    """(S1's cash, N's treasury, N's share price) as the example tabulates them."""
    state = game.state
    return state.player("s1").cash, state.companies["N"].cash, market.price(game.ctx, state, "N")


def _pass_until_n_runs(game: Game) -> None:
    while not (game.actor() == "N" and game.state.round.step == "routes"):
        play(game, Pass(game.actor() or ""))


def _run_n(game: Game) -> None:
    best = best_routes(game.ctx, game.state, game.state.companies["N"])
    assert [sorted(route_text(r).split("-")) for r in best] == [["E1", "G5", "H8"]]
    assert best[0].revenue == 80
    play(game, RunRoutes("N", tuple(to_route(r) for r in best), 80))


@pytest.mark.slow
def test_the_nikolaev_from_auction_to_conversion() -> None:
    game = Game.new(PLAYERS, seed=1, first_player=1)  # the other players take the privates
    for private, price in (("TSR", 20), ("BSS", 30), ("MYR", 40), ("MRR", 50), ("WVR", 60)):
        while game.state.private_owner[private] is None:
            actor = game.actor() or ""
            opening = actor != "s1" and game.state.round.high_bidder is None
            play(game, Bid(actor, private, price) if opening else Pass(actor))
    while game.actor() != "s1":
        play(game, Pass(game.actor() or ""))

    # Stock round 1: S1 opens at 100, S2 bids 120, S1 140, S2 passes.
    play(game, Bid("s1", "N", 100), Bid("s2", "N", 120), Pass("s3"), Pass("s4"), Bid("s1", "N", 140), Pass("s2"))
    assert _figures(game) == (175, 140, 70)

    # Operating round 1.1: no train, so nothing earned and one space left; buys a 2-train.
    while game.round_name == "Stock":
        play(game, Pass(game.actor() or ""))
    assert "N passes its track action: no hex to lay track on" in game.state.log  # nothing to ask (8.4)
    assert market.price(game.ctx, game.state, "N") == 65
    play(game, BuyTrain("N", "2-0", 100))
    assert _figures(game) == (175, 40, 65)

    # Operating round 1.2: Moscow-St Petersburg for 80 (Tver is a town, passed through).
    _pass_until_n_runs(game)
    _run_n(game)
    assert _figures(game) == (215, 80, 70)

    # Operating rounds 2.1 and 2.2: the same run, the price climbs to 90.
    _pass_until_n_runs(game)
    _run_n(game)
    assert _figures(game) == (255, 120, 80)
    _pass_until_n_runs(game)
    _run_n(game)
    assert _figures(game) == (295, 160, 90)

    # Another player's company buys the first 3-train: phase 3, merger rounds from now on.
    change_phase(game.ctx, game.state, "3")
    while game.round_name == "Operating":
        play(game, Pass(game.actor() or ""))
    # At 90 the Nikolaev may not convert yet and has nobody to merge with: no turn.
    assert "Merger round after operating round 2.2" in game.state.log
    assert game.round_name == "Stock"

    # Operating round 3.1: another 80 takes it to 100, inside the conversion zone.
    _pass_until_n_runs(game)
    _run_n(game)
    assert _figures(game) == (335, 200, 100)
    while game.actor() != "N" or game.round_name != "Merger":
        play(game, Pass(game.actor() or ""))

    # Merger round 3.1: N converts into the GRR at 100; S1 takes the president's share.
    play(game, Convert("N"), Merge("N", "GRR"))
    grr = game.state.companies["GRR"]
    assert market.price(game.ctx, game.state, "GRR") == 100
    assert game.state.president("GRR").id == "s1" and game.state.player("s1").percent_of("GRR") == 20
    assert grr.cash == 200 and [t.name for t in grr.trains] == ["2"]
    assert [t.hex for t in grr.placed_tokens] == ["H8"]
    assert sum(c.percent for c in grr.treasury) == 80

    # S1 buys two shares at once from the treasury: 40%, and the money goes to the GRR.
    play(game, BuyShare("s1", "GRR", "treasury"), BuyShare("s1", "GRR", "treasury"))
    assert game.state.player("s1").cash == 135
    assert grr.cash == 400
    assert game.state.player("s1").percent_of("GRR") == 40
