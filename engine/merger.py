"""The merger round (rulebook 9): minors convert or merge into majors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ClassVar

from . import graph, market, shares, trains
from .actions import Action, BuyShare, Convert, DiscardTrain, Merge, Pass, RemoveToken
from .board import MarketCell
from .errors import IllegalAction
from .nationalization import trainless_choice
from .rounds import Round, TurnView
from .state import Company, Context, GameState, StationToken
from .tokens import remove_token

MAX_MINORS = 10
MAX_MINORS_PER_PLAYER = 6
MERGE_PRICE_MIN, MERGE_PRICE_MAX = 100, 200
SECOND_TOKEN_PRICE = 20
EXTRA_TOKEN_PRICE = 40
TOKENS_KEPT_ON_MAP = 2


@dataclass
class MergerRound(Round):
    """The merger round's progress (9): the minors in turn, the merge under way, who buys next."""

    kind: ClassVar[str] = "Merger"
    after_or: int = 1
    order: list[str] = field(default_factory=list)  # minors in price order at the start
    index: int = 0
    merging: list[str] = field(default_factory=list)  # the active minor first
    converting: bool = False
    adding_done: bool = False
    major: str | None = None  # the major just formed (tokens, then share sales)
    buyers: list[int] = field(default_factory=list)  # seats still to buy, first acts
    first_buyer: int = 0  # seat of the owner who buys first after a merge (9.2C)
    proposer: int = 0  # seat of the active minor's owner (the active player, 9.2C)
    buy_phase: int = 0  # 1: any number each; 2: one each
    phase_one_passer: int | None = None  # the seat whose pass was the last phase-1 action
    tokens_removed: bool = False
    tokens_done: bool = False  # 9.2E settled for the major just formed
    shares_done: bool = False  # 9.2C–D (9.1D) settled for the major just formed
    undo_point: bytes | None = field(default=None, repr=False, compare=False)  # the state before the merge (saved)

    def actor(self, ctx: Context, state: GameState) -> str:
        if state.trainless_majors:
            return state.trainless_majors[0]
        if self.major is not None and _tokens_to_remove(state, self):
            return self.major
        if self.buyers:
            return state.players[self.buyers[0]].id
        over = trains.over_limit(ctx, state)
        if over:
            return over[0]
        return self.merging[0] if self.merging else ""

    def moves(self, ctx: Context, state: GameState) -> list[Action]:
        """Every action open to whoever acts now in the merger round, by the rules that
        judge them (the one answer for menus, hints and self-play)."""
        over = trains.over_limit(ctx, state)
        if self.major is not None and _tokens_to_remove(state, self):
            placed = [(t.hex or "", t.city or 0) for t in state.companies[self.major].placed_tokens]
            hexes = [h for h, _ in placed]
            doubled = {h for h in hexes if hexes.count(h) > 1}
            return [RemoveToken(self.major, h, c) for h, c in placed if not doubled or h in doubled]
        if self.buyers:
            player = state.players[self.buyers[0]]
            able = _can_buy(ctx, state, self, self.buyers[0])
            buy: list[Action] = [BuyShare(player.id, self.major or "")] if able else []
            return buy + [Pass(player.id)]
        if over:
            return [DiscardTrain(over[0], t.id) for t in state.companies[over[0]].trains]
        if not self.merging:
            return []
        active = self.merging[0]
        result: list[Action] = []
        if not self.converting and len(self.merging) == 1 and _can_convert(ctx, state, state.companies[active]):
            result.append(Convert(active))
        if not self.adding_done and not self.converting:
            result += [Merge(active, m) for m in _candidates(ctx, state, self)]
        if _may_name_major(ctx, self) and _someone_could_preside(state, self, _start_cell(ctx, state, self).price):
            majors: list[Action] = [Merge(active, m) for m in _free_majors(state)]
            if _must_name_major(ctx, self):
                return majors
            result += majors
        return result + ([] if _pass_strands(ctx, state, self) else [Pass(active)])

    def apply(self, ctx: Context, state: GameState, action: Action) -> None:
        """Apply one merger-round action."""
        # After a merge: shares (9.2C-D) and tokens (9.2E) in the order of
        # :func:`_merge_steps`, then discards (9.2F).
        if state.trainless_majors:
            trainless_choice(ctx, state, action)
        elif self.major is not None and _tokens_to_remove(state, self):
            _remove_token(ctx, state, self, action)
        elif self.buyers:
            _buy_or_pass(ctx, state, self, action)
        elif trains.over_limit(ctx, state):
            trains.discard(ctx, state, action)
        else:
            _minor_action(ctx, state, self, action)
        _continue(ctx, state, self)

    def decider(self, state: GameState, company: str) -> str | None:
        """Who decides for a major just formed that has no president yet (its token
        reduction on 18xx.games, RN 8.1): the active player, who proposed the merge."""
        if self.major != company:
            return None
        return state.players[self.proposer].id

    def heading(self, state: GameState) -> str:
        return f"Merger round {state.round_number}.{self.after_or}"

    def view(self, ctx: Context, state: GameState, actor: str) -> TurnView:
        title = self.heading(state)
        if self.major is not None and actor == self.major and not self.buyers and _tokens_to_remove(state, self):
            return TurnView(title, self.kind, "removes station tokens", actor)  # 9.2E before the discards (RN 8.1)
        if actor in trains.over_limit(ctx, state):
            return TurnView(title, self.kind, "is over its train limit and discards", actor)
        if self.buyers:
            return TurnView(title, self.kind, f"may buy shares of {self.major}", actor)
        if self.major is not None and actor == self.major:
            return TurnView(title, self.kind, "removes station tokens", actor)
        return TurnView(title, self.kind, "may convert, merge or pass", actor)

    def operating_rounds_done(self) -> int:
        return self.after_or

    def bank_breaks_end(self, state: GameState) -> tuple[int, int]:
        if self.after_or < state.operating_rounds:
            return (state.round_number, self.after_or + 1)
        return (state.round_number + 1, 1)


def start(ctx: Context, state: GameState, after_or: int) -> None:
    """Each floated minor, in price order, may convert or merge (9)."""
    minors = [s for s, c in state.companies.items() if c.is_minor and c.floated and not c.closed]
    rnd = MergerRound(after_or=after_or, order=market.in_price_order(ctx, state, minors), index=-1)
    state.round = rnd
    state.log.append(f"Merger round after operating round {state.round_number}.{after_or}")
    _next_minor(ctx, state, rnd)


def _next_minor(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    while True:
        rnd.index += 1
        rnd.merging, rnd.converting, rnd.adding_done, rnd.major = [], False, False, None
        rnd.buyers, rnd.buy_phase, rnd.phase_one_passer, rnd.tokens_removed = [], 0, None, False
        rnd.tokens_done, rnd.shares_done = False, False
        rnd.undo_point = None
        if rnd.index >= len(rnd.order):
            _finish(ctx, state, rnd)
            return
        sym = rnd.order[rnd.index]
        minor = state.companies[sym]
        if minor.closed:
            continue
        rnd.merging = [sym]
        if ctx.rules.merger_turn_for_every_minor:
            return
        if _can_convert(ctx, state, minor) or _candidates(ctx, state, rnd):
            return


def _finish(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    """9.3: the round ends once every minor has had its turn, no trainless major
    awaits its president's choice and no company is over its train limit (RN 8.1:
    discards are a step of the round, e.g. after 1867's export changed the phase)."""
    rnd.index = len(rnd.order)
    if state.trainless_majors or trains.over_limit(ctx, state):
        return
    rnd.over = True


def _continue(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    """Move on once nothing is pending for the merge just made."""
    if state.round is not rnd or rnd.over or state.trainless_majors:
        return
    if rnd.index >= len(rnd.order):
        _finish(ctx, state, rnd)
        return
    if rnd.major is None:
        return
    for step in _merge_steps(ctx):
        if not step(ctx, state, rnd):
            return
    if trains.over_limit(ctx, state):
        return
    _say_merged(ctx, state, rnd)
    _next_minor(ctx, state, rnd)


def _merge_steps(ctx: Context) -> tuple[Callable[[Context, GameState, MergerRound], bool], ...]:
    """9.2: the share purchases (C, D), then the president's token choice (E); RN 8.1:
    on 18xx.games the token reduction comes first (the designer's order)."""
    if ctx.rules.merger_tokens_before_shares:
        return (_tokens_step, _shares_step)
    return (_shares_step, _tokens_step)


def _tokens_step(ctx: Context, state: GameState, rnd: MergerRound) -> bool:
    """9.2E, once it is its turn: True when the major's tokens are settled."""
    if rnd.tokens_done:
        return True
    rnd.tokens_done = not _too_many_tokens(state, rnd)
    if rnd.tokens_done:
        _finish_tokens(ctx, state, rnd)
    return rnd.tokens_done


def _shares_step(ctx: Context, state: GameState, rnd: MergerRound) -> bool:
    """9.1D, 9.2C–D: True when nobody is left to buy; a merge that found no president
    is reversed (9.2 note), which ends this minor's turn."""
    if rnd.shares_done:
        return True
    if rnd.buy_phase == 0:
        _start_buying(ctx, state, rnd)
    _skip_buyers_who_cannot(ctx, state, rnd)
    if rnd.buyers:
        return False
    if rnd.buy_phase == 1 and not rnd.converting:
        if state.president(rnd.major or "") is None:
            _merge_failed(ctx, state, rnd)
            return False
        _start_phase_two(ctx, state, rnd)
        _skip_buyers_who_cannot(ctx, state, rnd)
        if rnd.buyers:
            return False
    rnd.shares_done = True
    return True


def _say_merged(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    """Once a merge or conversion is done (9.2): the major's president, tokens kept,
    treasury and trains in one line."""
    major = state.companies.get(rnd.major or "")
    president = state.president(rnd.major or "")
    if major is None or president is None:
        return
    tokens = ", ".join(t.hex for t in major.placed_tokens if t.hex) or "none"
    spare = sum(1 for t in major.tokens if t.hex is None)
    trains_held = ", ".join(t.name for t in major.trains) or "none"
    state.log.append(
        f"{major.sym}: {president.name} president ({president.percent_of(major.sym)}%), tokens {tokens} "
        f"(+{spare} to place), treasury {ctx.title.currency}{major.cash}, trains {trains_held}"
    )


# --- the active minor ------------------------------------------------------------


def _minor_action(ctx: Context, state: GameState, rnd: MergerRound, action: Action) -> None:
    active = rnd.merging[0]
    if action.entity != active:
        raise IllegalAction(f"it is {active}'s turn to convert, merge or pass")
    if isinstance(action, Pass):
        if _must_name_major(ctx, rnd) and _someone_could_preside(state, rnd, _start_cell(ctx, state, rnd).price):
            raise IllegalAction(f"{active} must now name the major to form: {', '.join(_free_majors(state))} (RN 8.3)")
        if _pass_strands(ctx, state, rnd):
            raise IllegalAction(f"{active} cannot stop adding: nobody in the merge could then become the major's "
                                f"president (RN 8.3, 18xx.games); add {' or '.join(_candidates(ctx, state, rnd))}")
        if len(rnd.merging) > 1 and not rnd.adding_done:
            rnd.adding_done = True
            return
        if len(rnd.merging) > 1 or rnd.converting:
            # Nothing has changed hands yet: passing now gives the merge up.
            state.log.append(f"{active} gives up {'converting' if rnd.converting else 'the merge'}")
        _next_minor(ctx, state, rnd)
        return
    if isinstance(action, Convert):
        if len(rnd.merging) > 1 or rnd.converting:
            raise IllegalAction("a minor that is merging cannot also convert")
        if not _can_convert(ctx, state, state.companies[active]):
            if not _free_majors(state):
                raise IllegalAction(f"{active} cannot convert: no major is left to convert into (9.1; "
                                    "18xx.games accepts the conversion, then can go no further)")
            raise IllegalAction(f"{active} may convert only from the blue zone (9.1)")
        rnd.converting = True
        return
    if not isinstance(action, Merge):
        raise IllegalAction(f"{active} may convert, merge or pass")
    target = state.companies.get(action.target)
    if target is None:
        raise IllegalAction(f"there is no company {action.target}")
    if target.is_minor:
        _add_minor(ctx, state, rnd, action.target)
    elif target.is_major:
        _form_major(ctx, state, rnd, action.target)
    else:
        raise IllegalAction(f"{action.target} cannot take part in a merge")


def _may_name_major(ctx: Context, rnd: MergerRound) -> bool:
    """9.1A, 9.2A: the major is named after a conversion, or once two minors are in;
    RN 8.3: on 18xx.games, only once the adding is done."""
    if rnd.converting or rnd.adding_done:
        return True
    return len(rnd.merging) > 1 and not ctx.rules.merger_major_named_after_adding


def _must_name_major(ctx: Context, rnd: MergerRound) -> bool:
    """RN 8.3: on 18xx.games a conversion or a merge whose adding is done must go on to
    name its major (the rulebook lets the player give it up until then)."""
    return ctx.rules.merger_major_named_after_adding and (rnd.converting or rnd.adding_done)


def _can_convert(ctx: Context, state: GameState, minor: Company) -> bool:
    return minor.market is not None and market.cell_of(ctx, state, minor.sym).convert_zone and bool(_free_majors(state))


def _free_majors(state: GameState) -> list[str]:
    return [s for s, c in state.companies.items() if c.is_major and not c.floated]


def _candidates(ctx: Context, state: GameState, rnd: MergerRound) -> list[str]:
    """Minors that may join the merge (:func:`_joinable`). RN 8.3: on 18xx.games the
    last minor to join ends the adding, and the major must then be named; a minor whose
    joining leaves nobody able to preside is not offered there, as the site's engine
    could go no further (neither name a major nor give the merge up)."""
    joinable = _joinable(ctx, state, rnd)
    if not ctx.rules.merger_major_named_after_adding:
        return joinable
    return [sym for sym in joinable if not _dead_end(ctx, state, rnd, sym)]


def _dead_end(ctx: Context, state: GameState, rnd: MergerRound, sym: str) -> bool:
    """A join after which no way on lets anyone preside (:func:`_may_go_on`)."""
    return not _may_go_on(ctx, state, replace(rnd, merging=[*rnd.merging, sym]))


def _may_go_on(ctx: Context, state: GameState, rnd: MergerRound) -> bool:
    """RN 8.3: the merge can end with a major someone presides over: now, or after more
    minors join."""
    if _someone_could_preside(state, rnd, _start_cell(ctx, state, rnd).price):
        return True
    return any(_may_go_on(ctx, state, replace(rnd, merging=[*rnd.merging, s])) for s in _joinable(ctx, state, rnd))


def _pass_strands(ctx: Context, state: GameState, rnd: MergerRound) -> bool:
    """RN 8.3: on 18xx.games a pass that ends the adding while nobody could preside
    leaves its engine unable to go on (it must name a major, and none can be formed):
    refused while another minor can still join to make it possible."""
    return (ctx.rules.merger_major_named_after_adding and len(rnd.merging) > 1 and not rnd.adding_done
            and not rnd.converting and not _someone_could_preside(state, rnd, _start_cell(ctx, state, rnd).price)
            and bool(_candidates(ctx, state, rnd)))


def _joinable(ctx: Context, state: GameState, rnd: MergerRound) -> list[str]:
    """Minors that may join the merge (9.2): at most ten in all and six of one
    player's, and "One of the Minor Companies involved must be connected to all other
    Minor Companies". RN 8.3, 11.30: on 18xx.games, connected to any one in it."""
    if len(rnd.merging) >= MAX_MINORS or not _free_majors(state):
        return []
    owners = [state.president(s) for s in rnd.merging]
    links = graph.MinorLinks(ctx, state)
    result = []
    for sym, company in state.companies.items():
        if not company.is_minor or not company.floated or company.closed or sym in rnd.merging:
            continue
        owner = state.president(sym)
        if sum(1 for o in owners if o is owner) >= MAX_MINORS_PER_PLAYER:
            continue
        connected = _connected_in(links, set(rnd.merging) | {sym})
        if ctx.rules.merger_connected_to_any_member:
            joins = any(connected(m, sym) for m in rnd.merging)
        else:
            joins = one_connected_to_all([*rnd.merging, sym], connected)
        if joins:
            result.append(sym)
    return result


def _connected_in(links: graph.MinorLinks, merging: set[str]) -> Callable[[str, str], bool]:
    """Whether two minors are connected for this merge (9.2: its tokens do not block)."""
    return lambda a, b: links.connected(a, b, merging)


def one_connected_to_all(members: list[str], connected: Callable[[str, str], bool]) -> bool:
    """9.2: some member (the hub) is connected to every other member."""
    return any(all(m == hub or connected(hub, m) for m in members) for hub in members)


def _add_minor(ctx: Context, state: GameState, rnd: MergerRound, sym: str) -> None:
    if rnd.converting or rnd.adding_done:
        raise IllegalAction("no more minors can join this merge; choose the major to form")
    if sym not in _candidates(ctx, state, rnd):  # the candidates are joinable minors
        if not _free_majors(state):
            raise IllegalAction(f"{sym} may not join: no major is left for the merge to form, so no merge can "
                                f"end (9.2; 18xx.games accepts the join, then can go no further)")
        if sym not in _joinable(ctx, state, rnd):
            raise IllegalAction(f"{sym} is not connected to {' or '.join(rnd.merging)} and cannot merge (9.2)")
        raise IllegalAction(f"{sym} may not join: it would be the last minor in, and nobody in the merge could "
                            f"then become the major's president (RN 8.3, 18xx.games)")
    rnd.merging.append(sym)
    if not _joinable(ctx, state, rnd):
        rnd.adding_done = True


def _form_major(ctx: Context, state: GameState, rnd: MergerRound, sym: str) -> None:
    if not rnd.converting and len(rnd.merging) < 2:
        raise IllegalAction("convert, or add another minor first: a merge needs two minors (9.2)")
    if not _may_name_major(ctx, rnd):
        raise IllegalAction(
            f"{rnd.merging[0]} is still adding minors: add another ({', '.join(_candidates(ctx, state, rnd))}) "
            f"or pass to finish adding, then name the major (RN 8.3)"
        )
    if sym not in _free_majors(state):
        raise IllegalAction(f"{sym} has already started; choose one of {', '.join(_free_majors(state))}")
    cell = _start_cell(ctx, state, rnd)
    if not _someone_could_preside(state, rnd, cell.price):
        raise IllegalAction(f"nobody in this merge could become president of {sym} at {cell.price} (9.2)")
    if not rnd.converting and not _one_owns_two(state, rnd.merging):
        rnd.undo_point = state.saved()  # read back only if the merge fails
    minors = market.in_price_order(ctx, state, rnd.merging)
    rnd.first_buyer = _first_buyer(ctx, state, rnd.merging[0], minors[0])
    rnd.proposer = _seat_of_owner(state, rnd.merging[0])
    major = state.companies[sym]
    major.floated = True
    market.place(state, sym, cell)
    if rnd.converting:
        _convert_exchange(state, major, minors[0])
    else:
        for minor in _exchange_order(ctx, state, rnd, minors):
            _exchange(state, major, minor)
    for minor in minors:
        _take_assets(ctx, state, major, minor)
    rnd.merging = minors
    rnd.major = sym
    verb = "form" if len(minors) > 1 else "converts into"
    state.log.append(f"{' and '.join(minors)} {verb} {sym} at {cell.price}")


def _first_buyer(ctx: Context, state: GameState, active: str, highest: str) -> int:
    """9.2C: the owner of the active minor buys first; RN 11.28: on 18xx.games, the
    owner of the highest-priced minor. Taken before the minors close."""
    return _seat_of_owner(state, highest if ctx.rules.merger_buying_from_highest_minor else active)


def _seat_of_owner(state: GameState, minor: str) -> int:
    owner = state.president(minor)
    return state.players.index(owner) if owner is not None else 0


def _exchange_order(ctx: Context, state: GameState, rnd: MergerRound, minors: list[str]) -> list[str]:
    """9.2C: "Starting with the active player" the owners exchange their minors,
    clockwise, so the active player is president if they hold two. RN 11.27: on
    18xx.games, in the minors' stock-price order."""
    if ctx.rules.merger_exchange_in_price_order:
        return minors
    n = len(state.players)
    return sorted(minors, key=lambda m: (_seat_of_owner(state, m) - rnd.proposer) % n)


def _start_cell(ctx: Context, state: GameState, rnd: MergerRound) -> MarketCell:
    """9.1A: a conversion keeps the minor's price, on a major start space (pink or
    teal). 9.2A: a merge takes the lowest plus the highest of the minors' prices
    (100 to 200), rounded down onto the blue or teal section (RN 11.32: on
    18xx.games, onto a major start space, as a conversion)."""
    prices = [market.price(ctx, state, m) for m in rnd.merging]
    if rnd.converting:
        return market.major_start_cell(ctx, prices[0], exact=False)
    value = min(max(min(prices) + max(prices), MERGE_PRICE_MIN), MERGE_PRICE_MAX)
    if ctx.rules.merger_price_on_major_start_space:
        return market.major_start_cell(ctx, value, exact=False)
    return _merge_section_cell(ctx, value)


def _merge_section_cell(ctx: Context, value: int) -> MarketCell:
    """9.2A: the blue (conversion zone) or teal (major start) space of the highest
    price at or below ``value``; where one price has both, the teal one."""
    cells = [
        c for c in ctx.board.market_cells(ctx.rules.market)
        if (c.convert_zone or c.teal) and MERGE_PRICE_MIN <= c.price <= value
    ]
    return max(cells, key=lambda c: (c.price, c.teal))


def _one_owns_two(state: GameState, minors: list[str]) -> bool:
    """9.2 note: an owner of two of the minors ends with two shares (trading the second
    for the president's certificate, 9.2C, unless another took it first), so the merge
    has a president and stands whatever is bought after."""
    owners = [state.president(m) for m in minors]
    return any(o is not None and owners.count(o) >= 2 for o in owners)


def _someone_could_preside(state: GameState, rnd: MergerRound, price: int) -> bool:
    """9.2 note: a merge stands only if some owner ends with two shares (owning two of
    the minors, or able to buy a second share)."""
    if rnd.converting:
        return True
    owners = [state.president(m) for m in rnd.merging]
    return any(owners.count(o) >= 2 or (o is not None and o.cash >= price) for o in owners)


def _exchange(state: GameState, major: Company, minor_sym: str) -> None:
    """9.2C (RN 8.3): each minor's owner takes the last treasury certificate; one who
    already holds a 10% share trades it for the president's while that is free."""
    owner = state.president(minor_sym)
    if owner is None:
        return
    owner.certs = [c for c in owner.certs if c.company != minor_sym]
    held = shares.first_plain(owner.certs, major.sym)
    pres = next((c for c in major.treasury if c.president), None)
    if pres is not None and held is not None:
        major.treasury.remove(pres)
        owner.certs.remove(held)
        major.treasury.append(held)
        owner.certs.append(pres)
        return
    owner.certs.append(major.treasury.pop())


def _take_assets(ctx: Context, state: GameState, major: Company, minor_sym: str) -> None:
    """Cash, trains, privates and loans move to the major; the minor's token is
    replaced by the major's next token; the minor leaves the game."""
    minor = state.companies[minor_sym]
    major.cash += minor.cash
    major.trains.extend(minor.trains)
    major.loans += minor.loans
    major.loans_due += minor.loans
    for private in minor.privates:
        state.private_owner[private] = major.sym
        major.privates.append(private)
    for token in minor.placed_tokens:
        hex_id, city = token.hex, token.city
        assert hex_id is not None and city is not None
        remove_token(state, minor_sym, hex_id, city)
        unused = next((t for t in major.tokens if t.hex is None), None)
        if unused is None:
            unused = StationToken(EXTRA_TOKEN_PRICE)
            major.tokens.append(unused)
        slots = state.map.tokens[(hex_id, city)]
        slots[slots.index(None)] = major.sym
        unused.hex, unused.city = hex_id, city
    market.remove(state, minor_sym)
    minor.cash, minor.trains, minor.privates, minor.loans = 0, [], [], 0
    minor.closed = True
    minor.merged_into = major.sym


# --- converting: the owner takes the president's certificate -----------------------


def _convert_exchange(state: GameState, major: Company, minor_sym: str) -> None:
    owner = state.president(minor_sym)
    assert owner is not None
    owner.certs = [c for c in owner.certs if c.company != minor_sym]
    pres = next(c for c in major.treasury if c.president)
    major.treasury.remove(pres)
    owner.certs.append(pres)


# --- token reduction (9.2E, RN 8.3) -------------------------------------------------


def _tokens_to_remove(state: GameState, rnd: MergerRound) -> bool:
    """The new major must now remove a token: its turn has come (after the share
    purchases by the rulebook, before them on 18xx.games) and it has too many."""
    if rnd.major is None or rnd.tokens_done:
        return False
    if not rnd.shares_done and (rnd.buy_phase or rnd.buyers):
        return False
    return _too_many_tokens(state, rnd)


def _too_many_tokens(state: GameState, rnd: MergerRound) -> bool:
    if rnd.major is None:
        return False
    placed = state.companies[rnd.major].placed_tokens
    hexes = [t.hex for t in placed]
    return len(placed) > TOKENS_KEPT_ON_MAP or len(set(hexes)) < len(hexes)


def _remove_token(ctx: Context, state: GameState, rnd: MergerRound, action: Action) -> None:
    major = state.companies[rnd.major or ""]
    if not isinstance(action, RemoveToken) or action.entity != major.sym:
        raise IllegalAction(f"{major.sym} keeps at most two tokens on the map: remove one")
    placed = [(t.hex or "", t.city) for t in major.placed_tokens]
    if (action.hex, action.city) not in placed:
        raise IllegalAction(f"{major.sym} has no token in {action.hex} city {action.city}")
    hexes = [h for h, _ in placed]
    doubled = {h for h in hexes if hexes.count(h) > 1}
    if doubled and action.hex not in doubled:
        raise IllegalAction(f"first remove one of the tokens in {', '.join(sorted(doubled))}")
    remove_token(state, major.sym, action.hex, action.city)
    rnd.tokens_removed = True
    state.log.append(f"{major.sym} removes its token from {action.hex}")


def _finish_tokens(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    """9.2E: after a reduction the major keeps its tokens on the map and the charter
    tokens of the spots left free: 20/hex if only one stays on the map, and 40/hex.
    RN 8.3: 18xx.games keeps the cheapest spare tokens up to two, then adds a 40."""
    if not rnd.tokens_removed:
        return
    major = state.companies[rnd.major or ""]
    placed = major.placed_tokens
    if ctx.rules.merger_keeps_cheapest_spare_tokens:
        spare = sorted((t for t in major.tokens if t.hex is None), key=lambda t: t.price)
        kept = (placed + spare)[:TOKENS_KEPT_ON_MAP]
    else:
        kept = placed + [StationToken(SECOND_TOKEN_PRICE) for _ in range(TOKENS_KEPT_ON_MAP - len(placed))]
    major.tokens = kept + [StationToken(EXTRA_TOKEN_PRICE)]


# --- share sales after a merge or conversion (9.1D, 9.2C–D) -------------------------


def _start_buying(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    n = len(state.players)
    major = rnd.major or ""
    if rnd.converting:
        owner = state.president(major)
        seat = state.players.index(owner) if owner else 0
        rnd.buy_phase = 1
        rnd.buyers = [seat]
        return
    owners = {state.players.index(p) for p in state.players if p.percent_of(major)}
    start = rnd.first_buyer
    rnd.buy_phase = 1
    rnd.buyers = [(start + i) % n for i in range(n) if (start + i) % n in owners]


def _merge_failed(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    """9.2 note: nobody holds two shares, so every step of the merge is reversed and
    the next minor has its turn. The log keeps what was done and says it is undone
    (read back with the rest, it would lose the merge's lines, and the table would
    never read that the minors stay minors)."""
    major, minors, log = rnd.major, rnd.merging, state.log
    restored = rnd.undo_point
    assert restored is not None
    state.__dict__.update(GameState.from_saved(restored).__dict__)
    state.log = log
    state.log.append(f"Nobody can be president of {major}: the merge is reversed, and "
                     f"{' and '.join(minors)} stay minors (9.2)")
    before = state.round
    assert isinstance(before, MergerRound)
    _next_minor(ctx, state, before)


def _start_phase_two(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    """Then every player, from the president clockwise, may buy one share (9.2D)."""
    major = rnd.major or ""
    president = state.president(major)
    assert president is not None
    n = len(state.players)
    start = state.players.index(president)
    rnd.buy_phase = 2
    rnd.buyers = [(start + i) % n for i in range(n)]
    able = [s for s in rnd.buyers if _can_buy(ctx, state, rnd, s)]
    if able and able[0] == rnd.phase_one_passer:
        rnd.buyers.remove(rnd.phase_one_passer)


def _can_buy(ctx: Context, state: GameState, rnd: MergerRound, seat: int) -> bool:
    major = state.companies[rnd.major or ""]
    player = state.players[seat]
    if shares.first_plain(major.treasury, major.sym) is None and not any(c.president for c in major.treasury):
        return False
    return (
        player.cash >= market.price(ctx, state, major.sym)
        and player.percent_of(major.sym) + 10 <= shares.max_holding(state)
        and shares.cert_count(player) < shares.cert_limit(ctx, state)
    )


def _skip_buyers_who_cannot(ctx: Context, state: GameState, rnd: MergerRound) -> None:
    while rnd.buyers and not _can_buy(ctx, state, rnd, rnd.buyers[0]):
        rnd.buyers.pop(0)
        if rnd.converting and rnd.buy_phase == 1:
            _convert_others(state, rnd)


def _convert_others(state: GameState, rnd: MergerRound) -> None:
    """9.1D: after the new president, every other player clockwise may buy one share."""
    president = state.president(rnd.major or "")
    n = len(state.players)
    start = state.players.index(president) if president else 0
    rnd.buy_phase = 2
    rnd.buyers = [(start + i) % n for i in range(1, n)]


def _buy_or_pass(ctx: Context, state: GameState, rnd: MergerRound, action: Action) -> None:
    seat = rnd.buyers[0]
    player = state.players[seat]
    if action.entity != player.id:
        raise IllegalAction(f"it is {player.name}'s turn to buy shares of {rnd.major}")
    if isinstance(action, Pass):
        rnd.buyers.pop(0)
        if rnd.buy_phase == 1:
            rnd.phase_one_passer = seat
            if rnd.converting:
                _convert_others(state, rnd)
        return
    if not isinstance(action, BuyShare) or action.company != rnd.major:
        raise IllegalAction(f"buy a share of {rnd.major} or pass")
    if not _can_buy(ctx, state, rnd, seat):
        raise IllegalAction(f"{player.name} cannot buy a share of {rnd.major} now")
    major = state.companies[rnd.major or ""]
    price = market.price(ctx, state, major.sym)
    cert = next((c for c in major.treasury if c.id == action.cert), None) if action.cert else None
    cert = cert or shares.first_plain(major.treasury, major.sym)
    if cert is None:
        raise IllegalAction(f"{major.sym} has no shares left to sell")
    major.treasury.remove(cert)
    rnd.phase_one_passer = None  # phase 1 no longer ends with a pass (RN 8.3)
    held = shares.first_plain(player.certs, major.sym)
    pres = next((c for c in major.treasury if c.president), None)
    if pres is not None and held is not None:
        # Two 10% shares become the president's certificate (RN 8.3).
        player.certs.remove(held)
        major.treasury.extend([held, cert])
        major.treasury.remove(pres)
        player.certs.append(pres)
    else:
        player.certs.append(cert)
    player.cash -= price
    major.cash += price
    state.log.append(f"{player.name} buys 10% of {major.sym} for {price}")
    # 3.3: whoever now holds the most shares becomes president at once.
    if (line := shares.update_president(state, major.sym)) is not None:
        state.log.append(line)
    if rnd.buy_phase == 2:
        rnd.buyers.pop(0)
