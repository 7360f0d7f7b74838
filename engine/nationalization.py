"""Nationalization (rulebook 10): the national railway absorbs a company or a private."""

from __future__ import annotations

from dataclasses import replace

from . import market
from .actions import Action, Choose, Pass
from .errors import IllegalAction
from .loans import repay_loans
from .options import NO_FLOOR
from .setup import new_company
from .state import Company, Context, GameState


def national(ctx: Context, state: GameState) -> Company:
    return state.companies[ctx.board.national()]


def nationalize_privates(ctx: Context, state: GameState) -> None:
    """Start of phase 6: every private pays its owner face value and joins the national (10)."""
    nat = national(ctx, state)
    for sym, owner in state.private_owner.items():
        if owner == nat.sym or sym in state.closed_privates:
            continue
        value = ctx.board.private(sym).value
        if owner is not None:
            _pay_owner(state, owner, sym, value)
        state.private_owner[sym] = nat.sym
        nat.privates.append(sym)
        state.log.append(f"{sym} is nationalized for {value}")


PRIVATES_EVENT = "nationalize_companies"
"""The first 6-train's event (the board data's name): the privates are nationalized."""


def nationalize_privates_when_due(ctx: Context, state: GameState) -> None:
    """11, phase 6: "Private Companies are nationalized" once the trainless companies
    are (the majors' presidents have chosen); a private such a company owned is
    already the national's (10: "if they have not done so already")."""
    if PRIVATES_EVENT in state.events and not state.trainless_majors:
        nationalize_privates(ctx, state)


def _pay_owner(state: GameState, owner: str, private: str, value: int) -> None:
    if owner in state.companies:
        company = state.companies[owner]
        company.privates.remove(private)
        company.cash += value
    else:
        player = state.player(owner)
        player.privates.remove(private)
        player.cash += value
    state.bank -= value


def trainless_choice(ctx: Context, state: GameState, action: Action) -> None:
    """10: the president of a trainless major that has operated chooses, first thing
    in whatever round it is, to nationalize it or keep it (pass)."""
    sym = state.trainless_majors[0]
    if action.entity != sym or not isinstance(action, (Choose, Pass)):
        raise IllegalAction(f"{sym} has no train: its president must choose to nationalize it or keep it")
    if isinstance(action, Choose) and action.choice != "nationalize":
        raise IllegalAction("the only choice is 'nationalize' (or pass to keep the company)")
    state.trainless_majors.pop(0)
    if isinstance(action, Choose):
        nationalize(ctx, state, sym)
    if not ctx.rules.privates_nationalized_before_trainless:
        nationalize_privates_when_due(ctx, state)


def nationalize(ctx: Context, state: GameState, sym: str) -> None:
    """10.1: repay what loans it can, move the price left (once, and per loan left as
    the title says), pay the players, hand the assets over, close or reset."""
    company = state.companies[sym]
    nat = national(ctx, state)
    repay_loans(state, company)
    price = _nationalization_price(ctx, state, sym, 1 + company.loans * ctx.title.nationalization_steps_per_loan)
    for player in state.players:
        units = player.shares_of(sym)
        if units:
            player.cash += units * price
            state.bank -= units * price
            player.certs = [c for c in player.certs if c.company != sym]
    state.pool = [c for c in state.pool if c.company != sym]
    ctx.title.national_takes_assets(ctx, state, company)
    _national_without_treasury(ctx, state, nat)
    _replace_tokens(ctx, state, company, nat)
    state.log.append(f"{sym} is nationalized at {price} a share")
    market.remove(state, sym)
    if company.is_minor:
        company.closed = True
        company.cash, company.trains, company.privates, company.loans = 0, [], [], 0
        company.tokens = [t for t in company.tokens if t.hex is None]
    else:
        state.companies[sym] = new_company(ctx.board, sym)


def nationalization_payout(ctx: Context, state: GameState, sym: str, withheld: int = 0) -> int:
    """What a share of ``sym`` would be paid were it nationalized now (10.1 A-D), after
    ``withheld`` runs that earn nothing (each a space left, 8.9.2), found on a copy of
    what those change: ``state`` is left as it is."""
    company = replace(state.companies[sym])
    probe = replace(state, companies={**state.companies, sym: company}, log=[],
                    market={cell: list(stack) for cell, stack in state.market.items()})
    for _ in range(withheld):
        market.move_left(ctx, probe, sym)
    repay_loans(probe, company)
    return _nationalization_price(ctx, probe, sym, 1 + company.loans * ctx.title.nationalization_steps_per_loan)


def _national_without_treasury(ctx: Context, state: GameState, nat: Company) -> None:
    """§15.2: a national with no treasury takes the trains and tokens only; the company's
    cash goes to the bank."""
    if nat.cash and not ctx.title.national_keeps_money(ctx):
        state.bank += nat.cash
        state.log.append(f"{nat.sym} has no treasury: {nat.cash} goes to the bank (§15.2)")
        nat.cash = 0


BELOW_FLOOR_STEP = 5
"""§14 no stock price floor: a share pays 5 less for each space left of the 35 space."""


def _nationalization_price(ctx: Context, state: GameState, sym: str, spaces: int) -> int:
    """10.1C: the price moves ``spaces`` spaces left and is paid per share. The 35 space
    is the floor; with §14's no stock price floor, each space the price would move left
    of it takes 5 off the payout, never below 0."""
    below = 0
    for _ in range(spaces):
        before = state.companies[sym].market
        market.move_left(ctx, state, sym)
        if state.companies[sym].market == before:
            below += 1
    price = market.price(ctx, state, sym)
    if ctx.rules.plays(NO_FLOOR) and below:
        paid = max(0, price - BELOW_FLOOR_STEP * below)
        state.log.append(f"{sym} falls {below} space(s) below the floor: {paid} a share (§14 no stock price floor)")
        return paid
    return price


def _replace_tokens(ctx: Context, state: GameState, company: Company, nat: Company) -> None:
    """10.1E: the national takes the company's cities, highest value first (ties by
    hex, last first), keeping tokens back for its own unused reservations."""
    placed = [t for t in company.tokens if t.hex is not None]

    def value(token: object) -> tuple[int, str]:
        tile, _ = ctx.tile_at(state, token.hex)  # type: ignore[attr-defined]
        return (tile.nodes[token.city].revenue, token.hex)  # type: ignore[attr-defined]

    for token in sorted(placed, key=value, reverse=True):
        hex_id, city = token.hex, token.city
        assert hex_id is not None and city is not None
        slots = state.map.tokens.get((hex_id, city), [])
        slot = slots.index(company.sym)
        slots[slot] = None
        token.hex = token.city = None
        if any(t.hex == hex_id for t in nat.tokens):
            continue
        unused = [t for t in nat.tokens if t.hex is None]
        reserved = [h for h in ctx.board.national_reservations if not any(t.hex == h for t in nat.tokens)]
        if not unused:
            continue
        if hex_id not in reserved and len(unused) <= len(reserved):
            continue
        slots[slot] = nat.sym
        unused[0].hex, unused[0].city = hex_id, city
        for key in [k for k, v in state.map.reservations.items() if k[0] == hex_id and v == nat.sym]:
            del state.map.reservations[key]
