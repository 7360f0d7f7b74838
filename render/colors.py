"""Colour science for the pictures, and the company palette.

``delta_e`` is CIEDE2000 (Sharma, Wu and Dalal, 2005) on CIELAB under D65;
``contrast`` is the WCAG 2 contrast ratio. The palette starts from each
company's printed charter colour and moves a colour only as far as needed for
every pair of companies to be told apart at a glance on a phone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from itertools import chain

import numpy as np
from PIL import ImageColor

from engine import Board, CorporationDef

Lab = tuple[float, float, float]
RGB = tuple[int, int, int]

MIN_DELTA_E = 12.0
"""Every two company colours are at least this far apart."""
ALIKE_DELTA_E = 20.0
"""Companies whose charters are printed in alike colours (closer than this) are moved
at least this far apart: they are the ones a player mixes up in a crowded city."""
MIN_CONTRAST = 4.5
"""A token's symbol against its fill (WCAG AA for normal text)."""
BLACK, WHITE = "#000000", "#ffffff"

_WHITE_POINT = (0.95047, 1.0, 1.08883)
_LIGHTNESS = range(20, 96, 4)
_CHROMA = range(0, 121, 8)
_HUE = range(0, 360, 6)
"""The grid in CIE LCh from which a moved colour is chosen."""


def parse_color(color: str) -> RGB:
    """``#rrggbb``, ``#rrggbbaa`` (alpha dropped) or a CSS colour name, as 0-255 RGB."""
    rgb = ImageColor.getrgb(color[:7] if color.startswith("#") else color)
    return rgb[0], rgb[1], rgb[2]


def to_hex(rgb: RGB) -> str:
    """``#rrggbb`` of 0-255 RGB."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(linear: float) -> float:
    return 12.92 * linear if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055


def luminance(color: str) -> float:
    """WCAG relative luminance, 0 (black) to 1 (white)."""
    r, g, b = (_linear(c) for c in parse_color(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def to_lab(color: str) -> Lab:
    """CIELAB (D65) of an sRGB colour."""
    r, g, b = (_linear(c) for c in parse_color(color))
    xyz = (
        0.4124 * r + 0.3576 * g + 0.1805 * b,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        0.0193 * r + 0.1192 * g + 0.9505 * b,
    )
    fx, fy, fz = (_lab_f(v / w) for v, w in zip(xyz, _WHITE_POINT))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _lab_f(t: float) -> float:
    return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29


def _lab_f_inverse(f: float) -> float:
    return f**3 if f > 6 / 29 else 3 * (6 / 29) ** 2 * (f - 4 / 29)


def from_lab(lab: Lab) -> RGB | None:
    """The sRGB colour of a CIELAB value, or None when sRGB cannot show it."""
    lightness, a, b = lab
    fy = (lightness + 16) / 116
    x, y, z = (
        w * _lab_f_inverse(f) for w, f in zip(_WHITE_POINT, (fy + a / 500, fy, fy - b / 200))
    )
    linear = (
        3.2406 * x - 1.5372 * y - 0.4986 * z,
        -0.9689 * x + 1.8758 * y + 0.0415 * z,
        0.0557 * x - 0.2040 * y + 1.0570 * z,
    )
    if any(not -1e-3 <= c <= 1 + 1e-3 for c in linear):
        return None
    r, g, b = (round(255 * _gamma(min(max(c, 0.0), 1.0))) for c in linear)
    return r, g, b


def delta_e(lab1: Lab, lab2: Lab) -> float:
    """CIEDE2000 colour difference (kL = kC = kH = 1)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    big_dh = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * cp_mean
    sh = 1 + 0.015 * cp_mean * t
    rc = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    rt = -math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2)))) * rc
    return math.sqrt(
        (dl / sl) ** 2 + (dc / sc) ** 2 + (big_dh / sh) ** 2 + rt * (dc / sc) * (big_dh / sh)
    )


def symbol_color(fill: str) -> str:
    """Black or white, whichever reads better on ``fill``."""
    return BLACK if contrast(fill, BLACK) >= contrast(fill, WHITE) else WHITE


def readable_on(color: str, ground: str, fallback: str) -> str:
    """``color`` if text in it reads on ``ground``, else ``fallback``."""
    return color if contrast(color, ground) >= MIN_CONTRAST else fallback


@dataclass(frozen=True)
class Swatch:
    """A company's token: its fill and the colour of the symbol written on it."""

    fill: str
    text: str


def swatch(board: Board, sym: str) -> Swatch:
    """The token colours of company ``sym`` on ``board``."""
    return company_palette(board.corporations.values())[sym]


def company_palette(corporations: Iterable[CorporationDef]) -> dict[str, Swatch]:
    """A token colour per company: the charter colour where it is far enough from the
    companies placed before it (majors first, then the rest in data order), else the
    nearest colour that is; the symbol in black or white, whichever reads better."""
    corps = sorted(corporations, key=lambda c: c.type != "major")
    return dict(_palette(tuple((c.sym, c.color, c.text_color) for c in corps)))


@cache
def _palette(corps: tuple[tuple[str, str, str], ...]) -> tuple[tuple[str, Swatch], ...]:
    charters = {sym: to_lab(color) for sym, color, _ in corps}
    chosen: dict[str, Lab] = {}
    swatches = []
    for sym, color, text_color in corps:
        need = {
            other: ALIKE_DELTA_E
            if delta_e(charters[sym], charters[other]) < ALIKE_DELTA_E
            else MIN_DELTA_E
            for other in chosen
        }
        fill = _nearest_fitting(solid_hex(color), chosen, need)
        chosen[sym] = to_lab(fill)
        keep = solid_hex(text_color)
        text = keep if contrast(fill, keep) >= MIN_CONTRAST else symbol_color(fill)
        swatches.append((sym, Swatch(fill, text)))
    return tuple(swatches)


def solid_hex(color: str) -> str:
    """Any colour the data uses (``#rrggbbaa``, CSS names) as ``#rrggbb``."""
    return to_hex(parse_color(color))


def _nearest_fitting(printed: str, chosen: dict[str, Lab], need: dict[str, float]) -> str:
    """The colour nearest the ``printed`` one (itself first) that is ``need[other]``
    away from every chosen colour and carries a legible symbol; if none is, the one
    that misses by the least. The colour that last said no is asked first: nearby
    candidates usually fail on it too."""
    best, best_miss = "", math.inf
    others = list(chosen)
    for rgb in chain([parse_color(printed)], _grid_by_distance(to_lab(printed))):
        fill = to_hex(rgb)
        if max(contrast(fill, BLACK), contrast(fill, WHITE)) < MIN_CONTRAST:
            continue
        lab = to_lab(fill)
        miss = 0.0
        for i, other in enumerate(others):
            short = need[other] - delta_e(lab, chosen[other])
            if short > 0:
                others.insert(0, others.pop(i))
                miss = max(miss, short)
                if miss >= best_miss:
                    break
        if miss <= 0:
            return fill
        if miss < best_miss:
            best, best_miss = fill, miss
    return best


def _grid_by_distance(charter: Lab) -> list[RGB]:
    labs, rgbs = _grid()
    order = np.argsort(np.linalg.norm(labs - np.array(charter), axis=1), kind="stable")
    return [rgbs[i] for i in order]


@cache
def _grid() -> tuple[np.ndarray, tuple[RGB, ...]]:
    """The sRGB colours of the LCh grid, with their exact Lab after rounding to RGB."""
    colors = {}
    for lightness in _LIGHTNESS:
        for chroma in _CHROMA:
            for hue in _HUE if chroma else (0,):
                lab = (
                    float(lightness),
                    chroma * math.cos(math.radians(hue)),
                    chroma * math.sin(math.radians(hue)),
                )
                rgb = from_lab(lab)
                if rgb is not None:
                    colors[rgb] = to_lab(to_hex(rgb))
    return np.array(list(colors.values())), tuple(colors)
