"""The track graph of the current map and what a company can reach on it (rulebook 8.1).

Track is walked end to end: a walk leaves a revenue node along one of its paths,
and every time a path ends on a hex edge it must cross that border into the
neighbour (a path end on edge ``e`` of hex A meets edge ``(e + 3) % 6`` of the hex
across), where it continues along any path that starts at that edge. Turning back
onto another path at the same edge would be reversing at a junction, which 8.1
counts as reusing track, so the walk structure here does not allow it.

A border crossing is the unit of track use: a walk (or all of a company's trains
in one turn, 8.8.1) may cross each border once. Walks never pass through
off-boards, nor through cities whose slots are all held by other companies.

:class:`TrackGraph` is built once per tile layout and cached; token positions
only matter to the queries below.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from .board import Board, Node, TileDef
from .tokens import NEUTRAL

if TYPE_CHECKING:
    from .state import Context, GameState

NodeRef = tuple[str, int]
"""A revenue node: (hex, index of the node on the hex's tile)."""

TrackEnd = tuple[str, int]
"""A path end on a hex edge: (hex, edge 0..5)."""


@dataclass(frozen=True)
class Segment:
    """Track from revenue node ``a`` to revenue node ``b`` that passes through no node.

    ``mask`` has one bit per border crossed (and per node-to-node path used);
    ``hexes`` runs from ``a``'s hex to ``b``'s hex, as a route leg is written.
    """

    a: int
    b: int
    mask: int
    hexes: tuple[str, ...]


@dataclass(frozen=True)
class Reach:
    """What a company can reach from its tokens (8.1)."""

    nodes: frozenset[NodeRef]
    hexes: frozenset[str]
    track_ends: frozenset[TrackEnd]

    def edges_at(self, hex_id: str) -> frozenset[int]:
        """The edges of ``hex_id`` among the track ends reached."""
        return self._edges_by_hex.get(hex_id, frozenset())

    @cached_property
    def _edges_by_hex(self) -> dict[str, frozenset[int]]:
        edges: dict[str, set[int]] = {}
        for hex_id, edge in self.track_ends:
            edges.setdefault(hex_id, set()).add(edge)
        return {hex_id: frozenset(found) for hex_id, found in edges.items()}


class TrackGraph:
    """The laid track of one tile layout, indexed for walking.

    Nodes are numbered ``0..len(nodes)-1`` and track ends (path ends on hex edges)
    likewise. Crossing a border, or using a path that joins two nodes directly, sets
    one bit of a walk's mask.
    """

    def __init__(self, board: Board, layout: dict[str, tuple[TileDef, int]]) -> None:
        nodes: list[NodeRef] = []
        defs: list[Node] = []
        ends: list[TrackEnd] = []
        end_ids: dict[TrackEnd, int] = {}
        node_exits: list[list[int]] = []
        onward_ends: list[list[int]] = []
        onward_nodes: list[list[int]] = []
        links: list[tuple[str, int, int]] = []  # node-to-node paths: their bits follow the borders'
        for hex_id, (tile, rotation) in layout.items():
            first_node, first_end = len(nodes), len(ends)
            for i, node in enumerate(tile.nodes):
                nodes.append((hex_id, i))
                defs.append(node)
                node_exits.append([])
            edges, numbered = tile.numbered_paths(rotation)
            for edge in edges:  # a hex's edge ends are its own: numbered in a run
                end_ids[(hex_id, edge)] = len(ends)
                ends.append((hex_id, edge))
                onward_ends.append([])
                onward_nodes.append([])
            for (a_is_node, a), (b_is_node, b) in numbered:
                if a_is_node and b_is_node:
                    links.append((hex_id, a + first_node, b + first_node))
                elif a_is_node:
                    node_exits[a + first_node].append(b + first_end)
                    onward_nodes[b + first_end].append(a + first_node)
                elif b_is_node:
                    node_exits[b + first_node].append(a + first_end)
                    onward_nodes[a + first_end].append(b + first_node)
                else:
                    onward_ends[a + first_end].append(b + first_end)
                    onward_ends[b + first_end].append(a + first_end)
        self.nodes: tuple[NodeRef, ...] = tuple(nodes)
        self.node_ids: dict[NodeRef, int] = {ref: i for i, ref in enumerate(nodes)}
        self.defs: tuple[Node, ...] = tuple(defs)
        self.ends: tuple[TrackEnd, ...] = tuple(ends)
        self.end_ids: dict[TrackEnd, int] = end_ids
        bit_hexes: list[tuple[str, str]] = []
        self.crossing: tuple[tuple[int, int] | None, ...] = _crossings(board, ends, end_ids, bit_hexes)
        node_links: list[list[tuple[int, int]]] = [[] for _ in nodes]
        for hex_id, a, b in links:
            bit = 1 << len(bit_hexes)
            bit_hexes.append((hex_id, hex_id))
            node_links[a].append((bit, b))
            node_links[b].append((bit, a))
        self.node_exits: tuple[tuple[int, ...], ...] = tuple(map(tuple, node_exits))
        self.node_links: tuple[tuple[tuple[int, int], ...], ...] = tuple(map(tuple, node_links))
        self.onward_ends: tuple[tuple[int, ...], ...] = tuple(map(tuple, onward_ends))
        self.onward_nodes: tuple[tuple[int, ...], ...] = tuple(map(tuple, onward_nodes))
        self.bit_hexes: tuple[tuple[str, str], ...] = tuple(bit_hexes)
        self.segments: tuple[Segment, ...] = tuple(_segments(self))
        adjacent: list[list[int]] = [[] for _ in nodes]
        for i, seg in enumerate(self.segments):
            adjacent[seg.a].append(i)
            adjacent[seg.b].append(i)
        self.adjacent: tuple[tuple[int, ...], ...] = tuple(map(tuple, adjacent))
        self._along: dict[tuple[str, ...], list[int]] | None = None
        # the nodes a walk may pass through while no city is blocked: all but off-boards
        self.through = sum(1 << node for node, d in enumerate(defs) if d.kind != "offboard")

    def node_of(self, ref: NodeRef) -> int | None:
        """The id of a node, or None if the hex has no such node."""
        return self.node_ids.get(ref)

    def segments_along(self, hexes: tuple[str, ...]) -> list[int]:
        """The segments whose hex chain is ``hexes``, read in either direction."""
        if self._along is None:
            index: dict[tuple[str, ...], list[int]] = {}
            for i, seg in enumerate(self.segments):
                index.setdefault(seg.hexes, []).append(i)
                if len(seg.hexes) > 1:
                    index.setdefault(seg.hexes[::-1], []).append(i)
            self._along = index
        return self._along.get(hexes, [])


def _crossings(
    board: Board, ends: list[TrackEnd], end_ids: dict[TrackEnd, int], bit_hexes: list[tuple[str, str]]
) -> tuple[tuple[int, int] | None, ...]:
    """For each track end, the border bit and the end it meets across the border."""
    crossing: list[tuple[int, int] | None] = [None] * len(ends)
    across = board.across
    for end_id, end in enumerate(ends):
        if crossing[end_id] is not None:
            continue
        other = across.get(end)
        if other is None or other not in end_ids:
            continue
        other_id = end_ids[other]
        bit = 1 << len(bit_hexes)
        bit_hexes.append((end[0], other[0]))
        crossing[end_id] = (bit, other_id)
        crossing[other_id] = (bit, end_id)
    return tuple(crossing)


def _segments(g: TrackGraph) -> list[Segment]:
    """Every node-to-node walk through no node, each listed once (from its lower node id)."""
    found: list[Segment] = []
    for start in range(len(g.nodes)):
        start_hex = g.nodes[start][0]
        for bit, other in g.node_links[start]:
            if start < other:
                found.append(Segment(start, other, bit, (start_hex,)))
        for exit_end in g.node_exits[start]:
            _extend_segment(g, start, exit_end, 0, (start_hex,), found)
    return found


def _extend_segment(
    g: TrackGraph, start: int, exit_end: int, mask: int, hexes: tuple[str, ...], found: list[Segment]
) -> None:
    cross = g.crossing[exit_end]
    if cross is None:
        return
    bit, entered = cross
    if mask & bit:
        return
    mask |= bit
    hexes = hexes + (g.ends[entered][0],)
    for node in g.onward_nodes[entered]:
        if start < node:
            found.append(Segment(start, node, mask, hexes))
    for onward in g.onward_ends[entered]:
        _extend_segment(g, start, onward, mask, hexes, found)


_CACHE: dict[tuple[object, ...], TrackGraph] = {}
_CACHE_SIZE = 32


def track_graph(ctx: Context, state: GameState) -> TrackGraph:
    """The track graph of the map as it is now (cached per tile layout)."""
    key = (id(ctx.board), frozenset((h, p.tile, p.rotation) for h, p in state.map.tiles.items()))
    graph = _CACHE.get(key)
    if graph is None:
        layout = {h: ctx.tile_at(state, h) for h in ctx.board.hexes}
        graph = TrackGraph(ctx.board, {h: tr for h, tr in layout.items() if tr[0].nodes or tr[0].paths})
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = graph
    return graph


def blocked_nodes(state: GameState, graph: TrackGraph, friends: Iterable[str]) -> int:
    """Mask of the cities whose slots are all held by tokens of companies not in ``friends``."""
    friendly = set(friends)
    mask = 0
    for (hex_id, city), occupants in state.map.tokens.items():
        node = graph.node_of((hex_id, city))
        if node is None or any(sym in friendly or sym == NEUTRAL for sym in occupants):
            continue  # a friend's token, or a neutral one (never blocks), leaves it open
        slots = graph.defs[node].slots
        if slots and sum(1 for sym in occupants if sym is not None) >= slots:
            mask |= 1 << node
    return mask


def passable_nodes(graph: TrackGraph, blocked: int) -> int:
    """Mask of the nodes a walk may pass through: towns and unblocked cities (never off-boards)."""
    return graph.through & ~blocked


def token_nodes(state: GameState, graph: TrackGraph, company: str) -> list[int]:
    """The nodes holding ``company``'s placed tokens, in token order."""
    found: list[int] = []
    for token in state.companies[company].placed_tokens:
        assert token.hex is not None and token.city is not None
        node = graph.node_of((token.hex, token.city))
        if node is not None and node not in found:
            found.append(node)
    return found


class _Done(Exception):
    """Raised inside a walk once everything that can be marked is marked."""


class _Walk:
    """Every walk from some start nodes by the rules of 8.1: no border crossed twice,
    no node visited twice, nothing passed through unless passable.

    First a breadth-first survey follows track while ignoring those limits (except
    turning straight back through a node): what it reaches is all a legal walk could
    reach, and whatever it reaches by a legal walk is reached. Only if something is
    left unproven does an exhaustive depth-first walk run, which stops once
    everything is proven; ``goal`` stops either as soon as one of its nodes is reached.
    """

    def __init__(self, graph: TrackGraph, passable: int, goal: int = 0) -> None:
        self.g = graph
        self.passable = passable
        self.goal = goal
        self.nodes = 0
        self.ends: set[int] = set()
        self.seen: set[tuple[int, int, int, int]] = set()
        self.full_nodes = 0
        self.full_ends: set[int] = set()
        self.surveying = True

    def run(self, starts: Iterable[int]) -> _Walk:
        starts = list(starts)
        try:
            self._survey(starts)
            self.surveying = False
            if self.nodes == self.full_nodes and len(self.ends) == len(self.full_ends):
                return self
            for start in starts:
                self._leave(start, 1 << start, 0)
        except _Done:
            pass
        return self

    def _survey(self, starts: list[int]) -> None:
        """Breadth-first over (node, end arrived by) and track ends, each once; every
        state keeps the nodes and borders of the walk that first reached it, and marks
        what it reaches when that walk repeats neither."""
        g = self.g
        queue: deque[tuple[bool, int, int, bool, int, int]] = deque(
            (True, start, -1, True, 1 << start, 0) for start in starts
        )
        arrivals: set[tuple[int, int]] = set()
        outward: set[int] = set()
        while queue:
            at_node, where, came, legal, visited, used = queue.popleft()
            if at_node:
                if (where, came) in arrivals:
                    continue
                arrivals.add((where, came))
                self.full_nodes |= 1 << where
                if legal:
                    self._mark_node(where)
                if where not in starts and not self.passable >> where & 1:
                    continue
                for bit, other in g.node_links[where]:
                    fine = legal and not used & bit and not visited >> other & 1
                    queue.append((True, other, -1, fine, visited | 1 << other, used | bit))
                for end in g.node_exits[where]:
                    if end != came:
                        queue.append((False, end, -1, legal, visited, used))
                continue
            if where in outward:
                continue
            outward.add(where)
            self.full_ends.add(where)
            if legal:
                self._mark_end(where)
            cross = g.crossing[where]
            if cross is None:
                continue
            bit, entered = cross
            legal = legal and not used & bit
            used |= bit
            self.full_ends.add(entered)
            if legal:
                self._mark_end(entered)
            for other in g.onward_nodes[entered]:
                fine = legal and not visited >> other & 1
                queue.append((True, other, entered, fine, visited | 1 << other, used))
            for end in g.onward_ends[entered]:
                queue.append((False, end, -1, legal, visited, used))

    def _mark_node(self, node: int) -> None:
        self.nodes |= 1 << node
        if self.goal & (1 << node) or (
            not self.surveying
            and self.nodes == self.full_nodes
            and len(self.ends) == len(self.full_ends)
        ):
            raise _Done

    def _mark_end(self, end: int) -> None:
        if end not in self.ends:
            self.ends.add(end)
            if (
                not self.surveying
                and self.nodes == self.full_nodes
                and len(self.ends) == len(self.full_ends)
            ):
                raise _Done

    def _leave(self, node: int, visited: int, used: int) -> None:
        key = (0, node, visited, used)
        if key in self.seen:
            return
        self.seen.add(key)
        for bit, other in self.g.node_links[node]:
            if not used & bit:
                self._arrive(other, visited, used | bit)
        for end in self.g.node_exits[node]:
            self._along(end, visited, used)

    def _along(self, end: int, visited: int, used: int) -> None:
        self._mark_end(end)
        cross = self.g.crossing[end]
        if cross is None or used & cross[0]:
            return
        bit, entered = cross
        used |= bit
        key = (1, entered, visited, used)
        if key in self.seen:
            return
        self.seen.add(key)
        self._mark_end(entered)
        for other in self.g.onward_nodes[entered]:
            self._arrive(other, visited, used)
        for onward in self.g.onward_ends[entered]:
            self._along(onward, visited, used)

    def _arrive(self, node: int, visited: int, used: int) -> None:
        if visited >> node & 1:
            return
        self._mark_node(node)
        if self.passable >> node & 1:
            self._leave(node, visited | 1 << node, used)


def reachable(ctx: Context, state: GameState, company: str) -> Reach:
    """The nodes, hexes and track ends ``company`` reaches from its placed tokens (8.1).

    A node is reached if a walk from a token city gets there without crossing a
    border twice or visiting a node twice, passing only through towns and cities
    not blocked by other companies' tokens (a blocked city may end the walk).
    ``track_ends`` holds every (hex, edge) end of a path such a walk uses, including
    ends that point into empty hexes, so a new tile may connect there (8.6).
    """
    graph = track_graph(ctx, state)
    starts = token_nodes(state, graph, company)
    passable = passable_nodes(graph, blocked_nodes(state, graph, [company]))
    walk = _Walk(graph, passable).run(starts)
    nodes = frozenset(graph.nodes[n] for n in range(len(graph.nodes)) if walk.nodes >> n & 1)
    track_ends = frozenset(graph.ends[e] for e in walk.ends)
    hexes = frozenset(h for h, _ in nodes) | frozenset(h for h, _ in track_ends)
    return Reach(nodes, hexes, track_ends)


def has_route(ctx: Context, state: GameState, company: str) -> bool:
    """True if a walk from one of ``company``'s token cities reaches a revenue centre on
    another hex (8.8) — which may be another of its own token cities; RN 7.2: on
    18xx.games any other revenue centre (:attr:`Rules.run_asked_for_any_walk`)."""
    graph = track_graph(ctx, state)
    passable = passable_nodes(graph, blocked_nodes(state, graph, [company]))
    for start in token_nodes(state, graph, company):
        others, through = ((1 << len(graph.nodes)) - 1) & ~(1 << start), passable
        if not ctx.rules.run_asked_for_any_walk:
            own_hex = _nodes_on_hex(graph, graph.nodes[start][0])
            others, through = others & ~own_hex, through & ~own_hex
        if _Walk(graph, through, goal=others).run([start]).nodes & others:
            return True
    return False


def _nodes_on_hex(graph: TrackGraph, hex_id: str) -> int:
    """Mask of the nodes on ``hex_id``: 8.8.1, a route counts one revenue centre per hex
    (Moscow's or Toronto's cities), so a walk back into its own hex finds no route."""
    return sum(1 << n for n, (node_hex, _) in enumerate(graph.nodes) if node_hex == hex_id)


def city_is_unconnected(ctx: Context, state: GameState, hex_id: str, city: int) -> bool:
    """7.4 and the glossary: "When a city cannot trace a legal route to another city"
    (tokens ignored): track to a town or an off-board alone leaves it unconnected.
    RN 4.3: on 18xx.games any other city, town or off-board connects it."""
    graph = track_graph(ctx, state)
    node = graph.node_of((hex_id, city))
    if node is None:
        return True
    others = ((1 << len(graph.nodes)) - 1) & ~(1 << node)
    if not ctx.rules.unconnected_unless_no_stop_reached:
        others &= sum(1 << n for n, d in enumerate(graph.defs) if d.kind == "city")
    walk = _Walk(graph, passable_nodes(graph, 0), goal=others).run([node])
    return not walk.nodes & others


def minors_connected(
    ctx: Context, state: GameState, a_sym: str, b_sym: str, merging: set[str]
) -> bool:
    """True if minor ``a_sym``'s token reaches ``b_sym``'s token city (9.2): tokens of the
    minors in the merge (and of ``a_sym``, ``b_sym``) do not block; cities of one hex
    count as connected only if track joins them."""
    graph = track_graph(ctx, state)
    friends = set(merging) | {a_sym, b_sym}
    targets = 0
    for node in token_nodes(state, graph, b_sym):
        targets |= 1 << node
    if not targets:
        return False
    passable = passable_nodes(graph, blocked_nodes(state, graph, friends))
    walk = _Walk(graph, passable, goal=targets).run(token_nodes(state, graph, a_sym))
    return bool(walk.nodes & targets)
