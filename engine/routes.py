"""Train routes (rulebook 8.8): what a route earns, and the check of the routes a
player gives (:mod:`engine.route_search` finds the best ones).

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import NamedTuple

from .actions import Route
from .board import TrainDef
from .errors import IllegalAction
from .graph import (
    NodeRef,
    TrackGraph,
    blocked_nodes,
    passable_nodes,
    set_bits,
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


def stop_values(ctx: Context, state: GameState, company: Company, result: RouteResult) -> list[tuple[str, int]]:
    """What each counted stop of a priced route earns (8.8.2), in route order: its value
    times the train's multiplier, with any private's bonus there; the Ekaterinburg and
    Moscow pair bonus goes to Ekaterinburg. The values add up to the route's revenue."""
    scope = Scope(ctx, state, company)
    train = next(t for t in company.trains if t.id == result.train)
    pricing = scope.pricing(ctx.board.train(train.name))
    index = {node: n for n, node in enumerate(scope.graph.nodes)}
    counted = [index[node] for node in result.counted]
    pair = pricing.pair_bonus(_mask(counted))
    return [(scope.graph.nodes[n][0], pricing.worth[n] + (pair if scope.bonus_city >> n & 1 else 0))
            for n in counted]


class Found(NamedTuple):
    """A route found by the search: revenue, track bits, nodes and segments in order."""

    value: int
    mask: int
    nodes: tuple[int, ...]
    segments: tuple[int, ...]


class OutOfSteps(Exception):
    """The search used up its step budget (see :func:`engine.route_search.best_routes`)."""


class RouteNodes:
    """What the search reads of a graph's nodes whoever runs: each node's hex and
    revenue groups as bits, the off-boards, cities and bonus cities as masks, and
    the nodes' values by phase."""

    def __init__(self, graph: TrackGraph) -> None:
        board = graph.shared.board
        self._refs = graph.nodes  # not the graph: the cache's values must not keep its keys alive
        self.offboards = ((1 << len(graph.nodes)) - 1) & ~graph.through  # all that a walk never passes through
        self.cities = graph.cities
        self.capitals = _hex_nodes(graph, board.bonus_capitals)
        self.bonus_city = _hex_nodes(graph, (board.bonus_revenue_hex,))
        self._defs = graph.defs
        self._values: dict[str, list[int]] = {}
        self._worths: dict[tuple[str, int, tuple[int, ...]], _Worths] = {}

    @cached_property
    def hex_bit(self) -> list[int]:
        """Each node's hex as one bit (hexes numbered as their first node comes; only the
        search asks, a check of given routes does not)."""
        hex_index: dict[str, int] = {}
        return [1 << hex_index.setdefault(hex_id, len(hex_index)) for hex_id, _ in self._refs]

    @cached_property
    def group_bit(self) -> list[int]:
        """Each node's revenue groups (off-board areas) as bits, numbered as they come."""
        group_index: dict[str, int] = {}
        found = []
        for d in self._defs:
            bits = 0
            for group in d.groups:
                bits |= 1 << group_index.setdefault(group, len(group_index))
            found.append(bits)
        return found

    @cached_property
    def taken_bit(self) -> list[int]:
        """Each node's hex and revenue groups as bits of one mask, the groups' above the
        hexes': what a route visiting it takes (no other stop of the hex or group after)."""
        shift = max(self.hex_bit, default=0).bit_length()
        return [h | g << shift for h, g in zip(self.hex_bit, self.group_bit)]

    def values(self, phase_color: str) -> list[int]:
        """Each node's revenue in a phase of ``phase_color`` (11: off-boards grow)."""
        if phase_color not in self._values:
            # (only an off-board's value depends on the phase: the others' is read directly)
            self._values[phase_color] = [d.value(phase_color) if d.phase_revenue else d.revenue for d in self._defs]
        return self._values[phase_color]

    def worths(self, phase_color: str, multiplier: int, bonus: tuple[int, ...]) -> _Worths:
        """What each node earns counted by a train of ``multiplier`` with private
        ``bonus`` per node, what it adds as Ekaterinburg with Moscow, and the upper
        bound of the two (worked out once per colour, multiplier and bonuses)."""
        key = (phase_color, multiplier, bonus)
        found = self._worths.get(key)
        if found is None:
            value = self.values(phase_color)
            if multiplier == 1 and not any(bonus):
                worth = list(value)
            else:
                worth = [v * multiplier + b for v, b in zip(value, bonus)]
            pair = [0] * len(value)  # only the bonus cities (Ekaterinburg) earn it
            for n in set_bits(self.bonus_city):
                pair[n] = value[n] * multiplier
            # Upper-bound worth: Ekaterinburg may also earn the pair bonus.
            worth_ub = list(worth)
            if self.capitals:
                for n in set_bits(self.bonus_city):
                    worth_ub[n] += pair[n]
            found = self._worths[key] = _Worths(worth, pair, worth_ub)
        return found


class _Worths(NamedTuple):
    """Each node's worth to one kind of train (see :meth:`RouteNodes.worths`)."""

    worth: list[int]
    pair: list[int]
    worth_ub: list[int]


def _hex_nodes(graph: TrackGraph, hexes: Iterable[str | None]) -> int:
    """Mask of the nodes on ``hexes``."""
    mask = 0
    for hex_id in hexes:
        part = graph.parts.get(hex_id) if hex_id is not None else None
        if part is not None:
            mask |= part.node_mask
    return mask


def _nodes_of(graph: TrackGraph) -> RouteNodes:
    """:class:`RouteNodes` of ``graph``, worked out once and kept on it."""
    found = graph.route_nodes
    if found is None:
        found = graph.route_nodes = RouteNodes(graph)
    return found


class Scope:
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
        bonus = [0] * len(graph.nodes)
        for sym in company.privates:
            if sym in state.closed_privates:
                continue
            private = board.private(sym)
            for node, (hex_id, _) in enumerate(graph.nodes):
                if hex_id in private.bonus_hexes:
                    bonus[node] += private.bonus
        self.bonus = tuple(bonus)
        self.color = color
        self.blocked = blocked_nodes(state, graph, [company.sym])
        self.passable = passable_nodes(graph, self.blocked)
        self.tokens = token_nodes(state, graph, company.sym)
        self.token_mask = _mask(self.tokens)
        self.nodes = nodes
        self.offboards, self.cities = nodes.offboards, nodes.cities
        self.capitals, self.bonus_city = nodes.capitals, nodes.bonus_city
        self._pricing: dict[str, _Pricing] = {}
        self.budget: int | None = None  # search steps allowed (None: no limit)
        self.steps = 0
        self.lumps: list[tuple[int, int]] = []  # (steps before, steps) of each count of many at once

    @property
    def hex_bit(self) -> list[int]:
        """Each node's hex as a bit (:attr:`RouteNodes.hex_bit`)."""
        return self.nodes.hex_bit

    @property
    def group_bit(self) -> list[int]:
        """Each node's revenue groups as bits (:attr:`RouteNodes.group_bit`)."""
        return self.nodes.group_bit

    @property
    def taken_bit(self) -> list[int]:
        """Each node's hex and revenue groups as one mask (:attr:`RouteNodes.taken_bit`)."""
        return self.nodes.taken_bit

    def tick(self, steps: int = 1) -> None:
        """Count search work; raise :class:`OutOfSteps` past the budget."""
        if self.budget is not None:
            self.steps += steps
            if self.steps > self.budget:
                raise OutOfSteps

    def tick_many(self, steps: int) -> None:
        """:meth:`tick` for work counted in one lump, remembered in :attr:`lumps` (where a
        smaller budget would have run out is then known without searching again)."""
        if self.budget is not None:
            self.lumps.append((self.steps, steps))
        self.tick(steps)

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

    def __init__(self, scope: Scope, train: TrainDef) -> None:
        self.scope = scope
        self.train = train
        self.limit = EXPRESS_STOPS if train.express else train.pay
        # Nodes counted whenever visited: all cities and off-boards, or a 5+5E's off-boards.
        self.mandatory = scope.offboards if train.express else scope.cities | scope.offboards
        self.worth, self.pair, self.worth_ub = scope.nodes.worths(scope.color, train.multiplier, scope.bonus)

    def pair_bonus(self, counted: int) -> int:
        """Ekaterinburg counted with Moscow: its value again, times the multiplier (8.8.2)."""
        scope = self.scope
        if counted & scope.capitals and counted & scope.bonus_city:
            return self.pair[lowest_bit(counted & scope.bonus_city)]
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
            pair = [lowest_bit(visited & scope.capitals), lowest_bit(visited & scope.bonus_city)]
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


def lowest_bit(mask: int) -> int:
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
    scope = Scope(ctx, state, company)
    used = 0
    used_by: dict[int, str] = {}
    trains_done: set[str] = set()
    results: list[RouteResult] = []
    for route in routes:
        train = _runnable_train(company, route.train, trains_done)
        trains_done.add(train.id)
        train_def = ctx.board.train(train.name)
        result, mask = _check_route(scope, train, train_def, route.legs, used, used_by)
        for bit_index in set_bits(mask):
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
    scope: Scope,
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
            best = (route_result(scope, train.id, value, counted, nodes, segments), mask)
    if best is None:
        assert error is not None
        raise error
    return best


def _leg_segments(scope: Scope, train_id: str, leg: tuple[str, ...]) -> list[int]:
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
    scope: Scope,
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


def _check_stops(scope: Scope, train_id: str, nodes: tuple[int, ...]) -> None:
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
    scope: Scope, train_id: str, segments: tuple[int, ...], used: int, used_by: dict[int, str]
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


def route_result(
    scope: Scope,
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
