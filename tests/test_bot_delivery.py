"""Delivery per game and choices bound to their post, at the service (no Discord).

The same behaviour is checked on the wire in ``test_discord_e2e.py``; these run in
milliseconds and show the rule itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.service import Post, TroikaService
from storage import SqliteEventStore
from tests.test_reliability import ANNA, BORIS, refusal, three_player_game


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[TroikaService]:
    async with SqliteEventStore(tmp_path / "troika.db") as store:
        yield TroikaService(store, pictures=False)


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.001)


async def test_a_slow_channel_holds_back_no_other_games_posts(service: TroikaService) -> None:
    slow = await three_player_game(service, "slow")
    idle = await three_player_game(service, "idle")
    slow_open = asyncio.Event()
    sent: list[str | None] = []
    followed: list[int] = []

    async def deliver(post: Post) -> None:
        if post.channel_id == "slow":
            await slow_open.wait()  # a channel at its rate limit, or Discord retrying after 502s
        sent.append(post.channel_id)

    async def then(game_id: int) -> None:
        followed.append(game_id)

    everything = asyncio.create_task(service.flush(deliver, then=then))
    await asyncio.wait_for(until(lambda: "idle" in sent), 2)
    await service.handle("idle", ANNA, "bid TSR 20")  # the idle channel's next move goes out at once too
    await asyncio.wait_for(service.flush(deliver, channel_id="idle"), 2)
    assert sent == ["idle", "idle"] and set(followed) == {idle}  # its pinned status follows its own posts
    slow_open.set()
    assert await everything == {slow, idle}
    assert sent.count("slow") == 1 and followed[-1] == slow and not await service.store.outbox_unsent()


async def test_a_choice_offered_before_the_game_moved_is_refused_and_changes_nothing(
    service: TroikaService,
) -> None:
    game_id = await three_player_game(service, "c1")
    [start] = await service.store.outbox_unsent()
    offered = (game_id, int(start.payload["seq"]))
    await service.handle("c1", ANNA, "pass", at=offered, key="interaction 1")
    events = await service.store.events(game_id)
    told = await refusal(service.handle("c1", BORIS, "pass", at=offered, key="interaction 2"))
    assert told.startswith("This choice has passed: the game has moved on since that post. Now Boris")
    assert await service.store.events(game_id) == events
    assert await service.handle("c1", ANNA, "pass", at=offered, key="interaction 1") is not None  # a repeat: nothing
    assert await service.store.events(game_id) == events
    later = [m for m in await service.store.outbox_unsent() if m.id != start.id][-1]
    await service.handle("c1", BORIS, "pass", at=(game_id, int(later.payload["seq"])))  # the new post's button
    assert len(await service.store.events(game_id)) == len(events) + 1
