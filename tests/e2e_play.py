"""A longer game through the fake Discord, run by hand for the figures of a full run.

    .venv/bin/python -m tests.e2e_play --moves 150

Starts the real ``troika run`` against :mod:`tests.fake_discord`, sets up an 1861 game
in one channel and an 1867 game in another, and plays both: each move is read off the
last turn post (its choices, in code spans) and made by the called player, typed, as a
slash command or as a click, in turn. A third of the way the gateway asks for a
reconnect; every 25 moves the 1861 channel meets a 429 while the 1867 one plays. Prints one JSON object of figures.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from tests.fake_discord import Channel, FakeDiscord, Message, User
from tests.test_discord_e2e import PNG, Troika, World, called, set_up, turn_post

CHOICE = re.compile(r"`([^`]+)`")
acting: dict[int, User] = {}
"""Who acts in each channel: the player the last post that called someone called."""
said: dict[int, float] = {}
"""When the last command was sent in each channel."""


def choices(post: Message) -> list[str]:
    """Commands a post offers that can be sent as they are (a range at its low end)."""
    last = post.content.splitlines()[-1]
    found = []
    for text in CHOICE.findall(last.partition(":")[2] or last):
        if any(word.isupper() and len(word) > 3 for word in text.split()[1:]):  # a placeholder: HEX TILE ...
            continue
        found.append(re.sub(r"(\d+)\.\.\d+", r"\1", text))
    return found


def move(world: World, channel: Channel, post: Message, rng: random.Random, n: int) -> Message | None:
    """The player a post is for makes one of its choices (another if it is refused);
    the next game post, or None if every choice was refused."""
    options = choices(post)
    rng.shuffle(options)
    if "pass" in options and rng.random() < 0.5:
        options.insert(0, options.pop(options.index("pass")))
    for text in options:
        made = attempt(world, channel, post, text, n)
        if made is not None:
            return made
    return None


def attempt(world: World, channel: Channel, post: Message, text: str, n: int) -> Message | None:
    """One command, typed, slashed or clicked by ``n``; the turn post it led to, or None
    if it was refused (or led to no turn post)."""
    fake = world.fake
    player = acting[channel.id]
    mark = fake.last_id()
    verb, _, rest = text.partition(" ")
    said[channel.id] = time.monotonic()
    command = next((c for c in fake.commands if c["name"] == verb), None)
    if n % 3 == 2 and any(c.split(":")[1] == verb for c in post.custom_ids):
        fake.click(player, post, next(c for c in post.custom_ids if c.split(":")[1] == verb))
    elif n % 3 == 1 and command is not None and (not rest or "what" in {o["name"] for o in command.get("options", [])}):
        fake.slash(player, channel, verb, **({"what": rest} if rest else {}))
    else:
        fake.say(player, channel, f"!{text}")

    def outcome() -> Message | bool | None:
        for m in fake.messages.values():
            if m.channel_id == channel.id and m.author is fake.bot and m.id > mark:
                if m.interaction_id is None and m.nonce is not None:  # a game post (the status has none)
                    return m
                if m.content.startswith("✗"):
                    return True
        return None

    found = fake.wait(outcome, 20, f"the outcome of {text!r}")
    if not isinstance(found, Message):
        return None
    if (found.allowed_mentions or {}).get("users"):  # else the same player goes on
        acting[channel.id] = called(world, found)
    return found


def move_later(world: World, channel: Channel, post: Message, rng: random.Random) -> Future[Message | None]:
    """:func:`move` in a thread of its own (typed), to play another channel meanwhile."""
    return ThreadPoolExecutor(1).submit(move, world, channel, post, rng, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    fake = FakeDiscord().start()
    db = Path(tempfile.mkdtemp()) / "troika.db"
    one, two = fake.call(lambda: fake.channel("game-1861")), fake.call(lambda: fake.channel("game-1867"))
    users = [fake.call(lambda n=n: fake.user(n)) for n in ("Anna", "Boris", "Clara", "Dmitri")]
    started = time.monotonic()
    bot = Troika(fake, db)
    fake.wait(lambda: fake.ready, 60, "READY")
    world = World(fake, db, bot, *users, one, two, one)
    posts = {one.id: set_up(world, one, *users[:3])}
    acting[one.id] = called(world, posts[one.id])
    mark = fake.last_id()
    fake.say(users[3], two, "!new 1867")
    fake.wait(lambda: any(m.id > mark and "sets up" in m.content for m in fake.messages.values()), 15)
    for user in users[:2]:
        mark = fake.last_id()
        fake.say(user, two, "!join")
        fake.wait(lambda mark=mark: any(m.id > mark and "joins" in m.content for m in fake.messages.values()), 15)
    mark = fake.last_id()
    fake.say(users[3], two, "!start")
    posts[two.id] = turn_post(world, two, mark)
    acting[two.id] = called(world, posts[two.id])
    made, delays, latencies, pictured = 0, [], [], []
    for n in range(args.moves):
        channel = one if n % 2 == 0 else two
        if n == args.moves // 3:
            fake.reconnect()
        if n % 25 == 12:  # the 1861 channel hits a 429; the 1867 one moves meanwhile
            fake.fail("POST", rf"/channels/{one.id}/messages", 429, retry_after=2.0)
            limits = fake.call(lambda: len([s for *_, s in fake.requests if s == 429]))
            waiting = move_later(world, one, posts[one.id], rng)
            fake.wait(lambda limits=limits: len([s for *_, s in fake.requests if s == 429]) > limits, 10)
            nxt = move(world, two, posts[two.id], rng, 0)
            if nxt is not None:
                delays.append(nxt.at - said[two.id])
                pictured.append(len(nxt.files))
                posts[two.id] = nxt
            posts[one.id] = waiting.result(30) or posts[one.id]
            continue
        nxt = move(world, channel, posts[channel.id], rng, n)
        if nxt is not None:
            posts[channel.id], made = nxt, made + 1
            latencies.append(nxt.at - said[channel.id])
    bot.stop()
    messages = fake.call(lambda: [m for m in fake.messages.values() if m.author is fake.bot])
    files = [data for m in messages for _, data in m.files]
    interactions = fake.call(lambda: list(fake.interactions.values()))
    print(json.dumps({
        "moves_made": made, "seconds": round(time.monotonic() - started, 1),
        "posts": len([m for m in messages if m.interaction_id is None]),
        "interaction_answers": len([m for m in messages if m.interaction_id is not None]),
        "attachments": len(files), "all_png": all(f.startswith(PNG) for f in files),
        "largest_attachment_kib": max(map(len, files)) // 1024 if files else 0,
        "longest_message": max(len(m.content) for m in messages),
        "pings_per_message_max": max(len((m.allowed_mentions or {}).get("users", [])) for m in messages),
        "interactions": len(interactions),
        "acknowledged_max_ms": round(max(i.acknowledged or 99 for i in interactions) * 1000),
        "unacknowledged": len([i for i in interactions if i.acknowledged is None]),
        "move_to_post_ms_median": round(statistics.median(latencies) * 1000) if latencies else None,
        "move_to_post_ms_max": round(max(latencies) * 1000) if latencies else None,
        "resumes": fake.resumes, "idle_channel_delay_beside_429_ms": [round(d * 1000) for d in delays],
        "pictures_in_idle_posts_beside_429": pictured,
        "requests": len(fake.requests),
    }))
    fake.stop()


if __name__ == "__main__":
    main()
