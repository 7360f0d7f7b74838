"""The bot as two shard processes on one PostgreSQL database, scripted (no Discord
network): each plays and delivers the games of its own servers, and in the end every
game holds each event once and every post was delivered once. And two processes that
both deliver every game's posts never send one twice: a game's posts go out under one
process's claim."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections import Counter
from itertools import islice
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import pytest

from bot.service import Account, Post, TroikaService
from bot.transcript import log_commands
from engine.importer import read_log
from storage import NewGame, Seat, Shard, SqliteEventStore, store_at
from storage.repository import state_hash
from storage.store import EventStore, shard_of
from tests.conftest import shared_game

SPAWN = multiprocessing.get_context("spawn")
SHARDS, GAMES, COMMANDS = 2, 20, 30


def guild(game: int) -> str:
    """The Discord server of game ``game``: ids whose shard alternates, as real ids do."""
    return str((123_456 + game) << 22)


async def play(service: TroikaService, log: dict[str, Any], game: int, deliver: Any) -> None:
    """Game ``game``: the shared game's first commands typed in its server's channel, the
    posts delivered after each as the bot does."""
    players = [(str(p["id"]), p["name"]) for p in log["players"]]
    ids = {name: pid for pid, name in players}
    channel = f"channel-{game}"
    await service.start_local_game(channel, players, rules=read_log(log)[0].ctx.rules, first_player=0,
                                   seed=log["settings"]["seed"], guild_id=guild(game))
    await service.flush(deliver)
    for name, command in islice(log_commands(log), COMMANDS):
        await service.handle(channel, Account(ids[name], name), command, guild_id=guild(game))
        await service.flush(deliver)


def _shard(url: str, index: int, log: dict[str, Any], report: str, start: Barrier) -> None:
    """Child process: shard ``index`` of the bot. Discord sends it the commands of its
    servers only; it writes each post it delivers to ``report``."""

    async def run() -> None:
        out = os.open(report, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

        async def deliver(post: Post) -> None:
            os.write(out, f"{post.outbox_id} {post.game_id} {index}\n".encode())

        async with store_at(url) as store:
            service = TroikaService(store, pictures=False, shard=Shard(index, SHARDS))
            mine = [g for g in range(GAMES) if service.shard and service.shard.owns(guild(g))]
            await asyncio.gather(*(play(service, log, g, deliver) for g in mine))
            await service.flush(deliver)
            await service.close()

    start.wait()
    asyncio.run(run())


async def reference(log: dict[str, Any]) -> tuple[int, str, int]:
    """One game played alone: its events, final state and posts."""
    posts: list[Post] = []

    async def keep(post: Post) -> None:
        posts.append(post)

    async with SqliteEventStore(":memory:") as store:
        service = TroikaService(store, pictures=False)
        await play(service, log, 0, keep)
        live = await service.repo.load(1)
        return live.seq, state_hash(service.engine.dump(live.game)), len(posts)


@pytest.mark.slow
def test_two_shard_processes_play_twenty_games_on_one_database(postgres_url: str, tmp_path: Path) -> None:
    log, _ = shared_game("1861-29683")
    events, state, posts = asyncio.run(reference(log))
    report = tmp_path / "delivered.txt"
    start = SPAWN.Barrier(SHARDS)
    children = [SPAWN.Process(target=_shard, args=(postgres_url, i, log, str(report), start))
                for i in range(SHARDS)]
    for child in children:
        child.start()
    for child in children:
        child.join(timeout=300)
        assert child.exitcode == 0

    async def stored() -> tuple[list[Any], list[int], int]:
        async with store_at(postgres_url) as store:
            games = []
            for record in await store.list_games():
                live = await TroikaService(store, pictures=False).repo.load(record.id)
                seqs = [e.seq for e in await store.events(record.id)]
                games.append((record, seqs, state_hash(live.game.dump())))
            outbox = await store.outbox_unsent(limit=None)
            last_post = await store.outbox_add(1, {"text": "probe"})
        return games, [m.id for m in outbox], last_post

    games, unsent, probe = asyncio.run(stored())
    assert len(games) == GAMES and unsent == []
    assert Counter(shard_of(r.guild_id, SHARDS) for r, _, _ in games) == {0: GAMES // 2, 1: GAMES // 2}
    for record, seqs, final in games:  # every event once: the log of a game played alone
        assert seqs == list(range(1, events + 1)) and final == state, f"game {record.id}"
    delivered = [tuple(map(int, line.split())) for line in report.read_text().split("\n") if line]
    assert sorted(post for post, _, _ in delivered) == list(range(1, probe))  # each post once
    guilds = {r.id: r.guild_id for r, _, _ in games}
    assert all(shard == shard_of(guilds[game], SHARDS) for _, game, shard in delivered)
    assert Counter(game for _, game, _ in delivered) == {game: posts for game in guilds}


@pytest.mark.slow
async def test_two_deliverers_of_every_game_send_each_post_once(postgres_url: str) -> None:
    async with store_at(postgres_url) as one, store_at(postgres_url) as two:
        seats = [Seat(0, "p1", "Anna"), Seat(1, "p2", "Boris")]
        games = [(await one.create_game(NewGame("1861", {}, 1, "u", 1, seats, channel_id=f"c{n}"))).id
                 for n in range(6)]
        delivered: list[tuple[int, str]] = []

        async def writer(store: EventStore) -> None:
            for n in range(60):
                await store.outbox_add(games[n % len(games)], {"text": f"post {n}"})
                await asyncio.sleep(0)

        def deliverer(name: str) -> Any:
            async def deliver(post: Post) -> None:
                await asyncio.sleep(0.001)  # the network: others run meanwhile
                delivered.append((post.outbox_id, name))
            return deliver

        services = [TroikaService(store, pictures=False, owner=name) for store, name in ((one, "one"), (two, "two"))]

        async def deliver_all(service: TroikaService) -> None:
            for _ in range(40):
                await service.flush(deliverer(service.owner))
                await asyncio.sleep(0.002)

        await asyncio.gather(writer(one), writer(two), *(deliver_all(s) for s in services))
        for service in services:
            await service.close()
        await services[0].flush(deliverer("one"))
        assert await one.outbox_unsent(limit=None) == []
    ids = [post for post, _ in delivered]
    assert len(ids) == 120 and len(set(ids)) == 120
