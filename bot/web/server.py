"""The web companion's server: read-only pages of every game, live and at any move.

Routes (every other address, and every link this installation did not write, gets the
same 404 page):

- ``/g/KEY`` a game's page (``?at=N``: after move N); ``/g/KEY/moment?at=N`` the part
  of it that changes, for the page's script; ``/g/KEY/map.svg?at=N`` (``market``,
  ``table``) its pictures, drawn by :mod:`render` as ``troika render`` draws them;
  ``/g/KEY/events`` server-sent events, one as each move lands;
- ``/p/KEY`` a player's games;
- ``/static/web.js``, the pages' one script; ``/favicon.svg`` (and ``/favicon.ico``,
  which browsers ask for by themselves) their icon.

No route changes a game: the server only reads the store. It runs in a process of its
own (:mod:`bot.web.__main__`), so however hard it is pressed, the Discord bot's process
and its workers keep their cores; besides, each client is rate-limited, the watchers
are capped, and engine work (replays, drawings) is done one at a time off the loop.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from storage import Event, EventKind, EventStore, GameNotFound, GameRecord, GameStatus, StoreError, TroikaEngine
from storage.repository import effective_events

from ..posts import doing, results_text, who_acts
from . import links
from .history import PICTURES, GameHistory, draw
from .pages import STYLE_SOURCE, GameLine, Moment, game_page, missing_page, moment_html, player_page

log = logging.getLogger("troika.web")
T = TypeVar("T")

STATIC = Path(__file__).with_name("static")
PAGE_CSP = (f"default-src 'none'; script-src 'self'; style-src {STYLE_SOURCE}; img-src 'self'; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
GAMES_KEPT = 16
"""Games whose history the server keeps in memory (the least recently seen go first)."""
DRAWINGS_KEPT = 96
"""Pictures kept drawn (a moment's three, some 15 KB gzipped in all; the least recently seen go first)."""
POLL_SECONDS = 0.2
"""How often the store is asked whether a watched game moved: a move shows within this plus the drawing."""
RATE = 15.0
"""Requests a second a client may make, on average..."""
BURST = 60.0
"""...and at once (a page with its pictures is six)."""
WATCHERS_PER_CLIENT = 8
WATCHERS = 1000
KEEPALIVE_SECONDS = 15.0
COMPRESSED = ("text/html", "text/javascript")
FILL_MOVES = 40
"""Moves replayed at a time when a game's history is filled in behind its latest moment."""
IDLE_SECONDS = 0.25
"""How long no page has asked for anything before the moves beside the one looked at are drawn."""
PRELOADED = 4
"""The newest games read and drawn when the server starts."""


@dataclass
class Bucket:
    tokens: float
    last: float


@dataclass(frozen=True)
class Picture:
    """A picture as it is sent: its SVG, and the same gzipped (a finished map: 93 KB, 11 KB)."""

    svg: bytes
    gzipped: bytes


def packed(svg: str) -> Picture:
    data = svg.encode()
    return Picture(data, gzip.compress(data, 6))


@dataclass
class Drawing:
    """A picture being drawn (or drawn), once for everyone who asks for it; ``urgent`` is
    set when a page waits for one begun in the background, which then goes first."""

    task: asyncio.Future[Picture]
    urgent: asyncio.Event


@dataclass
class Watchers:
    """The open event streams of one game, and how far they have been told."""

    queues: set[asyncio.Queue[int]] = field(default_factory=set)


class WebApp:
    """The server's state: the store, the games' histories and drawings, the watchers."""

    def __init__(self, store_opener: Callable[[], Awaitable[EventStore]], secret: bytes) -> None:
        self._open_store = store_opener
        self._store: EventStore | None = None
        self.secret = secret
        self.histories: OrderedDict[int, GameHistory] = OrderedDict()
        self.drawings: OrderedDict[tuple[int, int, int, str], Drawing] = OrderedDict()
        self.buckets: dict[str, Bucket] = {}
        self.watchers: dict[int, Watchers] = {}
        self.watching: dict[str, int] = {}
        self._work = asyncio.Semaphore(1)
        self._asking = 0
        self._last_asked = 0.0
        self._poller: asyncio.Task[None] | None = None
        self.filling: dict[int, asyncio.Task[None]] = {}
        self.ahead: set[asyncio.Task[None]] = set()

    # --- engine work, one piece at a time, off the loop --------------------------

    async def work(self, fn: Callable[..., T], *args: Any, background: bool = False,
                   urgent: asyncio.Event | None = None) -> T:
        """``fn(*args)`` in a thread, one at a time; ``background`` work waits while pages
        are waiting, unless ``urgent`` is set (a page waits for it too)."""
        if background:
            while self._asking and not (urgent and urgent.is_set()):
                await asyncio.sleep(0.01)
        self._asking += not background
        if not background:
            self._last_asked = time.monotonic()
        try:
            async with self._work:
                return await asyncio.to_thread(fn, *args)
        finally:
            self._asking -= not background

    async def store(self) -> EventStore:
        if self._store is None:
            self._store = await self._open_store()
        return self._store

    async def history(self, game_id: int) -> GameHistory:
        """The game's history up to its latest event; :class:`GameNotFound` for a
        game that is not started (being set up, or set up and dropped)."""
        store = await self.store()
        record = await store.get_game(game_id)
        if record.status is GameStatus.SETTING_UP or (record.status is GameStatus.ABANDONED and not record.seats):
            raise GameNotFound(game_id)
        known = self.histories.get(game_id)
        seen = known.seen_seq if known is not None else -1
        if known is None:
            known = await self.work(GameHistory, record)
            events = await store.events(game_id)
            await self.work(known.update, record, events, await self._snapshot(store, record, events))
            self.histories[game_id] = known
        elif await store.last_seq(game_id) > known.seen_seq:
            events = await store.events(game_id, after_seq=known.seen_seq)
            await self.work(known.update, record, events)
        if known.seen_seq != seen:  # first seen, or a move landed: its page's pictures are asked for next
            self.draw_soon(known, known.total)
        self.histories.move_to_end(game_id)
        while len(self.histories) > GAMES_KEPT:
            self.histories.popitem(last=False)
        if not known.complete and game_id not in self.filling:
            self.filling[game_id] = asyncio.create_task(self._fill(game_id, known))
        return known

    async def _snapshot(self, store: EventStore, record: GameRecord, events: list[Event]) -> tuple[int, Any] | None:
        """The state the bot's snapshot of the game holds, and the moves behind it, if it
        is on the game's line now (as :meth:`GameRepository._resume` judges it)."""
        engine = TroikaEngine()
        snapshot = await store.get_snapshot(record.id, engine.version)
        if snapshot is None:
            return None
        at = [e for e in events if e.seq == snapshot.seq]
        later = [e for e in events if e.seq > snapshot.seq]
        if not at or at[0].state_hash != snapshot.state_hash or \
                any(e.kind in (EventKind.UNDO, EventKind.REDO) for e in later):
            return None
        try:
            game = await self.work(engine.restore, record, snapshot.data)
        except Exception as exc:  # a snapshot that does not load costs a whole replay
            log.warning("game %s: snapshot not used: %s", record.id, exc)
            return None
        return len(effective_events([e for e in events if e.seq <= snapshot.seq])), game

    async def _fill(self, game_id: int, history: GameHistory) -> None:
        """Replay the rest of a game's history in short pieces, leaving room for other pages."""
        try:
            while not await self.work(history.fill, FILL_MOVES, background=True):
                pass
        finally:
            del self.filling[game_id]

    async def position(self, game_id: int, at: int | None) -> tuple[GameHistory, int]:
        """The game's history and the move ``at`` in it (None: the latest); GameNotFound
        for a move it does not have."""
        history = await self.history(game_id)
        n = history.total if at is None else at
        if not 0 <= n <= history.total:
            raise GameNotFound(game_id)
        return history, n

    async def moment(self, game_id: int, at: int | None) -> Moment:
        history, n = await self.position(game_id, at)
        game = await self.work(history.at, n)
        latest = n == history.total
        return Moment(history, game, n, history.ledger.turn_began if latest else None)

    def drawing(self, history: GameHistory, n: int, name: str, *, background: bool = False) -> Drawing:
        """The picture ``name`` after move ``n``, drawn once however many ask for it: the
        one drawn or being drawn, else one begun now."""
        key = (history.record.id, n, history.moves[n - 1].seq if n else 0, name)
        found = self.drawings.get(key)
        if found is None or (found.task.done() and (found.task.cancelled() or found.task.exception())):
            urgent = asyncio.Event()
            if not background:
                urgent.set()

            def drawn() -> Picture:
                return packed(draw(history.at(n), name))

            found = Drawing(asyncio.ensure_future(self.work(drawn, background=True, urgent=urgent)), urgent)
            found.task.add_done_callback(_told)
            self.drawings[key] = found
            while len(self.drawings) > DRAWINGS_KEPT:
                self.drawings.popitem(last=False)
        self.drawings.move_to_end(key)
        return found

    async def picture(self, history: GameHistory, n: int, name: str) -> Picture:
        """The picture ``name`` after move ``n``, for a page waiting for it."""
        found = self.drawing(history, n, name)
        found.urgent.set()
        self._last_asked = time.monotonic()
        return await asyncio.shield(found.task)

    def draw_soon(self, history: GameHistory, n: int) -> None:
        """Begin drawing the pictures after move ``n`` in the background: a page asks for them next."""
        for name in PICTURES:
            self.drawing(history, n, name, background=True)

    def draw_ahead(self, history: GameHistory, n: int) -> None:
        """Draw the moves either side of one looked at, while no page waits: a step
        through the history then finds its pictures drawn."""

        async def ahead() -> None:
            for step in (n + 1, n - 1):
                await asyncio.sleep(IDLE_SECONDS)
                if time.monotonic() - self._last_asked < IDLE_SECONDS:
                    return  # the reader is moving on (a slider dragged): draw what they ask for instead
                if 0 <= step <= history.total:
                    await asyncio.gather(*(self.drawing(history, step, name, background=True).task
                                           for name in PICTURES), return_exceptions=True)

        if len(self.ahead) < 4:
            task = asyncio.create_task(ahead())
            self.ahead.add(task)
            task.add_done_callback(self.ahead.discard)

    # --- live updates ------------------------------------------------------------

    async def poll(self) -> None:
        """Tell each watched game's watchers when it has moved, for as long as the server runs."""
        while True:
            await asyncio.sleep(POLL_SECONDS)
            for game_id, watchers in list(self.watchers.items()):
                try:
                    store = await self.store()
                    history = self.histories.get(game_id)
                    if history is not None and await store.last_seq(game_id) <= history.seen_seq:
                        continue
                    history = await self.history(game_id)
                except (StoreError, OSError) as exc:
                    log.warning("game %s not polled: %s", game_id, exc)
                    continue
                for queue in watchers.queues:
                    queue.put_nowait(history.total)

    def start(self) -> None:
        self._poller = asyncio.create_task(self.poll())

    async def preload(self, games: int = PRELOADED) -> None:
        """Read the newest ``games`` running or finished games and draw their latest
        moment, as a server that has run a while has them: a link just posted opens at once."""
        store = await self.store()
        records = await store.list_games([GameStatus.RUNNING, GameStatus.FINISHED])
        for record in sorted(records, key=lambda r: r.id)[-games:]:
            try:
                history = await self.history(record.id)
            except (StoreError, GameNotFound) as exc:
                log.warning("game %s not read ahead: %s", record.id, exc)
                continue
            await asyncio.gather(*(self.drawing(history, history.total, name, background=True).task
                                   for name in PICTURES), return_exceptions=True)

    async def close(self) -> None:
        for task in [self._poller, *self.filling.values(), *self.ahead, *(d.task for d in self.drawings.values())]:
            if task is not None:
                task.cancel()
        if self._store is not None:
            await self._store.close()

    def allowed(self, client: str) -> bool:
        """Whether ``client`` may make a request now (a token bucket per client)."""
        now = time.monotonic()
        bucket = self.buckets.get(client)
        if bucket is None:
            if len(self.buckets) > 10_000:
                self.buckets.clear()
            bucket = self.buckets[client] = Bucket(BURST, now)
        bucket.tokens = min(BURST, bucket.tokens + (now - bucket.last) * RATE)
        bucket.last = now
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True


def _told(task: asyncio.Future[Picture]) -> None:
    """A drawing that failed is logged (a page that waited for it was told already)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a picture was not drawn", exc_info=task.exception())


APP = web.AppKey("troika", WebApp)


def client_of(request: web.Request) -> str:
    """The client's address: behind a reverse proxy on this machine, the one it forwarded."""
    remote = request.remote or "?"
    forwarded = request.headers.get("X-Forwarded-For", "")
    if forwarded and remote in ("127.0.0.1", "::1"):
        return forwarded.split(",")[-1].strip() or remote
    return remote


def not_found() -> web.Response:
    return web.Response(status=404, text=missing_page(), content_type="text/html")


@web.middleware
async def guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                ) -> web.StreamResponse:
    """Rate limit, the one 404; text compressed."""
    if not request.app[APP].allowed(client_of(request)):
        response: web.StreamResponse = web.Response(status=429, text="Too many requests: wait a moment.",
                                                    headers={"Retry-After": "2"})
    elif request.method not in ("GET", "HEAD"):
        response = web.Response(status=405, text="This page only shows games.")
    else:
        try:
            response = await handler(request)
        except (web.HTTPNotFound, GameNotFound):
            response = not_found()
        except Exception:  # the cause goes to the log, never to the page
            log.exception("%s failed", request.path)
            response = web.Response(status=500, text="Something went wrong showing this page.")
    if isinstance(response, web.Response) and response.content_type in COMPRESSED:
        response.enable_compression()  # gzip, for a client that takes it
    return response


async def locked_down(request: web.Request, response: web.StreamResponse) -> None:
    """The safety headers on every answer (an event stream's too), and no software versions."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", PAGE_CSP)
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Frame-Options"] = "DENY"
    headers.setdefault("Cache-Control", "no-store")
    headers["Server"] = "Troika"


def _game_id(request: web.Request) -> int:
    game_id = links.read_game_key(request.match_info["key"], request.app[APP].secret)
    if game_id is None:
        raise web.HTTPNotFound()
    return game_id


def _at(request: web.Request) -> int | None:
    value = request.query.get("at")
    if value is None or value == "":
        return None
    if not value.isdigit() or len(value) > 7:
        raise web.HTTPNotFound()
    return int(value)


def _base(request: web.Request) -> str:
    return f"/g/{request.match_info['key']}"


async def game(request: web.Request) -> web.Response:
    app = request.app[APP]
    at = _at(request)
    moment = await app.moment(_game_id(request), at)
    app.draw_soon(moment.history, moment.n)
    return web.Response(text=game_page(moment, _base(request), live=at is None or at == moment.history.total),
                        content_type="text/html")


async def moment_part(request: web.Request) -> web.Response:
    app = request.app[APP]
    moment = await app.moment(_game_id(request), _at(request))
    app.draw_soon(moment.history, moment.n)  # the page asks for them as soon as it has this part
    return web.Response(text=moment_html(moment, _base(request)), content_type="text/html",
                        headers={"X-Total": str(moment.history.total), "X-At": str(moment.n)})


async def picture(request: web.Request) -> web.Response:
    app = request.app[APP]
    name = request.match_info["picture"]
    if name not in PICTURES:
        raise web.HTTPNotFound()
    history, n = await app.position(_game_id(request), _at(request))
    drawn = await app.picture(history, n, name)
    if name == "map" and n != history.total:
        app.draw_ahead(history, n)
    headers = {"Content-Security-Policy": SVG_CSP, "Cache-Control": "private, max-age=5", "Vary": "Accept-Encoding"}
    body = drawn.svg
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        body, headers["Content-Encoding"] = drawn.gzipped, "gzip"
    return web.Response(body=body, content_type="image/svg+xml", charset="utf-8", headers=headers)


async def events(request: web.Request) -> web.StreamResponse:
    """Server-sent events: ``data: {"total": N}`` each time the game moves."""
    app = request.app[APP]
    game_id = _game_id(request)
    history = await app.history(game_id)
    client = client_of(request)
    if app.watching.get(client, 0) >= WATCHERS_PER_CLIENT or sum(app.watching.values()) >= WATCHERS:
        return web.Response(status=429, text="Too many open pages.", headers={"Retry-After": "30"})
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    queue: asyncio.Queue[int] = asyncio.Queue()
    watchers = app.watchers.setdefault(game_id, Watchers())
    watchers.queues.add(queue)
    app.watching[client] = app.watching.get(client, 0) + 1
    try:
        await response.write(f"retry: 1000\ndata: {json.dumps({'total': history.total})}\n\n".encode())
        while True:
            try:
                total = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                await response.write(b": still here\n\n")
                continue
            await response.write(f"data: {json.dumps({'total': total})}\n\n".encode())
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        watchers.queues.discard(queue)
        if not watchers.queues:
            app.watchers.pop(game_id, None)
        app.watching[client] -= 1
        if not app.watching[client]:
            del app.watching[client]
    return response


async def player(request: web.Request) -> web.Response:
    app = request.app[APP]
    account = links.read_player_key(request.match_info["key"], app.secret)
    if account is None:
        raise web.HTTPNotFound()
    store = await app.store()
    lines = []
    keyboard = account == links.KEYBOARD  # the console's own link: its games, every seat its own
    name = "the console" if keyboard else account
    records = await store.list_games([GameStatus.RUNNING, GameStatus.FINISHED])
    for record in sorted(records, key=lambda r: r.status is GameStatus.FINISHED):  # those being played first
        seat = next((s for s in record.seats if s.discord_user_id == account), None)
        if seat is not None:
            name = seat.display_name
        elif not (keyboard and record.channel_id == links.KEYBOARD):
            continue
        where = "console" if record.channel_id == links.KEYBOARD else f"channel {record.channel_id}"
        link, title = f"/g/{links.game_key(record.id)}", f"{record.title} game {record.id}"
        try:
            game = (await app.moment(record.id, None)).game
        except StoreError as exc:  # that game's problem, told in its line only
            lines.append(GameLine(link, title, where, f"cannot be shown ({exc})", False))
            continue
        finished = game.state.finished or record.status is GameStatus.FINISHED
        if record.archived_at is not None:  # readable, but nobody's turn until `unarchive`
            lines.append(GameLine(link, title, where, "archived: unarchive in its channel brings it back", False,
                                  finished))
            continue
        turn = results_text(game) if game.state.finished else "ended" if finished else f"{who_acts(game)} {doing(game)}"
        acting = game.acting_player()
        mine = acting is not None and (keyboard or seat is not None and acting == seat.player_id)
        lines.append(GameLine(link, title, where, turn, not finished and mine, finished))
    return web.Response(text=player_page(name, lines), content_type="text/html")


def static(name: str, content_type: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    body = (STATIC / name).read_bytes()

    async def serve(request: web.Request) -> web.Response:
        return web.Response(body=body, content_type=content_type, headers={"Cache-Control": "max-age=300"})

    return serve


async def anything(request: web.Request) -> web.Response:
    return not_found()


def make_app(web_app: WebApp) -> web.Application:
    """The aiohttp application over ``web_app``."""
    app = web.Application(middlewares=[guard], client_max_size=1024)
    app[APP] = web_app
    app.router.add_get("/g/{key}", game)
    app.router.add_get("/g/{key}/moment", moment_part)
    app.router.add_get("/g/{key}/events", events)
    app.router.add_get("/g/{key}/{picture}.svg", picture)
    app.router.add_get("/p/{key}", player)
    app.router.add_get("/static/web.js", static("web.js", "text/javascript"))
    for icon in ("/favicon.ico", "/favicon.svg"):  # the one browsers ask for unbidden, and the one pages name
        app.router.add_get(icon, static("favicon.svg", "image/svg+xml"))
    app.router.add_route("*", "/{tail:.*}", anything)

    async def started(_: web.Application) -> None:
        web_app.start()

    async def stopped(_: web.Application) -> None:
        await web_app.close()

    app.on_response_prepare.append(locked_down)
    app.on_startup.append(started)
    app.on_cleanup.append(stopped)
    return app
