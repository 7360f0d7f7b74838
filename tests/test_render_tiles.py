"""The tile sheet (``tiles HEX``): every legal lay drawn on the hex among its
neighbours, with its exits, cost and the command to type, on real positions."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET

import pytest

from engine.actions import LayTile
from engine.game import Game
from engine.legal import legal_lays
from engine.notation import distinct_rotations
from engine.replay import replay
from render.png import svg_to_png
from render.tiles import Candidate, exits_towards, render_tiles
from tests.conftest import shared_game
from tests.svg_geometry import beyond_hex

NS = {"s": "http://www.w3.org/2000/svg"}


def _before_lay(name: str, hex_id: str, tile: str) -> Game:
    """The game just before the shared game ``name`` lays ``tile`` on ``hex_id``."""
    log, _ = shared_game(name)
    found: list[Game] = []

    def before(game: Game, action: object) -> None:
        if not found and isinstance(action, LayTile) and (action.hex, action.tile) == (hex_id, tile):
            found.append(copy.deepcopy(game))

    replay(log, None, before=before)
    return found[0]


@pytest.fixture(scope="module")
def montreal() -> Game:
    """1867-21268, OR 3: AE upgrades Montreal (L12) to green; KP and CV have tokens there."""
    return _before_lay("1867-21268", "L12", "637")


def _lays(game: Game, hex_id: str) -> list[LayTile]:
    company = game.state.companies[game.actor() or ""]
    return [lay for lay in legal_lays(game, company) if lay.hex == hex_id]


def test_every_legal_lay_is_drawn_with_its_command_cost_and_exits(montreal: Game) -> None:
    ctx, state = montreal.ctx, montreal.state
    lays = _lays(montreal, "L12")
    assert {lay.tile for lay in lays} == {"637", "X1", "X2", "X3", "X4"}
    candidates = [Candidate(lay.tile, lay.rotation, 20) for lay in lays]
    root = ET.fromstring(render_tiles(ctx, state, "L12", candidates))
    cells = root.findall(".//s:g[@class='candidate']", NS)
    assert [(c.get("data-tile"), int(c.get("data-rotation") or -1)) for c in cells] == [
        (lay.tile, lay.rotation) for lay in lays
    ]
    tokens_before = sorted(s for (h, _), slots in state.map.tokens.items() if h == "L12" for s in slots if s)
    assert tokens_before == ["CV", "KP"]
    for cell, lay in zip(cells, lays):
        words = {t.get("class"): t.text for t in cell.iter(f"{{{NS['s']}}}text") if t.get("class")}
        assert words["command"] == f"lay L12 {lay.tile} {lay.rotation}"
        assert words["cost"] == "$20"
        laid = cell.findall(".//s:g[@class='tile'][@data-hex='L12']", NS)
        assert [(g.get("data-tile"), g.get("data-rotation")) for g in laid] == [(lay.tile, str(lay.rotation))]
        exits = sorted(t.text or "" for t in cell.iter(f"{{{NS['s']}}}text") if t.get("class") == "exit")
        assert exits == sorted(exits_towards(ctx, "L12", lay.tile, lay.rotation))
        on_hex = sorted(t.get("data-company") or "" for t in laid[0].findall(".//s:g[@class='token']", NS))
        assert on_hex == tokens_before  # the tokens stay on the upgraded tile
    neighbours = {t.text for t in cells[0].iter(f"{{{NS['s']}}}text") if t.get("class") in ("exit", "neighbour")}
    assert neighbours == set(ctx.board.neighbours["L12"].values())


def test_montreal_sheet_counts_each_distinct_lay_once_and_stays_small(montreal: Game) -> None:
    """637 at 0, 2 and 4 lays the same track (its cities swap places), as do X1's six
    rotations: the sheet shows 12 lays, not 26, in at most three columns."""
    ctx, state = montreal.ctx, montreal.state
    by_tile: dict[str, list[int]] = {}
    for lay in _lays(montreal, "L12"):
        by_tile.setdefault(lay.tile, []).append(lay.rotation)
    distinct = {t: distinct_rotations(ctx.board.tiles[t], r) for t, r in by_tile.items()}
    assert distinct == {"637": [0, 1], "X1": [0], "X2": [0, 1], "X3": [0, 1, 2, 5], "X4": [0, 1, 2]}
    candidates = [Candidate(t, r, 20) for t, rs in distinct.items() for r in rs]
    svg = render_tiles(ctx, state, "L12", candidates)
    root = ET.fromstring(svg)
    assert float(root.get("width") or 0) < 800  # three columns
    assert len(svg_to_png(svg)) < 1_000_000


def test_a_plain_hex_shows_each_rotation_and_where_its_track_leads(montreal: Game) -> None:
    lays = [lay for lay in _lays(montreal, "K13")]
    assert lays
    candidates = [Candidate(lay.tile, lay.rotation, 0, "loan") for lay in lays]
    root = ET.fromstring(render_tiles(montreal.ctx, montreal.state, "K13", candidates))
    costs = [t.text for t in root.iter(f"{{{NS['s']}}}text") if t.get("class") == "cost"]
    assert costs == ["no cost (loan)"] * len(lays)
    header = next(t.text for t in root.iter(f"{{{NS['s']}}}text"))
    assert header is not None and header.startswith("K13 Cornwall:")


def test_montreals_x_tiles_keep_their_three_cities_apart(montreal: Game) -> None:
    """Finding 9: after X1 the three cities' lines overlapped. Every X tile in every
    rotation now draws its cities clear of each other, inside the hex."""
    from render.map import APOTHEM, CITY_R

    ctx, state = montreal.ctx, montreal.state
    candidates = [Candidate(t, r, 20) for t in ("X1", "X2", "X3", "X4") for r in range(6)]
    root = ET.fromstring(render_tiles(ctx, state, "L12", candidates))
    for cell in root.findall(".//s:g[@class='candidate']", NS):
        laid = cell.find(".//s:g[@class='tile'][@data-hex='L12']", NS)
        assert laid is not None
        centres = []
        for city in laid.findall("s:g[@class='city']", NS):
            x, y = (float(v) for v in (city.get("transform") or "")[len("translate("):-1].split(","))
            centres.append((x, y))
            assert beyond_hex((x, y), (0.0, 0.0), APOTHEM) + CITY_R <= 0.5  # inside the hex, corners too
        assert len(centres) == 3
        for i, a in enumerate(centres):
            for b in centres[i + 1 :]:
                assert ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 >= 2 * CITY_R + 4, cell.get("data-tile")


def test_the_tiles_text_lists_each_lay_of_the_sheet_with_its_exits_in_dollars(montreal: Game) -> None:
    """`tiles L12` lists the sheet's lays in its order, each with the hexes its track
    leads to; 1867's money is dollars (finding 14)."""
    from bot.track_help import sheet_candidates, tiles_text

    lines = tiles_text(montreal, "L12").split("\n")
    candidates = sheet_candidates(montreal, "L12")
    assert len(candidates) == 12
    for line, candidate in zip(lines[1:], candidates):
        towards = ", ".join(exits_towards(montreal.ctx, "L12", candidate.tile, candidate.rotation))
        assert line.startswith(f"`lay L12 {candidate.tile} {candidate.rotation}` → {towards} $20")
    everything = tiles_text(montreal)
    assert "$" in everything and "₽" not in everything
