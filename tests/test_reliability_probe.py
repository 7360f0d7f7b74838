"""The reliability probe of 2026-12-04 (R1, R3, R5-R8): pictures owed across a crash,
posts with wrongly typed fields, games without a commissioner, imported names, what a
worker may send and ask, and backups of read-only databases. In the configuration
`troika run` starts (worker processes) and with ``--workers 0`` where the two differ."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.posts import Picture
from bot.service import Post, TroikaService
from bot.workers import ServicePool
from storage import SqliteEventStore
from tests.test_reliability import ANNA, three_player_game

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
