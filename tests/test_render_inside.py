"""Each hex's drawing stays inside its hex and leaves its outline visible: checked on
the geometry of the SVG itself, for every printed hex of both titles.

A checker saw "a yellow wedge sticks out of the Toronto hex (F16) across its
north-east edge": G15's must-connect triangle (8.6.2) lay on the outline it shares
with Toronto, over the border line, yellow beside Toronto's yellow.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from engine.game import Game
from engine.state import PlacedTile
from render.map import APOTHEM, OUTLINE_HALF, render_map
from tests.svg_geometry import beyond_hex, hex_shapes

TRACK = ("rail", "casing")
"""Track runs to the middle of an edge, where the neighbour's track meets it."""


def _start(title: str) -> Game:
    return Game.new([("1", "Anna"), ("2", "Boris"), ("3", "Clara")], 1, title=title)


def overreach(root: ET.Element) -> list[tuple[str, str, float]]:
    """(hex, shape, how far its ink reaches past the inside of the outline) for every
    shape of a hex other than track that covers the outline or crosses it."""
    found = []
    for shape in hex_shapes(root):
        if shape.kind in TRACK:
            continue
        reach = max(beyond_hex(p, shape.center, APOTHEM) for p in shape.points) + shape.half_stroke
        if reach > -OUTLINE_HALF:
            found.append((shape.hex, f"{shape.tag}.{shape.kind}", round(reach + OUTLINE_HALF, 2)))
    return found


@pytest.mark.parametrize("title", ["1861", "1867"])
def test_every_printed_hex_stays_inside_its_outline(title: str) -> None:
    """From the start of a game: cities, towns, tokens, off-board arrows and values,
    triangles and texts of every printed hex lie inside it, off its border line."""
    game = _start(title)
    root = ET.fromstring(render_map(game.ctx, game.state))
    shapes = list(hex_shapes(root))
    assert len({shape.hex for shape in shapes}) > 30  # the check saw the printed hexes
    assert any(shape.kind == "stub" for shape in shapes) is (title == "1867")
    assert overreach(root) == []



@pytest.mark.parametrize("title", ["1861", "1867"])
def test_every_tile_at_every_rotation_stays_inside_its_hex(title: str) -> None:
    """Each tile of the title laid at each rotation, one to a hex: its cities keep to
    the hex (Toronto's brown 122 and Montreal's X5-X7 drew a city of two slots up to
    15 px into the next hex)."""
    game = _start(title)
    state, hexes = game.state, list(game.ctx.board.hexes)
    tiles = list(game.ctx.board.tiles)
    assert len(hexes) >= len(tiles)
    found = []
    for rotation in range(6):
        state.map.tiles = {h: PlacedTile(t, rotation, f"{t}-0") for h, t in zip(hexes, tiles)}
        laid = dict(zip(hexes, tiles))
        root = ET.fromstring(render_map(game.ctx, state))
        found += [(laid.get(h, h), rotation, shape) for h, shape, _ in overreach(root)]
    assert found == []
