"""The reliability probe of 2026-12-04 (R1, R3, R5-R8): pictures owed across a crash,
posts with wrongly typed fields, games without a commissioner, imported names, what a
worker may send and ask, and backups of read-only databases. In the configuration
`troika run` starts (worker processes) and with ``--workers 0`` where the two differ."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import struct
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.errors import NotAllowed, WorkerStopped
from bot.posts import Picture
from bot.service import Account, Post, TroikaService
from bot.workers import MAX_FRAME, ServicePool, serving
from storage import EventKind, GameStatus, NewEvent, SqliteEventStore, StoreError
from tests.conftest import shared_game
from tests.test_bot_workers import apart
from tests.test_reliability import ANNA, BORIS, CLARA, ROOT, three_player_game
from tests.test_storage_hostile import _without_dac_override, cut_short_by_a_checkpoint, reading_login

CONFIGS = ["workers 0", "worker processes"]


@asynccontextmanager
async def service_in(config: str, store: SqliteEventStore) -> AsyncIterator[Any]:
    """The service as ``troika run --workers 0`` runs it, or with a worker process."""
    if config == "workers 0":
        yield TroikaService(store)
        return
    async with ServicePool(store, workers=1) as pool:
        yield pool


class Channel:
    """A fake channel: each post's text as sent, and the pictures attached to it after."""

    def __init__(self) -> None:
        self.posts: list[Post] = []
        self.pictures: dict[int, list[str]] = {}

    async def deliver(self, post: Post) -> str:
        self.posts.append(post)
        self.pictures[post.outbox_id] = [p.name for p in post.pictures]
        return str(post.outbox_id)

    async def attach(self, sent: str, post: Post, pictures: list[Picture]) -> None:
        assert sent == str(post.outbox_id)
        self.pictures[post.outbox_id] = [p.name for p in pictures]


# R3 ------------------------------------------------------------------------------------

BAD_POSTS = [
    '{"text": "x", "seq": "abc"}',
    '{"text": "x", "pictures": ["map"]}',
    '{"text": "x", "seq": true, "pictures": ["map"]}',
    '{"text": 5, "seq": 1}',
    '{"text": "x", "next": ["a"]}',
    '{"text": "x", "kind": "turn", "mention": "a", "seq": "1"}',
    '{"text": "x", "pictures": [1], "seq": 1}',
    '{"text": "x", "pictures": "map", "seq": 1}',
    '{"text": "x", "highlight": 5, "pictures": ["map"], "seq": 1}',
    '{"text": "x", "routes": "abc", "pictures": ["routes"], "seq": 1}',
]


@pytest.mark.slow
@pytest.mark.parametrize("attach", [False, True], ids=["pictures with the text", "pictures attached after"])
@pytest.mark.parametrize("config", CONFIGS)
async def test_a_post_with_a_wrongly_typed_field_is_dropped_and_the_rest_delivered(
        tmp_path: Path, config: str, attach: bool, caplog: pytest.LogCaptureFixture) -> None:
    """R3: each such pending post is logged and dropped; the game's later posts go out,
    with their pictures."""
    path = tmp_path / "games.db"
    async with SqliteEventStore(path) as store, service_in(config, store) as service:
        game_id = await three_player_game(service, "table")
        channel = Channel()
        how: dict[str, Any] = {"attach": channel.attach} if attach else {}

        async def flush() -> None:
            await service.flush(channel.deliver, **how)
            await service.drawn()

        await flush()
        for n, payload in enumerate(BAD_POSTS, 1):
            with sqlite3.connect(path, isolation_level=None) as db:
                db.execute("INSERT INTO outbox (game_id, payload, created_at) VALUES (?, ?, ?)",
                           (game_id, payload, "2026-12-04T00:00:00+00:00"))
            await service.handle("table", ANNA, f"remind {n}")
            await flush()
            assert channel.posts[-1].text.startswith(f"⏰ Reminders: a player is reminded after {n} h")
        for name, command in (("Anna", "bid TSR 20"), ("Boris", "pass"), ("Clara", "pass")):
            await service.handle("table", ANNA, f"as {name} {command}")
        await flush()
        assert await store.outbox_unsent(limit=None) == []
    texts = [p.text for p in channel.posts]
    assert "x" not in texts and len(texts) == 1 + len(BAD_POSTS) + 3
    assert channel.pictures[channel.posts[-1].outbox_id] == ["table"]  # TSR sold: the table, drawn
    assert caplog.text.count("dropped: its") + caplog.text.count("dropped: it wants") == len(BAD_POSTS)
    assert "retried later" not in caplog.text


# R8 ------------------------------------------------------------------------------------

READ_ONLY = ["read-only mount", "read-only mount after a crash", "file 0444 in a folder 0555", "folder 0555"]


@contextmanager
def read_only_disk(folder: Path, case: str) -> Iterator[None]:
    """``folder`` made read-only as ``case`` says, for the test's block."""
    if "mount" not in case:
        (folder / "games.db").chmod(0o444 if "0444" in case else 0o644)
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    hold = folder.parent / "on tmpfs"
    hold.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(hold)], capture_output=True).returncode:
        pytest.skip("no tmpfs can be mounted here (not root?)")
    try:
        for file in folder.iterdir():
            shutil.copy(file, hold / file.name)
        subprocess.run(["mount", "-o", "remount,ro", str(hold)], check=True)
        subprocess.run(["mount", "--bind", str(hold), str(folder)], check=True)
        try:
            yield
        finally:
            subprocess.run(["umount", str(folder)], check=True)
    finally:
        subprocess.run(["umount", str(hold)], check=True)


@pytest.mark.parametrize("case", READ_ONLY)
async def test_a_database_on_a_read_only_disk_is_backed_up_and_exported(tmp_path: Path, case: str) -> None:
    """R8: `troika backup` and `troika export` only read: a read-only mount (cleanly
    closed, or with the -wal and -shm a crash left), a read-only file or folder will do.
    Run as a user whom file permissions bind."""
    folder = tmp_path / "db"
    folder.mkdir()
    path = folder / "games.db"
    copy, exported = tmp_path / "copy.db", tmp_path / "game.json"
    commands = [["backup", str(copy), "--db", str(path)]]
    if case.endswith("after a crash"):
        await cut_short_by_a_checkpoint(path)  # as a SIGKILL left it: game 1 at event 401, most in the -wal
        assert Path(f"{path}-wal").exists() and Path(f"{path}-shm").exists()
        game_id, events = 1, 401
    else:
        async with SqliteEventStore(path) as store:
            service = TroikaService(store, pictures=False)
            game_id = await three_player_game(service, "table")
            await service.handle("table", ANNA, "bid TSR 20")
        events = 2
        commands.append(["export", "--db", str(path), "--game", str(game_id), "--out", str(exported)])
    tmp_path.chmod(0o777)  # the copies are written by the unprivileged run
    with read_only_disk(folder, case):
        runs = [subprocess.run(_without_dac_override("-m", "bot.cli", *argv), capture_output=True, text=True,
                               timeout=120, cwd=ROOT) for argv in commands]
    assert [r.returncode for r in runs] == [0] * len(commands), [r.stderr for r in runs]
    async with SqliteEventStore(copy) as backup:
        assert await backup.last_seq(game_id) == events
    if len(commands) > 1:
        assert [p["name"] for p in json.loads(exported.read_text())["players"]] == ["Anna", "Boris", "Clara"]


async def test_a_wal_that_cannot_be_read_on_a_read_only_disk_is_named(tmp_path: Path) -> None:
    """R8's limit: a -wal left without its -shm on a read-only disk cannot be read by
    SQLite there; the backup is refused saying what to do (not a copy without its changes)."""
    folder = tmp_path / "db"
    folder.mkdir()
    path = folder / "games.db"
    await cut_short_by_a_checkpoint(path)
    Path(f"{path}-shm").unlink()
    with read_only_disk(folder, "read-only mount"):
        run = subprocess.run([sys.executable, "-m", "bot.cli", "backup", str(tmp_path / "copy.db"), "--db", str(path)],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 1 and "copy games.db and games.db-wal to a writable folder" in run.stderr, run.stderr
    assert not (tmp_path / "copy.db").exists()


async def test_postgres_is_backed_up_by_a_login_that_may_only_read(postgres_url: str, tmp_path: Path) -> None:
    """R8's neighbour on PostgreSQL: a login with SELECT only (a read-only replica's)."""
    from bot.cli import main
    from storage.postgres import PostgresEventStore

    async with PostgresEventStore(postgres_url) as store:
        game_id = await three_player_game(TroikaService(store, pictures=False), "table")
    reader = await reading_login(postgres_url, "troika_backup")
    assert await asyncio.to_thread(main, ["backup", str(tmp_path / "copy.db"), "--db", reader]) == 0
    async with SqliteEventStore(tmp_path / "copy.db") as copy:
        assert await copy.last_seq(game_id) == 1


# R5 ------------------------------------------------------------------------------------

NO_COMMISSIONER = {
    "every seat deleted": "DELETE FROM seats WHERE game_id = 1",
    "no seat is the commissioner's": "UPDATE seats SET commissioner = 0 WHERE game_id = 1",
    "the commissioner's seat has no account": "UPDATE seats SET discord_user_id = NULL WHERE game_id = 1 AND seat = 0",
}


@pytest.mark.parametrize("damage", list(NO_COMMISSIONER))
@pytest.mark.parametrize("config", CONFIGS)
async def test_a_game_whose_seats_name_no_commissioner_can_be_ended(tmp_path: Path, config: str, damage: str) -> None:
    """R5: with no commissioner who could type it, any seated player, or the account that
    created the game where no seat is left, may `end confirm` it; a stranger may not.
    The channel is then free for a `new` game."""
    path = tmp_path / "games.db"
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        await three_player_game(service, "victim")
        await three_player_game(service, "other")
        await service.handle("victim", ANNA, "bid TSR 20")
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute(NO_COMMISSIONER[damage])
    ender = ANNA if damage == "every seat deleted" else BORIS  # the creator; a seated player
    async with SqliteEventStore(path) as store, service_in(config, store) as service:
        with pytest.raises(NotAllowed, match="no commissioner"):
            await service.handle("victim", Account("z", "Zed"), "end confirm")
        reply = await service.handle("victim", ender, "end confirm the commissioner's seat is damaged")
        assert await store.active_game_in_channel("victim") is None, reply.text
        await service.handle("victim", CLARA, "new")
        with pytest.raises(NotAllowed, match=r"Only the commissioner \(Anna\)"):  # a game with its commissioner
            await service.handle("other", BORIS, "end confirm")


# R6 ------------------------------------------------------------------------------------

NAMES = {  # the site's names -> the seats'
    "the same but for case": (["Anna", "Anna", "anna"], ["Anna", "Anna 2", "anna 3"]),
    "empty or blank": (["", "  ", "\t"], ["Player 1", "Player 2", "Player 3"]),
    "over two lines": (["A\n**Game over: Mallory wins**", "B", "b"], ["A **Game over: Mallory wins**", "B", "b 2"]),
}


@pytest.mark.parametrize("case", list(NAMES))
@pytest.mark.parametrize("config", CONFIGS)
async def test_imported_names_are_made_one_line_and_distinct(tmp_path: Path, config: str, case: str) -> None:
    """R6: each seat of an imported game gets a name of its own on one line, the reply
    says which were changed, and the commissioner can hand every seat out by name."""
    log, _ = shared_game("1861-29683")
    site, seated = NAMES[case]
    log = {**log, "actions": log["actions"][:20],
           "players": [{**p, "name": n} for p, n in zip(log["players"], site, strict=True)]}
    zed = Account("5522", "Zed")
    async with SqliteEventStore(tmp_path / "games.db") as store, service_in(config, store) as service:
        reply = await service.import_site_game("table", zed, json.dumps(log).encode())
        record = await store.active_game_in_channel("table")
        # the importer takes the first seat under their own name (E5); the others are made distinct
        assert record is not None and [s.display_name for s in record.seats] == ["Zed", *seated[1:]]
        assert "Renamed so each seat has a name of its own" in reply.text and "\n" not in reply.text
        holder = next(s for s in record.seats if s.commissioner)
        assert holder.seat == 0 and holder.discord_user_id == zed.id
        for n, name in enumerate(seated[1:], 1):
            told = await service.replace_seat("table", zed, name, Account(f"new{n}", f"New {n}"))
            assert f"takes {name}'s seat" in told.text
        record = await store.active_game_in_channel("table")
        assert record is not None
        assert [s.discord_user_id for s in record.seats] == [zed.id, "new1", "new2"]  # the importer kept theirs
        status = (await service.handle("table", zed, "status")).text
        assert "**Game over: Mallory wins**" not in [line.strip() for line in status.splitlines()]


async def test_a_log_whose_seats_cannot_be_told_apart_is_refused(tmp_path: Path) -> None:
    """R6 in the store: a Troika log with two names alike or a name on two lines is
    refused naming the players (the site's import renames them before)."""
    from storage import GameRepository, TroikaEngine
    from storage.gamelog import InvalidGameLog

    log = {"title": "1861", "settings": {"seed": 1, "options": {}}, "actions": [],
           "players": [{"id": "a", "name": "Anna"}, {"id": "b", "name": "ANNA"}]}
    async with SqliteEventStore(tmp_path / "games.db") as store:
        repo = GameRepository(store, TroikaEngine())
        with pytest.raises(InvalidGameLog, match=r"players\[0\] and players\[1\] are both called 'ANNA'"):
            await repo.import_game(log, "a")
        log["players"][1]["name"] = "Bo\nris"
        with pytest.raises(InvalidGameLog, match=r"players\[1\].name must be one line"):
            await repo.import_game(log, "a")
        assert await store.list_games() == []


# R7 ------------------------------------------------------------------------------------

def _in_worker_loop(work: Any) -> Any:
    """In a worker (:meth:`ServicePool.run` runs functions in a thread): ``work``, a
    coroutine, run on the worker's event loop; its result."""
    loop = serving().store._writer._loop
    return asyncio.run_coroutine_threadsafe(work, loop).result(30)


def send_header_only(length: int) -> str:
    """In a worker: a message's header naming ``length`` bytes, and no more."""
    writer = serving().store._writer

    async def write() -> None:
        writer.write(struct.pack("!Q", length))
        await writer.drain()

    _in_worker_loop(write())
    return "sent"


def abandon(game_id: int) -> Any:
    """In a worker: ask the bot's process to abandon a game."""
    return _in_worker_loop(serving().store.set_status(game_id, GameStatus.ABANDONED))


def append_note(game_id: int) -> int:
    """In a worker: ask the bot's process to append to a game's log; the event's number."""
    store = serving().store
    return int(_in_worker_loop(store.append(game_id, 1, NewEvent({"type": "note"}, EventKind.ADMIN))).seq)


def read_channel(channel_id: str) -> int | None:
    """In a worker: ask the bot's process for a channel's game; its number."""
    record = _in_worker_loop(serving().store.active_game_in_channel(channel_id))
    return None if record is None else int(record.id)


@pytest.mark.slow
async def test_a_worker_s_message_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    """R7: a length over :data:`MAX_FRAME` stops the worker at once (it was read whole, or
    waited for until the call timed out); the other worker and the games go on."""
    async with SqliteEventStore(tmp_path / "games.db") as store, \
            ServicePool(store, workers=2, pictures=False, call_timeout=120) as pool:
        apart(pool, "a", "b")
        game_id = await three_player_game(pool, "a")
        await three_player_game(pool, "b")
        other = pool.pid("b")
        for length in (MAX_FRAME + 1, 200 * 2**20, 2**62):
            started = asyncio.get_running_loop().time()
            with pytest.raises(WorkerStopped, match=f"a message of {length} bytes, over the {MAX_FRAME}"):
                await pool.run("a", send_header_only, length)
            assert asyncio.get_running_loop().time() - started < 30  # not the call's timeout
        await pool.handle("a", ANNA, "bid TSR 20")  # a new worker, the game from the store
        assert pool.pid("b") == other and (await store.last_seq(game_id)) == 2


@pytest.mark.slow
async def test_a_worker_may_change_and_read_only_its_own_channels_games(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """R7: a store call of a worker about another worker's channel is refused and logged;
    its own channel's are carried out."""
    async with SqliteEventStore(tmp_path / "games.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        apart(pool, "mine", "theirs")
        mine = await three_player_game(pool, "mine")
        theirs = await three_player_game(pool, "theirs")
        for attempt in (pool.run("mine", abandon, theirs), pool.run("mine", append_note, theirs),
                        pool.run("mine", read_channel, "theirs"), pool.run("mine", abandon, "1 OR 1=1")):
            with pytest.raises(StoreError, match="a worker may use only its own channels. games"):
                await attempt
        assert (await store.get_game(theirs)).status is GameStatus.RUNNING and await store.last_seq(theirs) == 1
        await pool.handle("theirs", ANNA, "bid TSR 20")
        assert await pool.run("mine", read_channel, "mine") == mine
        assert await pool.run("mine", append_note, mine) == 2 == await store.last_seq(mine)
        assert "worker" in caplog.text and "in channel theirs, worker" in caplog.text
        await pool.verify_running_games()  # the start-up check still reads and marks every running game


# R1 ------------------------------------------------------------------------------------

_DIES_BEFORE_THE_PICTURES = r"""
import asyncio, os, sys
from bot.workers import open_service

async def main(db, workers, record):
    async with open_service(db, workers=workers) as service:
        async def deliver(post):
            with open(record, "a") as out:
                out.write(f"{post.outbox_id}\n")
            return f"message {post.outbox_id}"
        async def attach(sent, post, pictures):
            os._exit(9)  # the bot dies as the first post's pictures are ready: the texts are out
        await service.flush(deliver, attach=attach)
        await service.drawn()

asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS)
async def test_pictures_owed_when_the_bot_died_after_the_text_are_attached_after_it_starts_again(
        tmp_path: Path, config: str) -> None:
    """R1: the bot's process killed after its posts' texts went out and before their
    pictures were attached; started again, it attaches each post's pictures to the
    message its text went to, in order, and sends no text twice."""
    path = tmp_path / "games.db"
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        await three_player_game(service, "table")  # its start post: the map and the table
        for name, command in (("Anna", "bid TSR 20"), ("Boris", "pass"), ("Clara", "pass")):  # TSR sold: the table
            await service.handle("table", ANNA, f"as {name} {command}")
        posts = [m.id for m in await store.outbox_unsent()]
    record = tmp_path / "sent.txt"
    died = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-c", _DIES_BEFORE_THE_PICTURES, str(path),
                         "0" if config == "workers 0" else "1", str(record)],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert died.returncode == 9, died.stderr
    assert [int(n) for n in record.read_text().split()] == posts  # every text went out, once

    attached: list[tuple[str, list[str]]] = []

    async def deliver(post: Post) -> str:
        raise AssertionError(f"post {post.outbox_id} sent twice")

    async def attach(sent: str, post: Post, pictures: list[Picture]) -> None:
        assert sent == f"message {post.outbox_id}"
        attached.append((sent, [p.name for p in pictures]))

    async with SqliteEventStore(path) as store, service_in(config, store) as service:
        for _ in range(2):  # owed no more after the first: not attached again
            await service.flush(deliver, attach=attach)
            await service.drawn()
        assert attached == [(f"message {posts[0]}", ["map", "table"]), (f"message {posts[-1]}", ["table"])]
        assert await store.outbox_owed() == []


def fail_next_drawings(count: int) -> None:
    """In a worker: its next ``count`` drawings fail as a stopped worker's do."""
    draw = serving().post_pictures
    left = [count]

    async def failing(*args: Any, **kwargs: Any) -> Any:
        if left[0]:
            left[0] -= 1
            raise StoreError("the bot's process has gone")
        return await draw(*args, **kwargs)

    serving().post_pictures = failing  # type: ignore[method-assign]


@pytest.mark.slow
async def test_pictures_whose_drawing_failed_are_tried_again_at_the_next_flush(tmp_path: Path) -> None:
    """R1's neighbour: a post's pictures whose drawing failed for a passing reason (the
    database's trouble as the worker read the game; a successor that stopped too) stay
    owed and are attached by a later flush of the same process (they were lost)."""
    attached: list[list[str]] = []

    async def deliver(post: Post) -> str:
        return str(post.outbox_id)

    async def attach(sent: str, post: Post, pictures: list[Picture]) -> None:
        attached.append([p.name for p in pictures])

    async with SqliteEventStore(tmp_path / "games.db") as store, ServicePool(store, workers=1) as pool:
        await three_player_game(pool, "table")
        await pool.run("table", fail_next_drawings, 1)
        await pool.flush(deliver, attach=attach)
        await pool.drawn()
        assert attached == [] and len(await store.outbox_owed()) == 1
        await pool.flush(deliver, attach=attach)
        await pool.drawn()
        assert attached == [["map", "table"]] and await store.outbox_owed() == []


async def test_the_discord_cog_attaches_pictures_to_a_message_it_finds_by_id(tmp_path: Path) -> None:
    """R1 at Discord's side: the id of the message the cog's send answers is kept, and the
    cog's attach finds the message by that id, as a bot started again must (it holds no
    message object)."""
    from bot.discord_bot import GameCog
    from tests.test_bot_discord import FakeBot, FakeChannel

    async with SqliteEventStore(tmp_path / "games.db") as store:
        service = TroikaService(store)
        channel = FakeChannel(777)
        await three_player_game(service, "777")
        before = GameCog(FakeBot(service, channel))  # type: ignore[arg-type]
        sent: list[tuple[Post, Any]] = []

        async def deliver(post: Post) -> Any:
            sent.append((post, await before._send(post)))
            return sent[-1][1]

        async def dies(*_: Any) -> None:
            raise asyncio.CancelledError  # the bot stops before the pictures are attached

        await service.flush(deliver, attach=dies)
        await service.drawn()
        [(post, message)] = sent
        assert message is channel.sent[0] and message.files == []
        assert [m.pictures_for for m in await store.outbox_owed()] == [str(message.id)]
        after = GameCog(FakeBot(TroikaService(store), channel))  # type: ignore[arg-type]
        await after.deliver()
        await after.service.drawn()
        assert channel.sent[0].filenames == ["map.png", "table.png"]
        assert [m.nonce for m in channel.sent].count(post.outbox_id) == 1  # its text not sent again
