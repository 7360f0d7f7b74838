"""When the game ends (rulebook 12.1): the first 8-train, or the bank breaking."""

from __future__ import annotations

from .state import Context, GameState

FINAL_SET_ROUNDS = 3


def check_bank(ctx: Context, state: GameState) -> None:
    """12.1: the bank breaks when it runs out; finish this operating round (or the
    next one, if it breaks outside an operating round)."""
    broken = state.bank < 0 if ctx.rules.bank_breaks_below_zero else state.bank <= 0
    if state.bank_broken or not broken:
        return
    state.bank_broken = True
    state.log.append("The bank has broken")
    after = state.round.bank_breaks_end(state) if state.round is not None else (state.round_number, 1)
    end_after(ctx, state, after, "bank")


def end_after(ctx: Context, state: GameState, after: tuple[int, int], trigger: str) -> bool:
    """12.1: a trigger ends the game after operating round ``after`` (set, round);
    with two triggers the earlier end wins, as each says "and then the game ends".
    RN 10.1, 11.35: on 18xx.games the 8-train's end wins, before or after the bank's.
    Returns whether this trigger's end stands."""
    current = state.game_ends_after
    if current is not None:
        if ctx.rules.final_phase_end_wins:
            if trigger == "bank":
                return False
        elif current <= after:
            return False
    state.game_ends_after = after
    state.game_end_trigger = trigger
    return True


def rounds_in_next_set(ctx: Context, state: GameState, set_number: int) -> int:
    """How many operating rounds the set starting now has."""
    if state.game_ends_after is not None and state.game_ends_after[0] == set_number:
        return state.game_ends_after[1]
    return ctx.board.phase(state.phase).operating_rounds
