"""Chaos: games played at once from two processes, rows corrupted, a writer killed again
and again with SIGKILL (issues 15 and 26), and a disk that fills up under the bot.

Three copies of the real game 1861-29683 and a fourth, the victim, are played command by
command by two worker processes that race for the same games; each command carries a
request key (``channel#index``), as a Discord message carries its id. Mixed in are
commands from someone without a seat. Part way through, rows are damaged the ways the
reliability probe of 2026-12-01 found (N2, N3): the victim's log (a 5,000-digit number)
and posts (not JSON, nested 100,000 deep, a time that is not one), a fifth game's
options, a post of a game deleted by hand, and later the healthy games' snapshots. The
parent kills a worker with SIGKILL every second or two and starts another. Posts go to
a fake Discord channel that, like Discord, drops a message whose nonce it has already seen.

Afterwards: every acknowledged command is in the log once and in order; each healthy
game replays to the state a sequential run reaches; every post was delivered once; the
damaged games' channels can be cleared and reused. The figures are printed (``pytest -s``).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import time
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

from bot.errors import Refusal
from bot.service import Account, Post, TroikaService
from bot.transcript import log_commands
from engine.importer import read_log
from storage import SqliteEventStore, StoreError
from tests.conftest import shared_game
from tests.test_bot_service import start_shared

pytestmark = pytest.mark.slow  # whole games and benchmarks: seconds each

SPAWN = multiprocessing.get_context("spawn")
HEALTHY = ["g1", "g2", "g3"]
VICTIM = "victim"
BROKEN_SETUP = "broken-setup"
"""A fifth game, not played: its options are damaged."""
COMMANDS = 120
"""Commands of the real game each healthy game plays."""
MALLORY = Account("666", "Mallory")
KILLS = 6
"""At least this many SIGKILLs before the run may end."""
TIME_LIMIT = 180.0


def script() -> tuple[list[tuple[Account, str]], dict[str, Any]]:
    """The first commands of 1861-29683, each with the account that types it, and the log."""
    log, _ = shared_game("1861-29683")
    accounts = {p["name"]: Account(str(p["id"]), p["name"]) for p in log["players"]}
    return [(accounts[name], command) for name, command in islice(log_commands(log), COMMANDS + 40)], log


def done_upto(db: sqlite3.Connection, game_id: int) -> int:
    """How many of the script's commands the game has taken (by their request keys)."""
    keys = [row[0] for row in db.execute(
        "SELECT request_key FROM events WHERE game_id = ? AND request_key LIKE '%#%'", (game_id,))]
    return 1 + max((int(k.rpartition("#")[2]) for k in keys), default=-1)


class Channel:
    """Discord as the workers see it: a file of delivered posts, shared by processes;
    a post whose nonce (outbox id) was delivered before is dropped, as Discord does."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def deliver(self, post: Post) -> bool:
        """Deliver the post; whether it was new."""
        with self.path.open("a+", encoding="utf-8") as sink:
            fcntl.flock(sink, fcntl.LOCK_EX)
            sink.seek(0)
            if any(json.loads(line)["nonce"] == post.outbox_id for line in sink):
                return False
            sink.write(json.dumps({"nonce": post.outbox_id, "game": post.game_id, "text": post.text}) + "\n")
            sink.flush()
            return True

    def posts(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines()]


def _worker(db_path: str, name: str, games: dict[str, int], work_dir: str, seed: int) -> None:
    """Child process: play the next command of a random game, for ever; record each
    acknowledged command and every outcome in files of ``work_dir``."""
    commands, _ = script()
    rng = random.Random(seed)
    channel = Channel(Path(work_dir) / "channel.jsonl")
    tally = os.open(Path(work_dir) / f"tally-{name}.txt", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    acks = os.open(Path(work_dir) / "acks.txt", os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    def note(path_fd: int, text: str) -> None:
        os.write(path_fd, f"{text}\n".encode())

    async def deliver(post: Post) -> None:
        if not channel.deliver(post):
            note(tally, "resend dropped by nonce")

    async def run() -> None:
        reader = sqlite3.connect(db_path, timeout=30)
        async with SqliteEventStore(db_path) as store:
            service = TroikaService(store, pictures=False)
            while True:
                progress = {g: done_upto(reader, games[g]) for g in HEALTHY}
                laggard = min(HEALTHY, key=progress.__getitem__)  # both workers chase it: clashes
                pick = rng.random()
                game = laggard if pick < 0.5 else VICTIM if pick < 0.65 else rng.choice(HEALTHY)
                index = done_upto(reader, games[game])
                if index >= COMMANDS and game != VICTIM:
                    await asyncio.sleep(0.01)
                    continue
                account, command = commands[min(index, len(commands) - 1)]
                key = f"{game}#{index}"
                roll = rng.random()
                if roll < 0.15:
                    account = MALLORY  # no seat: always refused
                elif roll < 0.3:  # the commissioner changes the reminders meanwhile
                    account, command = commands[0][0], f"remind {rng.randint(1, 720)}"
                    key = f"{game}@{name}-{rng.getrandbits(64)}"
                retried = service.conflicts_retried
                try:
                    await service.handle(game, account, command, key=key)
                    note(acks, key)
                    note(tally, "ok")
                except Refusal:
                    note(tally, "refused")
                note(tally, f"retried {service.conflicts_retried - retried}")
                await service.flush(deliver)

    asyncio.run(run())


HUGE = "1" * 5000  # valid JSON that Python refuses to read as an int
DEEP = "[" * 100_000 + "]" * 100_000  # valid JSON nested past Python's recursion limit
T = "2026-01-01T00:00:00+00:00"


def corrupt(db_path: Path, games: dict[str, int]) -> set[int]:
    """Damage rows of the victim and of the fifth game, and leave a post of a game deleted
    by hand (foreign keys are off in a plain sqlite3 shell); the ids of the posts that
    cannot be delivered."""
    db = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    victim = games[VICTIM]
    seq = db.execute("SELECT MAX(seq) FROM events WHERE game_id = ?", (victim,)).fetchone()[0] + 1
    db.execute("INSERT INTO events (game_id, seq, kind, action, created_at) VALUES (?, ?, 'action', ?, ?)",
               (victim, seq, '{"type": "par", "price": ' + HUGE + "}", T))
    posts = [(victim, '["half a post', T), (victim, '{"text": ' + DEEP + "}", T),
             (victim, '{"text": "hi", "seq": 1}', "not a time"), (999, '{"text": "orphan", "seq": 1}', T)]
    ids = {db.execute("INSERT INTO outbox (game_id, payload, created_at) VALUES (?, ?, ?) RETURNING id",
                      post).fetchone()[0] for post in posts}
    db.execute("UPDATE games SET options = ? WHERE id = ?", ('{"market": ' + DEEP + "}", games[BROKEN_SETUP]))
    db.execute("COMMIT")
    db.close()
    return ids


def damage_snapshots(db_path: Path) -> int:
    """Text where the healthy games' snapshots hold a number or bytes; how many rows."""
    db = sqlite3.connect(db_path, timeout=30, isolation_level=None)
    changed = db.execute("UPDATE snapshots SET seq = 'abc' WHERE game_id % 2 = 1").rowcount
    changed += db.execute("UPDATE snapshots SET data = 'abc' WHERE game_id % 2 = 0").rowcount
    db.close()
    return changed


async def set_up(db_path: Path) -> dict[str, int]:
    """The four games, started; the channel of each and its game id."""
    _, log = script()
    rules = read_log(log)[0].ctx.rules
    players = [(str(p["id"]), p["name"]) for p in log["players"]]
    games = {}
    async with SqliteEventStore(db_path) as store:
        service = TroikaService(store, pictures=False)
        for game in [*HEALTHY, VICTIM, BROKEN_SETUP]:
            await service.start_local_game(game, players, rules=rules, first_player=0, seed=log["settings"]["seed"])
            record = await store.active_game_in_channel(game)
            assert record is not None
            games[game] = record.id
    return games


async def sequential_state(count: int) -> dict[str, Any]:
    """The engine state after the script's first ``count`` commands, played alone."""
    async with SqliteEventStore(":memory:") as store:
        table = await start_shared(TroikaService(store, pictures=False), count)
        return dict((await table.game()).dump())


def test_chaos(tmp_path: Path) -> None:
    db_path = tmp_path / "chaos.db"
    games = asyncio.run(set_up(db_path))
    rng = random.Random(29683)
    workers: dict[str, Any] = {}
    spawned = kills = 0

    def spawn(slot: str) -> None:
        nonlocal spawned
        spawned += 1
        workers[slot] = SPAWN.Process(target=_worker,
                                      args=(str(db_path), f"{slot}-{spawned}", games, str(tmp_path), spawned))
        workers[slot].start()

    spawn("a")
    spawn("b")
    reader = sqlite3.connect(db_path, timeout=30)
    started = time.monotonic()
    undeliverable: set[int] = set()
    snapshots_damaged = 0
    next_kill = started + rng.uniform(1.5, 2.5)
    try:
        while min(done_upto(reader, games[g]) for g in HEALTHY) < COMMANDS or kills < KILLS or not snapshots_damaged:
            assert time.monotonic() - started < TIME_LIMIT, "the games did not finish in time"
            now = time.monotonic()
            if not undeliverable and done_upto(reader, games[VICTIM]) >= 10:
                undeliverable = corrupt(db_path, games)
            if not snapshots_damaged and min(done_upto(reader, games[g]) for g in HEALTHY) >= 105:
                snapshots_damaged = damage_snapshots(db_path)
            if now >= next_kill:
                victim = workers["a"]  # the writer killed again and again
                assert victim.pid is not None and victim.is_alive()
                os.kill(victim.pid, signal.SIGKILL)
                victim.join()
                kills += 1
                spawn("a")
                next_kill = now + rng.uniform(1.0, 2.0)
            time.sleep(0.05)
    finally:
        for worker in workers.values():
            if worker.is_alive() and worker.pid is not None:
                os.kill(worker.pid, signal.SIGKILL)
            worker.join()
    assert undeliverable and snapshots_damaged

    channel = Channel(tmp_path / "channel.jsonl")

    async def finish() -> dict[str, Any]:
        async with SqliteEventStore(db_path) as store:
            service = TroikaService(store, pictures=False)

            async def deliver(post: Post) -> None:
                channel.deliver(post)

            await service.flush(deliver)  # what a restarted bot does first
            unsent = await store.outbox_unsent()
            outbox = [row[0] for row in reader.execute("SELECT id FROM outbox ORDER BY id")]
            logs = {g: await store.events(games[g]) for g in HEALTHY}
            states = {g: dict((await service.repo.load(games[g])).game.dump()) for g in HEALTHY}
            await service.repo.verify_running_games()  # the start-up check goes past the damaged games
            told, ended, renewed = [], [], []
            for broken in (VICTIM, BROKEN_SETUP):
                try:
                    await service.handle(broken, Account("5522", "x"), "status")
                except Refusal as exc:
                    told.append(str(exc))
                commissioner = next(s for s in (await store.get_game(games[broken])).seats if s.commissioner)
                ended.append((await service.handle(broken, Account(commissioner.player_id, "c"), "end confirm")).text)
                renewed.append((await service.handle(broken, Account(commissioner.player_id, "c"), "new")).text)
            return {"unsent": unsent, "outbox": outbox, "logs": logs, "states": states,
                    "told": told, "ended": ended, "renewed": renewed}

    end = asyncio.run(finish())
    acked = set((tmp_path / "acks.txt").read_text().split())
    stored = {e.request_key for log in end["logs"].values() for e in log}
    for game in HEALTHY:  # every command once, in order
        keys = [e.request_key for e in end["logs"][game] if e.request_key and "#" in e.request_key]
        assert keys == [f"{game}#{i}" for i in range(len(keys))] and len(keys) >= COMMANDS
    lost = {k for k in acked if not k.startswith(VICTIM)} - stored
    assert lost == set()
    for game in HEALTHY:
        played = sum(1 for e in end["logs"][game] if e.request_key and "#" in e.request_key)
        assert end["states"][game] == asyncio.run(sequential_state(played)), game

    delivered = channel.posts()
    nonces = [p["nonce"] for p in delivered]
    assert end["unsent"] == [] and sorted(nonces) == sorted(set(nonces))
    assert set(nonces) == set(end["outbox"]) - undeliverable  # those are logged and dropped
    assert len(end["told"]) == 2 and all("cannot be loaded" in told for told in end["told"])
    assert all("is ended" in text for text in end["ended"]) and all("sets up game" in t for t in end["renewed"])

    tally = [line for path in tmp_path.glob("tally-*.txt") for line in path.read_text().splitlines()]
    figures = {
        "commands tried": tally.count("ok") + tally.count("refused"),
        "refusals": tally.count("refused"),
        "conflicts retried": sum(int(line.split()[1]) for line in tally if line.startswith("retried")),
        "kills survived": kills,
        "events lost": len(lost),
        "posts delivered": len(delivered),
        "posts duplicated": len(nonces) - len(set(nonces)),
        "damaged rows": len(undeliverable) + 2 + snapshots_damaged,
        "re-sends dropped by nonce": tally.count("resend dropped by nonce"),
        "seconds": round(time.monotonic() - started, 1),
    }
    print("chaos figures:", json.dumps(figures))


DISK_COMMANDS = 60
"""Commands of the real game played on the disk that fills up."""


def _disk_worker(db_path: str, game_id: int, work_dir: str, stop_when_full: bool) -> None:
    """Child process: play the script on, through "disk full", until DISK_COMMANDS are in
    the log (or, ``stop_when_full``, until 5 appends failed: the bot is then stopped, and
    its store closed, on the full disk); deliver the posts; note each acknowledged
    command and each store error."""
    commands, _ = script()
    channel = Channel(Path(work_dir) / "disk-channel.jsonl")
    tally = os.open(Path(work_dir) / "disk-tally.txt", os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    acks = os.open(Path(work_dir) / "disk-acks.txt", os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    async def deliver(post: Post) -> None:
        channel.deliver(post)

    async def play(store: SqliteEventStore, reader: sqlite3.Connection) -> bool:
        service = TroikaService(store, pictures=False)
        while (index := done_upto(reader, game_id)) < DISK_COMMANDS:
            account, command = commands[index]
            try:
                await service.handle("disk", account, command, key=f"disk#{index}")
                os.write(acks, f"disk#{index}\n".encode())
                await service.flush(deliver)
            except StoreError as exc:
                os.write(tally, f"store error: {exc}\n".encode())
                if stop_when_full and (Path(work_dir) / "disk-tally.txt").read_text().count("error") >= 5:
                    return True
                await asyncio.sleep(0.02)
        await service.flush(deliver)
        return True

    async def run() -> None:
        reader = sqlite3.connect(db_path, timeout=30)
        while True:
            try:
                async with SqliteEventStore(db_path) as store:
                    if await play(store, reader):
                        return
            except StoreError as exc:  # the disk is full at open too
                os.write(tally, f"open error: {exc}\n".encode())
                await asyncio.sleep(0.05)

    asyncio.run(run())


def test_a_full_disk_under_the_bot_loses_nothing(tmp_path: Path) -> None:
    """A disk that fills up while the bot plays (appends fail, the WAL cannot grow), the
    writer SIGKILLed while it is full, space freed, a new writer: every acknowledged move
    is there once, the game replays to the sequential state, every post went out once,
    and the database is whole (issue 26, N1 on a real full disk)."""
    import shutil
    import subprocess

    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("a full disk needs a tmpfs mounted, which needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        db_path = disk / "troika.db"
        _, log = script()
        players = [(str(p["id"]), p["name"]) for p in log["players"]]

        async def start() -> int:
            async with SqliteEventStore(db_path) as store:
                service = TroikaService(store, pictures=False)
                await service.start_local_game("disk", players, rules=read_log(log)[0].ctx.rules, first_player=0,
                                               seed=log["settings"]["seed"])
                record = await store.active_game_in_channel("disk")
                assert record is not None
                await service.flush(Channel(tmp_path / "disk-channel.jsonl").deliver)  # type: ignore[arg-type]
                return record.id

        game_id = asyncio.run(start())
        tally, acks = tmp_path / "disk-tally.txt", tmp_path / "disk-acks.txt"
        acks.touch()

        def bot(stop_when_full: bool = False) -> Any:
            process = SPAWN.Process(target=_disk_worker, args=(str(db_path), game_id, str(tmp_path), stop_when_full))
            process.start()
            return process

        def kill_after(process: Any, more: int) -> None:
            played, deadline = len(acks.read_text().split()), time.monotonic() + 60
            while len(acks.read_text().split()) < played + more and process.is_alive() \
                    and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(process.pid, signal.SIGKILL)
            process.join()
            said = tally.read_text()[-300:] if tally.exists() else ""
            assert len(acks.read_text().split()) >= played + more, "the bot did not play on: " + said

        kill_after(bot(), 30)  # killed with 30 moves in the WAL, none yet in the main file
        filler = disk / "filler"
        filler.write_bytes(b"\0" * max(0, shutil.disk_usage(disk).free - 8 * 1024))
        stopped = bot(stop_when_full=True)  # the disk fills: the bot is stopped and closes on it
        stopped.join(120)
        assert stopped.exitcode == 0 and "disk is full" in tally.read_text()
        failures = tally.read_text().count("error")
        filler.unlink()  # the operator frees space and starts the bot again
        kill_after(bot(), 10)  # which is killed once more mid-game
        last = bot()  # plays the rest of the game, delivers its posts and stops
        last.join(60)
        if last.is_alive():
            os.kill(last.pid, signal.SIGKILL)
            last.join()
        assert last.exitcode == 0, "the bot did not come back: " + tally.read_text()[-300:]

        reader = sqlite3.connect(db_path, timeout=30)
        assert reader.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = [row[0] for row in reader.execute(
            "SELECT request_key FROM events WHERE game_id = ? AND request_key LIKE 'disk#%' ORDER BY seq", (game_id,))]
        assert keys == [f"disk#{i}" for i in range(DISK_COMMANDS)]
        acked = set((tmp_path / "disk-acks.txt").read_text().split())
        assert acked <= set(keys)
        outbox = [row[0] for row in reader.execute("SELECT id FROM outbox ORDER BY id")]
        unsent = reader.execute("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0]
        reader.close()

        async def replayed() -> dict[str, Any]:
            async with SqliteEventStore(db_path) as store:
                return dict((await TroikaService(store, pictures=False).repo.load(game_id)).game.dump())

        assert asyncio.run(replayed()) == asyncio.run(sequential_state(DISK_COMMANDS))
        nonces = [p["nonce"] for p in Channel(tmp_path / "disk-channel.jsonl").posts()]
        assert unsent == 0 and sorted(nonces) == sorted(set(nonces)) and set(nonces) == set(outbox)
        print("full disk figures:", json.dumps({"store errors while full": failures, "acknowledged": len(acked),
                                                "lost": len(acked - set(keys)), "posts": len(nonces),
                                                "posts duplicated": len(nonces) - len(set(nonces))}))
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)
