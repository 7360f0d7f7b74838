"""The web companion in a real browser (Debian's Chromium, headless, driven by
Playwright), beside ``troika run`` at the console as a player starts it."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from bot.cli import _replayed
from bot.posts import results_text
from bot.web.bench import CHROMIUM, CHROMIUM_ARGS
from engine.game import Game
from engine.replay import replay
from storage import SqliteEventStore, TroikaEngine
from storage.repository import effective_events
from tests.conftest import ROOT, shared_game

HOSTILE = "<script>alert(1)</script>"
HOSTILE_IMG = "<img/src=x/onerror=alert(2)>"


class ConsoleRun:
    """``troika run --web 127.0.0.1:0`` at the console, typed into line by line."""

    def __init__(self, folder: Path) -> None:
        self.db = folder / "troika.db"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_TOKEN", "TROIKA_WEB"))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "run", "--db", str(self.db), "--web", "127.0.0.1:0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=folder,
            env=env | {"PYTHONPATH": str(ROOT)}, text=True, bufsize=0,
        )
        self.output: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = re.search(r"Web page: (\S+)", self.until("troika> "))[1]  # type: ignore[index]

    def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := self.process.stdout.read(1):
            self.output.put(chunk)

    def until(self, end: str, timeout: float = 60) -> str:
        text = ""
        while not text.endswith(end):
            text += self.output.get(timeout=timeout)
        return text

    def type(self, line: str) -> str:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        return self.until("troika> ")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def console(tmp_path: Path) -> Iterator[ConsoleRun]:
    run = ConsoleRun(tmp_path)
    yield run
    run.close()


def engine_game(db: Path, moves: int | None = None) -> tuple[Game, int]:
    """The game as the engine has it after ``moves`` moves in effect (all if None), replayed
    from the store without the web page's code; and the moves in effect."""

    async def read() -> tuple[Game, int]:
        async with SqliteEventStore(db) as store:
            [record] = await store.list_games()
            events = effective_events(await store.events(record.id))
            engine = TroikaEngine()
            game = engine.new_game(record)
            for event in events[:moves]:
                engine.apply(game, event.action, replaying=True)
            return game, len(events)

    with ThreadPoolExecutor(1) as pool:  # Playwright's loop runs in this thread
        return pool.submit(asyncio.run, read()).result()


def shown_cash(page: Page) -> dict[str, str]:
    rows = page.locator("#players tbody tr")
    return {rows.nth(i).locator("th").inner_text(): rows.nth(i).locator(".cash").inner_text()
            for i in range(rows.count())}


def shown_move(page: Page) -> int:
    return int(page.locator("#at-label").inner_text().split()[2])


def wait_until(page: Page, done: Callable[[], bool], seconds: float = 30) -> None:
    """Poll from here: the page's Content-Security-Policy forbids the evaluated
    predicates of Playwright's own waits. A live update takes well under a second on a
    quiet machine; the limit leaves room for a loaded one."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if done():
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"the page did not change in {seconds} s")


def engine_cash(game: Game) -> dict[str, str]:
    return {p.name: f"{game.ctx.title.currency}{p.cash}" for p in game.state.players}


def game_link(console: ConsoleRun) -> str:
    return re.search(r"on the web: (\S+)", console.type("web"))[1]  # type: ignore[index]


def play_opening(console: ConsoleRun) -> None:
    """The first private sold: a bid, then two passes."""
    for line in ("bid TSR 25", "pass", "pass"):
        assert "✗" not in console.type(line), line


@pytest.mark.slow
def test_a_game_played_at_the_console_shows_on_its_page_and_moves_arrive_live(
    console: ConsoleRun, browser: Browser
) -> None:
    console.type("new Anna Boris Clara")
    play_opening(console)
    link = game_link(console)
    page = browser.new_page()
    page.goto(link)
    game, moves = engine_game(console.db)
    assert shown_cash(page) == engine_cash(game)
    assert page.locator("#at-label").inner_text().startswith(f"After move {moves} of {moves}")
    assert "buys TSR for 25" in page.locator("#log").inner_text()  # the last pass's effect
    assert page.locator("#turn time").count() == 1  # whose turn, since when
    wait_until(page, lambda: page.evaluate("document.getElementById('map').naturalWidth") > 0)
    page.evaluate("window.notReloaded = true")
    page.wait_for_timeout(500)  # the event stream is open
    console.type("bid BSS 30")
    wait_until(page, lambda: shown_move(page) == moves + 1, 5)
    assert page.evaluate("window.notReloaded") is True
    game, _ = engine_game(console.db)
    assert shown_cash(page) == engine_cash(game)
    assert "bid BSS 30" in page.locator("#log li").first.inner_text()
    page.close()


@pytest.mark.slow
def test_a_moment_link_shows_the_state_after_that_move(console: ConsoleRun, browser: Browser) -> None:
    console.type("new Anna Boris Clara")
    play_opening(console)
    console.type("bid BSS 30")
    link = game_link(console)
    page = browser.new_page()
    for moves in (0, 3, 2):
        page.goto(f"{link}?at={moves}")
        game, total = engine_game(console.db, moves)
        assert shown_cash(page) == engine_cash(game)
        assert page.locator("#at-label").inner_text().startswith(f"After move {moves} of {total}")
        assert page.locator("#slider").input_value() == str(moves)
        assert page.locator("#map").get_attribute("src").endswith(f"map.svg?at={moves}")
    page.locator("#forward").click()  # one move on, without a reload
    wait_until(page, lambda: shown_move(page) == 3)
    assert shown_cash(page) == engine_cash(engine_game(console.db, 3)[0])
    assert page.url.endswith("?at=3")
    times = page.locator("#moment time").all_inner_texts()  # the move's own, and each in the log
    assert len(times) == 4 and all(re.fullmatch(r"\d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d UTC([+-]\d+(:\d\d)?)?", t)
                                   for t in times), times
    console.type("pass")  # a move lands while a past one is looked at: its counts follow, the moment stays
    wait_until(page, lambda: page.locator("#at-label").inner_text().startswith(f"After move 3 of {total + 1}"))
    assert page.locator("#live-state").inner_text() == f"move 3 of {total + 1}" and shown_move(page) == 3
    page.close()


@pytest.mark.slow
def test_the_page_fits_a_phone_and_a_hostile_name_is_only_text(console: ConsoleRun, browser: Browser) -> None:
    console.type(f"new Anna {HOSTILE} {HOSTILE_IMG}")
    link = game_link(console)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    refused: list[str] = []  # the page's own style and script are allowed by its policy
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(link)
    page.wait_for_timeout(300)
    names = page.locator("#players tbody th").all_inner_texts()
    assert HOSTILE in names and HOSTILE_IMG in names
    assert dialogs == [] and page.locator("#players script, #players img").count() == 0 and refused == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for picture in ("table", "market"):  # readable: at their drawn size, scrolled in their own box
        shown, drawn = page.evaluate(f"[document.getElementById('{picture}').getBoundingClientRect().width, "
                                     f"document.getElementById('{picture}').naturalWidth]")
        assert drawn > 390 and abs(shown - drawn) < 2, (picture, shown, drawn)
    rows = page.evaluate("[...document.querySelectorAll('#players tr')].map(r => r.getBoundingClientRect().height)")
    assert max(rows) < 2 * 16 * 1.4, rows  # one line a row: no name or sum split in two
    page.locator("#zoom-in").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the map scrolls in its own box
    assert page.evaluate("document.getElementById('map-view').scrollWidth") > 390
    width = page.evaluate("document.getElementById('map').getBoundingClientRect().width")
    pinch(context.new_cdp_session(page), page.locator("#map-view").bounding_box())
    assert page.evaluate("document.getElementById('map').getBoundingClientRect().width") > width * 1.5
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()


def pinch(cdp: Any, box: Any) -> None:
    """Two fingers on the map, spread apart to twice their distance."""
    y, x = box["y"] + box["height"] / 2, box["x"] + box["width"] / 2
    for kind, gap in (("touchStart", 40), ("touchMove", 60), ("touchMove", 80)):
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
            {"x": x - gap, "y": y, "id": 0}, {"x": x + gap, "y": y, "id": 1}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def fetch(url: str) -> tuple[int, str, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode(), answer.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), error.headers


@pytest.mark.slow
def test_a_wrong_link_is_a_plain_404_and_pages_are_locked_down(console: ConsoleRun) -> None:
    console.type("new Anna Boris Clara")
    link = game_link(console)
    status, _, headers = fetch(link)
    assert status == 200
    assert "script-src 'self'" in headers["Content-Security-Policy"] and "unsafe-inline" not in \
        headers["Content-Security-Policy"]
    key = link.rsplit("/", 1)[1]
    game_id, mac = key.split("-", 1)
    wrong_mac = f"{link.rsplit('/', 1)[0]}/{game_id}-{'A' * len(mac)}"
    other_game = f"{link.rsplit('/', 1)[0]}/2-{mac}"
    answers = {fetch(url)[:2] for url in (wrong_mac, other_game, link + "?at=99", link + "?at=x", link + "/x.svg",
                                          console.url + "/", console.url + "/g/../etc/passwd", console.url + "/p/x-y")}
    assert len(answers) == 1 and next(iter(answers))[0] == 404


@pytest.mark.slow
def test_a_web_process_that_dies_is_started_again_on_the_same_address(console: ConsoleRun) -> None:
    console.type("new Anna Boris Clara")
    link = game_link(console)
    assert fetch(link)[0] == 200
    children = Path(f"/proc/{console.process.pid}/task/{console.process.pid}/children").read_text().split()
    web = next(pid for pid in children if "bot.web" in Path(f"/proc/{pid}/cmdline").read_text())
    os.kill(int(web), signal.SIGKILL)
    for _ in range(300):
        try:
            if fetch(link)[0] == 200:
                break
        except OSError:  # refused while it starts again
            pass
        time.sleep(0.1)
    else:
        raise AssertionError("the web page did not come back")
    assert "bid TSR" in console.type("status")  # the console went on meanwhile


@pytest.mark.slow
def test_a_page_refused_live_updates_says_so_and_follows_once_a_place_is_free(
    console: ConsoleRun, browser: Browser
) -> None:
    """A reader's ninth open page is refused its stream (8 a client): it said "live" and
    never moved again. Now it says it is offline, and follows once another page closes."""
    console.type("new Anna Boris Clara")
    play_opening(console)
    link = game_link(console)
    pages = [browser.new_page() for _ in range(9)]
    for page in pages:
        page.goto(link)
    last = pages[-1]
    badge = last.locator("#live-state")
    wait_until(last, lambda: badge.inner_text() == "offline: reconnecting", 10)
    wait_until(pages[0], lambda: pages[0].locator("#live-state").inner_text() == "live", 10)
    pages[0].close()
    wait_until(last, lambda: badge.inner_text() == "live", 20)  # its stream opened again
    moves = shown_move(last)
    console.type("bid BSS 30")
    wait_until(last, lambda: shown_move(last) == moves + 1, 10)
    for page in pages[1:]:
        page.close()


def import_untimed(console: ConsoleRun, folder: Path) -> tuple[dict[str, Any], Path]:
    """1861-29683 imported at the console from a copy without the site's times, as
    some 18xx.games exports are; the log and the copy."""
    log, _ = shared_game("1861-29683")
    for action in log["actions"]:
        action.pop("created_at", None)
    untimed = folder / "untimed.json"
    untimed.write_text(json.dumps(log))
    assert "✗" not in console.type(f"import {untimed}")
    return log, untimed


@pytest.mark.slow
def test_an_imported_game_without_times_is_badged_finished_and_shows_render_at_n(
    console: ConsoleRun, browser: Browser, tmp_path: Path
) -> None:
    """A finished game is badged so, with its winner, not "live"; a move imported without its
    time shows none (the import's is not when it was made); ``?at=N`` is the state
    ``troika render --at N`` draws."""
    log, untimed = import_untimed(console, tmp_path)
    link = game_link(console)
    page = browser.new_page()
    page.goto(link)
    winner = results_text(replay(log, None).game).split(": ", 1)[1].split(".")[0]  # "Anna wins"
    assert page.locator("#live-state").inner_text() == f"finished: {winner}"
    page.wait_for_timeout(700)  # the event stream is open: the badge stays
    assert page.locator("#live-state").inner_text() == f"finished: {winner}"
    assert page.locator("#log time").count() == 0 and "imported" in page.locator("#at-label").inner_text()
    total = engine_game(console.db)[1]
    for moves in (508, 369):  # 508: within a site action that is two of Troika's moves
        page.goto(f"{link}?at={moves}")
        rendered = _replayed(argparse.Namespace(game=str(untimed), at=moves, id=None)).game  # `render --at`'s
        assert list(shown_cash(page).values()) == list(engine_cash(rendered).values()), moves
        assert page.locator("#live-state").inner_text() == f"move {moves} of {total}"
    page.close()


@pytest.mark.slow
def test_the_page_asks_for_nothing_that_is_not_there(console: ConsoleRun, browser: Browser) -> None:
    """Not even the icon Chromium asks for by itself (``/favicon.ico``): no 404 noise."""
    console.type("new Anna Boris Clara")
    link = game_link(console)
    page = browser.new_page()
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
    page.goto(link)
    page.wait_for_timeout(500)
    assert missing == []
    status, _, headers = fetch(console.url + "/favicon.ico")
    assert status == 200 and headers["Content-Type"].startswith("image/svg+xml")
    page.close()


@pytest.mark.slow
def test_the_consoles_own_web_me_lists_every_game_at_the_console(
    console: ConsoleRun, browser: Browser, tmp_path: Path
) -> None:
    """At the console one keyboard types for every seat: its bare ``web me`` lists all
    its games (``as NAME web me`` stays that player's)."""
    import_untimed(console, tmp_path)
    console.type("new Anna Boris Clara")
    mine = re.search(r"(http\S+)", console.type("web me"))[1]  # type: ignore[index]
    page = browser.new_page()
    page.goto(mine)
    games = page.locator("#games li").all_inner_texts()
    assert len(games) == 2 and "your turn" in games[0] and "finished" in games[1], games
    boris = re.search(r"(http\S+)", console.type("as Boris web me"))[1]  # type: ignore[index]
    page.goto(boris)
    assert len(page.locator("#games li").all_inner_texts()) == 1
    page.close()
