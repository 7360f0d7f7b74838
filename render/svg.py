"""Small SVG helpers shared by the pictures: elements, text, fonts and colours.

Every picture uses the DejaVu Sans family (regular and bold), which has the
rouble sign and the accented letters of the city names. Cairo finds it through
fontconfig by family name; Pillow measures text with the same font files so
boxes fit their text. Both come from the ``fonts-dejavu-core`` package.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import cache, lru_cache

from PIL import ImageFont

from engine import Context

SVG_NS = "http://www.w3.org/2000/svg"
FONT_FAMILY = "DejaVu Sans"
FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
BASELINE_SHIFT = 0.36
"""Fraction of the font size from a line's vertical middle down to its baseline."""

INK = "#1a1a1a"
PAPER = "#ffffff"
PHASE_COLORS = {
    "white": "#f3eedf",
    "yellow": "#f6dc4a",
    "green": "#86c36a",
    "brown": "#c48654",
    "gray": "#b8b8b8",
    "red": "#d8473d",
    "blue": "#8db8e0",
}
"""Tile and map colours by the data's colour names."""


def fmt(value: float) -> str:
    """A number for an attribute: at most two decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def money(ctx: Context, amount: int) -> str:
    """'₽1,250' (1861) or '$1,250' (1867): the title's currency, as on its cards."""
    return f"{ctx.title.currency}{amount:,}"


def el(
    parent: ET.Element | None, tag: str, content: str | None = None, /, **attrs: object
) -> ET.Element:
    """A new element (a child of ``parent`` when given).

    Keyword names map to attributes: ``_`` becomes ``-`` and a trailing ``_`` is
    dropped (``class_``, ``data_hex`` → ``class``, ``data-hex``); ``None`` values are
    left out and numbers are written by :func:`fmt`.
    """
    attrib = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        if isinstance(value, float):
            attrib[name] = fmt(value)
        else:
            attrib[name] = str(value)
    node = ET.Element(tag, attrib) if parent is None else ET.SubElement(parent, tag, attrib)
    if content is not None:
        node.text = content
    return node


def svg_root(
    width: float,
    height: float,
    css: str,
    *,
    view_box: tuple[float, float, float, float] | None = None,
    **attrs: object,
) -> ET.Element:
    """An ``<svg>`` element with its style sheet; ``view_box`` defaults to the size."""
    width, height = float(round(width)), float(round(height))
    box = view_box or (0.0, 0.0, width, height)
    root = el(
        None,
        "svg",
        xmlns=SVG_NS,
        width=width,
        height=height,
        viewBox=" ".join(fmt(v) for v in box),
        **attrs,
    )
    el(root, "style", f"text {{ font-family: '{FONT_FAMILY}'; }}\n" + css)
    return root


def to_string(root: ET.Element) -> str:
    """The SVG document as text."""
    return ET.tostring(root, encoding="unicode")


@cache
def _font(size: float, bold: bool) -> ImageFont.FreeTypeFont:
    try:
        return ImageFont.truetype(FONT_FILES[bold], size)
    except OSError as exc:
        raise RuntimeError(
            f"the {FONT_FAMILY} font is missing: install the fonts-dejavu-core package"
        ) from exc


@lru_cache(maxsize=4096)
def text_width(content: str, size: float, bold: bool = False) -> float:
    """Width in pixels of one line of text in DejaVu Sans."""
    return float(_font(size, bold).getlength(content))


def fit_size(content: str, width: float, size: float, bold: bool = True) -> float:
    """``size``, or smaller so that ``content`` fits in ``width``."""
    natural = text_width(content, size, bold)
    return size if natural <= width else size * width / natural


def text(
    parent: ET.Element,
    x: float,
    y: float,
    content: str,
    *,
    size: float,
    bold: bool = False,
    anchor: str = "middle",
    fill: str | None = None,
    **attrs: object,
) -> ET.Element:
    """A line of text whose vertical middle is at ``y``."""
    return el(
        parent,
        "text",
        content,
        x=x,
        y=y + size * BASELINE_SHIFT,
        font_size=size,
        font_weight="bold" if bold else None,
        text_anchor=anchor if anchor != "start" else None,
        fill=fill,
        **attrs,
    )
