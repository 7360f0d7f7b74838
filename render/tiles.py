"""The tile sheet: every tile a company may lay on one hex, in each rotation that lays
different track, drawn as it would sit on the map (``tiles HEX``).

Each cell shows the hex with the candidate tile at its rotation (tokens carried over
as the engine carries them), its neighbours faded around it, the neighbours' ids at
the edges (bold where the tile's track leaves towards them), and under it the
command to type and what the lay costs. Cells are set in a grid of at most
:data:`COLUMNS` columns so the sheet reads on a phone.
"""

from __future__ import annotations

import copy
import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from engine import Context, GameState, PlacedTile, city_mapping

from .map import APOTHEM, HEX_POINTS, SIZE, draw_hexes, hex_center
from .map import CSS as MAP_CSS
from .svg import INK, PAPER, el, fmt, money, svg_root, text, text_width, to_string

COLUMNS = 3
WINDOW = (3.2 * SIZE, 3.3 * APOTHEM)
"""Width and height of the map shown in each cell: the hex and half its neighbours."""
CAPTION = 58.0
"""Height of the command and cost under each cell's map."""
GAP = 12.0
HEADER = 52.0
COMMAND_FONT = 19.0
COST_FONT = 16.0
HEADER_FONT = 22.0
EXIT_FONT = 15.0
EXIT_AT = APOTHEM + 24.0
"""Distance from the hex centre of the neighbour ids, across each edge."""
FADE = 0.55
MUTED = "#8a8a8a"

CSS = MAP_CSS + f"""
.fade {{ fill: {PAPER}; fill-opacity: {FADE}; fill-rule: evenodd; }}
.frame {{ fill: none; stroke: {INK}; stroke-width: 3.5; }}
.cell-border {{ fill: none; stroke: #cccccc; stroke-width: 1; }}
"""


@dataclass(frozen=True)
class Candidate:
    """One lay to show: a tile at one rotation, what it costs and a short note
    ("loan", "then no train money") when there is one."""

    tile: str
    rotation: int
    cost: int
    note: str = ""


def render_tiles(
    ctx: Context, state: GameState, hex_id: str, candidates: Sequence[Candidate]
) -> str:
    """The tile sheet of ``hex_id`` as an SVG document: one cell per candidate."""
    if hex_id not in ctx.board.hexes:
        raise ValueError(f"{hex_id} is not a hex of the {ctx.board.title} map")
    if not candidates:
        raise ValueError(f"no tiles to show for {hex_id}")
    columns = 2 if len(candidates) == 4 else min(COLUMNS, len(candidates))  # four as a square
    rows = math.ceil(len(candidates) / columns)
    cell_w, cell_h = WINDOW[0], WINDOW[1] + CAPTION
    width = GAP + columns * (cell_w + GAP)
    height = HEADER + rows * (cell_h + GAP)
    root = svg_root(width, height, CSS, class_="tile-sheet", data_hex=hex_id,
                    data_title=ctx.board.title)
    el(root, "rect", x=0.0, y=0.0, width=width, height=height, fill=PAPER)
    name = ctx.board.location_names.get(hex_id, "").partition(" (")[0]
    count = len(candidates)
    header = f"{hex_id}{' ' + name if name else ''}: {count} way{'s' if count != 1 else ''} to lay"
    text(root, GAP, HEADER / 2, header, size=HEADER_FONT, bold=True, anchor="start")
    defs = el(root, "defs")
    for i, candidate in enumerate(candidates):
        left = GAP + (i % columns) * (cell_w + GAP)
        top = HEADER + (i // columns) * (cell_h + GAP)
        _cell(ctx, state, hex_id, candidate, root, defs, i, left, top)
    return to_string(root)


def exits_towards(ctx: Context, hex_id: str, tile: str, rotation: int) -> list[str]:
    """The hexes the tile's track leads to at ``rotation``, in edge order (an edge
    with no hex beyond it is left out)."""
    neighbours = ctx.board.neighbours[hex_id]
    edges = sorted(ctx.board.tiles[tile].exits(rotation))
    return [neighbours[e] for e in edges if e in neighbours]


def preview(ctx: Context, state: GameState, hex_id: str, tile: str, rotation: int) -> GameState:
    """The state as the map would be with ``tile`` laid on ``hex_id`` at ``rotation``:
    a copy with only that hex's tile, tokens and reservations changed (tokens carried
    to the cities that keep their track, as :func:`engine.track.place_tile` does)."""
    old, old_rotation = ctx.tile_at(state, hex_id)
    new = ctx.board.tiles[tile]
    mapping = city_mapping(old, old_rotation, new, rotation) or {}
    seen = copy.copy(state)
    seen.map = copy.copy(state.map)
    seen.map.tiles = {**state.map.tiles, hex_id: PlacedTile(tile, rotation, f"{tile}-preview")}
    tokens = {k: v for k, v in state.map.tokens.items() if k[0] != hex_id}
    for (where, city), slots in sorted(state.map.tokens.items()):
        if where != hex_id:
            continue
        target = mapping.get(city, city)
        merged = tokens.setdefault((hex_id, target), [None] * new.nodes[target].slots)
        for holder in slots:
            if holder is not None:
                if None in merged:
                    merged[merged.index(None)] = holder
                else:
                    merged.append(holder)
    seen.map.tokens = tokens
    seen.map.reservations = {
        (h, mapping.get(c, c) if h == hex_id else c): sym
        for (h, c), sym in state.map.reservations.items()
    }
    return seen


def _cell(
    ctx: Context,
    state: GameState,
    hex_id: str,
    candidate: Candidate,
    root: ET.Element,
    defs: ET.Element,
    index: int,
    left: float,
    top: float,
) -> None:
    """One candidate: the hex and its faded neighbours, the exits, the command."""
    cx, cy = hex_center(hex_id)
    x0, y0 = cx - WINDOW[0] / 2, cy - WINDOW[1] / 2
    clip = el(defs, "clipPath", id=f"cell{index}")
    el(clip, "rect", x=x0, y=y0, width=WINDOW[0], height=WINDOW[1])
    cell = el(
        root,
        "g",
        class_="candidate",
        data_tile=candidate.tile,
        data_rotation=candidate.rotation,
        data_cost=candidate.cost,
    )
    el(cell, "rect", class_="cell-border", x=left, y=top, width=WINDOW[0],
       height=WINDOW[1] + CAPTION)
    board = el(cell, "g", transform=f"translate({fmt(left - x0)},{fmt(top - y0)})")
    window = el(board, "g", clip_path=f"url(#cell{index})")
    seen = preview(ctx, state, hex_id, candidate.tile, candidate.rotation)
    around = list(ctx.board.neighbours[hex_id].values())
    draw_hexes(ctx, seen, window, [*around, hex_id], [hex_id])
    hex_path = _hex_path(cx, cy)
    rect = f"M {fmt(x0)} {fmt(y0)} h {fmt(WINDOW[0])} v {fmt(WINDOW[1])} h {fmt(-WINDOW[0])} Z"
    el(window, "path", class_="fade", d=f"{rect} {hex_path}")
    el(window, "polygon", class_="frame", points=HEX_POINTS,
       transform=f"translate({fmt(cx)},{fmt(cy)})")
    _exit_labels(ctx, hex_id, candidate, window, cx, cy)
    command = f"lay {hex_id} {candidate.tile} {candidate.rotation}"
    middle = left + WINDOW[0] / 2
    text(cell, middle, top + WINDOW[1] + 18, command, size=COMMAND_FONT, bold=True,
         class_="command")
    cost = money(ctx, candidate.cost) if candidate.cost else "no cost"
    if candidate.note:
        cost += f" ({candidate.note})"
    text(cell, middle, top + WINDOW[1] + 42, cost, size=COST_FONT, class_="cost")


def _exit_labels(
    ctx: Context, hex_id: str, candidate: Candidate, parent: ET.Element, cx: float, cy: float
) -> None:
    """Each neighbour's id across its edge: bold in a framed pill where the track
    leads, grey on a plain one elsewhere."""
    exits = ctx.board.tiles[candidate.tile].exits(candidate.rotation)
    for edge, neighbour in sorted(ctx.board.neighbours[hex_id].items()):
        angle = math.radians(90.0 + 60.0 * edge)
        x, y = cx + EXIT_AT * math.cos(angle), cy + EXIT_AT * math.sin(angle)
        leads = edge in exits
        size = EXIT_FONT if leads else EXIT_FONT - 2
        w, h = text_width(neighbour, size, leads) + 12, size + 8
        el(parent, "rect", class_="pill" if leads else "back", x=x - w / 2, y=y - h / 2, width=w,
           height=h, rx=h / 2)
        text(parent, x, y, neighbour, size=size, bold=leads, fill=None if leads else MUTED,
             class_="exit" if leads else "neighbour", data_edge=edge)


def _hex_path(cx: float, cy: float) -> str:
    corners = [
        (cx + SIZE * math.cos(math.radians(60.0 * k)), cy + SIZE * math.sin(math.radians(60.0 * k)))
        for k in range(6)
    ]
    return "M " + " L ".join(f"{fmt(x)} {fmt(y)}" for x, y in corners) + " Z"
