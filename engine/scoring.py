"""Ending the game and the players' net worth (rulebook 12)."""

from __future__ import annotations

from . import market
from .state import Context, GameState


def end_game(ctx: Context, state: GameState, reason: str) -> None:
    """12.2: every company moves one space left per outstanding loan; the game is over."""
    for sym, company in state.companies.items():
        if company.market is None or company.closed:
            continue
        for _ in range(company.loans):
            market.move_left(ctx, state, sym)
        company.loans = 0
    state.finished = True
    state.end_reason = reason
    state.log.append(f"The game ends ({reason.replace('_', ' ')})")


def final_values(ctx: Context, state: GameState) -> dict[str, int]:
    """Cash + privates at face value + shares at the current price; a minor's
    certificate counts as two shares (12.2 note)."""
    values: dict[str, int] = {}
    for player in state.players:
        total = player.cash
        total += sum(ctx.board.private(sym).value for sym in player.privates)
        for sym in {cert.company for cert in player.certs}:
            company = state.companies[sym]
            if company.market is not None and not company.closed:
                total += player.shares_of(sym) * market.price(ctx, state, sym)
        values[player.id] = total
    return values
