"""Pictures of 1867 games: the Canadian map, market and table drawn from the engine's
replay of the shared real games (every tile at its rotation, every token, the CN)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from engine.game import Game
from engine.replay import replay
from render import render_map, render_market, render_table
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


def test_the_green_spots_show_their_neutral_tokens_until_phase_three(replayed: Game) -> None:
    ctx, state = replayed.ctx, replayed.state
    root = ET.fromstring(render_map(ctx, state))
    neutral = {t.get("data-hex") for t in _find(root, ".//s:g[@class='token']") if t.get("data-company") == "neutral"}
    expected = {h for (h, _), slots in state.map.tokens.items() if "neutral" in slots}
    assert neutral == expected
    assert bool(expected) is (state.phase == "2")


def test_the_market_and_table_show_every_company(replayed: Game) -> None:
    ctx, state = replayed.ctx, replayed.state
    market = ET.fromstring(render_market(ctx, state))
    on_market = {c.get("data-company") for c in _find(market, ".//s:g[@class='token']")}
    assert on_market == {s for s, c in state.companies.items() if c.market is not None}
    table = ET.fromstring(render_table(ctx, state, round_name=replayed.round_name))
    words = " ".join(t.text or "" for t in table.iter(f"{{{NS['s']}}}text"))
    assert "$" in words and "₽" not in words
    assert "CN" in words
