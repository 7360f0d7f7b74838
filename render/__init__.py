"""Pictures of a game: the map, the stock market and the table, as SVG and PNG.

Everything here is a pure function of the engine's state and static board
data. Text is set in DejaVu Sans (package ``fonts-dejavu-core``), which has the
rouble sign and the accented city names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.state import Context, GameState

from .map import render_map
from .market import render_market
from .png import svg_to_png
from .table import render_table

__all__ = [
    "render_map",
    "render_map_png",
    "render_market",
    "render_market_png",
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
) -> dict[str, Path]:
    """Write map.png, market.png and table.png into ``out_dir`` (created if missing).

    Returns the paths by picture name ("map", "market", "table").
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pictures = {
        "map": render_map_png(ctx, state, highlight=highlight or (), focus=focus),
        "market": render_market_png(ctx, state),
        "table": render_table_png(ctx, state, round_name=round_name, acting=acting),
    }
    paths = {}
    for name, data in pictures.items():
        path = out / f"{name}.png"
        path.write_bytes(data)
        paths[name] = path
    return paths
