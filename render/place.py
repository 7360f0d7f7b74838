"""Where the upright texts of a hex go: inside the hex, clear of its cities, towns,
tokens and other texts, and clear of its track wherever the hex has room.

Coordinates are in the hex's own frame (centre at 0, 0; flat-topped, corner
radius ``size``). Each text offers a few shapes (a name on one line or wrapped)
and a few preferred anchors; when none of those is clean, every point of a fine
grid over the hex is tried at once with numpy.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np

Point = tuple[float, float]
Draw = Callable[[ET.Element, float, float], None]

BLOCKED = 1000.0
"""Cost of covering a city, town or another text, or of crossing the hex's border."""
TRACK_HIT = 3.0
"""Cost of each point of track a text covers."""
WRAPPED = 1.0
"""Penalty of a shape for each line it adds."""
SMALLER = 4.0
"""Penalty of a shape for each step smaller: a little track is better covered than
the text set much smaller."""
NEAR_TEXT = 30.0
"""Cost of reaching into the margin kept round a neighbouring hex's name (so two
names either side of a border do not read as one); less than covering anything."""
RANK_STEP = 0.001
"""Cost of each step down the list of anchors: ties go to the preferred one."""
INSET = 1.5
"""Texts keep this far inside the hex outline."""
GRID_STEP = 4.0


@dataclass(frozen=True)
class Shape:
    """One way to set a text: its box and how to draw it centred on a point."""

    width: float
    height: float
    draw: Draw
    penalty: float = 0.0  # how much worse than the item's first shape


@dataclass(frozen=True)
class Item:
    """A text to place: its shapes, best first, and its preferred anchors, best first."""

    shapes: tuple[Shape, ...]
    anchors: tuple[Point, ...]
    optional: bool = False  # left out where it would cover something or leave the hex


class Placer:
    """Places the texts of one hex, one after the other, each clear of the ones before."""

    def __init__(
        self,
        size: float,
        obstacles: Sequence[tuple[float, float, float]],
        track: Sequence[tuple[float, float, float]],
        near: Sequence[tuple[float, float, float, float]] = (),
    ):
        self.size = size
        self.obstacles = list(obstacles)  # (x, y, radius): cities, slots, towns
        self.track = track  # (x, y, radius) along the track
        self.boxes: list[tuple[float, float, float, float]] = []
        self.near = list(near)  # (x0, y0, x1, y1): margins round neighbours' names

    def block(self, x: float, y: float, w: float, h: float) -> None:
        """Keep texts off a box centred on (x, y)."""
        self.boxes.append((x - w / 2, y - h / 2, x + w / 2, y + h / 2))

    def place(self, item: Item) -> tuple[Shape, Point] | None:
        """The shape and centre where ``item`` costs least (None for an optional item
        with no free place); the box is then taken. Shapes are tried in order of
        penalty, each at its anchors and, unless one of those is clean, over the grid."""
        best: tuple[float, Shape, Point] | None = None
        for shape in item.shapes:
            if best is not None and best[0] <= shape.penalty:
                break
            for rank, (x, y) in enumerate(item.anchors):
                cost = self._cost(x, y, shape.width, shape.height) + shape.penalty
                cost += rank * RANK_STEP
                if best is None or cost < best[0]:
                    best = (cost, shape, (x, y))
            assert best is not None
            if best[0] >= shape.penalty + TRACK_HIT:
                best = min(best, self._grid_best(shape), key=lambda b: b[0])
        assert best is not None
        cost, shape, (x, y) = best
        if item.optional and cost >= BLOCKED:
            return None
        self.block(x, y, shape.width, shape.height)
        return shape, (x, y)

    def _cost(self, x: float, y: float, w: float, h: float) -> float:
        """BLOCKED per corner outside the hex or thing covered, else TRACK_HIT per
        point of track covered."""
        x0, y0, x1, y1 = x - w / 2, y - h / 2, x + w / 2, y + h / 2
        cost = 0.0
        for px, py in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            if not _inside(px, py, self.size - INSET * 2 / math.sqrt(3)):
                cost += BLOCKED
        cost += BLOCKED * _covered(self.obstacles, x0, y0, x1, y1)
        for bx0, by0, bx1, by1 in self.boxes:
            if x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1:
                cost += BLOCKED
        if cost:
            return cost
        for bx0, by0, bx1, by1 in self.near:
            if x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1:
                cost += NEAR_TEXT
        return cost + TRACK_HIT * _covered(self.track, x0, y0, x1, y1)

    def _grid_best(self, shape: Shape) -> tuple[float, Shape, Point]:
        """The cheapest grid point for ``shape``, computed for all points at once."""
        xs, ys = _grid(self.size)
        w, h = shape.width / 2, shape.height / 2
        limit = self.size - INSET * 2 / math.sqrt(3)
        inside = (np.abs(ys) + h <= limit * math.sqrt(3) / 2) & (
            math.sqrt(3) * (np.abs(xs) + w) + np.abs(ys) + h <= math.sqrt(3) * limit
        )
        if not inside.any():
            return math.inf, shape, (0.0, 0.0)
        xs, ys = xs[inside], ys[inside]
        x0, x1, y0, y1 = xs - w, xs + w, ys - h, ys + h
        cost = np.full(xs.shape, shape.penalty) + np.hypot(xs, ys) * RANK_STEP
        for circles, weight in ((self.obstacles, BLOCKED), (self.track, TRACK_HIT)):
            if circles:
                cx, cy, r = (np.array(v)[:, None] for v in zip(*circles))
                dx = np.maximum(x0 - cx, 0.0) + np.maximum(cx - x1, 0.0)
                dy = np.maximum(y0 - cy, 0.0) + np.maximum(cy - y1, 0.0)
                cost += weight * (dx * dx + dy * dy < r * r).sum(axis=0)
        for boxes, weight in ((self.boxes, BLOCKED), (self.near, NEAR_TEXT)):
            for bx0, by0, bx1, by1 in boxes:
                cost += weight * ((x0 < bx1) & (bx0 < x1) & (y0 < by1) & (by0 < y1))
        best = int(np.argmin(cost))
        return float(cost[best]), shape, (float(xs[best]), float(ys[best]))


def place_all(
    size: float,
    obstacles: Sequence[tuple[float, float, float]],
    track: Sequence[tuple[float, float, float]],
    items: Sequence[Item],
    key: Hashable,
    near: Sequence[tuple[float, float, float, float]] = (),
) -> list[tuple[Shape, Point] | None]:
    """Where each item goes, in order (see :meth:`Placer.place`); ``near`` are boxes
    texts had better keep out of (round the names of neighbouring hexes). The answer
    is kept under ``key`` plus the items' shapes and anchors and ``near``, so a hex that
    has not changed since the last picture is not worked out again."""
    full_key = (key, tuple(near), tuple((i.anchors, i.optional, _sizes(i)) for i in items))
    spots = _PLACED.get(full_key)
    if spots is None:
        placer = Placer(size, obstacles, track, near)
        spots = []
        for item in items:
            spot = placer.place(item)
            spots.append(None if spot is None else (item.shapes.index(spot[0]), spot[1]))
        if len(_PLACED) >= REMEMBERED:
            _PLACED.clear()
        _PLACED[full_key] = spots
    return [
        None if spot is None else (item.shapes[spot[0]], spot[1])
        for item, spot in zip(items, spots)
    ]


def _sizes(item: Item) -> tuple[tuple[float, float, float], ...]:
    return tuple((s.width, s.height, s.penalty) for s in item.shapes)


_PLACED: dict[Hashable, list[tuple[int, Point] | None]] = {}
REMEMBERED = 20_000
"""Hex layouts kept (a full map has under 200; every tile and rotation seen in a game
is a few thousand)."""


def _inside(x: float, y: float, size: float) -> bool:
    root3 = math.sqrt(3)
    return abs(y) <= size * root3 / 2 and root3 * abs(x) + abs(y) <= root3 * size


def _covered(
    circles: Sequence[tuple[float, float, float]], x0: float, y0: float, x1: float, y1: float
) -> int:
    """How many of the circles reach into the box."""
    count = 0
    for cx, cy, r in circles:
        dx = x0 - cx if cx < x0 else cx - x1 if cx > x1 else 0.0
        dy = y0 - cy if cy < y0 else cy - y1 if cy > y1 else 0.0
        if dx < r and dy < r and dx * dx + dy * dy < r * r:
            count += 1
    return count


@cache
def _grid(size: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every GRID_STEP pixels inside a hex of corner radius ``size``."""
    steps = np.arange(-size, size + GRID_STEP, GRID_STEP)
    xs, ys = np.meshgrid(steps, steps)
    xs, ys = xs.ravel(), ys.ravel()
    keep = (np.abs(ys) <= size * math.sqrt(3) / 2) & (
        math.sqrt(3) * np.abs(xs) + np.abs(ys) <= math.sqrt(3) * size
    )
    return xs[keep], ys[keep]


def wrappings(
    words: Sequence[str], width: Callable[[str], float], most: int = 3
) -> list[list[str]]:
    """``words`` set on one line, then on two, up to ``most`` lines: for each count,
    the breaks that make the widest line narrowest."""
    options = []
    for lines in range(1, min(most, len(words)) + 1):
        best: list[str] | None = None
        for breaks in combinations(range(1, len(words)), lines - 1):
            cut = [" ".join(words[a:b]) for a, b in zip((0, *breaks), (*breaks, len(words)))]
            if best is None or max(map(width, cut)) < max(map(width, best)):
                best = cut
        assert best is not None
        options.append(best)
    return options
