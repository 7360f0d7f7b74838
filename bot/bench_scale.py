"""``troika bench`` at scale: start-up with many stored games, many games played at
once beside a heavy route solve, and the memory a live game holds.

The stored games are copies of one real game's log (its events written again under
new ids), so each is a long running game the bot has never loaded.
"""

from __future__ import annotations

import asyncio
import copy
import random
import statistics
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine import Company, Context, GameState, Train, best_routes, read_log, replay
from storage import GameRepository, GameStatus, NewEvent, NewGame, SqliteEventStore, TroikaEngine

from .service import Account, TroikaService
from .transcript import log_commands
from .workers import ServicePool, default_workers, open_service

STARTUP_GAMES = 10_000
"""Running games stored before the bot starts."""
CONCURRENT_GAMES = 50
CONCURRENT_COMMANDS = 20
"""Commands each of the concurrent games plays (the log's first ones)."""
TYPING_S = (1.0, 3.0)
"""A typist's pause between a reply and their next command, drawn from this range."""
MEMORY_GAMES = 40
"""Games loaded to measure the memory one live game holds."""
SEVEN_TRAINS = ("4", "4", "4", "5", "5", "6", "6")


def bench_scale(
    log: dict[str, Any], troika_log: dict[str, Any], tmp: Path, *, games: int = STARTUP_GAMES,
    workers: int | None = None,
) -> dict[str, Any]:
    """The figures ``startup`` (with ``games`` stored), ``concurrent`` (the service in
    ``workers`` worker processes, as the bot runs it) and ``memory_per_game_kib``: ``log``
    is an 18xx.games log, ``troika_log`` the same in the store's format."""
    db = tmp / "startup.sqlite3"
    stored = asyncio.run(_store_copies(db, troika_log, games))
    return {
        "startup": asyncio.run(_startup(db, stored)),
        "memory_per_game_kib": asyncio.run(_memory_per_game(db, stored)),
        "concurrent": {
            "workers": workers or default_workers(),
            "typed": asyncio.run(_concurrent(log, tmp / "typed.sqlite3", TYPING_S, workers)),
            "flood": asyncio.run(_concurrent(log, tmp / "flood.sqlite3", (0.0, 0.0), workers)),
        },
    }


async def _store_copies(db: Path, troika_log: dict[str, Any], count: int) -> dict[str, Any]:
    """Store ``count`` running copies of the game; how long that took and their ids."""
    started = time.perf_counter()
    async with SqliteEventStore(db) as store:
        repo = GameRepository(store, TroikaEngine())
        first = await repo.import_game(troika_log, "bench", channel_id="bench-0")
        events = [NewEvent(e.action, e.kind, e.actor, e.note, e.state_hash, e.created_at)
                  for e in await store.events(first.id)]
        ids = [first.id]
        for n in range(1, count):
            copy_ = NewGame(first.title, first.options, first.seed, "bench", first.engine_version, first.seats,
                            None, f"bench-{n}", GameStatus.RUNNING)
            ids.append((await store.create_game(copy_, events)).id)
    return {"ids": ids, "events": len(events), "seconds": time.perf_counter() - started}


async def _startup(db: Path, stored: dict[str, Any]) -> dict[str, Any]:
    """Seconds from opening the store to the reply to a player's first command (a game
    never loaded: a full replay, which leaves a snapshot), then the reply in a second
    such game, and in the first game again after a restart (from its snapshot)."""
    ids = stored["ids"]
    started = time.perf_counter()
    async with SqliteEventStore(db) as store:
        service = TroikaService(store, pictures=False)
        first_reply = await _first_reply(service, len(ids) // 2, started)
        another = await _first_reply(service, len(ids) - 1, time.perf_counter())
    started = time.perf_counter()
    async with SqliteEventStore(db) as store:
        from_snapshot = await _first_reply(TroikaService(store, pictures=False), len(ids) // 2, started)
    return {
        "games": len(ids),
        "events_per_game": stored["events"],
        "first_reply_s": round(first_reply, 3),
        "next_cold_game_ms": round(another * 1000, 1),
        "first_reply_after_restart_s": round(from_snapshot, 3),
        "generate_s": round(stored["seconds"], 1),
    }


async def _first_reply(service: TroikaService, copy_number: int, started: float) -> float:
    """Seconds since ``started`` once the copy's channel has answered ``status``."""
    reply = await service.handle(f"bench-{copy_number}", Account("bench", "bench"), "status")
    if not reply.text:
        raise RuntimeError(f"copy {copy_number} gave no status")
    return time.perf_counter() - started


async def _memory_per_game(db: Path, stored: dict[str, Any]) -> float:
    """KiB of Python objects one more live (loaded, cached) game holds, over
    :data:`MEMORY_GAMES` games; the board, shared by all games of a title, is loaded first."""
    async with SqliteEventStore(db) as store:
        repo = GameRepository(store, TroikaEngine(), cache_size=MEMORY_GAMES)
        await repo.load(stored["ids"][0])
        with _tracing():
            before = tracemalloc.get_traced_memory()[0]
            live = [await repo.load(game_id) for game_id in stored["ids"][1:MEMORY_GAMES + 1]]
            held = tracemalloc.get_traced_memory()[0] - before
    if len(live) != MEMORY_GAMES:
        raise RuntimeError("not enough stored games to measure memory")
    return round(held / MEMORY_GAMES / 1024, 1)


@contextmanager
def _tracing() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


async def _concurrent(
    log: dict[str, Any], db: Path, pause_s: tuple[float, float], workers: int | None
) -> dict[str, Any]:
    """Milliseconds from a command's arrival to its reply (event and post stored, the
    post's pictures not drawn) with :data:`CONCURRENT_GAMES` games played at once, each
    by a typist pausing ``pause_s`` seconds (at random, seeded) between commands, while the
    national railway's seven-train solve runs over and over as another game's engine call
    (in that game's worker). With no pause (a flood) every game always has a command waiting."""
    rules = read_log(log)[0].ctx.rules
    players = [(str(p["id"]), str(p["name"])) for p in log["players"]]
    commissioner = Account(*players[0])
    commands = [c for c, _ in zip(log_commands(log), range(CONCURRENT_COMMANDS), strict=False)]
    async with open_service(db, workers=workers, pictures=False) as service:
        for n in range(CONCURRENT_GAMES):
            await service.start_local_game(f"play-{n}", players, rules=rules, first_player=0,
                                           seed=int(log["settings"].get("seed") or 0))
        timings: list[float] = []

        async def play(n: int) -> None:
            typist = random.Random(n)
            for name, command in commands:
                await asyncio.sleep(typist.uniform(*pause_s))
                started = time.perf_counter()
                await service.handle(f"play-{n}", commissioner, f"as {name} {command}")
                timings.append((time.perf_counter() - started) * 1000)

        solves: list[float] = []
        done = asyncio.Event()
        await _national_solve(service, log)  # the national railway's game is loaded before the clock starts
        solver = asyncio.create_task(_solve_until(service, log, done, solves))
        started = time.perf_counter()
        await asyncio.gather(*(play(n) for n in range(CONCURRENT_GAMES)))
        elapsed = time.perf_counter() - started
        done.set()
        await solver
    return {
        "games": CONCURRENT_GAMES,
        "commands": len(timings),
        "commands_per_s": round(len(timings) / elapsed, 1),
        "p50_ms": round(statistics.median(timings), 1),
        "p95_ms": round(statistics.quantiles(timings, n=20)[-1], 1),
        "max_ms": round(max(timings), 1),
        "national_solves": len(solves),
        "national_solve_ms": round(statistics.median(solves), 1) if solves else None,
    }


async def _solve_until(
    service: TroikaService | ServicePool, log: dict[str, Any], done: asyncio.Event, seconds: list[float]
) -> None:
    """The RSR's seven-train solve on the log's finished map, as an engine call of the
    national railway's own game, again and again until ``done``."""
    while not done.is_set():
        started = time.perf_counter()
        await _national_solve(service, log)
        seconds.append((time.perf_counter() - started) * 1000)


async def _national_solve(service: TroikaService | ServicePool, log: dict[str, Any]) -> int:
    if isinstance(service, ServicePool):
        revenue: int = await service.run(NATIONAL_CHANNEL, seven_train_solve, log)
        return revenue
    return await asyncio.to_thread(seven_train_solve, log)


NATIONAL_CHANNEL = "national"
"""The channel of the game whose national railway runs the heavy solve."""

_FINISHED: dict[str, tuple[Context, GameState, Company]] = {}


def seven_train_solve(log: dict[str, Any]) -> int:
    """The revenue of the RSR's best routes with seven big trains on the map the log
    ends with (the position is built once per process)."""
    key = str(log.get("id"))
    if key not in _FINISHED:
        game = replay(log, None).game
        state = copy.deepcopy(game.state)
        rsr = state.companies["RSR"]
        rsr.trains = [Train(f"{name}-{i}", name) for i, name in enumerate(SEVEN_TRAINS)]
        _FINISHED[key] = (game.ctx, state, rsr)
    ctx, state, rsr = _FINISHED[key]
    return sum(r.revenue for r in best_routes(ctx, state, rsr, remember=False))
