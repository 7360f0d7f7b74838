"""Deals a person asks of a seat the computer plays (8.11, 8.12, 9.2), answered by
:func:`engine.answer_deal`, at positions of real games."""

from __future__ import annotations

import copy

from engine import BuyTrain, Merge, answer_deal, consent_needed
from engine.computer.agents import after, company_acting
from engine.game import Game
from engine.replay import replay
from tests.conftest import kept_game, shared_game

BEFORE_MNN_BUYS = 249
"""Moves of 1861-29683 after which MNN (trainless, 179) at its train step could ask player
5522 for SV's 2-6; SV keeps its 3-train (phase 3)."""


def _position(name: str, moves: int) -> Game:
    log, _ = shared_game(name)
    return replay(log, moves=moves).game


def test_a_train_is_sold_at_a_price_that_leaves_the_seat_ahead_and_not_for_1() -> None:
    game = _position("1861-29683", BEFORE_MNN_BUYS)
    cheap, dear = BuyTrain("MNN", "2-6", 1), BuyTrain("MNN", "2-6", 100)
    owner = consent_needed(game, cheap)
    assert owner == "5522" and consent_needed(game, dear) == owner
    before = copy.deepcopy(game.state)
    refused, agreed = answer_deal(game, cheap, owner), answer_deal(game, dear, owner)
    assert game.state == before  # answering changes nothing
    assert not refused.agrees and refused.reason.startswith("it leaves its seat")
    assert agreed.agrees and agreed.reason.startswith("it leaves its seat about "), agreed


def test_a_companys_only_train_is_not_sold_at_any_price() -> None:
    """N has one 2-train: sold, it must buy another (8.11.3)."""
    game = _position("1861-29683", 57)
    for price in (1, 60, 100):
        answer = answer_deal(game, BuyTrain("M-K", "2-0", price), "3058")
        assert not answer.agrees
        assert answer.reason == "N would keep no train, and a company must own one (8.11.3)"


def test_a_merge_is_judged_by_the_major_the_asker_may_name_that_is_worst_for_the_seat() -> None:
    """1867-19792: AE asks CA's owner to merge CA into the major AE's owner will name."""
    log, _ = shared_game("1867-19792")
    asked: list[tuple[Game, Merge, str]] = []

    def keep(game: Game, action: object) -> None:
        if isinstance(action, Merge) and not asked and (owner := consent_needed(game, action)) is not None:
            asked.append((Game(game.ctx, game.state.copy()), action, owner))

    replay(log, before=keep)
    game, merge, owner = asked[0]
    assert merge == Merge("AE", "CA") and after(game, merge) is not None
    answer = answer_deal(game, merge, owner)
    assert not answer.agrees and "further behind than no deal" in answer.reason, answer


def test_one_of_two_trains_is_sold_by_price_not_refused_by_rule() -> None:
    """N has two 2-trains. Selling one to KK for 150 was refused "whatever the price", with
    the reason that N would keep no train as lasting (checker of issue 37): it keeps one
    just like it. Now the price decides."""
    game = kept_game("1861-two-people-two-computers")
    assert company_acting(game) == "KK" and [t.name for t in game.state.companies["N"].trains] == ["2", "2"]
    owner = consent_needed(game, BuyTrain("KK", "2-9", 10))
    assert owner is not None
    assert not answer_deal(game, BuyTrain("KK", "2-9", 10), owner).agrees
    assert answer_deal(game, BuyTrain("KK", "2-9", 150), owner).agrees
