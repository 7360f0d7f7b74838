"""One damaged row at a time is its own game's problem only (N2, N3 of the reliability
probe of 2026-12-01): the other games play, their posts go out, later games are
reminded, `games` and the start-up check work, and the damaged game's channel is told
why and freed by `end confirm`."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from bot.errors import Refusal
from bot.service import Account, TroikaService
from storage import SqliteEventStore
from storage.store import Snapshot, utc_now
from tests.test_reliability import ANNA, BORIS, CLARA, Outbox, three_player_game

T = "2026-01-01T00:00:00+00:00"
HUGE = "1" * 5000  # valid JSON that Python refuses to read as an int
DEEP = "[" * 100_000 + "]" * 100_000  # valid JSON nested past Python's recursion limit
EVENT = ("INSERT INTO events (game_id, seq, kind, action, created_at) VALUES"
         " (1, (SELECT MAX(seq) + 1 FROM events WHERE game_id = 1), 'action', ?, ?)")
POST = "INSERT INTO outbox (game_id, payload, created_at) VALUES (1, ?, ?)"
GAME = "UPDATE games SET {} WHERE id = 1"

# variant: (SQL steps, whether game 1 can still be played)
DAMAGES: dict[str, tuple[list[tuple[str, tuple[object, ...]]], bool]] = {
    "event with a 5,000-digit number": ([(EVENT, ('{"type": "bid", "price": ' + HUGE + "}", T))], False),
    "event nested 100,000 deep": ([(EVENT, ('{"type": "bid", "x": ' + DEEP + "}", T))], False),
    "event time garbage": ([(EVENT, ('{"type": "pass", "entity": "a"}', "yesterday"))], False),
    "options with a 5,000-digit number": ([(GAME.format("options = ?"), ('{"market": ' + HUGE + "}",))], False),
    "options nested deep": ([(GAME.format("options = ?"), ('{"market": ' + DEEP + "}",))], False),
    "game time garbage": ([(GAME.format("created_at = 'garbage'"), ())], False),
    "game seed text": ([(GAME.format("seed = 'abc'"), ())], False),
    "game engine version text": ([(GAME.format("engine_version = 'v2'"), ())], False),
    "seat number text": ([("UPDATE seats SET seat = 'x' WHERE game_id = 1 AND seat = 1", ())], False),
    "snapshot seq text": ([("UPDATE snapshots SET seq = 'abc' WHERE game_id = 1", ())], True),
    "snapshot data text": ([("UPDATE snapshots SET data = 'abc' WHERE game_id = 1", ())], True),
    "post with a 5,000-digit number": ([(POST, ('{"text": "hi", "seq": ' + HUGE + "}", T))], True),
    "post nested deep": ([(POST, ('{"text": ' + DEEP + "}", T))], True),
    "post time garbage": ([(POST, ('{"text": "hi", "seq": 1}', "not a time"))], True),
    "post of a game deleted in the sqlite3 shell": ([
        ("PRAGMA foreign_keys = OFF", ()), ("DELETE FROM seats WHERE game_id = 1", ()),
        ("DELETE FROM snapshots WHERE game_id = 1", ()), ("DROP TRIGGER events_no_delete", ()),
        ("DELETE FROM events WHERE game_id = 1", ()), ("DELETE FROM games WHERE id = 1", ()),
        (POST, ('{"text": "orphan", "seq": 1}', T))], False),
}


async def acting(service: TroikaService, channel: str) -> Account:
    record = await service.store.active_game_in_channel(channel)
    assert record is not None
    actor = (await service.repo.load(record.id)).game.actor()
    seat = next(s for s in record.seats if s.player_id == actor)
    return Account(str(seat.discord_user_id), seat.display_name)


@pytest.mark.parametrize("variant", list(DAMAGES))
async def test_a_damaged_row_is_its_own_games_problem(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "games.db"
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        for channel in ("victim", "healthy", "late"):
            await three_player_game(service, channel)
            await service.handle(channel, ANNA, "remind 1")
        record = await store.get_game(1)
        live = await service.repo.load(1)
        await store.put_snapshot(1, Snapshot(live.seq, service.repo.engine.version, live.state_hash,
                                             service.repo.engine.snapshot(live.game)))
        await service.flush(Outbox().deliver)
    steps, playable = DAMAGES[variant]
    with sqlite3.connect(path, isolation_level=None) as db:
        for sql, params in steps:
            db.execute(sql, params)

    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        await service.repo.verify_running_games(other_versions_only=True)  # the start-up check, as the bot runs it
        await service.handle("healthy", await acting(service, "healthy"), "pass")
        out = Outbox()
        await service.flush(out.deliver)
        assert 2 in {p.game_id for p in out.posts}  # the healthy game's post went out
        assert not [m for m in await store.outbox_unsent(limit=None) if m.game_id != 1]
        service.clock = lambda: utc_now() + timedelta(hours=3)
        await service.send_reminders()
        assert any(e.action.get("type") == "reminder" for e in await store.events(3))  # a later game
        assert "Game 2" in (await service.handle("elsewhere", ANNA, "games")).text
        if record.id not in {g.id for g in await store.list_games()}:
            return  # the victim is gone (deleted in the shell); its post was dropped
        if playable:
            await service.handle("victim", await acting(service, "victim"), "pass")
            return
        for who in (ANNA, BORIS, CLARA):  # refused, naming the damage (Boris: his seat is the damage)
            with pytest.raises(Refusal, match="cannot be loaded|could not be loaded|no seat"):
                await service.handle("victim", who, "pass")
        with pytest.raises(Refusal, match="cannot be loaded|could not be loaded"):
            await service.handle("victim", ANNA, "status")
        reply = await service.handle("victim", ANNA, "end confirm broken")
        assert "is ended" in reply.text and await store.active_game_in_channel("victim") is None


async def test_postgres_reads_damaged_rows_the_same_way(postgres_url: str) -> None:
    """The rows' decoding is shared: on PostgreSQL too a 5,000-digit number or nesting past
    the stack is its row's problem (CorruptEvent, a record's or post's ``problem``)."""
    import asyncpg

    from storage import CorruptEvent
    from storage.postgres import PostgresEventStore
    from storage.store import NewEvent, NewGame

    async with PostgresEventStore(postgres_url) as store:
        game = await store.create_game(NewGame("1861", {}, 1, "111", 1), [NewEvent({"type": "start"})])
        admin = await asyncpg.connect(postgres_url)
        try:
            await admin.execute("INSERT INTO events (game_id, seq, kind, action, created_at)"
                                " VALUES ($1, 2, 'action', $2, now())", game.id, '{"price": ' + HUGE + "}")
            await admin.execute("INSERT INTO outbox (game_id, payload, created_at) VALUES ($1, $2, now())",
                                game.id, '{"text": ' + DEEP + "}")
            await admin.execute("UPDATE games SET options = $1 WHERE id = $2", '{"market": ' + DEEP + "}", game.id)
        finally:
            await admin.close()
        with pytest.raises(CorruptEvent, match="event 2"):
            await store.events(game.id)
        [post] = await store.outbox_unsent()
        assert post.payload == {} and "RecursionError" in str(post.problem)
        assert "its options cannot be read" in str((await store.get_game(game.id)).problem)
        assert [g.id for g in await store.list_games()] == [game.id]


async def test_a_damaged_page_of_one_games_log_still_lets_it_be_ended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """N3: in a database too large to read in full at start, a damaged page of one game's
    log: the other game plays, and `end confirm` frees the damaged game's channel."""
    from storage import sqlite

    path = tmp_path / "games.db"
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        victim = await three_player_game(service, "victim")
        await three_player_game(service, "healthy")
    with sqlite3.connect(path, isolation_level=None) as db:
        db.executemany("INSERT INTO events (game_id, seq, kind, action, created_at, note) VALUES (?, ?, 'admin',"
                       " '{\"type\": \"note\"}', ?, ?)", [(victim, seq, T, "x" * 900) for seq in range(3, 203)])
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        leaves = [row[0] for row in db.execute(
            "SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno")]
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
    with path.open("r+b") as handle:  # a page in the middle of the victim's notes
        handle.seek((leaves[len(leaves) // 2] - 1) * page_size)
        handle.write(b"\xa5" * page_size)
    monkeypatch.setattr(sqlite, "FULL_CHECK_BYTES", 0)  # "large": read in full only in the background
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        await service.handle("healthy", await acting(service, "healthy"), "pass")
        reply = await service.handle("victim", ANNA, "end confirm the database is damaged")
        assert "is ended" in reply.text and await store.active_game_in_channel("victim") is None
        await service.handle("victim", ANNA, "new")  # the channel is free


CLAIMS = {  # R2: (owner, expires_at) of a claims row no process could have written
    "time garbage": ("'troika on elsewhere'", "'garbage'"),
    "time a number": ("'troika on elsewhere'", "12"),
    "time far ahead": ("'troika on elsewhere'", "'9999-01-01T00:00:00+00:00'"),
    "time without its zone": ("'troika on elsewhere'", "'2999-01-01T00:00:00'"),
    "owner not text": ("X'7a'", "strftime('%Y-%m-%dT%H:%M:%S+00:00', 'now', '+50 seconds')"),
}


@pytest.mark.parametrize("damage", list(CLAIMS))
async def test_a_damaged_claim_never_silences_its_game(
        tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    """R2: a claims row that cannot be a live process's claim is logged and taken over:
    the game's posts go out with the other game's."""
    path = tmp_path / "games.db"
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        for channel in ("victim", "healthy"):
            await three_player_game(service, channel)
        await service.flush(Outbox().deliver)
    owner, expires = CLAIMS[damage]
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute(f"INSERT OR REPLACE INTO claims VALUES (1, {owner}, {expires})")
    async with SqliteEventStore(path) as store:
        service = TroikaService(store, pictures=False)
        for channel in ("victim", "healthy"):
            await service.handle(channel, ANNA, "bid TSR 20")
        out = Outbox()
        for _ in range(2):
            await service.flush(out.deliver)
        assert sorted(p.game_id for p in out.posts) == [1, 2]
        assert await store.outbox_unsent() == []
    assert "game 1: its delivery claim is damaged" in caplog.text


async def test_a_live_claim_is_not_taken_for_damage(tmp_path: Path) -> None:
    """A claim another process holds, within its lease, stays its (R2's check takes only
    what no lease could have made)."""
    async with SqliteEventStore(tmp_path / "games.db") as store:
        service = TroikaService(store, pictures=False)
        game_id = await three_player_game(service, "held")
        assert await store.claim_game(game_id, "troika on elsewhere", timedelta(minutes=30))
        assert not await store.claim_game(game_id, "troika on here")


async def test_postgres_takes_over_a_claim_that_never_runs_out(
        postgres_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """R2 on PostgreSQL: a claim until 'infinity' (or the year 9999) is logged and taken over."""
    import asyncpg

    from storage.postgres import PostgresEventStore
    from storage.store import NewGame

    async with PostgresEventStore(postgres_url) as store:
        game = await store.create_game(NewGame("1861", {}, 1, "111", 1))
        for until in ("infinity", "9999-01-01 00:00:00+00"):
            admin = await asyncpg.connect(postgres_url)
            try:
                await admin.execute("INSERT INTO claims VALUES ($1, 'troika on elsewhere', $2::text::timestamptz)"
                                    " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner,"
                                    " expires_at = excluded.expires_at", game.id, until)
            finally:
                await admin.close()
            assert await store.claim_game(game.id, "troika on here")
            assert not await store.claim_game(game.id, "troika on elsewhere")
            await store.release_claims("troika on here")
    assert caplog.text.count("its delivery claim is damaged") == 2


async def test_an_unreadable_copy_marker_still_marks_an_unfinished_copy(tmp_path: Path) -> None:
    """A neighbour of R2: the copy marker's time damaged refuses the database as the
    target of an unfinished copy, in one line (it was a ValueError at every start)."""
    from storage import UnfinishedCopy

    path = tmp_path / "games.db"
    async with SqliteEventStore(path) as store:
        await store.mark_copy(utc_now())
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute("UPDATE copy_marker SET started_at = 'garbage'")
    with pytest.raises(UnfinishedCopy, match="did not finish"):
        await SqliteEventStore(path).open()
