"""Train routes (rulebook 8.8): check the routes a player gives, and find the best ones.

A route is a chain of revenue nodes joined by track segments (see
:mod:`engine.graph`); a player writes it as legs, one hex chain per segment, as
18xx.games does (RULES-NOTES 12.5). Every node on a route is visited; which visited
nodes earn ("are counted") depends on the train:

* an N-train must count every city and off-board it visits, so it may visit at
  most N of them, and fills any spare capacity with its best towns (8.8.1);
* a 2+2 is a 2-train whose counted values are doubled (8.8.3);
* a 5+5E may skip cities; it counts every off-board it visits plus its best other
  stops up to 5, one of them a city with the company's token, doubled (8.8.3,
  RULES-NOTES 11.16).

Bonuses (8.8.2, RULES-NOTES 7.5): each private the company owns adds its bonus once
per counted stop in its hexes, never multiplied; Ekaterinburg counted with Moscow
adds Ekaterinburg's value again, times the train's multiplier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .actions import Route
from .board import TrainDef
from .errors import IllegalAction
from .graph import (
    NodeRef,
    TrackGraph,
    blocked_nodes,
    passable_nodes,
    token_nodes,
    track_graph,
)
from .state import Company, Context, GameState, Train

EXPRESS_STOPS = 5
"""How many stops a 5+5E counts."""


@dataclass(frozen=True)
class RouteResult:
    """One train's route: the stops visited in route order, the legs walked between
    consecutive stops, the revenue with bonuses, and the stops that earn it."""

    train: str
    stops: tuple[NodeRef, ...]
    legs: tuple[tuple[str, ...], ...]
    revenue: int
    counted: tuple[NodeRef, ...] = ()


def to_route(result: RouteResult) -> Route:
    """The route as an action stores it (train id and legs)."""
    return Route(result.train, result.legs)


def route_text(result: RouteResult) -> str:
    """Short display form: the stop hexes joined by dashes, e.g. ``H8-G5-E1``."""
    return "-".join(hex_id for hex_id, _ in result.stops)


@dataclass(frozen=True)
class _Found:
    """A route found by the search: revenue, track bits, nodes and segments in order."""

    value: int
    mask: int
    nodes: tuple[int, ...]
    segments: tuple[int, ...]


class _Scope:
    """What routes depend on for one company's run: track, values, tokens, blocking."""

    def __init__(self, ctx: Context, state: GameState, company: Company) -> None:
        board = ctx.board
        graph = track_graph(ctx, state)
        self.ctx = ctx
        self.graph = graph
        self.company = company
        color = ctx.phase_color(state)
        self.value = [d.value(color) for d in graph.defs]
        self.bonus = [0] * len(graph.nodes)
        for sym in company.privates:
            if sym in state.closed_privates:
                continue
            private = board.private(sym)
            for node, (hex_id, _) in enumerate(graph.nodes):
                if hex_id in private.bonus_hexes:
                    self.bonus[node] += private.bonus
        self.blocked = blocked_nodes(state, graph, [company.sym])
        self.passable = passable_nodes(graph, self.blocked)
        self.tokens = token_nodes(state, graph, company.sym)
        self.token_mask = _mask(self.tokens)
        hex_index: dict[str, int] = {}
        group_index: dict[str, int] = {}
        self.hex_bit: list[int] = []
        self.group_bit: list[int] = []
        self.offboards = 0
        self.cities = 0
        for node, ((hex_id, _), d) in enumerate(zip(graph.nodes, graph.defs)):
            self.hex_bit.append(1 << hex_index.setdefault(hex_id, len(hex_index)))
            bits = 0
            for group in d.groups:
                bits |= 1 << group_index.setdefault(group, len(group_index))
            self.group_bit.append(bits)
            if d.kind == "offboard":
                self.offboards |= 1 << node
            elif d.kind == "city":
                self.cities |= 1 << node
        self.capitals = _mask(n for n, (h, _) in enumerate(graph.nodes) if h in board.bonus_capitals)
        self.bonus_city = _mask(
            n for n, (h, _) in enumerate(graph.nodes) if h == board.bonus_revenue_hex
        )
        self.reach = self._reach()
        self._pricing: dict[str, _Pricing] = {}

    def _reach(self) -> int:
        """Nodes reachable from the tokens along unblocked track, repeats allowed: a
        superset of the nodes any route can visit."""
        graph = self.graph
        seen = self.token_mask
        stack = list(self.tokens)
        while stack:
            node = stack.pop()
            for s in graph.adjacent[node]:
                seg = graph.segments[s]
                other = seg.a ^ seg.b ^ node
                if not seen >> other & 1:
                    seen |= 1 << other
                    if self.passable >> other & 1:
                        stack.append(other)
        return seen

    def pricing(self, train: TrainDef) -> "_Pricing":
        """How ``train`` counts stops on this company's routes (cached per train type)."""
        if train.name not in self._pricing:
            self._pricing[train.name] = _Pricing(self, train)
        return self._pricing[train.name]

    def describe(self, node: int) -> str:
        """A node as a player reads it: ``Moscow (H8)``."""
        hex_id, index = self.graph.nodes[node]
        name = self.ctx.board.location_names.get(hex_id, "").split(" (")[0]
        label = f"{name} ({hex_id})" if name else hex_id
        if sum(1 for h, _ in self.graph.nodes if h == hex_id) > 1:
            label += f" city {index + 1}"
        return label

    def describe_bit(self, bit: int) -> str:
        a, b = self.graph.bit_hexes[bit.bit_length() - 1]
        return f"the track between {a} and {b}" if a != b else f"the track inside {a}"


class _Pricing:
    """How one train type counts the stops of a route (8.8.1-8.8.3) for one company."""

    def __init__(self, scope: _Scope, train: TrainDef) -> None:
        self.scope = scope
        self.train = train
        self.limit = EXPRESS_STOPS if train.express else train.pay
        # Nodes counted whenever visited: all cities and off-boards, or a 5+5E's off-boards.
        self.mandatory = scope.offboards if train.express else scope.cities | scope.offboards
        self.worth = [v * train.multiplier + b for v, b in zip(scope.value, scope.bonus)]
        self.pair = [v * train.multiplier if scope.bonus_city >> n & 1 else 0 for n, v in enumerate(scope.value)]
        # Upper-bound worth: Ekaterinburg may also earn the pair bonus.
        self.worth_ub = [w + p if scope.capitals else w for w, p in zip(self.worth, self.pair)]

    def pair_bonus(self, counted: int) -> int:
        """Ekaterinburg counted with Moscow: its value again, times the multiplier (8.8.2)."""
        scope = self.scope
        if counted & scope.capitals and counted & scope.bonus_city:
            return self.pair[_lowest(counted & scope.bonus_city)]
        return 0

    def count(self, nodes: Sequence[int]) -> tuple[int, int] | None:
        """The best revenue of a route visiting ``nodes`` and the mask of the stops that
        earn it, or None if it visits too many cities or off-boards for the train or
        cannot count a city with the company's token."""
        scope = self.scope
        worth = self.worth
        must = 0
        base_value = 0
        musts = 0
        optional: list[int] = []
        for n in nodes:
            if self.mandatory >> n & 1:
                must |= 1 << n
                base_value += worth[n]
                musts += 1
            else:
                optional.append(n)
        room = self.limit - musts
        if room < 0:
            return None
        optional.sort(key=worth.__getitem__, reverse=True)
        visited = must | _mask(optional)
        pair_open = visited & scope.capitals and visited & scope.bonus_city and not (
            must & scope.capitals and must & scope.bonus_city
        )
        counted = must | _mask(optional[:room])
        if counted & scope.token_mask and not pair_open:
            return base_value + sum(worth[n] for n in optional[:room]) + self.pair_bonus(counted), counted
        return self._count_forced(must, base_value, optional, room, visited)

    def _count_forced(
        self, must: int, base_value: int, optional: list[int], room: int, visited: int
    ) -> tuple[int, int] | None:
        """Counting when a token city or the Moscow-Ekaterinburg pair must be picked
        among the optional stops: try each such choice, fill up with the best others."""
        scope = self.scope
        forced_options: list[list[int]] = [[]]
        if visited & scope.capitals and visited & scope.bonus_city:
            pair = [_lowest(visited & scope.capitals), _lowest(visited & scope.bonus_city)]
            forced_options.append([n for n in pair if not must >> n & 1])
        token_options: list[int | None] = [None]
        if not must & scope.token_mask:
            token_options = [n for n in optional if scope.token_mask >> n & 1]
        best: tuple[int, int] | None = None
        for forced in forced_options:
            for token in token_options:
                chosen = forced if token is None or token in forced else forced + [token]
                if len(chosen) > room:
                    continue
                rest = [n for n in optional if n not in chosen][: room - len(chosen)]
                counted = must | _mask(chosen) | _mask(rest)
                value = base_value + sum(self.worth[n] for n in chosen + rest)
                value += self.pair_bonus(counted)
                if best is None or value > best[0]:
                    best = (value, counted)
        return best


def _mask(nodes: Iterable[int]) -> int:
    bits = 0
    for n in nodes:
        bits |= 1 << n
    return bits


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


# --------------------------------------------------------------------------- checking


def check_routes(
    ctx: Context, state: GameState, company: Company, routes: Sequence[Route]
) -> list[RouteResult]:
    """Check the routes a company runs this turn (8.8.1) and price them (8.8.2).

    Each route names one of the company's trains that has not run yet, and its legs
    (hex chains between consecutive stops, either direction). Raises
    :class:`IllegalAction` naming the train and the broken rule.
    """
    scope = _Scope(ctx, state, company)
    used = 0
    used_by: dict[int, str] = {}
    trains_done: set[str] = set()
    results: list[RouteResult] = []
    for route in routes:
        train = _runnable_train(company, route.train, trains_done)
        trains_done.add(train.id)
        train_def = ctx.board.train(train.name)
        result, mask = _check_route(scope, train, train_def, route.legs, used, used_by)
        for bit_index in range(mask.bit_length()):
            if mask >> bit_index & 1:
                used_by[bit_index] = train.id
        used |= mask
        results.append(result)
    return results


def _runnable_train(company: Company, train_id: str, done: set[str]) -> Train:
    """The train a route names: the company's own, not yet run, used once (8.8)."""
    train = next((t for t in company.trains if t.id == train_id), None)
    if train is None:
        raise IllegalAction(f"{company.sym} has no train {train_id}")
    if train.operated:
        raise IllegalAction(f"train {train_id} has already run this operating round")
    if train_id in done:
        raise IllegalAction(f"train {train_id} is given more than one route")
    return train


def _check_route(
    scope: _Scope,
    train: Train,
    train_def: TrainDef,
    legs: Sequence[Sequence[str]],
    used: int,
    used_by: dict[int, str],
) -> tuple[RouteResult, int]:
    if not legs:
        raise IllegalAction(f"train {train.id}: a route needs at least two revenue centres")
    matches = [_leg_segments(scope, train.id, tuple(leg)) for leg in legs]
    readings = _chain(scope.graph, matches, legs[0][0])
    if not readings:
        raise IllegalAction(
            f"train {train.id}: consecutive legs of the route must meet at a revenue centre"
        )
    error: IllegalAction | None = None
    best: tuple[RouteResult, int] | None = None
    for nodes, segments in readings:
        try:
            value, counted, mask = _judge(scope, train, train_def, nodes, segments, used, used_by)
        except IllegalAction as exc:
            error = error or exc
            continue
        if best is None or value > best[0].revenue:
            best = (_result(scope, train.id, value, counted, nodes, segments), mask)
    if best is None:
        assert error is not None
        raise error
    return best


def _leg_segments(scope: _Scope, train_id: str, leg: tuple[str, ...]) -> list[int]:
    """The track segments a leg can stand for; explains the problem if there is none."""
    if len(leg) < 2:
        raise IllegalAction(f"train {train_id}: each leg must name at least two hexes, got {list(leg)}")
    found = scope.graph.segments_along(leg)
    if found:
        return found
    board = scope.ctx.board
    for a, b in zip(leg, leg[1:]):
        if a not in board.hexes or b not in board.hexes:
            raise IllegalAction(f"train {train_id}: {a if a not in board.hexes else b} is not on the map")
        if b not in board.neighbours[a].values():
            raise IllegalAction(f"train {train_id}: {a} and {b} are not neighbouring hexes")
    for a, b in zip(leg, leg[1:]):
        edge = next(e for e, h in board.neighbours[a].items() if h == b)
        end = scope.graph.end_ids.get((a, edge))
        if end is None or scope.graph.crossing[end] is None:
            raise IllegalAction(f"train {train_id}: no track joins {a} and {b}")
    raise IllegalAction(
        f"train {train_id}: no track runs from a revenue centre in {leg[0]} "
        f"through {', '.join(leg[1:-1]) or 'no other hex'} to one in {leg[-1]} "
        "without passing a revenue centre on the way"
    )


def _chain(
    graph: TrackGraph, matches: list[list[int]], first_hex: str
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every way to read the legs as one chain of nodes, consecutive legs sharing a node
    (a one-leg route is read from ``first_hex``, where its leg starts)."""
    readings: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def extend(nodes: list[int], segments: list[int]) -> None:
        i = len(segments)
        if i == len(matches):
            readings.append((tuple(nodes), tuple(segments)))
            return
        for s in matches[i]:
            seg = graph.segments[s]
            for here, there in ((seg.a, seg.b), (seg.b, seg.a)):
                if here == nodes[-1]:
                    extend(nodes + [there], segments + [s])

    for s in matches[0]:
        seg = graph.segments[s]
        for start, end in ((seg.a, seg.b), (seg.b, seg.a)):
            if len(matches) > 1 or graph.nodes[start][0] == first_hex:
                extend([start, end], [s])
    return readings


def _judge(
    scope: _Scope,
    train: Train,
    train_def: TrainDef,
    nodes: tuple[int, ...],
    segments: tuple[int, ...],
    used: int,
    used_by: dict[int, str],
) -> tuple[int, int, int]:
    """Apply 8.8.1 to one reading of a route: (revenue, counted mask, track mask)."""
    _check_stops(scope, train.id, nodes)
    mask = _check_track(scope, train.id, segments, used, used_by)
    pricing = scope.pricing(train_def)
    if not train_def.express:
        must = [n for n in nodes if pricing.mandatory >> n & 1]
        if len(must) > train_def.pay:
            names = ", ".join(scope.describe(n) for n in must)
            raise IllegalAction(
                f"train {train.id}: a {train_def.name}-train counts at most {train_def.pay} "
                f"cities and off-boards and may not skip any; this route visits {len(must)}: {names}"
            )
    if not _mask(nodes) & scope.token_mask:
        raise IllegalAction(
            f"train {train.id}: the route must include a city with a {scope.company.sym} token"
        )
    counted = pricing.count(nodes)
    if counted is None:
        raise IllegalAction(
            f"train {train.id}: the route must count a city with a {scope.company.sym} token"
        )
    return counted[0], counted[1], mask


def _check_stops(scope: _Scope, train_id: str, nodes: tuple[int, ...]) -> None:
    """Stop rules of 8.8.1: each node and hex once, one hex per off-board area, off-boards
    and blocked cities only at the ends."""
    hexes: dict[str, int] = {}
    groups: dict[str, int] = {}
    for i, node in enumerate(nodes):
        if node in nodes[:i]:
            raise IllegalAction(f"train {train_id}: the route visits {scope.describe(node)} twice")
        hex_id = scope.graph.nodes[node][0]
        if hex_id in hexes:
            raise IllegalAction(f"train {train_id}: the route stops twice in {hex_id}")
        hexes[hex_id] = node
        for group in scope.graph.defs[node].groups:
            if group in groups:
                raise IllegalAction(
                    f"train {train_id}: the route may reach {group} only once "
                    f"({scope.describe(groups[group])} and {scope.describe(node)})"
                )
            groups[group] = node
        interior = 0 < i < len(nodes) - 1
        if interior and scope.offboards >> node & 1:
            raise IllegalAction(
                f"train {train_id}: {scope.describe(node)} is an off-board area; "
                "a route may only start or end there"
            )
        if interior and scope.blocked >> node & 1:
            raise IllegalAction(
                f"train {train_id}: {scope.describe(node)} is full of other companies' tokens; "
                "a route may only start or end there"
            )


def _check_track(
    scope: _Scope, train_id: str, segments: tuple[int, ...], used: int, used_by: dict[int, str]
) -> int:
    """No track or border crossing used twice this turn (8.8.1); returns the route's track."""
    mask = 0
    for s in segments:
        seg_mask = scope.graph.segments[s].mask
        if seg_mask & mask:
            where = scope.describe_bit(seg_mask & mask & -(seg_mask & mask))
            raise IllegalAction(f"train {train_id}: the route uses {where} twice")
        if seg_mask & used:
            clash = seg_mask & used & -(seg_mask & used)
            other = used_by[clash.bit_length() - 1]
            raise IllegalAction(
                f"train {train_id}: {scope.describe_bit(clash)} is already used by train {other}"
            )
        mask |= seg_mask
    return mask


def _result(
    scope: _Scope,
    train_id: str,
    value: int,
    counted: int,
    nodes: tuple[int, ...],
    segments: tuple[int, ...],
) -> RouteResult:
    graph = scope.graph
    legs = []
    for here, s in zip(nodes, segments):
        seg = graph.segments[s]
        legs.append(seg.hexes if seg.a == here else seg.hexes[::-1])
    return RouteResult(
        train=train_id,
        stops=tuple(graph.nodes[n] for n in nodes),
        legs=tuple(legs),
        revenue=value,
        counted=tuple(graph.nodes[n] for n in nodes if counted >> n & 1),
    )


# --------------------------------------------------------------------------- searching


class _TrainSearch:
    """Depth-first enumeration of one train's legal routes, cut by revenue bounds.

    Every route holds a city with the company's token; it is grown from the first
    such city in token order (earlier token cities are barred), first along one arm
    and then, optionally, along a second arm from that city. The second arm's first
    segment must have a higher index than the first arm's, so each route is made
    once. A route whose end stop would not be counted is not reported: the route
    without that end earns the same on less track.
    """

    def __init__(self, scope: _Scope, train: TrainDef) -> None:
        self.scope = scope
        self.pricing = scope.pricing(train)
        self.express = train.express
        worth_ub = self.pricing.worth_ub
        self.order_ub = sorted(range(len(worth_ub)), key=lambda n: -worth_ub[n])
        graph = scope.graph
        self.adjacent = [
            sorted(
                (
                    (s, graph.segments[s].a ^ graph.segments[s].b ^ node, graph.segments[s].mask)
                    for s in graph.adjacent[node]
                ),
                key=lambda t: -worth_ub[t[1]],
            )
            for node in range(len(graph.nodes))
        ]

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

    def frontier(self, starts: list[int], visited: int, hexes: int, groups: int, used: int) -> int:
        """Nodes a route could still add from ``starts`` on unused track (relaxed: the
        walks to them may share track with each other)."""
        scope = self.scope
        hex_bit = scope.hex_bit
        group_bit = scope.group_bit
        passable = scope.passable
        adjacent = self.adjacent
        found = 0
        seen = visited
        stack = starts
        while stack:
            node = stack.pop()
            for _s, other, seg_mask in adjacent[node]:
                bit = 1 << other
                if used & seg_mask or seen & bit:
                    continue
                seen |= bit
                if hexes & hex_bit[other] or groups & group_bit[other]:
                    continue
                found |= bit
                if passable & bit:
                    stack.append(other)
        return found

    def run(self, used0: int, need: Callable[[], int], emit: Callable[[_Found], None]) -> None:
        """Call ``emit`` with each legal route on track other than ``used0`` that earns
        more than ``need()``; branches whose upper bound is not above ``need()`` are cut."""
        scope = self.scope
        pricing = self.pricing
        hex_bit = scope.hex_bit
        group_bit = scope.group_bit
        passable = scope.passable
        mandatory = pricing.mandatory
        worth_ub = pricing.worth_ub
        adjacent = self.adjacent
        limit = pricing.limit
        capped = not self.express  # only N-trains limit the cities they visit
        arm1: list[int] = []
        segs1: list[int] = []
        arm2: list[int] = []
        segs2: list[int] = []

        def report(t0: int, used: int) -> None:
            nodes = arm1[::-1] + [t0] + arm2
            counted = pricing.count(nodes)
            if counted is None:
                return
            value, counted_mask = counted
            if value > need() and counted_mask >> nodes[0] & 1 and counted_mask >> nodes[-1] & 1:
                emit(_Found(value, used & ~used0, tuple(nodes), tuple(segs1[::-1] + segs2)))

        def step(
            t0: int, head: int, phase: int, visited: int, hexes: int, groups: int, used: int,
            musts: int, must_ub: int, banned: int,
        ) -> None:
            if arm1:
                report(t0, used)
            room = limit - musts
            threshold = need()
            if must_ub + self.top(scope.reach, room) <= threshold:
                return
            starts = [head] if passable >> head & 1 else []
            if phase == 1 and arm1:
                starts.append(t0)
            ahead = self.frontier(starts, visited, hexes, groups, used)
            if must_ub + self.top(ahead | visited & ~banned & ~mandatory, room) <= threshold:
                return
            state = (visited, hexes, groups, used, musts, must_ub)
            if passable >> head & 1:
                grow(t0, head, phase, -1, state, banned)
            if phase == 1 and arm1:
                grow(t0, t0, 2, segs1[0], state, banned)

        def grow(
            t0: int, head: int, phase: int, after: int,
            state: tuple[int, int, int, int, int, int], banned: int,
        ) -> None:
            visited, hexes, groups, used, musts, must_ub = state
            arm, segs = (arm1, segs1) if phase == 1 else (arm2, segs2)
            for s, other, seg_mask in adjacent[head]:
                bit = 1 << other
                if s <= after or used & seg_mask or visited & bit:
                    continue
                if hexes & hex_bit[other] or groups & group_bit[other]:
                    continue
                is_must = mandatory >> other & 1
                if is_must and capped and musts >= limit:
                    continue
                arm.append(other)
                segs.append(s)
                step(
                    t0, other, phase, visited | bit, hexes | hex_bit[other],
                    groups | group_bit[other], used | seg_mask, musts + is_must,
                    must_ub + (worth_ub[other] if is_must else 0), banned,
                )
                arm.pop()
                segs.pop()

        banned = 0
        for t0 in scope.tokens:
            is_must = mandatory >> t0 & 1
            step(
                t0, t0, 1, banned | 1 << t0, hex_bit[t0], group_bit[t0], used0,
                is_must, worth_ub[t0] if is_must else 0, banned,
            )
            banned |= 1 << t0

    def best(self, used: int) -> _Found | None:
        """The train's best route on track other than ``used``."""
        found: list[_Found] = []
        self.run(used, lambda: found[-1].value if found else 0, found.append)
        return found[-1] if found else None

    def pool(self, threshold: int) -> list[_Found]:
        """Every route (ends counted) earning more than ``threshold``, best first."""
        found: list[_Found] = []
        self.run(0, lambda: threshold, found.append)
        found.sort(key=lambda f: -f.value)
        return found


class _Optimizer:
    """The company's best set of routes: one per train, no track shared (8.8.1).

    1. Each train's best route alone bounds what it can add; the sum of these
       bounds, ``ceiling``, bounds any answer.
    2. Greedily, each train in turn takes its best route on the track left: a first
       answer to beat.
    3. With a margin ``slack``, each train type lists every route earning more than
       its bound minus ``slack`` (``_TrainSearch.pool``), and branch and bound picks
       one route (or none) per train from those lists; trains of one type take
       routes in list order, so no answer is tried twice.
    4. An answer using some route outside the lists earns at most ``ceiling - slack``;
       so once the best answer reaches that, it is the maximum. Otherwise the margin
       grows (at least doubling) and step 3 runs again.
    """

    def __init__(self, scope: _Scope, trains: list[Train]) -> None:
        board = scope.ctx.board
        self.searches = {t.name: _TrainSearch(scope, board.train(t.name)) for t in trains}
        self.alone = {name: search.best(0) for name, search in self.searches.items()}
        value = {name: found.value if found else 0 for name, found in self.alone.items()}
        self.trains = sorted(trains, key=lambda t: (-value[t.name], t.name))
        self.bounds = [value[t.name] for t in self.trains]
        self.best_total = 0
        self.best: list[_Found | None] = []
        self.pools: list[list[_Found]] = []

    def solve(self) -> list[tuple[Train, _Found]]:
        self._greedy()
        ceiling = sum(self.bounds)
        slack = (ceiling - self.best_total) // 4
        while len(self.trains) > 1 and self.best_total < ceiling - slack:
            slack = max(min(ceiling - self.best_total, 2 * slack), 10)
            pools = {
                t.name: self.searches[t.name].pool(bound - slack)
                for t, bound in zip(self.trains, self.bounds)
            }
            self.pools = [pools[t.name] for t in self.trains]
            self._combine(0, 0, 0, [], 0)
        return [(t, f) for t, f in zip(self.trains, self.best) if f is not None]

    def _greedy(self) -> None:
        used = 0
        chosen: list[_Found | None] = []
        for train in self.trains:
            search = self.searches[train.name]
            found = self.alone[train.name] if not used else search.best(used)
            chosen.append(found)
            if found is not None:
                used |= found.mask
        self.best = chosen
        self.best_total = sum(f.value for f in chosen if f is not None)

    def _combine(self, i: int, used: int, total: int, chosen: list[_Found | None], start: int) -> None:
        if i == len(self.trains):
            if total > self.best_total:
                self.best_total = total
                self.best = list(chosen)
            return
        pool = self.pools[i]
        rest = sum(p[0].value for p in self.pools[i + 1 :] if p)
        twin = i + 1 < len(self.trains) and self.trains[i + 1].name == self.trains[i].name
        for index in range(start, len(pool)):
            found = pool[index]
            if total + found.value + rest <= self.best_total:
                break
            if found.mask & used:
                continue
            chosen.append(found)
            self._combine(i + 1, used | found.mask, total + found.value, chosen, index + 1 if twin else 0)
            chosen.pop()
        if total + rest > self.best_total:
            chosen.append(None)
            self._combine(i + 1, used, total, chosen, len(pool) if twin else 0)
            chosen.pop()


def best_routes(ctx: Context, state: GameState, company: Company) -> list[RouteResult]:
    """The routes that earn ``company`` the most this turn, one per train that can run,
    in the company's train order (an exhaustive search: the total is the maximum)."""
    trains = [t for t in company.trains if not t.operated]
    scope = _Scope(ctx, state, company)
    if not trains or not scope.tokens:
        return []
    chosen = {t.id: f for t, f in _Optimizer(scope, trains).solve()}
    results = []
    for train in trains:
        found = chosen.get(train.id)
        if found is not None:
            counted = scope.pricing(ctx.board.train(train.name)).count(found.nodes)
            assert counted is not None
            results.append(_result(scope, train.id, found.value, counted[1], found.nodes, found.segments))
    return results
