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
from typing import TYPE_CHECKING, NamedTuple

from .board import Board, Node, TileDef, is_edge
from .cache import BoundedCache
from .tokens import NEUTRAL

if TYPE_CHECKING:
    from .routes import RouteNodes
    from .state import Context, GameState, PlacedTile

    _LayoutKey = tuple[int, frozenset[tuple[str, PlacedTile]]]  # (board id, the laid tiles)

NodeRef = tuple[str, int]
"""A revenue node: (hex, index of the node on the hex's tile)."""

TrackEnd = tuple[str, int]
"""A path end on a hex edge: (hex, edge 0..5)."""


class Segment(NamedTuple):
    """Track from revenue node ``a`` to revenue node ``b`` that passes through no node.

    ``mask`` has one bit per border crossed (and per node-to-node path used);
    ``hexes`` runs from ``a``'s hex to ``b``'s hex, as a route leg is written.
    (A named tuple: a graph makes hundreds of them, and the route search reads them often.)
    """

    a: int
    b: int
    mask: int
    hexes: tuple[str, ...]


@dataclass(frozen=True, eq=False, repr=False)  # asked for its parts only
class Reach:
    """What a company can reach from its tokens (8.1)."""

    nodes: frozenset[NodeRef]
    hexes: frozenset[str]
    track_ends: frozenset[TrackEnd]
    entries: frozenset[TrackEnd]
    """The hex edges a walk runs into its hex by, from the hex across: where it crosses
    a border, and where track ends facing a border with no track beyond (a tile laid
    there would be entered by that edge)."""

    def edges_at(self, hex_id: str) -> frozenset[int]:
        """The edges of ``hex_id`` among the track ends reached."""
        return self._ends_by_hex.get(hex_id, frozenset())

    def entry_edges(self, hex_id: str) -> frozenset[int]:
        """The edges of ``hex_id`` among :attr:`entries`: where a train could run into
        it (8.1: not by turning back at an edge it left the hex by)."""
        return self._entries_by_hex.get(hex_id, frozenset())

    @cached_property
    def _ends_by_hex(self) -> dict[str, frozenset[int]]:
        return _by_hex(self.track_ends)

    @cached_property
    def _entries_by_hex(self) -> dict[str, frozenset[int]]:
        return _by_hex(self.entries)


def _by_hex(ends: Iterable[TrackEnd]) -> dict[str, frozenset[int]]:
    """Track ends grouped by hex: each hex's edges."""
    edges: dict[str, set[int]] = {}
    for hex_id, edge in ends:
        edges.setdefault(hex_id, set()).add(edge)
    return {hex_id: frozenset(found) for hex_id, found in edges.items()}


class _BoardTrack:
    """What every track graph of one board shares, worked out once: a fixed id for each
    hex edge (the id of a track end there) and a fixed bit for each border.

    Fixed ids make a graph's arrays a function of the tiles alone, so building one for a
    new layout only copies each hex's own part (:class:`_HexTrack`) into place.
    """

    def __init__(self, board: Board) -> None:
        self.board = board
        self.position = {hex_id: i for i, hex_id in enumerate(board.hexes)}
        self.ends: tuple[TrackEnd, ...] = tuple((h, edge) for h in board.hexes for edge in range(6))
        self.end_ids: dict[TrackEnd, int] = {end: i for i, end in enumerate(self.ends)}
        end_ids = self.end_ids
        across = [-1] * len(self.ends)
        for side, facing in board.across.items():
            across[end_ids[side]] = end_ids[facing]
        self.across: tuple[int, ...] = tuple(across)
        bits = [-1] * len(self.ends)
        lower_ends: list[int] = []
        for end_id, other in enumerate(self.across):
            if other > end_id:  # each border once, numbered from its lower end
                bits[end_id] = bits[other] = len(lower_ends)
                lower_ends.append(end_id)
        count = len(lower_ends)
        self.border_bit: tuple[int, ...] = tuple(bits)
        self.lower_end: tuple[int, ...] = tuple(lower_ends)  # each border bit's lower end
        tiles = [*board.hexes.values(), *board.tiles.values()]
        self.links_per_hex = max(
            (sum(1 for a, b in t.paths if not is_edge(a) and not is_edge(b)) for t in tiles), default=0
        )
        self.first_link_bit = count  # node-to-node paths: their bits follow the borders'
        crossable: list[list[tuple[int, int, int]]] = [[] for _ in board.hexes]
        for end, other in enumerate(across):
            if other >= 0:
                crossable[end // 6].append((end, other, bits[end]))
        self.borders: dict[str, tuple[tuple[int, int, int], ...]] = {
            h: tuple(found) for h, found in zip(board.hexes, crossable)
        }
        """Each hex's borders that track may cross: (its end, the end across, the bit)."""
        self._hexes: dict[tuple[str, int, int, int], _HexTrack] = {}

    def hex_track(self, hex_id: str, tile: TileDef, rotation: int, first_node: int) -> _HexTrack:
        """The track of ``tile`` laid on ``hex_id``, its nodes numbered from ``first_node``."""
        if not tile.nodes:
            first_node = 0  # nothing to number: the same piece wherever it lies
        key = (hex_id, id(tile), rotation, first_node)
        found = self._hexes.get(key)
        if found is None or found.tile is not tile:
            found = self._hexes[key] = _HexTrack(self, hex_id, tile, rotation, first_node)
        return found


_BOARDS: dict[int, _BoardTrack] = {}


def _board_track(board: Board) -> _BoardTrack:
    found = _BOARDS.get(id(board))
    if found is None or found.board is not board:
        found = _BOARDS[id(board)] = _BoardTrack(board)
    return found


class _HexTrack:
    """One hex's part of a track graph: its nodes, and its six edge ends' tracks."""

    def __init__(self, shared: _BoardTrack, hex_id: str, tile: TileDef, rotation: int, first_node: int) -> None:
        self.tile = tile
        self.nodes: tuple[NodeRef, ...] = tuple((hex_id, i) for i in range(len(tile.nodes)))
        position = shared.position[hex_id]
        self.first_end = first_end = position * 6
        edges, numbered = tile.numbered_paths(rotation)
        node_exits: list[list[int]] = [[] for _ in tile.nodes]
        onward_ends: list[list[int]] = [[] for _ in range(6)]
        onward_nodes: list[list[int]] = [[] for _ in range(6)]
        links: list[tuple[int, int, int]] = []
        for (a_is_node, a), (b_is_node, b) in numbered:
            if a_is_node and b_is_node:
                bit = 1 << (shared.first_link_bit + position * shared.links_per_hex + len(links))
                links.append((bit, a + first_node, b + first_node))
            elif a_is_node:
                node_exits[a].append(first_end + edges[b])
                onward_nodes[edges[b]].append(a + first_node)
            elif b_is_node:
                node_exits[b].append(first_end + edges[a])
                onward_nodes[edges[a]].append(b + first_node)
            else:
                onward_ends[edges[a]].append(first_end + edges[b])
                onward_ends[edges[b]].append(first_end + edges[a])
        self.node_exits: tuple[tuple[int, ...], ...] = tuple(map(tuple, node_exits))
        self.onward_ends: tuple[tuple[int, ...], ...] = tuple(map(tuple, onward_ends))
        self.onward_nodes: tuple[tuple[int, ...], ...] = tuple(map(tuple, onward_nodes))
        self.links = tuple(links)
        self.node_links: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple((bit, b if a == node else a) for bit, a, b in links if node in (a, b))
            for node in range(first_node, first_node + len(tile.nodes))
        )
        self.has_end = bytes(1 if edge in edges else 0 for edge in range(6))
        self.edge_rank = tuple(edges.index(edge) if edge in edges else 6 for edge in range(6))
        self.through = sum(1 << (first_node + i) for i, node in enumerate(tile.nodes) if node.kind != "offboard")
        self.cities = sum(1 << (first_node + i) for i, node in enumerate(tile.nodes) if node.kind == "city")
        self.node_mask = ((1 << len(tile.nodes)) - 1) << first_node


class TrackGraph:
    """The laid track of one tile layout, indexed for walking.

    Nodes are numbered ``0..len(nodes)-1`` in the order of ``layout``. A track end (a
    path end on a hex edge) has the fixed id of its hex edge on the board, so ``ends``
    lists every hex edge, with or without track. Crossing a border, or using a path that
    joins two nodes directly, sets one bit of a walk's mask (again fixed per board);
    ``bit_hexes`` names the bits that track uses, in bit order.

    A graph is a function of its layout alone: :meth:`changed` derives the graph of a
    layout that differs in a few hexes, equal to the one built from scratch.
    """

    def __init__(self, board: Board, layout: dict[str, tuple[TileDef, int]]) -> None:
        shared = _board_track(board)
        size = len(shared.ends)
        self.shared = shared
        self.parts: dict[str, _HexTrack] = {}
        nodes: list[NodeRef] = []
        self.defs: list[Node] = []
        self.node_exits: list[tuple[int, ...]] = []
        self.node_links: list[tuple[tuple[int, int], ...]] = []
        self.onward_ends: list[tuple[int, ...]] = [()] * size
        self.onward_nodes: list[tuple[int, ...]] = [()] * size
        self.has_end = bytearray(size)
        self.crossing: list[tuple[int, int] | None] = [None] * size
        self.bits: dict[int, tuple[str, str]] = {}  # the bits track uses, in no order
        # the nodes a walk may pass through while no city is blocked: all but off-boards
        self.through = 0
        self.cities = 0  # the nodes that are cities
        for hex_id, (tile, rotation) in layout.items():
            part = self.parts[hex_id] = shared.hex_track(hex_id, tile, rotation, len(nodes))
            nodes.extend(part.nodes)
            self.defs.extend(tile.nodes)
            self.node_exits.extend(part.node_exits)
            self.node_links.extend(part.node_links)
            self._place(hex_id, part)
        self.nodes: tuple[NodeRef, ...] = tuple(nodes)
        self.node_ids: dict[NodeRef, int] = {ref: i for i, ref in enumerate(nodes)}
        self.ends: tuple[TrackEnd, ...] = shared.ends
        self.end_ids: dict[TrackEnd, int] = shared.end_ids
        for hex_id in self.parts:
            self._cross(hex_id)
        self.from_start: list[tuple[tuple[Segment, ...], frozenset[str]]] = [
            _segments_from(self, start) for start in range(len(nodes))
        ]
        self._settle()

    def _place(self, hex_id: str, part: _HexTrack) -> None:
        """Put ``part``'s own track in the arrays (its crossings come after)."""
        first, last = part.first_end, part.first_end + 6
        self.onward_ends[first:last] = part.onward_ends
        self.onward_nodes[first:last] = part.onward_nodes
        self.has_end[first:last] = part.has_end
        self.through = self.through & ~part.node_mask | part.through
        self.cities = self.cities & ~part.node_mask | part.cities
        for bit, _, _ in part.links:
            self.bits[bit.bit_length() - 1] = (hex_id, hex_id)

    def _cross(self, hex_id: str) -> None:
        """Join the track ends of ``hex_id`` to the track across each border, both ways."""
        for end, other, bit in self.shared.borders[hex_id]:
            if self.has_end[end] and self.has_end[other]:
                self.crossing[end] = (1 << bit, other)
                self.crossing[other] = (1 << bit, end)
                self.bits[bit] = (self.ends[min(end, other)][0], self.ends[max(end, other)][0])
            else:
                self.crossing[end] = self.crossing[other] = None
                self.bits.pop(bit, None)

    def _settle(self) -> None:
        """Derive what the route search reads from the segments found from each node."""
        self._bit_hexes: dict[int, tuple[str, str]] | None = None  # see bit_hexes
        self.segments: tuple[Segment, ...] = tuple(seg for found, _ in self.from_start for seg in found)
        adjacent: list[list[int]] = [[] for _ in self.nodes]
        for i, seg in enumerate(self.segments):
            adjacent[seg.a].append(i)
            adjacent[seg.b].append(i)
        self.adjacent: tuple[tuple[int, ...], ...] = tuple(map(tuple, adjacent))
        self._along: dict[tuple[str, ...], list[int]] | None = None
        self.reaches: dict[tuple[tuple[int, ...], int], Reach] = {}  # see :func:`reachable`
        self.walked: dict[tuple[tuple[int, ...], int], int] = {}  # see :class:`MinorLinks`
        self._packed: tuple[list[int], list[tuple[str, str]]] | None = None
        self.route_nodes: RouteNodes | None = None  # engine.routes' node tables, made when first asked

    @property
    def bit_hexes(self) -> dict[int, tuple[str, str]]:
        """The bits track uses, in bit order, and the two hexes each joins (sorted when
        first asked: only the search and the messages about a route's track read it)."""
        if self._bit_hexes is None:
            self._bit_hexes = dict(sorted(self.bits.items()))
        return self._bit_hexes

    def packed_masks(self) -> tuple[list[int], list[tuple[str, str]]]:
        """The segments' masks with the bits in use renumbered 0, 1, 2..., and what each
        renumbered bit crosses. The route search ORs and ANDs masks millions of times,
        quicker on small numbers than on the board's fixed bits (some 400). Borders come
        in the order of their first track end, hex by hex and in each tile's path order,
        then the paths between two nodes: the order the integer program's rows were
        always in (HiGHS's path, and so its time, depends on it)."""
        if self._packed is None:
            shared = self.shared
            first_link = shared.first_link_bit

            def order(bit: int) -> tuple[int, int, int]:
                if bit >= first_link:
                    return (len(shared.ends), 0, bit)
                end = shared.lower_end[bit]
                return (end // 6, self.parts[self.ends[end][0]].edge_rank[end % 6], bit)

            rank = {bit: i for i, bit in enumerate(sorted(self.bit_hexes, key=order))}
            crossed = [self.bit_hexes[bit] for bit in sorted(self.bit_hexes, key=order)]
            masks = [sum(1 << rank[b] for b in set_bits(seg.mask)) for seg in self.segments]
            self._packed = masks, crossed
        return self._packed

    def changed(self, tiles: dict[str, tuple[TileDef, int] | None]) -> TrackGraph | None:
        """The graph of this layout with the hexes of ``tiles`` changed to those tiles
        (None: no track there any more); None if that would renumber the nodes (a
        hex's count of revenue centres changes), which a fresh build does."""
        new = object.__new__(TrackGraph)
        new.__dict__.update(self.__dict__)
        new.parts = dict(self.parts)
        new.defs = list(self.defs)
        new.node_exits = list(self.node_exits)
        new.node_links = list(self.node_links)
        new.onward_ends = list(self.onward_ends)
        new.onward_nodes = list(self.onward_nodes)
        new.has_end = bytearray(self.has_end)
        new.crossing = list(self.crossing)
        new.bits = dict(self.bits)
        new.from_start = list(self.from_start)
        for hex_id, laid in tiles.items():
            old = self.parts.get(hex_id)
            tile, rotation = laid or (_NO_TRACK, 0)
            count = len(old.tile.nodes) if old else 0
            if len(tile.nodes) != count:
                return None
            first = self.node_ids[(hex_id, 0)] if count else 0
            part = self.shared.hex_track(hex_id, tile, rotation, first)
            if laid is None:
                new.parts.pop(hex_id, None)
            else:
                new.parts[hex_id] = part
            if old is not None:
                for bit, _, _ in old.links:
                    new.bits.pop(bit.bit_length() - 1)
            new.defs[first : first + count] = tile.nodes
            new.node_exits[first : first + count] = part.node_exits
            new.node_links[first : first + count] = part.node_links
            new._place(hex_id, part)
        for hex_id in tiles:
            new._cross(hex_id)
        for start, (_, touched) in enumerate(self.from_start):
            if not touched.isdisjoint(tiles):
                new.from_start[start] = _segments_from(new, start)
        new._settle()
        return new

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


def set_bits(mask: int) -> Iterable[int]:
    """The positions of the bits set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


_NO_TRACK = TileDef("", "white")
"""What a hex shows once its tile is taken away and it prints nothing."""


def _segments_from(g: TrackGraph, start: int) -> tuple[tuple[Segment, ...], frozenset[str]]:
    """The node-to-node walks through no node from ``start`` to a higher node id, and
    every hex the search looked into (a new tile there may change what it finds)."""
    start_hex = g.nodes[start][0]
    found: list[Segment] = []
    touched = {start_hex}
    for bit, other in g.node_links[start]:  # paths joining two nodes of the hex
        if start < other:
            found.append(Segment(start, other, bit, (start_hex,)))
    for exit_end in g.node_exits[start]:
        _extend_segment(g, start, exit_end, 0, (start_hex,), found, touched)
    return tuple(found), frozenset(touched)


def _extend_segment(
    g: TrackGraph,
    start: int,
    exit_end: int,
    mask: int,
    hexes: tuple[str, ...],
    found: list[Segment],
    touched: set[str],
) -> None:
    cross = g.crossing[exit_end]
    if cross is None:
        other = g.shared.across[exit_end]
        if other >= 0:
            touched.add(g.ends[other][0])
        return
    bit, entered = cross
    if mask & bit:
        return
    mask |= bit
    hex_id = g.ends[entered][0]
    touched.add(hex_id)
    hexes = hexes + (hex_id,)
    for node in g.onward_nodes[entered]:
        if start < node:
            found.append(Segment(start, node, mask, hexes))
    for onward in g.onward_ends[entered]:
        _extend_segment(g, start, onward, mask, hexes, found, touched)


_CACHE_SIZE = 32
_CACHE: BoundedCache[_LayoutKey, TrackGraph] = BoundedCache(_CACHE_SIZE)
_CHANGES_DERIVED = 4  # a layout this close to a cached one is derived from it


_LATEST: tuple[Board, dict[str, PlacedTile], TrackGraph] | None = None
"""The board, the laid tiles (a copy) and the graph :func:`track_graph` last returned."""


def track_graph(ctx: Context, state: GameState) -> TrackGraph:
    """The track graph of the map as it is now (cached per tile layout; a layout a few
    tiles away from the last one is derived from it)."""
    global _LATEST
    latest, tiles = _LATEST, state.map.tiles
    # Most asks come between two lays: comparing the tiles with the last ask's is
    # quicker than making and hashing the cache key.
    if latest is not None and latest[0] is ctx.board and latest[1] == tiles:
        return latest[2]
    placed = frozenset(tiles.items())
    key = (id(ctx.board), placed)
    graph = _CACHE.get(key)
    if graph is None:
        graph = _derived(ctx, state, key) or TrackGraph(ctx.board, tile_layout(ctx, state))
        _CACHE.put(key, graph)
    _LATEST = (ctx.board, dict(tiles), graph)
    return graph


def tile_layout(ctx: Context, state: GameState) -> dict[str, tuple[TileDef, int]]:
    """Each hex with track or a revenue centre, in board order: its tile and rotation."""
    return {h: tile for h in ctx.board.hexes if (tile := _track_at(ctx, state, h)) is not None}


def _track_at(ctx: Context, state: GameState, hex_id: str) -> tuple[TileDef, int] | None:
    """The tile on ``hex_id`` and its rotation, or None if it has neither track nor a
    revenue centre."""
    tile, rotation = ctx.tile_at(state, hex_id)
    return (tile, rotation) if tile.nodes or tile.paths else None


def _derived(ctx: Context, state: GameState, key: _LayoutKey) -> TrackGraph | None:
    """The graph of the map derived from the most recently used cached graph of the
    same board, if that one's tiles differ on a few hexes only."""
    board_id, placed = key
    for (other_board, other_placed), graph in reversed(_CACHE.items()):
        if other_board != board_id:
            continue
        changed = {h for h, _ in placed ^ other_placed}
        if len(changed) > _CHANGES_DERIVED:
            return None
        return graph.changed({h: _track_at(ctx, state, h) for h in changed})
    return None


def blocked_nodes(state: GameState, graph: TrackGraph, friends: Iterable[str]) -> int:
    """Mask of the cities whose slots are all held by tokens of companies not in ``friends``."""
    open_to = {*friends, NEUTRAL}  # a friend's token, or a neutral one (never blocks), leaves it open
    mask = 0
    for city, occupants in state.map.tokens.items():
        node = graph.node_ids.get(city)
        if node is not None and open_to.isdisjoint(occupants) and _is_full(graph, node, occupants):
            mask |= 1 << node
    return mask


def _is_full(graph: TrackGraph, node: int, occupants: list[str | None]) -> bool:
    """Whether every slot of the city at ``node`` holds a token."""
    slots = graph.defs[node].slots
    return bool(slots) and len(occupants) - occupants.count(None) >= slots


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
        self.entries: set[int] = set()  # see Reach.entries
        self.seen: set[tuple[int, int, int, int]] = set()
        self.full_nodes = 0
        self.full_ends: set[int] = set()
        self.full_entries: set[int] = set()
        self.surveying = True

    def _all_proven(self) -> bool:
        """Whether every node, track end and entry the survey found is reached legally."""
        return (
            self.nodes == self.full_nodes
            and len(self.ends) == len(self.full_ends)
            and len(self.entries) == len(self.full_entries)
        )

    def run(self, starts: Iterable[int]) -> _Walk:
        starts = list(starts)
        try:
            self._survey(starts)
            self.surveying = False
            if self._all_proven():
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
        crossing, onward_nodes, onward_ends = g.crossing, g.onward_nodes, g.onward_ends
        node_links, node_exits = g.node_links, g.node_exits
        passable, goal, ends, full_ends = self.passable, self.goal, self.ends, self.full_ends
        entries, full_entries, across = self.entries, self.full_entries, g.shared.across
        first = set(starts)
        queue: deque[tuple[bool, int, int, bool, int, int]] = deque(
            (True, start, -1, True, 1 << start, 0) for start in starts
        )
        push, pop = queue.append, queue.popleft
        arrivals: set[int] = set()  # node | (end arrived by + 1) << 16
        outward: set[int] = set()
        nodes = full_nodes = 0
        try:
            while queue:
                at_node, where, came, legal, visited, used = pop()
                if at_node:
                    arrival = where | (came + 1) << 16
                    if arrival in arrivals:
                        continue
                    arrivals.add(arrival)
                    here = 1 << where
                    full_nodes |= here
                    if legal:
                        nodes |= here
                        if goal & here:
                            raise _Done
                    if not passable & here and where not in first:
                        continue
                    for bit, other in node_links[where]:
                        fine = legal and not used & bit and not visited >> other & 1
                        push((True, other, -1, fine, visited | 1 << other, used | bit))
                    for end in node_exits[where]:
                        if end != came:
                            push((False, end, -1, legal, visited, used))
                    continue
                if where in outward:
                    continue
                outward.add(where)
                full_ends.add(where)
                if legal:
                    ends.add(where)
                cross = crossing[where]
                if cross is None:
                    facing = across[where]
                    if facing >= 0:  # no track across yet: a tile laid there is entered here
                        full_entries.add(facing)
                        if legal:
                            entries.add(facing)
                    continue
                bit, entered = cross
                legal = legal and not used & bit
                used |= bit
                full_ends.add(entered)
                full_entries.add(entered)
                if legal:
                    ends.add(entered)
                    entries.add(entered)
                for other in onward_nodes[entered]:
                    fine = legal and not visited >> other & 1
                    push((True, other, entered, fine, visited | 1 << other, used))
                for end in onward_ends[entered]:
                    push((False, end, -1, legal, visited, used))
        finally:
            self.nodes |= nodes
            self.full_nodes |= full_nodes

    def _mark_node(self, node: int) -> None:
        self.nodes |= 1 << node
        if self.goal & (1 << node) or (not self.surveying and self._all_proven()):
            raise _Done

    def _mark_end(self, end: int) -> None:
        if end not in self.ends:
            self.ends.add(end)
            if not self.surveying and self._all_proven():
                raise _Done

    def _mark_entry(self, end: int) -> None:
        if end not in self.entries:
            self.entries.add(end)
            if not self.surveying and self._all_proven():
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
        if cross is None:
            facing = self.g.shared.across[end]
            if facing >= 0:
                self._mark_entry(facing)
            return
        if used & cross[0]:
            return
        bit, entered = cross
        used |= bit
        key = (1, entered, visited, used)
        if key in self.seen:
            return
        self.seen.add(key)
        self._mark_end(entered)
        self._mark_entry(entered)
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
    ends that point into empty hexes, so a new tile may connect there (8.6);
    ``entries`` the edges it runs into a hex by, the only ones where it could go on
    along new track of that hex.
    """
    graph = track_graph(ctx, state)
    starts = token_nodes(state, graph, company)
    passable = passable_nodes(graph, blocked_nodes(state, graph, [company]))
    key = (tuple(starts), passable)  # all a walk depends on besides the track
    reach = graph.reaches.get(key)
    if reach is None:
        walk = _Walk(graph, passable).run(starts)
        nodes = frozenset(graph.nodes[n] for n in range(len(graph.nodes)) if walk.nodes >> n & 1)
        track_ends = frozenset(graph.ends[e] for e in walk.ends)
        hexes = frozenset(h for h, _ in nodes) | frozenset(h for h, _ in track_ends)
        entries = frozenset(graph.ends[e] for e in walk.entries)
        reach = graph.reaches[key] = Reach(nodes, hexes, track_ends, entries)
    return reach


def reached_nodes(graph: TrackGraph, passable: int, starts: list[int]) -> int:
    """The nodes a walk from ``starts`` reaches by the rules of 8.1 (as :class:`_Walk`
    finds them), as a mask: what the survey proves, then, for the nodes it found but
    could not prove, a depth-first walk over whole segments that goes only where one
    of them is still within reach on track it has not used."""
    survey = _Walk(graph, passable)
    survey._survey(starts)
    if survey.nodes == survey.full_nodes:
        return survey.nodes
    return _segment_walk(graph, passable, starts, survey.nodes, survey.full_nodes & ~survey.nodes)


def _segment_walk(graph: TrackGraph, passable: int, starts: list[int], reached: int, unproven: int) -> int:
    """``reached`` and the nodes of ``unproven`` that a walk from ``starts`` reaches (8.1),
    walking whole segments, each branch only while some of ``unproven`` is within reach."""
    segments, adjacent = graph.segments, graph.adjacent
    seen: set[tuple[int, int, int]] = set()

    def onward(node: int, visited: int, used: int) -> Iterable[tuple[int, int, int]]:
        """Each segment from ``node`` to a node not visited on track not used: (that
        node, its bit, the segment's track)."""
        for s in adjacent[node]:
            seg = segments[s]
            other = seg.a ^ seg.b ^ node
            if not visited >> other & 1 and not used & seg.mask:
                yield other, 1 << other, seg.mask

    def within_reach(head: int, visited: int, used: int) -> int:
        """The unproven nodes track from ``head`` leads to, through passable nodes not
        visited, on segments using no border used (relaxed: walks may share track)."""
        found, stack, seen_nodes = 0, [head], visited
        while stack:
            for other, bit, _ in onward(stack.pop(), seen_nodes, used):
                if seen_nodes & bit:
                    continue
                seen_nodes |= bit
                found |= bit
                if passable & bit:
                    stack.append(other)
        return found & unproven

    def leave(node: int, visited: int, used: int) -> None:
        nonlocal reached, unproven
        for other, bit, mask in onward(node, visited, used):
            if unproven & bit:
                reached |= bit
                unproven &= ~bit
                if not unproven:
                    raise _Done
            if not passable & bit:
                continue
            key = (other, visited | bit, used | mask)
            if key in seen or not within_reach(*key):
                continue
            seen.add(key)
            leave(*key)

    try:
        for start in starts:
            if within_reach(start, 1 << start, 0):
                leave(start, 1 << start, 0)
    except _Done:
        pass
    return reached


def reached_with(ctx: Context, state: GameState, company: str, hex_id: str, laid: tuple[TileDef, int]
                 ) -> tuple[frozenset[NodeRef], int] | None:
    """The revenue nodes ``company`` would reach (8.1, as :func:`reachable`) with the
    tile and rotation ``laid`` on ``hex_id``, the state left as it is, and how many
    segments between two of them would pass through ``hex_id`` (the legs a route could
    run there); None when the lay changes the hex's count of revenue centres (a fresh
    graph would be needed)."""
    graph = track_graph(ctx, state).changed({hex_id: laid})
    if graph is None:
        return None
    starts = token_nodes(state, graph, company)
    reached = reached_nodes(graph, passable_nodes(graph, blocked_nodes(state, graph, [company])), starts)
    legs = sum(1 for seg in graph.segments if reached >> seg.a & 1 and reached >> seg.b & 1 and hex_id in seg.hexes)
    return frozenset(graph.nodes[n] for n in range(len(graph.nodes)) if reached >> n & 1), legs


def has_route(ctx: Context, state: GameState, company: str) -> bool:
    """True if a walk from one of ``company``'s token cities reaches a revenue centre on
    another hex (8.8) — which may be another of its own token cities; RN 7.2: on
    18xx.games any other revenue centre (:attr:`Rules.run_asked_for_any_walk`).

    Such a walk starts with a segment from the token city, and the first revenue centre
    it meets is that segment's other end: another hex's, or (8.8.1, one revenue centre
    per hex) the walk cannot go on from it.
    """
    graph = track_graph(ctx, state)
    any_walk = ctx.rules.run_asked_for_any_walk
    for start in token_nodes(state, graph, company):
        own_hex = graph.nodes[start][0]
        for s in graph.adjacent[start]:
            seg = graph.segments[s]
            if any_walk or graph.nodes[seg.a ^ seg.b ^ start][0] != own_hex:
                return True
    return False


def city_is_unconnected(ctx: Context, state: GameState, hex_id: str, city: int) -> bool:
    """7.4 and the glossary: "When a city cannot trace a legal route to another city"
    (tokens ignored): track to a town or an off-board alone leaves it unconnected.
    RN 4.3: on 18xx.games any other city, town or off-board connects it, and so does
    track that loops back into the city."""
    graph = track_graph(ctx, state)
    node = graph.node_of((hex_id, city))
    if node is None:
        return True
    others = ((1 << len(graph.nodes)) - 1) & ~(1 << node)
    if not ctx.rules.unconnected_unless_no_stop_reached:
        others &= sum(1 << n for n, d in enumerate(graph.defs) if d.kind == "city")
    walk = _Walk(graph, passable_nodes(graph, 0), goal=others).run([node])
    if walk.nodes & others:
        return False
    return not (ctx.rules.unconnected_unless_no_stop_reached and _loops_back(graph, node))


def _loops_back(graph: TrackGraph, node: int) -> bool:
    """Whether track leaving ``node`` by one exit comes back into it by another, through
    no other node (no segment: a segment joins two nodes)."""

    def runs_back(exit_end: int, crossed: int) -> bool:
        cross = graph.crossing[exit_end]
        if cross is None or crossed & cross[0]:
            return False
        bit, entered = cross
        return node in graph.onward_nodes[entered] or any(
            runs_back(onward, crossed | bit) for onward in graph.onward_ends[entered]
        )

    return any(runs_back(end, 0) for end in graph.node_exits[node])


def unconnected_cities(ctx: Context, state: GameState, spots: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """The spots (hex, city) in an unconnected city, where a major may start (7.4: each
    city judged by itself). RN 4.3: on 18xx.games only on a hex whose cities are all
    unconnected (:attr:`Rules.unconnected_judged_per_hex`)."""
    spots = list(spots)
    if not ctx.rules.unconnected_judged_per_hex:
        return [(h, c) for h, c in spots if city_is_unconnected(ctx, state, h, c)]
    hexes = {
        h for h in {h for h, _ in spots}
        if all(city_is_unconnected(ctx, state, h, c) for c in ctx.tile_at(state, h)[0].city_indexes)
    }
    return [(h, c) for h, c in spots if h in hexes]


class MinorLinks:
    """Which minors' tokens reach which, for one merge question (9.2), on the map as it
    is: the track graph, the full cities and each minor's token nodes are worked out
    once, however many pairs and merges are asked about."""

    def __init__(self, ctx: Context, state: GameState) -> None:
        self.graph = track_graph(ctx, state)
        self._state = state
        self._nodes: dict[str, tuple[int, ...]] = {}
        self._full = [  # (node, its occupants) of each city with no slot left
            (self.graph.node_ids[city], frozenset(occupants))
            for city, occupants in state.map.tokens.items()
            if city in self.graph.node_ids and _is_full(self.graph, self.graph.node_ids[city], occupants)
        ]

    def connected(self, a_sym: str, b_sym: str, merging: set[str]) -> bool:
        """True if minor ``a_sym``'s token reaches ``b_sym``'s token city (9.2): tokens of
        the minors in the merge (and of ``a_sym``, ``b_sym``) do not block; cities of one
        hex count as connected only if track joins them.

        Whether ``b_sym``'s own cities may be passed through does not matter (a walk
        reaches the first of them before it could pass through one), so the walk leaves
        ``b_sym`` out: one walk from ``a_sym`` answers for every minor a merge asks about.
        """
        targets = 0
        for node in self._token_nodes(b_sym):
            targets |= 1 << node
        if not targets:
            return False
        starts = self._token_nodes(a_sym)
        open_to = ((merging | {a_sym}) - {b_sym}) | {NEUTRAL}
        blocked = 0
        for node, occupants in self._full:
            if open_to.isdisjoint(occupants):
                blocked |= 1 << node
        passable = passable_nodes(self.graph, blocked)
        key = (starts, passable)
        reached = self.graph.walked.get(key)
        if reached is None:
            reached = self.graph.walked[key] = _Walk(self.graph, passable).run(starts).nodes
        return bool(reached & targets)

    def _token_nodes(self, sym: str) -> tuple[int, ...]:
        nodes = self._nodes.get(sym)
        if nodes is None:
            nodes = self._nodes[sym] = tuple(token_nodes(self._state, self.graph, sym))
        return nodes
