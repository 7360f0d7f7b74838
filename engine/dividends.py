"""Distributing earnings and adjusting the stock price (rulebook 8.9)."""

from __future__ import annotations

from . import market
from .errors import IllegalAction
from .state import Company, Context, GameState

CHOICES = ("payout", "half", "withhold")


def distribute(ctx: Context, state: GameState, company: Company, revenue: int, choice: str) -> None:
    """Pay out, half pay or withhold ``revenue`` and move the price (8.9.1, 8.9.2)."""
    if choice not in CHOICES:
        raise IllegalAction(f"choose payout, half or withhold, not {choice!r}")
    if company.is_national:
        _to_treasury(state, company, revenue)
        return
    if company.is_minor:
        _minor_half_pay(ctx, state, company, revenue)
        return
    if choice == "withhold" or revenue == 0:
        _to_treasury(state, company, revenue)
        state.log.append(f"{company.sym} withholds {revenue}: all to its treasury (now {company.cash})")
        market.move_left(ctx, state, company.sym)
        return
    kept = (revenue // 20) * 10 if choice == "half" else 0
    paid = revenue - kept
    _to_treasury(state, company, kept)
    received = _pay_shareholders(state, company, paid)
    price = market.price(ctx, state, company.sym)
    state.log.append(f"{company.sym} pays {paid // 10} a share" + (f" and keeps {kept}" if kept else "")
                     + (": " + ", ".join(f"{who} {amount}" for who, amount in received) if received else ""))
    if paid >= price:
        market.move_right(ctx, state, company.sym)
    else:
        state.log.append(f"{company.sym} share price stays at {price} (it paid out less than that, 8.9.2)")


def _to_treasury(state: GameState, company: Company, amount: int) -> None:
    company.cash += amount
    state.bank -= amount


def _pay_shareholders(state: GameState, company: Company, paid: int) -> list[tuple[str, int]]:
    """Each share gets a tenth; shares in the company's treasury pay the company, pool
    shares pay nobody (8.9.1). Returns who received what."""
    per_share = paid / 10
    received = []
    for player in state.players:
        units = player.percent_of(company.sym) // 10
        if units:
            amount = _round_up(per_share * units)
            player.cash += amount
            state.bank -= amount
            received.append((player.name, amount))
    units = sum(c.percent for c in company.treasury) // 10
    if units:
        _to_treasury(state, company, _round_up(per_share * units))
        received.append((company.sym, _round_up(per_share * units)))
    return received


def _round_up(value: float) -> int:
    whole = int(value)
    return whole if whole == value else whole + 1


def _minor_half_pay(ctx: Context, state: GameState, company: Company, revenue: int) -> None:
    """Minors always half pay: half (rounded down) to the treasury, the rest to the
    owner; right if it earned anything, else left (8.9.1, 8.9.2)."""
    if revenue == 0:
        state.log.append(f"{company.sym} earns nothing")
        market.move_left(ctx, state, company.sym)
        return
    kept = revenue // 2
    _to_treasury(state, company, kept)
    owner = state.president(company.sym)
    if owner is not None:
        owner.cash += revenue - kept
        state.bank -= revenue - kept
    state.log.append(f"{company.sym} earns {revenue}: {revenue - kept} to its owner, {kept} kept")
    market.move_right(ctx, state, company.sym)
