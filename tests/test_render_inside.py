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
from render.map import APOTHEM, render_map
from tests.svg_geometry import beyond_hex, hex_shapes

OUTLINE_HALF = 0.75
"""Half the width of the grey hex outline (``.outline`` stroke 1.5): ink closer to the
edge than this paints over the border between two hexes."""
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

