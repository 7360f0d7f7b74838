"""The steps of a company's operating turn (rulebook 8.4), one class each.

A company goes through them in order (:data:`STEPS`): A redeem shares (8.5), B lay
track (8.6), C place a station token (8.7), D run trains (8.8), E pay dividends
(8.9), F settle loans (8.10), G buy trains (8.11) and H buy private companies (8.12),
which opens once before the loans for a company that has some and once at the end.
Each step knows whether the company must be asked (:meth:`Step.needed`), what it does
by itself when nobody is asked (:meth:`Step.automatic`), what the company may do
there (:meth:`Step.moves`) and how it takes the company's action (:meth:`Step.handle`).
The operating round (:mod:`engine.operating`) walks the steps and keeps the turn's
state; a step object holds none (the round stores the step's name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from . import dividends, graph, loans, market, trains
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
from .lay import lay_tile, possible_lays
from .nationalization import nationalize
from .state import Company, Context, GameState
from .tokens import free_slot_for, put_token, token_cost
from .words import counted

if TYPE_CHECKING:

    from .operating import OperatingRound



class Step:
    """One step of the operating turn; by default the company may only pass (or buy
    a private while it may, 8.12)."""

    name: ClassVar[str]
    """The step's name, stored in :attr:`OperatingRound.step`."""
    doing: ClassVar[str]
    """What the table says the company does here (``lays track``)."""
    moves_trains: ClassVar[bool] = False
    """Whether what the step does by itself can move trains (a purchase, a phase change,
    a nationalization): only then may a company be over its train limit after it."""

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        """Whether the company must be asked here (8.4: else the step is passed over)."""
        return False

    def automatic(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        """What the step does by itself when the company is not asked."""

    def passed_over(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> str | None:
        """A log line for a step passed over though the company might have expected it."""
        return None

    def asked(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        """The company is asked to act here (what that settles for later steps)."""

    def moves(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> list[Action]:
        """Every action open to the company here."""
        return _with_privates_and_pass(ctx, state, company, [])

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        """Take the company's action here; True when the step is done."""
        if isinstance(action, Pass):
            return True
        raise IllegalAction(f"{company.sym} may only pass now")


def _with_privates_and_pass(ctx: Context, state: GameState, company: Company, moves: list[Action]) -> list[Action]:
    """A step's own moves, the privates the company may buy now (8.12) and a pass."""
    return _with_privates(ctx, state, company, moves) + [Pass(company.sym)]


def _with_privates(ctx: Context, state: GameState, company: Company, moves: list[Action]) -> list[Action]:
    """A step's own moves and the privates the company may buy now: 8.12, "at any time"
    of its turn, also while it must run, pay or buy a train."""
    result = list(moves)
    if can_buy_private(ctx, state, company):
        for private, owner in state.private_owner.items():
            if owner is not None and owner not in state.companies and private not in state.closed_privates:
                face = ctx.board.private(private).value
                result.append(BuyPrivate(company.sym, private, min(face, company.cash)))
    return result


# --- A: redeem shares (8.5) ---------------------------------------------------------


class Redeem(Step):
    """A: a major may buy its own shares back from the pool at the market price."""

    name = "redeem"
    doing = "may redeem shares"

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        return (
            company.is_major
            and state.pool_percent(company.sym) > 0
            and company.cash >= market.price(ctx, state, company.sym)
        )

    def moves(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> list[Action]:
        price = market.price(ctx, state, company.sym)
        pool = state.pool_percent(company.sym) // 10
        own: list[Action] = [RedeemShares(company.sym, n) for n in range(1, pool + 1) if n * price <= company.cash]
        return _with_privates_and_pass(ctx, state, company, own)

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        if isinstance(action, Pass):
            return True
        if not isinstance(action, RedeemShares):
            raise IllegalAction(f"{company.sym} may redeem shares from the pool or pass")
        price = market.price(ctx, state, company.sym)
        pool = [c for c in state.pool if c.company == company.sym]
        if action.count < 1 or action.count * 10 > sum(c.percent for c in pool):
            raise IllegalAction(f"the pool holds {sum(c.percent for c in pool)}% of {company.sym}")
        if company.cash < price * action.count:
            raise IllegalAction(
                f"{company.sym} has {company.cash}; {counted(action.count, 'share')} cost {price * action.count}"
            )
        for cert in pool[: action.count]:
            state.pool.remove(cert)
            company.treasury.append(cert)
        company.cash -= price * action.count
        state.bank += price * action.count
        state.log.append(f"{company.sym} redeems {action.count} share(s) for {price * action.count}")
        return True


# --- B: lay track (8.6) ---------------------------------------------------------------


class Track(Step):
    """B: up to two track actions, the second for 20 more (:mod:`engine.lay`)."""

    name = "track"
    doing = "lays track"

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        if company.is_national or not company.placed_tokens or len(rnd.lays) >= len(ctx.board.lay_costs):
            return False
        if loans.borrowing_power(company) < ctx.board.lay_costs[len(rnd.lays)]:
            return False
        # 8.4: a step with no legal lay asks nothing
        return ctx.rules.pass_asked_without_choice or bool(possible_lays(ctx, state, rnd, company, first_only=True))

    def passed_over(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> str | None:
        if ctx.rules.pass_asked_without_choice or company.is_national:
            return None
        if not company.placed_tokens or len(rnd.lays) >= len(ctx.board.lay_costs):
            return None
        if loans.borrowing_power(company) < ctx.board.lay_costs[len(rnd.lays)]:
            return None
        what = "no hex left for a second lay" if rnd.lays else "no hex to lay track on"
        return f"{company.sym} passes its track action: {what}"

    def moves(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> list[Action]:
        own: list[Action] = list(possible_lays(ctx, state, rnd, company))
        return _with_privates_and_pass(ctx, state, company, own)

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        if isinstance(action, Pass):
            return True
        if not isinstance(action, LayTile):
            raise IllegalAction(f"{company.sym} may lay a tile or pass")
        lay_tile(ctx, state, rnd, company, action)
        return len(rnd.lays) >= len(ctx.board.lay_costs)


# --- C: place a station token (8.7) ----------------------------------------------------


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


class Token(Step):
    """C: a major may place one station token in a city its track reaches (cash only)."""

    name = "token"
    doing = "may place a station token"

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        if not company.is_major or rnd.tokened:
            return False
        unused = next((t for t in company.tokens if t.hex is None), None)
        if unused is None or unused.price > company.cash:
            return False
        cities = tokenable_cities(ctx, state, company)
        if ctx.rules.pass_asked_without_choice:
            return bool(cities)
        return any(token_cost(state, company.sym, h) <= company.cash for h, _ in cities)

    def passed_over(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> str | None:
        """Why a major with a token left is not asked to place it, as the track step says."""
        if ctx.rules.pass_asked_without_choice or not company.is_major or company.is_national or rnd.tokened:
            return None
        unused = next((t for t in company.tokens if t.hex is None), None)
        if unused is None:
            return None  # every token placed: nothing to tell, ever again
        if unused.price > company.cash:
            why = f"its next token costs {unused.price} and it has {company.cash}"
        elif tokenable_cities(ctx, state, company):
            why = "no reachable city it can pay for"
        else:
            why = "no reachable city with room for it"
        return f"{company.sym} passes its token: {why}"

    def moves(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> list[Action]:
        cities = tokenable_cities(ctx, state, company)
        own: list[Action] = [
            PlaceToken(company.sym, h, c) for h, c in cities if token_cost(state, company.sym, h) <= company.cash
        ]
        return _with_privates_and_pass(ctx, state, company, own)

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        if isinstance(action, Pass):
            return True
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
        return True


# --- D: run trains (8.8) ----------------------------------------------------------------


class Routes(Step):
    """D: the company's trains run; the national runs itself for its best (8.13)."""

    name = "routes"
    doing = "runs its trains"

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        if not any(not t.operated for t in company.trains):
            return False
        if company.is_national and not ctx.rules.national_route_entered_by_player:
            return False
        return graph.has_route(ctx, state, company.sym)

    def passed_over(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> str | None:
        if not company.is_national and any(not t.operated for t in company.trains):
            return f"{company.sym} has no route to run (a route needs two stops, one its own token)"
        return None

    def automatic(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        """8.13: the RSR runs for its maximum revenue."""
        if not company.is_national or not company.trains:
            return
        from .route_search import best_routes
        from .routes import route_text

        results = best_routes(ctx, state, company)
        for result in results:
            next(t for t in company.trains if t.id == result.train).operated = True
        rnd.revenue = company.last_revenue = sum(r.revenue for r in results)
        if results:
            state.log.append(
                f"{company.sym} runs for {rnd.revenue}: "
                + ", ".join(f"{r.train} {route_text(r)}" for r in results)
            )

    def moves(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> list[Action]:
        return _with_privates(ctx, state, company, [RunBest(company.sym)])  # the run is solved only if applied

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        if not isinstance(action, RunRoutes):
            raise IllegalAction(f"{company.sym} must run its trains")
        if isinstance(action, RunBest):
            from .route_search import best_routes

            results = best_routes(ctx, state, company)
        else:
            from .routes import check_routes

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
        return True


# --- E: pay dividends (8.9) ---------------------------------------------------------------


class Dividends(Step):
    """E: a major pays out, pays half or withholds; a minor splits its revenue."""

    name = "dividend"
    doing = "decides its dividend"

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        return company.is_major and rnd.revenue > 0

    def automatic(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        dividends.distribute(ctx, state, company, rnd.revenue, "withhold")
        _has_operated(ctx, company)

    def moves(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> list[Action]:
        return _with_privates(ctx, state, company, [Dividend(company.sym, c) for c in ("payout", "half", "withhold")])

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        if not isinstance(action, Dividend):
            raise IllegalAction(f"{company.sym} must choose: payout, half or withhold")
        dividends.distribute(ctx, state, company, rnd.revenue, action.choice)
        _has_operated(ctx, company)
        return True


def _has_operated(ctx: Context, company: Company) -> None:
    """8.9: with its earnings settled the company has operated (10: for the trainless
    nationalizations). RN 7.8: on 18xx.games each train it owns has then run this
    round, also one that found no route (:attr:`Rules.idle_trains_count_as_run`)."""
    company.operated = True
    if ctx.rules.idle_trains_count_as_run:
        for train in company.trains:
            train.operated = True


# --- F: loans (8.10) ------------------------------------------------------------------------


class Loans(Step):
    """F: interest on the loans owed this round, then loans repaid while cash allows;
    a company that cannot pay its interest is nationalized (10)."""

    name = "loans"
    doing = "settles its loans"
    moves_trains = True

    def automatic(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        if not loans.pay_interest(state, company):
            state.log.append(f"{company.sym} cannot pay its loan interest")
            nationalize(ctx, state, company.sym)
            return
        loans.repay_loans(state, company)
        company.loans_due = company.loans


# --- G: buy trains (8.11) -------------------------------------------------------------------


def must_buy(ctx: Context, state: GameState, company: Company) -> bool:
    """Trainless and able to afford a yard or pool train with loans (8.11.3)."""
    return _must_buy_at(company, trains.cheapest_bank_price(ctx, state))


def _must_buy_at(company: Company, cheapest: int | None) -> bool:
    """:func:`must_buy`, the bank's cheapest train costing ``cheapest`` (None: it has none)."""
    return not company.trains and cheapest is not None and loans.borrowing_power(company) >= cheapest


def _train_purchases(ctx: Context, state: GameState, company: Company) -> list[Action]:
    """8.11: trains from the yard and the pool at list price (with loans when the
    purchase is compulsory), trade-ins (1867), and other companies' trains for 1."""
    if len(company.trains) >= trains.train_limit(ctx, state, company):
        return [
            BuyTrain(company.sym, t.id, price, own.id)
            for t, own, price in trains.trade_in_prices(ctx, state, company)
            if price <= company.cash
        ]
    means = loans.borrowing_power(company) if not company.trains else company.cash
    result: list[Action] = [
        BuyTrain(company.sym, t.id, ctx.board.train(t.name).price)
        for t in trains.bank_trains(ctx, state)
        if ctx.board.train(t.name).price <= means
    ]
    result += [
        BuyTrain(company.sym, t.id, price, own.id)
        for t, own, price in trains.trade_in_prices(ctx, state, company)
        if price <= company.cash
    ]
    if company.cash >= 1:
        for other in state.companies.values():
            if other is company or other.is_national or other.closed:
                continue
            result += [BuyTrain(company.sym, t.id, 1) for t in other.trains]
        result += [BuyTrain(company.sym, t.id, 1) for t in state.depot.left_behind]
    return result


def _others_have_trains(ctx: Context, state: GameState, company: Company) -> bool:
    """8.11: another company has a train it might sell for 1 or more. The national never
    sells; RN 7.2: 18xx.games asks all the same when only the national has trains."""
    return bool(state.depot.left_behind) or any(
        c.trains and c.sym != company.sym and (ctx.rules.pass_asked_without_choice or not c.is_national)
        for c in state.companies.values()
        if not c.closed
    )


class Trains(Step):
    """G: buy trains; a trainless company must buy one if it can, with loans (8.11.3);
    the national buys what it can afford (8.13)."""

    name = "trains"
    doing = "buys trains"
    moves_trains = True

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        if company.is_national:
            return False
        cheapest = trains.cheapest_bank_price(ctx, state)
        if _must_buy_at(company, cheapest):
            return True
        if any(company.cash >= price for _, _, price in trains.listed_trade_ins(ctx, state, company)):
            return True
        if len(company.trains) >= trains.train_limit(ctx, state, company):
            return False
        if cheapest is not None and company.cash >= cheapest:
            return True
        return company.cash >= 1 and _others_have_trains(ctx, state, company)

    def automatic(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        if company.is_national:
            trains.national_buys_trains(ctx, state)
        elif not company.trains:
            state.log.append(f"{company.sym} has no train and cannot buy one")
            nationalize(ctx, state, company.sym)

    def asked(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        """8.12: the privates are among the choices here, unless a train must come first."""
        if not must_buy(ctx, state, company) and can_buy_private(ctx, state, company):
            rnd.privates_offered = True

    def moves(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> list[Action]:
        own = _train_purchases(ctx, state, company)
        if must_buy(ctx, state, company) and own:
            return _with_privates(ctx, state, company, own)
        return _with_privates_and_pass(ctx, state, company, own)

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        if isinstance(action, Pass):
            if must_buy(ctx, state, company):
                raise IllegalAction(f"{company.sym} has no train and must buy one (8.11.3)")
            if not company.trains:
                nationalize(ctx, state, company.sym)
            return True
        if not isinstance(action, BuyTrain):
            if must_buy(ctx, state, company):
                raise IllegalAction(f"{company.sym} has no train and must buy one (8.11.3)")
            raise IllegalAction(f"{company.sym} may buy a train or pass")
        minor_trains = [t.name for c in state.companies.values() if c.is_minor and not c.closed for t in c.trains]
        phase = state.phase
        trains.buy_train(
            ctx, state, company, action.train, action.price, compulsory=not company.trains, exchange=action.exchange
        )
        if ctx.rules.buyer_turn_ends_when_minors_nationalized and _minor_kept_a_train(ctx, state, phase, minor_trains):
            state.log.append(f"{company.sym}'s turn ends: the minors are nationalized while one holds a train "
                             "(as 18xx.games plays it)")
            rnd.step = ctx.title.operating_steps[-1].name
            return True  # the turn's last step is done: the next company's turn
        # 8.4 note, 8.12: a purchase that ends the step (the train limit reached, the cash
        # spent) ends no chance to buy a private: the last window opens unless asked here again
        rnd.privates_offered = False
        return False


def _minor_kept_a_train(ctx: Context, state: GameState, before: str, minor_trains: list[str]) -> bool:
    """Whether the phase begun since ``before`` nationalized the minors while one of them
    held a train that did not rust then (``minor_trains``: the minors' trains before)."""
    if state.phase == before or "minors_nationalized" not in ctx.board.train(state.phase).events:
        return False
    return any(ctx.board.train(name).rusts_on != state.phase for name in minor_trains)


# --- H: buy private companies (8.12) -----------------------------------------------------------


def can_buy_private(ctx: Context, state: GameState, company: Company) -> bool:
    if company.is_national or company.cash < 1:
        return False
    if "can_buy_companies" not in ctx.board.phase(state.phase).status:
        return False
    return any(
        owner is not None and owner not in state.companies and sym not in state.closed_privates
        for sym, owner in state.private_owner.items()
    )


def buy_private(ctx: Context, state: GameState, company: Company, action: BuyPrivate) -> None:
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


class Privates(Step):
    """H: buy private companies from players. The privates may be bought at any step
    while the phase allows (8.12), so this last window opens only for a company not
    offered them yet (RN 7.2: on 18xx.games, always)."""

    name = "private_end"
    doing = "may buy a private"

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        if not can_buy_private(ctx, state, company):
            return False
        if ctx.rules.explicit_private_window:
            return True
        return not rnd.privates_offered

    def handle(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: Action) -> bool:
        if isinstance(action, Pass):
            return True
        raise IllegalAction(f"{company.sym} may buy a private company or pass")  # a purchase: at any step


class PrivatesBeforeLoans(Privates):
    """H, before F: a company with loans may buy privates first (to pay with their income)."""

    name = "private_before_loans"

    def needed(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> bool:
        if not can_buy_private(ctx, state, company):
            return False
        if ctx.rules.explicit_private_window:
            return True
        return company.loans > 0

    def asked(self, ctx: Context, state: GameState, rnd: OperatingRound, company: Company) -> None:
        """8.12: asked before its loans, the company has been offered the privates."""
        if can_buy_private(ctx, state, company):
            rnd.privates_offered = True


STEPS: tuple[Step, ...] = (
    Redeem(),  # A (8.5)
    Track(),  # B (8.6)
    Token(),  # C (8.7)
    Routes(),  # D (8.8)
    Dividends(),  # E (8.9)
    PrivatesBeforeLoans(),  # H, before loans are settled (8.12)
    Loans(),  # F (8.10)
    Trains(),  # G (8.11)
    Privates(),  # H (8.12)
)
"""The steps of an operating turn, in the order a company takes them (the rulebook's;
a title may take another order: :attr:`engine.titles.Title.operating_steps`)."""

