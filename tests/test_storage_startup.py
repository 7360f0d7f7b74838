"""Opening a large database costs milliseconds: a file cut short is still refused at
once, and the full read for damage runs in the background, its findings logged."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from storage import sqlite
from storage.fake_engine import FakeEngine, fake_log
from storage.repository import GameRepository
from storage.sqlite import SqliteEventStore
from storage.store import StoreError


async def _database(path: Path) -> int:
    """A database holding a few long games of the points game; its size."""
    async with SqliteEventStore(path) as store:
        repo = GameRepository(store, FakeEngine())
        for _ in range(3):
            await repo.import_game(fake_log(300), "test")
    return path.stat().st_size


async def test_a_large_database_cut_short_is_refused_at_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "games.db"
    size = await _database(path)
    monkeypatch.setattr(sqlite, "FULL_CHECK_BYTES", size // 4)  # "large": not read in full at open
    path.write_bytes(path.read_bytes()[: size // 2])
    with pytest.raises(StoreError, match=rf"the database {path} is damaged: it is cut short \({size // 2} of "):
        await SqliteEventStore(path).open()


async def test_damage_inside_a_large_database_is_found_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "games.db"
    size = await _database(path)
    monkeypatch.setattr(sqlite, "FULL_CHECK_BYTES", size // 4)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[size // 2 // page * page: size // 2 // page * page + page] = b"\xff" * page  # one page garbled
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.ERROR, logger="troika.storage"):
        async with SqliteEventStore(path) as store:
            await asyncio.wait_for(asyncio.shield(store._full_check), 30)  # type: ignore[arg-type]
    assert f"the database {path} is damaged" in caplog.text and "troika backup" in caplog.text
