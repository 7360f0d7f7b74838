"""The best routes for a company's trains (rulebook 8.8, 8.13): a search over each
train's routes, cut by revenue bounds, and for many trains an integer program
(:mod:`engine.packing`). :mod:`engine.routes` says what a route is, checks and prices
it; this module only finds the best ones.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .board import TrainDef
from .cache import BoundedCache
from .graph import TrackGraph, set_bits
from .routes import Found, OutOfSteps, RouteResult, Scope, lowest_bit, route_result
from .state import Company, Context, GameState, Train

SEARCH_TRAINS = 3
"""Most trains for which the search over trains runs before the integer program."""

QUICK_STEPS = 100_000
"""Work the search over trains may do before the integer program takes over (at most
about a second here; the shared games never need half of it)."""

GOAL_GROWTH = 3
"""How many times as many routes each goal of the integer program lets in as the one
before (see :func:`_by_integer_program`)."""

FIRST_GOAL_ITEMS = 1000
"""How many routes the integer program's first goal may let in (800 are a fifth of a
second of branch and bound on a national railway's seven trains)."""


class _TrainSearch:
    """Depth-first enumeration of one train's legal routes, cut by revenue bounds.

    Every route holds a city with the company's token; it is grown from the first
    such city in token order (earlier token cities are barred), first along one arm
    and then, optionally, along a second arm from that city. The second arm's first
    segment must have a higher index than the first arm's, so each route is made
    once.

    A route is not reported when a shorter route within it earns as much (it ends on
    a stop it does not count, or a shorter one earns no less): that one does as well
    on less track, so no best answer needs it. For the same reason a branch stops
    once no stop within reach could raise the count (:meth:`gainful`).
    """

    def __init__(self, scope: Scope, train: TrainDef) -> None:
        self.scope = scope
        self.pricing = scope.pricing(train)
        self.express = train.express
        self._pooled: tuple[int, list[Found]] | None = None  # the lowest threshold's pool
        worth_ub = self.pricing.worth_ub
        self.order_ub = sorted(range(len(worth_ub)), key=lambda n: -worth_ub[n])
        graph = scope.graph
        masks, _ = graph.packed_masks()  # every mask of the search is in these bits
        self.adjacent = [
            sorted(
                (
                    (s, graph.segments[s].a ^ graph.segments[s].b ^ node, masks[s])
                    for s in graph.adjacent[node]
                ),
                key=lambda t: -worth_ub[t[1]],
            )
            for node in range(len(graph.nodes))
        ]
        # for the frontier, where the order does not matter: (the node as a bit, the node, the track)
        self.onward = [[(1 << other, other, mask) for _s, other, mask in found] for found in self.adjacent]

    def top(self, candidates: int, k: int) -> int:
        """The sum of the ``k`` best upper-bound worths among ``candidates``."""
        total = 0
        if k <= 0:
            return 0
        worth_ub = self.pricing.worth_ub
        for n in self.order_ub:
            if candidates >> n & 1:
                total += worth_ub[n]
                k -= 1
                if not k:
                    break
        return total

    def frontier(self, starts: list[int], visited: int, taken: int, used: int) -> int:
        """Nodes a route could still add from ``starts`` on unused track (relaxed: the
        walks to them may share track with each other)."""
        taken_bit = self.scope.taken_bit
        passable = self.scope.passable
        onward = self.onward
        found = 0
        seen = visited
        stack = starts
        pop, push = stack.pop, stack.append
        while stack:
            for bit, other, seg_mask in onward[pop()]:
                if seen & bit or used & seg_mask:
                    continue
                seen |= bit
                if taken & taken_bit[other]:
                    continue
                found |= bit
                if passable & bit:
                    push(other)
        return found

    def gainful(self, ahead: int, counted: int, optional_seen: int, room: int) -> bool:
        """Whether some longer route could earn more than this one, which counts
        ``counted``: only by adding a stop from ``ahead`` that the count would take.
        (A longer route earning no more is never needed: this one does as well on less
        track.)"""
        if not ahead or room <= 0 and not self.express:
            return False  # an N-train at its limit can add no city and count no town
        if optional_seen.bit_count() < room:
            return True  # a free slot: any stop adds
        scope = self.scope
        pricing = self.pricing
        # Stops the count may pick over better ones: a token city when none is counted,
        # half of the Moscow-Ekaterinburg pair whose other half is not counted.
        special = 0
        if not counted & scope.token_mask:
            special |= scope.token_mask
        if not counted & scope.bonus_city:
            special |= scope.capitals
        if not counted & scope.capitals:
            special |= scope.bonus_city
        if ahead & special:
            return True
        worth = pricing.worth
        least = min(worth[n] for n in set_bits(counted & ~pricing.mandatory))
        return any(pricing.worth_ub[n] > least for n in set_bits(ahead))

    def run(self, used0: int, bar: _Bar, emit: Callable[[Found, object], None]) -> None:
        """Call ``emit`` with each legal route on track other than ``used0`` that earns
        more than ``bar`` asks, and the bar's state for that route's track; branches
        whose upper bound does not clear the bar are cut."""
        scope = self.scope
        tick = scope.tick
        pricing = self.pricing
        taken_bit = scope.taken_bit
        passable = scope.passable
        mandatory = pricing.mandatory
        worth_ub = pricing.worth_ub
        adjacent = self.adjacent
        limit = pricing.limit
        capped = not self.express  # only N-trains limit the cities they visit
        reach_top = [self.top(scope.reach, room) for room in range(limit + 1)]
        arm1: list[int] = []
        segs1: list[int] = []
        arm2: list[int] = []
        segs2: list[int] = []

        def step(
            t0: int, head: int, phase: int, visited: int, taken: int, used: int,
            musts: int, must_ub: int, banned: int, floor: int, mark: object, within: int,
        ) -> None:
            # The bounds cover this route and all its extensions: cheap ones first.
            # ``within``: what the branch's parent could still add, which holds all this
            # branch can (it has less track left and more stops taken).
            tick()
            room = limit - musts
            threshold = bar.need(mark)
            if must_ub + reach_top[room] <= threshold:
                return
            optional_seen = visited & ~banned & ~mandatory
            if must_ub + self.top(within & ~visited | optional_seen, room) <= threshold:
                return
            starts = [head] if passable >> head & 1 else []
            if phase == 1 and arm1:
                starts.append(t0)
            ahead = self.frontier(starts, visited, taken, used)
            if must_ub + self.top(ahead | optional_seen, room) <= threshold:
                return
            if arm1:
                # ``floor``: the most a shorter route within this one earns; a route
                # earning no more than that is not needed.
                nodes = arm1[::-1] + [t0] + arm2
                priced = pricing.count(nodes)
                if priced is not None:
                    value, counted = priced
                    if (
                        value > threshold and value > floor
                        and counted >> nodes[0] & 1 and counted >> nodes[-1] & 1
                    ):
                        found = Found(value, used & ~used0, tuple(nodes), tuple(segs1[::-1] + segs2))
                        emit(found, mark)
                    floor = max(floor, value)
                    if not self.gainful(ahead, counted, optional_seen, room):
                        return
            state = (visited, taken, used, musts, must_ub, floor, mark, ahead)
            if passable >> head & 1:
                grow(t0, head, phase, -1, state, banned)
            if phase == 1 and arm1:
                grow(t0, t0, 2, segs1[0], state, banned)

        def grow(
            t0: int, head: int, phase: int, after: int,
            state: tuple[int, int, int, int, int, int, object, int], banned: int,
        ) -> None:
            visited, taken, used, musts, must_ub, floor, mark, ahead = state
            arm, segs = (arm1, segs1) if phase == 1 else (arm2, segs2)
            for s, other, seg_mask in adjacent[head]:
                bit = 1 << other
                if s <= after or used & seg_mask or visited & bit:
                    continue
                if taken & taken_bit[other]:
                    continue
                is_must = mandatory >> other & 1
                if is_must and capped and musts >= limit:
                    continue
                arm.append(other)
                segs.append(s)
                step(
                    t0, other, phase, visited | bit, taken | taken_bit[other], used | seg_mask, musts + is_must,
                    must_ub + (worth_ub[other] if is_must else 0), banned, floor,
                    bar.add(mark, seg_mask), ahead,
                )
                arm.pop()
                segs.pop()

        banned = 0
        for t0 in scope.tokens:
            is_must = mandatory >> t0 & 1
            step(
                t0, t0, 1, banned | 1 << t0, taken_bit[t0], used0,
                is_must, worth_ub[t0] if is_must else 0, banned, 0, bar.start(), scope.reach,
            )
            banned |= 1 << t0

    def best(self, used: int) -> Found | None:
        """The train's best route on track other than ``used``."""
        found: list[Found] = []
        bar = _Bar(0)

        def keep(route: Found, _mark: object) -> None:
            found.append(route)
            bar.amount = route.value

        self.run(used, bar, keep)
        return found[-1] if found else None

    def pool(self, threshold: int) -> list[Found]:
        """Every route earning more than ``threshold``, best first (leaving out routes
        that a shorter route within them earns as much as).

        A list made for a lower threshold holds this one, in the same order: the bar
        only cuts branches that hold no route earning more than it, and whether a
        route is listed otherwise depends on its own branch alone. So one solve
        enumerates each train's routes once for its lowest threshold so far."""
        if self._pooled is not None and self._pooled[0] <= threshold:
            return [found for found in self._pooled[1] if found.value > threshold]
        found: list[Found] = []
        self.run(0, _Bar(threshold), lambda route, _mark: found.append(route))
        found.sort(key=lambda f: -f.value)
        self._pooled = (threshold, found)
        return list(found)


class _Bar:
    """What a route must earn to be worth reporting: a fixed amount. Subclasses let
    the amount depend on the route's track, kept in a ``mark`` grown segment by
    segment."""

    def __init__(self, amount: int) -> None:
        self.amount = amount

    def start(self) -> object:
        return None

    def add(self, mark: object, mask: int) -> object:
        return mark

    def need(self, mark: object) -> int:
        return self.amount


@dataclass
class _Answer:
    """The best routes found for some trains (one entry per train, None = no run)."""

    total: int
    routes: list[Found | None]


class _Pools(_Bar):
    """The other trains' route lists, for a search of the first train's routes.

    A first-train route is worth reporting only if, with the best other routes its
    track leaves free, it beats ``answer``. The mark is, for each list, the routes
    (as bits over their positions) that clash with the track so far.
    """

    def __init__(
        self,
        answer: _Answer,
        names: tuple[str, ...],
        pools: list[list[Found]],
        later_best: list[int],
        tick: Callable[[int], None],
    ) -> None:
        super().__init__(0)
        self.tick = tick
        self.answer = answer
        self.pools = pools
        self.later_best = later_best  # [i]: the best answer of the trains of lists i, i+1, ...
        self.twins = [i + 1 < len(names) and names[i + 1] == names[i] for i in range(len(names))]
        self.users = [_users(pool) for pool in pools]
        # clashes_after[i][p]: for each later list, the routes that clash with route p of list i
        self.clashes_after = [
            [tuple(self._users_of(j, found.mask) for j in range(i + 1, len(pools))) for found in pool]
            for i, pool in enumerate(pools[:-1])
        ]

    def _users_of(self, i: int, mask: int) -> int:
        users = self.users[i]
        clash = 0
        for low in _lows(mask):
            clash |= users.get(low, 0)
        return clash

    def start(self) -> tuple[int, ...]:
        return (0,) * len(self.pools)

    def add(self, mark: object, mask: int) -> tuple[int, ...]:
        clashes: tuple[int, ...] = mark  # type: ignore[assignment]
        return tuple(c | self._users_of(i, mask) for i, c in enumerate(clashes))

    def need(self, mark: object) -> int:
        return self.answer.total - self.best_free(mark, 0)  # type: ignore[arg-type]

    def best_free(self, clashes: tuple[int, ...], first: int) -> int:
        """The most the lists from ``first`` on could add: each one's best route that does
        not clash (though they may clash with each other), and no more than their trains'
        best answer on the whole map."""
        rest = 0
        for pool, clash in zip(self.pools[first:], clashes[first:]):
            free = ~clash & ((1 << len(pool)) - 1)
            if free:
                rest += pool[lowest_bit(free)].value
        return min(rest, self.later_best[first])

    def complete(self, first: Found | None, mark: object) -> None:
        """Branch and bound over the lists for the best routes to go with ``first``."""
        answer = self.answer
        pools = self.pools
        last = len(pools) - 1
        chosen: list[Found | None] = [first]

        def finish(total: int, clash: int, start: int) -> None:
            # The last list: its first route that does not clash is its best.
            free = ((1 << len(pools[last])) - 1) & ~clash & ~((1 << start) - 1)
            found = pools[last][lowest_bit(free)] if free else None
            if total + _value(found) > answer.total:
                answer.total = total + _value(found)
                answer.routes = [*chosen, found]

        def branch(i: int, total: int, clashes: tuple[int, ...], start: int) -> None:
            self.tick(1)
            if i == last:
                finish(total, clashes[i], start)
                return
            pool = pools[i]
            rest = self.best_free(clashes, i + 1)
            twin = self.twins[i]
            free = ((1 << len(pool)) - 1) & ~clashes[i] & ~((1 << start) - 1)
            while free:
                low = free & -free
                free ^= low
                position = low.bit_length() - 1
                found = pool[position]
                if total + found.value + rest <= answer.total:
                    break
                after = self.clashes_after[i][position]
                chosen.append(found)
                if i + 1 == last:
                    finish(total + found.value, clashes[last] | after[0], position + 1 if twin else 0)
                else:
                    later = clashes[: i + 1] + tuple(c | d for c, d in zip(clashes[i + 1 :], after))
                    branch(i + 1, total + found.value, later, position + 1 if twin else 0)
                chosen.pop()
            if total + rest > answer.total:
                chosen.append(None)
                branch(i + 1, total, clashes, len(pool) if twin else 0)
                chosen.pop()

        branch(0, _value(first), mark, 0)  # type: ignore[arg-type]


def _users(pool: list[Found]) -> dict[int, int]:
    """For each track bit, the routes of ``pool`` (as bits over positions) that use it."""
    index: dict[int, int] = {}
    for position, found in enumerate(pool):
        for low in _lows(found.mask):
            index[low] = index.get(low, 0) | 1 << position
    return index


class _Optimizer:
    """The company's best set of routes: one per train, no track shared (8.8.1).

    Trains go in order of their best route alone. The best answer for a set of trains
    is found from the best answers for the set less one train (``_best``, remembered
    per set, so trains of one type share the work):

    1. Less train i, the others earn at most ``without[i]``; so no answer earns more
       than the least of (train i alone + ``without[i]``).
    2. A first answer to beat comes from the answers less one train (``_first_answer``).
    3. A better answer needs each train i to earn more than that answer less
       ``without[i]``. Every train but the first lists each route that does
       (``_TrainSearch.pool``); the first train's routes are searched with a bar that
       rises as their track takes away the other trains' best listed routes
       (``_Pools``), and each route found is completed by branch and bound over the
       lists, trains of one type taking routes in list order so no answer is tried
       twice.
    """

    def __init__(self, scope: Scope, trains: list[Train]) -> None:
        board = scope.ctx.board
        self.scope = scope
        self.incumbent: dict[tuple[str, ...], _Answer] = {}
        self.searches = {t.name: _TrainSearch(scope, board.train(t.name)) for t in trains}
        alone = {name: search.best(0) for name, search in self.searches.items()}
        self.trains = sorted(trains, key=lambda t: (-_value(alone[t.name]), t.name))
        self.memo: dict[tuple[str, ...], _Answer] = {
            (name,): _Answer(_value(found), [found]) for name, found in alone.items()
        }

    def solve(self) -> list[tuple[Train, Found]]:
        answer = self._best(tuple(t.name for t in self.trains))
        return [(t, f) for t, f in zip(self.trains, answer.routes) if f is not None]

    def _best(self, names: tuple[str, ...]) -> _Answer:
        if names not in self.memo:
            self.memo[names] = self._solve(names)
        return self.memo[names]

    def _solve(self, names: tuple[str, ...]) -> _Answer:
        without = [self._best(names[:i] + names[i + 1 :]).total for i in range(len(names))]
        ceiling = min(self.memo[(name,)].total + w for name, w in zip(names, without))
        answer = self._first_answer(names)
        self.incumbent[names] = answer  # the best so far, should the search run out of steps
        if answer.total >= ceiling:
            return answer
        lists: dict[str, list[Found]] = {}
        for name, others in zip(names[1:], without[1:]):
            if name not in lists:
                lists[name] = self.searches[name].pool(answer.total - others)
        later_best = [self._best(names[i:]).total for i in range(1, len(names))]
        pools = [lists[name] for name in names[1:]]
        self.scope.tick_many(sum(len(pool) for pool in pools) * len(pools))  # building the clash tables
        bar = _Pools(answer, names[1:], pools, later_best, self.scope.tick)
        self.searches[names[0]].run(0, bar, bar.complete)
        bar.complete(None, bar.start())
        return answer

    def _first_answer(self, names: tuple[str, ...]) -> _Answer:
        """A good answer to beat: for each train, the best answer without it plus its
        best route on the track left; then each train in turn re-routed on the track the
        others leave, while that helps."""
        best: _Answer | None = None
        for i in range(len(names)):
            base = self._best(names[:i] + names[i + 1 :])
            routes = base.routes[:i] + [self._best_on(names[i], base.routes)] + base.routes[i:]
            answer = _Answer(sum(_value(f) for f in routes), routes)
            if best is None or answer.total > best.total:
                best = answer
        assert best is not None
        improved = True
        while improved:
            improved = False
            for i, name in enumerate(names):
                found = self._best_on(name, best.routes[:i] + best.routes[i + 1 :])
                if _value(found) > _value(best.routes[i]):
                    best.total += _value(found) - _value(best.routes[i])
                    best.routes[i] = found
                    improved = True
        return best

    def _best_on(self, name: str, others: list[Found | None]) -> Found | None:
        """The best route of a ``name`` train on the track ``others`` leave."""
        used = 0
        for found in others:
            if found is not None:
                used |= found.mask
        return self.searches[name].best(used)


def _value(found: Found | None) -> int:
    return found.value if found is not None else 0


def _lows(mask: int) -> Iterable[int]:
    """The single-bit parts of ``mask``."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


SOLVED_KEPT = 16
"""Positions whose best routes are remembered (see :func:`best_routes`)."""

_SOLVED: BoundedCache[tuple[object, ...], list[RouteResult]] = BoundedCache(SOLVED_KEPT)


def best_routes(
    ctx: Context, state: GameState, company: Company, quick_steps: int | None = None, *, remember: bool = True
) -> list[RouteResult]:
    """The routes that earn ``company`` the most this turn, one per train that can run,
    in the company's train order. Exact: the total is proven to be the maximum.

    Solved once per position: asked again for an equal state (the bot's ``run``, then a
    consent or a retry) the answer is remembered, unless ``remember`` is off (a benchmark).
    """
    if quick_steps is not None or not remember or state.companies.get(company.sym) is not company:
        return _solve(ctx, state, company, quick_steps)
    key = (id(ctx.board), ctx.rules, company.sym, state.saved())
    known = _SOLVED.get(key)
    if known is None:
        known = _solve(ctx, state, company, None)
        _SOLVED.put(key, known)
    return list(known)


def _solve(ctx: Context, state: GameState, company: Company, quick_steps: int | None) -> list[RouteResult]:
    """The search behind :func:`best_routes`.

    For up to :data:`SEARCH_TRAINS` trains, the search over trains
    (:class:`_Optimizer`) runs first: quickest for a few big trains on a dense map.
    Past ``quick_steps`` of its work (:data:`QUICK_STEPS` unless given), or with more
    trains (a national railway), the integer program decides
    (:func:`_by_integer_program`). Counting steps, not seconds, keeps the routes the
    same on every machine.
    """
    trains = [t for t in company.trains if not t.operated]
    scope = Scope(ctx, state, company)
    if not trains or not scope.tokens:
        return []
    if quick_steps is None:
        quick_steps = QUICK_STEPS if len(trains) <= SEARCH_TRAINS else 0
    optimizer = _Optimizer(scope, trains)
    scope.budget = quick_steps
    try:
        picked = optimizer.solve()
    except OutOfSteps:
        scope.budget = None
        picked = _by_integer_program(optimizer)
    return _results(scope, trains, picked)


def bounded_income(ctx: Context, state: GameState, company: Company, steps: int) -> tuple[int | None, int]:
    """What ``company``'s trains earn on their best routes, if the search over trains
    proves it within ``steps`` of work; else None (no integer program is tried). Also
    the work done, so a caller can share one budget among many searches: counted in
    search steps, not seconds, the answer is the same on every machine.

    A search is made once per position (:func:`routes_key`) and budget: asked again,
    the answer and the work it counted are what the search would give again (the
    search is a function of the position; how far it got says where a smaller budget
    would have run out)."""
    trains = [t for t in company.trains if not t.operated]
    if not trains or not company.placed_tokens:
        return 0, 0
    key = (id(ctx.board), routes_key(state, company, trains))
    known = _SEARCHED.get(key)
    answer = known.within(steps) if known is not None and known.board is ctx.board else None
    if answer is not None:
        return answer
    scope = Scope(ctx, state, company)
    if not scope.tokens:
        return 0, 0
    scope.budget = steps
    try:
        picked = _Optimizer(scope, trains).solve()
    except OutOfSteps:
        _SEARCHED.put(key, _Searched(ctx.board, None, steps, scope.lumps))
        return None, scope.steps
    income = sum(r.revenue for r in _results(scope, trains, picked))
    _SEARCHED.put(key, _Searched(ctx.board, income, scope.steps, scope.lumps))
    return income, scope.steps


def best_income(ctx: Context, state: GameState, company: Company) -> int:
    """What ``company``'s trains that have not run earn on their best routes
    (:func:`best_routes`), remembered by all the search reads of the position
    (:func:`routes_key`): the answer is proven best, so the same whenever asked."""
    trains = [t for t in company.trains if not t.operated]
    if not trains or not company.placed_tokens:
        return 0
    key = (id(ctx.board), routes_key(state, company, trains))
    known = _INCOMES.get(key)
    if known is not None and known[0] is ctx.board:
        return known[1]
    income = sum(r.revenue for r in _solve(ctx, state, company, None))
    _INCOMES.put(key, (ctx.board, income))
    return income


def routes_key(state: GameState, company: Company, trains: list[Train]) -> tuple[object, ...]:
    """All the route search reads of a position for ``company``'s ``trains`` (besides
    the board): the laid tiles, the tokens, the phase (off-board values), the company's
    token order, its bonus privates and the trains in order."""
    board = state.map
    return (
        company.sym,
        state.phase,
        tuple(t.name for t in trains),
        tuple((t.hex, t.city) for t in company.placed_tokens),
        tuple(p for p in company.privates if p not in state.closed_privates),
        frozenset((hex_id, placed.tile, placed.rotation) for hex_id, placed in board.tiles.items()),
        frozenset((city, tuple(held)) for city, held in board.tokens.items()),
    )


@dataclass
class _Searched:
    """A bounded search made: its income (None: out of steps), the budget it had (all
    it counted, if it finished) and its lumps of work (:meth:`Scope.tick_many`)."""

    board: object
    income: int | None
    budget: int
    lumps: list[tuple[int, int]]

    def within(self, steps: int) -> tuple[int | None, int] | None:
        """What :func:`bounded_income` gives with ``steps`` allowed; None if unknown (a
        search that ran out of a smaller budget than ``steps``)."""
        if self.income is not None and self.budget <= steps:
            return self.income, self.budget
        if steps > self.budget:
            return None
        for before, lump in self.lumps:  # out of steps: where the count first passes ``steps``
            if before <= steps < before + lump:
                return None, before + lump
        return None, steps + 1


SEARCHED_KEPT = 1024
"""Bounded searches remembered (see :func:`bounded_income`), and incomes (:func:`best_income`)."""

_SEARCHED: BoundedCache[tuple[object, ...], _Searched] = BoundedCache(SEARCHED_KEPT)
_INCOMES: BoundedCache[tuple[object, ...], tuple[object, int]] = BoundedCache(SEARCHED_KEPT)  # see best_income


def _by_integer_program(optimizer: _Optimizer) -> list[tuple[Train, Found]]:
    """The best routes as a set packing (:mod:`engine.packing`): each route an item
    using its track, of its train's type.

    The answer to beat is the best one the search found, improved train by train. A
    better answer needs each train's route to earn more than that answer less what
    the other trains earn on their best routes alone: those routes are the items, and
    the program's relaxation over them caps every answer (the border crossings around
    each hex and each two neighbouring hexes tighten it, :func:`_hex_borders`); the
    best packing of the routes in the relaxation's answer may beat the search's. Every
    total is a multiple of ``step``. The goal starts near the cap and comes down: the best answer that could
    reach a goal either does (it is the best) or shows that none does (the cap comes
    down below the goal), until no answer can beat the best one found by ``step``.
    The higher the goal, the fewer routes take part and the quicker the program. The
    first goal is the lowest that lets in at most :data:`FIRST_GOAL_ITEMS` routes (the
    answer to beat is often the best already, and this goal proves it); each goal
    after lets in at least :data:`GOAL_GROWTH` times as many routes as the one before,
    so the last program, the one that decides, does most of the work.
    """
    from .packing import (  # HiGHS and numpy load only when a program is needed
        Item,
        Packing,
    )

    trains = optimizer.trains
    names = [t.name for t in trains]
    limits = dict(Counter(names))
    best = [(t.name, found) for t, found in _improve_in_turn(optimizer)]
    alone = {name: optimizer.memo[(name,)].total for name in limits}
    if not any(alone.values()):
        return []  # no train has a route that earns anything: nothing to pack
    others = {name: sum(alone[n] for n in names) - alone[name] for name in limits}
    routes = [
        (name, found)
        for name in limits
        for found in optimizer.searches[name].pool(_total(best) - others[name])
    ]
    items = [Item(found.value, found.mask, name) for name, found in routes]
    packing = Packing(items, limits, _hex_borders(optimizer.scope.graph))
    found = [routes[i] for i in packing.found]
    if _total(found) > _total(best):
        best = found
    step = math.gcd(*(found.value for _name, found in routes + best))
    ceiling = step * math.floor(packing.bound / step)
    size = 0
    while _total(best) + step <= ceiling:
        goal, lowest = ceiling, _total(best) + step
        if not size:  # the first goal: as low as FIRST_GOAL_ITEMS routes allow
            while goal - step >= lowest and packing.size(goal - step) <= FIRST_GOAL_ITEMS:
                goal -= step
        while goal - step >= lowest and packing.size(goal) < GOAL_GROWTH * size:
            goal -= step
        size = packing.size(goal)
        answer = [routes[i] for i in packing.best(goal)]
        if _total(answer) > _total(best):
            best = answer
        if _total(answer) >= goal:
            break
        ceiling = goal - step
    picked: list[tuple[Train, Found]] = []
    for name in limits:
        mine = sorted((found for n, found in best if n == name), key=lambda f: -f.value)
        picked += zip((t for t in trains if t.name == name), mine)
    return picked


def _hex_borders(graph: TrackGraph) -> list[int]:
    """The border crossings around each hex with track, and around each two neighbouring
    hexes: a route passing through uses two of them, so where their number is odd the
    integer program's relaxation can be tightened (see :mod:`engine.packing`)."""
    _, crossed = graph.packed_masks()  # the search's bits
    around: dict[str, int] = {}
    for bit, (a, b) in enumerate(crossed):
        if a != b:
            around[a] = around.get(a, 0) | 1 << bit
            around[b] = around.get(b, 0) | 1 << bit
    pairs = [around[a] ^ around[b] for a, b in crossed if a != b]  # less the border between
    return list(around.values()) + pairs


def _total(routes: list[tuple[str, Found]]) -> int:
    return sum(found.value for _name, found in routes)


def _improve_in_turn(optimizer: _Optimizer) -> list[tuple[Train, Found]]:
    """A good answer: from the best answer the search found (for some of the trains),
    each train takes its best route on the track the others leave, in turn, until
    none improves."""
    names = [t.name for t in optimizer.trains]
    known = {**optimizer.memo, **optimizer.incumbent}  # answers for sets of these trains
    subset = max(known, key=lambda key: known[key].total)
    routes: list[Found | None] = [None] * len(names)
    j = 0
    for i, name in enumerate(names):  # each answered set is ``names`` with some left out
        if j < len(subset) and subset[j] == name:
            routes[i] = known[subset].routes[j]
            j += 1
    improved = True
    while improved:
        improved = False
        for i, name in enumerate(names):
            found = optimizer._best_on(name, routes[:i] + routes[i + 1 :])
            if _value(found) > _value(routes[i]):
                routes[i] = found
                improved = True
    return [(t, f) for t, f in zip(optimizer.trains, routes) if f is not None]


def _results(scope: Scope, trains: list[Train], picked: list[tuple[Train, Found]]) -> list[RouteResult]:
    ctx = scope.ctx
    chosen = {t.id: f for t, f in picked}
    results = []
    for train in trains:
        found = chosen.get(train.id)
        if found is not None:
            counted = scope.pricing(ctx.board.train(train.name)).count(found.nodes)
            assert counted is not None
            results.append(route_result(scope, train.id, found.value, counted[1], found.nodes, found.segments))
    return results
