"""The routes a company ran, drawn on the map: one colour per train, with each
train's stops and revenue in a strip below, so players can check them by eye.

A route is drawn along the track it uses: from a stop to the edge it leaves by,
along the track of every hex it passes, to the next stop. Lines stop at the rim
of a city so its tokens stay readable, and each stop gets a ring in the train's
colour.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from engine import Context, GameState, RouteResult, hex_distance

from .map import (
    FOCUS_ZOOM,
    MARGIN,
    SIZE,
    Point,
    draw_map,
    edge_middle,
    hex_center,
    node_center,
    node_radius,
    track_between,
)
from .svg import INK, el, fmt, money, text, text_width, to_string

TRAIN_COLORS = ("#e6194b", "#1f78d1", "#2ca02c", "#f58231", "#911eb4", "#00a3a3")
"""One colour per train, in the company's train order: far apart from each other,
from black track and from the hex colours (CIEDE2000 over 20 between any two)."""
LINE = 9.0
RING = 4.0
FONT = 18.0
ROW = 30.0
MAX_SIZE = 1960.0
"""The picture is zoomed in until its longer side is this long, at most by the
close-up zoom."""


def render_routes(
    ctx: Context,
    state: GameState,
    company: str,
    routes: Sequence[RouteResult],
    idle: Sequence[str] = (),
) -> str:
    """The map around ``company``'s routes, each train's route in its own colour,
    with the revenue of each train and their total below; the trains in ``idle``
    (train ids) are listed as running no route."""
    near = {h for r in routes for leg in r.legs for h in leg} or {
        t.hex for t in state.companies[company].placed_tokens if t.hex
    }
    shown = [h for h in ctx.board.hexes if any(hex_distance(h, n) <= 1 for n in near)]
    below = ROW * (len(routes) + len(idle) + 1) + 16
    xs, ys = zip(*(hex_center(h) for h in shown))
    span = max(max(xs) - min(xs), max(ys) - min(ys) + below) + 2 * (SIZE + MARGIN)
    zoom = max(1.0, min(FOCUS_ZOOM, MAX_SIZE / span))
    drawn = draw_map(ctx, state, shown, zoom=zoom, below=below, data_company=company)
    lines = el(drawn.overlay, "g", class_="routes", data_company=company)
    for i, route in enumerate(routes):
        color = TRAIN_COLORS[i % len(TRAIN_COLORS)]
        group = el(
            lines,
            "g",
            class_="route",
            data_train=route.train,
            data_revenue=route.revenue,
            stroke=color,
        )
        for leg_index, leg in enumerate(route.legs):
            start, end = route.stops[leg_index], route.stops[leg_index + 1]
            points = _leg_points(ctx, state, start, end, leg)
            el(group, "path", class_="leg", d=_path(points), fill="none", stroke_width=LINE,
               stroke_linecap="round", stroke_linejoin="round")
        for hex_id, node in route.stops:
            x, y = node_center(ctx, state, hex_id, node)
            r = node_radius(ctx, state, hex_id, node) + RING
            el(group, "circle", class_="stop", cx=x, cy=y, r=r, fill="none", stroke_width=RING)
    _revenue_strip(drawn.root, ctx, state, company, routes, idle, drawn.view.x + MARGIN, drawn.below_y)
    return to_string(drawn.root)


def _leg_points(
    ctx: Context,
    state: GameState,
    start: tuple[str, int],
    end: tuple[str, int],
    leg: tuple[str, ...],
) -> list[Point]:
    """The line of one leg: stop, along the track of each hex passed, stop; trimmed
    to the rims of the stops."""
    hexes = list(leg) if leg[0] == start[0] else list(reversed(leg))
    points = [node_center(ctx, state, *start)]
    for k in range(len(hexes) - 1):
        here, there = hexes[k], hexes[k + 1]
        out = _edge_towards(ctx, here, there)
        if k == 0:
            points.append(_on_map(here, edge_middle(out)))
        entry = (out + 3) % 6
        if k + 1 < len(hexes) - 1:
            leave = _edge_towards(ctx, there, hexes[k + 2])
            points.extend(_on_map(there, p) for p in track_between(entry, leave))
        else:
            points.append(_on_map(there, edge_middle(entry)))
    points.append(node_center(ctx, state, *end))
    points = _trim(points, node_radius(ctx, state, *start))
    return _trim(points[::-1], node_radius(ctx, state, *end))[::-1]


def _edge_towards(ctx: Context, here: str, there: str) -> int:
    return next(edge for edge, hex_id in ctx.board.neighbours[here].items() if hex_id == there)


def _on_map(hex_id: str, point: Point) -> Point:
    cx, cy = hex_center(hex_id)
    return cx + point[0], cy + point[1]


def _trim(points: list[Point], length: float) -> list[Point]:
    """The line without its first ``length`` pixels (unchanged if it is that short)."""
    left = length
    for i in range(len(points) - 1):
        step = math.dist(points[i], points[i + 1])
        if step > left:
            t = left / step
            (x0, y0), (x1, y1) = points[i], points[i + 1]
            return [(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t), *points[i + 1 :]]
        left -= step
    return points


def _path(points: list[Point]) -> str:
    return "M " + " L ".join(f"{fmt(x)} {fmt(y)}" for x, y in points)


def _revenue_strip(
    root: ET.Element,
    ctx: Context,
    state: GameState,
    company: str,
    routes: Sequence[RouteResult],
    idle: Sequence[str],
    x: float,
    top: float,
) -> None:
    """One line per train: its colour, name, stops and revenue; a line for each train
    without a route; then the total."""
    names = {t.id: t.name for t in state.companies[company].trains}
    strip = el(root, "g", class_="route-revenues", data_company=company)
    for i, route in enumerate(routes):
        cy = top + 8 + ROW * (i + 0.5)
        color = TRAIN_COLORS[i % len(TRAIN_COLORS)]
        el(strip, "line", x1=x, y1=cy, x2=x + 40, y2=cy, stroke=color, stroke_width=LINE,
           stroke_linecap="round")
        words = f"{names.get(route.train, route.train)}-train: {stops_text(route)}"
        text(strip, x + 54, cy, words, size=FONT, anchor="start")
        text(
            strip,
            x + 54 + text_width(words, FONT) + 16,
            cy,
            money(ctx, route.revenue),
            size=FONT,
            bold=True,
            anchor="start",
            class_="train-revenue",
            data_train=route.train,
        )
    for i, train in enumerate(idle, start=len(routes)):
        cy = top + 8 + ROW * (i + 0.5)
        text(strip, x + 54, cy, f"{train}: no route", size=FONT, anchor="start",
             class_="idle", data_train=train)
    total = sum(r.revenue for r in routes)
    cy = top + 8 + ROW * (len(routes) + len(idle) + 0.5)
    summary = f"{company} runs for {money(ctx, total)}"
    text(strip, x + 54, cy, summary, size=FONT, bold=True, anchor="start", fill=INK, class_="total")
    if any(r.counted and len(r.counted) < len(r.stops) for r in routes):
        text(strip, x + 54 + text_width(summary, FONT, True) + 16, cy,
             "(stops in brackets are passed but not counted)", size=FONT, anchor="start", class_="note")


def stops_text(route: RouteResult) -> str:
    """A train's stops in route order, a stop passed but not counted in brackets,
    as the text reply writes them: "(A17) - B18 - C17"."""
    counted = set(route.counted)
    return " - ".join(
        h if not route.counted or (h, i) in counted else f"({h})" for h, i in route.stops
    )
