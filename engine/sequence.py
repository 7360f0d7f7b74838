"""The order of the rounds (rulebook 6), as the title decides it.

A game opens with the title's first round (5: the private auction, or a title's own:
1861's starting bundles, 15.1). A round knows only its own rules: when it is over
(:attr:`Round.over`), :func:`run_on` asks the title what follows
(:meth:`engine.titles.Title.next_round`: by default the rulebook's sets of a stock round
and the phase's operating rounds, a merger round after each operating round while the
title has them, 9, until the game ends, 12.1) and the title starts it.
"""

from __future__ import annotations

from . import auction
from .state import Context, GameState


def begin(ctx: Context, state: GameState) -> None:
    """The title's first round (5: the private auction, unless the title opens with its
    own), and on while rounds end at once."""
    ctx.title.first_round(ctx, state, auction.start)
    run_on(ctx, state)


def run_on(ctx: Context, state: GameState) -> None:
    """While the round in progress is over (and the game is not), start what follows."""
    while not state.finished and state.round is not None and state.round.over:
        ctx.title.next_round(ctx, state, state.round)
