"""Many writers on one store, SQLite file or PostgreSQL database: asyncio tasks,
processes, and processes killed with SIGKILL mid-append. The log must stay gap-free with
every action exactly once, and nothing acknowledged may be lost."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import signal
import sqlite3
import time
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest

from storage.copy import store_at
from storage.fake_engine import FakeEngine
from storage.repository import GameRepository
from storage.sqlite import SqliteEventStore
from storage.store import AppendConflict, Event, EventStore, GameStatus, NewEvent, NewGame, Seat

SPAWN = multiprocessing.get_context("spawn")  # children start clean: no inherited threads


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the store is: a SQLite file, or a fresh database on the session's PostgreSQL."""
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return str(tmp_path / "games.db")


def opened(location: str) -> EventStore:
    return store_at(location)


async def new_game(location: str) -> int:
    async with opened(location) as store:
        game = await store.create_game(NewGame(
            "points", {}, 1, "tester", 1, [Seat(0, "p1", "Anna"), Seat(1, "p2", "Boris")],
            status=GameStatus.RUNNING,
        ))
    return game.id


def token_action(token: str, **extra: Any) -> dict[str, Any]:
    return {"type": "score", "entity": "p1", "points": 1, "token": token, **extra}


async def read_log(location: str, game_id: int) -> tuple[list[Event], dict[str, Any]]:
    """The game's events and its state replayed by a fresh repository."""
    async with opened(location) as store:
        live = await GameRepository(store, FakeEngine()).load(game_id)
        return await store.events(game_id), FakeEngine().dump(live.game)


def assert_exactly_once(events: list[Event], state: dict[str, Any], tokens: set[str]) -> None:
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    logged = [e.action["token"] for e in events]
    assert sorted(logged) == sorted(tokens)  # every action once, none twice
    assert state["tokens"] == logged and state["scores"]["p1"] == len(tokens)


async def test_tasks_on_separate_connections(location: str) -> None:
    game_id = await new_game(location)
    stores = [opened(location) for _ in range(8)]
    for store in stores:
        await store.open()

    async def writer(store: EventStore, name: int) -> list[str]:
        refusals, done = [], 0
        while done < 15:
            seq = await store.last_seq(game_id)
            try:
                await store.append(game_id, seq, NewEvent(token_action(f"{name}-{done}")))
                done += 1
            except AppendConflict as conflict:
                refusals.append(str(conflict))
        return refusals

    try:
        refusals = await asyncio.gather(*(writer(s, n) for n, s in enumerate(stores)))
    finally:
        for store in stores:
            await store.close()
    events, state = await read_log(location, game_id)
    assert_exactly_once(events, state, {f"{n}-{i}" for n in range(8) for i in range(15)})
    losses = [message for per_task in refusals for message in per_task]
    assert losses and all("has moved on" in m and "retry" in m for m in losses)


@pytest.mark.slow
async def test_tasks_through_one_repository(location: str) -> None:
    game_id = await new_game(location)
    async with opened(location) as store:
        repo = GameRepository(store, FakeEngine())

        async def player(name: int) -> int:
            conflicts = done = 0
            while done < 10:
                live = await repo.load(game_id)
                await asyncio.sleep(0)  # others get a turn between looking and acting
                try:
                    await repo.act(game_id, live.seq, token_action(f"{name}-{done}"), f"u{name}")
                    done += 1
                except AppendConflict:
                    conflicts += 1
            return conflicts

        conflicts = await asyncio.gather(*(player(n) for n in range(20)))
        live = await repo.load(game_id)
    events, state = await read_log(location, game_id)
    assert_exactly_once(events, state, {f"{n}-{i}" for n in range(20) for i in range(10)})
    assert sum(conflicts) > 0
    assert FakeEngine().dump(live.game) == state


def _repository_worker(
    location: str, game_id: int, name: int, count: int, start: Barrier, report: str
) -> None:
    """Child process: act ``count`` times through its own repository, retrying conflicts;
    write each refusal's message to ``report``."""

    async def run() -> list[str]:
        refusals = []
        async with opened(location) as store:
            repo = GameRepository(store, FakeEngine())
            done = 0
            while done < count:
                live = await repo.load(game_id)
                try:
                    await repo.act(game_id, live.seq, token_action(f"{name}-{done}"), str(name))
                    done += 1
                except AppendConflict as conflict:
                    refusals.append(str(conflict))
        return refusals

    start.wait()
    Path(report).write_text("".join(f"{m}\n" for m in asyncio.run(run())))


@pytest.mark.slow
def test_processes_appending_to_one_game(location: str, tmp_path: Path) -> None:
    game_id = asyncio.run(new_game(location))
    workers, count = 4, 40
    start = SPAWN.Barrier(workers)
    reports = [tmp_path / f"refusals-{n}.txt" for n in range(workers)]
    children = [SPAWN.Process(target=_repository_worker,
                              args=(location, game_id, n, count, start, str(reports[n])))
                for n in range(workers)]
    for child in children:
        child.start()
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    refusals = [line for report in reports for line in report.read_text().splitlines()]
    assert refusals and all("has moved on" in m and "retry" in m for m in refusals)
    events, state = asyncio.run(read_log(location, game_id))
    assert_exactly_once(events, state, {f"{n}-{i}" for n in range(workers) for i in range(count)})
    assert len({e.actor for e in events}) == workers


def _append_until_killed(location: str, game_id: int, acks_path: str, run: int) -> None:
    """Child process: append batches of 1-3 events forever; after each commit returns,
    write the acknowledged sequence number to ``acks_path``."""

    async def forever() -> None:
        acks = os.open(acks_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        async with opened(location) as store:
            seq = await store.last_seq(game_id)
            for batch in range(10**9):
                size = 1 + batch % 3
                label = f"r{run}b{batch}"
                written = await store.append_many(game_id, seq, [
                    NewEvent(token_action(f"{label}-{i}", batch=label, size=size))
                    for i in range(size)
                ])
                seq = written[-1].seq
                os.write(acks, f"{seq}\n".encode())

    asyncio.run(forever())


def _acknowledged(acks_path: Path) -> list[int]:
    return [int(line) for line in acks_path.read_text().split()] if acks_path.exists() else []


@pytest.mark.slow
def test_sigkill_loses_no_acknowledged_append(location: str, tmp_path: Path) -> None:
    acks_path = tmp_path / "acks.txt"
    game_id = asyncio.run(new_game(location))
    rng = random.Random(1861)
    for run in range(8):
        before = len(_acknowledged(acks_path))
        child = SPAWN.Process(target=_append_until_killed,
                              args=(location, game_id, str(acks_path), run))
        child.start()
        deadline = time.monotonic() + 30
        while len(_acknowledged(acks_path)) <= before:
            assert child.is_alive() and time.monotonic() < deadline, "the child never appended"
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.05))
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join()
        assert child.exitcode == -signal.SIGKILL

        if not location.startswith("postgresql:"):
            with sqlite3.connect(location) as check:
                assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        events, state = asyncio.run(read_log(location, game_id))
        assert set(_acknowledged(acks_path)) <= {e.seq for e in events}
        assert_exactly_once(events, state, {e.action["token"] for e in events})
        batches: dict[str, list[Event]] = {}
        for event in events:
            batches.setdefault(event.action["batch"], []).append(event)
        assert all(len(b) == b[0].action["size"] for b in batches.values()), "a torn batch"


async def test_online_backup_while_another_connection_writes(tmp_path: Path) -> None:
    db_path = tmp_path / "live.db"
    game_id = await new_game(str(db_path))
    async with SqliteEventStore(db_path) as writer, SqliteEventStore(db_path) as backer:

        first_written = asyncio.Event()

        async def write() -> None:
            for seq in range(300):
                await writer.append(game_id, seq, NewEvent(token_action(f"t{seq}")))
                first_written.set()

        writing = asyncio.create_task(write())
        await first_written.wait()  # the backup starts while the writer is under way, however busy the machine
        await backer.backup(tmp_path / "copy.db")
        await writing
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    async with SqliteEventStore(tmp_path / "copy.db") as copied:
        seqs = [e.seq for e in await copied.events(game_id)]
    assert seqs == list(range(1, len(seqs) + 1)) and 0 < len(seqs) <= 300
