"""``troika bench``'s figures of the web page, served as ``troika run`` serves it (a
process of its own over the database): the first paint of a finished game's page,
a step through its history, and how soon an open page hears of a move."""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

import aiohttp

from engine import read_log
from storage import SqliteEventStore

from ..service import Account, TroikaService
from ..transcript import log_commands
from . import links
from .__main__ import WARM_UP_VARIABLE, start_web

STEPS = 10
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
MOVES = 8


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


async def web_latency(log: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """The web page's figures for the finished game ``log`` (and a game played on from its start)."""
    saved = {WARM_UP_VARIABLE: os.environ.get(WARM_UP_VARIABLE)}  # the links' settings: start_web's own
    os.environ[WARM_UP_VARIABLE] = "0"  # warmed up before the first figure, as a server that has run a while
    db = tmp / "web.db"
    async with SqliteEventStore(db) as store:
        service = TroikaService(store, pictures=False)
        for channel in ("finished", "browsed"):  # one for the browser's first visit, one for HTTP's
            await service.import_site_game(channel, Account("bench", "bench"), json.dumps(log).encode())
        players = [(str(p["id"]), p["name"]) for p in log["players"]]
        await service.start_local_game("live", players, rules=read_log(log)[0].ctx.rules, first_player=0,
                                       seed=log["settings"]["seed"], title=log["title"])
        finished, browsed, live = sorted(g.id for g in await store.list_games())
        for game_id in (finished, browsed):
            await service.repo.load(game_id)  # as the bot loads it at any command: its snapshot is saved
        process = await asyncio.to_thread(start_web, str(db), "127.0.0.1:0")
        try:
            async with aiohttp.ClientSession(process.served) as http:
                await asyncio.sleep(0.5)  # the warm-up is under way: the next page waits for it
                await _get(http, f"/g/{links.game_key(live)}")
                browser = await _browser_paint(process.served + f"/g/{links.game_key(browsed)}")
                return browser | await _measure(http, service, players, log, finished, live)
        finally:
            process.stop()
            for key, value in saved.items():
                os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


async def _get(http: aiohttp.ClientSession, path: str) -> float:
    start = time.perf_counter()
    async with http.get(path) as answer:
        await answer.read()
        if answer.status != 200:
            raise RuntimeError(f"{path}: {answer.status}")
    return time.perf_counter() - start


async def _measure(http: aiohttp.ClientSession, service: TroikaService, players: list[tuple[str, str]],
                   log: dict[str, Any], finished: int, live: int) -> dict[str, Any]:
    page, live_page = f"/g/{links.game_key(finished)}", f"/g/{links.game_key(live)}"
    cold_page = await _get(http, page)
    cold_map = await _get(http, page + "/map.svg")
    warm = [await _get(http, page) + await _get(http, page + "/map.svg") for _ in range(5)]
    async with http.get(page + "/moment") as answer:
        total = int(answer.headers["X-Total"])
    steps = []
    for n in random.Random(1).sample(range(total), STEPS):
        steps.append(await _get(http, f"{page}/moment?at={n}") + await _get(http, f"{page}/map.svg?at={n}"))
    ahead = []  # one move on, as the page's ▶ button steps, its pictures drawn while the last was looked at
    for n in range(total // 2, total // 2 + STEPS):
        ahead.append(await _get(http, f"{page}/moment?at={n}") + await _get(http, f"{page}/map.svg?at={n}"))
        await asyncio.sleep(0.5)
    heard, shown = await _live(http, service, players, log, live_page)
    return {
        "first_load_http_ms": {"page": _ms(cold_page), "page_and_map": _ms(cold_page + cold_map)},
        "warm_paint_ms": _ms(statistics.median(warm)),
        "history_step_ms": {"median": _ms(statistics.median(steps)), "max": _ms(max(steps))},
        "history_next_ms": {"median": _ms(statistics.median(ahead)), "max": _ms(max(ahead))},
        "live_heard_ms": {"median": _ms(statistics.median(heard)), "max": _ms(max(heard))},
        "live_update_ms": {"median": _ms(statistics.median(shown)), "max": _ms(max(shown))},
        "moves": total,
    }


async def _browser_paint(url: str) -> dict[str, Any]:
    """A first visit in Debian's Chromium (when Playwright and it are installed, as
    for the tests): its first contentful paint, and when the map had arrived, from the
    start of the navigation."""
    if not Path(CHROMIUM).exists():
        return {"first_paint_ms": None, "first_map_ms": None, "browser": "no Chromium"}
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page()
            await page.goto(url, wait_until="load")
            paint, arrived = await page.evaluate(
                "[performance.getEntriesByName('first-contentful-paint')[0].startTime,"
                " performance.getEntriesByType('resource').find(e => e.name.includes('/map.svg')).responseEnd]")
        finally:
            await browser.close()
    return {"first_paint_ms": round(paint, 1), "first_map_ms": round(arrived, 1)}


async def _live(http: aiohttp.ClientSession, service: TroikaService, players: list[tuple[str, str]],
                log: dict[str, Any], page: str) -> tuple[list[float], list[float]]:
    """For each of :data:`MOVES` moves played: from the move stored to the page's event
    stream telling of it, and to the page's new part and map fetched."""
    ids = {name: pid for pid, name in players}
    commands = log_commands(log)
    heard, shown = [], []
    async with http.get(page + "/events", timeout=aiohttp.ClientTimeout(total=120)) as stream:
        await stream.content.readline()  # retry:
        first = json.loads((await stream.content.readline()).decode().removeprefix("data: "))
        await stream.content.readline()
        total = first["total"]
        for _ in range(MOVES):
            name, command = next(commands)
            await service.handle("live", Account(ids[name], name), command)
            stored = time.perf_counter()
            while True:
                line = (await stream.content.readline()).decode()
                if line.startswith("data: ") and json.loads(line[6:])["total"] > total:
                    total = json.loads(line[6:])["total"]
                    break
            heard.append(time.perf_counter() - stored)
            await _get(http, f"{page}/moment?at={total}")
            await _get(http, f"{page}/map.svg?at={total}")
            shown.append(time.perf_counter() - stored)
    return heard, shown
