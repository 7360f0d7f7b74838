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

import math
import pickle
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from weakref import WeakKeyDictionary

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


def stop_values(ctx: Context, state: GameState, company: Company, result: RouteResult) -> list[tuple[str, int]]:
    """What each counted stop of a priced route earns (8.8.2), in route order: its value
    times the train's multiplier, with any private's bonus there; the Ekaterinburg and
    Moscow pair bonus goes to Ekaterinburg. The values add up to the route's revenue."""
    scope = _Scope(ctx, state, company)
    train = next(t for t in company.trains if t.id == result.train)
    pricing = scope.pricing(ctx.board.train(train.name))
    index = {node: n for n, node in enumerate(scope.graph.nodes)}
    counted = [index[node] for node in result.counted]
    pair = pricing.pair_bonus(_mask(counted))
    return [(scope.graph.nodes[n][0], pricing.worth[n] + (pair if scope.bonus_city >> n & 1 else 0))
            for n in counted]


@dataclass(frozen=True)
class _Found:
    """A route found by the search: revenue, track bits, nodes and segments in order."""

    value: int
    mask: int
    nodes: tuple[int, ...]
    segments: tuple[int, ...]


class _OutOfSteps(Exception):
    """The search used up its step budget (see :func:`best_routes`)."""


class _Nodes:
    """What the search reads of a graph's nodes whoever runs: each node's hex and
    revenue groups as bits, the off-boards, cities and bonus cities as masks, and
    the nodes' values by phase."""

    def __init__(self, graph: TrackGraph) -> None:
        board = graph.shared.board
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
        self.bonus_city = _mask(n for n, (h, _) in enumerate(graph.nodes) if h == board.bonus_revenue_hex)
        self._defs = graph.defs
        self._values: dict[str, list[int]] = {}

    def values(self, phase_color: str) -> list[int]:
        """Each node's revenue in a phase of ``phase_color`` (11: off-boards grow)."""
        if phase_color not in self._values:
            self._values[phase_color] = [d.value(phase_color) for d in self._defs]
        return self._values[phase_color]


_NODES: WeakKeyDictionary[TrackGraph, _Nodes] = WeakKeyDictionary()


def _nodes_of(graph: TrackGraph) -> _Nodes:
    """:class:`_Nodes` of ``graph``, worked out once while the graph lives."""
    found = _NODES.get(graph)
    if found is None:
        found = _NODES[graph] = _Nodes(graph)
    return found


class _Scope:
    """What routes depend on for one company's run: track, values, tokens, blocking."""

    def __init__(self, ctx: Context, state: GameState, company: Company) -> None:
        board = ctx.board
        graph = track_graph(ctx, state)
        self.ctx = ctx
        self.graph = graph
        self.company = company
        color = ctx.phase_color(state)
        nodes = _nodes_of(graph)
        self.value = nodes.values(color)
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
        self.hex_bit, self.group_bit = nodes.hex_bit, nodes.group_bit
        self.offboards, self.cities = nodes.offboards, nodes.cities
        self.capitals, self.bonus_city = nodes.capitals, nodes.bonus_city
        self._pricing: dict[str, _Pricing] = {}
        self.budget: int | None = None  # search steps allowed (None: no limit)
        self.steps = 0

    def tick(self, steps: int = 1) -> None:
        """Count search work; raise :class:`_OutOfSteps` past the budget."""
        if self.budget is not None:
            self.steps += steps
            if self.steps > self.budget:
                raise _OutOfSteps

    @cached_property
    def reach(self) -> int:
        """Nodes reachable from the tokens along unblocked track, repeats allowed: a
        superset of the nodes any route can visit (the search's bound; checking a
        route needs none)."""
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

    def pricing(self, train: TrainDef) -> _Pricing:
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
        best = self._pick(must, base_value, optional, room, [])
        visited = must | _mask(optional)
        if visited & scope.capitals and visited & scope.bonus_city:
            pair = [_lowest(visited & scope.capitals), _lowest(visited & scope.bonus_city)]
            forced = [n for n in pair if not must >> n & 1]
            if forced:
                with_pair = self._pick(must, base_value, optional, room, forced)
                if with_pair is not None and (best is None or with_pair[0] > best[0]):
                    best = with_pair
        return best

    def _pick(
        self, must: int, base_value: int, optional: list[int], room: int, forced: list[int]
    ) -> tuple[int, int] | None:
        """Count ``must`` and ``forced``, then the best other optional stops (best first
        in ``optional``), making sure one counted stop is a city with the company's token."""
        token_mask = self.scope.token_mask
        free = room - len(forced)
        if free < 0:
            return None
        others = [n for n in optional if n not in forced] if forced else optional
        chosen = forced + others[:free]
        if not (must | _mask(chosen)) & token_mask:
            # The best token city left out replaces the last pick (all picks rank above it).
            token = next((n for n in others[free:] if token_mask >> n & 1), None)
            if token is None or free == 0:
                return None
            chosen = forced + others[: free - 1] + [token]
        counted = must | _mask(chosen)
        return base_value + sum(self.worth[n] for n in chosen) + self.pair_bonus(counted), counted


def _mask(nodes: Iterable[int]) -> int:
    bits = 0
    for n in nodes:
        bits |= 1 << n
    return bits


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


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
        for bit_index in _bits(mask):
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
        raise IllegalAction(
            f"train {train_id}: each leg must name at least two hexes, got {list(leg)}"
        )
    found = scope.graph.segments_along(leg)
    if found:
        return found
    board = scope.ctx.board
    for a, b in pairwise(leg):
        if a not in board.hexes or b not in board.hexes:
            missing = a if a not in board.hexes else b
            raise IllegalAction(f"train {train_id}: {missing} is not on the map")
        if b not in board.neighbours[a].values():
            raise IllegalAction(f"train {train_id}: {a} and {b} are not neighbouring hexes")
    for a, b in pairwise(leg):
        edge = next(e for e, h in board.neighbours[a].items() if h == b)
        end = scope.graph.end_ids.get((a, edge))
        if end is None or scope.graph.crossing[end] is None:
            raise IllegalAction(f"train {train_id}: no track joins {a} and {b}")
    for hex_id in (leg[0], leg[-1]):
        if not any(h == hex_id for h, _ in scope.graph.nodes):
            raise IllegalAction(
                f"train {train_id}: a leg starts and ends at revenue centres; {hex_id} has none"
            )
    raise IllegalAction(
        f"train {train_id}: no track runs from a revenue centre in {leg[0]} "
        f"through {', '.join(leg[1:-1])} to one in {leg[-1]} without passing another on the way"
        if len(leg) > 2
        else f"train {train_id}: no track runs straight from a revenue centre in {leg[0]} to one in {leg[-1]}"
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
        ways = ((seg.a, seg.b), (seg.b, seg.a))
        if graph.nodes[seg.a][0] != first_hex:
            ways = ways[::-1]  # the way the leg is written first
        for start, end in ways if len(matches) > 1 else ways[:1]:
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
    once.

    A route is not reported when a shorter route within it earns as much (it ends on
    a stop it does not count, or a shorter one earns no less): that one does as well
    on less track, so no best answer needs it. For the same reason a branch stops
    once no stop within reach could raise the count (:meth:`gainful`).
    """

    def __init__(self, scope: _Scope, train: TrainDef) -> None:
        self.scope = scope
        self.pricing = scope.pricing(train)
        self.express = train.express
        self._pooled: tuple[int, list[_Found]] | None = None  # the lowest threshold's pool
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
        least = min(worth[n] for n in _bits(counted & ~pricing.mandatory))
        return any(pricing.worth_ub[n] > least for n in _bits(ahead))

    def run(self, used0: int, bar: _Bar, emit: Callable[[_Found, object], None]) -> None:
        """Call ``emit`` with each legal route on track other than ``used0`` that earns
        more than ``bar`` asks, and the bar's state for that route's track; branches
        whose upper bound does not clear the bar are cut."""
        scope = self.scope
        tick = scope.tick
        pricing = self.pricing
        hex_bit = scope.hex_bit
        group_bit = scope.group_bit
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
            t0: int, head: int, phase: int, visited: int, hexes: int, groups: int, used: int,
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
            ahead = self.frontier(starts, visited, hexes, groups, used)
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
                        found = _Found(value, used & ~used0, tuple(nodes), tuple(segs1[::-1] + segs2))
                        emit(found, mark)
                    floor = max(floor, value)
                    if not self.gainful(ahead, counted, optional_seen, room):
                        return
            state = (visited, hexes, groups, used, musts, must_ub, floor, mark, ahead)
            if passable >> head & 1:
                grow(t0, head, phase, -1, state, banned)
            if phase == 1 and arm1:
                grow(t0, t0, 2, segs1[0], state, banned)

        def grow(
            t0: int, head: int, phase: int, after: int,
            state: tuple[int, int, int, int, int, int, int, object, int], banned: int,
        ) -> None:
            visited, hexes, groups, used, musts, must_ub, floor, mark, ahead = state
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
                    must_ub + (worth_ub[other] if is_must else 0), banned, floor,
                    bar.add(mark, seg_mask), ahead,
                )
                arm.pop()
                segs.pop()

        banned = 0
        for t0 in scope.tokens:
            is_must = mandatory >> t0 & 1
            step(
                t0, t0, 1, banned | 1 << t0, hex_bit[t0], group_bit[t0], used0,
                is_must, worth_ub[t0] if is_must else 0, banned, 0, bar.start(), scope.reach,
            )
            banned |= 1 << t0

    def best(self, used: int) -> _Found | None:
        """The train's best route on track other than ``used``."""
        found: list[_Found] = []
        bar = _Bar(0)

        def keep(route: _Found, _mark: object) -> None:
            found.append(route)
            bar.amount = route.value

        self.run(used, bar, keep)
        return found[-1] if found else None

    def pool(self, threshold: int) -> list[_Found]:
        """Every route earning more than ``threshold``, best first (leaving out routes
        that a shorter route within them earns as much as).

        A list made for a lower threshold holds this one, in the same order: the bar
        only cuts branches that hold no route earning more than it, and whether a
        route is listed otherwise depends on its own branch alone. So one solve
        enumerates each train's routes once for its lowest threshold so far."""
        if self._pooled is not None and self._pooled[0] <= threshold:
            return [found for found in self._pooled[1] if found.value > threshold]
        found: list[_Found] = []
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
    routes: list[_Found | None]


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
        pools: list[list[_Found]],
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
                rest += pool[_lowest(free)].value
        return min(rest, self.later_best[first])

    def complete(self, first: _Found | None, mark: object) -> None:
        """Branch and bound over the lists for the best routes to go with ``first``."""
        answer = self.answer
        pools = self.pools
        last = len(pools) - 1
        chosen: list[_Found | None] = [first]

        def finish(total: int, clash: int, start: int) -> None:
            # The last list: its first route that does not clash is its best.
            free = ((1 << len(pools[last])) - 1) & ~clash & ~((1 << start) - 1)
            found = pools[last][_lowest(free)] if free else None
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


def _users(pool: list[_Found]) -> dict[int, int]:
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

    def __init__(self, scope: _Scope, trains: list[Train]) -> None:
        board = scope.ctx.board
        self.scope = scope
        self.incumbent: dict[tuple[str, ...], _Answer] = {}
        self.searches = {t.name: _TrainSearch(scope, board.train(t.name)) for t in trains}
        alone = {name: search.best(0) for name, search in self.searches.items()}
        self.trains = sorted(trains, key=lambda t: (-_value(alone[t.name]), t.name))
        self.memo: dict[tuple[str, ...], _Answer] = {
            (name,): _Answer(_value(found), [found]) for name, found in alone.items()
        }

    def solve(self) -> list[tuple[Train, _Found]]:
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
        lists: dict[str, list[_Found]] = {}
        for name, others in zip(names[1:], without[1:]):
            if name not in lists:
                lists[name] = self.searches[name].pool(answer.total - others)
        later_best = [self._best(names[i:]).total for i in range(1, len(names))]
        pools = [lists[name] for name in names[1:]]
        self.scope.tick(sum(len(pool) for pool in pools) * len(pools))  # building the clash tables
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

    def _best_on(self, name: str, others: list[_Found | None]) -> _Found | None:
        """The best route of a ``name`` train on the track ``others`` leave."""
        used = 0
        for found in others:
            if found is not None:
                used |= found.mask
        return self.searches[name].best(used)


def _value(found: _Found | None) -> int:
    return found.value if found is not None else 0


def _lows(mask: int) -> Iterable[int]:
    """The single-bit parts of ``mask``."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low


SOLVED_KEPT = 16
"""Positions whose best routes are remembered (see :func:`best_routes`)."""

_SOLVED: OrderedDict[tuple[object, ...], list[RouteResult]] = OrderedDict()
_SOLVED_LOCK = threading.Lock()


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
    key = (id(ctx.board), ctx.rules, company.sym, pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    with _SOLVED_LOCK:
        known = _SOLVED.get(key)
    if known is None:
        known = _solve(ctx, state, company, None)
        with _SOLVED_LOCK:
            _SOLVED[key] = known
            while len(_SOLVED) > SOLVED_KEPT:
                _SOLVED.popitem(last=False)
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
    scope = _Scope(ctx, state, company)
    if not trains or not scope.tokens:
        return []
    if quick_steps is None:
        quick_steps = QUICK_STEPS if len(trains) <= SEARCH_TRAINS else 0
    optimizer = _Optimizer(scope, trains)
    scope.budget = quick_steps
    try:
        picked = optimizer.solve()
    except _OutOfSteps:
        scope.budget = None
        picked = _by_integer_program(optimizer)
    return _results(scope, trains, picked)


def _by_integer_program(optimizer: _Optimizer) -> list[tuple[Train, _Found]]:
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
    picked: list[tuple[Train, _Found]] = []
    for name in limits:
        mine = sorted((found for n, found in best if n == name), key=lambda f: -f.value)
        picked += zip((t for t in trains if t.name == name), mine)
    return picked


def _hex_borders(graph: TrackGraph) -> list[int]:
    """The border crossings around each hex with track, and around each two neighbouring
    hexes: a route passing through uses two of them, so where their number is odd the
    integer program's relaxation can be tightened (see :mod:`engine.packing`)."""
    around: dict[str, int] = {}
    for bit, (a, b) in graph.bit_hexes.items():
        if a != b:
            around[a] = around.get(a, 0) | 1 << bit
            around[b] = around.get(b, 0) | 1 << bit
    pairs = [around[a] ^ around[b] for a, b in graph.bit_hexes.values() if a != b]  # less the border between
    return list(around.values()) + pairs


def _total(routes: list[tuple[str, _Found]]) -> int:
    return sum(found.value for _name, found in routes)


def _improve_in_turn(optimizer: _Optimizer) -> list[tuple[Train, _Found]]:
    """A good answer: from the best answer the search found (for some of the trains),
    each train takes its best route on the track the others leave, in turn, until
    none improves."""
    names = [t.name for t in optimizer.trains]
    known = {**optimizer.memo, **optimizer.incumbent}  # answers for sets of these trains
    subset = max(known, key=lambda key: known[key].total)
    routes: list[_Found | None] = [None] * len(names)
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


def _results(scope: _Scope, trains: list[Train], picked: list[tuple[Train, _Found]]) -> list[RouteResult]:
    ctx = scope.ctx
    chosen = {t.id: f for t, f in picked}
    results = []
    for train in trains:
        found = chosen.get(train.id)
        if found is not None:
            counted = scope.pricing(ctx.board.train(train.name)).count(found.nodes)
            assert counted is not None
            results.append(_result(scope, train.id, found.value, counted[1], found.nodes, found.segments))
    return results
