"""Merger rounds (rulebook 9) on a real position: 1861-29683 after operating round 3.1."""

from __future__ import annotations

from engine import market
from engine.actions import BuyShare, Merge, Pass
from engine.game import Game
from engine.replay import replay
from engine.rules import Rules
from tests.conftest import play, refused, shared_game


def _merger_round(rules: Rules | None = None) -> Game:
    log, _ = shared_game("1861-29683")
    game = replay(log, None, until=311).game
    if rules is not None:
        game.ctx.rules = rules
    assert game.round_name == "Merger" and game.actor() == "MB"
    return game


def test_two_minors_of_one_owner_merge_and_the_owner_is_president() -> None:
    game = _merger_round()
    state = game.state
    cash = state.companies["MB"].cash + state.companies["N"].cash
    loans = state.companies["MB"].loans + state.companies["N"].loans
    play(game, Merge("MB", "N"), Merge("MB", "NW"))
    nw = state.companies["NW"]
    assert market.price(game.ctx, state, "NW") == 165  # 100 + 70 = 170, down to a start price
    assert state.president("NW").name == "Player 3" and state.player("3058").percent_of("NW") == 20
    assert nw.cash == cash and nw.loans == loans
    assert sorted(t.hex for t in nw.placed_tokens) == ["E9", "H8"]
    assert state.companies["MB"].closed and state.companies["N"].closed
    assert game.actor() == "3058"  # the new president may buy shares first


def test_a_minor_may_only_merge_with_a_connected_minor() -> None:
    game = _merger_round()
    refused(game, Merge("MB", "OK"), "not connected")
    refused(game, Merge("MB", "NW"), "a merge needs two minors")


def test_shares_after_a_merge_go_to_the_treasury() -> None:
    game = _merger_round()
    play(game, Merge("MB", "N"), Merge("MB", "NW"))
    nw = game.state.companies["NW"]
    cash = nw.cash
    play(game, BuyShare("3058", "NW", "treasury"))
    assert nw.cash == cash + 165
    assert game.state.player("3058").percent_of("NW") == 30


def test_a_merge_without_a_president_is_reversed() -> None:
    game = _merger_round(Rules.rulebook())
    state = game.state
    rnd = state.round
    rnd.index = rnd.order.index("V")
    rnd.merging = ["V"]
    before = {s: (c.cash, c.closed, c.market) for s, c in state.companies.items()}
    play(game, Merge("V", "Y"), Merge("V", "SE"))
    assert state.companies["SE"].floated
    while game.round_name == "Merger" and game.actor() in ("5522", "3058"):
        play(game, Pass(game.actor()))
    assert not game.state.companies["SE"].floated
    assert {s: (c.cash, c.closed, c.market) for s, c in game.state.companies.items()} == before
    assert "the merge is reversed" in " ".join(game.state.log[-3:])
