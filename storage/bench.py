"""Storage benchmark: what a command pays to append an action and to load a game, on
SQLite or PostgreSQL."""

from __future__ import annotations

import statistics
from pathlib import Path
from time import perf_counter
from typing import Any

from .copy import store_at
from .fake_engine import FakeEngine, fake_log
from .gamelog import parse_log
from .repository import EngineAdapter, GameRepository
from .store import EventKind, NewEvent


async def bench_store(
    tmpdir: str | Path,
    adapter: EngineAdapter | None = None,
    log: dict[str, Any] | None = None,
    *,
    location: str | None = None,
    cold_loads: int = 5,
    warm_loads: int = 200,
) -> dict[str, float]:
    """Play ``log`` (default: 700 actions of :class:`FakeEngine`'s points game) into a
    fresh store (a SQLite file in ``tmpdir``, or the empty database at ``location``)
    through :class:`GameRepository`, timing every append (engine step, state hash and
    durable commit); then time loads of the result, cold (new repository: read and
    replay the whole log) and warm (from the cache).

    ``log`` is in the export format and may hold actions, undo and redo. Medians except
    ``append_p95_ms``."""
    engine = adapter or FakeEngine()
    parsed = parse_log(log or fake_log(700))
    async with store_at(location or Path(tmpdir) / "bench.sqlite3") as store:
        repo = GameRepository(store, engine)
        record = await repo.create_game(
            parsed.title, parsed.options, parsed.seed, parsed.seats, "bench"
        )
        seq = (await repo.start_game(record.id)).seq
        append_ms = []
        for event in parsed.events:
            started = perf_counter()
            seq = await _play(repo, record.id, seq, event)
            append_ms.append(_ms_since(started))
        cold_ms = []
        for _ in range(cold_loads):
            started = perf_counter()
            await GameRepository(store, engine).load(record.id)
            cold_ms.append(_ms_since(started))
        warm_ms = []
        for _ in range(warm_loads):
            started = perf_counter()
            await repo.load(record.id)
            warm_ms.append(_ms_since(started))
    return {
        "append_p50_ms": statistics.median(append_ms),
        "append_p95_ms": statistics.quantiles(append_ms, n=20)[-1],
        "load_cold_ms": statistics.median(cold_ms),
        "load_warm_ms": statistics.median(warm_ms),
    }


async def _play(repo: GameRepository, game_id: int, seq: int, event: NewEvent) -> int:
    """Append one logged event as a player would; returns the game's new sequence number."""
    if event.kind is EventKind.ACTION:
        return (await repo.act(game_id, seq, event.action, event.actor)).live.seq
    if event.kind is EventKind.UNDO:
        target = event.action.get("action_id")
        return (await repo.undo(game_id, seq, event.actor, action_id=target)).seq
    if event.kind is EventKind.REDO:
        return (await repo.redo(game_id, seq, event.actor)).seq
    raise ValueError(f"the benchmark plays actions, undo and redo, not {event.kind} events")


def _ms_since(started: float) -> float:
    return (perf_counter() - started) * 1000
