"""Deals a person asks of a seat the computer plays: a train of its company (8.11), a
private of its own (8.12), its minor in a merge (9.2). The computer agrees when the deal
leaves its seat further ahead than no deal, as it counts worth (:mod:`.value`): the
companies in the deal judged by their best routes before and after, a merge by the
major the asker may name that is worst for the seat. It sells no company's last train.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..actions import Action, BuyTrain, Merge
from ..game import Game
from ..trains import find_train
from .agents import after
from .player import DECISION_STEPS, SEARCH_STEPS, majors_named, runner
from .value import Work, income_within, rounds_left, standing, worths

AGREE_MARGIN = 5.0
"""How much further ahead a deal must leave the seat, at least, to be agreed: a deal
that changes nothing is no reason to give up what is its own."""


@dataclass(frozen=True)
class Answer:
    """Whether the computer agrees to a deal, and why, in one line."""

    agrees: bool
    reason: str


def answer_deal(game: Game, action: Action, seat: str) -> Answer:
    """The computer's answer, for ``seat``, to ``action`` that another player asks of it."""
    work = Work(DECISION_STEPS, SEARCH_STEPS)
    horizon = rounds_left(game)
    involved = _companies_in(game, action)

    def seat_standing(position: Game) -> float:
        incomes = {sym: income_within(position, sym, work, None)
                   for sym in {runner(position, s) or s for s in involved}
                   if not position.state.companies[sym].closed}
        return standing(worths(position, incomes, horizon), seat)

    later = after(game, action)
    if later is None:
        return Answer(False, "the engine would not allow it")
    seller = game.state.companies.get(involved[-1]) if isinstance(action, BuyTrain) else None
    if seller is not None and not later.state.companies[seller.sym].trains:
        return Answer(False, f"{seller.sym} would keep no train, and a company must own one (8.11.3)")
    ends = [end for end, _ in majors_named(later, action.entity)] if isinstance(action, Merge) else []
    gain = min(seat_standing(end) for end in ends or [later]) - seat_standing(game)
    if gain > AGREE_MARGIN:
        return Answer(True, f"it leaves its seat about {gain:.0f} further ahead than no deal")
    return Answer(False, f"it leaves its seat about {-gain:.0f} further behind than no deal" if gain <= -1
                  else "it leaves its seat no further ahead than no deal")


def _companies_in(game: Game, action: Action) -> list[str]:
    """The companies whose runs the deal may change: the asker's, and the one that sells
    a train or is merged."""
    found = [action.entity] if action.entity in game.state.companies else []
    if isinstance(action, BuyTrain):
        source, _ = find_train(game.ctx, game.state, action.train)
        found += [source] if source in game.state.companies else []
    if isinstance(action, Merge) and action.target in game.state.companies:
        found.append(action.target)
    return found
