"""What the table shows of the game now: the round, the step, who acts and why.

The one public view of round state for the console, Discord posts and pictures, so
that none of them reads the rounds' internals (``state.round.step`` and the like):
each round says how it looks (:meth:`engine.rounds.Round.view`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import Pass
from .operating_steps import Trains
from .rounds import AuctionView, TrackView, TurnView

if TYPE_CHECKING:
    from .actions import Action
    from .game import Game

__all__ = ["AuctionView", "TrackView", "TurnView", "pass_note", "round_title", "turn_view"]


def turn_view(game: Game) -> TurnView:
    """The view of ``game`` now."""
    state, rnd = game.state, game.state.round
    if rnd is None:
        return TurnView("", "", "", None)
    if state.finished:
        view = TurnView("Game over", game.round_name, "", None)
    elif state.trainless_majors:
        view = TurnView(round_title(game), game.round_name, "has no train: nationalize or keep?", game.actor())
    else:
        view = rnd.view(game.ctx, state, game.actor() or "")
    notes = ((p.sym, rnd.private_note(game.ctx, state, p.sym)) for p in game.ctx.board.privates)
    return view._replace(operating=rnd.companies_operate and not state.finished,
                         minor_auctions_open=rnd.minor_auctions_open,
                         private_notes=tuple((sym, note) for sym, note in notes if note is not None))


def round_title(game: Game) -> str:
    """``Private auction``, ``Stock round 3``, ``Operating round 3.1``, ``Merger round
    3.1`` (after operating round 3.1) or ``Game over``."""
    if game.state.finished:
        return "Game over"
    return game.round.heading(game.state)


def pass_note(game: Game, action: Action) -> str:
    """What ``action`` does when it is more than a pass: a trainless company that buys
    no train is nationalized (8.11.3); else ``""``."""
    view = turn_view(game)
    if not isinstance(action, Pass) or not view.operating or view.doing != Trains.doing:
        return ""
    company = game.state.companies.get(action.entity)
    if company is None or company.trains or company.is_national:
        return ""
    return f" (no train bought: {company.sym} is nationalized, 8.11.3)"
