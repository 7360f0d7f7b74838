"""Pictures of a game: the map, the stock market and the table, as SVG and PNG.

Everything here is a pure function of the engine's state and static board
data. Text is set in DejaVu Sans (package ``fonts-dejavu-core``), which has the
rouble sign and the accented city names.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import Context, GameState, RouteResult

from .map import render_map
from .market import render_market
from .png import svg_to_png
from .routes import render_routes
from .table import render_table

__all__ = [
    "render_map",
    "render_map_png",
    "render_market",
    "render_market_png",
    "render_routes",
    "render_routes_png",
    "render_table",
    "render_table_png",
    "write_pictures",
]


def render_map_png(ctx: Context, state: GameState, **kw: Any) -> bytes:
    """The map as PNG bytes; keywords as :func:`render_map` (``highlight``, ``focus``)."""
    return svg_to_png(render_map(ctx, state, **kw))


def render_market_png(ctx: Context, state: GameState) -> bytes:
    """The stock market as PNG bytes."""
    return svg_to_png(render_market(ctx, state))


def render_routes_png(
    ctx: Context, state: GameState, company: str, routes: Sequence[RouteResult]
) -> bytes:
    """The routes picture as PNG bytes; arguments as :func:`render_routes`."""
    return svg_to_png(render_routes(ctx, state, company, routes))


def render_table_png(ctx: Context, state: GameState, **kw: Any) -> bytes:
    """The table as PNG bytes; keywords as :func:`render_table` (``round_name``, ``acting``)."""
    return svg_to_png(render_table(ctx, state, **kw))


def write_pictures(
    ctx: Context,
    state: GameState,
    out_dir: str | Path,
    *,
    highlight: str | None = None,
    focus: str | None = None,
    round_name: str | None = None,
    acting: str | None = None,
    routes: tuple[str, Sequence[RouteResult]] | None = None,
    svg: bool = False,
) -> dict[str, Path]:
    """Write map.png, market.png and table.png into ``out_dir`` (created if missing),
    and routes.png when ``routes`` gives a company and the routes it ran; with ``svg``
    each picture's SVG beside it.

    Returns the paths by picture name ("map", "market", "table", "routes", and
    "map.svg" and so on for the SVGs).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    documents = {
        "map": render_map(ctx, state, highlight=highlight or (), focus=focus),
        "market": render_market(ctx, state),
        "table": render_table(ctx, state, round_name=round_name, acting=acting),
    }
    if routes is not None:
        documents["routes"] = render_routes(ctx, state, *routes)
    paths = {}
    for name, document in documents.items():
        paths[name] = out / f"{name}.png"
        paths[name].write_bytes(svg_to_png(document))
        if svg:
            paths[f"{name}.svg"] = out / f"{name}.svg"
            paths[f"{name}.svg"].write_text(document, encoding="utf-8")
    return paths
