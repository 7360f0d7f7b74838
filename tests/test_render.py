"""Pictures: SVG structure of the map, market and table, PNG encoding and fonts.

States come from the real 1861 game in ``shared/games``: its trace gives, after
every action, the laid tiles and each company's token hexes, cash, trains and
holdings, from which :func:`state_from_trace` builds a GameState independently of
the engine; the last tests render the engine's own replay of the same log.
"""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine.board import hex_distance, load_board
from engine.game import Game
from engine.market import in_price_order
from engine.replay import replay
from engine.rules import Rules
from engine.state import (
    Certificate,
    Company,
    Context,
    GameState,
    PlacedTile,
    Player,
    StationToken,
    Train,
)
from engine.titles import title_named
from render import render_map_png, render_market_png, render_table_png, write_pictures
from render.bench import bench_render
from render.colors import swatch
from render.map import (
    APOTHEM,
    FOCUS_RADIUS,
    FOCUS_ZOOM,
    SHAPES,
    SIZE,
    hex_center,
    render_map,
)
from render.market import render_market
from render.png import svg_to_image
from render.svg import FONT_FAMILY, fmt
from render.table import ACTING, render_table
from tests.conftest import shared_game

GAME = "1861-29683"
NS = {"s": "http://www.w3.org/2000/svg"}
EARLY, MIDDLE, LATE = 120, 300, 450
"""Trace lines used: phase 2 (reservations, locked hexes), phase 3, phase 5."""


@pytest.fixture(scope="module")
def game_files() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The log and the trace (one state per action) of the shared game."""
    return shared_game(GAME)


def state_from_trace(
    ctx: Context, log: dict[str, Any], trace: list[dict[str, Any]], index: int
) -> GameState:
    """A GameState with what trace line ``index`` shows (tiles, tokens, cash, shares,
    trains); companies seen earlier but gone by then are closed, the others unstarted."""
    board = ctx.board
    line = trace[index]
    seen = {sym for earlier in trace[: index + 1] for sym in earlier["corporations"]}
    players = [Player(str(p["id"]), p["name"], line["players"][p["name"]]) for p in log["players"]]
    by_name = {p.name: p for p in players}
    state = GameState(
        title="1861", players=players, companies={}, bank=line["bank"], phase=line["phase"]
    )
    for hex_id, code in line["tiles"].items():
        name, rotation = code.split("@")
        state.map.tiles[hex_id] = PlacedTile(name, int(rotation), f"{name}-0")
    for sym, data in line["corporations"].items():
        corp = board.corporations[sym]
        company = Company(sym, data["type"], cash=data["cash"], loans=data["loans"], floated=True)
        company.trains = [Train(f"{t}-{i}", t) for i, t in enumerate(data["trains"])]
        company.tokens = [StationToken(price) for price in corp.tokens]
        for token, hex_id in zip(company.tokens, data["tokens"]):
            city = _free_city(ctx, state, hex_id, corp.home_city if hex_id == corp.home else None)
            slots = state.map.tokens.setdefault(
                (hex_id, city), [None] * ctx.tile_at(state, hex_id)[0].nodes[city].slots
            )
            slots[slots.index(None)] = sym
            token.hex, token.city = hex_id, city
        state.companies[sym] = company
        for owner, percent in data["shares"].items():
            certs = _certificates(sym, percent, president=owner == data["president"])
            by_name[owner].certs.extend(certs)
        company.treasury = _certificates(sym, data["treasury_pct"], president=False)
        state.pool.extend(_certificates(sym, data["pool_pct"], president=False))
        if data["price"] is not None:
            cell = next(c for c in board.market_cells("grid") if c.price == data["price"])
            company.market = (cell.row, cell.col)
            state.market.setdefault(company.market, []).append(sym)
    for sym, corp in board.corporations.items():
        if sym not in state.companies:
            closed = sym in seen
            state.companies[sym] = Company(
                sym, corp.type, closed=closed, tokens=[StationToken(p) for p in corp.tokens]
            )
            if corp.home is not None and not closed:
                state.map.reservations[(corp.home, corp.home_city)] = sym
    national = board.national()
    if not state.companies[national].placed_tokens:
        corp = board.corporations[national]
        state.map.reservations[(corp.home, corp.home_city)] = national
    for private, owner in line["companies"].items():
        state.private_owner[private] = None if owner in (None, "closed") else owner
        if owner == "closed":
            state.closed_privates.add(private)
        elif owner in by_name:
            by_name[owner].privates.append(private)
        elif owner in state.companies:
            state.companies[owner].privates.append(private)
    if line["phase"] == "2":
        state.map.blocked_hexes = {h for private in board.privates for h in private.blocks_hexes}
    owned = [t.name for c in state.companies.values() for t in c.trains]
    for train in board.trains:
        left = 1 if train.count is None else train.count - owned.count(train.name)
        state.depot.upcoming.extend(
            Train(f"{train.name}-{i}", train.name) for i in range(max(left, 0))
        )
    return state


def _free_city(ctx: Context, state: GameState, hex_id: str, preferred: int | None) -> int:
    tile, _ = ctx.tile_at(state, hex_id)
    cities = list(tile.city_indexes)
    if preferred in cities:
        cities.remove(preferred)
        cities.insert(0, preferred)
    for city in cities:
        slots = state.map.tokens.get((hex_id, city))
        if slots is None or None in slots:
            return city
    raise AssertionError(f"no free slot in {hex_id}")


def _certificates(sym: str, percent: int, *, president: bool) -> list[Certificate]:
    if percent == 100:
        return [Certificate(f"{sym}_0", sym, 100, president=True)]
    certs = [Certificate(f"{sym}_0", sym, 20, president=True)] if president else []
    rest = percent - (20 if president else 0)
    return certs + [Certificate(f"{sym}_{i + 1}", sym, 10) for i in range(rest // 10)]


@pytest.fixture(scope="module")
def ctx() -> Context:
    return Context(load_board("1861"), Rules.rulebook(), title_named("1861"))


@pytest.fixture(scope="module")
def final_state(ctx: Context, game_files: tuple[dict[str, Any], list[dict[str, Any]]]) -> GameState:
    """The end of the game: majors and the national, most minors closed."""
    log, trace = game_files
    return state_from_trace(ctx, log, trace, len(trace) - 1)


@pytest.fixture(scope="module")
def early_state(ctx: Context, game_files: tuple[dict[str, Any], list[dict[str, Any]]]) -> GameState:
    """Phase 2, second operating round: minors out, reservations and locked hexes left."""
    return state_from_trace(ctx, *game_files, EARLY)


@pytest.fixture(scope="module")
def middle_state(
    ctx: Context, game_files: tuple[dict[str, Any], list[dict[str, Any]]]
) -> GameState:
    """Phase 3: minors and the first majors on the market."""
    return state_from_trace(ctx, *game_files, MIDDLE)


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def find(root: ET.Element, path: str) -> list[ET.Element]:
    return root.findall(path, NS)


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{{{NS['s']}}}text")]


# --- map --------------------------------------------------------------------------------


def test_every_laid_tile_is_drawn_at_its_hex_with_its_rotation(
    ctx: Context, final_state: GameState
) -> None:
    root = parse(render_map(ctx, final_state))
    tiles = {g.get("data-hex"): g for g in find(root, ".//s:g[@class='tile']")}
    assert set(tiles) == set(final_state.map.tiles)
    for hex_id, placed in final_state.map.tiles.items():
        group = tiles[hex_id]
        assert group.get("data-tile") == placed.tile
        assert group.get("data-rotation") == str(placed.rotation)
        x, y = hex_center(hex_id)
        assert group.get("transform") == f"translate({fmt(x)},{fmt(y)})"
        track = group.find("s:g[@class='track']", NS)
        if ctx.tile_def(placed.tile).paths:
            assert track is not None and len(track.findall("s:path[@class='rail']", NS)) >= 1
            expected = f"rotate({60 * placed.rotation})" if placed.rotation else None
            assert track.get("transform") == expected


def ground(root: ET.Element, cls: str = "outline") -> dict[str, str]:
    """Hex -> colour of the ground paths (or of the hatching, ``cls="lock-hatch"``)."""
    return {
        hex_id: path.get("data-color", "")
        for path in find(root, f"./s:g[@class='ground']/s:path[@class='{cls}']")
        for hex_id in path.get("data-hexes", "").split()
    }


def test_every_hex_is_drawn_once_in_its_colour(ctx: Context, final_state: GameState) -> None:
    root = parse(render_map(ctx, final_state))
    colors = ground(root)
    hexes = [
        h
        for p in find(root, "./s:g[@class='ground']/s:path[@class='outline']")
        for h in p.get("data-hexes").split()
    ]
    assert sorted(hexes) == sorted(ctx.board.hexes)
    for hex_id in ctx.board.hexes:
        assert colors[hex_id] == ctx.tile_at(final_state, hex_id)[0].color
    groups = [g.get("data-hex") for g in find(root, "./s:g[@class='hexes']/s:g")]
    assert len(groups) == len(set(groups))
    assert {h for h in ctx.board.hexes if ctx.tile_at(final_state, h)[0].paths} <= set(groups)


def test_every_token_is_where_the_state_puts_it(ctx: Context, final_state: GameState) -> None:
    root = parse(render_map(ctx, final_state))
    drawn = {
        (t.get("data-hex"), int(t.get("data-city")), int(t.get("data-slot"))): t.get("data-company")
        for t in find(root, ".//s:g[@class='token']")
    }
    expected = {
        (hex_id, city, slot): sym
        for (hex_id, city), slots in final_state.map.tokens.items()
        for slot, sym in enumerate(slots)
        if sym is not None
    }
    assert drawn == expected
    placed = {(t.hex, sym) for sym, c in final_state.companies.items() for t in c.placed_tokens}
    assert {(h, sym) for (h, _, _), sym in drawn.items()} == placed
    for hex_id, city, slot in drawn:
        group = root.find(
            f".//s:g[@data-hex='{hex_id}']/s:g[@class='city'][@data-node='{city}']", NS
        )
        assert group is not None and int(group.get("data-slots")) > slot


def test_token_names_are_in_company_colours(ctx: Context, final_state: GameState) -> None:
    root = parse(render_map(ctx, final_state))
    for token in find(root, ".//s:g[@class='token']"):
        colors = swatch(ctx.board, token.get("data-company"))
        assert token.find("s:circle", NS).get("fill") == colors.fill
        assert token.find("s:text", NS).get("fill") == colors.text
        assert token.find("s:text", NS).text == token.get("data-company")


def test_reserved_spots_show_the_reserving_company(ctx: Context, early_state: GameState) -> None:
    root = parse(render_map(ctx, early_state))
    marks = {(m.get("data-company")) for m in find(root, ".//s:g[@class='reservation']")}
    assert marks == set(early_state.map.reservations.values())
    assert "RSR" in marks and "TR" in marks


def test_locked_hexes_are_hatched_with_a_badge(
    ctx: Context, early_state: GameState, final_state: GameState
) -> None:
    root = parse(render_map(ctx, early_state))
    assert set(ground(root, "lock-hatch")) == early_state.map.blocked_hexes
    badges = {
        g.get("data-hex")
        for g in find(root, ".//s:g[@class='hex-labels']")
        if g.find(".//s:text[@class='lock']", NS) is not None
    }
    assert badges == early_state.map.blocked_hexes
    assert not ground(parse(render_map(ctx, final_state)), "lock-hatch")


@pytest.mark.parametrize(
    ("phase", "color", "value"), [("2", "yellow", "30"), ("5", "brown", "50"), ("8", "gray", "70")]
)
def test_offboard_shows_every_value_with_the_current_one_framed(
    ctx: Context, early_state: GameState, phase: str, color: str, value: str
) -> None:
    state = GameState(
        title="1861",
        players=early_state.players,
        companies=early_state.companies,
        bank=0,
        phase=phase,
    )
    root = parse(render_map(ctx, state))
    poland = root.find(
        ".//s:g[@class='hex-labels'][@data-hex='A9']/s:g[@data-kind='offboard-values']", NS
    )
    assert [r.get("data-color") for r in poland.findall("s:rect", NS)] == [
        "yellow",
        "green",
        "brown",
        "gray",
    ]
    current = poland.findall("s:rect[@data-current='true']", NS)
    assert [r.get("data-color") for r in current] == [color]
    bold = [t.text for t in poland.findall("s:text[@font-weight='bold']", NS)]
    assert bold == [value]
    assert (
        root.find(".//s:g[@data-hex='A11']/s:g[@data-kind='offboard-values']", NS) is None
    )  # hidden part


def test_labels_names_revenues_and_costs(ctx: Context, early_state: GameState) -> None:
    root = parse(render_map(ctx, early_state))
    names = {
        (g.get("data-kind"), " ".join(texts(g)))
        for g in find(root, ".//s:g[@class='label']")
        if g.get("data-kind", "").startswith("name")
    }
    for name in ("Dünaberg", "Moscow", "St. Petersburg", "Ekaterinburg"):
        assert ("name", name) in names
    assert ("name-note", "(₽80 if includes M)") in names
    labels = {t.text for t in find(root, ".//s:text[@class='label']")}
    assert {"Y", "K", "M", "S"} <= labels
    future = root.find(".//s:g[@data-hex='G15']//s:text[@class='future-label']", NS)
    assert future is not None and future.get("data-color") == "gray" and future.text == "Kh"
    cost = root.find(".//s:g[@data-hex='M9']//s:text[@class='cost']", NS)
    assert cost.get("data-terrain") == "water" and cost.text == "₽80"
    revenue = root.find(".//s:g[@data-hex='H8']//s:text[@class='revenue']", NS)
    assert revenue.text == "40"


def test_towns_on_through_track_get_a_bar_others_a_dot(ctx: Context) -> None:
    state = GameState(title="1861", players=[], companies={}, bank=0)
    state.map.tiles = {"B8": PlacedTile("58", 2, "58-0"), "E11": PlacedTile("87", 0, "87-0")}
    root = parse(render_map(ctx, state))
    assert root.find(".//s:g[@data-hex='B8']//s:line[@class='town-bar']", NS) is not None
    assert root.find(".//s:g[@data-hex='B8']//s:circle[@class='town-dot']", NS) is None
    assert root.find(".//s:g[@data-hex='E11']//s:circle[@class='town-dot']", NS) is not None


def test_track_shapes_join_edge_middles() -> None:
    def edge_middle(edge: int) -> tuple[float, float]:
        angle = math.radians(90 + 60 * edge)
        return APOTHEM * math.cos(angle), APOTHEM * math.sin(angle)

    for span, shape in SHAPES.items():
        for start in range(6):
            _, points = shape.turned(start)
            assert points[0] == pytest.approx(edge_middle(start), abs=1e-6)
            assert points[-1] == pytest.approx(edge_middle((start + span) % 6), abs=1e-6)
    assert SHAPES[2].radius == pytest.approx(3 * SHAPES[1].radius)
    corner = (-SIZE / 2, APOTHEM)  # the corner edges 0 and 1 share
    for x, y in SHAPES[1].samples:
        assert math.hypot(x - corner[0], y - corner[1]) == pytest.approx(SHAPES[1].radius)


def test_highlight_outlines_the_hex(ctx: Context, final_state: GameState) -> None:
    root = parse(render_map(ctx, final_state, highlight="H8"))
    marks = find(root, ".//s:polygon[@class='highlight']")
    assert [m.get("data-hex") for m in marks] == ["H8"]
    assert not find(parse(render_map(ctx, final_state)), ".//s:polygon[@class='highlight']")


def test_coordinates_run_round_the_edge(ctx: Context, final_state: GameState) -> None:
    root = parse(render_map(ctx, final_state))
    columns = [t.get("data-column") for t in find(root, ".//s:text[@class='coord'][@data-column]")]
    rows = [t.get("data-row") for t in find(root, ".//s:text[@class='coord'][@data-row]")]
    assert sorted(set(columns)) == [chr(c) for c in range(ord("A"), ord("Q") + 1)]
    assert sorted(set(map(int, rows))) == list(range(0, 22))
    assert all(columns.count(c) == 2 for c in columns) and all(rows.count(r) == 2 for r in rows)


def test_full_map_size_and_text_size(ctx: Context, final_state: GameState) -> None:
    root = parse(render_map(ctx, final_state))
    assert 1600 <= float(root.get("width")) <= 2000
    sizes = {t: float(t.get("font-size")) for t in root.iter(f"{{{NS['s']}}}text")}
    assert min(sizes.values()) >= 10
    for t, size in sizes.items():
        if t.get("class") == "tile-number":
            assert size == 12  # small, as on 18xx.games
        elif t.get("class") in ("coord", None):
            assert size >= 14
    in_hexes = [size for t, size in sizes.items() if t.get("class") != "tile-number"]
    full = sum(size >= 14 for size in in_hexes)
    assert full >= 0.85 * len(in_hexes)  # smaller only where a hex has no room
    assert "DejaVu Sans" in root.find("s:style", NS).text


def test_focus_zooms_in_on_the_hexes_around(ctx: Context, final_state: GameState) -> None:
    full = parse(render_map(ctx, final_state))
    root = parse(render_map(ctx, final_state, focus="H8", highlight="H8"))
    assert root.get("data-focus") == "H8"
    vx, vy, vw, vh = map(float, root.get("viewBox").split())
    assert float(root.get("width")) == pytest.approx(vw * FOCUS_ZOOM, abs=1)
    assert vw < float(full.get("width")) / 2
    named = {g.get("data-hex") for g in find(root, ".//s:g[@class='hex-labels']")}
    assert "H8" in named and "E1" not in named
    assert all(hex_distance(h, "H8") <= FOCUS_RADIUS + 1 for h in named)  # whole hexes only
    drawn = {g.get("data-hex") for g in find(root, ".//s:g[@class='hexes']/s:g")}
    assert "H8" in drawn and "A9" not in drawn
    columns = {t.get("data-column") for t in find(root, ".//s:text[@data-column]")}
    assert "H" in columns and "A" not in columns
    with pytest.raises(ValueError, match="Z99"):
        render_map(ctx, final_state, focus="Z99")


# --- market -----------------------------------------------------------------------------


def test_market_tokens_stack_top_first(ctx: Context, middle_state: GameState) -> None:
    state = middle_state
    state.market[(6, 2)] = ["KB", "KK", "OK", "SPW", "Y"]
    root = parse(render_market(ctx, state))
    for (row, col), stack in state.market.items():
        space = root.find(f".//s:g[@class='space'][@data-row='{row}'][@data-col='{col}']", NS)
        chips = space.findall("s:g[@class='token']", NS)
        assert [c.get("data-company") for c in chips] == stack
        assert [int(c.get("data-stack-index")) for c in chips] == list(range(len(stack)))
        spots = [
            (float(c.find("s:rect", NS).get("y")), float(c.find("s:rect", NS).get("x")))
            for c in chips
        ]
        assert spots == sorted(spots)  # reading order: top to bottom, left to right
        assert len({x for _, x in spots}) == 1  # one column: "top operates first" is the order read
    space = root.find(".//s:g[@class='space'][@data-row='6'][@data-col='2']", NS)
    heights = {float(c.find("s:rect", NS).get("height")) for c in space.findall("s:g[@class='token']", NS)}
    assert min(heights) >= 14  # five chips still carry readable symbols


def test_market_zones_and_minor_border(ctx: Context, middle_state: GameState) -> None:
    root = parse(render_market(ctx, middle_state))
    cells = list(ctx.board.market_cells("grid"))
    spaces = find(root, ".//s:g[@class='space']")
    assert len(spaces) == len(cells)
    zones = {(int(s.get("data-row")), int(s.get("data-col"))): s.get("data-zone") for s in spaces}
    assert (
        zones[(6, 2)] == "x"
        and zones[(5, 3)] == "p"
        and zones[(1, 7)] == "z"
        and zones[(0, 6)] == "C"
    )
    assert zones[(2, 6)] == "p"  # start space in the convert range: pink with a blue band
    assert (
        root.find(".//s:g[@data-row='2'][@data-col='6']/s:rect[@class='convert']", NS) is not None
    )
    ceilings = find(root, ".//s:line[@class='ceiling']")
    assert len(ceilings) == sum(c.minor_ceiling for c in cells)
    legend = " ".join(texts(root.find(".//s:g[@class='legend']", NS)))
    for word in ("orange", "pink", "blue", "teal"):
        assert word in legend


def test_column_market(ctx: Context, middle_state: GameState) -> None:
    column = Context(ctx.board, Rules.rulebook(market="column"), ctx.title)
    state = GameState(
        title="1861", players=middle_state.players, companies=middle_state.companies, bank=0
    )
    state.market = {(0, 5): ["KR", "MV"], (0, 15): ["NW"]}
    root = parse(render_market(column, state))
    assert root.get("data-market") == "column"
    assert len(find(root, ".//s:g[@class='space']")) == 28
    assert [
        c.get("data-company") for c in find(root, ".//s:g[@data-col='5']/s:g[@class='token']")
    ] == ["KR", "MV"]
    assert len(find(root, ".//s:line[@class='ceiling']")) == 1
    # Finding 21: the 28 spaces come in bands of ten, one under the other (was 1832 x 508).
    width, height = float(root.get("width")), float(root.get("height"))
    assert width < 700 and height < 1.6 * width
    tops = {float(s.find("s:rect", NS).get("y")) for s in find(root, ".//s:g[@class='space']")}
    assert len(tops) == 3
    lefts = [float(find(root, f".//s:g[@class='space'][@data-col='{c}']")[0].find("s:rect", NS).get("x"))
             for c in (0, 10, 20)]
    assert lefts[0] == lefts[1] == lefts[2]


# --- table ------------------------------------------------------------------------------


def test_table_has_a_row_for_every_player_and_company(
    ctx: Context, middle_state: GameState
) -> None:
    root = parse(render_table(ctx, middle_state, round_name="Stock round 3", acting="Player 2"))
    players = [r.get("data-player") for r in find(root, ".//s:g[@class='row'][@data-player]")]
    assert players == [p.id for p in middle_state.players]
    assert sorted(table_companies(root)) == sorted(middle_state.companies)
    header = root.find("s:text[@class='header']", NS).text
    assert "Stock round 3" in header and "Player 2 to act" in header
    acting = root.find(f".//s:g[@data-player='{middle_state.players[1].id}']/s:rect", NS)
    assert acting.get("fill") == ACTING


def test_table_player_row_contents(ctx: Context, final_state: GameState) -> None:
    final_state.priority = 0
    root = parse(render_table(ctx, final_state))
    player = final_state.players[0]
    row = texts(root.find(f".//s:g[@data-player='{player.id}']", NS))
    assert row[0] == f"{player.name}  (priority deal)"
    assert f"₽{player.cash:,}" in row
    assert f"{len(player.certs) + len(player.privates)}/21" in row
    for sym in {c.company for c in player.certs}:
        assert any(w.startswith(f"{player.percent_of(sym)}%") for w in row)


def table_companies(root: ET.Element) -> dict[str, str]:
    """Company -> status, from the company rows and the not-started / closed chips."""
    found = {
        g.get("data-company"): g.get("data-status")
        for g in root.iter(f"{{{NS['s']}}}g")
        if g.get("data-status")
    }
    return {sym: status for sym, status in found.items() if sym and status}


def test_table_company_rows_in_operating_order(ctx: Context, final_state: GameState) -> None:
    root = parse(render_table(ctx, final_state))
    running = [r.get("data-company") for r in find(root, ".//s:g[@class='row'][@data-company]")]
    assert running == in_price_order(ctx, final_state, ["NW", "SW", "SE", "GRR", "MKN"]) + ["RSR"]
    statuses = table_companies(root)
    assert {s for s, status in statuses.items() if status == "closed"} == {
        s for s, c in final_state.companies.items() if c.closed
    }
    assert {s for s, status in statuses.items() if status == "unstarted"} == {
        "MVR",
        "MK",
        "MKV",
        "TR",
    }
    nw = texts(root.find(".//s:g[@class='row'][@data-company='NW']", NS))
    assert "Player 3" in nw and "₽867" in nw and "5 7" in nw and "0/3" in nw


def test_table_train_yard_and_phase(ctx: Context, early_state: GameState) -> None:
    early_state.depot.pool = [Train("3-5", "3"), Train("2-1", "2"), Train("2-2", "2")]
    root = parse(render_table(ctx, early_state))
    cards = find(root, ".//s:g[@data-source='depot']")
    names = [c.get("data-train") for c in cards]
    assert names == [
        n
        for i, n in enumerate(t.name for t in early_state.depot.upcoming)
        if i == 0 or n != early_state.depot.upcoming[i - 1].name
    ]
    assert cards[0].get("class") == "card next"
    pool = [(c.get("data-train"), texts(c)[-1]) for c in find(root, ".//s:g[@data-source='pool']")]
    assert pool == [("2", "2 for sale"), ("3", "1 for sale")]
    phase = root.find(".//s:g[@class='phase']", NS)
    assert phase.get("data-phase") == "2"
    assert [r.get("data-color") for r in phase.findall("s:rect", NS)] == ["yellow"]


# --- PNG, files, fonts, timing ------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data)).size


def test_pngs_are_readable_sizes_and_small(ctx: Context, final_state: GameState) -> None:
    width, height = png_size(render_map_png(ctx, final_state, highlight="H8"))
    assert 1600 <= width <= 2000 and height < width
    for data in (
        render_map_png(ctx, final_state),
        render_map_png(ctx, final_state, focus="H8"),
        render_market_png(ctx, final_state),
        render_table_png(ctx, final_state),
    ):
        png_size(data)
        assert len(data) < 1_000_000


def test_write_pictures(ctx: Context, middle_state: GameState, tmp_path: Path) -> None:
    paths = write_pictures(
        ctx, middle_state, tmp_path / "out", highlight="H8", round_name="Operating round 3.1"
    )
    assert set(paths) == {"map", "market", "table"}
    for name, path in paths.items():
        assert path == tmp_path / "out" / f"{name}.png"
        png_size(path.read_bytes())


def _glyph(content: str) -> bytes:
    svg = (
        f'<svg xmlns="{NS["s"]}" width="60" height="40"><text x="5" y="30" '
        f'font-family="{FONT_FAMILY}" font-size="28">{content}</text></svg>'
    )
    return svg_to_image(svg).tobytes()


def test_font_has_the_rouble_sign_and_accents() -> None:
    missing = _glyph("\ue000")  # a private-use code point: drawn as the missing-glyph box
    for char in ("₽", "ü"):
        assert _glyph(char) != missing, f"{char} has no glyph: install fonts-dejavu-core"


@pytest.mark.slow
def test_bench_reports_time_and_size(ctx: Context, final_state: GameState) -> None:
    results = bench_render(ctx, final_state)
    assert set(results) == {"map", "map_focus", "market", "table"}
    for numbers in results.values():
        assert numbers["total_ms"] == pytest.approx(numbers["svg_ms"] + numbers["png_ms"], abs=0.2)
        assert 0 < numbers["png_bytes"] < 1_000_000


# --- states from the engine's own replay of the same game ----------------------------------


@pytest.fixture(
    scope="module", params=[EARLY, MIDDLE, LATE, None], ids=["phase2", "phase3", "phase5", "end"]
)
def replayed(
    request: pytest.FixtureRequest, game_files: tuple[dict[str, Any], list[dict[str, Any]]]
) -> Game:
    """The engine's state after a trace line (or at the end) of the replayed log."""
    log, trace = game_files
    until = None if request.param is None else trace[request.param]["id"]
    run = replay(log, until=until)
    if run.stopped_at is not None:
        pytest.skip(f"the engine's replay stops at action {run.stopped_at}")
    return run.game


def test_replayed_map_shows_every_tile_token_and_reservation(replayed: Game) -> None:
    ctx, state = replayed.ctx, replayed.state
    root = parse(render_map(ctx, state, highlight="H8"))
    tiles = {
        g.get("data-hex"): (g.get("data-tile"), g.get("data-rotation"))
        for g in find(root, ".//s:g[@class='tile']")
    }
    assert tiles == {h: (p.tile, str(p.rotation)) for h, p in state.map.tiles.items()}
    tokens = sorted(
        (t.get("data-hex"), t.get("data-city"), t.get("data-slot"), t.get("data-company"))
        for t in find(root, ".//s:g[@class='token']")
    )
    assert tokens == sorted(
        (h, str(city), str(slot), sym)
        for (h, city), slots in state.map.tokens.items()
        for slot, sym in enumerate(slots)
        if sym is not None
    )
    reserved = sorted(
        (g.get("data-hex"), city.get("data-node"), mark.get("data-company"))
        for g in find(root, ".//s:g[@class='hexes']/s:g")
        for city in g.findall("s:g[@class='city']", NS)
        for mark in city.findall("s:g[@class='reservation']", NS)
    )
    assert reserved == sorted(
        (h, str(city), sym)
        for (h, city), sym in state.map.reservations.items()
        if None in state.map.tokens.get((h, city), [None])
    )
    assert set(ground(root, "lock-hatch")) == state.map.blocked_hexes


def test_replayed_market_and_table(replayed: Game) -> None:
    ctx, state = replayed.ctx, replayed.state
    market = parse(render_market(ctx, state))
    stacks = {
        (int(s.get("data-row")), int(s.get("data-col"))): [
            c.get("data-company") for c in s.findall("s:g[@class='token']", NS)
        ]
        for s in find(market, ".//s:g[@class='space']")
    }
    assert {k: v for k, v in stacks.items() if v} == {k: v for k, v in state.market.items() if v}
    acting = replayed.actor()
    name = state.player(acting).name if acting in {p.id for p in state.players} else acting
    table = parse(render_table(ctx, state, round_name=replayed.round_name, acting=name))
    rows = find(table, ".//s:g[@class='row']")
    assert [r.get("data-player") for r in rows if r.get("data-player")] == [
        p.id for p in state.players
    ]
    assert sorted(table_companies(table)) == sorted(state.companies)
    cards = [c.get("data-train") for c in find(table, ".//s:g[@data-source='depot']")]
    assert cards == list(dict.fromkeys(t.name for t in state.depot.upcoming))


def test_cost_on_a_laid_tile_only_where_it_is_paid_on_replacing(ctx: Context) -> None:
    state = GameState(title="1861", players=[], companies={}, bank=0, phase="3")
    state.map.tiles["D14"] = PlacedTile("635", 0, "635-0")
    path = ".//s:g[@data-hex='D14']//s:text[@class='cost']"
    assert parse(render_map(ctx, state)).find(path, NS) is None
    site = Context(ctx.board, Rules.site(), ctx.title)
    assert parse(render_map(site, state)).find(path, NS).text == "₽40"
    state.map.tiles.pop("D14")
    assert (
        parse(render_map(ctx, state)).find(".//s:g[@data-hex='M9']//s:text[@class='cost']", NS)
        is not None
    )


def test_future_label_stays_until_its_colour(ctx: Context) -> None:
    state = GameState(title="1861", players=[], companies={}, bank=0, phase="5")
    path = ".//s:g[@data-hex='G15']//s:text[@class='future-label']"
    for tile, shown in (("201", True), ("207", True), ("640", False)):
        state.map.tiles["G15"] = PlacedTile(tile, 0, f"{tile}-0")
        assert (parse(render_map(ctx, state)).find(path, NS) is not None) is shown


def test_laid_tiles_show_their_numbers(ctx: Context, final_state: GameState) -> None:
    root = parse(render_map(ctx, final_state))
    numbers = {
        g.get("data-hex"): g.find(".//s:text[@class='tile-number']", NS)
        for g in find(root, ".//s:g[@class='hex-labels']")
    }
    shown = {h: t.text for h, t in numbers.items() if t is not None}
    laid = {h: p.tile for h, p in final_state.map.tiles.items()}
    assert shown.items() <= laid.items()  # only on laid tiles, and the right number
    assert len(shown) >= 0.9 * len(laid)  # left out only where a hex has no room


def test_map_legend_explains_costs_values_and_locks(
    ctx: Context, early_state: GameState, final_state: GameState
) -> None:
    early = " ".join(texts(parse(render_map(ctx, early_state)).find(".//s:g[@class='legend']", NS)))
    assert "₽20 / ₽40 / ₽80: cost to lay track across water" in early
    assert "phase 3" in early and "off-board" in early and "tile number" in early
    final = " ".join(texts(parse(render_map(ctx, final_state)).find(".//s:g[@class='legend']", NS)))
    assert "phase 3" not in final
    close_up = parse(render_map(ctx, final_state, focus="H8"))
    assert close_up.find(".//s:g[@class='legend']", NS) is None


def test_market_legend_has_the_pink_space_with_a_blue_band(
    ctx: Context, middle_state: GameState
) -> None:
    legend = parse(render_market(ctx, middle_state)).find(".//s:g[@class='legend']", NS)
    assert any("blue band" in t for t in texts(legend))
    bands = [r for r in legend.findall("s:rect", NS) if r.get("height") == "5"]
    assert len(bands) == 1


def test_kiev_shows_what_its_green_upgrade_costs_by_the_rulebook(
    ctx: Context, early_state: GameState
) -> None:
    """8.6.2: the ₽40 printed on tile 635 is paid when it is laid on Kiev (D14), so the
    yellow Kiev shows it; with the site's reading (paid when 635 is replaced) it shows
    on the laid 635 instead."""
    assert "D14" not in early_state.map.tiles
    root = parse(render_map(ctx, early_state))
    kiev = root.find(".//s:g[@class='hex-labels'][@data-hex='D14']", NS)
    assert kiev is not None
    assert [t.text for t in kiev.findall(".//s:text[@class='cost']", NS)] == ["₽40"]
    site = Context(ctx.board, Rules.site(), ctx.title)
    kiev_site = parse(render_map(site, early_state)).find(".//s:g[@class='hex-labels'][@data-hex='D14']", NS)
    assert kiev_site is not None and not kiev_site.findall(".//s:text[@class='cost']", NS)


def test_map_legend_explains_the_marks_the_map_has(ctx: Context, early_state: GameState) -> None:
    legend = " ".join(texts(parse(render_map(ctx, early_state)).find(".//s:g[@class='legend']", NS)))
    assert "dashed ring: a company's reserved home" in legend
    assert "city number (token HEX 1)" in legend
    game = Game.new([("1", "A"), ("2", "B"), ("3", "C")], seed=1, title="1867")
    words = " ".join(texts(parse(render_map(game.ctx, game.state)).find(".//s:g[@class='legend']", NS)))
    for entry in ("river: $80 to build across", "no track across", "the first tile must join the edge",
                  "green spot: opens in phase 3"):
        assert entry in words


def test_table_tells_majors_from_minors_not_started_and_rows_the_state_railway(
    ctx: Context, early_state: GameState
) -> None:
    """Finding 22: "Not started" mixed 1867's 8 majors and 6 green minors; 1861 listed
    the RSR there while 1867 gave the CN a row."""
    canada = Game.new([("1", "A"), ("2", "B"), ("3", "C")], seed=1, title="1867")
    for context, state in ((ctx, early_state), (canada.ctx, canada.state)):
        root = parse(render_table(context, state))
        majors = {c.get("data-company") for c in find(root, ".//s:g[@class='companies-unstarted-major']/s:g")}
        minors = {c.get("data-company") for c in find(root, ".//s:g[@class='companies-unstarted-minor']/s:g")}
        assert majors and all(state.companies[s].is_major for s in majors)
        assert all(state.companies[s].type == "minor" for s in minors)
        national = context.board.national()
        assert root.find(f".//s:g[@class='row'][@data-company='{national}']", NS) is not None
        if context is canada.ctx:
            assert minors == set(context.board.green_minors)  # waiting for phase 3
            assert len(majors) == 8
