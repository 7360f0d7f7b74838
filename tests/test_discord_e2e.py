"""The real ``troika run`` against a fake Discord on 127.0.0.1 (:mod:`tests.fake_discord`).

Nothing of the bot is replaced: it is started as a process with a token, pointed at the
fake by ``TROIKA_TEST_DISCORD_URL``, and talks to it through discord.py's own HTTP
client and gateway. Users type, run slash commands and click buttons as Discord
delivers them; the tests read what arrives at the fake: posts, files, mentions,
buttons, pins and interaction responses.

The tests of this module share one bot process and one server, and run in order (a
game is set up, played, interrupted, restarted); each test says what it relies on. They
run twice: with the worker processes ``troika run`` starts by default, and with
``--workers 0`` (everything in the bot's process).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import shared_game
from tests.fake_discord import Channel, FakeDiscord, Interaction, Message, User

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:aiohttp"),  # the fake's multipart reader
    pytest.mark.e2e,
    pytest.mark.slow,
]
REPO = Path(__file__).resolve().parent.parent
PNG = b"\x89PNG\r\n\x1a\n"


class Troika:
    """``troika run`` as a process, with its own log file."""

    def __init__(self, fake: FakeDiscord, db: Path, *, token: str | None = None, url: str | None = None,
                 logs: Path | None = None, workers: int | None = None, deaf_to_ctrl_c: bool = False) -> None:
        self.log = (logs or db.parent) / f"troika-{time.monotonic_ns()}.log"
        env = {**os.environ, "DISCORD_TOKEN": token or fake.token, "TROIKA_TEST_DISCORD_URL": url or fake.url,
               "PYTHONUNBUFFERED": "1"}
        env.pop("DISCORD_TOKEN_FILE", None)
        with self.log.open("wb") as out:
            command = [sys.executable, "-m", "bot.cli", "run", "--db", str(db)]
            command += [] if workers is None else ["--workers", str(workers)]
            ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if deaf_to_ctrl_c else None
            self.process = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                                            preexec_fn=ignore)

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait(self, timeout: float = 30) -> int:
        return self.process.wait(timeout)

    def stop(self) -> int:
        """SIGINT, as Ctrl-C or ``systemctl stop`` (SIGTERM is the unit's; both end cleanly)."""
        if self.alive():
            self.process.send_signal(signal.SIGINT)
        return self.wait(15)

    @property
    def output(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class World:
    fake: FakeDiscord
    db: Path
    bot: Troika
    anna: User
    boris: User
    clara: User
    dmitri: User
    one: Channel
    two: Channel
    thread: Channel
    workers: int | None

    def restart(self) -> None:
        assert self.bot.stop() == 0
        self.fake.call(lambda: setattr(self.fake, "ready", False))
        self.bot = Troika(self.fake, self.db, workers=self.workers)
        self.fake.wait(lambda: self.fake.ready, 30, "the restarted bot's READY")


@pytest.fixture(scope="module", params=[None, 0], ids=["default-workers", "workers-0"])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """The bot as ``troika run`` starts it (worker processes), then with ``--workers 0``."""
    workers: int | None = request.param
    fake = FakeDiscord().start()
    db = tmp_path_factory.mktemp("e2e") / "troika.db"
    one, two = fake.call(lambda: fake.channel("game-one")), fake.call(lambda: fake.channel("game-two"))
    thread = fake.call(lambda: fake.channel("a-thread", parent=one))
    anna, boris, clara, dmitri = (fake.call(lambda n=n: fake.user(n)) for n in ("Anna", "Boris", "Clara", "Dmitri"))
    fake.gateway_refusals = 1  # the first connection meets an outage (D3)
    fake.bucket_limit = 50  # a channel's own limit is met once, by a 429 below: the rest run at speed
    fake.heartbeat_ms = 3000  # so that the connection lives on heartbeats within the test
    bot = Troika(fake, db, workers=workers)
    world = World(fake, db, bot, anna, boris, clara, dmitri, one, two, thread, workers)
    try:
        fake.wait(lambda: fake.ready or not bot.alive(), 45, "READY")
        yield world
    finally:
        world.bot.stop()
        fake.stop()


def reply(fake: FakeDiscord, channel: Channel, after: int, text: str = "", timeout: float = 15) -> Message:
    """The bot's first message in ``channel`` after message ``after`` containing ``text``."""
    return fake.wait(lambda: next((m for m in fake.messages.values() if m.channel_id == channel.id
                                   and m.author is fake.bot and m.id > after and text in m.content), None),
                     timeout, f"a reply with {text!r}")


def answered(fake: FakeDiscord, interaction: Interaction, text: str = "", timeout: float = 15) -> Message:
    """The interaction's response or follow-up containing ``text``."""
    return fake.wait(lambda: next((m for m in interaction.answers if text in m.content), None), timeout,
                     f"an answer with {text!r}")


def turn_post(world: World, channel: Channel, after: int) -> Message:
    """The next post in ``channel`` that calls a player."""
    fake = world.fake
    return fake.wait(lambda: next((m for m in fake.messages.values() if m.channel_id == channel.id
                                   and m.author is fake.bot and m.id > after and m.interaction_id is None
                                   and (m.allowed_mentions or {}).get("users")), None), 15, "a turn post")


def called(world: World, post: Message) -> User:
    """The player a post calls (the one user it may ping)."""
    (user_id,) = (post.allowed_mentions or {})["users"]
    return next(u for u in (world.anna, world.boris, world.clara, world.dmitri) if str(u.id) == str(user_id))


def button(post: Message, verb: str) -> str:
    return next(c for c in post.custom_ids if c.split(":")[1] == verb)


def set_up(world: World, channel: Channel, *players: User) -> Message:
    """``!new``, ``!join`` for the others, ``!start``: the start post."""
    fake = world.fake
    mark = fake.last_id()
    fake.say(players[0], channel, "!new")
    reply(fake, channel, mark, "sets up game")
    for player in players[1:]:
        mark = fake.last_id()
        fake.say(player, channel, "!join")
        reply(fake, channel, mark, "joins")
    mark = fake.last_id()
    fake.say(players[0], channel, "!start")
    return turn_post(world, channel, mark)


def test_it_logs_in_syncs_its_commands_and_survives_an_outage_at_the_first_connection(world: World) -> None:
    fake = world.fake
    assert world.bot.alive(), world.bot.output
    assert fake.call(lambda: fake.gateway_refusals) == 0  # refused once, connected after
    assert fake.syncs == 1 and len(fake.commands) >= 40
    assert {"bid", "pass", "map", "replace", "new"} <= {c["name"] for c in fake.commands}
    assert fake.identifies[-1]["intents"] & (1 << 15)  # the message content intent
    paths = [path for _, method, path, status in fake.requests if status == 200]
    assert {"/users/@me", "/oauth2/applications/@me", "/gateway/bot"} <= set(paths)


def test_a_game_is_set_up_and_started_with_pictures_a_mention_and_a_pinned_status(world: World) -> None:
    fake = world.fake
    post = set_up(world, world.one, world.anna, world.boris, world.clara)
    assert "begins" in post.content
    fake.wait(lambda: post.files, why="the start post's pictures, attached to it once drawn")
    assert [name for name, _ in post.files] == ["map.png", "table.png"]
    assert all(data.startswith(PNG) for _, data in post.files)
    first = called(world, post)
    assert post.allowed_mentions == {"users": [first.id], "parse": []}
    assert f"<@{first.id}> bids on" in post.content  # the mention stands for the name: not "@Boris Boris"
    assert button(post, "pass")
    status = fake.wait(lambda: next((m for m in fake.messages.values() if m.channel_id == world.one.id
                                     and m.pinned), None), 10, "the pinned status")
    assert "To act" in status.content and first.name in status.content


def test_typed_slash_and_clicked_moves(world: World) -> None:
    fake = world.fake
    start = turn_post(world, world.one, 0)
    mark = fake.last_id()
    fake.say(called(world, start), world.one, "!pass")
    typed = turn_post(world, world.one, mark)
    assert "`pass`" in typed.content

    mark = fake.last_id()
    slash = fake.slash(called(world, typed), world.one, "pass")
    slashed = turn_post(world, world.one, mark)
    assert answered(fake, slash, "✓").ephemeral
    assert slash.acknowledged is not None and slash.acknowledged < 3

    mark = fake.last_id()
    click = fake.click(called(world, slashed), slashed, button(slashed, "pass"))
    clicked = turn_post(world, world.one, mark)
    assert answered(fake, click, "✓").ephemeral
    assert clicked.id > slashed.id


def test_a_move_is_taken_back_with_undo(world: World) -> None:
    fake = world.fake
    post = max((m for m in fake.posts(world.one) if m.interaction_id is None and (m.allowed_mentions or {})
                .get("users")), key=lambda m: m.id)
    mover = called(world, post)
    mark = fake.last_id()
    fake.say(mover, world.one, "!pass")
    turn_post(world, world.one, mark)
    mark = fake.last_id()
    fake.say(mover, world.one, "!undo")
    back = turn_post(world, world.one, mark)
    assert f"**{mover.name}** takes back" in back.content and called(world, back) is mover


def test_a_button_on_a_post_the_game_has_moved_past_is_refused(world: World) -> None:
    fake = world.fake
    post = max((m for m in fake.posts(world.one) if m.custom_ids and m.interaction_id is None), key=lambda m: m.id)
    mark = fake.last_id()
    first = fake.click(called(world, post), post, button(post, "pass"))
    moved = turn_post(world, world.one, mark)
    answered(fake, first, "✓")
    second = fake.click(called(world, moved), post, button(post, "pass"))  # the old post's button, clicked again
    refusal = answered(fake, second, "✗")
    assert refusal.ephemeral and "This choice has passed" in refusal.content
    time.sleep(0.3)
    assert not [m for m in fake.posts(world.one, moved.id) if m.interaction_id is None and m.allowed_mentions
                and m.allowed_mentions.get("users")], "the old button moved the game again"


def test_a_refused_information_command_is_answered_privately(world: World) -> None:
    fake = world.fake
    shown = fake.slash(world.anna, world.one, "map", what="Z99")
    refusal = answered(fake, shown, "Z99")
    assert refusal.ephemeral, "the refusal was shown to the whole channel"
    table = fake.slash(world.clara, world.one, "table")
    picture = answered(fake, table)
    assert not picture.ephemeral and picture.files
    assert table.callback_type == 5  # E7: acknowledged at once, the picture uploaded after (it went in the ack)


def test_a_reconnect_resumes_the_session(world: World) -> None:
    fake = world.fake
    fake.reconnect()
    fake.wait(lambda: fake.resumes == 1, 15, "RESUME")
    mark = fake.last_id()
    fake.say(world.dmitri, world.one, "!status")
    status = reply(fake, world.one, mark).content
    assert "To act" in status and "(1 move)" in status and "(1 moves)" not in status
    assert len(fake.identifies) == 1  # resumed, not identified again


def test_a_rate_limited_channel_holds_no_other_channel(world: World) -> None:
    fake = world.fake
    post = set_up(world, world.two, world.boris, world.clara)
    fake.fail("POST", rf"/channels/{world.one.id}/messages", 429, retry_after=4.0)
    busy = max((m for m in fake.posts(world.one) if m.interaction_id is None and (m.allowed_mentions or {})
                .get("users")), key=lambda m: m.id)
    mark_one = fake.last_id()
    fake.say(called(world, busy), world.one, "!pass")
    fake.wait(lambda: not fake.failures and any(s == 429 for *_, s in fake.requests), 10, "the 429")
    said = time.monotonic()
    mark_two = fake.last_id()
    fake.say(called(world, post), world.two, "!pass")
    idle = turn_post(world, world.two, mark_two)
    idle_delay = idle.at - said
    looked = fake.slash(world.dmitri, world.one, "status")  # information in the limited channel waits for nothing
    assert "To act" in answered(fake, looked).content and (looked.acknowledged or 9) < 1.0
    limited = turn_post(world, world.one, mark_one)
    assert idle_delay < 2.5, f"the idle channel's post took {idle_delay:.2f} s"  # (a picture may be drawn)
    assert limited.at - said > 3.5  # discord.py waited as Discord asked, then posted once
    assert len([m for m in fake.posts(world.one, mark_one) if m.interaction_id is None and "`pass`" in m.content
                and (m.allowed_mentions or {}).get("users")]) == 1
    print(f"\nidle channel beside a rate-limited one: posted after {idle_delay * 1000:.0f} ms; "
          f"the rate-limited one after {(limited.at - said) * 1000:.0f} ms")


def test_a_502_after_discord_created_the_post_makes_no_duplicate(world: World) -> None:
    fake = world.fake
    post = max((m for m in fake.posts(world.two) if m.interaction_id is None and (m.allowed_mentions or {})
                .get("users")), key=lambda m: m.id)
    fake.fail("POST", rf"/channels/{world.two.id}/messages", 502, after_create=True)
    mark = fake.last_id()
    fake.say(called(world, post), world.two, "!pass")
    fake.wait(lambda: any(s == 502 for *_, s in fake.requests), 10, "the 502")
    turn_post(world, world.two, mark)
    time.sleep(1.5)  # discord.py's retry comes after 1 s
    moves = [m for m in fake.posts(world.two, mark) if m.interaction_id is None and "`pass`" in m.content]
    assert len(moves) == 1


def test_replace_takes_the_mentioned_account_whatever_the_capitalisation(world: World) -> None:
    fake = world.fake
    mark = fake.last_id()
    fake.say(world.boris, world.two, f"!Replace Clara <@{world.dmitri.id}>", mentions=(world.dmitri,))
    assert "**Dmitri** takes Clara's seat" in reply(fake, world.two, mark, "takes").content
    mark = fake.last_id()
    fake.say(world.dmitri, world.two, "!status")
    assert "Dmitri" in reply(fake, world.two, mark, "To act").content


def test_pictures_refused_in_a_thread_still_post_the_move(world: World) -> None:
    fake = world.fake
    fake.call(lambda: setattr(world.thread, "refuse_files", True))
    post = set_up(world, world.thread, world.clara, world.anna)
    assert "begins" in post.content
    fake.wait(lambda: "Attach Files" in post.content, why="the note that the pictures are not shown")
    assert not post.files
    assert button(post, "pass")
    mark = fake.last_id()
    fake.say(world.anna, world.thread, "!map")
    answer = reply(fake, world.thread, mark, "Attach Files")
    assert "Private auction" in answer.content and not answer.files
    assert not [m for m in fake.posts(world.thread, mark) if "Something went wrong" in m.content]
    fetched = [path for _, method, path, _ in fake.requests if method == "GET" and path.endswith(str(world.thread.id))]
    assert len(fetched) == 1  # the thread discord.py never heard of is fetched once, not for each post


def test_after_a_restart_the_buttons_of_earlier_posts_still_work(world: World) -> None:
    fake = world.fake
    post = max((m for m in fake.posts(world.one) if m.interaction_id is None and m.custom_ids),
               key=lambda m: m.id)
    world.restart()
    assert fake.syncs == 2
    mark = fake.last_id()
    click = fake.click(called(world, post), post, button(post, "pass"))
    assert answered(fake, click, "✓").ephemeral
    turn_post(world, world.one, mark)


def test_a_site_game_is_imported_from_an_attachment_and_exported(world: World) -> None:
    """`/import` with the file as its option and `!import` with it attached (E1: both failed
    with worker processes), then `/export` and `!export` attach the game's log."""
    fake = world.fake
    log, _ = shared_game("1867-21268")
    site = json.dumps({**log, "actions": log["actions"][:40]}).encode()
    slashed, typed = (fake.call(lambda n=n: fake.channel(n)) for n in ("imported-slash", "imported-typed"))
    refused = fake.slash(world.anna, slashed, "import", log=("21268.json", site[:-9]))
    assert answered(fake, refused, "not valid JSON").ephemeral  # a refusal for the importer only
    imported = fake.slash(world.anna, slashed, "import", log=("21268.json", site))
    answer = answered(fake, imported, "imports", timeout=30)
    assert "**Anna** imports 1867 game 21268" in answer.content and not answer.ephemeral
    mark = fake.last_id()
    fake.say(world.boris, typed, "!import", files=(("21268.json", site),))
    assert "**Boris** imports 1867 game 21268" in reply(fake, typed, mark, "imports", timeout=30).content
    exported = fake.slash(world.clara, slashed, "export")
    (name, data), = answered(fake, exported, timeout=30).files
    assert name.startswith("1867-troika-") and len(json.loads(data)["actions"]) >= 37
    mark = fake.last_id()
    fake.say(world.boris, typed, "!export")
    (name, data), = reply(fake, typed, mark, timeout=30).files
    assert json.loads(data)["players"][0]["name"] and len(json.loads(data)["actions"]) >= 37
    assert "Something went wrong" not in "".join(m.content for m in fake.posts(slashed) + fake.posts(typed))


def to_act(world: World, channel: Channel) -> User:
    """The player to act, as `/status` (answered whatever the channel allows) names them."""
    status = answered(world.fake, world.fake.slash(world.dmitri, channel, "status"), "To act").content
    name = status.partition("To act: **")[2].partition("**")[0]
    return next(u for u in (world.anna, world.boris, world.clara, world.dmitri) if u.name == name)


def troika_errors(world: World) -> list[str]:
    """Troika's own ERROR lines in the bot's log (each comes with a traceback)."""
    return [line for line in world.bot.output.splitlines() if "ERROR" in line and "troika." in line]


def pinned_status(world: World, channel: Channel) -> Message:
    fake = world.fake
    return fake.wait(lambda: next((m for m in fake.messages.values() if m.channel_id == channel.id and m.pinned
                                   and "To act" in m.content), None), 10, "the pinned status")


def test_posts_a_channel_refuses_wait_and_the_mover_is_told_privately(world: World) -> None:
    """E2: without *Send Messages* a move's post waits (it went for good), and the mover is
    told privately (they were told "✓"); E3: a refused `!map` is one warning (it was two
    tracebacks). Once the permission is back, the waiting posts go out, once each, in order."""
    fake = world.fake
    muted = fake.call(lambda: fake.channel("muted"))
    first = called(world, set_up(world, muted, world.anna, world.boris, world.clara))
    pinned_status(world, muted)
    fake.call(lambda: setattr(muted, "refuse_send", True))
    mark = fake.last_id()
    fake.say(first, muted, "!pass")
    told = fake.wait(lambda: [m for m in fake.direct_messages(first) if m.id > mark], 15, "a direct message")
    assert "**Send Messages**" in told[0].content and "Your move is stored" in told[0].content
    second = to_act(world, muted)
    slash = fake.slash(second, muted, "pass")
    note = answered(fake, slash, "Send Messages")
    assert note.ephemeral and "Your move is stored" in note.content
    fake.say(world.dmitri, muted, "!map")
    fake.wait(lambda: len(fake.direct_messages(world.dmitri)) == 1, 15, "the note on the refused map")
    assert not [m for m in fake.posts(muted, mark) if m.interaction_id is None]  # nothing reached the channel
    fake.call(lambda: setattr(muted, "refuse_send", False))
    third = to_act(world, muted)
    fake.say(third, muted, "!pass")
    moves = fake.wait(lambda: [m for m in fake.messages.values() if m.channel_id == muted.id and m.id > mark
                               and m.author is fake.bot and m.interaction_id is None][2:] and
                      [m for m in fake.messages.values() if m.channel_id == muted.id and m.id > mark
                       and m.author is fake.bot and m.interaction_id is None], 15, "the posts that waited, then more")
    assert [m.content.splitlines()[0] for m in moves[:3]] == [f"**{u.name}**: `pass`" for u in (first, second, third)]
    output = world.bot.output
    assert not troika_errors(world) and "Something went wrong" not in "".join(m.content for m in moves)
    assert output.count(f"posts to channel {muted.id} wait") == 1 and "'!map' in channel" in output


def test_a_status_that_could_not_be_updated_is_mended_without_another_move(world: World) -> None:
    """E4: a failed edit of the pinned status is a warning and is tried again soon (it was
    an ERROR traceback, and the status stayed behind until the next move)."""
    fake = world.fake
    muted = fake.call(lambda: fake.channel("muted"))
    status = pinned_status(world, muted)
    fake.fail("PATCH", rf"/channels/{muted.id}/messages/{status.id}", 400)
    mover, edits = to_act(world, muted), status.edits
    fake.say(mover, muted, "!pass")
    fake.wait(lambda: any(s == 400 for *_, p, s in fake.requests if p.endswith(str(status.id))), 15, "the 400")
    fake.wait(lambda: status.edits > edits, 15, "the status mended")
    assert "not updated" in world.bot.output and not troika_errors(world)


def test_a_finished_game_s_status_is_unpinned_and_a_deleted_channel_s_game_is_abandoned(world: World) -> None:
    """E6: after `end confirm` the status says so and is unpinned (it stayed pinned); the
    game of a deleted channel is no longer listed as going on (it was)."""
    fake = world.fake
    muted = fake.call(lambda: fake.channel("muted"))
    status = pinned_status(world, muted)
    mark = fake.last_id()
    fake.say(world.anna, muted, "!end confirm")
    reply(fake, muted, mark, "Game over")
    fake.wait(lambda: not status.pinned, 15, "the status unpinned")
    assert "To act" not in status.content
    doomed = fake.call(lambda: fake.channel("doomed"))
    set_up(world, doomed, world.boris, world.clara)
    mark = fake.last_id()
    fake.say(world.boris, world.two, "!games")
    assert f"<#{doomed.id}>" in reply(fake, world.two, mark, "Game").content
    fake.delete_channel(doomed)
    fake.wait(lambda: "abandoned: its channel" in world.bot.output, 15, "the game abandoned")
    mark = fake.last_id()
    fake.say(world.boris, world.two, "!games")
    assert f"<#{doomed.id}>" not in reply(fake, world.two, mark).content


@pytest.mark.parametrize("title", ["1861", "1867"])
def test_computer_seats_post_their_moves_with_reasons_and_a_hint_answers_only_the_asker(
        world: World, title: str) -> None:
    """Issue 37 on the Discord path as `troika run` starts it: a game of Dmitri and two
    computer seats; the computer's moves are posted, marked, each with its reason; `/hint`
    is answered to Dmitri alone (ephemeral), a typed `!hint` by direct message."""
    fake, dmitri = world.fake, world.dmitri
    channel = fake.call(lambda: fake.channel(f"computers-{title}"))
    mark = fake.last_id()
    fake.say(dmitri, channel, f"!new {title} computer computer")
    reply(fake, channel, mark, "sets up game")
    mark = fake.last_id()
    fake.say(dmitri, channel, "!start")
    post = turn_post(world, channel, mark)
    for _ in range(4):  # the seats' order is drawn: Dmitri may act before a computer does
        played = [m.content for m in fake.posts(channel) if "played by the computer" in m.content]
        if played:
            break
        assert called(world, post) is dmitri
        mark = fake.last_id()
        fake.say(dmitri, channel, "!pass")
        post = turn_post(world, channel, mark)
    assert played and all(m.startswith("**Computer ") and "(`" in m for m in played), played
    assert called(world, post) is dmitri  # the computer moved until Dmitri is to act
    mark = fake.last_id()
    hint = fake.slash(dmitri, channel, "hint")
    answer = answered(fake, hint, "💡 The computer would `")
    assert answer.ephemeral and ": " in answer.content.split("`", 2)[2]  # the move, then its reason
    dms = len(fake.call(lambda: fake.direct_messages(dmitri)))
    fake.say(dmitri, channel, "!hint")
    fake.wait(lambda: len(fake.direct_messages(dmitri)) > dms, 15, "the hint by direct message")
    assert "💡 The computer would `" in fake.call(lambda: fake.direct_messages(dmitri))[-1].content
    assert not [m for m in fake.posts(channel, mark) if "💡" in m.content and not m.ephemeral]


def test_every_message_was_well_formed_and_every_interaction_answered_in_time(world: World) -> None:
    fake = world.fake
    messages = fake.call(lambda: [m for m in fake.messages.values() if m.author is fake.bot])
    posts = [m for m in messages if m.interaction_id is None]
    files = [data for m in messages for name, data in m.files if name.endswith(".png")]
    assert all(len(m.content) <= 2000 for m in messages)
    assert all(data.startswith(PNG) for data in files)
    assert all(len((m.allowed_mentions or {}).get("users", [])) <= 1 for m in messages)
    assert all((m.allowed_mentions or {}).get("parse") == [] for m in messages if m.allowed_mentions)
    interactions = fake.call(lambda: list(fake.interactions.values()))
    assert all(i.acknowledged is not None and i.acknowledged < 3 for i in interactions)
    assert fake.heartbeats >= 3  # each acknowledged; the session lived on them
    print(f"\n{len(posts)} posts and replies, {len(messages) - len(posts)} interaction answers, "
          f"{len(files)} attachments (largest {max(map(len, files)) // 1024} KiB), "
          f"longest message {max(len(m.content) for m in messages)} characters, "
          f"{len(interactions)} interactions acknowledged, slowest "
          f"{max(i.acknowledged or 0 for i in interactions) * 1000:.0f} ms")


# --- start-up mistakes: one line and an exit code each, never a traceback ---------------------


def _one_line(bot: Troika, code: int, *words: str) -> None:
    assert bot.wait(45) == code, bot.output
    assert "Traceback" not in bot.output, bot.output
    last = bot.output.strip().splitlines()[-1]
    assert last.startswith("troika: ") and all(w in last for w in words), last


def test_a_refused_token_is_one_line_and_no_restart(tmp_path: Path) -> None:
    fake = FakeDiscord().start()
    try:
        _one_line(Troika(fake, tmp_path / "t.db", token="wrong"), 3, "token", "DISCORD.md")
    finally:
        fake.stop()


def test_the_message_content_intent_switched_off_is_one_line_and_no_restart(tmp_path: Path) -> None:
    fake = FakeDiscord().start()
    fake.message_content_enabled = False
    try:
        _one_line(Troika(fake, tmp_path / "t.db"), 3, "Message Content", "DISCORD.md")
    finally:
        fake.stop()


def test_discord_unreachable_is_one_line(tmp_path: Path) -> None:
    fake = FakeDiscord()  # never started: nothing listens at its address
    _one_line(Troika(fake, tmp_path / "t.db", url="http://127.0.0.1:9"), 1, "cannot reach Discord")


def test_a_database_in_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    fake = FakeDiscord()
    bot = Troika(fake, tmp_path / "missing" / "t.db", url="http://127.0.0.1:9", logs=tmp_path)
    _one_line(bot, 2, "folder", "missing")


def test_systemd_and_compose_do_not_restart_a_refusal_for_ever() -> None:
    from bot.discord_bot import EXIT_REFUSED

    unit = (REPO / "deploy" / "troika.service").read_text()
    (line,) = [x for x in unit.splitlines() if x.startswith("RestartPreventExitStatus=")]
    assert {"2", str(EXIT_REFUSED)} <= set(line.partition("=")[2].split())
    compose = (REPO / "deploy" / "compose.yaml").read_text()
    assert "  restart: on-failure:5\n" in compose  # the bot's services; PostgreSQL keeps unless-stopped


def test_discord_banning_the_machine_at_login_is_one_line(tmp_path: Path) -> None:
    fake = FakeDiscord().start()
    fake.fail("GET", "/users/@me", 429, retry_after=3600.0, via=False)
    try:
        _one_line(Troika(fake, tmp_path / "t.db"), 1, "429", "wait")
    finally:
        fake.stop()


def test_ctrl_c_stops_the_bot_started_in_the_background_by_a_script(tmp_path: Path) -> None:
    """A non-interactive shell starts `troika run &` with SIGINT ignored (POSIX); the bot
    still stops cleanly on SIGINT (it ran on, deaf to it, and the end-to-end tests' restarts
    timed out whenever the suite itself ran in the background)."""
    fake = FakeDiscord().start()
    bot = Troika(fake, tmp_path / "t.db", workers=0, deaf_to_ctrl_c=True)
    try:
        fake.wait(lambda: fake.ready or not bot.alive(), 45, "READY")
        assert bot.stop() == 0, bot.output
    finally:
        if bot.alive():
            bot.process.kill()
        fake.stop()
