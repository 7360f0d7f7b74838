"""Nothing on the map hides anything else: checked on the geometry of the SVG itself.

For the end of every shared game (the engine's replay where it reaches the end,
else the last line of the 18xx.games trace: its tiles and tokens), and for
close-ups: no text box crosses a hex border, another text box, a token, an
empty city slot or a town. Texts keep off track too where their hex has room;
the few that cannot are counted and must stay few.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from engine.board import hex_distance, load_board
from engine.replay import replay
from engine.rules import Rules
from engine.state import Context, GameState, PlacedTile
from engine.titles import title_named
from render.map import render_map
from tests.conftest import GAMES, read_json, read_json_lines
from tests.svg_geometry import box_meets_segment, map_geometry, overlaps

SHARED_GAMES = ["1861-29683", "1861-bank-breaks", "1867-19792", "1867-21268"]
GENERATED = ["1861-gen-P6-column-S4010", "1867-gen-P2-grid-S5006"]
"""Two of the generated games (a six-player 1861, a two-player 1867 whose Toronto
is the brown 122, two cities of two slots); all fifty pass, but take a minute."""
Box = tuple[float, float, float, float]
MOST_ON_TRACK = 0.2
"""At most this share of a map's texts may lie on track (crowded cities, off-boards)."""


def end_position(name: str) -> tuple[Context, GameState]:
    """The engine's state at the end of a shared game, or the tiles and tokens of the
    trace's last line where the engine cannot replay it to the end yet."""
    path = GAMES / f"{name}.json"
    if not path.exists():
        pytest.skip(f"shared games not found at {GAMES}")
    run = replay(read_json(path))
    if run.stopped_at is None:
        return run.game.ctx, run.game.state
    ctx = Context(load_board(name.split("-")[0]), Rules.rulebook(), title_named(name.split("-")[0]))
    return ctx, _trace_end(ctx, read_json_lines(GAMES / f"{name}.trace.jsonl"))


def generated_end(name: str) -> tuple[Context, GameState]:
    """The tiles and tokens at the end of a generated game's trace."""
    path = GAMES / "generated" / f"{name}.trace.jsonl.gz"
    if not path.exists():
        pytest.skip(f"generated games not found at {path.parent}")
    ctx = Context(load_board(name.split("-")[0]), Rules.rulebook(), title_named(name.split("-")[0]))
    return ctx, _trace_end(ctx, read_json_lines(path))


def _trace_end(ctx: Context, trace: list[dict[str, Any]]) -> GameState:
    last = trace[-1]
    state = GameState(title=ctx.board.title, players=[], companies={}, bank=0, phase=last["phase"])
    for hex_id, code in last["tiles"].items():
        tile, rotation = code.split("@")
        state.map.tiles[hex_id] = PlacedTile(tile, int(rotation), f"{tile}-0")
    for sym, corp in last["corporations"].items():
        for hex_id in corp["tokens"]:
            tile, _ = ctx.tile_at(state, hex_id)
            for city in tile.city_indexes:
                slots = state.map.tokens.setdefault((hex_id, city), [None] * tile.nodes[city].slots)
                if None in slots:
                    slots[slots.index(None)] = sym
                    break
    return state


@pytest.fixture(scope="module", params=SHARED_GAMES + GENERATED)
def finished(request: pytest.FixtureRequest) -> tuple[Context, GameState]:
    if request.param in GENERATED:
        return generated_end(request.param)
    return end_position(request.param)


@pytest.mark.slow
def test_no_text_hides_a_border_a_token_or_another_text(
    finished: tuple[Context, GameState],
) -> None:
    ctx, state = finished
    geometry = map_geometry(ET.fromstring(render_map(ctx, state)))
    found = overlaps(geometry)
    assert (found.border, found.label, found.token) == ([], [], [])
    assert len(found.track) <= MOST_ON_TRACK * len(geometry.labels), found.track
    assert len(geometry.labels) >= len(ctx.board.location_names)  # the check saw the texts


def test_close_ups_show_whole_hexes_with_whole_texts(
    finished: tuple[Context, GameState],
) -> None:
    """Around every laid tile: each hex drawn is whole inside the picture's frame,
    and so is every text and token."""
    ctx, state = finished
    for focus in sorted(state.map.tiles)[:: max(1, len(state.map.tiles) // 8)]:
        root = ET.fromstring(render_map(ctx, state, focus=focus))
        x, y, w, h = map(float, root.get("viewBox").split())
        margin = float(root.get("data-margin"))
        frame = (x + margin, y + margin, x + w - margin, y + h - margin)
        geometry = map_geometry(root)
        found = overlaps(geometry)
        assert (found.border, found.label, found.token) == ([], [], []), focus
        for label in geometry.labels:
            assert _within(label.box, frame), (focus, label)
        for circle in geometry.circles:
            x, y, r = circle.x, circle.y, circle.r
            box = (x - r, y - r, x + r, y + r)
            assert _within(box, frame), (focus, circle)
        shown = {g.get("data-hex") for g in root.iter() if g.get("class") in ("tile", "printed")}
        assert focus in shown
        assert all(hex_distance(h, focus) <= 3 for h in shown)


def _within(box: Box, frame: Box) -> bool:
    return frame[0] <= box[0] and frame[1] <= box[1] and box[2] <= frame[2] and box[3] <= frame[3]


def test_geometry_check_finds_a_crossing() -> None:
    """The border check itself: a box across an edge is caught, one beside it is not."""
    assert box_meets_segment((0, 0, 10, 10), (5, -5), (5, 15))
    assert not box_meets_segment((0, 0, 10, 10), (12, -5), (12, 15))
    assert box_meets_segment((0, 0, 10, 10), (-5, -5), (15, 15))


def test_names_of_neighbouring_hexes_keep_apart(finished: tuple[Context, GameState]) -> None:
    """Finding 20: "Guelph" at the foot of its hex over "Hamilton" at the top of the
    next read as one name. Names either side of a border now keep a gap wherever the
    hexes have room."""
    ctx, state = finished
    geometry = map_geometry(ET.fromstring(render_map(ctx, state)))
    names = [label for label in geometry.labels if label.kind in ("name", "name-note")]
    close = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if a.hex == b.hex or hex_distance(a.hex, b.hex) != 1:
                continue
            gap_x = max(a.box[0] - b.box[2], b.box[0] - a.box[2])
            gap_y = max(a.box[1] - b.box[3], b.box[1] - a.box[3])
            if max(gap_x, gap_y) < 12:
                close.append((a.hex, b.hex))
    assert close == []
