"""The map as SVG, in the printed style: hexes, tiles and track, cities, tokens, coordinates.

Layout: flat-topped hexes; the centre of hex ``x, y`` (column letter index, row
number) is at ``(1.5 * SIZE * x, APOTHEM * y)``. Edge ``e`` faces the direction
``90° + 60° * e`` (0 = south, then clockwise on screen), so a tile laid with
rotation ``r`` is its own drawing turned by ``60° * r``.

Track is one canonical shape per kind (:data:`SHAPES`), turned by 60° per edge:
straight (edges 3 apart), sharp curve (1 apart: an arc round the corner the two
edges share) and gentle curve (2 apart: an arc with three times that radius).
Pieces that share an edge or a node are drawn as one path, casing under rail, so
junctions merge and crossings bridge. The shapes are written out rather than
``<use>``d from ``<defs>`` because cairosvg re-reads the document for every
``<use>``, which made the map several times slower.

Text (names, revenue, labels, costs) always stays upright and goes where it
covers the least track, nodes and other text.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cache, partial

from engine import (
    COLORS,
    LOCKS_OPEN_IN_PHASE,
    NEUTRAL,
    Context,
    GameState,
    Node,
    TileDef,
    hex_distance,
    is_edge,
    node_index,
    parse_hex,
)

from .colors import Swatch, readable_on, swatch
from .place import SMALLER, WRAPPED, Item, Shape, place_all, wrappings
from .svg import (
    INK,
    PAPER,
    PHASE_COLORS,
    el,
    fit_size,
    fmt,
    money,
    svg_root,
    text,
    text_width,
    to_string,
)

SIZE = 72.0
"""Hex centre to corner, in pixels of the full map."""
APOTHEM = SIZE * math.sqrt(3) / 2
"""Hex centre to the middle of an edge."""
MARGIN = 44.0
"""Band around the map that holds the coordinates."""

TRACK = 0.15 * SIZE
CASING = TRACK + 5
CITY_R = 0.29 * SIZE
"""Radius of one city slot (and of a station token)."""
TOWN_DOT_R = 0.15 * SIZE
"""Radius of a town dot: wider than the track, so a dot on crossing track (87, 88) shows."""
TOWN_BAR = (0.42 * SIZE, 0.13 * SIZE)
"""Length and thickness of the bar of a town on through track."""
NODE_OFFSET = 0.5 * SIZE
"""Distance from the hex centre of a city that shares its hex with others."""
STUB_END = 0.42 * APOTHEM
"""Off-board track runs from the edge to this distance from the centre."""
SAMPLES = 21
"""Points kept along each curve or straight of track, for keeping texts off it."""
SAMPLE_GAP = 6.0
"""Pixels between the points kept along a straight stub."""

FOCUS_RADIUS = 2
"""A focused map shows the hexes this many steps around the focus."""
FOCUS_ZOOM = 2.0

NAME_FONT = 14.0
NAME_LINE = 1.18
"""Line height of names, in font sizes (DejaVu Sans's ink runs 1.17 of the size)."""
LABEL_FONT = 22.0
SMALL_FONT = 14.0
TOKEN_FONT = 14.0
COORD_FONT = 22.0
TILE_NUMBER_FONT = 12.0
LEGEND_HEIGHT = 36.0
"""Strip under the full map that explains its marks."""
LEGEND_GAP = 28.0
FALLBACK_SCALES = (1.0, 0.86, 0.72)
"""Texts are set smaller (down to 10 px from 14) only in hexes with no room for them."""

OUTLINE = "#777777"
OUTLINE_HALF = 0.75
"""Half the width of a hex's outline: what a hex shows keeps off it."""
WATER = "#2b78c2"
HIGHLIGHT = "#e6007e"
LOCK = "#5b3f8c"
LOCK_TEXT = f"phase {LOCKS_OPEN_IN_PHASE}"
"""Badge on hexes locked until the phase that opens them (``state.map.blocked_hexes``)."""
BORDER_COLORS = {"impassable": "#c0282d", "water": WATER}

CSS = f"""
.outline {{ stroke: {OUTLINE}; stroke-width: {fmt(2 * OUTLINE_HALF)}; }}
.casing {{ fill: none; stroke: {PAPER}; stroke-width: {fmt(CASING)}; }}
.rail {{ fill: none; stroke: {INK}; stroke-width: {fmt(TRACK)}; }}
.town-bar {{ stroke: {INK}; stroke-width: {fmt(TOWN_BAR[1])}; }}
.town-dot {{ fill: {INK}; stroke: {PAPER}; stroke-width: 2.5; }}
.arrow {{ fill: {INK}; }}
.stub {{ fill: {PHASE_COLORS["yellow"]}; stroke: {INK}; stroke-width: 1.5; }}
.slot.closed {{ fill: {PHASE_COLORS["green"]}; }}
.slot-number {{ fill: #8a8a8a; }}
text.closed {{ fill: {INK}; }}
.slot {{ fill: {PAPER}; stroke: {INK}; stroke-width: 2; }}
.city-back {{ fill: {PAPER}; stroke: {INK}; stroke-linejoin: round; }}
.city-fill {{ fill: {PAPER}; stroke: {PAPER}; stroke-linejoin: round; }}
.token circle {{ stroke: {INK}; stroke-width: 2; }}
.reservation circle {{ fill: {PAPER}; stroke-width: 3.5; stroke-dasharray: 5 3; }}
.pill {{ fill: {PAPER}; stroke: {INK}; stroke-width: 1.5; }}
.back {{ fill: {PAPER}; fill-opacity: 0.8; }}
.water {{ fill: none; stroke: {WATER}; stroke-width: 2.5; stroke-linecap: round; }}
.lock-hatch {{ fill: url(#hatch); }}
rect.lock {{ fill: {LOCK}; }}
text.lock {{ fill: {PAPER}; }}
.highlight {{ fill: none; stroke: {HIGHLIGHT}; stroke-width: 6; }}
.band, .paper {{ fill: {PAPER}; }}
.coord {{ font-weight: bold; fill: #555555; }}
.tile-number {{ fill: #444444; }}
"""

_SQRT3 = math.sqrt(3)
Point = tuple[float, float]


# --- geometry -------------------------------------------------------------------------


def hex_center(hex_id: str) -> Point:
    """Centre of a hex on the full map."""
    x, y = parse_hex(hex_id)
    return 1.5 * SIZE * x, APOTHEM * y


def _polar(angle: float, radius: float) -> Point:
    rad = math.radians(angle)
    return radius * math.cos(rad), radius * math.sin(rad)


def _edge_angle(edge: float) -> float:
    return 90.0 + 60.0 * edge


def _rotate(point: Point, angle: float) -> Point:
    rad = math.radians(angle)
    c, s = math.cos(rad), math.sin(rad)
    return point[0] * c - point[1] * s, point[0] * s + point[1] * c


@dataclass(frozen=True)
class _Shape:
    """A canonical track piece from edge 0 to edge ``span``: 1 sharp, 2 gentle, 3 straight."""

    span: int
    radius: float  # of the arc; 0 for straight track
    samples: tuple[Point, ...]  # points every few pixels along it, the middle one halfway
    bar_angle: float  # direction across the track at its middle (for a town bar)

    def turned(self, start: int) -> tuple[str, list[Point]]:
        """Path data and sample points of the shape turned to start at edge ``start``."""
        points = [_rotate(p, 60.0 * start) for p in self.samples]
        (x0, y0), (x1, y1) = points[0], points[-1]
        if self.radius:
            r = fmt(self.radius)
            return f"M {fmt(x0)} {fmt(y0)} A {r} {r} 0 0 0 {fmt(x1)} {fmt(y1)}", points
        return f"M {fmt(x0)} {fmt(y0)} L {fmt(x1)} {fmt(y1)}", points


def _arc(span: int, radius: float, center: Point, bar_angle: float) -> _Shape:
    """An arc from the middle of edge 0, round ``center``, to the middle of edge ``span``."""
    turn = -120.0 if span == 1 else -60.0
    samples = tuple(
        (
            center[0] + radius * math.cos(math.radians(turn * i / (SAMPLES - 1))),
            center[1] + radius * math.sin(math.radians(turn * i / (SAMPLES - 1))),
        )
        for i in range(SAMPLES)
    )
    return _Shape(span, radius, samples, bar_angle)


SHAPES: dict[int, _Shape] = {
    1: _arc(1, SIZE / 2, (-SIZE / 2, APOTHEM), -60.0),
    2: _arc(2, 1.5 * SIZE, (-1.5 * SIZE, APOTHEM), -30.0),
    3: _Shape(
        3, 0.0, tuple((0.0, APOTHEM * (1 - 2 * i / (SAMPLES - 1))) for i in range(SAMPLES)), 0.0
    ),
}
HEX_POINTS = " ".join(f"{fmt(x)},{fmt(y)}" for x, y in (_polar(60.0 * k, SIZE) for k in range(6)))
ARROW = ((-0.16 * SIZE, STUB_END + 8), (0.16 * SIZE, STUB_END + 8), (0.0, STUB_END - 0.16 * SIZE))
"""Head of off-board track entering by edge 0, pointing into the off-board."""
WATER_ICON = 22.0
"""Width of the wave drawn before the cost of a water hex."""
WATER_PATH = "M -9 -4 q 3 -4 6 0 t 6 0 t 6 0 M -9 3 q 3 -4 6 0 t 6 0 t 6 0"


def _edge_pair(a: int, b: int) -> tuple[int, int]:
    """(start edge, span 1..3) of the canonical shape joining edges a and b."""
    span = (b - a) % 6
    return (a, span) if span <= 3 else (b, 6 - span)


def _line(p: Point, q: Point) -> tuple[str, list[Point]]:
    n = max(2, math.ceil(math.dist(p, q) / SAMPLE_GAP))
    samples = [(p[0] + (q[0] - p[0]) * t / n, p[1] + (q[1] - p[1]) * t / n) for t in range(n + 1)]
    return f"M {fmt(p[0])} {fmt(p[1])} L {fmt(q[0])} {fmt(q[1])}", samples


# --- tile layout (tile frame, cached per tile) ------------------------------------------


@dataclass
class _Layout:
    """Everything drawn for one tile, in the tile's own frame (rotation 0)."""

    track: list[str] = field(default_factory=list)  # path data of each connected group
    arrows: str = ""  # off-board arrow heads
    bars: list[tuple[int, Point, float]] = field(default_factory=list)  # (node, centre, angle)
    dots: list[tuple[int, Point]] = field(default_factory=list)
    nodes: list[Point] = field(default_factory=list)  # centre of each node
    samples: list[Point] = field(default_factory=list)  # points along the track


def lay_out(tiles: Iterable[TileDef]) -> None:
    """Work out each tile's drawing ahead of the first map that shows it: a process's
    first drawing of a late map otherwise takes seconds (a server warms up with it)."""
    for tile in tiles:
        _layout(tile)


@cache
def _layout(tile: TileDef) -> _Layout:
    """Track pieces joined into groups that share an edge or a node: a group is drawn
    as one casing and one rail, so junctions merge and crossings bridge."""
    layout = _Layout()
    exits = tile.node_exits(0)
    barred = {
        i
        for i, node in enumerate(tile.nodes)
        if node.kind == "town" and node.loc is None and len(exits[i]) == 2
    }
    layout.nodes = _spread([_node_position(tile, i, exits) for i in range(len(tile.nodes))], tile, exits)
    pieces: list[tuple[set[int | str], str, list[Point]]] = []
    arrows: list[str] = []
    for i in sorted(barred):
        start, span = _edge_pair(*sorted(exits[i]))
        shape = SHAPES[span]
        d, samples = shape.turned(start)
        pieces.append(({*exits[i], f"n{i}"}, d, samples))
        layout.nodes[i] = samples[len(samples) // 2]
        layout.bars.append((i, layout.nodes[i], shape.bar_angle + 60.0 * start))
    for a, b in tile.paths:
        if is_edge(a) and is_edge(b):
            start, span = _edge_pair(a, b)
            pieces.append(({a, b}, *SHAPES[span].turned(start)))
            continue
        keys = {e if is_edge(e) else f"n{node_index(e)}" for e in (a, b)}
        nodes = [node_index(e) for e in (a, b) if not is_edge(e)]
        if any(n in barred for n in nodes):
            continue
        if any(tile.nodes[n].kind == "offboard" for n in nodes):
            edge = a if is_edge(a) else b
            pieces.append(
                (
                    keys,
                    *_line(
                        _polar(_edge_angle(edge), APOTHEM), _polar(_edge_angle(edge), STUB_END + 6)
                    ),
                )
            )
            head = [_rotate(p, 60.0 * edge) for p in ARROW]
            arrows.append("M " + " L ".join(f"{fmt(x)} {fmt(y)}" for x, y in head) + " Z")
            continue
        ends = [
            _polar(_edge_angle(e), APOTHEM) if is_edge(e) else layout.nodes[node_index(e)]
            for e in (a, b)
        ]
        pieces.append((keys, *_line(ends[0], ends[1])))
    groups: list[tuple[set[int | str], list[str]]] = []
    for keys, d, samples in pieces:
        joined = [g for g in groups if g[0] & keys]
        group = (set(keys), [d])
        for g in joined:
            group[0].update(g[0])
            group[1][:0] = g[1]
            groups.remove(g)
        groups.append(group)
        layout.samples.extend(samples)
    layout.track = [" ".join(parts) for _, parts in groups]
    layout.arrows = " ".join(arrows)
    layout.dots = [
        (i, layout.nodes[i])
        for i, n in enumerate(tile.nodes)
        if n.kind == "town" and i not in barred
    ]
    return layout


def _node_position(tile: TileDef, index: int, exits: tuple[frozenset[int], ...]) -> Point:
    """A node's centre: its ``loc``, else towards its exits when it shares the hex."""
    node = tile.nodes[index]
    if node.loc is not None:
        return _polar(_edge_angle(node.loc), NODE_OFFSET)
    if len(tile.nodes) == 1:
        return (0.0, 0.0)
    vx = sum(math.cos(math.radians(_edge_angle(e))) for e in exits[index])
    vy = sum(math.sin(math.radians(_edge_angle(e))) for e in exits[index])
    if math.hypot(vx, vy) < 0.1:
        return _polar(_edge_angle(6 * index / len(tile.nodes)), NODE_OFFSET)
    return _polar(math.degrees(math.atan2(vy, vx)), NODE_OFFSET)


SPREAD_SPOTS = ((0.0, 0.0),) + tuple(
    _polar(30.0 * k, r * SIZE) for r in (0.25, 0.4, 0.5, 0.6) for k in range(12)
)
"""Where :func:`_spread` may move a city: the centre and rings around it."""


def _spread(positions: list[Point], tile: TileDef, exits: tuple[frozenset[int], ...]) -> list[Point]:
    """The nodes' centres, moved apart where two would overlap, one would sit on
    another's track or leave the hex (Montreal's X1-X4, whose cities lie on straights
    through the centre; X6, whose city of two slots has no room where its exits lead).
    Nodes with a printed place (``loc``) stay; the others move, one at a time, to the
    spot that clears the others and strays least from where they were. Where that
    leaves them crowded, the roomiest node starts from each spot in turn."""
    movable = [i for i, n in enumerate(tile.nodes) if n.loc is None and n.kind != "offboard"]
    if len(tile.nodes) < 2 or not movable or not _crowding(positions, tile, exits):
        return positions
    placed = _settle(list(positions), positions, movable, tile, exits)
    if _crowding(placed, tile, exits):
        roomiest = max(movable, key=lambda i: tile.nodes[i].slots)
        others = [i for i in movable if i != roomiest]
        starts = (positions[:roomiest] + [spot] + positions[roomiest + 1 :] for spot in SPREAD_SPOTS)
        tries = (_settle(start, positions, others, tile, exits) for start in starts)
        placed = min(tries, key=lambda tried: _crowding(tried, tile, exits) + _strayed(tried, positions))
    return placed


def _settle(
    placed: list[Point], positions: list[Point], movable: list[int], tile: TileDef, exits: tuple[frozenset[int], ...]
) -> list[Point]:
    """Each of ``movable`` moved in turn (twice round) to its least crowded spot."""
    for _ in range(2):
        for i in movable:
            placed[i] = min(
                SPREAD_SPOTS,
                key=lambda spot: _crowding(placed[:i] + [spot] + placed[i + 1 :], tile, exits, only=i)
                + 0.05 * math.dist(spot, positions[i]),
            )
    return placed


def _strayed(placed: list[Point], positions: list[Point]) -> float:
    return 0.05 * sum(math.dist(p, q) for p, q in zip(placed, positions))


def _crowding(
    positions: list[Point], tile: TileDef, exits: tuple[frozenset[int], ...], only: int | None = None
) -> float:
    """How badly nodes overlap each other, sit on each other's track or leave the hex
    (for node ``only``, just its own part). A city counts as its slots as drawn (in the
    tile's frame: in a shared hex they turn with the tile), so two cities of two slots
    fit (Toronto's 122, Montreal's X6: drawn 10 px across their outline before)."""
    discs = [[(x + dx, y + dy) for dx, dy in _slot_offsets(n.slots)] for n, (x, y) in zip(tile.nodes, positions)]
    radius = [TOWN_DOT_R if n.kind == "town" else CITY_R for n in tile.nodes]
    segments = [[(edge_middle(e), positions[j]) for e in exits[j]] for j in range(len(positions))]
    cost = 0.0
    for i, mine in enumerate(discs):
        if only in (None, i) and any(_beyond_hex(p) + radius[i] + _ink(tile.nodes[i]) > 0 for p in mine):
            cost += 100.0
        for j, theirs in enumerate(discs):
            if j == i or only not in (None, i, j):
                continue
            if j > i and any(math.dist(p, q) < radius[i] + radius[j] + 4 for p in mine for q in theirs):
                cost += 100.0
            if any(_to_segment(p, a, b) < radius[i] + 1 for p in mine for a, b in segments[j]):
                cost += 50.0
    return cost


def _ink(node: Node) -> float:
    """How far a node's outline reaches past its circles, and the hex outline's half width
    that it must keep clear of (a city of several slots has a black band round them)."""
    if node.kind == "city" and node.slots > 1:
        return 2.0 + OUTLINE_HALF
    return 1.0 + OUTLINE_HALF


def _beyond_hex(point: Point) -> float:
    """How far a point lies outside the hex (negative inside), in the hex's frame."""
    return max(
        point[0] * math.cos(math.radians(a)) + point[1] * math.sin(math.radians(a)) - APOTHEM
        for a in range(30, 360, 60)
    )


def _to_segment(p: Point, a: Point, b: Point) -> float:
    """Distance from ``p`` to the segment from ``a`` to ``b``."""
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def _slot_offsets(slots: int) -> list[Point]:
    """Centres of a city's slots around its centre (2 side by side, 4 in a square)."""
    if slots <= 1:
        return [(0.0, 0.0)]
    radius = CITY_R / math.sin(math.pi / slots)
    start = -90.0 - (180.0 / slots if slots % 2 == 0 else 0.0)
    return [_polar(start + 360.0 * i / slots, radius) for i in range(slots)]


# --- text placement ---------------------------------------------------------------------


def _spots(*angles: float) -> tuple[Point, ...]:
    """Anchors towards the corners at three distances, then towards the edges' middles."""
    corners = tuple(
        _polar(angle, radius * SIZE) for angle in angles for radius in (0.62, 0.5, 0.72)
    )
    return corners + tuple(_polar(angle + 30.0, 0.6 * SIZE) for angle in angles)


LABEL_SPOTS = _spots(180, 0, 240, 300, 120, 60)
"""Anchors for short texts, best first (west, east, then slanted corners)."""
REVENUE_SPOTS = _spots(0, 180, 300, 240, 60, 120)
COST_SPOTS = _spots(60, 120, 0, 180, 300, 240)
TILE_NUMBER_SPOTS = tuple(_polar(a, r * SIZE) for a in (60, 120, 300, 240) for r in (0.74, 0.6))
CENTER = ((0.0, 0.0),)


# --- drawing ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _View:
    x: float
    y: float
    width: float
    height: float

    def holds_hex(self, center: Point) -> bool:
        """Whether the whole hex centred here is inside the view."""
        return (
            self.x - 0.5 <= center[0] - SIZE
            and center[0] + SIZE <= self.x + self.width + 0.5
            and self.y - 0.5 <= center[1] - APOTHEM
            and center[1] + APOTHEM <= self.y + self.height + 0.5
        )

    def contains(self, point: Point, pad: float) -> bool:
        return (
            self.x - pad <= point[0] <= self.x + self.width + pad
            and self.y - pad <= point[1] <= self.y + self.height + pad
        )


def render_map(
    ctx: Context,
    state: GameState,
    *,
    highlight: str | Iterable[str] = (),
    focus: str | None = None,
) -> str:
    """The map as an SVG document.

    ``highlight``: hex(es) to outline, such as the hex of the last action.
    ``focus``: a hex to zoom in on; the picture then shows only the hexes around it.
    """
    board = ctx.board
    shown = list(board.hexes)
    if focus is not None:
        if focus not in board.hexes:
            raise ValueError(f"{focus} is not a hex of the {board.title} map")
        shown = [h for h in shown if hex_distance(h, focus) <= FOCUS_RADIUS]
    rows = [] if focus else _legend_rows(ctx, state, _view_of(shown).width - 2 * MARGIN)
    drawn = draw_map(
        ctx,
        state,
        shown,
        zoom=FOCUS_ZOOM if focus else 1.0,
        below=LEGEND_HEIGHT * len(rows),
        data_focus=focus,
    )
    for hex_id in [highlight] if isinstance(highlight, str) else highlight:
        if hex_id in board.hexes:
            x, y = hex_center(hex_id)
            translate = f"translate({fmt(x)},{fmt(y)})"
            el(
                drawn.overlay,
                "polygon",
                class_="highlight",
                data_hex=hex_id,
                points=HEX_POINTS,
                transform=translate,
            )
    if rows:
        _legend(drawn.root, rows, drawn.view.x + MARGIN, drawn.below_y)
    return to_string(drawn.root)


@dataclass(frozen=True)
class DrawnMap:
    """A map picture being made: its root, the layer above the hexes for marks, the
    view of the map and where the strip below it starts."""

    root: ET.Element
    overlay: ET.Element
    view: _View
    below_y: float


def draw_map(
    ctx: Context,
    state: GameState,
    shown: Iterable[str],
    *,
    zoom: float,
    below: float,
    **attrs: object,
) -> DrawnMap:
    """The map framed on the ``shown`` hexes, scaled by ``zoom``, with ``below`` pixels
    of paper under it for a legend. Hexes wholly in the frame are drawn in full; those
    the frame cuts, in their colour only."""
    board = ctx.board
    view = _view_of(list(shown))
    root = svg_root(
        view.width * zoom,
        (view.height + below) * zoom,
        CSS,
        view_box=(view.x, view.y, view.width, view.height + below),
        class_="map",
        data_title=board.title,
        data_phase=state.phase,
        data_margin=MARGIN,
        **attrs,
    )
    _defs(root)
    el(
        root,
        "rect",
        class_="paper",
        x=view.x,
        y=view.y,
        width=view.width,
        height=view.height + below,
    )
    ground, hexes, borders, overlay = (
        el(root, "g", class_=c) for c in ("ground", "hexes", "borders", "highlights")
    )
    _bands(root, view, below)
    layers = _Layers(ground, hexes, borders, el(root, "g", class_="labels"))
    phase_color = ctx.phase_color(state)
    inner = _View(
        view.x + MARGIN, view.y + MARGIN, view.width - 2 * MARGIN, view.height - 2 * MARGIN
    )
    texts = []
    for hex_id in board.hexes:
        center = hex_center(hex_id)
        if inner.holds_hex(center):
            texts.append(_draw_hex(ctx, state, hex_id, center, phase_color, layers))
        elif view.contains(center, SIZE):  # cut by the frame: its colour only
            color = ctx.tile_at(state, hex_id)[0].color
            layers.colors.setdefault(color, []).append((hex_id, center))
    layers.fill_ground()
    _place_texts(texts, board.neighbours, layers.labels)
    _coordinates(root, board.hexes, inner)
    return DrawnMap(root, overlay, view, view.y + view.height)


def draw_hexes(
    ctx: Context, state: GameState, parent: ET.Element, hex_ids: Iterable[str], labelled: Iterable[str]
) -> None:
    """The hexes ``hex_ids`` drawn in full into ``parent`` at their places on the map
    (colour, track, cities, tokens, borders), with the upright texts of those in
    ``labelled`` (for pictures made of a few hexes, such as the tile sheet)."""
    ground, hexes, borders, labels = (el(parent, "g", class_=c) for c in ("ground", "hexes", "borders", "labels"))
    layers = _Layers(ground, hexes, borders, labels)
    phase_color = ctx.phase_color(state)
    texts = [_draw_hex(ctx, state, h, hex_center(h), phase_color, layers) for h in hex_ids]
    layers.fill_ground()
    named = set(labelled)
    _place_texts([t for t in texts if t.hex_id in named], ctx.board.neighbours, layers.labels)


def node_center(ctx: Context, state: GameState, hex_id: str, node: int) -> Point:
    """Where a revenue node of a hex is drawn on the full map."""
    tile, rotation = ctx.tile_at(state, hex_id)
    x, y = _rotate(_layout(tile).nodes[node], 60.0 * rotation)
    cx, cy = hex_center(hex_id)
    return cx + x, cy + y


def node_radius(ctx: Context, state: GameState, hex_id: str, node: int) -> float:
    """How far a node's drawing reaches from its centre (a city with all its slots)."""
    tile, _ = ctx.tile_at(state, hex_id)
    if tile.nodes[node].kind != "city":
        return TOWN_BAR[0] / 2
    holders = state.map.tokens.get((hex_id, node), [])
    offsets = _slot_offsets(max(tile.nodes[node].slots, len(holders)))
    return max(math.hypot(x, y) for x, y in offsets) + CITY_R


def track_between(entry: int, exit_: int) -> list[Point]:
    """Points along the track of a hex from the middle of edge ``entry`` to the middle
    of edge ``exit_``, in the hex's frame."""
    start, span = _edge_pair(entry, exit_)
    _, points = SHAPES[span].turned(start)
    return points if start == entry else points[::-1]


def edge_middle(edge: int) -> Point:
    """The middle of an edge of a hex, in the hex's frame."""
    return _polar(_edge_angle(edge), APOTHEM)


Entry = tuple[float, Callable[[ET.Element, float, float], None]]
"""A legend entry: its width and how to draw it from (x, middle y)."""


def _legend_rows(ctx: Context, state: GameState, width: float) -> list[list[Entry]]:
    """The legend's entries in rows that fit ``width``."""
    rows: list[list[Entry]] = [[]]
    used = 0.0
    for entry in _legend_entries(ctx, state):
        if rows[-1] and used + entry[0] > width:
            rows.append([])
            used = 0.0
        rows[-1].append(entry)
        used += entry[0] + LEGEND_GAP
    return rows


def _legend(root: ET.Element, rows: list[list[Entry]], x: float, top: float) -> None:
    """The strip under the map saying what its marks mean, row by row."""
    group = el(root, "g", class_="legend")
    for i, row in enumerate(rows):
        left, cy = x, top + LEGEND_HEIGHT * (i + 0.5)
        for width, draw in row:
            draw(group, left, cy)
            left += width + LEGEND_GAP


def _legend_entries(ctx: Context, state: GameState) -> list[Entry]:
    """Water costs, river and impassable sides, the off-board value in use, locked
    hexes, must-connect triangles, green spots and city numbers (those the map has
    now), and tile numbers."""
    board = ctx.board
    entries: list[Entry] = []

    def words_entry(lead: float, words: str, mark: Callable[[ET.Element, float, float], object]) -> Entry:
        def draw(parent: ET.Element, x: float, cy: float) -> None:
            mark(parent, x, cy)
            text(parent, x + lead + 6, cy, words, size=SMALL_FONT, anchor="start")

        return lead + 6 + text_width(words, SMALL_FONT), draw

    costs = sorted({h.upgrade_cost for h in board.hexes.values() if h.terrain == "water"})
    if costs:
        words = " / ".join(money(ctx, c) for c in costs) + ": cost to lay track across water"
        entries.append(words_entry(22, words, lambda g, x, cy: el(
            g, "path", class_="water", d=WATER_PATH, transform=f"translate({fmt(x + 11)},{fmt(cy)})")))
    sides = {b.type: b.cost for h in board.hexes.values() for b in h.borders if b.type}
    for kind, words in (("water", "river: {cost} to build across"), ("impassable", "no track across")):
        if kind in sides:
            cost = money(ctx, sides[kind]) if sides[kind] else "free"
            entries.append(words_entry(28, words.format(cost=cost), partial(_side_mark, color=BORDER_COLORS[kind])))

    def values(parent: ET.Element, x: float, cy: float) -> None:
        for i, (color, framed) in enumerate((("yellow", False), ("green", True))):
            el(parent, "rect", x=x + 22 * i, y=cy - 11, width=22.0, height=22.0, fill=PHASE_COLORS[color],
               stroke=INK, stroke_width=3.5 if framed else 1.0)

    entries.append(words_entry(44, "off-board: the framed value is the one in use", values))
    if state.map.blocked_hexes:
        badge = text_width(LOCK_TEXT, SMALL_FONT, True) + 12

        def lock(parent: ET.Element, x: float, cy: float) -> None:
            el(parent, "rect", class_="lock", x=x, y=cy - 11, width=badge, height=22.0, rx=4.0)
            text(parent, x + badge / 2, cy, LOCK_TEXT, size=SMALL_FONT, bold=True, class_="lock")

        entries.append(words_entry(badge, f"hatched: no track until phase {LOCKS_OPEN_IN_PHASE}", lock))
    if any(tile.stubs and h not in state.map.tiles for h, tile in board.hexes.items()):
        def triangle(parent: ET.Element, x: float, cy: float) -> None:
            points = ((x, cy + 9), (x + 24, cy + 9), (x + 12, cy - 9))
            el(parent, "polygon", class_="stub", points=" ".join(f"{fmt(a)},{fmt(b)}" for a, b in points))

        entries.append(words_entry(24, "the first tile must join the edge with the triangle", triangle))
    opens = ctx.title.spots_open_in_phase
    if ctx.title.closed_spots(ctx, state):
        def spot(parent: ET.Element, x: float, cy: float) -> None:
            el(parent, "circle", class_="slot closed", cx=x + 12, cy=cy, r=12.0)
            text(parent, x + 12, cy, opens, size=SMALL_FONT, bold=True, class_="closed")

        entries.append(words_entry(24, f"green spot: opens in phase {opens}", spot))
    if state.map.reservations:
        def reserved(parent: ET.Element, x: float, cy: float) -> None:
            el(parent, "circle", cx=x + 12, cy=cy, r=11.0, fill=PAPER, stroke=INK, stroke_width=2.5,
               stroke_dasharray="5 3")

        entries.append(words_entry(24, "dashed ring: a company's reserved home", reserved))
    if any(len(tile.city_indexes) > 1 for tile in board.hexes.values()):
        def number(parent: ET.Element, x: float, cy: float) -> None:
            el(parent, "circle", class_="slot", cx=x + 12, cy=cy, r=12.0)
            text(parent, x + 12, cy, "1", size=SMALL_FONT, bold=True, class_="slot-number")

        entries.append(words_entry(24, "city number (token HEX 1)", number))
    entries.append(words_entry(
        text_width("801", TILE_NUMBER_FONT),
        "tile number",
        lambda g, x, cy: text(g, x, cy, "801", size=TILE_NUMBER_FONT, anchor="start", class_="tile-number"),
    ))
    return entries


def _side_mark(parent: ET.Element, x: float, cy: float, *, color: str) -> None:
    el(parent, "line", x1=x, y1=cy, x2=x + 28, y2=cy, stroke=color, stroke_width=6.0)


def _view_of(hex_ids: list[str]) -> _View:
    xs = [hex_center(h)[0] for h in hex_ids]
    ys = [hex_center(h)[1] for h in hex_ids]
    x0, y0 = min(xs) - SIZE - MARGIN, min(ys) - APOTHEM - MARGIN
    return _View(x0, y0, max(xs) + SIZE + MARGIN - x0, max(ys) + APOTHEM + MARGIN - y0)


def _defs(root: ET.Element) -> None:
    defs = el(root, "defs")
    pattern = el(
        defs,
        "pattern",
        id="hatch",
        width=10.0,
        height=10.0,
        patternUnits="userSpaceOnUse",
        patternTransform="rotate(45)",
    )
    el(pattern, "rect", width=3.0, height=10.0, fill=LOCK, fill_opacity=0.35)


@dataclass
class _Layers:
    """Where the parts of the hexes go, back to front."""

    ground: ET.Element  # one outlined path per hex colour (and the hatching of locked hexes)
    hexes: ET.Element  # a group per hex with something on it: track, cities, tokens
    borders: ET.Element
    labels: ET.Element  # upright texts
    colors: dict[str, list[tuple[str, Point]]] = field(default_factory=dict)
    locked: list[tuple[str, Point]] = field(default_factory=list)

    def fill_ground(self) -> None:
        """Each colour's hexes as one path: far fewer elements for Cairo to draw."""
        for color, hexes in self.colors.items():
            el(
                self.ground,
                "path",
                class_="outline",
                data_color=color,
                data_hexes=_ids(hexes),
                d=_hex_paths(hexes),
                fill=PHASE_COLORS[color],
            )
        if self.locked:
            el(
                self.ground,
                "path",
                class_="lock-hatch",
                data_hexes=_ids(self.locked),
                d=_hex_paths(self.locked),
            )


def _ids(hexes: list[tuple[str, Point]]) -> str:
    return " ".join(hex_id for hex_id, _ in hexes)


def _hex_paths(hexes: list[tuple[str, Point]]) -> str:
    corners = [_polar(60.0 * k, SIZE) for k in range(6)]
    return " ".join(
        "M " + " L ".join(f"{fmt(cx + x)} {fmt(cy + y)}" for x, y in corners) + " Z"
        for _, (cx, cy) in hexes
    )


def _draw_hex(
    ctx: Context,
    state: GameState,
    hex_id: str,
    center: Point,
    phase_color: str,
    layers: _Layers,
) -> _HexTexts:
    """One hex: its colour, its tile or printed contents and border marks; returns
    its upright texts, to be placed once every hex is drawn."""
    tile, rotation = ctx.tile_at(state, hex_id)
    placed = state.map.tiles.get(hex_id)
    layers.colors.setdefault(tile.color, []).append((hex_id, center))
    if hex_id in state.map.blocked_hexes:
        layers.locked.append((hex_id, center))
    layout = _layout(tile)
    angle = 60.0 * rotation
    translate = f"translate({fmt(center[0])},{fmt(center[1])})"
    group = el(
        None,
        "g",
        class_="tile" if placed else "printed",
        data_hex=hex_id,
        data_tile=placed.tile if placed else None,
        data_rotation=rotation if placed else None,
        data_color=tile.color,
        transform=translate,
    )
    _draw_track(group, layout, angle)
    if not placed:
        _draw_stubs(group, tile)
    track = [(*_rotate(p, angle), CASING / 2) for p in layout.samples]
    nodes: list[tuple[float, float, float]] = []
    numbered = len(tile.city_indexes) > 1
    turn = angle if len(tile.nodes) > 1 else 0.0  # shared hexes: the tile's layout turns whole
    closed = {c for h, c in ctx.title.closed_spots(ctx, state) if h == hex_id}
    for i, node in enumerate(tile.nodes):
        position = _rotate(layout.nodes[i], angle)
        if node.kind == "city":
            slots = _draw_city(
                ctx, state, group, hex_id, i, node, position, turn, numbered=numbered, closed=i in closed
            )
            nodes.extend((position[0] + x, position[1] + y, CITY_R + 2) for x, y in slots)
            if len(slots) > 1:
                nodes.append((*position, CITY_R + 2))  # the band joining the slots
        elif node.kind == "town":
            nodes.append((*position, (TOWN_BAR[0] + TOWN_BAR[1]) / 2))
    if placed or len(group):
        layers.hexes.append(group)
    _draw_borders(layers.borders, tile, center)
    entries = sorted(_items(ctx, state, hex_id, tile, phase_color), key=_hardest_first)
    return _HexTexts(hex_id, center, (tile.name, rotation), nodes, track, entries, tile.exits(rotation))


@dataclass
class _HexTexts:
    """A drawn hex's texts waiting to be placed, and what they must keep clear of
    (in the hex's frame): its cities, slots and towns, and its track."""

    hex_id: str
    center: Point
    tile: tuple[str, int]  # name and rotation
    nodes: list[tuple[float, float, float]]
    track: list[tuple[float, float, float]]
    entries: list[tuple[str, Item]]
    exits: frozenset[int] = frozenset()


def _place_texts(
    hexes: list[_HexTexts], neighbours: dict[str, dict[int, str]], parent: ET.Element
) -> None:
    """Place every hex's texts, clear also of any city of a neighbour that reaches
    into the hex (a city near an edge with slots side by side) and of the edges where
    a neighbour's track ends against the hex (so a name never hides that junction)."""
    by_hex = {h.hex_id: h for h in hexes}
    names: dict[str, list[tuple[float, float, float, float]]] = {}  # on the map, placed so far
    for here in hexes:
        obstacles = list(here.nodes)
        track = list(here.track)
        junctions = []
        for edge, there in ((e, by_hex[n]) for e, n in neighbours[here.hex_id].items() if n in by_hex):
            dx, dy = there.center[0] - here.center[0], there.center[1] - here.center[1]
            for x, y, r in there.nodes:
                if math.hypot(x + dx, y + dy) < SIZE + r:
                    obstacles.append((x + dx, y + dy, r))
            if (edge + 3) % 6 in there.exits:
                junctions.append(edge)
                track.extend([(*edge_middle(edge), JUNCTION_R)] * JUNCTION_WEIGHT)
        items = [item for _, item in here.entries]
        cx, cy = here.center
        near = [
            (x0 - cx - NAME_MARGIN, y0 - cy - NAME_MARGIN, x1 - cx + NAME_MARGIN, y1 - cy + NAME_MARGIN)
            for n in neighbours[here.hex_id].values()
            for x0, y0, x1, y1 in names.get(n, ())
        ]
        spots = place_all(
            SIZE, obstacles, track, items, (here.tile, tuple(obstacles), tuple(junctions)), near
        )
        translate = f"translate({fmt(here.center[0])},{fmt(here.center[1])})"
        texts = el(None, "g", class_="hex-labels", data_hex=here.hex_id, transform=translate)
        for (kind, _), spot in zip(here.entries, spots):
            if spot is not None:
                shape, (x, y) = spot
                shape.draw(el(texts, "g", class_="label", data_kind=kind), x, y)
                if kind in ("name", "name-note"):
                    names.setdefault(here.hex_id, []).append(
                        (cx + x - shape.width / 2, cy + y - shape.height / 2,
                         cx + x + shape.width / 2, cy + y + shape.height / 2)
                    )
        if len(texts):
            parent.append(texts)


def _draw_track(group: ET.Element, layout: _Layout, angle: float) -> None:
    if not (layout.track or layout.dots):
        return
    track = el(group, "g", class_="track", transform=f"rotate({fmt(angle)})" if angle else None)
    for d in layout.track:
        if len(layout.track) > 1:
            el(track, "path", class_="casing", d=d)
        el(track, "path", class_="rail", d=d)
    if layout.arrows:
        el(track, "path", class_="arrow", d=layout.arrows)
    for node, (x, y), bar_angle in layout.bars:
        dx, dy = _polar(bar_angle, TOWN_BAR[0] / 2)
        el(
            track,
            "line",
            class_="town-bar",
            data_node=node,
            x1=x - dx,
            y1=y - dy,
            x2=x + dx,
            y2=y + dy,
        )
    for node, (x, y) in layout.dots:
        el(track, "circle", class_="town-dot", data_node=node, cx=x, cy=y, r=TOWN_DOT_R)


def _draw_city(
    ctx: Context,
    state: GameState,
    group: ET.Element,
    hex_id: str,
    index: int,
    node: Node,
    at: Point,
    angle: float,
    *,
    numbered: bool = False,
    closed: bool = False,
) -> list[Point]:
    """A city with its slots, tokens and reservation; returns the slot centres. The
    slots turn by ``angle``: with the tile where the city shares its hex, so the
    layout worked out for the tile holds at every rotation; tokens stay upright.

    ``numbered``: the hex has several cities, so the city's number (as typed in
    ``token HEX N``) goes in its first free slot. ``closed``: a green spot of the
    board (open from phase 3), drawn green with a 3, its neutral token too."""
    holders = state.map.tokens.get((hex_id, index), [])
    count = max(node.slots, len(holders))
    offsets = [_rotate(p, angle) for p in _slot_offsets(count)]
    city = el(
        group,
        "g",
        class_="city",
        data_node=index,
        data_slots=count,
        transform=f"translate({fmt(at[0])},{fmt(at[1])})",
    )
    if count > 1:
        d = "M " + " L ".join(f"{fmt(x)} {fmt(y)}" for x, y in offsets) + " Z"
        el(city, "path", class_="city-back", d=d, stroke_width=2 * CITY_R + 4)
        el(city, "path", class_="city-fill", d=d, stroke_width=2 * CITY_R)
    reserver = state.map.reservations.get((hex_id, index))
    for slot, (x, y) in enumerate(offsets):
        holder = holders[slot] if slot < len(holders) else None
        if closed and holder in (None, NEUTRAL):
            opens = ctx.title.spots_open_in_phase
            el(city, "circle", class_="slot closed", cx=x, cy=y, r=CITY_R, data_opens=opens)
            text(city, x, y, opens, size=TOKEN_FONT + 4, bold=True, class_="closed")
        elif holder is not None:
            _draw_token(ctx, city, holder, x, y, hex_id, index, slot)
        elif reserver is not None:
            _draw_reservation(ctx, city, reserver, x, y)
            reserver = None
        else:
            el(city, "circle", class_="slot", cx=x, cy=y, r=CITY_R)
            if numbered:
                text(city, x, y, str(index), size=TOKEN_FONT + 4, bold=True, class_="slot-number",
                     data_city=index)
                numbered = False
    return offsets


NAME_MARGIN = 12.0
"""Texts keep this far from a neighbouring hex's name where they can (finding 20:
"Guelph" over "Hamilton" read as one name)."""
JUNCTION_R = 0.2 * SIZE
JUNCTION_WEIGHT = 8
"""Texts keep this far from the middle of an edge that a neighbour's track reaches:
covering it costs as much as this many points of track (less than a city)."""

STUB_GAP = 6.0
"""Paper between a must-connect triangle and its edge: flush on the edge, G15's yellow
triangle over the outline read as a wedge of Toronto's yellow hex crossing into G15."""
STUB_TRIANGLE = (
    (-0.2 * SIZE, APOTHEM - STUB_GAP),
    (0.2 * SIZE, APOTHEM - STUB_GAP),
    (0.0, APOTHEM - STUB_GAP - 0.28 * SIZE),
)
"""A must-connect triangle by edge 0 (8.6.2, 1867), inside the hex, pointing into it."""


def _draw_stubs(group: ET.Element, tile: TileDef) -> None:
    """The yellow triangles of a printed hex: its first tile must join those edges."""
    for edge in tile.stubs:
        corners = [_rotate(p, 60.0 * edge) for p in STUB_TRIANGLE]
        el(group, "polygon", class_="stub", data_edge=edge,
           points=" ".join(f"{fmt(x)},{fmt(y)}" for x, y in corners))


NEUTRAL_SWATCH = Swatch("#9a9a9a", "#ffffff")
"""A neutral token (1867's green spots before phase 3): plain grey, no symbol."""


def _draw_token(
    ctx: Context,
    parent: ET.Element,
    sym: str,
    x: float,
    y: float,
    hex_id: str,
    city: int,
    slot: int,
) -> None:
    colors = NEUTRAL_SWATCH if sym == NEUTRAL else swatch(ctx.board, sym)
    token = el(
        parent,
        "g",
        class_="token",
        data_company=sym,
        data_hex=hex_id,
        data_city=city,
        data_slot=slot,
    )
    el(token, "circle", cx=x, cy=y, r=CITY_R, fill=colors.fill)
    label = "" if sym == NEUTRAL else sym
    text(token, x, y, label, size=fit_size(label or "X", 2 * CITY_R - 4, TOKEN_FONT), bold=True, fill=colors.text)


def _draw_reservation(ctx: Context, parent: ET.Element, sym: str, x: float, y: float) -> None:
    color = readable_on(swatch(ctx.board, sym).fill, PAPER, INK)
    mark = el(parent, "g", class_="reservation", data_company=sym)
    el(mark, "circle", cx=x, cy=y, r=CITY_R - 1.5, stroke=color)
    text(mark, x, y, sym, size=fit_size(sym, 2 * CITY_R - 4, TOKEN_FONT), bold=True, fill=color)


def _current_index(node: Node, phase_color: str) -> int:
    """The off-board value in use: the last one whose colour has come."""
    rank = COLORS.index(phase_color)
    return max(
        (i for i, (c, _) in enumerate(node.phase_revenue) if COLORS.index(c) <= rank), default=0
    )


def _values_item(node: Node, phase_color: str) -> Item:
    """Off-board values, one box per phase colour, the current one bold and framed."""
    values = node.phase_revenue or (("red", node.revenue),)
    current = _current_index(node, phase_color) if node.phase_revenue else 0

    def shape(font: float) -> Shape:
        box_w = max(text_width(str(v), font, True) for _, v in values) + 10
        box_h = font + 10
        total = box_w * len(values)

        def draw(parent: ET.Element, x: float, y: float) -> None:
            for i, (color, value) in enumerate(values):
                left = x - total / 2 + i * box_w
                now = i == current
                el(
                    parent,
                    "rect",
                    class_="value",
                    data_color=color,
                    data_current="true" if now else None,
                    x=left,
                    y=y - box_h / 2,
                    width=box_w,
                    height=box_h,
                    fill=PHASE_COLORS.get(color, PAPER),
                    stroke=INK,
                    stroke_width=3.5 if now else 1.0,
                )
                text(parent, left + box_w / 2, y, str(value), size=font, bold=now)

        return Shape(total + 4, box_h + 4, draw)

    anchors = tuple((0.0, dy) for dy in (0.0, -10.0, 10.0, -20.0, 20.0))
    return Item((shape(SMALL_FONT),), anchors)


def _scaled(shape: Callable[[float], Shape], font: float) -> tuple[Shape, ...]:
    """The shape at its font size, then smaller for hexes with little room."""
    return tuple(
        replace(shape(font * scale), penalty=SMALLER * i)
        for i, scale in enumerate(FALLBACK_SCALES)
    )


def _hardest_first(entry: tuple[str, Item]) -> tuple[bool, float]:
    """Texts that need the most room even at their smallest are placed first;
    optional ones (tile numbers) last."""
    item = entry[1]
    smallest = min(item.shapes, key=lambda s: s.width * s.height)
    return item.optional, -smallest.width * smallest.height


def _items(
    ctx: Context, state: GameState, hex_id: str, tile: TileDef, phase_color: str
) -> list[tuple[str, Item]]:
    """The upright texts of a hex by kind.

    A cost printed on a laid tile (Kiev's 635) is shown only where it is paid on
    replacing the tile; by the rulebook it was paid when the tile was laid.
    """
    items: list[tuple[str, Item]] = []
    offboard = next((n for n in tile.nodes if n.kind == "offboard" and not n.hidden), None)
    if offboard is not None:
        items.append(("offboard-values", _values_item(offboard, phase_color)))
    revenues = sorted({n.revenue for n in tile.nodes if n.kind != "offboard" and n.revenue})
    if revenues:
        items.append(("revenue", _revenue_item("/".join(map(str, revenues)))))
    head, _, note = ctx.board.location_names.get(hex_id, "").partition(" (")
    if head:
        items.append(("name", _name_item(head)))
    if note:
        items.append(("name-note", _name_item(f"({note}")))
    if tile.label:
        items.append(("tile-label", _label_item(tile.label)))
    future = ctx.board.hexes[hex_id].future_label
    if future and COLORS.index(tile.color) < COLORS.index(future[1]):
        items.append(("future-label", _future_label_item(*future)))
    laid = hex_id in state.map.tiles
    if tile.upgrade_cost and (not laid or ctx.rules.tile_cost_paid_on_replace):
        items.append(("cost", _cost_item(ctx, tile, bool(tile.nodes or tile.paths))))
    elif not ctx.rules.tile_cost_paid_on_replace and (cost := _next_tile_cost(ctx, tile)):
        items.append(("cost", _cost_item(ctx, replace(tile, upgrade_cost=cost), True)))
    if hex_id in state.map.blocked_hexes:
        items.append(("lock", _lock_item()))
    if laid:
        items.append(("tile-number", _tile_number_item(state.map.tiles[hex_id].tile)))
    return items


def _next_tile_cost(ctx: Context, tile: TileDef) -> int:
    """What laying the next tile costs where every upgrade (the tiles of the next
    colour with the hex's label) carries the same printed cost: Kiev's ₽40 for 635
    (8.6.2: paid when that tile is placed); 0 elsewhere."""
    if tile.label is None or tile.color not in COLORS[:-1]:
        return 0
    following = COLORS[COLORS.index(tile.color) + 1]
    costs = {t.upgrade_cost for t in ctx.board.tiles.values() if t.color == following and t.label == tile.label}
    return costs.pop() if len(costs) == 1 else 0


def _name_item(name: str) -> Item:
    """A place name (or the note after it, such as "(₽80 if includes M)"): on one line
    where it fits, else wrapped, else smaller."""
    shapes = []
    for step, scale in enumerate(FALLBACK_SCALES):
        font = NAME_FONT * scale
        for lines in wrappings(name.split(), partial(text_width, size=font), most=4):
            penalty = SMALLER * step + WRAPPED * (len(lines) - 1)
            shapes.append(replace(_name_shape(lines, font), penalty=penalty))
    spots = tuple(
        (dx * SIZE, sign * (APOTHEM - shapes[0].height / 2 - gap))
        for gap in (4.0, 10.0, 18.0)
        for sign in (-1, 1)
        for dx in (0.0, 0.3, -0.3)
    )
    return Item(tuple(shapes), spots)


def _name_shape(lines: list[str], font: float) -> Shape:
    line_h = font * NAME_LINE
    width = max(text_width(line, font) for line in lines) + 6
    height = line_h * len(lines) + 1

    def draw(parent: ET.Element, x: float, y: float) -> None:
        top = y - height / 2
        el(
            parent,
            "rect",
            class_="back",
            x=x - width / 2,
            y=top,
            width=width,
            height=height,
            rx=4.0,
        )
        for i, line in enumerate(lines):
            text(parent, x, top + 0.5 + line_h * (i + 0.5), line, size=font, class_="name")

    return Shape(width, height, draw)


def _label_item(label: str) -> Item:
    def shape(font: float) -> Shape:
        def draw(parent: ET.Element, x: float, y: float) -> None:
            text(parent, x, y, label, size=font, bold=True, class_="label")

        return Shape(text_width(label, font, True) + 4, font + 2, draw)

    return Item(_scaled(shape, LABEL_FONT), LABEL_SPOTS)


def _future_label_item(label: str, color: str) -> Item:
    def shape(font: float) -> Shape:
        width = text_width(label, font, True) + 12
        height = font + 8

        def draw(parent: ET.Element, x: float, y: float) -> None:
            left, top = x - width / 2, y - height / 2
            fill = PHASE_COLORS[color]
            el(
                parent, "rect", x=left, y=top, width=width, height=height, rx=4.0, fill=fill,
                stroke=INK,
            )
            text(parent, x, y, label, size=font, bold=True, class_="future-label", data_color=color)

        return Shape(width, height, draw)

    return Item(_scaled(shape, SMALL_FONT), LABEL_SPOTS)


def _revenue_item(content: str) -> Item:
    def shape(font: float) -> Shape:
        width = max(text_width(content, font, True) + 10, font + 10)
        height = font + 7

        def draw(parent: ET.Element, x: float, y: float) -> None:
            left, top = x - width / 2, y - height / 2
            el(
                parent, "rect", class_="pill", x=left, y=top, width=width, height=height,
                rx=height / 2,
            )
            text(parent, x, y, content, size=font, bold=True, class_="revenue")

        return Shape(width, height, draw)

    return Item(_scaled(shape, SMALL_FONT), REVENUE_SPOTS)


def _cost_item(ctx: Context, tile: TileDef, crowded: bool) -> Item:
    """The cost of laying track on the hex, with a wave for water; in a crowded hex
    smaller, and at last without the wave."""
    content = money(ctx, tile.upgrade_cost)

    wave = WATER_ICON if tile.terrain == "water" else 0.0

    def shape(font: float, icon: float = wave) -> Shape:
        width = icon + text_width(content, font) + 4

        def draw(parent: ET.Element, x: float, y: float) -> None:
            left = x - width / 2
            if icon:
                place = f"translate({fmt(left + icon / 2)},{fmt(y)})"
                el(parent, "path", class_="water", d=WATER_PATH, transform=place)
            text(
                parent,
                left + icon,
                y,
                content,
                size=font,
                anchor="start",
                class_="cost",
                data_terrain=tile.terrain,
            )

        return Shape(width, font + 6, draw)

    spots = COST_SPOTS + CENTER if crowded else CENTER + COST_SPOTS
    shapes = _scaled(shape, SMALL_FONT)
    smallest = SMALL_FONT * FALLBACK_SCALES[-1]
    bare = replace(shape(smallest, 0.0), penalty=shapes[-1].penalty + SMALLER)
    return Item((*shapes, bare), spots)


def _lock_item() -> Item:
    def shape(font: float) -> Shape:
        width = text_width(LOCK_TEXT, font, True) + 12
        height = font + 8

        def draw(parent: ET.Element, x: float, y: float) -> None:
            left, top = x - width / 2, y - height / 2
            el(parent, "rect", class_="lock", x=left, y=top, width=width, height=height, rx=4.0)
            text(parent, x, y, LOCK_TEXT, size=font, bold=True, class_="lock")

        return Shape(width, height, draw)

    middle = ((0.0, -0.3 * APOTHEM), (0.0, 0.3 * APOTHEM))
    return Item(_scaled(shape, SMALL_FONT), middle + LABEL_SPOTS)


def _tile_number_item(name: str) -> Item:
    """The laid tile's number, small and grey, as on 18xx.games; left out of a hex
    with no room for it."""
    width = text_width(name, TILE_NUMBER_FONT) + 2
    height = TILE_NUMBER_FONT + 2

    def draw(parent: ET.Element, x: float, y: float) -> None:
        text(parent, x, y, name, size=TILE_NUMBER_FONT, class_="tile-number")

    return Item((Shape(width, height, draw),), TILE_NUMBER_SPOTS, optional=True)


def _draw_borders(parent: ET.Element, tile: TileDef, center: Point) -> None:
    """Outline-free edges inside a multi-hex off-board, and water/impassable borders."""
    for border in tile.borders:
        a = _polar(60.0 * (border.edge + 1), SIZE)
        b = _polar(60.0 * (border.edge + 2), SIZE)
        color = BORDER_COLORS.get(border.type or "", PHASE_COLORS[tile.color])
        el(
            parent,
            "line",
            class_="border",
            data_type=border.type,
            x1=center[0] + a[0],
            y1=center[1] + a[1],
            x2=center[0] + b[0],
            y2=center[1] + b[1],
            stroke=color,
            stroke_width=6.0 if border.type else 3.0,
        )


def _bands(root: ET.Element, view: _View, below: float) -> None:
    """A white frame round the edge of the view (and over the strip ``below`` it),
    under the coordinates."""
    x0, y0, x1, y1 = view.x, view.y, view.x + view.width, view.y + view.height
    outer = f"M {fmt(x0)} {fmt(y0)} H {fmt(x1)} V {fmt(y1 + below)} H {fmt(x0)} Z"
    inner = f"M {fmt(x0 + MARGIN)} {fmt(y0 + MARGIN)} V {fmt(y1 - MARGIN)} H {fmt(x1 - MARGIN)} V {fmt(y0 + MARGIN)} Z"
    el(root, "path", class_="band", d=f"{outer} {inner}")


def _coordinates(root: ET.Element, hex_ids: Iterable[str], inner: _View) -> None:
    """Column letters above and below, row numbers left and right of the ``inner`` view."""
    group = el(root, "g", class_="coordinates")
    columns: dict[str, float] = {}
    rows: dict[int, float] = {}
    for hex_id in hex_ids:
        cx, cy = hex_center(hex_id)
        if inner.x <= cx <= inner.x + inner.width:
            columns[hex_id.rstrip("0123456789")] = cx
        if inner.y <= cy <= inner.y + inner.height:
            rows[parse_hex(hex_id)[1]] = cy
    for letters, cx in columns.items():
        for cy in (inner.y - MARGIN / 2, inner.y + inner.height + MARGIN / 2):
            text(group, cx, cy, letters, size=COORD_FONT, class_="coord", data_column=letters)
    for number, cy in rows.items():
        for cx in (inner.x - MARGIN / 2, inner.x + inner.width + MARGIN / 2):
            text(group, cx, cy, str(number), size=COORD_FONT, class_="coord", data_row=number)
