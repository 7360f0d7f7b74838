"""Idle games are archived (issue 38): no move for 60 days (or as `troika run
--archive-after` sets) and the game leaves `games` and reminders, stays readable, and
`unarchive` brings it back. Days pass on the injected clock."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bot.archive import read_archive_after
from bot.console import CHANNEL
from bot.errors import Refusal
from bot.service import Account, Post, TroikaService
from bot.workers import ServicePool
from storage import SqliteEventStore
from storage.store import utc_now
from tests.test_bot_service import Table

ANNA, BORIS = Account("a", "Anna"), Account("b", "Boris")
PLAYERS = [("a", "Anna"), ("b", "Boris"), ("c", "Clara")]


async def _after(service: TroikaService, now: list, days: float) -> list[str]:  # type: ignore[type-arg]
    """Move the clock ``days`` on from the real now, run the reminder sweep, return the posts."""
    now[0] = utc_now() + timedelta(days=days)
    await service.send_reminders()
    sent: list[Post] = []

    async def deliver(post: Post) -> None:
        sent.append(post)
    await service.flush(deliver)
    return [p.content(lambda seat: f"@{seat.display_name}") for p in sent]


async def test_a_game_idle_for_60_days_is_archived_readable_and_brought_back(store: SqliteEventStore) -> None:
    now = [utc_now()]
    service = TroikaService(store, clock=lambda: now[0], pictures=False)
    table = Table(service)
    await service.start_local_game(CHANNEL, PLAYERS, first_player=0)
    await table.say("as Anna remind 24")
    await service.flush(lambda post: _ignore())
    assert "Game 1 in" in (await service.handle("elsewhere", ANNA, "games")).text
    posts = await _after(service, now, 59)
    assert posts and all("archived" not in p for p in posts)  # reminded, not archived: 59 days
    [archived] = await _after(service, now, 60.1)
    assert archived.startswith("📦 Game 1 has had no move for 60d 2h 24m and is archived")
    assert await _after(service, now, 80) == []  # no reminders for an archived game
    listing = (await service.handle("elsewhere", ANNA, "games")).text
    assert listing == "1 archived game not shown (`unarchive` in its channel brings it back)"
    status = await table.say("status")
    assert "📦 Archived on" in status and "To act: Anna" in status  # still readable
    assert "📦 archived for want of moves" in await table.say("log 2")
    before = (await table.game()).dump()
    refused = await table.say("as Anna pass")
    assert refused.startswith("✗ Game 1 was archived on") and "`unarchive` brings it back" in refused
    assert "\n" not in refused and (await table.game()).dump() == before
    with pytest.raises(Refusal, match=r"^This channel has game 1, archived on .* `unarchive` brings it back"):
        await service.start_local_game(CHANNEL, PLAYERS, first_player=0)  # said "already has game 1" and no more
    assert await table.say("as Boris unarchive please") == "✗ `unarchive` takes no `please`: write it as `unarchive`."
    back = await table.say("as Boris unarchive")
    assert "📦 Boris brings game 1 back from the archive" in back
    assert "Game 1 in" in (await service.handle("elsewhere", ANNA, "games")).text
    assert "✗ Game 1 is not archived." in await table.say("as Boris unarchive")
    assert all("archived" not in p for p in await _after(service, now, 81))  # idle again from its return
    assert "Anna: `pass`" in await table.say("as Anna pass")
    with pytest.raises(Refusal, match="^This channel already has game 1; its commissioner can `end` it"):
        await service.start_local_game(CHANNEL, PLAYERS, first_player=0)


async def test_the_archive_time_is_set_by_troika_run(store: SqliteEventStore) -> None:
    now = [utc_now()]
    service = TroikaService(store, clock=lambda: now[0], pictures=False, archive_after=read_archive_after("12h"))
    await service.start_local_game(CHANNEL, PLAYERS, first_player=0)
    await service.flush(lambda post: _ignore())
    assert await _after(service, now, 0.4) == []
    [archived] = await _after(service, now, 0.6)
    assert "is archived" in archived
    never = TroikaService(store, clock=lambda: now[0], pictures=False, archive_after=read_archive_after("off"))
    await never.start_local_game("other", PLAYERS, first_player=0)
    await never.flush(lambda post: _ignore())
    assert await _after(never, now, 400) == []


@pytest.mark.slow
def test_bad_archive_times_are_refused_in_one_line(tmp_path: Path) -> None:
    for bad in ("0d", "60", "sixty days", "-3d"):
        with pytest.raises(ValueError, match="days, hours or minutes"):
            read_archive_after(bad)
    done = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--db", str(tmp_path / "t.db"),
                           "--archive-after", "0d", "--web", "off"], capture_output=True, text=True, timeout=60,
                          input="", env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert done.stderr.startswith("troika: --archive-after: write it as days")
    assert not (tmp_path / "t.db").exists()


@pytest.mark.slow
async def test_archive_and_unarchive_through_the_worker_pool(tmp_path: Path) -> None:
    """As `troika run` serves Discord: the workers' services archive as configured."""
    async with SqliteEventStore(tmp_path / "games.db") as store, \
            ServicePool(store, workers=2, pictures=False, archive_after=timedelta(seconds=1)) as pool:
        await pool.start_local_game(CHANNEL, PLAYERS, first_player=0)
        record = await store.active_game_in_channel(CHANNEL)
        assert record is not None
        for _ in range(50):
            await pool.send_reminders()
            if (await store.get_game(record.id)).archived_at is not None:
                break
            await _sleep(0.1)
        assert (await store.get_game(record.id)).archived_at is not None
        refused = await _refusal(pool.handle(CHANNEL, ANNA, "pass"))
        assert "was archived" in refused
        await pool.handle(CHANNEL, BORIS, "unarchive")
        assert (await store.get_game(record.id)).archived_at is None


async def _ignore() -> None:
    return None


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


async def _refusal(call) -> str:  # type: ignore[no-untyped-def]
    from bot.errors import Refusal

    try:
        await call
    except Refusal as exc:
        return str(exc)
    raise AssertionError("not refused")
