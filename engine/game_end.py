"""When the game ends (rulebook 12.1): the first 8-train, or the bank breaking."""

from __future__ import annotations

from .state import Context, GameState

FINAL_SET_ROUNDS = 3


def check_bank(ctx: Context, state: GameState) -> None:
    """12.1: the bank breaks when it runs out; finish this operating round (or the
    next one, if it breaks outside an operating round), unless the 8-train timing
    already decides the end."""
    broken = state.bank < 0 if ctx.rules.bank_breaks_below_zero else state.bank <= 0
    if state.bank_broken or not broken:
        return
    state.bank_broken = True
    state.log.append("The bank has broken")
    if state.game_ends_after is not None:
        return
    rnd = state.round
    kind = getattr(rnd, "kind", "")
    if kind == "Operating":
        state.game_ends_after = (state.round_number, rnd.number)
    elif kind == "Merger" and rnd.after_or < state.operating_rounds:
        state.game_ends_after = (state.round_number, rnd.after_or + 1)
    elif kind == "Merger":
        state.game_ends_after = (state.round_number + 1, 1)
    else:
        state.game_ends_after = (state.round_number, 1)


def rounds_in_next_set(ctx: Context, state: GameState, set_number: int) -> int:
    """How many operating rounds the set starting now has."""
    if state.game_ends_after is not None and state.game_ends_after[0] == set_number:
        return state.game_ends_after[1]
    return ctx.board.phase(state.phase).operating_rounds
