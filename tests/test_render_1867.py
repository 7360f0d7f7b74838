"""Pictures of 1867 games: the Canadian map, market and table drawn from the engine's
replay of the shared real games (every tile at its rotation, every token, the CN)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from engine.game import Game
from engine.replay import replay
from render import render_map, render_market, render_table
from render.map import TRACK
from tests.conftest import shared_game

NS = {"s": "http://www.w3.org/2000/svg"}
POINTS = [("1867-21268", 20), ("1867-21268", 200), ("1867-21268", 500), ("1867-21268", None), ("1867-19792", None)]


def _find(root: ET.Element, path: str) -> list[ET.Element]:
    return root.findall(path, NS)


@pytest.fixture(scope="module", params=POINTS, ids=[f"{g}@{a or 'end'}" for g, a in POINTS])
def replayed(request: pytest.FixtureRequest) -> Game:
    name, until = request.param
    log: dict[str, Any]
    log, _ = shared_game(name)
    run = replay(log, None, until=until)
    assert run.stopped_at is None
    return run.game


def test_every_tile_and_company_token_is_drawn_where_the_engine_has_it(replayed: Game) -> None:
    ctx, state = replayed.ctx, replayed.state
    root = ET.fromstring(render_map(ctx, state))
    drawn_tiles = _find(root, ".//s:g[@class='tile']")
    tiles = {g.get("data-hex"): (g.get("data-tile"), g.get("data-rotation")) for g in drawn_tiles}
    assert tiles == {h: (p.tile, str(p.rotation)) for h, p in state.map.tiles.items()}
    drawn = sorted(
        (t.get("data-hex"), t.get("data-city"), t.get("data-company")) for t in _find(root, ".//s:g[@class='token']")
    )
    placed = sorted(
        (t.hex, str(t.city), sym) for sym, c in state.companies.items() for t in c.tokens if t.hex is not None
    )
    assert [d for d in drawn if d[2] in state.companies] == placed
    assert ("F16", "0", "CN") in drawn or any(h == "F16" and s == "CN" for h, _, s in drawn)


def test_the_green_spots_are_drawn_green_with_their_phase_until_phase_three(replayed: Game) -> None:
    """7.2.1: Timmins and Montreal's third city are green spots on the board, open
    from phase 3 (with the site's switch they hold neutral tokens until then)."""
    ctx, state = replayed.ctx, replayed.state
    root = ET.fromstring(render_map(ctx, state))
    spots = {
        (city.get("data-hex") or hexes.get("data-hex"), city.get("data-node"))
        for hexes in _find(root, ".//s:g[@data-hex]")
        for city in hexes.findall("s:g[@class='city']", NS)
        if city.find("s:circle[@class='slot closed']", NS) is not None
    }
    neutral = {(h, str(c)) for (h, c), slots in state.map.tokens.items() if "neutral" in slots}
    assert spots == neutral
    assert spots == ({("D2", "0"), ("L12", "2")} if state.phase == "2" else set())
    legend = " ".join(t.text or "" for t in root.iter(f"{{{NS['s']}}}text"))
    assert ("green spot: opens in phase 3" in legend) is (state.phase == "2")
    assert not [t for t in _find(root, ".//s:g[@class='token']") if t.get("data-company") == "neutral"]


def test_must_connect_triangles_town_dots_and_city_numbers_on_the_real_map(replayed: Game) -> None:
    """8.6.2: G15, K13 and L10 show a yellow triangle on the edge their first tile must
    join, until a tile is laid; a green town tile (88) shows its town; a free city of a
    hex with several cities shows its number, as typed in ``token HEX N``."""
    ctx, state = replayed.ctx, replayed.state
    root = ET.fromstring(render_map(ctx, state))
    triangles = {(g.get("data-hex"), p.get("data-edge")) for g in _find(root, ".//s:g[@data-hex]")
                 for p in g.findall("s:polygon[@class='stub']", NS)}
    expected = {("G15", "1"), ("K13", "4"), ("L10", "0")}
    assert triangles == {t for t in expected if t[0] not in state.map.tiles}
    for hex_id, placed in state.map.tiles.items():
        tile = ctx.board.tiles[placed.tile]
        group = root.find(f".//s:g[@class='tile'][@data-hex='{hex_id}']", NS)
        assert group is not None
        dots = group.findall(".//s:circle[@class='town-dot']", NS) + group.findall(".//s:line[@class='town-bar']", NS)
        assert len(dots) == len(tile.town_indexes), hex_id
        for dot in group.findall(".//s:circle[@class='town-dot']", NS):
            assert float(dot.get("r") or 0) > TRACK / 2 + 2  # wider than the rails crossing it
    for hex_id in ctx.board.hexes:
        tile, _ = ctx.tile_at(state, hex_id)
        group = root.find(f".//s:g[@data-hex='{hex_id}']", NS)
        numbers = [] if group is None else [t.text for t in group.findall(".//s:text[@class='slot-number']", NS)]
        free = [str(c) for c in tile.city_indexes
                if None in state.map.tokens.get((hex_id, c), [None]) and (hex_id, c) not in state.map.reservations
                and (hex_id, c) not in ctx.title.closed_spots(ctx, state)]
        assert numbers == (free if len(tile.city_indexes) > 1 else []), hex_id


def test_the_market_and_table_show_every_company(replayed: Game) -> None:
    ctx, state = replayed.ctx, replayed.state
    market = ET.fromstring(render_market(ctx, state))
    on_market = {c.get("data-company") for c in _find(market, ".//s:g[@class='token']")}
    assert on_market == {s for s, c in state.companies.items() if c.market is not None}
    table = ET.fromstring(render_table(ctx, state, round_name=replayed.round_name))
    words = " ".join(t.text or "" for t in table.iter(f"{{{NS['s']}}}text"))
    assert "$" in words and "₽" not in words
    assert "CN" in words
