"""The order of the rounds (rulebook 6), as the title decides it.

A game opens with the title's first round (5: the private auction, or a title's own:
1861's starting bundles, 15.1), then plays sets of a stock round and the phase's
operating rounds, a merger round after each operating round while the title has them
(9), until the game ends (12.1). A round knows only its own rules: when it is over (:attr:`Round.over`),
:func:`run_on` asks the title what follows and starts it. This module is the only
one that knows every round; no round imports another.
"""

from __future__ import annotations

from . import auction, game_end, merger, operating, stock_round, trains
from .rounds import Round
from .scoring import end_game
from .state import Context, GameState


def begin(ctx: Context, state: GameState) -> None:
    """The title's first round (5: the private auction, unless the title opens with its
    own), and on while rounds end at once."""
    ctx.title.first_round(ctx, state, auction.start)
    run_on(ctx, state)


def run_on(ctx: Context, state: GameState) -> None:
    """While the round in progress is over (and the game is not), start what follows."""
    while not state.finished and state.round is not None and state.round.over:
        _next_round(ctx, state, state.round)


def _next_round(ctx: Context, state: GameState, done: Round) -> None:
    if isinstance(done, operating.OperatingRound):
        _after_operating_round(ctx, state, done.number)
    elif isinstance(done, merger.MergerRound):
        _go_on_in_set(ctx, state, done.after_or)  # 9.3
    elif done.opens_operating_rounds:
        operating.start_set(ctx, state)  # 7.6
    else:
        stock_round.start(ctx, state)  # 5.3: after the private auction


def _after_operating_round(ctx: Context, state: GameState, number: int) -> None:
    """8.14: after the last company, the game may end (12.1); the national may export
    a train (8.13); then a merger round or the set goes on."""
    if _game_ends_after(ctx, state, number):
        return
    if ctx.title.national_exports(ctx, state, number):
        trains.export_train(ctx, state)
        if _game_ends_after(ctx, state, number):
            return  # 12.1: the export's phase change broke the bank at the end of this round
    if ctx.title.merger_round_follows(ctx, state):
        merger.start(ctx, state, number)
    else:
        _go_on_in_set(ctx, state, number)


def _game_ends_after(ctx: Context, state: GameState, number: int) -> bool:
    """12.1: end the game if it ends after this operating round (the bank may just have
    broken); True if it has ended."""
    game_end.check_bank(ctx, state)
    if state.game_ends_after != (state.round_number, number):
        return False
    end_game(ctx, state, state.game_end_trigger or "final_phase")
    return True


def _go_on_in_set(ctx: Context, state: GameState, number: int) -> None:
    """6: another operating round of the set, or the next set's stock round."""
    if number < state.operating_rounds:
        operating.start(ctx, state, number + 1)
        return
    state.round_number += 1
    stock_round.start(ctx, state)
