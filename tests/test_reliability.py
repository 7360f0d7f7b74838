"""Nothing a player, a crash or a bad row does stops other games (issue 15).

One test per failure found when probing the bot as an attacker and as a crash would:
real SQLite files throughout, real processes where the failure is about processes,
and SIGKILL where it is about crashes. Positions come from the shared real game
1861-29683 or from a fresh three-player game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.console import CHANNEL
from bot.discord_bot import GameCog, TroikaBot, _chunks, keep_running
from bot.errors import Refusal
from bot.service import Account, Post, TroikaService
from storage import AppendConflict, CorruptEvent, EventKind, GameStatus, SqliteEventStore
from storage.repository import request
from storage.store import DuplicateRequest
from tests.test_bot_service import BEFORE_MK_BUYS, start_shared

SPAWN = multiprocessing.get_context("spawn")
ROOT = Path(__file__).resolve().parent.parent
ANNA, BORIS, CLARA = Account("a", "Anna"), Account("b", "Boris"), Account("c", "Clara")


async def three_player_game(service: TroikaService, channel: str) -> int:
    """A running rulebook game: Anna (commissioner), Boris, Clara; Anna bids first."""
    await service.start_local_game(channel, [(a.id, a.name) for a in (ANNA, BORIS, CLARA)], seed=1,
                                   first_player=0)
    record = await service.store.active_game_in_channel(channel)
    assert record is not None
    return record.id


async def refusal(attempt: Awaitable[Any]) -> str:
    with pytest.raises(Refusal) as caught:
        await attempt
    return str(caught.value)


class Outbox:
    """A fake channel for :meth:`TroikaService.flush`: the posts delivered, in order."""

    def __init__(self) -> None:
        self.posts: list[Post] = []

    async def deliver(self, post: Post) -> None:
        self.posts.append(post)

    def texts(self) -> list[str]:
        return [p.text for p in self.posts]


def raw(db_path: Path) -> sqlite3.Connection:
    return sqlite3.connect(db_path, isolation_level=None)


def corrupt_event(db_path: Path, game_id: int) -> int:
    """Append an event row that is not JSON to the game's log; returns its seq."""
    with raw(db_path) as db:
        seq = db.execute("SELECT MAX(seq) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0] + 1
        db.execute("INSERT INTO events (game_id, seq, kind, action, created_at) VALUES (?, ?, 'action', ?, ?)",
                   (game_id, seq, '{"type": "bid", ', "2026-01-01T00:00:00+00:00"))
    return int(seq)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "troika.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteEventStore]:
    async with SqliteEventStore(db_path) as opened:
        yield opened


@pytest.fixture
def service(store: SqliteEventStore) -> TroikaService:
    return TroikaService(store, pictures=False)


# 1 ------------------------------------------------------------------------------------

async def test_1_a_corrupt_row_stops_only_its_own_game(
    store: SqliteEventStore, service: TroikaService, db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    healthy = await three_player_game(service, "healthy")
    await service.flush(Outbox().deliver)
    broken = await three_player_game(service, "broken")  # its start post waits in the outbox...
    [waiting] = await store.outbox_unsent()
    assert waiting.payload["pictures"]  # ...and wants pictures of the game
    await service.handle("healthy", ANNA, "remind 1")
    seq = corrupt_event(db_path, broken)

    outbox = Outbox()
    assert await TroikaService(store, pictures=True).flush(outbox.deliver) == {broken, healthy}
    assert sorted((p.game_id, p.pictures) for p in outbox.posts) == sorted([(broken, []), (healthy, [])])
    assert await store.outbox_unsent() == []

    for who, command in ((BORIS, "bid TSR 25"), (ANNA, "status"), (ANNA, "pause")):
        told = await refusal(service.handle("broken", who, command))
        assert f"Game {broken} cannot be loaded: event {seq} is at fault (its action is not valid JSON" in told
        assert "commissioner can `end` it" in told
    await service.handle("healthy", ANNA, "bid TSR 20")

    later = service.clock() + timedelta(hours=2)
    service.clock = lambda: later
    with caplog.at_level(logging.WARNING):
        await service.send_reminders()  # the broken game is skipped, the healthy one reminded
    assert f"no reminders for game {broken}" in caplog.text
    reminded = Outbox()
    await service.flush(reminded.deliver)
    assert [p.game_id for p in reminded.posts][-1] == healthy and "⏰" in reminded.posts[-1].text

    assert "could not be loaded" in (await service.handle("broken", ANNA, "end confirm sorry")).text
    assert (await store.get_game(broken)).status is GameStatus.ABANDONED
    assert "sets up game" in (await service.handle("broken", ANNA, "new")).text


async def test_1_the_loops_survive_every_error_and_back_off(caplog: pytest.LogCaptureFixture) -> None:
    failures = [RuntimeError("database is locked"), CorruptEvent(4, 7, "bad row"), KeyError("x"),
                None, None, ValueError("late"), None]
    waits: list[float] = []

    async def step() -> None:
        failure = failures[len(waits)]
        if failure is not None:
            raise failure

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == len(failures):
            raise asyncio.CancelledError

    with caplog.at_level(logging.ERROR), pytest.raises(asyncio.CancelledError):
        await keep_running("delivery", step, 30, max_backoff=100, sleep=sleep)
    assert waits == [60, 100, 100, 30, 30, 60, 30]  # backs off, then back to every 30 s
    assert caplog.text.count("delivery failed; trying again") == 4 and "bad row" in caplog.text


# 2 ------------------------------------------------------------------------------------

@pytest.mark.slow
async def test_2_corrupt_options_do_not_stop_the_start(store: SqliteEventStore, db_path: Path) -> None:
    service = TroikaService(store, pictures=False)
    broken = await three_player_game(service, CHANNEL)
    healthy = await three_player_game(service, "healthy")
    with raw(db_path) as db:
        db.execute("UPDATE games SET options = '{\"market\": ' WHERE id = ?", (broken,))
    assert [g.id for g in await store.list_games([GameStatus.RUNNING])] == [broken, healthy]
    [problem] = await TroikaService(store).repo.verify_running_games()  # what the bot does at start
    assert problem.game_id == broken and "its options are not valid JSON" in problem.message
    await store.close()

    typed = "status\nas Anna end confirm\nnew Anna Boris\nquit\n"
    run = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--db", str(db_path)], input=typed,
                         capture_output=True, text=True, cwd=ROOT, env=_env(), timeout=120)
    assert run.returncode == 0, run.stderr
    assert f"Game {broken} cannot be loaded: its set-up is at fault (its options are not valid JSON" in run.stdout
    assert f"Game {broken} is ended" in run.stdout and "Game 3 of 1861 begins" in run.stdout


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


# 3 ------------------------------------------------------------------------------------

async def test_3_an_unreadable_post_does_not_stop_delivery(
    store: SqliteEventStore, service: TroikaService, db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    game_id = await three_player_game(service, "c1")
    with raw(db_path) as db:
        db.execute("INSERT INTO outbox (game_id, payload, created_at) VALUES (?, '{\"text\": ', ?)",
                   (game_id, "2026-01-01T00:00:00+00:00"))
    await service.handle("c1", ANNA, "bid TSR 20")
    outbox = Outbox()
    with caplog.at_level(logging.ERROR):
        await service.flush(outbox.deliver)
    assert len(outbox.posts) == 2 and "Game 1 of 1861 begins" in outbox.posts[0].text
    assert "Anna" in outbox.posts[1].text and "bid TSR 20" in outbox.posts[1].text
    assert "post 2 of game 1 dropped: its payload is not valid JSON" in caplog.text
    assert await store.outbox_unsent() == []


# 4 ------------------------------------------------------------------------------------

def _rewrite_hashes(db_path: Path, game_id: int, seqs: list[int]) -> None:
    """What a rules change does to a stored game: its recorded states no longer match."""
    with raw(db_path) as db:
        trigger = db.execute("SELECT sql FROM sqlite_master WHERE name = 'events_no_update'").fetchone()[0]
        db.execute("DROP TRIGGER events_no_update")
        db.executemany("UPDATE events SET state_hash = 'from an older engine' WHERE game_id = ? AND seq = ?",
                       [(game_id, seq) for seq in seqs])
        db.execute(trigger)


async def test_4_an_operator_accepts_a_new_engines_replay(store: SqliteEventStore, db_path: Path) -> None:
    service = TroikaService(store, pictures=False)
    changed = await three_player_game(service, "changed")
    await three_player_game(service, "other")
    for game in ("changed", "other"):
        await service.handle(game, ANNA, "bid TSR 20")
        await service.handle(game, BORIS, "bid TSR 25")
    _rewrite_hashes(db_path, changed, [2, 3])
    await store.close()

    async with SqliteEventStore(db_path) as reopened:
        restarted = TroikaService(reopened, pictures=False)
        assert [p.game_id for p in await restarted.repo.verify_running_games()] == [changed]
        told = await refusal(restarted.handle("changed", CLARA, "pass"))
        assert "event 3 is at fault (engine v" in told and f"troika admin accept {changed}" in told
        await restarted.handle("other", CLARA, "pass")

    def accept(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bot.cli", "admin", "accept", str(changed), "--db",
                               str(db_path), *flags], capture_output=True, text=True, cwd=ROOT, env=_env(),
                              stdin=subprocess.DEVNULL, timeout=120)

    asked = accept()
    assert asked.returncode == 1 and "not accepted" in asked.stdout
    assert "first difference: after event 2 (action, by a" in asked.stdout and '"price": 20' in asked.stdout
    accepted = accept("--yes")
    assert accepted.returncode == 0 and f"game {changed} accepted at event 4" in accepted.stdout
    assert "nothing to accept" in accept().stdout

    async with SqliteEventStore(db_path) as reopened:
        restarted = TroikaService(reopened, pictures=False)
        assert await restarted.repo.verify_running_games() == []
        await restarted.handle("changed", CLARA, "pass")
        [*_, admin, passed] = await reopened.events(changed)
        assert admin.kind is EventKind.ADMIN and admin.action["type"] == "accept_replay"
        assert passed.actor == "c"


# 5 ------------------------------------------------------------------------------------

def _hold_lock(db_path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the database's write lock for ``seconds``."""
    script = ("import sqlite3, sys, time; db = sqlite3.connect(sys.argv[1], isolation_level=None); "
              "db.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(float(sys.argv[2])); "
              "db.execute('COMMIT')")
    holder = subprocess.Popen([sys.executable, "-c", script, str(db_path), str(seconds)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


@pytest.mark.slow
async def test_5_a_long_lock_delays_delivery_without_killing_it_or_sending_twice(
    db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with SqliteEventStore(db_path, busy_timeout_ms=200) as store:
        service = TroikaService(store, pictures=False)
        await three_player_game(service, "c1")
        sent: list[int] = []
        holders: list[subprocess.Popen[str]] = []

        async def deliver(post: Post) -> None:
            sent.append(post.outbox_id)
            if not holders:  # the lock is taken just as the first post leaves
                holders.append(_hold_lock(db_path, 1.0))

        async def step() -> None:
            await service.flush(deliver)

        with caplog.at_level(logging.ERROR):
            loop = asyncio.create_task(keep_running("delivery", step, 0.05, max_backoff=0.2))
            while not holders or holders[0].poll() is None:
                await asyncio.sleep(0.05)
            await service.handle("c1", ANNA, "bid TSR 20")  # after the lock: delivered by the same loop
            while len(sent) < 2:
                await asyncio.sleep(0.05)
            loop.cancel()
        assert "delivery failed" in caplog.text and "database is locked" in caplog.text
        assert sent == [1, 2]  # the first post once, though marking it waited for the lock
        assert await store.outbox_unsent() == []


# 6 and 7: crashes right after a write -----------------------------------------------

def _die_after_first_append(db_path: str, channel: str, account: tuple[str, str], command: str) -> None:
    """Child process: carry out ``command``, dying by SIGKILL the moment its first
    append commits (whatever the command meant to write after that is never written)."""
    commit = SqliteEventStore.append_many

    async def append_then_die(self: SqliteEventStore, *args: Any, **kwargs: Any) -> Any:
        await commit(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)

    SqliteEventStore.append_many = append_then_die  # type: ignore[method-assign]

    async def run() -> None:
        async with SqliteEventStore(db_path) as store:
            await TroikaService(store, pictures=False).handle(channel, Account(*account), command)

    asyncio.run(run())


def crash_after_first_append(db_path: Path, channel: str, account: Account, command: str) -> None:
    child = SPAWN.Process(target=_die_after_first_append,
                          args=(str(db_path), channel, (account.id, account.name), command))
    child.start()
    child.join(timeout=120)
    assert child.exitcode == -signal.SIGKILL  # it wrote, then died


@pytest.mark.slow
async def test_6_a_crash_after_the_last_action_leaves_the_game_finished(db_path: Path) -> None:
    async with SqliteEventStore(db_path) as store:
        await three_player_game(TroikaService(store, pictures=False), "c1")
    crash_after_first_append(db_path, "c1", ANNA, "end confirm we stop here")
    async with SqliteEventStore(db_path) as store:
        assert (await store.get_game(1)).status is GameStatus.FINISHED
        *_, post = await store.outbox_unsent()
        assert "**Anna**: `end` _(`we stop here`)_" in post.payload["text"]
        assert "sets up game 2" in (await TroikaService(store).handle("c1", BORIS, "new")).text


async def test_6_a_game_an_older_crash_left_running_is_settled(
    store: SqliteEventStore, service: TroikaService
) -> None:
    game_id = await three_player_game(service, "c1")
    live = await service.repo.load(game_id)
    await service.repo.act(game_id, live.seq, {"type": "end_game", "entity": "a"}, "a")  # no status change
    assert (await store.get_game(game_id)).status is GameStatus.RUNNING
    assert "was over already" in (await service.handle("c1", ANNA, "end confirm")).text
    other = await three_player_game(service, "c2")
    live = await service.repo.load(other)
    await service.repo.act(other, live.seq, {"type": "end_game", "entity": "a"}, "a")
    assert "sets up game" in (await service.handle("c2", BORIS, "new")).text
    assert (await store.get_game(other)).status is GameStatus.FINISHED


@pytest.mark.slow
async def test_7_a_request_and_its_post_are_written_together(db_path: Path) -> None:
    async with SqliteEventStore(db_path) as store:
        service = TroikaService(store, pictures=False)
        await start_shared(service, BEFORE_MK_BUYS)
        await service.flush(Outbox().deliver)
        player2, _ = await service.seat_account(CHANNEL, ["Player", "2"])
        player1, _ = await service.seat_account(CHANNEL, ["Player", "1"])
    crash_after_first_append(db_path, CHANNEL, player2, "train 2-0 from N 60")
    crash_after_first_append(db_path, CHANNEL, player1, "pause back soon")
    async with SqliteEventStore(db_path) as store:
        *_, ask, pause = await store.events(1)
        assert (ask.kind, ask.action["type"], pause.action["type"]) == (EventKind.ADMIN, "ask", "pause")
        posts = [m.payload for m in await store.outbox_unsent()]
        assert [(p["seq"], p["kind"]) for p in posts] == [(ask.seq, "ask"), (pause.seq, "note")]
        assert "asks **Player 3** to agree" in posts[0]["text"] and posts[0]["mention"] == ask.action["consenter"]


# 8 ------------------------------------------------------------------------------------

def _race(
    db_path: str, start: Any, account: tuple[str, str], commands: list[tuple[str, ...]], report: str
) -> None:
    """Child process: for each (channel, command[, request key]), wait for the other
    racers, then carry it out; write each outcome (ok, refused, or the error) to
    ``report`` as JSON."""

    async def run() -> list[str]:
        outcomes = []
        async with SqliteEventStore(db_path) as store:
            service = TroikaService(store, pictures=False)
            for channel, command, *key in commands:
                await asyncio.to_thread(start.wait)
                try:
                    await service.handle(channel, Account(*account), command, key=key[0] if key else None)
                    outcomes.append("ok")
                except Refusal as exc:
                    outcomes.append(f"refused: {exc}")
                except Exception as exc:  # what a player would see as "Something went wrong"
                    outcomes.append(f"error: {exc!r}")
        return [*outcomes, f"retried {service.conflicts_retried}"]

    Path(report).write_text(json.dumps(asyncio.run(run())))


def race(tmp_path: Path, db_path: Path, runs: list[tuple[Account, list[tuple[str, ...]]]]) -> list[list[str]]:
    """Run each (account, commands) in its own process, in lock step; their outcomes."""
    start = SPAWN.Barrier(len(runs))
    reports = [tmp_path / f"race-{n}.json" for n in range(len(runs))]
    children = [SPAWN.Process(target=_race, args=(str(db_path), start, (a.id, a.name), commands, str(report)))
                for (a, commands), report in zip(runs, reports, strict=True)]
    for child in children:
        child.start()
    for child in children:
        child.join(timeout=180)
        assert child.exitcode == 0
    return [json.loads(report.read_text()) for report in reports]


@pytest.mark.slow
async def test_8_conflicts_between_processes_are_retried_and_no_join_is_lost(
    tmp_path: Path, db_path: Path
) -> None:
    channels = [f"table-{n}" for n in range(12)]
    async with SqliteEventStore(db_path) as store:
        service = TroikaService(store, pictures=False)
        for channel in channels:
            await service.handle(channel, ANNA, "new")
        await three_player_game(service, "running")
    outcomes = race(tmp_path, db_path, [
        (BORIS, [(c, "join") for c in channels]),
        (CLARA, [(c, "join") for c in channels]),
        (ANNA, [("running", f"remind {h}") for h in range(1, 13)]),
    ])
    for report in outcomes:
        assert report[:-1] == ["ok"] * 12, report
    assert sum(int(r[-1].split()[1]) for r in outcomes) > 0  # there were clashes, all retried
    async with SqliteEventStore(db_path) as store:
        for channel in channels:
            record = await store.active_game_in_channel(channel)
            assert record is not None and [s.display_name for s in record.seats] in (
                ["Anna", "Boris", "Clara"], ["Anna", "Clara", "Boris"])


# 9 ------------------------------------------------------------------------------------

async def test_9_status_read_at_once_counts_each_action_once(store: SqliteEventStore) -> None:
    service = TroikaService(store, pictures=False)
    await start_shared(service, 20)
    single = TroikaService(store, pictures=False)
    alone = await single.status(1)
    alone_waits = (await single.timekeeper.table_clock(1)).waits
    crowded = TroikaService(store, pictures=False)
    texts = await asyncio.gather(*(crowded.status(1) for _ in range(3)))
    assert [t.text for t in texts] == [alone.text] * 3
    actions = [e for e in await store.events(1) if e.kind is EventKind.ACTION]
    waits = crowded.timekeeper._clocks[1].waits
    assert len(waits) == len(actions) == 20
    assert waits == alone_waits


# 10 -----------------------------------------------------------------------------------

@pytest.mark.slow
async def test_10_a_message_delivered_twice_is_carried_out_once(tmp_path: Path, db_path: Path) -> None:
    async with SqliteEventStore(db_path) as store:
        service = TroikaService(store, pictures=False)
        await start_shared(service, BEFORE_MK_BUYS)
        player2, _ = await service.seat_account(CHANNEL, ["Player", "2"])
        await service.handle(CHANNEL, player2, "train 2")
        start = await store.last_seq(1)
        # Two messages are two moves: M-K passes, then MNN (also Player 2's), named since
        # a bare second `pass` would be questioned as a stray one (issue 25).
        for n, words in ((1, "pass"), (2, "pass MNN")):
            await service.handle(CHANNEL, player2, words, key=f"message {n}")
        assert await store.last_seq(1) == start + 2
        await service.handle(CHANNEL, player2, "undo")
        await service.handle(CHANNEL, player2, "undo")
        start = await store.last_seq(1)
        # One message delivered twice at once is one move.
        replies = await asyncio.gather(*(service.handle(CHANNEL, player2, "pass", key="message 3")
                                         for _ in range(2)))
        assert await store.last_seq(1) == start + 1 and [r.text for r in replies] == ["", ""]
        [event] = await store.events(1, after_seq=start)
        assert event.request_key == "message 3"
        start += 1
    # ...and so it is when two processes receive it (two bots, or a restart mid-delivery).
    outcomes = race(tmp_path, db_path, [(player2, [(CHANNEL, "pass MNN", "message 4")])] * 2)
    assert outcomes == [["ok", "retried 0"]] * 2
    async with SqliteEventStore(db_path) as store:
        assert [e.request_key for e in await store.events(1, after_seq=start)] == ["message 4"]


async def test_10_a_second_delivery_that_finds_the_game_moved_on_is_a_duplicate(
    store: SqliteEventStore, service: TroikaService
) -> None:
    game_id = await three_player_game(service, "c1")
    seen = await service.repo.load(game_id)  # both deliveries read the game here
    with request("message 5"):
        await service.repo.act(game_id, seen.seq, {"type": "pass", "entity": "a"}, "a")
        with pytest.raises(DuplicateRequest):  # not a conflict to retry on the moved game
            await service.repo.act(game_id, seen.seq, {"type": "pass", "entity": "a"}, "a")
    with pytest.raises(AppendConflict):  # another request: it did conflict
        await service.repo.act(game_id, seen.seq, {"type": "pass", "entity": "a"}, "a")


# 11 -----------------------------------------------------------------------------------

async def test_11_no_undo_while_paused_and_no_two_players_of_one_name(
    store: SqliteEventStore, service: TroikaService
) -> None:
    await three_player_game(service, "c1")
    await service.handle("c1", ANNA, "bid TSR 20")
    await service.handle("c1", BORIS, "bid TSR 25")
    await service.handle("c1", BORIS, "undo")
    await service.handle("c1", ANNA, "pause")
    before = await store.last_seq(1)
    for who, command in ((ANNA, "undo"), (ANNA, "undo misclick"), (BORIS, "redo"), (ANNA, "redo why")):
        assert "The game is paused" in await refusal(service.handle("c1", who, command))
    await service.handle("c1", ANNA, "resume")
    await service.handle("c1", BORIS, "redo")
    assert await store.last_seq(1) == before + 2

    told = await refusal(service.replace_seat("c1", ANNA, "Boris", Account("x", "clara")))
    assert "A player called clara is already seated" in told
    replaced = await service.replace_seat("c1", ANNA, "Boris", Account("x", "Dmitri"))
    assert "**Dmitri** takes Boris's seat" in replaced.text
    assert [s.display_name for s in (await store.get_game(1)).seats] == ["Anna", "Dmitri", "Clara"]


# 12 -----------------------------------------------------------------------------------

class SentMessage:
    def __init__(self, number: int, content: str, allowed: dict[str, Any] | None) -> None:
        self.id, self.content, self.allowed = number, content, allowed

    async def pin(self) -> None:
        pass

    async def edit(self, *, content: str) -> None:
        self.content = content


class DiscordChannel:
    """Discord's side of the cog's sends: what was sent, and whom it could ping."""

    def __init__(self) -> None:
        self.sent: list[SentMessage] = []

    async def send(self, content: str, *, allowed_mentions: Any = None, **_: Any) -> SentMessage:
        allowed = allowed_mentions.to_dict() if allowed_mentions is not None else None
        self.sent.append(SentMessage(len(self.sent) + 1, content, allowed))
        return self.sent[-1]

    def get_partial_message(self, number: int) -> SentMessage:
        return self.sent[number - 1]


class CogBot:
    """What :class:`GameCog` needs of the bot, without Discord."""

    def __init__(self, service: TroikaService) -> None:
        self.service = service
        self.channel = DiscordChannel()

    async def resolve_channel(self, channel_id: str) -> DiscordChannel:
        return self.channel


async def test_12_only_seated_players_are_ever_mentioned(store: SqliteEventStore, service: TroikaService) -> None:
    anna, boris, clara = Account("111", "Anna"), Account("222", "<@999> Boris"), Account("333", "Clara")
    await service.start_local_game("c1", [(a.id, a.name) for a in (anna, boris, clara)], seed=1, first_player=0)
    bot = CogBot(service)
    cog = GameCog(bot)  # type: ignore[arg-type]
    await cog.deliver()
    await service.handle("c1", anna, "bid TSR 20")
    await service.handle("c1", anna, "pause <@999> @everyone")
    await service.handle("c1", anna, "resume")
    await cog.deliver()
    posts = [m for m in bot.channel.sent if m.allowed is not None]
    start, bid, pause, resume = posts
    assert "`<@999> @everyone`" in pause.content
    assert "<@222> bids" in bid.content and bid.allowed == {"parse": [], "users": [222]}  # the mention for the name
    assert pause.allowed == {"parse": []}  # it calls nobody: nobody is pinged
    for post in posts:
        assert post.allowed is not None and set(post.allowed.get("users", [])) <= {111, 222, 333}
    status = [m for m in bot.channel.sent if m.allowed is None]  # the pinned status: the bot's default
    assert status and TroikaBot(service).allowed_mentions.to_dict() == {"parse": []}  # pings nobody


# 13 -----------------------------------------------------------------------------------

async def test_13_reminder_hours_must_be_finite_and_sensible(store: SqliteEventStore, service: TroikaService) -> None:
    await three_player_game(service, "c1")
    before = await store.last_seq(1)
    for hours in ("nan", "inf", "-inf", "1e309", "0.5", "721", "-3", "31d"):
        assert "from 1 to 720" in await refusal(service.handle("c1", ANNA, f"remind {hours}"))
        assert "from 1 to 720" in await refusal(service.handle("c1", BORIS, f"remind me {hours}"))
    assert await store.last_seq(1) == before
    await service.handle("c1", ANNA, "remind 720")
    await service.handle("c1", ANNA, "remind off")
    assert await store.last_seq(1) == before + 2


# 14 -----------------------------------------------------------------------------------

@pytest.mark.slow
async def test_14_every_reply_fits_discord(store: SqliteEventStore, service: TroikaService) -> None:
    await start_shared(service, 120)
    player1, _ = await service.seat_account(CHANNEL, ["Player", "1"])
    acting = await service.deciding_account(CHANNEL)
    assert acting is not None
    told = await refusal(service.handle(CHANNEL, player1, "map " + "X" * 3000))
    assert told.startswith("That command is 3004 characters long") and len(told) < 200  # not echoed
    told = await refusal(service.handle(CHANNEL, player1, "map " + "X" * 290))
    assert told.startswith("There is no hex XXX") and len(told) < 100  # a long word is cut
    long_commands = ((acting, "lay " + "Y" * 3000), (acting, "lay A1 " + "Y " * 1500), (player1, "as " + "Z" * 3000))
    for who, command in long_commands:
        assert len(f"✗ {await refusal(service.handle(CHANNEL, who, command))}") <= 2000
    newest = (await service.handle(CHANNEL, player1, "log 1000")).text
    assert len(newest) <= 2000 and _chunks(newest) == [newest]
    assert newest.startswith("… ") and "earlier lines: `log page 2`" in newest.splitlines()[0]
    earlier = (await service.handle(CHANNEL, player1, "log page 2")).text
    assert len(earlier) <= 2000 and set(earlier.splitlines()[1:]).isdisjoint(newest.splitlines()[1:])
    three = (await service.handle(CHANNEL, player1, "log 3")).text.splitlines()
    assert len([line for line in three if line.startswith("#")]) == 3  # each with its effects below
    assert "no page 99" in (await service.handle(CHANNEL, player1, "log page 99")).text
    chunks = _chunks("\n".join(["a line of text " * 10] * 400))
    assert len(chunks) == 4 and all(len(c) <= 2000 for c in chunks) and "the rest is cut" in chunks[-1]


# 15 -----------------------------------------------------------------------------------

def troika_run(db_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot.cli", "run", "--db", str(db_path)], input="quit\n",
                          capture_output=True, text=True, cwd=ROOT, env=_env(**env), timeout=120)


@pytest.mark.slow
async def test_15_start_up_refuses_an_empty_token_file_and_a_damaged_database(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("\n")
    empty_token = troika_run(tmp_path / "new.db", DISCORD_TOKEN_FILE=str(token))
    assert empty_token.returncode == 2 and not (tmp_path / "new.db").exists()
    assert empty_token.stderr.strip().splitlines() == [
        f"troika: the token file {token} (DISCORD_TOKEN_FILE) is empty; put the bot's token in it, "
        "or unset DISCORD_TOKEN_FILE to play at the console"]

    good = tmp_path / "good.db"
    async with SqliteEventStore(good) as store:
        service = TroikaService(store, pictures=False)
        for n in range(10):
            await three_player_game(service, f"c{n}")
    empty, truncated, foreign = tmp_path / "empty.db", tmp_path / "truncated.db", tmp_path / "foreign.db"
    empty.touch()
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE recipes (name TEXT)")
    for path, why, damaged in ((empty, "is empty (0 bytes)", False), (truncated, "is damaged", True),
                               (foreign, "is not Troika's", False)):
        run = troika_run(path)
        assert run.returncode == 2, run.stdout
        [line] = run.stderr.strip().splitlines()
        assert why in line
        assert ("copy a backup made with `troika backup` over it" in line) is damaged  # SQLite confirms it
    assert troika_run(good).returncode == 0


async def test_1_the_cogs_reminder_step_reminds_and_delivers(
    store: SqliteEventStore, service: TroikaService, db_path: Path
) -> None:
    await three_player_game(service, "c1")
    broken = await three_player_game(service, "c2")
    for channel in ("c1", "c2"):
        await service.handle(channel, ANNA, "remind 1")
    corrupt_event(db_path, broken)
    bot = CogBot(service)
    cog = GameCog(bot)  # type: ignore[arg-type]
    await cog.deliver()
    later = service.clock() + timedelta(hours=3)
    service.clock = lambda: later
    sent = len(bot.channel.sent)
    await cog.remind_due()  # what the reminder loop runs every ten minutes
    reminders = [m.content for m in bot.channel.sent[sent:] if "⏰" in m.content]
    assert len(reminders) == 2 and "⏰ Your turn has waited 3h." in reminders[0]
    assert "Anna** has not acted for 3h" in reminders[1]
