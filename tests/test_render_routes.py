"""The routes picture: a real run of four trains from the shared 1861 bank-breaks game
(GRR, action 378), priced by the engine and by 18xx.games."""

from __future__ import annotations

import copy
import itertools
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.console import CHANNEL, Console
from bot.service import TroikaService
from bot.transcript import log_commands
from engine.actions import RunRoutes
from engine.game import Game
from engine.importer import read_log
from engine.replay import replay
from engine.routes import check_routes
from render import render_routes_png
from render.colors import delta_e, to_lab
from render.routes import render_routes
from storage import SqliteEventStore
from tests.conftest import GAMES, shared_game

GAME, RUN = "1861-bank-breaks", 378
NS = {"s": "http://www.w3.org/2000/svg"}


@pytest.fixture(scope="module")
def run() -> tuple[dict[str, Any], dict[str, Any]]:
    """What the engine made of the run (its pricing, the picture as SVG and PNG) and
    the run as 18xx.games logged it."""
    log, _ = shared_game(GAME)
    logged = next(a for a in log["actions"] if a["id"] == RUN)
    seen: dict[str, Any] = {}

    def before(game: Game, action: object) -> None:
        if isinstance(action, RunRoutes) and len(action.routes) == 4 and not seen:
            ctx, state, sym = game.ctx, game.state, action.entity
            results = check_routes(ctx, state, state.companies[sym], action.routes)
            seen.update(
                position=(ctx, copy.deepcopy(state), sym),
                results=results,
                svg=render_routes(ctx, state, sym, results),
                png=render_routes_png(ctx, state, sym, results),
            )

    replay(log, until=RUN, before=before)
    return seen, logged


def test_four_trains_four_colours(run) -> None:
    seen, _ = run
    root = ET.fromstring(seen["svg"])
    routes = root.findall(".//s:g[@class='route']", NS)
    assert [r.get("data-train") for r in routes] == [r.train for r in seen["results"]]
    colors = [r.get("stroke") for r in routes]
    assert len(set(colors)) == 4
    for a, b in itertools.combinations(colors, 2):
        assert delta_e(to_lab(a), to_lab(b)) >= 20
    for route, result in zip(routes, seen["results"]):
        assert len(route.findall("s:path[@class='leg']", NS)) == len(result.legs)
        assert len(route.findall("s:circle[@class='stop']", NS)) == len(result.stops)


def test_revenue_per_train_is_the_engines_and_the_sites(run) -> None:
    seen, logged = run
    root = ET.fromstring(seen["svg"])
    shown = {
        t.get("data-train"): t.text for t in root.findall(".//s:text[@class='train-revenue']", NS)
    }
    engine = {r.train: f"₽{r.revenue}" for r in seen["results"]}
    site = {r["train"]: f"₽{r['revenue']}" for r in logged["routes"]}
    assert shown == engine == site
    total = root.find(".//s:text[@class='total']", NS).text
    assert total.endswith(f"₽{sum(r.revenue for r in seen['results'])}")


def test_routes_picture_frames_the_routes(run) -> None:
    seen, _ = run
    root = ET.fromstring(seen["svg"])
    drawn = {g.get("data-hex") for g in root.iter() if g.get("class") in ("tile", "printed")}
    for result in seen["results"]:
        assert {h for leg in result.legs for h in leg} <= drawn
    assert "A9" not in drawn  # far from every route
    assert 0 < len(seen["png"]) < 1_000_000


def test_render_command_writes_routes_and_svgs(tmp_path: Path) -> None:
    """`troika render --routes --svg`: the last run's routes and every picture's SVG."""
    shared_game(GAME)  # skips when the shared games are missing
    log = GAMES / f"{GAME}.json"
    command = ["render", str(log), "--id", str(RUN), "--routes", "--svg", "--out", str(tmp_path)]
    assert main(command) == 0
    for name in ("map", "market", "table", "routes"):
        assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
        root = ET.parse(tmp_path / f"{name}.svg").getroot()
        assert root.tag == f"{{{NS['s']}}}svg"
    routes = ET.parse(tmp_path / "routes.svg").getroot()
    assert routes.find(".//s:g[@class='routes']", NS).get("data-company") == "GRR"
    assert main(["render", str(log), "--id", "5", "--routes", "--out", str(tmp_path / "x")]) == 2


@pytest.mark.slow
async def test_the_bot_posts_a_run_with_its_routes_picture(tmp_path: Path) -> None:
    """Played through the console up to the first run of 1861-29683: the run's post
    carries routes.png, drawn from the routes as the engine priced them."""
    log, _ = shared_game("1861-29683")
    commands = list(log_commands(log))
    first_run = next(i for i, (_, command) in enumerate(commands) if command.startswith("run "))
    async with SqliteEventStore(":memory:") as store:
        quiet = Console(TroikaService(store, pictures=False), tmp_path / "unused", [].append)
        rules = read_log(log)[0].ctx.rules
        players = [(str(p["id"]), p["name"]) for p in log["players"]]
        await quiet.service.start_local_game(
            CHANNEL, players, rules=rules, first_player=0, seed=log["settings"]["seed"]
        )
        for name, command in commands[:first_run]:
            await quiet.line(f"as {name} {command}")
        out: list[str] = []
        console = Console(TroikaService(store), tmp_path / "pictures", out.append)
        name, command = commands[first_run]
        await console.line(f"as {name} {command}")
    assert f"  picture: {tmp_path / 'pictures' / 'routes.png'}" in out
    assert (tmp_path / "pictures" / "routes.png").read_bytes()[:4] == b"\x89PNG"


def test_stops_passed_but_not_counted_are_in_brackets_as_in_the_text(run) -> None:
    """Finding 19: the picture listed passed-but-uncounted stops as if counted; it now
    brackets them exactly as the text reply does."""
    from engine.route_notation import _stops_text
    from engine.routes import RouteResult

    seen, _ = run
    root = ET.fromstring(seen["svg"])
    strip = [t.text or "" for t in root.findall(".//s:g[@class='route-revenues']/s:text", NS)]
    for result in seen["results"]:
        assert any(line.endswith(": " + _stops_text(result).replace("-", " - ")) for line in strip)
    passed = seen["results"][0]
    short = RouteResult(passed.train, passed.stops, passed.legs, passed.revenue, passed.stops[1:])
    svg = render_routes(*seen["position"], [short])
    words = [t.text or "" for t in ET.fromstring(svg).findall(".//s:g[@class='route-revenues']/s:text", NS)]
    first = passed.stops[0][0]
    assert any(f": ({first}) - " in w for w in words)
    assert "(stops in brackets are passed but not counted)" in words


def test_a_train_without_a_route_is_named_as_in_the_text(run) -> None:
    """Finding 19: a train left without a route ("2-0: no route" in the text) was not
    mentioned in the picture."""
    seen, _ = run
    ctx, state, sym = seen["position"]
    results = seen["results"]
    svg = render_routes(ctx, state, sym, results[:-1], [results[-1].train])
    root = ET.fromstring(svg)
    idle = root.findall(".//s:text[@class='idle']", NS)
    assert [t.text for t in idle] == [f"{results[-1].train}: no route"]
    assert len(root.findall(".//s:g[@class='route']", NS)) == len(results) - 1
