"""Geometry read back from a map SVG, to check that nothing hides anything else.

Only what the SVG itself says is used: element coordinates, ``translate`` and
``rotate`` transforms, path data (M, L, A and Z) and the text's font metrics from
the DejaVu files, so a test built on it checks the picture as drawn, not the
renderer's own idea of where it put things.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from PIL import ImageFont

SVG = "{http://www.w3.org/2000/svg}"
FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
Point = tuple[float, float]
Box = tuple[float, float, float, float]
Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True)
class Label:
    """One text item of a hex (a name, a revenue pill, a cost, a value strip...)."""

    hex: str
    kind: str
    box: Box


@dataclass(frozen=True)
class Circle:
    hex: str
    kind: str  # token, slot, reservation, town
    x: float
    y: float
    r: float


@dataclass
class MapGeometry:
    labels: list[Label]
    circles: list[Circle]
    borders: list[tuple[Point, Point]]  # every drawn hex edge, once
    track: list[tuple[str, Point, float]]  # (hex, point along a rail, half its width)


def _multiply(m: Matrix, n: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def _parse_transform(value: str | None) -> Matrix:
    matrix = IDENTITY
    for name, args in re.findall(r"(\w+)\(([^)]*)\)", value or ""):
        nums = [float(v) for v in re.split(r"[ ,]+", args.strip())]
        if name == "translate":
            step = (1.0, 0.0, 0.0, 1.0, nums[0], nums[1] if len(nums) > 1 else 0.0)
        elif name == "rotate":
            rad = math.radians(nums[0])
            step = (math.cos(rad), math.sin(rad), -math.sin(rad), math.cos(rad), 0.0, 0.0)
        else:
            raise ValueError(f"unexpected transform {name}")
        matrix = _multiply(matrix, step)
    return matrix


def _apply(m: Matrix, x: float, y: float) -> Point:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _walk(node: ET.Element, matrix: Matrix = IDENTITY) -> Iterator[tuple[ET.Element, Matrix]]:
    here = _multiply(matrix, _parse_transform(node.get("transform")))
    yield node, here
    for child in node:
        yield from _walk(child, here)


@cache
def _font(size: float, bold: bool) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(FONT_FILES[bold], size)


def text_box(node: ET.Element, matrix: Matrix) -> Box:
    """The ink box of a ``<text>`` (upright text: only translations apply)."""
    size = float(node.get("font-size"))
    font = _font(size, node.get("font-weight") == "bold")
    anchor = {"middle": "ms", "end": "rs"}.get(node.get("text-anchor", "start"), "ls")
    x0, y0, x1, y1 = font.getbbox(node.text or "", anchor=anchor)
    ox, oy = _apply(matrix, float(node.get("x")), float(node.get("y")))
    return ox + x0, oy + y0, ox + x1, oy + y1


def _rect_box(node: ET.Element, matrix: Matrix) -> Box:
    x, y = float(node.get("x", 0)), float(node.get("y", 0))
    x0, y0 = _apply(matrix, x, y)
    x1, y1 = _apply(matrix, x + float(node.get("width")), y + float(node.get("height")))
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _union(boxes: list[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def path_points(d: str, step: float = 2.0) -> list[Point]:
    """Points every ``step`` pixels along path data made of M, L, A and Z."""
    tokens = re.findall(r"[MLAZ]|-?[\d.]+(?:e-?\d+)?", d)
    points: list[Point] = []
    at = start = (0.0, 0.0)
    i = 0
    while i < len(tokens):
        command = tokens[i]
        if command == "M":
            at = start = (float(tokens[i + 1]), float(tokens[i + 2]))
            points.append(at)
            i += 3
        elif command == "L":
            to = (float(tokens[i + 1]), float(tokens[i + 2]))
            points.extend(_segment(at, to, step))
            at, i = to, i + 3
        elif command == "A":
            r, large, sweep = float(tokens[i + 1]), int(tokens[i + 4]), int(tokens[i + 5])
            to = (float(tokens[i + 6]), float(tokens[i + 7]))
            points.extend(_arc(at, to, r, large, sweep, step))
            at, i = to, i + 8
        elif command == "Z":
            points.extend(_segment(at, start, step))
            at, i = start, i + 1
        else:
            raise ValueError(f"unexpected path data {command!r}")
    return points


def _segment(p: Point, q: Point, step: float) -> list[Point]:
    n = max(1, math.ceil(math.dist(p, q) / step))
    return [(p[0] + (q[0] - p[0]) * t / n, p[1] + (q[1] - p[1]) * t / n) for t in range(1, n + 1)]


def _arc(p: Point, q: Point, r: float, large: int, sweep: int, step: float) -> list[Point]:
    """SVG's endpoint arc (circle of radius r) as points (SVG 1.1, appendix F.6.5)."""
    mx, my = (p[0] - q[0]) / 2, (p[1] - q[1]) / 2
    r = max(r, math.hypot(mx, my))
    scale = math.sqrt(max(0.0, (r * r - mx * mx - my * my) / (mx * mx + my * my)))
    if large == sweep:
        scale = -scale
    cx, cy = scale * my + (p[0] + q[0]) / 2, -scale * mx + (p[1] + q[1]) / 2
    a0 = math.atan2(p[1] - cy, p[0] - cx)
    a1 = math.atan2(q[1] - cy, q[0] - cx)
    turn = a1 - a0
    if sweep and turn < 0:
        turn += 2 * math.pi
    if not sweep and turn > 0:
        turn -= 2 * math.pi
    n = max(1, math.ceil(abs(turn) * r / step))
    return [
        (cx + r * math.cos(a0 + turn * t / n), cy + r * math.sin(a0 + turn * t / n))
        for t in range(1, n + 1)
    ]


def _polygon_edges(d: str) -> list[tuple[Point, Point]]:
    edges = []
    for part in re.findall(r"M[^MZ]*Z", d):
        nums = [float(v) for v in re.findall(r"-?[\d.]+", part)]
        corners = list(zip(nums[::2], nums[1::2]))
        edges.extend(zip(corners, corners[1:] + corners[:1]))
    return edges


def _key(p: Point, q: Point) -> tuple[tuple[float, float], ...]:
    return tuple(sorted(((round(p[0], 1), round(p[1], 1)), (round(q[0], 1), round(q[1], 1)))))


def _stroke_widths(css: str) -> dict[str, float]:
    """Class -> stroke width, from the style sheet."""
    return {
        cls: float(width)
        for cls, width in re.findall(r"\.([\w-]+) \{[^}]*stroke-width: ([\d.]+)", css)
    }


def map_geometry(root: ET.Element) -> MapGeometry:
    """Labels, circles, visible hex borders and track of a rendered map."""
    labels, circles, track = [], [], []
    edges: dict[tuple[tuple[float, float], ...], tuple[Point, Point]] = {}
    hidden = set()
    hex_of: dict[int, str] = {}
    widths = _stroke_widths(root.find(f"{SVG}style").text or "")
    for node, matrix in _walk(root):
        tag, cls = node.tag.removeprefix(SVG), node.get("class", "")
        if node.get("data-hex"):
            for child in node.iter():
                hex_of.setdefault(id(child), node.get("data-hex"))
        where = hex_of.get(id(node), "")
        if tag == "path" and cls == "outline":
            for p, q in _polygon_edges(node.get("d")):
                edges[_key(p, q)] = (p, q)
        elif tag == "line" and cls == "border" and not node.get("data-type"):
            p = _apply(matrix, float(node.get("x1")), float(node.get("y1")))
            q = _apply(matrix, float(node.get("x2")), float(node.get("y2")))
            hidden.add(_key(p, q))  # inside a multi-hex off-board: drawn in its colour
        elif tag == "g" and node.get("data-kind"):
            parts = [(n, m) for child in node for n, m in _walk(child, matrix)]
            boxes = [text_box(n, m) for n, m in parts if n.tag == f"{SVG}text"]
            boxes += [_rect_box(n, m) for n, m in parts if n.tag == f"{SVG}rect"]
            labels.append(Label(where, node.get("data-kind"), _union(boxes)))
        elif tag == "circle":
            x, y = _apply(matrix, float(node.get("cx")), float(node.get("cy")))
            circles.append(Circle(where, cls or "token", x, y, float(node.get("r"))))
        elif tag == "line" and cls == "town-bar":
            p = _apply(matrix, float(node.get("x1")), float(node.get("y1")))
            q = _apply(matrix, float(node.get("x2")), float(node.get("y2")))
            for x, y in [p, *_segment(p, q, 2.0)]:
                circles.append(Circle(where, "town", x, y, widths["town-bar"] / 2))
        elif tag == "path" and cls == "rail":
            for px, py in path_points(node.get("d")):
                track.append((where, _apply(matrix, px, py), widths["rail"] / 2))
    borders = [edge for key, edge in edges.items() if key not in hidden]
    return MapGeometry(labels, circles, borders, track)


def box_meets_segment(box: Box, p: Point, q: Point, pad: float = 0.0) -> bool:
    """Whether the segment pq passes through the box (grown by ``pad``): Liang-Barsky."""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    dx, dy = q[0] - p[0], q[1] - p[1]
    lo, hi = 0.0, 1.0
    for edge_p, edge_q in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if edge_p == 0:
            if edge_q < 0:
                return False
            continue
        t = edge_q / edge_p
        if edge_p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo > hi:
            return False
    return True


def box_meets_circle(box: Box, x: float, y: float, r: float) -> bool:
    dx = max(box[0] - x, 0.0, x - box[2])
    dy = max(box[1] - y, 0.0, y - box[3])
    return dx * dx + dy * dy < r * r


def boxes_meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass
class Overlaps:
    border: list[str]
    label: list[str]
    token: list[str]
    track: list[str]

    def counts(self) -> dict[str, int]:
        return {k: len(v) for k, v in vars(self).items()}


def overlaps(geometry: MapGeometry) -> Overlaps:
    """Every label that crosses a hex border, another label, a city circle (token or
    empty slot) or a town, or lies on track."""
    found = Overlaps([], [], [], [])
    labels = geometry.labels
    for i, label in enumerate(labels):
        name = f"{label.hex} {label.kind}"
        if any(box_meets_segment(label.box, p, q) for p, q in geometry.borders):
            found.border.append(name)
        for other in labels[i + 1 :]:
            if boxes_meet(label.box, other.box):
                found.label.append(f"{name} / {other.hex} {other.kind}")
        if any(box_meets_circle(label.box, c.x, c.y, c.r) for c in geometry.circles):
            found.token.append(name)
        if any(box_meets_circle(label.box, *p, r) for _, p, r in geometry.track):
            found.track.append(name)
    return found


@dataclass(frozen=True)
class Drawn:
    """One shape of a hex: where its ink reaches, as points on the map and the half
    width of its stroke (a circle is sampled round its rim)."""

    hex: str
    center: Point
    tag: str
    kind: str  # its class
    points: list[Point]
    half_stroke: float


def _shape_points(node: ET.Element, matrix: Matrix) -> list[Point]:
    tag = node.tag.removeprefix(SVG)
    if tag == "polygon":
        nums = [float(v) for v in re.split(r"[ ,]+", node.get("points", "").strip())]
        return [_apply(matrix, x, y) for x, y in zip(nums[::2], nums[1::2])]
    if tag == "path" and node.get("class") != "water":  # the wave icon is drawn in a label's box
        return [_apply(matrix, x, y) for x, y in path_points(node.get("d", ""))]
    if tag == "circle":
        cx, cy, r = (float(node.get(k, 0)) for k in ("cx", "cy", "r"))
        rim = (math.radians(7.5 * k) for k in range(48))
        return [_apply(matrix, cx + r * math.cos(a), cy + r * math.sin(a)) for a in rim]
    if tag == "line":
        ends = [(float(node.get(f"x{i}", 0)), float(node.get(f"y{i}", 0))) for i in (1, 2)]
        return [_apply(matrix, x, y) for x, y in ends]
    if tag == "rect":
        box = _rect_box(node, matrix)
        return [(box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])]
    if tag == "text":
        x0, y0, x1, y1 = text_box(node, matrix)
        return [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
    return []


def hex_shapes(root: ET.Element) -> Iterator[Drawn]:
    """Every shape drawn in a hex's groups (its track, cities, tokens, marks and texts)."""
    widths = _stroke_widths(root.find(f"{SVG}style").text or "")
    for group, matrix in _walk(root):
        if group.tag != f"{SVG}g" or group.get("class") not in ("tile", "printed", "hex-labels"):
            continue
        center = _apply(matrix, 0.0, 0.0)
        for child in group:
            for node, here in _walk(child, matrix):
                points = _shape_points(node, here)
                if points:
                    kind = node.get("class", "")
                    stroke = node.get("stroke-width") or widths.get(kind.split(" ")[0], 0.0)
                    yield Drawn(group.get("data-hex", ""), center, node.tag.removeprefix(SVG), kind, points,
                                float(stroke) / 2)


def beyond_hex(point: Point, center: Point, apothem: float) -> float:
    """How far a point lies outside the flat-topped hex round ``center`` (negative inside)."""
    dx, dy = point[0] - center[0], point[1] - center[1]
    return max(
        dx * math.cos(math.radians(30 + 60 * k)) + dy * math.sin(math.radians(30 + 60 * k)) - apothem
        for k in range(6)
    )
