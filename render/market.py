"""The stock market as SVG: the grid or the column, its zones and the companies' tokens.

Zones follow rulebook 4.1: orange spaces start minors only (``x``), pink start any
company (``p``), teal start majors only (``z``), blue let minors convert (``C``);
a convert space that is also a start space gets a blue band. The thick line
right of an ``m`` space is the border minors do not cross. Tokens sharing a
space are listed top of the stack first, which is the order they operate in (4.2).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable

from engine import Context, GameState, MarketCell

from .colors import swatch
from .svg import (
    INK,
    PAPER,
    PHASE_COLORS,
    el,
    fit_size,
    svg_root,
    text,
    text_width,
    to_string,
)

CELL = {"grid": (92.0, 132.0), "column": (64.0, 230.0)}
"""Width and height of a market space in each market: a grid space holds four
tokens in one column at a readable size."""
BAND_COLUMNS = 10
"""A one-row market (the column market's 28 spaces) is set in bands of this many
spaces, one under the other, so the picture reads on a phone."""
BAND_GAP = 16.0
PAD = 20.0
PRICE_FONT = 17.0
CHIP_FONT = 18.0
CHIP_HEIGHT = 28.0
CHIP_GAP = 3.0
PRICE_BAND = 28.0
"""Height at the top of a space kept for its price."""
CONVERT_BAND = 9.0
CEILING_WIDTH = 7.0
LEGEND_FONT = 15.0
TITLE_FONT = 20.0
LEGEND_LINE = 26.0

ZONES = {
    "x": ("#f5a04f", "orange: only minors start here"),
    "p": ("#f2a7c8", "pink: any company starts here"),
    "z": ("#4fb2a6", "teal: only majors start here"),
    "C": ("#7eaee3", "blue: minors may convert here"),
}
PLAIN = PHASE_COLORS["white"]

CSS = f"""
.space rect.ground {{ stroke: {INK}; stroke-width: 1; }}
.ceiling {{ stroke: {INK}; stroke-width: {CEILING_WIDTH}; }}
.token rect {{ stroke: {INK}; stroke-width: 1.2; }}
.legend rect {{ stroke: {INK}; stroke-width: 1; }}
"""


def zone_of(cell: MarketCell) -> str | None:
    """The start zone letter of a space (x, p or z), else ``C`` for a convert space."""
    for letter in "xpz":
        if letter in cell.flags:
            return letter
    return "C" if cell.convert_zone else None


def render_market(ctx: Context, state: GameState) -> str:
    """The stock market with every company's token, as an SVG document."""
    kind = ctx.rules.market
    grid = ctx.board.markets[kind]
    cell_w, cell_h = CELL[kind]
    cols = max(len(row) for row in grid)
    bands = -(-cols // BAND_COLUMNS) if len(grid) == 1 else 1
    place = _banded(cell_w, cell_h) if bands > 1 else _gridded(cell_w, cell_h)
    legend_w, legend_h = _legend_size(kind)
    spot = _legend_spot(grid, cols, cell_w, cell_h, legend_w, legend_h) if bands == 1 else None
    shown_cols = BAND_COLUMNS if bands > 1 else cols
    grid_h = len(grid) * cell_h if bands == 1 else bands * (cell_h + BAND_GAP) - BAND_GAP
    width = 2 * PAD + max(shown_cols * cell_w, legend_w)
    height = 2 * PAD + grid_h + (0.0 if spot else legend_h + PAD)
    root = svg_root(width, height, CSS, class_="market", data_market=kind)
    el(root, "rect", width=width, height=height, fill=PAPER)
    spaces = el(root, "g", class_="spaces")
    ceilings = el(root, "g", class_="ceilings")
    for row in grid:
        for cell in row:
            if cell is not None:
                x, y = place(cell)
                _draw_space(ctx, state, spaces, cell, x, y, cell_w, cell_h)
                if cell.minor_ceiling:
                    el(
                        ceilings,
                        "line",
                        class_="ceiling",
                        x1=x + cell_w,
                        y1=y,
                        x2=x + cell_w,
                        y2=y + cell_h,
                    )
    lx, ly = spot or (PAD, PAD + grid_h + PAD)
    _draw_legend(root, kind, lx, ly)
    return to_string(root)


def _gridded(cell_w: float, cell_h: float) -> Callable[[MarketCell], tuple[float, float]]:
    """Top-left corner of each space where the market's rows and columns put it."""
    return lambda cell: (PAD + cell.col * cell_w, PAD + cell.row * cell_h)


def _banded(cell_w: float, cell_h: float) -> Callable[[MarketCell], tuple[float, float]]:
    """Top-left corner of each space of a one-row market set in bands."""
    return lambda cell: (
        PAD + (cell.col % BAND_COLUMNS) * cell_w,
        PAD + (cell.col // BAND_COLUMNS) * (cell_h + BAND_GAP),
    )


def _draw_space(
    ctx: Context,
    state: GameState,
    parent: ET.Element,
    cell: MarketCell,
    x: float,
    y: float,
    w: float,
    h: float,
) -> None:
    zone = zone_of(cell)
    group = el(
        parent,
        "g",
        class_="space",
        data_row=cell.row,
        data_col=cell.col,
        data_price=cell.price,
        data_zone=zone,
        data_flags=cell.flags or None,
    )
    el(
        group,
        "rect",
        class_="ground",
        x=x,
        y=y,
        width=w,
        height=h,
        fill=ZONES[zone][0] if zone else PLAIN,
    )
    if cell.convert_zone and zone != "C":
        el(
            group,
            "rect",
            class_="convert",
            x=x + 1,
            y=y + h - CONVERT_BAND - 1,
            width=w - 2,
            height=CONVERT_BAND,
            fill=ZONES["C"][0],
        )
    text(group, x + w / 2, y + PRICE_BAND / 2 + 1, str(cell.price), size=PRICE_FONT, bold=True)
    stack = state.market.get((cell.row, cell.col), [])
    if stack:
        _draw_stack(
            ctx, group, stack, x + 4, y + PRICE_BAND, w - 8, h - PRICE_BAND - CONVERT_BAND - 4
        )


def _draw_stack(
    ctx: Context, parent: ET.Element, stack: list[str], x: float, y: float, w: float, h: float
) -> None:
    """Tokens in one column, top of the stack (the first to operate, 4.2) at the top;
    a tall stack sets its chips thinner."""
    chip_h = min(CHIP_HEIGHT, (h + CHIP_GAP) / len(stack) - CHIP_GAP)
    chip_w = w
    for i, sym in enumerate(stack):
        colors = swatch(ctx.board, sym)
        cx = x
        cy = y + i * (chip_h + CHIP_GAP)
        chip = el(parent, "g", class_="token", data_company=sym, data_stack_index=i)
        el(chip, "rect", x=cx, y=cy, width=chip_w, height=chip_h, rx=4.0, fill=colors.fill)
        size = fit_size(sym, chip_w - 2, min(CHIP_FONT, chip_h - 4))
        text(
            chip,
            cx + chip_w / 2,
            cy + chip_h / 2,
            sym,
            size=size,
            bold=True,
            fill=colors.text,
        )


def _legend_lines(kind: str) -> list[tuple[str | None, str]]:
    """(swatch colour or None, text) for each line after the title; a swatch with a
    blue band is written ``colour+C``."""
    return [(colour, words) for colour, words in ZONES.values()] + [
        (f"{ZONES['p'][0]}+C", "pink with a blue band: any company starts, minors convert"),
        (
            INK,
            (
                "thick line: minors stop at it"
                if kind == "column"
                else "thick line: minors move up at it"
            ),
        ),
        (None, "tokens in a space: top operates first"),
    ]


def _legend_size(kind: str) -> tuple[float, float]:
    lines = _legend_lines(kind)
    width = max(text_width(words, LEGEND_FONT) for _, words in lines) + 40
    return width, LEGEND_LINE * (len(lines) + 1) + 10


def _legend_spot(
    grid: list[list[MarketCell | None]], cols: int, cell_w: float, cell_h: float, w: float, h: float
) -> tuple[float, float] | None:
    """Top-left corner of an empty block of the grid (below and right) that fits the legend."""
    for r in range(len(grid)):
        for c in range(cols):
            if (cols - c) * cell_w < w + PAD or (len(grid) - r) * cell_h < h + PAD:
                break
            if all(cell is None for row in grid[r:] for cell in row[c:]):
                return PAD + c * cell_w + PAD, PAD + r * cell_h + PAD
    return None


def _draw_legend(root: ET.Element, kind: str, x: float, y: float) -> None:
    legend = el(root, "g", class_="legend")
    text(
        legend,
        x,
        y + LEGEND_LINE / 2,
        f"Stock market ({kind})",
        size=TITLE_FONT,
        bold=True,
        anchor="start",
    )
    for i, (colour, words) in enumerate(_legend_lines(kind), start=1):
        cy = y + LEGEND_LINE * (i + 0.5)
        if colour is not None:
            fill, band = colour.split("+") if "+" in colour else (colour, None)
            el(legend, "rect", x=x, y=cy - 8, width=28.0, height=16.0, fill=fill)
            if band:
                el(legend, "rect", x=x, y=cy + 3, width=28.0, height=5.0, fill=ZONES[band][0])
        text(legend, x + 36, cy, words, size=LEGEND_FONT, anchor="start")
