"""The order of the rounds (rulebook 6) as the title decides it (:mod:`engine.sequence`):
a round that is over hands on to what the title says follows, never to another round
directly."""

from __future__ import annotations

import pytest

from engine import sequence, stock_round
from engine.game import Game
from engine.merger import MergerRound
from engine.operating import OperatingRound
from engine.rounds import Round
from engine.title import Title
from engine.titles import title_named
from tests.conftest import new_game


def _after(game: Game, done: Round, phase: str) -> list[str]:
    """The round headings logged once ``done`` is over, in ``phase``, in a set of two
    operating rounds (no company floated: every round but the stock round ends at once)."""
    state = game.state
    state.phase, state.operating_rounds = phase, 2
    done.over = True
    state.round = done
    start = len(state.log)
    sequence.run_on(game.ctx, state)
    return [line for line in state.log[start:] if " round " in line]


def test_a_merger_round_follows_each_operating_round_in_phases_3_to_7() -> None:
    """9, 8.14: OR 1.1, its merger round, OR 1.2, its merger round, stock round 2."""
    game = new_game()
    assert _after(game, OperatingRound(number=1), "3") == [
        "Merger round after operating round 1.1",
        "Operating round 1.2",
        "Merger round after operating round 1.2",
        "Stock round 2",
    ]
    assert game.round_name == "Stock" and game.state.round_number == 2


def test_no_merger_round_in_phase_2() -> None:
    assert _after(new_game(), OperatingRound(number=1), "2") == ["Operating round 1.2", "Stock round 2"]


def test_a_merger_round_after_the_sets_last_operating_round_leads_to_the_stock_round() -> None:
    assert _after(new_game(), MergerRound(after_or=2), "3") == ["Stock round 2"]


def test_the_title_decides_whether_a_merger_round_follows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A title (or variant) that plays no merger rounds changes no round: only its hook."""
    monkeypatch.setattr(Title, "merger_round_follows", lambda self, ctx, state: False)
    assert _after(new_game(), OperatingRound(number=1), "3") == ["Operating round 1.2", "Stock round 2"]


def test_the_game_ends_after_the_operating_round_its_trigger_named() -> None:
    """12.1: once the operating round the end waits for is over, the game is."""
    game = new_game()
    game.state.game_ends_after, game.state.game_end_trigger = (1, 1), "bank"
    assert _after(game, OperatingRound(number=1), "3") == []
    assert game.state.finished and game.state.end_reason == "bank"


def test_the_first_round_is_the_titles(monkeypatch: pytest.MonkeyPatch) -> None:
    """5: the private auction, unless the title opens with its own round (1861's bundles,
    15.1, in ``tests/test_options.py``)."""
    assert new_game().round_name == "Auction"
    russia = type(title_named("1861"))
    monkeypatch.setattr(russia, "first_round", lambda self, ctx, state, private_auction: stock_round.start(ctx, state))
    game = new_game()
    assert game.round_name == "Stock" and game.state.log[-1] == "Stock round 1"
