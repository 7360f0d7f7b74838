"""What the table shows of the game now: the round, the step, who acts and why.

The one public view of round state for the console, Discord posts and pictures, so
that none of them reads the rounds' internals (``state.round.step`` and the like):
each round says how it looks (:meth:`engine.rounds.Round.view`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rounds import TurnView

if TYPE_CHECKING:
    from .game import Game

__all__ = ["TurnView", "round_title", "turn_view"]


def turn_view(game: Game) -> TurnView:
    """The view of ``game`` now."""
    state = game.state
    if state.finished:
        return TurnView("Game over", game.round_name, "", None)
    actor = game.actor() or ""
    if state.trainless_majors:
        return TurnView(round_title(game), game.round_name, "has no train: nationalize or keep?", actor)
    return game.round.view(game.ctx, state, actor)


def round_title(game: Game) -> str:
    """``Private auction``, ``Stock round 3``, ``Operating round 3.1``, ``Merger round
    3.1`` (after operating round 3.1) or ``Game over``."""
    if game.state.finished:
        return "Game over"
    return game.round.heading(game.state)
