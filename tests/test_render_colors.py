"""Colour science (CIEDE2000, WCAG contrast) and the company palette read from the pictures.

The CIEDE2000 pairs are from Sharma, Wu and Dalal's test data (2005); the
palette is checked on what the SVGs actually draw: every company's chip in the
table, every token on the map of the finished 1861 game.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

from engine.board import load_board
from engine.replay import replay
from render.colors import (
    ALIKE_DELTA_E,
    MIN_CONTRAST,
    MIN_DELTA_E,
    company_palette,
    contrast,
    delta_e,
    from_lab,
    to_hex,
    to_lab,
)
from render.map import render_map
from render.table import render_table
from tests.conftest import shared_game

GAME = "1861-29683"
NS = {"s": "http://www.w3.org/2000/svg"}
MET_IN_CITIES = [
    ("SW", "M-K"), ("SW", "MNN"), ("M-K", "MNN"), ("SPW", "OK"), ("SPW", "KK"), ("OK", "KK")
]
"""Pairs whose printed colours were mixed up where they share Moscow and the Kiev lines."""


@pytest.mark.parametrize(
    ("lab1", "lab2", "expected"),
    [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
    ],
)
def test_ciede2000_matches_the_published_pairs(lab1, lab2, expected) -> None:
    assert delta_e(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert delta_e(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_wcag_contrast() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#ffffff", "#777777") == contrast("#777777", "#ffffff")
    assert contrast("#3c7b5c", "#3c7b5c") == 1.0


def test_lab_round_trip() -> None:
    for color in ("#000080", "#d75500", "#fffdd0", "#7c7b8c"):
        assert to_hex(from_lab(to_lab(color))) == color
    assert from_lab((50.0, 120.0, -120.0)) is None  # beyond sRGB


def _palette_figures(fills: dict[str, str], texts: dict[str, str]) -> tuple[float, float, float]:
    labs = {sym: to_lab(fill) for sym, fill in fills.items()}
    pairs = {frozenset(p): delta_e(labs[p[0]], labs[p[1]]) for p in itertools.combinations(labs, 2)}
    named = [pairs[frozenset(p)] for p in MET_IN_CITIES if set(p) <= set(labs)]
    return min(pairs.values()), min(named, default=ALIKE_DELTA_E), min(
        contrast(fills[s], texts[s]) for s in fills
    )


@pytest.mark.parametrize("title", ["1861", "1867"])
def test_palette_keeps_companies_apart_and_symbols_legible(title: str) -> None:
    board = load_board(title)
    palette = company_palette(board.corporations.values())
    assert set(palette) == set(board.corporations)
    fills = {s: sw.fill for s, sw in palette.items()}
    texts = {s: sw.text for s, sw in palette.items()}
    nearest, named, legible = _palette_figures(fills, texts)
    assert nearest >= MIN_DELTA_E and named >= ALIKE_DELTA_E and legible >= MIN_CONTRAST
    for sym, corp in board.corporations.items():
        if corp.type == "major" and sym in ("NW", "SW", "CNR", "CPR"):
            assert palette[sym].fill == corp.color[:7]  # the first majors keep their charter


def test_palette_stays_near_the_charters() -> None:
    board = load_board("1861")
    palette = company_palette(board.corporations.values())
    moved = {
        s: delta_e(to_lab(palette[s].fill), to_lab(c.color))
        for s, c in board.corporations.items()
    }
    assert sorted(moved.values())[len(moved) // 2] < 10  # most keep, or nearly keep, their colour
    assert max(moved.values()) < 35


def _chips(root: ET.Element) -> tuple[dict[str, str], dict[str, str]]:
    fills, texts = {}, {}
    for g in root.iter(f"{{{NS['s']}}}g"):
        sym = g.get("data-company")
        shape = g.find("s:rect", NS) if g.find("s:rect", NS) is not None else g.find("s:circle", NS)
        label = g.find("s:text", NS)
        if sym and shape is not None and label is not None and g.get("class") in ("chip", "token"):
            fills.setdefault(sym, shape.get("fill"))
            texts.setdefault(sym, label.get("fill"))
            assert (fills[sym], texts[sym]) == (shape.get("fill"), label.get("fill"))
    return fills, texts


def test_the_pictures_draw_every_company_in_its_palette_colours() -> None:
    """Read from the SVGs of the finished 1861-29683: the table has a chip for every
    company, the map a token for each company still on it."""
    game = replay(shared_game(GAME)[0]).game
    ctx, state = game.ctx, game.state
    table_fills, table_texts = _chips(ET.fromstring(render_table(ctx, state)))
    assert set(table_fills) == set(ctx.board.corporations)
    nearest, named, legible = _palette_figures(table_fills, table_texts)
    assert nearest >= MIN_DELTA_E and named >= ALIKE_DELTA_E and legible >= MIN_CONTRAST
    map_fills, map_texts = _chips(ET.fromstring(render_map(ctx, state)))
    assert set(map_fills) == {s for s, c in state.companies.items() if c.placed_tokens}
    for sym in map_fills:
        assert (map_fills[sym], map_texts[sym]) == (table_fills[sym], table_texts[sym])
