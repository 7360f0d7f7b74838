"""The track a company reaches as 18xx.games finds it when it checks a lay's new track
(8.6; the switch :attr:`Rules.new_track_by_first_walk`).

The site walks a company's track depth first from each of its token cities, path by path
in the order each tile lists its paths, across one border at a time. It does not run onto
a path by an edge the walk has already left that hex by, and it walks a city, town or
path only once in a walk from one token, unless it came there by an edge where two paths
of a tile converge. So where the walk first comes to a city decides what it explores
beyond it: track a train could reach by another route (8.1) may be left out. Troika's
own reach (:mod:`engine.graph`) follows every route.

The walk runs on the map as it would be after the lay; its calls are generators on an
explicit stack, taken in the order the site's recursion takes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from .board import TileDef, is_edge, node_index
from .graph import NodeRef
from .state import Context, GameState
from .tokens import NEUTRAL
from .track import city_mapping, path_ends

PathRef = tuple[str, int]
"""A path of a hex's tile: (hex, index in the tile's list of paths)."""

Frame = Iterator["Frame"]
"""A step of the walk: it yields the steps it calls, in order."""


class _Map:
    """The map after laying ``tile`` on ``hex_id``, as the walk reads it."""

    def __init__(self, ctx: Context, state: GameState, company: str, hex_id: str, tile: TileDef, rotation: int):
        self.ctx, self.state, self.company = ctx, state, company
        self.hex_id, self.tile, self.rotation = hex_id, tile, rotation
        old, old_rotation = ctx.tile_at(state, hex_id)
        self.mapping = city_mapping(old, old_rotation, tile, rotation) or {}
        self.holders: dict[NodeRef, list[str]] = {}
        for (h, city), slots in state.map.tokens.items():
            self.holders.setdefault(self.node_after(h, city), []).extend(s for s in slots if s is not None)
        self._paths: dict[str, tuple[tuple[int, int], ...]] = {}

    def node_after(self, hex_id: str, node: int) -> NodeRef:
        return (hex_id, self.mapping.get(node, node)) if hex_id == self.hex_id else (hex_id, node)

    def tile_at(self, hex_id: str) -> tuple[TileDef, int]:
        return (self.tile, self.rotation) if hex_id == self.hex_id else self.ctx.tile_at(self.state, hex_id)

    def paths(self, hex_id: str) -> tuple[tuple[int, int], ...]:
        found = self._paths.get(hex_id)
        if found is None:
            tile, rotation = self.tile_at(hex_id)
            found = self._paths[hex_id] = tile.rotated_paths(rotation)
        return found

    def blocks(self, node: NodeRef) -> bool:
        """An off-board ends a walk; a city full of other companies' tokens too."""
        stop = self.tile_at(node[0])[0].nodes[node[1]]
        if stop.kind == "offboard":
            return True
        if stop.kind != "city":
            return False
        found = self.holders.get(node, [])
        return self.company not in found and NEUTRAL not in found and len(found) >= stop.slots


def walks_onto_new_track(
    ctx: Context, state: GameState, company: str, hex_id: str, tile: TileDef, rotation: int
) -> bool:
    """8.6 as 18xx.games checks it: its walk from ``company``'s tokens, once ``tile``
    lies on ``hex_id`` at ``rotation``, runs along a path of the tile that no old path
    covers, or one whose city or town changes value. A lay on a hex without track
    passes (its connection is the legal rotation's matter)."""
    old, old_rotation = ctx.tile_at(state, hex_id)
    old_paths: dict[frozenset[int | str], tuple[int, int]] = {}
    for path in old.rotated_paths(old_rotation):
        old_paths.setdefault(path_ends(old, path), path)
    if not old_paths:
        return True
    paths = tile.rotated_paths(rotation)

    def new_or_revalued(ref: PathRef) -> bool:
        if ref[0] != hex_id:
            return False
        covering = old_paths.get(path_ends(tile, paths[ref[1]]))
        return covering is None or _values(old, covering) != _values(tile, paths[ref[1]])

    return _walk_finds(_Map(ctx, state, company, hex_id, tile, rotation), new_or_revalued)


def _values(tile: TileDef, path: tuple[int, int]) -> list[int]:
    return sorted(tile.nodes[node_index(end)].revenue for end in path if not is_edge(end))


def _walk_finds(board: _Map, goal: Callable[[PathRef], bool]) -> bool:
    """Whether the site's walk from the company's tokens comes to a path ``goal`` names."""
    starts = {
        board.node_after(t.hex, t.city)
        for t in board.state.companies[board.company].placed_tokens
        if t.hex is not None and t.city is not None
    }
    for start in starts:
        walk = _Walk(board, starts - {start}, goal)
        stack = [walk.node(start)]
        try:
            while stack:
                called = next(stack[-1], None)
                if called is None:
                    stack.pop()
                else:
                    stack.append(called)
        except _Found:
            return True
    return False


class _Found(Exception):
    """Raised inside a walk when it comes to a path its goal names."""


class _Walk:
    """One walk from one token: the site's recursion, each call a generator that yields
    the calls it makes (:data:`Frame`). A walk that has left a hex by an edge where two
    or more of its paths end ("converging") forgets, once done with them, the cities and
    paths it walked after that edge, so other branches may walk them again."""

    def __init__(self, board: _Map, visited: set[NodeRef], goal: Callable[[PathRef], bool]) -> None:
        self.board = board
        self.visited = set(visited)  # the other token cities: their own walks cover them
        self.walking: set[PathRef] = set()
        self.goal = goal
        self.edges_used: Counter[tuple[str, int]] = Counter()

    def node(self, node: NodeRef, converging: bool = False) -> Frame:
        if node in self.visited:
            return
        self.visited.add(node)
        hex_id, index = node
        for i, path in enumerate(self.board.paths(hex_id)):
            if any(not is_edge(end) and node_index(end) == index for end in path):
                yield self.path((hex_id, i), -1, node, converging, converging)
        if converging:
            self.visited.discard(node)

    def path(self, ref: PathRef, skip: int, origin: NodeRef, from_origin: bool, converging: bool) -> Frame:
        """Walk path ``ref``, entered by edge ``skip`` (-1: from a node), in the walk that
        began at node ``origin`` (itself converging if ``from_origin``)."""
        hex_id, index = ref
        paths = self.board.paths(hex_id)
        ends = paths[index]
        if ref in self.walking or any(self.edges_used[(hex_id, e)] for e in ends if is_edge(e)):
            return
        self.walking.add(ref)
        if self.goal(ref):
            raise _Found
        for end in ends:
            if not is_edge(end):
                node = (hex_id, node_index(end))
                if node != origin and not self.board.blocks(node):
                    yield self.node(node, from_origin or converging)
        for edge in ends:
            if not is_edge(edge) or edge == skip:
                continue
            neighbour = self.board.ctx.board.neighbours[hex_id].get(edge)
            if neighbour is None:
                continue
            facing = (edge + 3) % 6
            onward = converging or sum(end == edge for path in paths for end in path) > 1
            self.edges_used[(hex_id, edge)] += 1
            for i, other in enumerate(self.board.paths(neighbour)):
                if facing in other:
                    yield self.path((neighbour, i), facing, origin, from_origin, onward)
            self.edges_used[(hex_id, edge)] -= 1
        if converging:
            self.walking.discard(ref)
