"""Delivery per game and choices bound to their post, at the service (no Discord).

The same behaviour is checked on the wire in ``test_discord_e2e.py``; these run in
milliseconds and show the rule itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.console import CHANNEL
from bot.service import Account, Post, TroikaService
from storage import EventKind, SqliteEventStore
from tests.test_bot_service import start_shared
from tests.test_bot_slowplay import CV_TURN_ENDS
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


async def test_in_one_channel_an_older_games_posts_go_first(service: TroikaService) -> None:
    first = await three_player_game(service, "c1")
    await service.handle("c1", ANNA, "end confirm")
    second = await three_player_game(service, "c1")
    queued = [m.id for m in await service.store.outbox_unsent()]
    sent: list[int] = []

    async def deliver(post: Post) -> None:
        await asyncio.sleep(0.001 if post.game_id == first else 0)  # the older game's slower to send
        sent.append(post.outbox_id)

    assert await service.flush(deliver) == {first, second}
    assert sent == queued and len(sent) >= 3


@pytest.mark.slow
async def test_a_click_on_the_post_calling_a_company_passes_it_unquestioned(tmp_path: Path) -> None:
    """A bare `pass` right after the same player's company ended its turn is questioned
    (it may be meant for that turn, :mod:`bot.stray`); a click on the button of the post
    that calls the new company cannot be, and goes through."""
    async with SqliteEventStore(tmp_path / "troika.db") as store:
        service = TroikaService(store, pictures=False)
        table = await start_shared(service, CV_TURN_ENDS, "1867-19792")
        record = await store.active_game_in_channel(CHANNEL)
        assert record is not None
        game = await table.game()
        assert game.actor() == "CV" and game.state.round.step == "track"
        seat = next(s for s in record.seats if s.player_id == game.acting_player())
        moved = [e for e in await store.events(record.id) if e.kind is EventKind.ACTION][-1]
        await service.handle(CHANNEL, Account(seat.discord_user_id or seat.player_id, seat.display_name), "pass",
                             at=(record.id, moved.seq))
        assert (await table.game()).state.round.step != "track"
