"""Lays toward revenue: which of a company's lays reach new stops or new legs between
its stops, and which lead its track toward a stop it does not reach yet (8.1, 8.6).

A lay is judged without copying the game: the company's reach (8.1) with the tile put
on its hex (:func:`engine.graph.reached_with`), the stops and legs it adds, and whether
the tile's new open ends come nearer a revenue centre the company does not reach (a
city it could run to or put its next token in). The computer player tries the lays that
do most first and, among moves that leave its seat about as well off, prefers a lay
that leads on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import LayTile
from ..board import hex_distance
from ..graph import NodeRef, reachable, reached_with

if TYPE_CHECKING:
    from ..game import Game

FAR = 9
"""Hexes counted at most between track and the nearest stop it could lead to."""


class LayAims:
    """What ``company``'s lays in ``game`` lead to, against its reach now."""

    def __init__(self, game: Game, company: str) -> None:
        self.game, self.company = game, company
        ctx, state = game.ctx, game.state
        self.color = ctx.board.phase(state.phase).color
        self.reach = reachable(ctx, state, company)
        self.reached: frozenset[NodeRef] = self.reach.nodes
        touched = {h for h, _ in self.reached}
        self.targets = frozenset(h for h in ctx.board.hexes if h not in touched and self._stop_value(h))
        self._legs: dict[str, int] = {}
        self._gains: dict[LayTile, tuple[int, int]] = {}
        self._distances: dict[str, int] = {}

    def _stop_value(self, hex_id: str, tile_name: str | None = None) -> int:
        """The most a revenue centre of the hex pays (its tile, or ``tile_name`` put there)."""
        board = self.game.ctx.board
        tile = board.tiles[tile_name] if tile_name else self.game.ctx.tile_at(self.game.state, hex_id)[0]
        return max((n.value(self.color) for n in tile.nodes), default=0)

    def _distance(self, hex_id: str) -> int:
        """Hexes from ``hex_id`` to the nearest stop the company does not reach (0: on one)."""
        found = self._distances.get(hex_id)
        if found is None:
            found = self._distances[hex_id] = min([FAR, *(hex_distance(hex_id, t) for t in self.targets)])
        return found

    def joins(self, lay: LayTile) -> int:
        """How many more of the edges its reached track runs into the hex by the lay's
        tile meets than the tile there now (2 for track that joins two of its lines), a
        quick sign of new legs (:meth:`gain` finds them)."""
        ctx = self.game.ctx
        entries = self.reach.entry_edges(lay.hex)
        tile, rotation = ctx.tile_at(self.game.state, lay.hex)
        return len(ctx.board.tiles[lay.tile].exits(lay.rotation) & entries) - len(tile.exits(rotation) & entries)

    def gain(self, lay: LayTile) -> tuple[int, int]:
        """What the stops ``lay`` newly reaches pay (with an upgrade's rise at a stop it
        reaches), and how many more legs between reached stops run through its hex; (0, 0)
        when it cannot be told cheaply."""
        found = self._gains.get(lay)
        if found is None:
            found = self._gains[lay] = self._gain(lay)
        return found

    def _gain(self, lay: LayTile) -> tuple[int, int]:
        ctx, state = self.game.ctx, self.game.state
        after = reached_with(ctx, state, self.company, lay.hex, (ctx.board.tiles[lay.tile], lay.rotation))
        if after is None:
            return 0, 0
        reached, legs = after
        added = sum(self._node_value(ref, lay) for ref in reached - self.reached)
        if any(h == lay.hex for h, _ in reached & self.reached):
            added += max(0, self._stop_value(lay.hex, lay.tile) - self._stop_value(lay.hex))
        return added, legs - self._legs_now(lay.hex)

    def _legs_now(self, hex_id: str) -> int:
        found = self._legs.get(hex_id)
        if found is None:
            now = reached_with(self.game.ctx, self.game.state, self.company, hex_id,
                               self.game.ctx.tile_at(self.game.state, hex_id))
            found = self._legs[hex_id] = now[1] if now else 0
        return found

    def _node_value(self, ref: NodeRef, lay: LayTile) -> int:
        hex_id, index = ref
        ctx = self.game.ctx
        tile = ctx.board.tiles[lay.tile] if hex_id == lay.hex else ctx.tile_at(self.game.state, hex_id)[0]
        return tile.nodes[index].value(self.color) if index < len(tile.nodes) else 0

    def toward(self, lay: LayTile) -> int:
        """How the lay's track leads toward a stop the company does not reach: 0 if none
        of its ends into an empty hex comes nearer one than its own hex is, else 2 if such
        an end opens onto the stop (the next lay reaches it), 1 if it only comes nearer."""
        nearest = min((self._distance(h) for h in self._opened(lay)), default=FAR)
        if nearest >= self._distance(lay.hex):
            return 0
        return 2 if nearest == 0 else 1

    def aim(self, lay: LayTile) -> str | None:
        """The stop the company does not reach that the lay's track leads toward, the
        nearest (:meth:`toward`); None if it leads toward none."""
        if not self.toward(lay):
            return None
        return min((hex_distance(h, t), t) for h in self._opened(lay) for t in self.targets)[1]

    def open_ends(self, lay: LayTile) -> list[str]:
        """The empty hexes the lay's track runs into (where the next lay may go on)."""
        return self._opened(lay)

    def _opened(self, lay: LayTile) -> list[str]:
        """The empty hexes the lay's track ends run into."""
        ctx = self.game.ctx
        across = ctx.board.across
        return [other for edge in ctx.board.tiles[lay.tile].exits(lay.rotation)
                if (other := across.get((lay.hex, edge), ("", 0))[0])
                and not ctx.tile_at(self.game.state, other)[0].paths]
