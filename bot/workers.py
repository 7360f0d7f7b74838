"""Engine work beside the bot: worker processes, each channel's games pinned to one.

The bot's own process does only I/O: Discord, the database, delivering posts. Every
command, and everything else that reads a game through the engine (status, suggestions,
the pictures of a post), is carried out in a worker process: a :class:`TroikaService`
of its own, holding the live games of the channels pinned to it. A channel is pinned to
the worker with the fewest channels when it is first used, and stays there, so its
games' cache, ledger and channel lock live in one process; a heavy route solve in one
worker holds no other worker's games, whatever the interpreter lock.

The store is the truth, and only the bot's process holds it: a worker's store
(:class:`RemoteStore`) asks the bot's process for each read and write, carried out on its
one connection (no lock waits between processes; the store's own checks of sequence
numbers and request keys guard every write). A worker keeps nothing the store does not
have: a worker that dies, or hangs (no answer within :data:`CALL_TIMEOUT` seconds, and
the bot stops it), fails its calls in flight with :class:`WorkerStopped` and is replaced
by a new one, which loads its games from their logs. A command with a request
key whose worker died is carried out exactly once: not again if its event is stored,
else by the new worker. A worker runs the engine on hostile input (imports, commands), so
what it sends is bounded (:data:`MAX_FRAME`, refused unread), read with only the bot's
answer types and the store's values allowed, an answer checked for its type before use,
and its store calls confined to the games of its own channels (the start-up check of
every running game excepted, for its length).

``workers=0`` (the console, tests) runs the service in this process instead.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import pickle
import signal
import socket
import struct
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from storage import EventStore, GameNotFound, GameStatus, OutboxMessage, ReplayProblem, Shard, StoreError, store_at

from .archive import ARCHIVE_AFTER
from .commands import split
from .errors import NoGame, NotAllowed, Refusal, WorkerStopped
from .face import WORKER_CALLS, ServiceFace
from .posts import Attachment, Picture
from .service import Account, Post, Reply, Status, TroikaService

log = logging.getLogger("troika.workers")

_HEADER = struct.Struct("!Q")
"""A message's length, before its pickled body."""


MAX_FRAME = 64 * 2**20
"""The longest message a worker may send the bot (its length is read first, so a longer
one is refused unread): the largest sound ones, an imported game's events or its export,
are about the size of a site log (at most 16 MB), pictures about 0.3 MB."""

CALL_TIMEOUT = 60.0
"""Seconds a worker has to answer a call before it counts as hung and is stopped (its
games then load in a new worker). The longest call that is not a fault, a national's
seven-train route solve or the first replay of a long game, takes about a second."""


def default_workers() -> int:
    """The workers a bot runs by default: one per core, at least two."""
    return max(2, os.cpu_count() or 1)


@dataclass(frozen=True)
class WorkerConfig:
    """The service's settings a worker serves with (the database stays with the bot)."""

    shard: tuple[int, int] | None = None
    owner: str | None = None
    timestamps: bool = False
    pictures: bool = True
    archive_after: timedelta | None = ARCHIVE_AFTER


# --- the calls a worker answers ----------------------------------------------------

_CALLS: dict[str, type | tuple[type, ...]] = {**WORKER_CALLS, "run": object}
"""The calls a worker carries out (:data:`bot.face.WORKER_CALLS`), and ``run``: engine
work beside the channel's games (the bench's heavy solve, tests), a module-level
function and its arguments."""


async def _carry_out(service: TroikaService, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if name == "run":
        fn, *rest = args
        return await asyncio.to_thread(fn, *rest)
    if name not in _CALLS:
        raise ValueError(f"a worker does not carry out {name!r}")
    return await getattr(service, name)(*args, **kwargs)


_ANSWER_TYPES = (Reply, Status, Account, Picture, Attachment, ReplayProblem)
_REFUSALS = {cls.__name__: cls for cls in (Refusal, NoGame, NotAllowed)}


# --- the worker's side ----------------------------------------------------------------

GAME_CALLS = frozenset({
    "get_game", "set_status", "set_archived", "set_engine_version", "last_seq", "append_many", "append", "events",
    "outbox_add", "put_snapshot", "get_snapshot", "claim_game",
})
"""The store's methods on one game (its id the first argument) a worker may ask for."""
STORE_CALLS = GAME_CALLS | {"create_game", "active_game_in_channel", "list_games"}
"""The store's methods a worker may ask the bot's process to carry out: on the games of
its own channels (:meth:`ServicePool.forbidden`), and the list of games; not delivering
posts, opening, closing, copying or restoring the store."""

_serving: TroikaService | None = None
"""In a worker, the service it runs (for work :meth:`ServicePool.run` sends it)."""


def serving() -> TroikaService:
    """The service of the worker this runs in."""
    if _serving is None:
        raise RuntimeError("not in a worker")
    return _serving


def _pack(value: Any) -> bytes:
    body = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(body)) + body


class FrameTooLong(Exception):
    """A message longer than the reader takes; it was not read."""


async def _receive(reader: asyncio.StreamReader, limit: int | None = None) -> bytes | None:
    """One message's body, or None at the end of the stream (the other side gone);
    :class:`FrameTooLong`, unread, if its length is over ``limit``."""
    try:
        size = _HEADER.unpack(await reader.readexactly(_HEADER.size))[0]
        if limit is not None and size > limit:
            raise FrameTooLong(f"a message of {size} bytes, over the {limit} a worker may send")
        return await reader.readexactly(size)
    except (asyncio.IncompleteReadError, ConnectionError):
        return None


def _error_parts(exc: BaseException) -> tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]:
    """An exception as its class, arguments and attributes: it crosses to the other
    process whatever its constructor takes."""
    return type(exc), exc.args, dict(vars(exc))


def _rebuilt(parts: tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]) -> BaseException:
    cls, args, attributes = parts
    exc: BaseException = cls.__new__(cls)
    exc.args = args
    vars(exc).update(attributes)
    return exc


class _Asking:
    """Numbered requests sent over a stream, each awaiting its answer."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self._numbers = 0

    async def ask(self, writer: asyncio.StreamWriter, message: tuple[Any, ...]) -> Any:
        """Send ``message`` (its kind first) under a new number; its answer."""
        self._numbers += 1
        number = self._numbers
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[number] = answer
        try:
            writer.write(_pack((message[0], number, *message[1:])))
            await writer.drain()
            return await answer
        finally:
            self.waiting.pop(number, None)

    def answer(self, number: int, value: Any = None, error: BaseException | None = None) -> None:
        waiting = self.waiting.get(number)
        if waiting is None or waiting.done():
            return  # given up on
        if error is None:
            waiting.set_result(value)
        else:
            waiting.set_exception(error)

    def fail(self, error: Callable[[], BaseException]) -> None:
        """Fail every request still waiting (the other side has gone)."""
        for waiting in self.waiting.values():
            if not waiting.done():
                waiting.set_exception(error())


class RemoteStore:
    """A worker's store (an :class:`EventStore` as the service uses it): each call
    carried out by the bot's process on its own connection, so one process writes the
    database (no lock waits between processes) and the store's own checks (sequence
    numbers, request keys) guard every write."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self.asking = _Asking()

    def __getattr__(self, name: str) -> Any:
        if name in STORE_CALLS:
            return lambda *args, **kwargs: self._ask(name, args, kwargs)
        raise AttributeError(f"a worker's store has no {name!r}")

    async def _ask(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            return await self.asking.ask(self._writer, ("store", name, args, kwargs))
        except ConnectionError:  # as the bot's process ends (Discord unreachable, say): no bug of the worker's
            raise StoreError("the bot's process has gone") from None


async def serve(fd: int) -> None:
    """A worker's life: read its settings, then answer calls until the bot hangs up."""
    global _serving
    reader, writer = await asyncio.open_connection(sock=socket.socket(fileno=fd))
    first = await _receive(reader)
    if first is None:
        return
    config: WorkerConfig = pickle.loads(first)
    store = RemoteStore(writer)
    service = _serving = TroikaService(
        cast(EventStore, store), shard=Shard(*config.shard) if config.shard else None, owner=config.owner,
        timestamps=config.timestamps, pictures=config.pictures, archive_after=config.archive_after,
    )
    writer.write(_pack(("ready", os.getpid())))
    await writer.drain()
    working: set[asyncio.Task[None]] = set()
    while (body := await _receive(reader)) is not None:
        kind, number, *rest = pickle.loads(body)
        if kind == "stored":
            ok, value = rest
            store.asking.answer(number, value if ok else None, None if ok else _rebuilt(value))
            continue
        task = asyncio.create_task(_answer(service, writer, number, *rest))
        working.add(task)
        task.add_done_callback(working.discard)
    store.asking.fail(lambda: StoreError("the bot's process has gone"))
    for task in list(working):
        task.cancel()


async def _answer(
    service: TroikaService, writer: asyncio.StreamWriter, number: int, name: str, args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    try:
        value = await _carry_out(service, name, args, kwargs)
        answer: tuple[Any, ...] = ("answer", number, "ok", value)
    except Refusal as exc:
        answer = ("answer", number, "refused", type(exc).__name__, str(exc))
    except StoreError as exc:  # the database's trouble, told as the service tells it
        answer = ("answer", number, "store", str(exc))
    except Exception as exc:
        log.exception("worker call %s failed", name)
        answer = ("answer", number, "error", f"{type(exc).__name__}: {exc}")
    try:
        writer.write(_pack(answer))
        await writer.drain()
    except ConnectionError:  # the bot's process has gone: nobody waits for the answer
        pass


# --- the bot's side ---------------------------------------------------------------------


class _WorkerUnpickler(pickle.Unpickler):
    """Builds only plain data, the bot's answer types and the store's own values: a
    worker is not trusted to hand over anything that could run code in the bot."""

    _ALLOWED = {(c.__module__, c.__qualname__) for c in _ANSWER_TYPES} | {
        ("storage.store", name) for name in (
            "Seat", "NewGame", "NewEvent", "EventKind", "GameStatus", "Snapshot",
        )
    } | {
        ("datetime", "datetime"), ("datetime", "timezone"), ("datetime", "timedelta"),
        ("builtins", "set"), ("builtins", "frozenset"),
    }

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a worker's message names {module}.{name}")


class _Worker:
    """One worker process, as the bot sees it: its calls in flight, by number, and the
    store calls it asks this process to carry out."""

    def __init__(
        self, index: int, store: EventStore,
        forbidden: Callable[[int, str, tuple[Any, ...]], Awaitable[str | None]],
    ) -> None:
        self.index = index
        self.store = store
        self.forbidden = forbidden
        """Why a store call of this worker's may not be carried out (a game not its own)."""
        self.process: asyncio.subprocess.Process | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.asking = _Asking()
        self.listening: asyncio.Task[None] | None = None
        self.storing: set[asyncio.Task[None]] = set()
        self.stopping = False
        self.hung = ""  # why the bot stopped it, if it stopped a hung worker

    @property
    def alive(self) -> bool:
        return (
            self.process is not None and self.process.returncode is None and self.writer is not None and not self.hung
        )

    async def start(self, config: WorkerConfig) -> None:
        self.stopping = False
        self.hung = ""
        mine, theirs = socket.socketpair()
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.workers", str(theirs.fileno()), pass_fds=(theirs.fileno(),),
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},  # the bot's code
            )
        finally:
            theirs.close()
        reader, self.writer = await asyncio.open_connection(sock=mine)
        self.writer.write(_pack(config))
        await self.writer.drain()
        hello = await _receive(reader)
        if hello is None:
            await self.stop()
            raise WorkerStopped(f"worker {self.index} did not start")
        self.listening = asyncio.create_task(self._listen(reader))

    async def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], timeout: float | None) -> Any:
        """The worker's answer to ``name``; a worker that takes longer than ``timeout``
        seconds is hung: it is stopped, failing every call in flight on it."""
        if not self.alive or self.writer is None:
            raise WorkerStopped(f"worker {self.index} is not running")
        try:
            return await asyncio.wait_for(self.asking.ask(self.writer, ("call", name, args, kwargs)), timeout)
        except TimeoutError:
            self.hung = f"it took longer than {timeout:g} s over {name}"
            if self.process is not None and self.process.returncode is None:
                self.process.kill()
            raise WorkerStopped(f"worker {self.index}: {self.hung}") from None

    async def _listen(self, reader: asyncio.StreamReader) -> None:
        """Hand each answer to its call and carry out each store call; at the end of
        the stream (the worker died) or at a message that cannot be read, fail every
        call in flight."""
        why = "it stopped"
        try:
            while True:
                try:
                    body = await _receive(reader, MAX_FRAME)
                    if body is None:
                        break
                    kind, number, *rest = _WorkerUnpickler(io.BytesIO(body)).load()
                    if kind == "store":
                        self._store(number, *rest)
                    else:
                        self._answered(number, *rest)
                except Exception as exc:
                    why = f"it sent something unreadable ({type(exc).__name__}: {exc})"
                    break
        finally:
            why = self.hung or why
            code = None
            if self.process is not None:
                if self.process.returncode is None and why != "it stopped":
                    self.process.kill()
                code = await self.process.wait()
            self.writer = None
            if not self.stopping:
                log.error("worker %s (pid %s) is gone: %s, exit status %s", self.index,
                          self.process.pid if self.process else None, why, code)
            self.asking.fail(lambda: WorkerStopped(f"worker {self.index}: {why}"))

    def _answered(self, number: int, outcome: str, *rest: Any) -> None:
        if outcome == "ok":
            self.asking.answer(number, rest[0])
        elif outcome == "refused":
            self.asking.answer(number, error=_REFUSALS.get(rest[0], Refusal)(rest[1]))
        elif outcome == "store":
            self.asking.answer(number, error=StoreError(rest[0]))
        else:
            self.asking.answer(number, error=RuntimeError(f"worker {self.index}: {rest[0]}"))

    def _store(self, number: int, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if name not in STORE_CALLS:
            raise ValueError(f"the store has no call {name!r} for workers")
        task = asyncio.create_task(self._stored(number, name, args, kwargs))
        self.storing.add(task)
        task.add_done_callback(self.storing.discard)

    async def _stored(self, number: int, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        try:
            refused = await self.forbidden(self.index, name, args)
            if refused is not None:
                log.error("worker %s: %s; refused", self.index, refused)
                raise StoreError(f"a worker may use only its own channels' games: {refused}")
            answer: tuple[Any, ...] = ("stored", number, True, await getattr(self.store, name)(*args, **kwargs))
        except Exception as exc:  # the store's verdict (a conflict, a duplicate request), for the worker
            answer = ("stored", number, False, _error_parts(exc))
        if self.writer is not None:
            self.writer.write(_pack(answer))

    async def stop(self) -> None:
        """Hang up and wait for the process to end (killed if it will not)."""
        self.stopping = True
        if self.writer is not None:
            self.writer.close()
        if self.process is not None and self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self.listening is not None:
            await asyncio.gather(self.listening, return_exceptions=True)


ACROSS_CHANNELS = frozenset({"games"})
"""Commands that read the asker's games in every channel: the bot's own process answers
them, as a worker may read only its own channels' games (:meth:`ServicePool.forbidden`)."""


def _verb(text: str) -> str:
    """The command's verb, or "" if it has none (the worker then says what is wrong)."""
    try:
        return split(text)[0]
    except Refusal:
        return ""


Params = ParamSpec("Params")
Answer = TypeVar("Answer")


def in_channel_worker(
    call: Callable[Concatenate[ServiceFace, str, Params], Awaitable[Answer]],
) -> Callable[Concatenate[ServicePool, str, Params], Awaitable[Answer]]:
    """The pool's side of a :class:`ServiceFace` call on a channel: carried out by the
    channel's worker."""
    name = call.__name__

    async def forward(pool: ServicePool, channel_id: str, /, *args: Params.args, **kwargs: Params.kwargs) -> Answer:
        answer: Answer = await pool.call(channel_id, name, channel_id, *args, **kwargs)
        return answer

    forward.__name__, forward.__doc__ = name, f"{call.__doc__} (In the channel's worker.)"
    return forward


def in_game_worker(
    call: Callable[Concatenate[ServiceFace, int, Params], Awaitable[Answer]],
) -> Callable[Concatenate[ServicePool, int, Params], Awaitable[Answer]]:
    """The pool's side of a :class:`ServiceFace` call on a game: carried out by the
    worker of the game's channel."""
    name = call.__name__

    async def forward(pool: ServicePool, game_id: int, /, *args: Params.args, **kwargs: Params.kwargs) -> Answer:
        answer: Answer = await pool.call(await pool.game_channel(game_id), name, game_id, *args, **kwargs)
        return answer

    forward.__name__, forward.__doc__ = name, f"{call.__doc__} (In the worker of the game's channel.)"
    return forward


class ServicePool:
    """The service's face for the bot, its engine work in worker processes.

    It answers what :class:`TroikaService` answers for the frontends. The posts are
    delivered from this process (``flush``), their pictures drawn by their game's worker."""

    def __init__(
        self, store: EventStore, *, workers: int | None = None, shard: Shard | None = None,
        owner: str | None = None, timestamps: bool = False, pictures: bool = True,
        call_timeout: float = CALL_TIMEOUT, archive_after: timedelta | None = ARCHIVE_AFTER,
    ) -> None:
        self.store = store
        self.call_timeout = call_timeout
        self.front = TroikaService(store, shard=shard, owner=owner, timestamps=timestamps, pictures=pictures,
                                   draw=self.post_pictures, archive_after=archive_after)
        self.shard = shard
        self.config = WorkerConfig((shard.index, shard.count) if shard else None, self.front.owner, timestamps,
                                   pictures, archive_after)
        self._workers = [_Worker(i, self.store, self.forbidden) for i in range(workers or default_workers())]
        self._everywhere: set[int] = set()
        """Workers checking every running game (:meth:`verify_running_games`), which may use them all."""
        self._pins: dict[str, int] = {}
        self._starting: dict[int, asyncio.Lock] = {}
        self._channels: dict[int, str | None] = {}
        self._closed = False

    async def __aenter__(self) -> ServicePool:
        try:
            await asyncio.gather(*(w.start(self.config) for w in self._workers))
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop the workers and give up this process's claims (once); the store stays open."""
        if self._closed:
            return
        self._closed = True
        await asyncio.gather(*(w.stop() for w in self._workers))
        await self.front.close()

    # --- pinning ---------------------------------------------------------------------

    def worker_of(self, channel_id: str) -> int:
        """The worker a channel's games are pinned to (the one with the fewest channels
        when first asked)."""
        if channel_id not in self._pins:
            counts = self.channels_pinned()
            self._pins[channel_id] = counts.index(min(counts))
        return self._pins[channel_id]

    def channels_pinned(self) -> list[int]:
        """How many channels are pinned to each worker."""
        counts = [0] * len(self._workers)
        for index in self._pins.values():
            counts[index] += 1
        return counts

    async def game_channel(self, game_id: int) -> str:
        """The channel whose worker holds the game (its lock's name if it has none)."""
        if game_id not in self._channels:
            self._channels[game_id] = (await self.store.get_game(game_id)).channel_id
        return self._channels[game_id] or f"game {game_id}"

    async def forbidden(self, index: int, name: str, args: tuple[Any, ...]) -> str | None:
        """Why worker ``index`` may not make store call ``name``, if it may not: the game
        (or channel) it is about is not one of the channels pinned to the worker."""
        if name == "list_games" or index in self._everywhere:
            return None
        first = args[0] if args else None
        if name == "create_game":
            channel = getattr(first, "channel_id", None)
        elif name == "active_game_in_channel":
            channel = first
        elif isinstance(first, int) and not isinstance(first, bool):
            try:
                channel = await self.game_channel(first)
            except GameNotFound:
                return None  # the store says so
        else:
            return f"{name} of {str(first)[:40]!r}, which is no game"
        owner = self._pins.get(channel) if isinstance(channel, str) else None
        if owner == index:
            return None
        whose = f"worker {owner}'s" if owner is not None else "no worker's"
        return f"{name} in channel {str(channel)[:40]}, {whose}"

    async def call(self, channel_id: str, name: str, /, *args: Any, **kwargs: Any) -> Any:
        """Carry out ``name`` in the channel's worker (started again if it stopped).
        ``channel_id`` and ``name`` are positional only: the call's own keyword arguments
        may have any name (``import_site_game``'s ``name``, the file's)."""
        return await self._call_worker(self.worker_of(channel_id), name, *args, **kwargs)

    async def _call_worker(
        self, index: int, name: str, /, *args: Any, unlimited: bool = False, **kwargs: Any
    ) -> Any:
        """``name`` carried out by worker ``index`` (started again if it stopped), given
        the pool's ``call_timeout`` seconds unless ``unlimited``."""
        worker = self._workers[index]
        if not worker.alive:
            await self._restart(worker)
        value = await worker.call(name, args, kwargs, None if unlimited else self.call_timeout)
        if not isinstance(value, _CALLS[name]):
            log.error("worker %s answered %s with a %s", worker.index, name, type(value).__name__)
            raise WorkerStopped(f"worker {worker.index} answered nonsense")
        return value

    async def _restart(self, worker: _Worker) -> None:
        async with self._starting.setdefault(worker.index, asyncio.Lock()):
            if worker.alive:
                return
            await worker.stop()
            log.warning("worker %s starts again", worker.index)
            await worker.start(self.config)

    async def run(self, channel_id: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` (a module-level function) in the channel's worker, beside its games."""
        return await self.call(channel_id, "run", fn, *args)

    def pid(self, channel_id: str) -> int | None:
        """The process id of the channel's worker (for operators and tests)."""
        process = self._workers[self.worker_of(channel_id)].process
        return process.pid if process is not None else None

    # --- the service's face -----------------------------------------------------------

    async def handle(self, channel_id: str, account: Account, text: str, **kwargs: Any) -> Reply:
        """:meth:`TroikaService.handle` in the channel's worker; a command with a request
        key is sent once more if its worker stopped meanwhile (the store carries out a
        keyed request once)."""
        if _verb(text) in ACROSS_CHANNELS:
            return await self.front.handle(channel_id, account, text, **kwargs)
        try:
            reply: Reply = await self.call(channel_id, "handle", channel_id, account, text, **kwargs)
        except WorkerStopped:
            key = kwargs.get("key")
            if key is None:
                raise
            if await self._carried_out(channel_id, key):
                return Reply()  # stored before the worker died: its posts are in the outbox
            reply = await self.call(channel_id, "handle", channel_id, account, text, **kwargs)
        return reply

    async def _carried_out(self, channel_id: str, key: str) -> bool:
        """Whether the channel's game has an event of request ``key``."""
        record = await self.store.active_game_in_channel(channel_id)
        return record is not None and any(e.request_key == key for e in await self.store.events(record.id))

    replace_seat = in_channel_worker(ServiceFace.replace_seat)
    import_site_game = in_channel_worker(ServiceFace.import_site_game)
    start_local_game = in_channel_worker(ServiceFace.start_local_game)
    channel_deleted = in_channel_worker(ServiceFace.channel_deleted)
    deciding_account = in_channel_worker(ServiceFace.deciding_account)
    typing_account = in_channel_worker(ServiceFace.typing_account)
    called_company = in_channel_worker(ServiceFace.called_company)
    computer_moves = in_channel_worker(ServiceFace.computer_moves)
    suggestions = in_channel_worker(ServiceFace.suggestions)
    status = in_game_worker(ServiceFace.status)
    set_status_message = in_game_worker(ServiceFace.set_status_message)

    async def requesting_account(self, channel_id: str) -> Account | None:
        return await self.front.requesting_account(channel_id)

    async def seat_account(self, channel_id: str, words: list[str]) -> tuple[Account, int]:
        return await self.front.seat_account(channel_id, words)

    async def seat_names(self, channel_id: str) -> list[str]:
        return await self.front.seat_names(channel_id)

    async def flush(self, deliver: Callable[[Post], Awaitable[Any]], **kwargs: Any) -> set[int]:
        """:meth:`TroikaService.flush` from this process, each post's pictures drawn in
        its game's worker."""
        return await self.front.flush(deliver, **kwargs)

    async def drawn(self) -> None:
        """:meth:`TroikaService.drawn`: the pictures sent for attaching so far are attached."""
        await self.front.drawn()

    async def post_pictures(self, message: OutboxMessage) -> list[Picture]:
        """The post's pictures, drawn in its game's worker."""
        pictures: list[Picture] = await self.call(await self.game_channel(message.game_id), "post_pictures",
                                                  message)
        if not all(isinstance(p, Picture) for p in pictures):
            raise WorkerStopped("a worker sent pictures that are not pictures")
        return pictures

    async def send_reminders(self, now: datetime | None = None) -> None:
        """Each worker reminds the players of its channels' games and applies their time-outs,
        at this process's time (``now``, else its clock)."""
        now = now or self.front.clock()
        by_worker: dict[int, set[int]] = {}
        for record in await self.store.list_games([GameStatus.RUNNING]):
            channel = record.channel_id or f"game {record.id}"
            by_worker.setdefault(self.worker_of(channel), set()).add(record.id)
        await asyncio.gather(*(self._call_worker(i, "send_reminders", games, now) for i, games in by_worker.items()))

    async def verify_running_games(self, *, other_versions_only: bool = False) -> list[ReplayProblem]:
        """:meth:`GameRepository.verify_running_games` in the least loaded worker (its
        replays beside that worker's games, each replayed game then cached there)."""
        counts = self.channels_pinned()
        index = counts.index(min(counts))
        self._everywhere.add(index)
        try:
            problems: list[ReplayProblem] = await self._call_worker(  # replays every running game: no time limit
                index, "verify_running_games", unlimited=True, other_versions_only=other_versions_only
            )
        finally:
            self._everywhere.discard(index)
        return problems


@asynccontextmanager
async def open_service(
    location: str | Path, *, workers: int | None = None, **settings: Any
) -> AsyncIterator[TroikaService | ServicePool]:
    """The service over the database at ``location``: in ``workers`` worker processes
    (by default :func:`default_workers`), or in this process with ``workers=0``.
    ``settings`` are :class:`TroikaService`'s (shard, owner, timestamps, pictures, archive_after)."""
    async with store_at(location) as store:
        if workers == 0:
            yield TroikaService(store, **settings)
            return
        async with ServicePool(store, workers=workers, **settings) as pool:
            yield pool


def main() -> None:
    """``python -m bot.workers FD``: a worker, talking to the bot over socket ``FD``. It
    ignores Ctrl-C (the bot stops it by hanging up) and ends when the bot's process does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s worker %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(int(sys.argv[1])))


if __name__ == "__main__":
    from bot.workers import main as worker_main  # the module's one copy, not __main__'s

    worker_main()
