"""Game.apply and Game.apply_first: a refused action changes nothing, even when the
rule that refuses it is broken after part of the state has changed."""

from __future__ import annotations

import pytest

from engine import auction
from engine.actions import Action, Bid, Pass
from engine.errors import IllegalAction
from engine.game import Game
from engine.state import GameState
from tests.conftest import new_game


def _half_done(ctx: object, state: GameState, action: Action) -> None:
    """A rule that changes the state, then refuses."""
    state.bank -= 100
    state.players[0].certs.clear()
    state.log.append("half done")
    raise IllegalAction("refused after a change")


def test_a_refusal_after_a_change_leaves_the_state_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game()
    before = game.dump()
    log = list(game.state.log)
    monkeypatch.setattr(auction, "apply", _half_done)
    with pytest.raises(IllegalAction, match="after a change"):
        game.apply(Pass(game.actor() or ""))
    assert game.dump() == before
    assert game.state.log == log
    assert game.apply_first([Pass(game.actor() or "")]) is None
    assert game.dump() == before
    assert game.state.log == log


def test_apply_first_applies_the_first_action_accepted() -> None:
    game, alone = new_game(), new_game()
    actor = game.actor() or ""
    too_low = Bid(actor, game.state.round.private, 0)
    accepted = Pass(actor)
    with pytest.raises(IllegalAction):
        game.apply(too_low)
    assert game.apply_first([too_low, accepted, Bid(actor, game.state.round.private, 500)]) == accepted
    alone.apply(accepted)
    assert game.dump() == alone.dump()
    assert game.state.log == alone.state.log
    assert game.last_action == accepted


def test_apply_first_refuses_everything_once_the_game_is_over() -> None:
    game: Game = new_game()
    game.state.finished = True
    assert game.apply_first([Pass(game.actor() or "")]) is None
