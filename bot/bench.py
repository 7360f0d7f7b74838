"""``troika bench``: how fast Troika replays, stores, draws, finds routes and answers.

Everything runs on the shared real games (``shared/games/1861-*.json``): the replay
against the trace, the route finder at every logged run and for a national railway with
many trains on a finished map, random self-play of both titles, the event store with
the real engine (on SQLite, and on a throwaway PostgreSQL server where one can run), the
pictures of a finished game, and the time from a command's arrival at the service (its
engine work in worker processes, as the bot runs it) to its reply and to its posts'
pictures being ready (Discord's network excluded).
"""

from __future__ import annotations

import asyncio
import copy
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from engine import (
    SELFPLAY_SETUPS,
    Action,
    Company,
    Context,
    Game,
    GameState,
    LayTile,
    RunRoutes,
    Train,
    actions_of,
    best_routes,
    check_logged_routes,
    decide_counted,
    play_many,
    read_log,
    replay,
)
from render.bench import bench_render, bench_tiles
from storage import TroikaEngine
from storage.bench import bench_store
from storage.pg_temp import PostgresServer, Unavailable

from .bench_scale import bench_scale
from .console import CHANNEL
from .posts import Picture
from .service import Post
from .track_help import sheet_candidates
from .transcript import log_commands
from .web.bench import web_latency
from .workers import ServicePool, open_service

SCRIPTED_COMMANDS = 150
"""Commands of the first shared game timed through the console layer."""


def run_bench(shared: Path) -> dict[str, Any]:
    """One JSON-able object with every figure."""
    paths = sorted((shared / "games").glob("1861-*.json")) + sorted((shared / "games").glob("1867-*.json"))
    if not paths or not paths[0].stem.startswith("1861") or not paths[-1].stem.startswith("1867"):
        raise FileNotFoundError(f"no shared games of both titles in {shared / 'games'}")
    logs = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in paths}
    first = logs[paths[0].stem]
    canada = logs[paths[-1].stem]
    finished = replay(first, None).game
    finished_1867 = replay(canada, None).game
    load_before, cpu_before = os.getloadavg(), time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        figures = {
            "replay": {stem: _replay(log, _trace(path)) for (stem, log), path in zip(logs.items(), paths)},
            "replay_process": _replay_process(paths[0]),
            "routes": {stem: _routes(log) for stem, log in logs.items()},
            "routes_national": _national(finished, shared),
            "selfplay_s_per_game": {title: _selfplay(title) for title in ("1861", "1867")},
            "computer": {stem: _computer(logs[stem]) for stem in (paths[0].stem, paths[-1].stem)},
            "store": _store(first, Path(tmp)),
            "render": bench_render(finished.ctx, finished.state),
            "render_1867": bench_render(finished_1867.ctx, finished_1867.state),
            "render_tiles_1867": _tile_sheet(canada, "L12"),
            "command": asyncio.run(command_latency(first, Path(tmp))),
            "command_1867": asyncio.run(command_latency(canada, Path(tmp))),
            "web": asyncio.run(web_latency(first, Path(tmp))),
            **bench_scale(first, troika_log(first), Path(tmp)),  # startup, concurrent, memory
        }
    return {"machine": _machine(load_before, cpu_before), **figures}


def _machine(load_before: tuple[float, float, float], cpu_before: float) -> dict[str, Any]:
    """The load the figures ran under: other work on the machine slows every figure, so a
    run is compared with another only at a like load (1, 5 and 15 minute load averages)."""
    return {
        "cores": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "bench_cpu_s": round(time.process_time() - cpu_before, 1),
    }


def _tile_sheet(log: dict[str, Any], hex_id: str) -> dict[str, float]:
    """The tile sheet (``tiles HEX``) of the first green upgrade of ``hex_id`` in the
    game ``log`` (Montreal's: the most lays one hex offers in the shared games)."""
    found: list[Game] = []

    def before(game: Game, action: Action) -> None:
        if not found and isinstance(action, LayTile) and action.hex == hex_id \
                and game.ctx.board.tiles[action.tile].color == "green":
            found.append(copy.deepcopy(game))

    replay(log, None, before=before)
    game = found[0]
    return bench_tiles(game.ctx, game.state, hex_id, sheet_candidates(game, hex_id))


def _trace(path: Path) -> list[dict[str, Any]] | None:
    trace = path.with_suffix(".trace.jsonl")
    if not trace.exists():
        return None
    lines = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [line for line in lines if "header" not in line]


def _replay(log: dict[str, Any], trace: list[dict[str, Any]] | None) -> dict[str, Any]:
    started = time.perf_counter()
    report = replay(log, trace).report
    total = (time.perf_counter() - started) * 1000
    return {
        "actions": report.applied,
        "total_ms": round(total, 1),
        "per_action_ms": round(total / max(report.applied, 1), 3),
        "trace_matched": f"{report.matched}/{report.compared}",
        "result_ok": report.ok,
    }


REPLAY_RUNS = 5
"""Times the whole ``troika replay`` process runs for its figure (the median counts)."""


def _replay_process(path: Path) -> dict[str, Any]:
    """CPU seconds of a whole ``troika replay`` process on the game at ``path``: the
    interpreter's start, the imports, reading the log and the replay (the median of
    :data:`REPLAY_RUNS` runs, user and system time, as ``/usr/bin/time`` counts it).
    It runs the ``troika`` script beside this Python, as a player types it (``python -m``
    would add runpy's imports), or ``-m bot.cli`` where there is none."""
    script = Path(sys.executable).with_name("troika")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "bot.cli"]
    times = []
    for _ in range(REPLAY_RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([*command, "replay", str(path)], check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {
        "game": path.stem,
        "command": " ".join(["troika" if script.exists() else "python -m bot.cli", "replay", path.name]),
        "cpu_s": round(statistics.median(times), 3),
        "cpu_s_each": sorted(round(t, 3) for t in times),
        "runs": REPLAY_RUNS,
    }


def _routes(log: dict[str, Any]) -> dict[str, Any]:
    summary = check_logged_routes(log)
    return {k: summary[k] for k in ("checked", "better", "equal", "worse", "max_ms", "p95_ms")}


NATIONAL_TRAINS = (("4", "4", "5", "5"), ("4", "4", "4", "5", "5", "6", "6"))
"""Trains given to the RSR on a finished map, its eight tokens placed: the heaviest
route searches a national railway can meet (it runs in phases 4 to 7)."""


WORST_NATIONALS = (
    ("generated/1861-gen-P6-column-S4010.json.gz", 1168),
    ("generated/1861-gen-P4-column-S4018.json.gz", 767),
)
"""The slowest national runs met in play (game, the logged run's action id): of every
RSR run in the shared 1861 games and in self-play, the one whose best routes take
longest to find (S4010: phase 7, trains 4, 6, 7, by the search over trains), and the
one that took longest before the integer program's hex-border rows (S4018: phase 7,
trains 4, 5, 5, 6, 7)."""


def _national(game: Game, shared: Path) -> dict[str, Any]:
    state = copy.deepcopy(game.state)  # the trains given are the bench's own
    rsr = state.companies["RSR"]
    figures: dict[str, Any] = {}
    for names in NATIONAL_TRAINS:
        rsr.trains = [Train(f"{name}-{i}", name) for i, name in enumerate(names)]
        figures[",".join(names)] = _timed_national(game.ctx, state, rsr)
    for path, action_id in WORST_NATIONALS:
        ctx, worst, company = _national_run(shared / "games" / path, action_id)
        trains = ",".join(sorted(t.name for t in company.trains))
        name = f"worst: {Path(path).name.split('.')[0]} phase {worst.phase} {trains}"
        figures[name] = _timed_national(ctx, worst, company)
    return figures


def _timed_national(ctx: Context, state: GameState, company: Company) -> dict[str, Any]:
    started, cpu = time.perf_counter(), time.process_time()
    revenue = sum(r.revenue for r in best_routes(ctx, state, company, remember=False))
    return {
        "ms": round((time.perf_counter() - started) * 1000, 1),
        "cpu_ms": round((time.process_time() - cpu) * 1000, 1),
        "revenue": revenue,
    }


def _national_run(path: Path, action_id: int) -> tuple[Context, GameState, Company]:
    """The position of a logged game just before its national railway's run at
    ``action_id``."""
    log = json.loads(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes())
    game, logged = read_log(log)
    for entry in logged:
        for action in actions_of(lambda: game.state, entry):
            company = game.state.companies.get(action.entity)
            if entry.id == action_id and isinstance(action, RunRoutes) and company and company.is_national:
                return game.ctx, game.state, company
            game.apply(action, check=False)
    raise FileNotFoundError(f"{path} has no national run at action {action_id}")


def _selfplay(title: str) -> float:
    """CPU seconds a random game takes, over one game of each player count and market."""
    started = time.process_time()
    play_many(len(SELFPLAY_SETUPS), 0, title)
    return round((time.process_time() - started) / len(SELFPLAY_SETUPS), 3)


COMPUTER_EVERY = 10
"""The computer player decides at every this many actions of a real game, for its figure."""


def _computer(log: dict[str, Any]) -> dict[str, Any]:
    """Milliseconds the computer player takes to decide (:func:`engine.computer.decide`)
    for whoever is to act, at every :data:`COMPUTER_EVERY`-th position of a real game,
    and the route-search steps it spent (counts: the same on every machine)."""
    timings: list[float] = []
    steps: list[int] = []
    seen = [0]

    def decide(game: Game, action: Action) -> None:
        seen[0] += 1
        if seen[0] % COMPUTER_EVERY:
            return
        started = time.perf_counter()
        _, spent = decide_counted(game)
        timings.append((time.perf_counter() - started) * 1000)
        steps.append(spent)

    replay(log, None, before=decide)
    timings.sort()
    return {"decisions": len(timings), "p50_ms": round(timings[len(timings) // 2], 1),
            "p95_ms": round(timings[int(0.95 * len(timings))], 1), "max_ms": round(timings[-1], 1),
            "max_steps": max(steps)}


def _store(log: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """The store's figures on SQLite, and on PostgreSQL where a throwaway server can run
    here (with its default durability, like SQLite's: each append is on disk)."""
    played = troika_log(log)
    figures: dict[str, Any] = {"sqlite": _rounded(asyncio.run(bench_store(tmp, TroikaEngine(), played)))}
    try:
        server = PostgresServer(durable=True)
        server.start()
    except Unavailable as exc:
        figures["postgres"] = {"skipped": str(exc)}
        return figures
    try:
        url = server.new_database()
        figures["postgres"] = _rounded(asyncio.run(bench_store(tmp, TroikaEngine(), played, location=url)))
    finally:
        server.stop()
    return figures


def _rounded(figures: dict[str, float]) -> dict[str, float]:
    return {name: round(value, 2) for name, value in figures.items()}


def troika_log(log: dict[str, Any]) -> dict[str, Any]:
    """An 18xx.games log in the store's export format, with Troika's actions."""
    game, logged = read_log(log)
    actions: list[dict[str, Any]] = []
    for entry in logged:
        for action in actions_of(lambda: game.state, entry):
            actions.append({"id": len(actions) + 1, **action.to_dict()})
            game.apply(action, check=False)
    options = game.ctx.rules.to_dict() | {"first_player": 0}
    return {
        "title": str(log.get("title", "1861")),
        "players": [{"id": str(p["id"]), "name": p["name"]} for p in log["players"]],
        "settings": {"seed": int(log["settings"].get("seed") or 0), "options": options},
        "actions": actions,
    }


async def command_latency(
    log: dict[str, Any], tmp: Path, count: int = SCRIPTED_COMMANDS, *, workers: int | None = None
) -> dict[str, Any]:
    """Milliseconds from a command's arrival, through the worker pool as the bot runs it
    (``workers``; 0: in this process), to its reply (``reply_*``: its post's text sent, or its direct answer)
    and to its posts' pictures attached too (``p50_ms``, ``p95_ms``, ``max_ms``)."""
    rules = read_log(log)[0].ctx.rules
    title = str(log.get("title", "1861"))
    players = [(str(p["id"]), str(p["name"])) for p in log["players"]]
    texts: list[float] = []

    async def deliver(post: Post) -> None:
        texts.append(time.perf_counter())

    async def attach(sent: None, post: Post, pictures: list[Picture]) -> None:
        """The pictures reach the channel (Discord's network excluded)."""

    async with open_service(tmp / f"latency-{title}.sqlite3", workers=workers) as service:
        await service.start_local_game(CHANNEL, players, rules=rules, first_player=0,
                                       seed=int(log["settings"].get("seed") or 0), title=title)
        await service.flush(deliver, attach=attach)
        await service.drawn()
        timings, replies = [], []
        for (name, command), _ in zip(log_commands(log), range(count)):
            texts.clear()
            started = time.perf_counter()
            account, _ = await service.seat_account(CHANNEL, name.split())
            await service.handle(CHANNEL, account, command)
            await service.flush(deliver, attach=attach)
            replied = texts[0] if texts else time.perf_counter()
            await service.drawn()
            timings.append((time.perf_counter() - started) * 1000)
            replies.append((replied - started) * 1000)
    return {
        "workers": len(service.channels_pinned()) if isinstance(service, ServicePool) else 0,
        "commands": len(timings),
        "p50_ms": round(statistics.median(timings), 1),
        "p95_ms": round(statistics.quantiles(timings, n=20)[-1], 1),
        "max_ms": round(max(timings), 1),
        "reply_p50_ms": round(statistics.median(replies), 1),
        "reply_p95_ms": round(statistics.quantiles(replies, n=20)[-1], 1),
    }
