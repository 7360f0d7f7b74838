"""Buying trains (rulebook 8.11) and the phase changes they cause (11)."""

from __future__ import annotations

from . import market
from .actions import Action, DiscardTrain
from .board import PhaseDef, TrainDef
from .errors import IllegalAction
from .loans import borrow_for, borrowing_power
from .nationalization import (
    PRIVATES_EVENT,
    national,
    nationalize,
    nationalize_privates,
    nationalize_privates_when_due,
)
from .state import Company, Context, GameState, Train


def train_limit(ctx: Context, state: GameState, company: Company) -> int:
    """How many trains a company may hold in this phase (8.11.2)."""
    return ctx.board.phase(state.phase).train_limit.get(company.type, 0)


def over_limit(ctx: Context, state: GameState) -> list[str]:
    """Companies holding more trains than the limit (must discard, 8.11.2)."""
    limits = ctx.board.phase(state.phase).train_limit
    over = []
    for company in state.companies.values():  # asked after most actions: kept to plain reads
        held = company.trains
        if held and len(held) > limits.get(company.type, 0) and not company.is_national and not company.closed:
            over.append(company.sym)
    return over


def discard(ctx: Context, state: GameState, action: Action) -> None:
    """8.11.2: the first company over its limit puts a train of its choice in the pool."""
    sym = over_limit(ctx, state)[0]
    if not isinstance(action, DiscardTrain) or action.entity != sym:
        raise IllegalAction(f"{sym} is over its train limit and must discard a train")
    company = state.companies[sym]
    train = next((t for t in company.trains if t.id == action.train), None)
    if train is None:
        raise IllegalAction(f"{sym} has no train {action.train}")
    company.trains.remove(train)
    state.depot.pool.append(train)
    state.log.append(f"{sym} discards a {train.name}-train to the pool")


def yard_trains(ctx: Context, state: GameState) -> list[Train]:
    """Trains the yard sells now: the lowest rank left, plus the special trains once
    they are available (8.11)."""
    upcoming = state.depot.upcoming
    if not upcoming:
        return []
    result = [upcoming[0]]
    early = ctx.board.early_trains
    if early:
        phase = int(state.phase)
        for train in upcoming[1:]:
            available_on = early.get(train.name)
            if available_on is not None and phase >= available_on:
                result.append(train)
    return result


def pool_trains(state: GameState) -> list[Train]:
    """One train of each kind from the bank pool."""
    seen: dict[str, Train] = {}
    for train in state.depot.pool:
        seen.setdefault(train.name, train)
    return list(seen.values())


def bank_trains(ctx: Context, state: GameState) -> list[Train]:
    return yard_trains(ctx, state) + pool_trains(state)


def cheapest_bank_price(ctx: Context, state: GameState) -> int | None:
    prices = [ctx.board.train(t.name).price for t in bank_trains(ctx, state)]
    return min(prices) if prices else None


LEFT_BEHIND = "nationalized"
"""Where :func:`find_train` finds a train of ``state.depot.left_behind`` (RN 37), and
the word a player types for it (`train 5-2 from nationalized 1`)."""


def find_train(ctx: Context, state: GameState, train_id: str) -> tuple[str, Train]:
    """Where a train is: 'yard', 'pool', the owning company's symbol or :data:`LEFT_BEHIND`."""
    for train in yard_trains(ctx, state):
        if train.id == train_id:
            return "yard", train
    for train in state.depot.pool:
        if train.id == train_id:
            return "pool", train
    for sym, company in state.companies.items():
        for train in company.trains:
            if train.id == train_id:
                return sym, train
    for train in state.depot.left_behind:
        if train.id == train_id:
            return LEFT_BEHIND, train
    raise IllegalAction(f"train {train_id} is not for sale now")


def buy_train(
    ctx: Context,
    state: GameState,
    buyer: Company,
    train_id: str,
    price: int,
    *,
    compulsory: bool,
    exchange: str = "",
) -> None:
    """8.11: check and make one purchase, then resolve its phase change."""
    source, train = find_train(ctx, state, train_id)
    definition = ctx.board.train(train.name)
    if source == buyer.sym:
        raise IllegalAction(f"{buyer.sym} already owns train {train.id}")
    handed_in = _trade_in(ctx, state, buyer, source, definition, exchange)
    room = train_limit(ctx, state, buyer) + (1 if handed_in else 0)
    if len(buyer.trains) >= room:
        raise IllegalAction(f"{buyer.sym} is at its train limit of {train_limit(ctx, state, buyer)}")
    if source in ("yard", "pool"):
        discount = trade_in_discount(ctx, definition, handed_in) if handed_in else None
        list_price = definition.price - (discount or 0)
        if price != list_price:
            raise IllegalAction(f"a {train.name}-train from the {source} costs {list_price}")
        if buyer.cash < price:
            if not compulsory:
                raise IllegalAction(f"{buyer.sym} has {buyer.cash}; the {train.name}-train costs {price}")
            if borrowing_power(buyer) < price:
                raise IllegalAction(f"{buyer.sym} cannot raise {price} even with every loan it may take")
            borrow_for(state, buyer, price)
    else:
        if source != LEFT_BEHIND and state.companies[source].is_national:
            raise IllegalAction("the national railway does not sell trains")
        if price < 1:
            raise IllegalAction("a train bought from another company costs at least 1")
        if buyer.cash < price:
            raise IllegalAction(f"{buyer.sym} has only {buyer.cash}; loans are not allowed for trains from companies")
    if handed_in is not None:
        buyer.trains.remove(handed_in)
        state.depot.pool.append(handed_in)
        state.log.append(f"{buyer.sym} trades in a {handed_in.name}-train")
    _transfer(ctx, state, buyer, source, train, price)
    if source == "yard":
        _after_yard_sale(ctx, state, definition)


def trade_in_prices(ctx: Context, state: GameState, company: Company) -> list[tuple[Train, Train, int]]:
    """8.11 (1867): (bank train, own train handed in, price) for every trade-in open now:
    those of :func:`listed_trade_ins` that cost at least 1 (the discount comes off the
    price and is never paid out)."""
    return [offer for offer in listed_trade_ins(ctx, state, company) if offer[2] >= 1]


def listed_trade_ins(ctx: Context, state: GameState, company: Company) -> list[tuple[Train, Train, int]]:
    """8.11 (1867): every trade-in the train list gives now, also one whose discount
    exceeds the price. Under the site's rules a 5+5E's 750 off a 2+2 (600) is listed
    at -150: 18xx.games keeps the purchase step open for it, and refuses the purchase
    ("Spender.spend(-150)"), so it is never a move (:func:`trade_in_prices`)."""
    if "train_trade_allowed" not in state.events or not company.is_major:
        return []
    result = []
    for train in bank_trains(ctx, state):
        definition = ctx.board.train(train.name)
        for own in company.trains:
            discount = trade_in_discount(ctx, definition, own)
            if discount is not None:
                result.append((train, own, definition.price - discount))
    return result


def trade_in_discount(ctx: Context, bought: TrainDef, handed_in: Train) -> int | None:
    """8.11 (1867): "exchange a train to get a 50% discount of its face value on
    another train": any train from the yard or the pool, never below nothing (None:
    no such trade-in). RN 11.20: on 18xx.games only an 8, 2+2 or 5+5E is bought so,
    at the discounts its train list gives."""
    if ctx.rules.trade_in_only_for_special_trains:
        return dict(bought.trade_in).get(handed_in.name)
    discount = ctx.board.train(handed_in.name).price // 2
    return discount if discount <= bought.price else None


def _trade_in(
    ctx: Context, state: GameState, buyer: Company, source: str, bought: TrainDef, exchange: str
) -> Train | None:
    """8.11 (1867): in phase 8 a major may hand in one of its trains for half its
    face value off a train from the yard; the handed-in train goes to the pool."""
    if not exchange:
        return None
    if "train_trade_allowed" not in state.events or not buyer.is_major:
        raise IllegalAction("trains can be traded in only by majors, from phase 8 (8.11)")
    if source not in ("yard", "pool") or (ctx.rules.trade_in_only_for_special_trains and not bought.trade_in):
        raise IllegalAction(f"a {bought.name}-train cannot be bought with a trade-in")
    handed_in = next((t for t in buyer.trains if t.id == exchange), None)
    if handed_in is None:
        raise IllegalAction(f"{buyer.sym} has no train {exchange} to trade in")
    discount = trade_in_discount(ctx, bought, handed_in)
    if discount is None and ctx.rules.trade_in_only_for_special_trains:
        allowed = ", ".join(name for name, _ in bought.trade_in)
        raise IllegalAction(f"only a {allowed}-train can be traded in")
    if discount is None or bought.price - discount < 1:
        raise IllegalAction(
            f"half a {handed_in.name}-train's price is more than a {bought.name}-train costs: "
            "trade in a smaller train, or buy it at full price"
        )
    return handed_in


def _transfer(ctx: Context, state: GameState, buyer: Company, source: str, train: Train, price: int) -> None:
    buyer.cash -= price
    if source == "yard":
        state.bank += price
        _take_from_yard(ctx, state, train)
    elif source == "pool":
        state.bank += price
        state.depot.pool.remove(train)
    elif source == LEFT_BEHIND:
        state.bank += price
        state.depot.left_behind.remove(train)
    else:
        seller = state.companies[source]
        seller.trains.remove(train)
        seller.cash += price
    buyer.trains.append(train)
    named = "old charter of a nationalized major" if source == LEFT_BEHIND else source
    state.log.append(f"{buyer.sym} buys a {train.name}-train for {price} from the {named}")


def _take_from_yard(ctx: Context, state: GameState, train: Train) -> None:
    """A train leaves the yard; an unlimited train's next copy takes its place
    (RULES-NOTES 1.7)."""
    index = state.depot.upcoming.index(train)
    state.depot.upcoming.pop(index)
    if ctx.board.train(train.name).count is None:
        copy = state.depot.copies[train.name]
        state.depot.copies[train.name] = copy + 1
        state.depot.upcoming.insert(index, Train(f"{train.name}-{copy}", train.name))


def _after_yard_sale(ctx: Context, state: GameState, definition: TrainDef) -> None:
    """The first train of a new rank starts its phase (8.11.1)."""
    phase_names = [p.name for p in ctx.board.phases]
    if definition.name in phase_names and int(definition.name) > int(state.phase):
        change_phase(ctx, state, definition.name)


def change_phase(ctx: Context, state: GameState, phase: str) -> None:
    """Advance the phase and resolve its events in order (11): rusting, the train's
    events, then nationalization of trainless companies."""
    before = ctx.board.phase(state.phase)
    state.phase = phase
    events = ctx.board.train(phase).events
    changes = phase_changes(ctx, before, ctx.board.phase(phase), events, locks=bool(state.map.blocked_hexes))
    state.log.append(f"Phase {phase} begins: " + "; ".join(changes))
    _rust(ctx, state, phase)
    for event in events:
        state.events.add(event)
        if not _after_the_trainless(ctx, event):
            EVENTS[event](ctx, state)
    if phase == LOCKS_OPEN_IN_PHASE:
        state.map.blocked_hexes.clear()
    if "trainless_nationalization" in events:
        _trainless_companies(ctx, state)
    if not ctx.rules.privates_nationalized_before_trainless:
        nationalize_privates_when_due(ctx, state)
    ctx.title.phase_began(ctx, state, phase)
    if phase == ctx.board.phases[-1].name and not ctx.rules.national_token_on_gray_moscow:
        _national_reserved_tokens(ctx, state)


STATUS_WORDS = {
    "can_buy_companies": ("companies may buy privates from players (8.12)", "companies may no longer buy privates"),
    "national_operates": ("the {national} operates (8.13)", "the {national} no longer operates"),
    "export_train": ("the {national} exports a train after each operating round (8.13)",
                     "no more trains are exported"),
}
"""What a phase's status means to a player, on and off."""

EVENT_WORDS = {
    "green_minors_available": "green minors may be auctioned (7.2)",
    "majors_can_ipo": "majors may be started in stock rounds (7.4)",
    "trainless_nationalization": "trainless companies are nationalized (10)",
    "train_trade_allowed": "trains may be traded in (8.11)",
    "minors_cannot_start": "minors not yet started leave the game",
    PRIVATES_EVENT: "privates are nationalized",
    "minors_nationalized": "every minor is nationalized (10)",
}
"""What each train event (11) does, as the phase change announces it."""


def phase_changes(
    ctx: Context, old: PhaseDef, new: PhaseDef, events: tuple[str, ...], *, locks: bool = False
) -> list[str]:
    """Everything a new phase changes (11): tiles, privates, the national, minors,
    merger rounds, off-board values, operating rounds, locked hexes (``locks``: some
    are still locked), train limits."""
    changes = [f"{color} tiles" for color in new.tiles if color not in old.tiles]
    for status, (on, off) in STATUS_WORDS.items():
        if (status in new.status) != (status in old.status):
            changes.append((on if status in new.status else off).format(national=ctx.board.national()))
    changes += [EVENT_WORDS.get(event, event.replace("_", " ")) for event in events]
    if new.name == ctx.title.spots_open_in_phase:
        changes.append("the green city spots open (7.2.1)")
    mergers = {p.name for p in (old, new) if "minor" in p.train_limit and "major" in p.train_limit}
    if new.name in mergers and old.name not in mergers:
        changes.append("a merger round follows each operating round (9)")
    elif old.name in mergers and new.name not in mergers:
        changes.append("no more merger rounds")
    if new.color != old.color:
        changes.append(f"off-board values {new.color}")
    if new.operating_rounds != old.operating_rounds:
        changes.append(f"{new.operating_rounds} operating rounds a set")
    if new.name == LOCKS_OPEN_IN_PHASE and locks:
        changes.append("locked hexes open (8.6)")
    limits = ", ".join(f"{k} {v}" for k, v in new.train_limit.items())
    return changes + [f"train limits {limits}"]


LOCKS_OPEN_IN_PHASE = "3"
"""8.6: tiles may be laid in hexes with a lock symbol from phase 3."""


def _rust(ctx: Context, state: GameState, phase: str) -> None:
    rusting = {t.name for t in ctx.board.trains if t.rusts_on == phase}
    if not rusting:
        return
    for company in state.companies.values():
        company.trains = [t for t in company.trains if t.name not in rusting]
    state.depot.pool = [t for t in state.depot.pool if t.name not in rusting]
    state.depot.left_behind = [t for t in state.depot.left_behind if t.name not in rusting]
    state.log.append(f"{', '.join(sorted(rusting))}-trains rust")


def _minors_cannot_start(ctx: Context, state: GameState) -> None:
    """Phase 5: unstarted minors leave the game with their reserved cities."""
    for sym in ctx.board.minors():
        company = state.companies[sym]
        if not company.floated and not company.closed:
            company.closed = True
            for key in [k for k, v in state.map.reservations.items() if v == sym]:
                del state.map.reservations[key]


def _after_the_trainless(ctx: Context, event: str) -> bool:
    """11, phase 6: the privates are nationalized after the trainless companies (the
    phase table's order); RN 7.9: on 18xx.games first, with the train's other events."""
    return event == PRIVATES_EVENT and not ctx.rules.privates_nationalized_before_trainless


def _minors_nationalized(ctx: Context, state: GameState) -> None:
    """Phase 8: every minor is nationalized, in stock price order (10)."""
    minors = [s for s in ctx.board.minors() if state.companies[s].floated and not state.companies[s].closed]
    for sym in market.in_price_order(ctx, state, minors):
        nationalize(ctx, state, sym)


def _green_minors_available(ctx: Context, state: GameState) -> None:
    """Phase 3: green minors may be auctioned (7.2), and the title's green spots open."""
    ctx.title.green_spots_open(ctx, state)


def _no_immediate_effect(ctx: Context, state: GameState) -> None:
    """Events whose rule is checked where it applies (majors_can_ipo in 7.4,
    train_trade_allowed in 8.11, trainless_nationalization after the rusting)."""


EVENTS = {
    "green_minors_available": _green_minors_available,
    "majors_can_ipo": _no_immediate_effect,
    "trainless_nationalization": _no_immediate_effect,
    "train_trade_allowed": _no_immediate_effect,
    "minors_cannot_start": _minors_cannot_start,
    PRIVATES_EVENT: nationalize_privates,
    "minors_nationalized": _minors_nationalized,
}


def _trainless_companies(ctx: Context, state: GameState) -> None:
    """Phases 4, 6, 8: trainless minors that have operated are nationalized; trainless
    majors that have operated may be (their president chooses, 10). The choices asked
    are those of the majors trainless now, each once: one still open from an earlier
    phase change of the same purchases (a rich RSR buying from phase 5 into 8) is not
    asked twice."""
    minors = [
        s for s, c in state.companies.items()
        if c.is_minor and c.floated and not c.closed and c.operated and not c.trains
    ]
    for sym in market.in_price_order(ctx, state, minors):
        nationalize(ctx, state, sym)
    majors = [
        s for s, c in state.companies.items()
        if c.is_major and c.floated and c.operated and not c.trains
    ]
    state.trainless_majors = market.in_price_order(ctx, state, majors)


def _national_reserved_tokens(ctx: Context, state: GameState) -> None:
    """8.13: at the start of phase 8 the national tokens its reserved cities (Moscow)."""
    from .tokens import free_slot_for, put_national_token

    nat = national(ctx, state)
    for hex_id in ctx.board.national_reservations:
        if any(t.hex == hex_id for t in nat.tokens) or not any(t.hex is None for t in nat.tokens):
            continue
        tile, _ = ctx.tile_at(state, hex_id)
        for city in tile.city_indexes:
            if free_slot_for(ctx, state, nat.sym, hex_id, city) is not None:
                put_national_token(ctx, state, nat.sym, hex_id, city, "reserved")
                break


def export_train(ctx: Context, state: GameState) -> None:
    """8.13 (1867): at the end of an operating round the national exports the next
    train of the yard: it leaves the game, with the phase change a purchase causes."""
    if not state.depot.upcoming:
        return
    train = state.depot.upcoming[0]
    _take_from_yard(ctx, state, train)
    state.log.append(f"{ctx.board.national()} exports a {train.name}-train")
    _after_yard_sale(ctx, state, ctx.board.train(train.name))


def national_buys_trains(ctx: Context, state: GameState) -> None:
    """8.13: the RSR buys the cheapest train if it has none (with loans), then every
    next train from the yard it can afford, while it operates."""
    nat = national(ctx, state)
    if not _national_still_buys(ctx, state):
        return
    if not nat.trains:
        options = bank_trains(ctx, state)
        if options:
            cheapest = min(options, key=lambda t: ctx.board.train(t.name).price)
            buy_train(ctx, state, nat, cheapest.id, ctx.board.train(cheapest.name).price, compulsory=True)
    while state.depot.upcoming and not state.finished and _national_still_buys(ctx, state):
        nxt = state.depot.upcoming[0]
        price = ctx.board.train(nxt.name).price
        if nat.cash < price:
            break
        buy_train(ctx, state, nat, nxt.id, price, compulsory=False)


def _national_still_buys(ctx: Context, state: GameState) -> bool:
    """3.4, 8.13: "At the start of Phase 8, the National Railways will cease
    operation", so the 8-train that starts phase 8 is its last purchase. RN 7.12:
    18xx.games goes on buying while its cash covers the next train."""
    return ctx.rules.national_buys_into_phase_eight or ctx.title.national_runs(ctx, state)
