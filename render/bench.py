"""How long each picture takes to draw and encode, and how big its PNG is."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from engine import Context, GameState

from .map import render_map
from .market import render_market
from .png import svg_to_png
from .table import render_table
from .tiles import Candidate, render_tiles

ROUNDS = 3
"""Each picture is drawn this many times after one warm-up; the best time counts."""


def bench_render(ctx: Context, state: GameState) -> dict[str, dict[str, float]]:
    """For each picture: ``svg_ms`` (state to SVG), ``png_ms`` (SVG to PNG), ``total_ms``
    (their sum), ``cpu_ms`` (processor time of both, which other busy processes on the
    machine do not inflate) and ``png_bytes``; the best of a few runs after a warm-up."""
    pictures: dict[str, Callable[[], str]] = {
        "map": lambda: render_map(ctx, state),
        "map_focus": lambda: render_map(
            ctx, state, focus=_busiest_hex(state) or next(iter(ctx.board.hexes))
        ),
        "market": lambda: render_market(ctx, state),
        "table": lambda: render_table(ctx, state),
    }
    return {name: _timed(draw) for name, draw in pictures.items()}


def bench_tiles(
    ctx: Context, state: GameState, hex_id: str, candidates: Sequence[Candidate]
) -> dict[str, float]:
    """The figures of :func:`bench_render` for the tile sheet of one hex."""
    return _timed(lambda: render_tiles(ctx, state, hex_id, candidates)) | {"lays": len(candidates)}


def _timed(draw: Callable[[], str]) -> dict[str, float]:
    """Best of ROUNDS draws after a warm-up."""
    svg_to_png(draw())
    best_svg = best_png = best_cpu = float("inf")
    size = 0
    for _ in range(ROUNDS):
        cpu = time.process_time()
        t0 = time.perf_counter()
        svg = draw()
        t1 = time.perf_counter()
        size = len(svg_to_png(svg))
        t2 = time.perf_counter()
        best_svg, best_png = min(best_svg, t1 - t0), min(best_png, t2 - t1)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return {
        "svg_ms": round(best_svg * 1000, 1),
        "png_ms": round(best_png * 1000, 1),
        "total_ms": round((best_svg + best_png) * 1000, 1),
        "cpu_ms": round(best_cpu * 1000, 1),
        "png_bytes": size,
    }


def _busiest_hex(state: GameState) -> str | None:
    """The hex with the most station tokens (a good place to zoom in)."""
    counts: dict[str, int] = {}
    for (hex_id, _), slots in state.map.tokens.items():
        counts[hex_id] = counts.get(hex_id, 0) + sum(s is not None for s in slots)
    return max(counts, key=counts.__getitem__, default=None)
