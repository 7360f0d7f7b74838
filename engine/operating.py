"""The operating round (rulebook 8): privates pay, then minors, majors and the
national railway operate in turn, each through steps A–H (8.4)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import dividends, game_end, graph, loans, market, trains
from .actions import (
    Action,
    BuyPrivate,
    BuyTrain,
    Dividend,
    LayTile,
    Pass,
    PlaceToken,
    RedeemShares,
    RunBest,
    RunRoutes,
)
from .errors import IllegalAction
from .nationalization import nationalize, trainless_choice
from .options import EXPORT_PER_SET, RSR_EXPORTS
from .state import Company, Context, GameState
from .tokens import free_slot_for, home_city, put_token, token_cost

STEPS = (
    "redeem",  # A (8.5)
    "track",  # B (8.6)
    "token",  # C (8.7)
    "routes",  # D (8.8)
    "dividend",  # E (8.9)
    "private_before_loans",  # H, before loans are settled (8.12)
    "loans",  # F (8.10)
    "trains",  # G (8.11)
    "private_end",  # H (8.12)
)
TRACK_ACTIONS = 2
SECOND_LAY_COST = 20


@dataclass
class OperatingRound:
    kind = "Operating"
    number: int = 1  # 1..operating rounds in this set
    order: list[str] = field(default_factory=list)
    index: int = 0
    step: str = STEPS[0]
    lays: list[str] = field(default_factory=list)  # hexes of this turn's track actions
    upgraded: bool = False
    tokened: bool = False
    revenue: int = 0
    privates_offered: bool = False  # this turn's choices have included buying a private (8.12)


# --- round flow ------------------------------------------------------------------


def start_set(ctx: Context, state: GameState) -> None:
    """After a stock round: the set's operating rounds begin."""
    state.operating_rounds = game_end.rounds_in_next_set(ctx, state, state.round_number)
    start(ctx, state, 1)


def start(ctx: Context, state: GameState, number: int) -> None:
    """8.3: record loans owing interest, privates pay, fix the operating order."""
    rnd = OperatingRound(number=number)
    state.round = rnd
    state.log.append(f"Operating round {state.round_number}.{number}")
    if ctx.board.national_operates:
        state.national_operator = state.players[state.priority].id
    for company in state.companies.values():
        company.loans_due = company.loans
        for train in company.trains:
            train.operated = False
    _privates_pay(ctx, state)
    floated = [s for s, c in state.companies.items() if c.floated and not c.closed]
    minors = [s for s in floated if state.companies[s].is_minor]
    majors = [s for s in floated if state.companies[s].is_major]
    rnd.order = (
        market.in_price_order(ctx, state, minors)
        + market.in_price_order(ctx, state, majors)
        + [ctx.board.national()]
    )
    rnd.index = -1
    _next_company(ctx, state, rnd)


def _privates_pay(ctx: Context, state: GameState) -> None:
    """8.3A: every owned private pays its revenue to its owner."""
    paid = []
    for sym, owner in state.private_owner.items():
        if owner is None or sym in state.closed_privates:
            continue
        if owner == ctx.board.national() and not _national_keeps_money(ctx):
            continue
        revenue = ctx.board.private(sym).revenue
        if owner in state.companies:
            state.companies[owner].cash += revenue
        else:
            state.player(owner).cash += revenue
        state.bank -= revenue
        paid.append(f"{sym} {revenue} to {owner if owner in state.companies else state.player(owner).name}")
    if paid:
        state.log.append("Privates pay: " + ", ".join(paid))


def _national_keeps_money(ctx: Context) -> bool:
    """8.13: a national that only exports trains keeps no money (1867), unless the
    18xx.games switch lets it collect its privates' income (RN 11.23)."""
    if ctx.rules.plays(RSR_EXPORTS):
        return False  # §15.2: the RSR has no treasury
    return ctx.board.national_operates or ctx.rules.national_collects_private_income


def current(state: GameState) -> Company | None:
    rnd: OperatingRound = state.round
    if 0 <= rnd.index < len(rnd.order):
        return state.companies[rnd.order[rnd.index]]
    return None


def _next_company(ctx: Context, state: GameState, rnd: OperatingRound) -> None:
    rnd.index += 1
    rnd.step = STEPS[0]
    rnd.lays, rnd.upgraded, rnd.tokened, rnd.revenue = [], False, False, 0
    rnd.privates_offered = False
    company = current(state)
    if company is None:
        _end(ctx, state, rnd)
        return
    if company.is_national:
        if "national_operates" not in ctx.board.phase(state.phase).status:
            _next_company(ctx, state, rnd)
            return
        _national_home_token(ctx, state, company)
    elif company.closed or not company.floated:
        _next_company(ctx, state, rnd)
        return
    _advance(ctx, state)


def _national_home_token(ctx: Context, state: GameState, nat: Company) -> None:
    """8.13: on its first run the RSR puts a token in its reserved St Petersburg city."""
    home = home_city(ctx, state, nat.sym)
    if home is None or any(t.hex == home[0] for t in nat.tokens):
        return
    if state.map.reservations.get(home) == nat.sym:
        put_token(ctx, state, nat.sym, *home)


def _end(ctx: Context, state: GameState, rnd: OperatingRound) -> None:
    """8.14: after the last company, a merger round (phases 3–7) or the next round."""
    game_end.check_bank(ctx, state)
    if state.game_ends_after == (state.round_number, rnd.number):
        from .scoring import end_game

        end_game(ctx, state, state.game_end_trigger or "final_phase")
        return
    if _exports_now(ctx, state, rnd):
        trains.export_train(ctx, state)
        game_end.check_bank(ctx, state)
    from . import merger

    if merger.active_in_phase(ctx, state):
        merger.start(ctx, state, rnd.number)
    else:
        after_operating_round(ctx, state, rnd.number)


def _exports_now(ctx: Context, state: GameState, rnd: OperatingRound) -> bool:
    """8.13 (1867): the national exports a train after every operating round; with 1861's
    train exports (§14) after the set's last one, just before its merger round."""
    status = ctx.board.phase(state.phase).status
    if EXPORT_PER_SET in status:
        return rnd.number == state.operating_rounds
    return "export_train" in status


def after_operating_round(ctx: Context, state: GameState, number: int) -> None:
    """Another operating round of the set, or the next stock round (6)."""
    if number < state.operating_rounds:
        start(ctx, state, number + 1)
        return
    from . import stock_round

    state.round_number += 1
    stock_round.start(ctx, state)


# --- who acts --------------------------------------------------------------------


def actor(ctx: Context, state: GameState) -> str:
    if state.trainless_majors:
        return state.trainless_majors[0]
    over = trains.over_limit(ctx, state)
    if over:
        return over[0]
    company = current(state)
    return company.sym if company else ""


# --- applying actions ------------------------------------------------------------


def apply(ctx: Context, state: GameState, action: Action) -> None:
    """Apply one action of the operating round, then run automatic steps."""
    rnd: OperatingRound = state.round
    if state.trainless_majors:
        trainless_choice(ctx, state, action)
        _national_buys_on(ctx, state)
    elif trains.over_limit(ctx, state):
        trains.discard(ctx, state, action)
    else:
        company = current(state)
        if company is None or action.entity != company.sym:
            raise IllegalAction(f"it is {company.sym if company else 'nobody'}'s turn to operate")
        if isinstance(action, BuyPrivate) and rnd.step != "private_end":
            _buy_private(ctx, state, company, action)
        else:
            HANDLERS[rnd.step](ctx, state, rnd, company, action)
    _advance(ctx, state)


def _advance(ctx: Context, state: GameState) -> None:
    """Run steps that need nobody's decision until someone must act."""
    while state.round is not None and state.round.kind == "Operating" and not state.finished:
        rnd: OperatingRound = state.round
        game_end.check_bank(ctx, state)
        if state.trainless_majors or trains.over_limit(ctx, state):
            return
        company = current(state)
        if company is None:
            return
        if company.closed or (company.market is None and not company.is_national):
            _next_company(ctx, state, rnd)
            continue
        if NEEDS_ACTION[rnd.step](ctx, state, rnd, company):
            _note_privates_offered(ctx, state, rnd, company)
            return
        _say_why_skipped(ctx, state, rnd, company)
        AUTOMATIC[rnd.step](ctx, state, rnd, company)
        if state.round is not rnd:
            continue
        _next_step(ctx, state, rnd)


def _say_why_skipped(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
    """A log line for a step passed over though the company might have expected it:
    a run (trains but no route), track or a token (nothing legal or affordable, 8.4)."""
    if rnd.step == "routes" and not company.is_national and any(not t.operated for t in company.trains):
        state.log.append(f"{company.sym} has no route to run (a route needs two stops, one its own token)")
    if ctx.rules.pass_asked_without_choice or company.is_national:
        return
    if rnd.step == "track" and company.placed_tokens and len(rnd.lays) < TRACK_ACTIONS:
        if loans.borrowing_power(company) >= (SECOND_LAY_COST if rnd.lays else 0):
            what = "no hex left for a second lay" if rnd.lays else "no hex to lay track on"
            state.log.append(f"{company.sym} passes its track action: {what}")
    elif rnd.step == "token" and company.is_major and not rnd.tokened and tokenable_cities(ctx, state, company):
        unused = next((t for t in company.tokens if t.hex is None), None)
        if unused is not None and unused.price <= company.cash:
            state.log.append(f"{company.sym} passes its token: no reachable city it can pay for")


def _next_step(ctx: Context, state: GameState, rnd: OperatingRound) -> None:
    i = STEPS.index(rnd.step)
    if i + 1 < len(STEPS):
        rnd.step = STEPS[i + 1]
    else:
        _next_company(ctx, state, rnd)


def _nothing(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
    return None


# --- A: redeem shares (8.5) ---------------------------------------------------------


def _redeem_needed(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
    return (
        company.is_major
        and state.pool_percent(company.sym) > 0
        and company.cash >= market.price(ctx, state, company.sym)
    )


def _redeem(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> None:
    if isinstance(action, Pass):
        _next_step(ctx, state, rnd)
        return
    if not isinstance(action, RedeemShares):
        raise IllegalAction(f"{company.sym} may redeem shares from the pool or pass")
    price = market.price(ctx, state, company.sym)
    pool = [c for c in state.pool if c.company == company.sym]
    if action.count < 1 or action.count * 10 > sum(c.percent for c in pool):
        raise IllegalAction(f"the pool holds {sum(c.percent for c in pool)}% of {company.sym}")
    if company.cash < price * action.count:
        raise IllegalAction(f"{company.sym} has {company.cash}; {action.count} share(s) cost {price * action.count}")
    for cert in pool[: action.count]:
        state.pool.remove(cert)
        company.treasury.append(cert)
    company.cash -= price * action.count
    state.bank += price * action.count
    state.log.append(f"{company.sym} redeems {action.count} share(s) for {price * action.count}")
    _next_step(ctx, state, rnd)


# --- B: track (8.6) ---------------------------------------------------------------


def _track_needed(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
    if company.is_national or not company.placed_tokens or len(rnd.lays) >= TRACK_ACTIONS:
        return False
    cost = SECOND_LAY_COST if rnd.lays else 0
    if loans.borrowing_power(company) < cost:
        return False
    return ctx.rules.pass_asked_without_choice or _some_lay(ctx, state, company)


def _some_lay(ctx: Context, state: GameState, company: Company) -> bool:
    """8.4: whether any lay is legal now (else the track step asks nothing)."""
    from .game import Game
    from .legal import legal_lays

    return bool(legal_lays(Game(ctx, state), company, first_only=True))


def _track(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> None:
    if isinstance(action, Pass):
        _next_step(ctx, state, rnd)
        return
    if not isinstance(action, LayTile):
        raise IllegalAction(f"{company.sym} may lay a tile or pass")
    from .lay import lay_tile

    lay_tile(ctx, state, rnd, company, action)
    if len(rnd.lays) >= TRACK_ACTIONS:
        _next_step(ctx, state, rnd)


# --- C: station token (8.7) --------------------------------------------------------


def tokenable_cities(ctx: Context, state: GameState, company: Company) -> list[tuple[str, int]]:
    """Reachable cities with room for the company, on hexes where it has no token."""
    reach = graph.reachable(ctx, state, company.sym)
    own_hexes = {t.hex for t in company.tokens if t.hex}
    result = []
    for hex_id, index in sorted(reach.nodes):
        tile, _ = ctx.tile_at(state, hex_id)
        if tile.nodes[index].kind != "city" or hex_id in own_hexes:
            continue
        if free_slot_for(ctx, state, company.sym, hex_id, index) is not None:
            result.append((hex_id, index))
    return result


def _why_not_tokenable(ctx: Context, state: GameState, company: Company, hex_id: str, index: int) -> str:
    """8.7: what stops the company tokening this city."""
    if hex_id not in ctx.board.hexes:
        return f"there is no hex {hex_id}"
    tile, _ = ctx.tile_at(state, hex_id)
    if not 0 <= index < len(tile.nodes) or tile.nodes[index].kind != "city":
        return f"{hex_id} has no city {index}"
    if any(t.hex == hex_id for t in company.tokens):
        return f"it already has a token on {hex_id}"
    if (hex_id, index) not in graph.reachable(ctx, state, company.sym).nodes:
        return f"its track does not reach {hex_id} city {index}"
    reserver = state.map.reservations.get((hex_id, index))
    return f"its last slot is kept for {reserver}" if reserver not in (None, company.sym) else "the city is full"


def _token_needed(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
    if not company.is_major or rnd.tokened:
        return False
    unused = next((t for t in company.tokens if t.hex is None), None)
    if unused is None or unused.price > company.cash:
        return False
    cities = tokenable_cities(ctx, state, company)
    if ctx.rules.pass_asked_without_choice:
        return bool(cities)
    return any(token_cost(state, company.sym, h) <= company.cash for h, _ in cities)


def _token(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> None:
    if isinstance(action, Pass):
        _next_step(ctx, state, rnd)
        return
    if not isinstance(action, PlaceToken):
        raise IllegalAction(f"{company.sym} may place a station token or pass")
    allowed = tokenable_cities(ctx, state, company)
    if (action.hex, action.city) not in allowed:
        cur = ctx.title.currency
        raise IllegalAction(
            f"{company.sym} cannot token {action.hex} city {action.city}: "
            f"{_why_not_tokenable(ctx, state, company, action.hex, action.city)}; it may token "
            + (", ".join(f"{h} city {c} ({cur}{token_cost(state, company.sym, h)})" for h, c in allowed)
               or "no open city")
        )
    cost = token_cost(state, company.sym, action.hex)
    if company.cash < cost:
        raise IllegalAction(f"the token costs {cost}; {company.sym} has {company.cash} (no loans for tokens)")
    company.cash -= cost
    state.bank += cost
    put_token(ctx, state, company.sym, action.hex, action.city)
    state.log.append(f"{company.sym} places a token in {action.hex} for {cost}")
    rnd.tokened = True
    _next_step(ctx, state, rnd)


# --- D: run trains (8.8) -------------------------------------------------------------


def _routes_needed(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
    if not any(not t.operated for t in company.trains):
        return False
    if company.is_national and not ctx.rules.national_route_entered_by_player:
        return False
    return graph.has_route(ctx, state, company.sym)


def _national_runs_itself(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
    """8.13: the RSR runs for its maximum revenue."""
    if not company.is_national or not company.trains:
        return
    from .routes import best_routes, route_text

    results = best_routes(ctx, state, company)
    for result in results:
        next(t for t in company.trains if t.id == result.train).operated = True
    rnd.revenue = company.last_revenue = sum(r.revenue for r in results)
    if results:
        state.log.append(
            f"{company.sym} runs for {rnd.revenue}: "
            + ", ".join(f"{r.train} {route_text(r)}" for r in results)
        )


def _run(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> None:
    if not isinstance(action, RunRoutes):
        raise IllegalAction(f"{company.sym} must run its trains")
    from .routes import best_routes, check_routes

    if isinstance(action, RunBest):
        results = best_routes(ctx, state, company)
    else:
        results = check_routes(ctx, state, company, action.routes)
    revenue = sum(r.revenue for r in results)
    if action.revenue is not None and action.revenue != revenue:
        raise IllegalAction(f"these routes earn {revenue}, not {action.revenue}")
    for result in results:
        for train in company.trains:
            if train.id == result.train:
                train.operated = True
    rnd.revenue = company.last_revenue = revenue
    state.log.append(f"{company.sym} runs for {rnd.revenue}")
    _next_step(ctx, state, rnd)


# --- E: dividends (8.9) --------------------------------------------------------------


def _dividend_needed(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
    return company.is_major and rnd.revenue > 0


def _dividend_auto(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
    dividends.distribute(ctx, state, company, rnd.revenue, "withhold")
    _has_operated(ctx, company)


def _dividend(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> None:
    if not isinstance(action, Dividend):
        raise IllegalAction(f"{company.sym} must choose: payout, half or withhold")
    dividends.distribute(ctx, state, company, rnd.revenue, action.choice)
    _has_operated(ctx, company)
    _next_step(ctx, state, rnd)


def _has_operated(ctx: Context, company: Company) -> None:
    """8.9: with its earnings settled the company has operated (10: for the trainless
    nationalizations). RN 7.8: on 18xx.games each train it owns has then run this
    round, also one that found no route (:attr:`Rules.idle_trains_count_as_run`)."""
    company.operated = True
    if ctx.rules.idle_trains_count_as_run:
        for train in company.trains:
            train.operated = True


# --- H: buying privates (8.12) --------------------------------------------------------


def can_buy_private(ctx: Context, state: GameState, company: Company) -> bool:
    if company.is_national or company.cash < 1:
        return False
    if "can_buy_companies" not in ctx.board.phase(state.phase).status:
        return False
    return any(
        owner is not None and owner not in state.companies and sym not in state.closed_privates
        for sym, owner in state.private_owner.items()
    )


def _private_window_needed(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
    if not can_buy_private(ctx, state, company):
        return False
    if ctx.rules.explicit_private_window:
        return True
    if rnd.step == "private_before_loans":
        return company.loans > 0
    return not rnd.privates_offered


def _note_privates_offered(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
    """8.12: a company asked before its loans or to buy trains has been offered the
    privates (they are among its choices there, unless it must buy a train first), so
    the last window is not opened."""
    if rnd.step == "trains" and must_buy(ctx, state, company):
        return
    if rnd.step in ("private_before_loans", "trains") and can_buy_private(ctx, state, company):
        rnd.privates_offered = True


def _private_window(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> None:
    if isinstance(action, Pass):
        _next_step(ctx, state, rnd)
        return
    if not isinstance(action, BuyPrivate):
        raise IllegalAction(f"{company.sym} may buy a private company or pass")
    _buy_private(ctx, state, company, action)


def _buy_private(ctx: Context, state: GameState, company: Company, action: BuyPrivate) -> None:
    """8.12: from a player, for 1 to its face value, cash only, in phases 3–5."""
    if not can_buy_private(ctx, state, company):
        raise IllegalAction(f"{company.sym} cannot buy a private company now (phases 3 to 5 only)")
    owner = state.private_owner.get(action.private)
    if owner is None or owner in state.companies:
        raise IllegalAction(f"{action.private} is not owned by a player")
    face = ctx.board.private(action.private).value
    if not 1 <= action.price <= face:
        raise IllegalAction(f"{action.private} may be bought for 1 to {face}")
    if company.cash < action.price:
        raise IllegalAction(f"{company.sym} has only {company.cash}")
    seller = state.player(owner)
    seller.privates.remove(action.private)
    seller.cash += action.price
    company.cash -= action.price
    company.privates.append(action.private)
    state.private_owner[action.private] = company.sym
    state.log.append(f"{company.sym} buys {action.private} from {seller.name} for {action.price}")


# --- F: loans (8.10) ------------------------------------------------------------------


def _loans_auto(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
    if not loans.pay_interest(state, company):
        state.log.append(f"{company.sym} cannot pay its loan interest")
        nationalize(ctx, state, company.sym)
        return
    loans.repay_loans(state, company)
    company.loans_due = company.loans


# --- G: buy trains (8.11) -------------------------------------------------------------


def must_buy(ctx: Context, state: GameState, company: Company) -> bool:
    """Trainless and able to afford a yard or pool train with loans (8.11.3)."""
    cheapest = trains.cheapest_bank_price(ctx, state)
    return not company.trains and cheapest is not None and loans.borrowing_power(company) >= cheapest


def _trains_needed(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
    if company.is_national:
        return False
    if must_buy(ctx, state, company):
        return True
    if any(company.cash >= price for _, _, price in trains.trade_in_prices(ctx, state, company)):
        return True
    if len(company.trains) >= trains.train_limit(ctx, state, company):
        return False
    prices = [ctx.board.train(t.name).price for t in trains.bank_trains(ctx, state)]
    return (prices and company.cash >= min(prices)) or (_others_have_trains(ctx, state, company) and company.cash >= 1)


def _others_have_trains(ctx: Context, state: GameState, company: Company) -> bool:
    """8.11: another company has a train it might sell for 1 or more. The national never
    sells; RN 7.2: 18xx.games asks all the same when only the national has trains."""
    return any(
        c.trains and c.sym != company.sym and (ctx.rules.pass_asked_without_choice or not c.is_national)
        for c in state.companies.values()
        if not c.closed
    )


def _trains_auto(ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
    if company.is_national:
        trains.national_buys_trains(ctx, state)
    elif not company.trains:
        state.log.append(f"{company.sym} has no train and cannot buy one")
        nationalize(ctx, state, company.sym)


def _trains(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> None:
    if isinstance(action, Pass):
        if must_buy(ctx, state, company):
            raise IllegalAction(f"{company.sym} has no train and must buy one (8.11.3)")
        if not company.trains:
            nationalize(ctx, state, company.sym)
        _next_step(ctx, state, rnd)
        return
    if not isinstance(action, BuyTrain):
        if must_buy(ctx, state, company):
            raise IllegalAction(f"{company.sym} has no train and must buy one (8.11.3)")
        raise IllegalAction(f"{company.sym} may buy a train or pass")
    trains.buy_train(
        ctx, state, company, action.train, action.price, compulsory=not company.trains, exchange=action.exchange
    )


# --- discards and trainless majors ---------------------------------------------------


def _national_buys_on(ctx: Context, state: GameState) -> None:
    """8.13: the RSR buys as many trains as it can afford, so once the majors left
    trainless by its own purchase are decided (their cash may now be its), it goes on
    (unless phase 8 has begun, :func:`trains.national_buys_trains`)."""
    rnd: OperatingRound = state.round
    company = current(state)
    if state.trainless_majors or company is None or not company.is_national:
        return
    if STEPS.index(rnd.step) > STEPS.index("trains"):
        trains.national_buys_trains(ctx, state)


NEEDS_ACTION = {
    "redeem": _redeem_needed,
    "track": _track_needed,
    "token": _token_needed,
    "routes": _routes_needed,
    "dividend": _dividend_needed,
    "private_before_loans": _private_window_needed,
    "loans": lambda ctx, state, rnd, company: False,
    "trains": _trains_needed,
    "private_end": _private_window_needed,
}
AUTOMATIC = {
    "redeem": _nothing,
    "track": _nothing,
    "token": _nothing,
    "routes": _national_runs_itself,
    "dividend": _dividend_auto,
    "private_before_loans": _nothing,
    "loans": _loans_auto,
    "trains": _trains_auto,
    "private_end": _nothing,
}
HANDLERS = {
    "redeem": _redeem,
    "track": _track,
    "token": _token,
    "routes": _run,
    "dividend": _dividend,
    "private_before_loans": _private_window,
    "trains": _trains,
    "private_end": _private_window,
}
