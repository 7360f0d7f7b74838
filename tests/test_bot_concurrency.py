"""No game waits for another: while one game's engine call or drawing is still running,
another game's commands are answered, and the slow game's own commands keep their order;
at start only games stored under another engine version are replayed."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot import posts
from bot.discord_bot import check_other_versions
from bot.service import TroikaService
from storage import SqliteEventStore
from tests.test_reliability import ANNA, BORIS, CLARA, _rewrite_hashes, three_player_game


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[TroikaService]:
    async with SqliteEventStore(tmp_path / "games.db") as store:
        yield TroikaService(store, pictures=False)


async def test_a_slow_engine_call_delays_only_its_own_game(
    service: TroikaService, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_id = await three_player_game(service, "slow")
    await three_player_game(service, "quick")
    slow_game = (await service.repo.load(slow_id)).game
    entered, release = threading.Event(), threading.Event()
    apply = service.engine.apply

    def held_apply(game: Any, action: dict[str, Any], **how: Any) -> list[str]:
        if game is slow_game:  # game A's engine call runs until the test lets it go
            entered.set()
            release.wait(timeout=20)
        return apply(game, action, **how)

    monkeypatch.setattr(service.engine, "apply", held_apply)
    slow = asyncio.create_task(service.handle("slow", ANNA, "bid TSR 20"))
    assert await asyncio.to_thread(entered.wait, 20)
    queued = asyncio.create_task(service.handle("slow", BORIS, "bid TSR 25"))  # waits for its game

    await service.handle("quick", ANNA, "bid TSR 20")
    await service.handle("quick", BORIS, "bid TSR 25")
    status = await service.handle("quick", CLARA, "status")
    assert "TSR" in status.text
    assert not slow.done() and not queued.done()  # answered while game A's call is still running

    release.set()
    await slow
    await queued
    for channel in ("slow", "quick"):
        record = await service.store.active_game_in_channel(channel)
        assert record is not None
        bids = [e.action for e in await service.store.events(record.id) if e.kind == "action"]
        assert [(b["entity"], b["price"]) for b in bids] == [("a", 20), ("b", 25)]


async def test_drawing_one_game_s_map_delays_no_other_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with SqliteEventStore(tmp_path / "drawn.db") as store:
        service = TroikaService(store, pictures=True)
        slow_id = await three_player_game(service, "slow")
        await three_player_game(service, "quick")
        slow_game = (await service.repo.load(slow_id)).game
        entered, release = threading.Event(), threading.Event()
        draw = posts._draw

        def held_draw(game: Any, *args: Any) -> dict[str, str]:
            if game is slow_game:
                entered.set()
                release.wait(timeout=20)
            return draw(game, *args)

        monkeypatch.setattr(posts, "_draw", held_draw)
        drawing = asyncio.create_task(service.handle("slow", CLARA, "map"))
        assert await asyncio.to_thread(entered.wait, 20)
        await service.handle("quick", ANNA, "bid TSR 20")
        assert not drawing.done()
        release.set()
        assert [p.name for p in (await drawing).pictures] == ["map"]


async def test_at_start_only_games_of_another_engine_version_are_replayed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db_path = tmp_path / "versions.db"
    async with SqliteEventStore(db_path) as store:
        service = TroikaService(store, pictures=False)
        older, changed, current = [await three_player_game(service, c) for c in ("older", "changed", "current")]
        for game_id in (older, changed):
            await store.set_engine_version(game_id, 0)
        _rewrite_hashes(db_path, changed, [1])  # what a rules change does to its history
        _rewrite_hashes(db_path, current, [1])  # not checked: stored under this version
        restarted = TroikaService(store, pictures=False)
        with caplog.at_level(logging.WARNING):
            await check_other_versions(restarted)
        assert f"game {changed} does not load" in caplog.text
        assert f"game {current} does not" not in caplog.text and f"game {older} does not" not in caplog.text
        versions = [(await store.get_game(g)).engine_version for g in (older, changed, current)]
        assert versions == [service.repo.engine.version, 0, service.repo.engine.version]
