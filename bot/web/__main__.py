"""``python -m bot.web --db DB --listen HOST:PORT``: the web companion's process.

It binds, prints ``web: URL`` on one line (the port chosen when 0 was asked), draws a
map once a few seconds later so the first page is not the slowest (and the newest games'
latest moments), and serves until its standard input
closes (the ``troika run`` that started it has stopped). It runs at a lower priority
than the bot, so a flood of page views never takes the bot's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from aiohttp import web

from engine import TITLES
from storage import EventStore, StoreError, store_at

from . import links
from .server import WebApp, make_app

log = logging.getLogger("troika.web")
NICENESS = 10
WARM_UP_AFTER = 5.0
"""Seconds after starting before the server draws its first maps (a console opened for
one command, as the tests do, never spends the time); ``TROIKA_WEB_WARM_UP_AFTER`` sets it."""
WARM_UP_VARIABLE = "TROIKA_WEB_WARM_UP_AFTER"


def split_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a host and a port; ValueError if not."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536 or not host:
        raise ValueError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:8861)")
    return host.strip("[]"), int(port)


def _warm_up(title: str) -> None:
    """Draw the title's map once, every tile laid out first: a process's first drawings
    are otherwise the slowest (seconds)."""
    from engine import Game
    from render.map import lay_out

    from .history import documents

    game = Game.new([("a", "A"), ("b", "B"), ("c", "C")], 1, title=title)
    lay_out(game.ctx.board.tiles.values())
    documents(game)


async def serve(location: str, host: str, port: int) -> None:
    secret = links.read_secret(os.environ.get(links.SECRET_VARIABLE) or str(links.secret_path(location)))

    async def open_store() -> EventStore:
        for attempt in range(5):  # the bot may be creating the database's tables at this moment
            store = store_at(location)
            try:
                await store.open()
                return store
            except StoreError:
                if attempt == 4:
                    raise
                await asyncio.sleep(0.5)
        raise AssertionError("unreachable")

    state = WebApp(open_store, secret)
    runner = web.AppRunner(make_app(state), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0]
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    print(f"web: http://{shown}:{bound[1]}", flush=True)
    await asyncio.sleep(float(os.environ.get(WARM_UP_VARIABLE, WARM_UP_AFTER)))
    for title in TITLES:  # a title at a time: a page asked for meanwhile goes first
        await state.work(_warm_up, title, background=True)
    await state.preload()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while await reader.read(4096):
        pass
    await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bot.web")
    parser.add_argument("--db", required=True)
    parser.add_argument("--listen", required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops troika run, which closes our input
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s web %(levelname)s %(name)s: %(message)s")
    host, port = split_address(args.listen)
    try:
        asyncio.run(serve(args.db, host, port))
    except OSError as exc:
        print(f"web: cannot serve on {args.listen}: {exc.strerror or exc}", flush=True)
        sys.exit(2)


RESTART_SECONDS = 2.0
"""Wait before the web process is started again after it stopped by itself."""


def _spawn(location: str, listen: str) -> tuple[subprocess.Popen[bytes], str]:
    """The web process serving on ``listen``, and the address it serves on; ValueError
    (with the reason) if it cannot."""
    root = str(Path(__file__).resolve().parent.parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *(p for p in sys.path if p)])}
    process = subprocess.Popen([sys.executable, "-m", "bot.web", "--db", location, "--listen", listen],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert process.stdout is not None
    line = process.stdout.readline().decode(errors="replace").strip()
    if not line.startswith("web: http"):
        process.wait(5)
        raise ValueError(line.removeprefix("web: ") or "the web process stopped at once")
    return process, line.removeprefix("web: ")


class WebProcess:
    """The web companion beside ``troika run``: its process, started again (on the same
    address) whenever it stops by itself, until :meth:`stop`."""

    def __init__(self, location: str, listen: str) -> None:
        self.process, self.served = _spawn(location, listen)
        self.environment: dict[str, str | None] = {}
        """The links' settings before :func:`start_web` set them, given back by :meth:`stop`."""
        self._location = location
        self._stopping = threading.Event()
        self._watch = threading.Thread(target=self._keep_serving, name="troika-web", daemon=True)
        self._watch.start()

    def _keep_serving(self) -> None:
        listen = self.served.removeprefix("http://")  # the port it chose, so that links stay valid
        while True:
            self.process.wait()
            if self._stopping.wait(RESTART_SECONDS):
                return
            log.warning("the web process stopped (status %s): starting it again", self.process.returncode)
            try:
                self.process, _ = _spawn(self._location, listen)
            except (ValueError, OSError) as exc:
                log.error("the web process cannot start again: %s", exc)

    def stop(self) -> None:
        """End it (a page open at the time sees its stream close, and tries again)."""
        self._stopping.set()
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._watch.join(5)
        for key, value in self.environment.items():  # no links to a page that is gone
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def link_to(location: str, url: str) -> None:
    """Write links to the web page at ``url`` (from this process and its workers), with
    the secret for the database at ``location`` (made now if it is the first time)."""
    _secret_for(location)
    os.environ[links.URL_VARIABLE] = url.rstrip("/")


def _secret_for(location: str) -> None:
    """The links' secret for the database at ``location``, made now if it is the first
    time (before two processes race to make it)."""
    os.environ.setdefault(links.SECRET_VARIABLE, str(links.secret_path(location)))
    links.read_secret(os.environ[links.SECRET_VARIABLE])


def start_web(location: str, listen: str, public_url: str | None = None) -> WebProcess:
    """Start the web companion on ``listen`` over the database at ``location``; set the
    address and secret its links are written with for this process and its children.
    Raises ValueError (with the reason) if it cannot serve there."""
    split_address(listen)
    before = {key: os.environ.get(key) for key in (links.URL_VARIABLE, links.SECRET_VARIABLE)}
    _secret_for(location)
    try:
        web = WebProcess(location, listen)
    except BaseException:
        if before[links.SECRET_VARIABLE] is None:
            os.environ.pop(links.SECRET_VARIABLE)
        raise
    web.environment = before
    link_to(location, public_url or web.served)
    return web


if __name__ == "__main__":
    main()
