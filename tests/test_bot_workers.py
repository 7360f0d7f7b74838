"""The worker pool: each channel's games pinned to one worker process, a busy worker
holding back no other's games, a worker that dies replaced from the store, and the
same replies and posts as the one-process service."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.commands import VERBS
from bot.errors import Refusal, WorkerStopped
from bot.face import IN_FRONT, WORKER_CALLS, ServiceFace
from bot.posts import Picture
from bot.service import Account, Post, Reply, Status, TroikaService
from bot.transcript import log_commands
from bot.workers import CALL_TIMEOUT, ServicePool, serving
from engine.importer import read_log
from storage import SqliteEventStore
from tests.conftest import shared_game
from tests.test_reliability import ANNA, BORIS, CLARA, three_player_game


def read_fifo(path: str) -> str:
    """Block until someone writes to the named pipe (a worker held by the test)."""
    with open(path, encoding="utf-8") as fifo:
        return fifo.read()


def hold(entered: str, release: str) -> str:
    """Say so through the pipe ``entered``, then wait for word through ``release``: a
    worker held by the test, with no clock involved."""
    Path(entered).write_text("in", encoding="utf-8")
    return read_fifo(release)


def position(status: Status) -> list[str]:
    """The status text less the times in it."""
    return [line.partition(" (waiting")[0] for line in status.text.splitlines() if "median" not in line]


async def held_worker(pool: ServicePool, channel: str, where: Path) -> asyncio.Task[str]:
    """The channel's worker, busy until the test writes to ``where / "release"``."""
    for name in ("entered", "release"):
        os.mkfifo(where / name)
    held = asyncio.create_task(pool.run(channel, hold, str(where / "entered"), str(where / "release")))
    assert await asyncio.to_thread(read_fifo, str(where / "entered")) == "in"
    return held


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pool(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ServicePool]:
    """Two workers, shared by the module's tests (each plays in channels of its own)."""
    async with SqliteEventStore(tmp_path_factory.mktemp("pool") / "games.db") as store, \
            ServicePool(store, workers=2, pictures=False) as started:
        yield started


def apart(pool: ServicePool, *channels: str) -> None:
    """Pin the new channels to different workers: each takes the least loaded in turn,
    so they are spread once every worker has as many channels."""
    filler = 0
    while len(set(pool.channels_pinned())) > 1:
        filler += 1
        pool.worker_of(f"filler {channels[0]} {filler}")
    assert len({pool.worker_of(c) for c in channels}) == len(channels)


async def test_a_channel_stays_with_its_worker_and_channels_are_spread(pool: ServicePool) -> None:
    apart(pool, "one", "two")  # the least loaded worker, then the other
    first = pool.worker_of("one")
    await three_player_game(pool, "one")  # type: ignore[arg-type]
    pid = pool.pid("one")
    await pool.handle("one", ANNA, "bid TSR 20")
    await pool.handle("one", BORIS, "bid TSR 25")
    assert pool.worker_of("one") == first and pool.pid("one") == pid
    worker_pids = await asyncio.gather(pool.run("one", os.getpid), pool.run("two", os.getpid))
    assert worker_pids == [pool.pid("one"), pool.pid("two")]
    assert os.getpid() not in worker_pids  # the engine work is not in the bot's process


async def test_a_held_worker_holds_back_no_other_worker_s_game(pool: ServicePool, tmp_path: Path) -> None:
    apart(pool, "held", "free")
    await three_player_game(pool, "held")  # type: ignore[arg-type]
    await three_player_game(pool, "free")  # type: ignore[arg-type]
    held = await held_worker(pool, "held", tmp_path)
    await pool.handle("free", ANNA, "bid TSR 20")
    await pool.handle("free", BORIS, "bid TSR 25")
    status = await pool.handle("free", CLARA, "status")
    assert "TSR" in status.text
    assert not held.done()  # the other game was answered while this worker is still held
    await asyncio.to_thread((tmp_path / "release").write_text, "go")
    assert await held == "go"


async def test_a_dead_worker_is_replaced_and_its_game_loads_from_the_store(
    pool: ServicePool, tmp_path: Path
) -> None:
    game_id = await three_player_game(pool, "crash")  # type: ignore[arg-type]
    await pool.handle("crash", ANNA, "bid TSR 20")
    before = position(await pool.status(game_id))
    busy = await held_worker(pool, "crash", tmp_path)
    old = pool.pid("crash")
    assert old is not None
    os.kill(old, signal.SIGKILL)
    with pytest.raises(WorkerStopped, match="started again from the stored game"):
        await busy
    assert position(await pool.status(game_id)) == before  # a new worker, the game replayed from its log
    assert pool.pid("crash") != old
    await pool.handle("crash", BORIS, "bid TSR 25")
    with pytest.raises(Refusal, match="Not your turn"):
        await pool.handle("crash", BORIS, "pass")
    store = pool.store
    assert [e.action.get("price") for e in await store.events(game_id) if e.action.get("type") == "bid"] == [20, 25]


def die_after_next_append() -> None:
    """In a worker: its next event is stored, then the process dies before answering."""
    store = serving().store
    append = store.append

    async def append_then_die(*args: Any, **kwargs: Any) -> Any:
        await append(*args, **kwargs)
        os._exit(9)

    store.append = append_then_die  # type: ignore[method-assign]


@pytest.mark.slow
async def test_a_command_whose_worker_died_is_carried_out_once(pool: ServicePool) -> None:
    game_id = await three_player_game(pool, "keyed")  # type: ignore[arg-type]
    await pool.run("keyed", die_after_next_append)
    reply = await pool.handle("keyed", ANNA, "bid TSR 20", key="message 1")  # stored, then no answer
    assert reply.text == ""
    await pool.run("keyed", die_after_next_append)
    with pytest.raises(WorkerStopped):  # without a key it cannot be told apart: the player is told to look
        await pool.handle("keyed", BORIS, "bid TSR 25")
    bids = [e.action.get("price") for e in await pool.store.events(game_id) if e.action.get("type") == "bid"]
    assert bids == [20, 25]  # each once
    posts: list[Post] = []
    await pool.flush(_collect(posts))
    mine = [p.text.splitlines()[0] for p in posts if p.game_id == game_id]
    assert mine[-2:] == ["**Anna**: `bid TSR 20`", "**Boris**: `bid TSR 25`"]


def _collect(posts: list[Post]) -> Callable[[Post], Awaitable[None]]:
    async def deliver(post: Post) -> None:
        posts.append(post)
    return deliver


class Payload:
    """Something a worker could send that is not one of the bot's answers."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, ("echo unpickled",))  # what a hostile pickle would run


def hostile() -> Payload:
    return Payload()


@pytest.mark.slow
async def test_a_worker_s_message_builds_only_the_bot_s_own_types(pool: ServicePool) -> None:
    game_id = await three_player_game(pool, "hostile")  # type: ignore[arg-type]
    old = pool.pid("hostile")
    with pytest.raises(WorkerStopped, match="unreadable"):
        await pool.run("hostile", hostile)
    assert pool.pid("hostile") == old  # not yet replaced: on the next call
    assert "Private auction" in (await pool.status(game_id)).text  # a new worker, the game from the store
    assert pool.pid("hostile") != old


async def _play(service: TroikaService | ServicePool, log: dict[str, Any], count: int) -> list[str]:
    """The log's players at a table in channel "table", typing its first ``count``
    commands with a look at the status and a refused move now and then: each reply or
    refusal, then the posts it queued, as text (the game's number taken out)."""
    players = [(str(p["id"]), str(p["name"])) for p in log["players"]]
    await service.start_local_game("table", players, rules=read_log(log)[0].ctx.rules, first_player=0,
                                   seed=int(log["settings"].get("seed") or 0))
    record = await service.store.active_game_in_channel("table")
    assert record is not None
    seen: list[str] = []

    async def deliver(post: Post) -> None:
        seen.append(post.content(lambda seat: f"@{seat.display_name}") + f" {post.pictures}")

    script = [c for c, _ in zip(log_commands(log), range(count), strict=False)]
    for n, (name, command) in enumerate(script):
        for typed in [f"as {name} {command}"] + (["status", f"as {name} pass TSR"] if n % 10 == 9 else []):
            try:
                seen.append((await service.handle("table", Account(*players[0]), typed)).text)
            except Refusal as exc:
                seen.append(f"refused: {exc}")
            await service.flush(deliver, channel_id="table")
    number = re.compile(rf"\b(game) {record.id}\b", re.IGNORECASE)
    return [number.sub(r"\1 #", text) for text in seen]


@pytest.mark.slow
async def test_the_pool_answers_as_the_one_process_service_does(pool: ServicePool, tmp_path: Path) -> None:
    log, _ = shared_game("1861-29683")
    async with SqliteEventStore(tmp_path / "alone.db") as store:
        expected = await _play(TroikaService(store, pictures=False), log, 60)
    assert await _play(pool, log, 60) == expected


@pytest.mark.slow
async def test_a_post_s_text_goes_first_and_its_pictures_follow_in_the_channel_s_order(tmp_path: Path) -> None:
    seen: list[tuple[str, int, list[str]]] = []

    async def deliver(post: Post) -> int:
        assert post.pictures == []  # the text does not wait for them
        seen.append(("text", post.outbox_id, []))
        return post.outbox_id

    async def attach(sent: int, post: Post, pictures: list[Picture]) -> None:
        assert sent == post.outbox_id
        assert all(p.png.startswith(b"\x89PNG") for p in pictures)
        seen.append(("pictures", post.outbox_id, [p.name for p in pictures]))

    async with SqliteEventStore(tmp_path / "pictures.db") as store, ServicePool(store, workers=1) as pool:
        await three_player_game(pool, "drawn")  # type: ignore[arg-type]
        for name, command in (("Anna", "bid TSR 20"), ("Boris", "pass"), ("Clara", "pass")):
            await pool.handle("drawn", ANNA, f"as {name} {command}")
        await pool.flush(deliver, attach=attach)
        await pool.drawn()
    texts = [number for kind, number, _ in seen if kind == "text"]
    assert [number for kind, number, _ in seen if kind == "pictures"] == [texts[0], texts[-1]]  # in order
    assert seen[0] == ("text", texts[0], [])  # the start post's text before anything is drawn
    assert [names for kind, _, names in seen if kind == "pictures"] == [["map", "table"], ["table"]]


@pytest.mark.slow
async def test_a_hung_worker_is_stopped_and_its_games_go_on_in_a_new_one(tmp_path: Path) -> None:
    """A call that gets no answer within the pool's call timeout fails with a message,
    the worker is stopped, and its channels' games load in a new one; the other worker
    is left alone."""
    async with SqliteEventStore(tmp_path / "hung.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        apart(pool, "stuck", "other")
        game_id = await three_player_game(pool, "stuck")  # type: ignore[arg-type]
        await three_player_game(pool, "other")  # type: ignore[arg-type]
        await pool.handle("stuck", ANNA, "bid TSR 20")
        before, other_pid, stuck_pid = position(await pool.status(game_id)), pool.pid("other"), pool.pid("stuck")
        os.mkfifo(tmp_path / "never")
        # Only this call has the short limit, so that a loaded machine stops no sound call. The
        # test does not wait for the worker to be inside the call: it may be stopped before it
        # gets there, and a handshake through a pipe would then wait for ever.
        pool.call_timeout = 1.0
        with pytest.raises(WorkerStopped, match="took longer than 1 s over run"):
            await pool.run("stuck", read_fifo, str(tmp_path / "never"))  # a worker in an endless wait
        pool.call_timeout = CALL_TIMEOUT
        assert position(await pool.status(game_id)) == before  # replayed from its log in a new worker
        assert pool.pid("stuck") != stuck_pid and pool.pid("other") == other_pid
        await pool.handle("stuck", BORIS, "bid TSR 25")
        await pool.handle("other", ANNA, "bid TSR 20")
        bids = [e.action.get("price") for e in await store.events(game_id) if e.action.get("type") == "bid"]
        assert bids == [20, 25]


def die_at_next_drawing() -> None:
    """In a worker: the next post's pictures are never drawn; the process dies instead."""

    async def die(*args: Any, **kwargs: Any) -> Any:
        os._exit(9)

    serving().post_pictures = die  # type: ignore[method-assign]


@pytest.mark.slow
async def test_pictures_whose_worker_died_drawing_them_are_drawn_by_its_successor(tmp_path: Path) -> None:
    attached: list[tuple[int, list[str]]] = []

    async def deliver(post: Post) -> int:
        return post.outbox_id

    async def attach(sent: int, post: Post, pictures: list[Picture]) -> None:
        attached.append((sent, [p.name for p in pictures]))

    async with SqliteEventStore(tmp_path / "redrawn.db") as store, ServicePool(store, workers=1) as pool:
        await three_player_game(pool, "redrawn")  # type: ignore[arg-type]
        await pool.flush(deliver, attach=attach)
        await pool.drawn()
        attached.clear()
        await pool.handle("redrawn", ANNA, "as Anna bid TSR 20")
        await pool.handle("redrawn", ANNA, "as Boris pass")
        await pool.handle("redrawn", ANNA, "as Clara pass")  # TSR sold: a post with pictures
        old = pool.pid("redrawn")
        await pool.run("redrawn", die_at_next_drawing)
        await pool.flush(deliver, attach=attach)
        await pool.drawn()
        assert [names for _, names in attached] == [["table"]]  # drawn after all
        assert pool.pid("redrawn") != old  # by a new worker


# --- every verb of the table, as the frontends send it, through a real pool -------------------

DMITRI = Account("d", "Dmitri")
EVERY_VERB: list[tuple[str, Account, str]] = [
    ("help", ANNA, "help bid"), ("options", ANNA, "options 1867"), ("games", BORIS, "games"),
    ("new", ANNA, "new 1861"), ("join", DMITRI, "join"), ("leave", DMITRI, "leave"), ("start", ANNA, "start"),
    ("import", ANNA, "import"), ("status", CLARA, "status"), ("web", BORIS, "web"), ("tiles", ANNA, "tiles"),
    ("bid", ANNA, "bid TSR 20"), ("auction", BORIS, "auction 1"), ("pass", BORIS, "pass"),
    ("agree", CLARA, "agree"), ("refuse", CLARA, "refuse"), ("withdraw", ANNA, "withdraw"),
    ("undo", BORIS, "undo"), ("redo", BORIS, "redo"), ("hint", CLARA, "hint"),
    ("computer", CLARA, "computer takes over"), ("back", CLARA, "I'm back"),
    ("buy", CLARA, "buy KR"), ("sell", CLARA, "sell KR"), ("par", CLARA, "par KR 100"),
    ("token", CLARA, "token C10"), ("home", CLARA, "home C10"), ("lay", CLARA, "lay C10 7 0"),
    ("run", CLARA, "run"), ("payout", CLARA, "payout"), ("half", CLARA, "dividend half"),
    ("withhold", CLARA, "withhold"), ("train", CLARA, "train 2"), ("discard", CLARA, "discard 2"),
    ("private", CLARA, "private TSR 20"), ("redeem", CLARA, "redeem"), ("convert", CLARA, "convert"),
    ("merge", CLARA, "merge 1"), ("into", CLARA, "into KR"), ("remove", CLARA, "remove C10"),
    ("keep", CLARA, "keep"), ("nationalize", CLARA, "choose nationalize"), ("map", BORIS, "map Z99"),
    ("market", BORIS, "market"), ("table", BORIS, "table"), ("holdings", BORIS, "holdings"),
    ("log", BORIS, "log 5"), ("export", BORIS, "export"), ("auto", CLARA, "auto pass stock"),
    ("pace", ANNA, "pace 24h"), ("bank", ANNA, "bank 3d"), ("away-limit", ANNA, "away-limit 14d"),
    ("on-timeout", ANNA, "on-timeout pass"), ("away", BORIS, "away 400d"), ("tz", BORIS, "tz Asia/Tokyo"),
    ("quiet", BORIS, "quiet 23:00-08:00"),
    ("stats", BORIS, "stats"), ("unarchive", BORIS, "unarchive"),
    ("as", ANNA, "as Boris pass"),
    ("replace", ANNA, "replace Clara @Dmitri"), ("seat", ANNA, 'seat "Boris" @Dmitri'),
    ("remind", BORIS, "remind me 24"), ("pause", ANNA, "pause tea"), ("resume", ANNA, "resume"),
    ("end", ANNA, "end"),
]
"""A command of each verb of the table, in an order that plays a little of a game."""


TIMES = (r"\d+ s\b|\d+ min\b|\d\d \w\w\w \d\d:\d\d"  # how long, and when, a reply may say:
         r"|\b\d+[dhm]\b|\d{4}-\d\d-\d\d \d\d:\d\d( UTC)?|<t:\d+(:\w)?>")  # "1d 2h 0m" and clock times
"""The times a reply may hold, which differ between two runs of the same moves."""


async def _every_verb(service: TroikaService | ServicePool) -> list[str]:
    """Each verb of the table sent as the Discord cog sends it (a typed or slash command
    to ``handle``; an attached file to ``import_site_game``; a mentioned member to
    ``replace_seat``), with the menus and typists each verb asks for, and the posts; what
    came back, as text."""
    seen: list[str] = []

    async def deliver(post: Post) -> None:
        seen.append(post.content(lambda seat: f"@{seat.display_name}"))

    async def outcome(call: Awaitable[Any]) -> None:
        try:
            answer = await call
        except Refusal as exc:
            answer = f"refused: {exc}"
        if isinstance(answer, Reply):
            answer = f"{answer.text} {[p.name for p in answer.pictures]} {[f.name for f in answer.files]}"
        seen.append(re.sub(TIMES, "a while", str(answer)))

    await service.start_local_game("table", [(a.id, a.name) for a in (ANNA, BORIS, CLARA)], seed=1, first_player=0)
    log, _ = shared_game("1867-21268")
    site = json.dumps({**log, "actions": log["actions"][:40]}).encode()
    for verb, account, text in EVERY_VERB:
        channel = "setup" if VERBS[verb].kind == "setup" and verb != "import" else "table"
        if verb == "import":
            await outcome(service.import_site_game("site", ANNA, site, name="21268.json", guild_id="g"))
            await outcome(service.replace_seat("site", ANNA, "Player 2", BORIS, key="interaction 1"))
        if VERBS[verb].options and VERBS[verb].options[-1].kind == "member":
            await outcome(service.replace_seat(channel, account, text.split()[1].strip('"'), DMITRI,
                                               key=f"interaction {verb}"))
        await outcome(service.handle(channel, account, text, key=f"message {verb}", guild_id="g"))
        if any(o.menu == "actions" for o in VERBS[verb].options):
            await outcome(service.suggestions(channel, verb, ""))
        await outcome(service.typing_account(channel, verb))
        await outcome(service.deciding_account(channel))
        await service.flush(deliver)
    for channel in ("table", "site"):
        await outcome(service.seat_names(channel))
        record = await service.store.active_game_in_channel(channel)
        assert record is not None
        await outcome(service.set_status_message(record.id, "42"))
        await outcome(service.status(record.id))
    await outcome(service.channel_deleted("setup"))
    await outcome(service.channel_deleted("setup"))  # no game there any more
    return seen


@pytest.mark.slow
async def test_every_verb_of_the_table_goes_through_the_pool_as_in_one_process(tmp_path: Path) -> None:
    """E1 and its class: every verb the cog forwards (and `import` with its file's name,
    which once collided with the pool's own parameter) is answered by the pool's worker
    exactly as the one-process service answers it."""
    assert {verb for verb, _, _ in EVERY_VERB} == set(VERBS)  # a new verb joins this test
    async with SqliteEventStore(tmp_path / "alone.db") as store:
        expected = await _every_verb(TroikaService(store, pictures=False))
    async with SqliteEventStore(tmp_path / "pool.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        assert await _every_verb(pool) == expected
    assert "imports 1867 game 21268" in "\n".join(expected)
    assert sum(line.startswith("refused") for line in expected) < len(expected) / 2


async def test_a_game_with_standing_orders_exports_through_the_pool(pool: ServicePool) -> None:
    """Finding 2 of the new-user trial: `export` crashed after any `auto` order. Through the
    worker pool, as `troika run` serves Discord: the log comes back attached, the order in it."""
    await three_player_game(pool, "orders")  # type: ignore[arg-type]
    for name, command in (("Anna", "auto pass merger"), ("Boris", "auto pass stock"), ("Boris", "auto off")):
        await pool.handle("orders", ANNA, f"as {name} {command}")
    reply = await pool.handle("orders", BORIS, "export")
    [attached] = reply.files
    log = json.loads(attached.data)
    assert [a["type"] for a in log["actions"]] == ["program_merger_pass", "program_share_pass", "program_disable"]
    assert reply.text.startswith(f"Game {log['id']} as an 18xx.games log: 3 actions.")


async def _face_answers(service: TroikaService | ServicePool, channel: str) -> list[object]:
    """Each plain call of the service's face, on a fresh three-player game."""
    game_id = await three_player_game(service, channel)  # type: ignore[arg-type]
    answers: list[object] = [
        (await service.status(game_id)).text.replace(f"game {game_id}", "game #"),
        await service.deciding_account(channel),
        await service.typing_account(channel, "bid"), await service.called_company(channel),
        await service.suggestions(channel, "bid", ""), await service.computer_moves(channel, 1),
    ]
    await service.set_status_message(game_id, "42")
    answers.append(await service.channel_deleted(channel) == game_id)
    return answers


async def test_every_call_of_the_face_is_answered_by_the_pool_as_by_one_process(
    pool: ServicePool, tmp_path: Path
) -> None:
    """The pool forwards what :class:`bot.face.ServiceFace` declares, and a worker's
    answer is checked against the type declared there."""
    calls = [name for name, member in vars(ServiceFace).items() if callable(member) and not name.startswith("_")]
    assert set(WORKER_CALLS) == set(calls) - IN_FRONT
    assert WORKER_CALLS["deciding_account"] == (Account, type(None)) and WORKER_CALLS["status"] is Status
    async with SqliteEventStore(tmp_path / "alone.db") as store:
        service = TroikaService(store, pictures=False)
        assert all(callable(getattr(service, name)) and callable(getattr(pool, name)) for name in calls)
        expected = await _face_answers(service, "face")
    assert await _face_answers(pool, "face") == expected
    assert expected[-1] is True and expected[1] == ANNA


async def test_games_lists_a_players_games_of_every_worker(tmp_path: Path) -> None:
    """`games` read the asker's games in every channel inside the asking channel's worker,
    which may not read another worker's games: with Boris's games pinned to both workers,
    `games` failed ("a worker may use only its own channels' games"; the Discord test
    caught it when its channels fell to different workers). The bot's process answers it."""
    boris = Account("b", "Boris")
    async with SqliteEventStore(tmp_path / "games.db") as store, ServicePool(store, workers=2, pictures=False) as pool:
        await pool.start_local_game("one", [("a", "Anna"), ("b", "Boris")], seed=1, first_player=0)
        await pool.start_local_game("two", [("b", "Boris"), ("c", "Clara")], seed=2, first_player=0)
        assert pool.worker_of("one") != pool.worker_of("two")
        for channel in ("one", "two"):
            listed = (await pool.handle(channel, boris, "games")).text
            assert "Game 1 in one" in listed and "Game 2 in two" in listed, listed
