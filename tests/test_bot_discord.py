"""The Discord layer driven through discord.py's real command objects.

Messages go through ``Bot.get_context`` and ``Bot.invoke`` (prefix parsing, the hybrid
commands, converters, the one error handler); contexts and the channel are fakes that
record what the bot sends, as python-discord's bot tests do.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.commands import VERBS, Verb
from bot.console import Console
from bot.core import handles
from bot.discord_bot import ChoiceButton, GameCog, TroikaBot, buttons_for, suggest, suggest_options, verb_commands
from bot.errors import Refusal
from bot.information import Information
from bot.posts import help_text
from bot.service import Post, Reply, TroikaService
from storage import GameRecord, Shard, SqliteEventStore

CHANNEL_ID = 500
MESSAGE_IDS = itertools.count(1)


@dataclass
class FakeUser:
    id: int
    display_name: str
    bot: bool = False

    @property
    def name(self) -> str:
        return self.display_name

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass
class Sent:
    """A message the bot sent (or a message a user typed)."""

    id: int
    content: str | None
    files: list[discord.File] = field(default_factory=list)
    nonce: int | None = None
    ephemeral: bool = False
    pinned: bool = False
    edits: list[str] = field(default_factory=list)
    view: Any = None

    async def edit(self, *, content: str | None = None, attachments: list[discord.File] | None = None) -> None:
        if attachments:  # a post's pictures, attached once drawn
            self.files.extend(attachments)
        if content is not None:
            self.edits.append(content)
            self.content = content

    async def pin(self) -> None:
        self.pinned = True

    @property
    def filenames(self) -> list[str]:
        return [f.filename for f in self.files]


class FakeChannel:
    """Records what is sent; hands back sent messages by id."""

    def __init__(self, channel_id: int) -> None:
        self.id = channel_id
        self.sent: list[Sent] = []

    async def send(self, content: str | None = None, *, files: list[discord.File] | None = None,
                   nonce: int | None = None, ephemeral: bool = False, view: Any = None, **_: Any) -> Sent:
        message = Sent(1000 + len(self.sent), content, list(files or []), nonce, ephemeral, view=view)
        self.sent.append(message)
        return message

    def get_partial_message(self, message_id: int) -> Sent:
        return next(m for m in self.sent if m.id == message_id)


@dataclass
class FakeMessage:
    content: str
    author: FakeUser
    channel: FakeChannel
    id: int = 1
    guild: Any = None
    attachments: list[Any] = field(default_factory=list)
    _state: Any = None


class RecordingContext(commands.Context):  # type: ignore[type-arg]
    """A real Context whose replies go to the fake channel instead of Discord's API."""

    async def send(self, content: str | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
        return await self.channel.send(content, **kwargs)


class FakeBot(TroikaBot):
    def __init__(self, service: TroikaService, channel: FakeChannel) -> None:
        super().__init__(service)
        self.channel = channel

    async def resolve_channel(self, channel_id: str) -> Any:
        assert channel_id == str(self.channel.id)
        return self.channel


ANNA, BORIS, CLARA = FakeUser(11, "Anna"), FakeUser(22, "Boris"), FakeUser(33, "Clara")
USERS = {u.display_name: u for u in (ANNA, BORIS, CLARA)}


@pytest.fixture
async def table(tmp_path: Any) -> AsyncIterator[Table]:
    async with SqliteEventStore(tmp_path / "bot.sqlite3") as store:
        service = TroikaService(store)
        channel = FakeChannel(CHANNEL_ID)
        async with FakeBot(service, channel) as bot:  # initialised, never logged in
            bot._connection.user = FakeUser(1, "Troika", bot=True)  # type: ignore[assignment]
            await bot.add_cog(GameCog(bot))
            yield Table(bot, service, channel)
            await bot.remove_cog("Game")


@dataclass
class Table:
    bot: FakeBot
    service: TroikaService
    channel: FakeChannel

    async def say(self, user: FakeUser, content: str) -> list[Sent]:
        """``user`` types ``content``; returns what the bot sent in answer."""
        start = len(self.channel.sent)
        message = FakeMessage(content, user, self.channel, next(MESSAGE_IDS))
        ctx = await self.bot.get_context(message, cls=RecordingContext)  # type: ignore[arg-type]
        await self.bot.invoke(ctx)
        await settle()
        await self.service.drawn()  # the posts' pictures, attached to them once drawn
        return self.channel.sent[start:]

    async def acting(self) -> FakeUser:
        _, game = await self.service.game_in(str(CHANNEL_ID))
        return USERS[game.state.player(game.acting_player() or "").name]


async def settle() -> None:
    """Let the tasks discord.py schedules (the error handler) finish."""
    for _ in range(20):
        pending = [t for t in asyncio.all_tasks()
                   if t is not asyncio.current_task() and t.get_name().startswith("discord.py") and not t.done()]
        if not pending:
            return
        await asyncio.gather(*pending)


def posts(sent: list[Sent]) -> list[Sent]:
    """Game posts, without the pinned status message."""
    return [m for m in sent if m.nonce is not None]


def order_after(first: FakeUser) -> list[FakeUser]:
    seats = [ANNA, BORIS, CLARA]
    i = seats.index(first)
    return seats[i:] + seats[:i]


async def test_a_game_is_set_up_joined_and_started(table: Table) -> None:
    reply = await table.say(ANNA, "!new column")
    assert "sets up game 1" in (reply[0].content or "") and "column market" in (reply[0].content or "")
    await table.say(BORIS, "!join")
    assert (await table.say(BORIS, "!join"))[0].content == "✗ You already have a seat."
    await table.say(CLARA, "!join")
    assert (await table.say(BORIS, "!start"))[0].content == "✗ Only the commissioner (Anna) may do that."
    sent = await table.say(ANNA, "!start")
    start = posts(sent)[0]
    assert "Game 1 of 1861 begins" in (start.content or "")
    assert start.filenames == ["map.png", "table.png"]
    first = await table.acting()
    assert first.mention in (start.content or "")  # the first player is called
    status = [m for m in sent if m.nonce is None]
    assert status and status[0].pinned and "To act" in (status[0].content or "")
    assert "already has game 1" in (await table.say(BORIS, "!new"))[0].content


@pytest.mark.slow
async def test_the_private_auction_and_a_stock_round(table: Table) -> None:
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (CLARA, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    p0, p1, p2 = order_after(await table.acting())

    # Out of turn, illegal and mistyped commands get one clear answer; nothing is stored.
    seq = await table.service.store.last_seq(1)
    wrong = await table.say(p1, "!bid TSR 20")
    assert wrong[0].content.startswith(f"✗ Not your turn: {p0.display_name} bids on TSR")
    low = await table.say(p0, "!bid TSR 5")
    assert "lowest" in low[0].content.lower() and "`bid TSR 20..420`" in low[0].content
    typo = await table.say(p0, "!bdi TSR 20")
    assert typo[0].content == "✗ I don't know `bdi`. Did you mean `bid`? `help` lists the commands."
    assert await table.service.store.last_seq(1) == seq

    # A bid passes the turn: a post naming the move and calling the next bidder.
    post = posts(await table.say(p0, "!bid TSR 20"))[0]
    assert f"**{p0.display_name}**: `bid TSR 20`" in post.content and p1.mention in post.content
    assert post.files == []  # a bid changes no picture
    await table.say(p1, "!pass")
    await table.say(p2, "!bid 25")  # the private up for auction is understood
    won = posts(await table.say(p0, "!pass"))[0]
    assert f"{p2.display_name} buys TSR for 25" in won.content
    assert won.filenames == ["table.png"]
    # p0 passed last and opens the next private: the turn stays with them, no mention.
    assert await table.acting() == p0 and "<@" not in won.content

    # The other privates: whoever opens bids the minimum and the others pass.
    while (await table.service.game_in(str(CHANNEL_ID)))[1].round_name == "Auction":
        user = await table.acting()
        _, game = await table.service.game_in(str(CHANNEL_ID))
        minimum = game.state.round.minimum if game.state.round.high_bidder is None else None
        await table.say(user, f"!bid {minimum}" if minimum is not None else "!pass")

    # The stock round: the Nikolaev first, majors not yet, then a minor auction.
    user = await table.acting()
    before = [u for u in order_after(user) if u is not user]
    assert "Nikolaev Railway (N) must be the first" in (await table.say(user, "!auction RO 100"))[0].content
    assert "✗" in (await table.say(user, "!buy NW"))[0].content
    nominated = posts(await table.say(user, "!auction N 100"))[0]
    assert nominated.filenames == ["map.png", "table.png"]  # its home token is placed
    assert before[0].mention in nominated.content
    await table.say(before[0], "!pass")
    won = posts(await table.say(before[1], "!pass"))[0]
    assert f"{user.display_name} wins N for 100" in won.content
    assert won.filenames == ["market.png", "table.png"]
    while (await table.service.game_in(str(CHANNEL_ID)))[1].round_name == "Stock":
        await table.say(await table.acting(), "!pass")
    _, game = await table.service.game_in(str(CHANNEL_ID))
    assert game.round_name == "Operating"

    # The pinned status message was kept up to date by editing it.
    pinned = [m for m in table.channel.sent if m.pinned]
    assert len(pinned) == 1 and pinned[0].edits and "Operating round 1.1" in pinned[0].content


@pytest.mark.slow
async def test_info_commands_answer_with_text_and_pictures(table: Table) -> None:
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (CLARA, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    assert (await table.say(CLARA, "!map H8"))[0].filenames == ["map.png"]
    assert (await table.say(CLARA, "!market"))[0].filenames == ["market.png"]
    assert "Seats: Anna (commissioner) · Boris · Clara" in (await table.say(CLARA, "!status"))[0].content
    assert "`lay HEX TILE [ROTATION] [loan]`" in (await table.say(CLARA, "!help lay"))[0].content
    assert (await table.say(CLARA, "!map Z99"))[0].content == "✗ There is no hex Z99 on the map."
    # Other names for commands work as prefix commands too.
    assert "To act" in (await table.say(CLARA, "!info"))[0].content


async def test_slash_commands_defer_and_offer_the_legal_moves(table: Table) -> None:
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (CLARA, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    first = await table.acting()

    @dataclass
    class Response:
        deferred: list[bool] = field(default_factory=list)

        async def defer(self, *, ephemeral: bool = False) -> None:
            self.deferred.append(ephemeral)

        def is_done(self) -> bool:
            return bool(self.deferred)

    @dataclass
    class Interaction:
        client: Any
        channel_id: int
        command: Any
        response: Response = field(default_factory=Response)

    bid = table.bot.get_command("bid")
    assert bid is not None and bid.app_command is not None
    choices = await suggest(Interaction(table.bot, CHANNEL_ID, bid.app_command), "TSR")  # type: ignore[arg-type]
    assert [c.value for c in choices] == ["TSR 20"]  # the lowest bid; any higher one may be typed

    interaction = Interaction(table.bot, CHANNEL_ID, bid.app_command)
    ctx = RecordingContext(message=FakeMessage("", first, table.channel), bot=table.bot,  # type: ignore[arg-type]
                           view=commands.view.StringView(""), interaction=interaction)  # type: ignore[arg-type]
    cog = table.bot.get_cog("Game")
    assert isinstance(cog, GameCog)
    await cog.play(ctx, "bid TSR 20")
    assert interaction.response.deferred == [True]  # acknowledged before any slow work
    assert await table.acting() != first


async def test_slow_information_keeps_its_refusal_private_and_posts_its_answer(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    monkeypatch.setattr("bot.discord_bot.DEFER_AFTER", 0.0)  # every answer is late
    handle = table.service.handle

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.05)
        return await handle(*args, **kwargs)

    monkeypatch.setattr(table.service, "handle", slow)

    @dataclass
    class Response:
        deferred: list[bool] = field(default_factory=list)

        async def defer(self, *, ephemeral: bool = False) -> None:
            self.deferred.append(ephemeral)

    cog = table.bot.get_cog("Game")
    assert isinstance(cog, GameCog)
    for text in ("map Z99", "status"):
        interaction = SimpleNamespace(response=Response(), id=next(MESSAGE_IDS))
        ctx = RecordingContext(message=FakeMessage("", CLARA, table.channel), bot=table.bot,  # type: ignore[arg-type]
                               view=commands.view.StringView(""), interaction=interaction)  # type: ignore[arg-type]
        start = len(table.channel.sent)
        if text == "map Z99":
            with pytest.raises(Refusal):  # the error handler answers it, as a follow-up of the private deferral
                await cog.play(ctx, text)
        else:
            await cog.play(ctx, text)
        assert interaction.response.deferred == [True]
    status, done = table.channel.sent[start:]
    assert "To act" in (status.content or "") and not status.ephemeral  # for everyone, as a message
    assert done.content == "✓" and done.ephemeral


async def test_every_command_is_a_valid_slash_command(table: Table) -> None:
    commands_ = table.bot.tree.get_commands()
    assert 40 <= len(commands_) <= 100  # Discord allows 100 global commands
    menus = set()
    for command in commands_:
        payload = command.to_dict(table.bot.tree)
        assert 1 <= len(payload["description"]) <= 100
        for option in payload.get("options", []):
            assert len(option["description"]) <= 100
            if option.get("autocomplete"):
                menus.add(command.name)
    assert {"bid", "auction", "buy", "sell", "par", "lay", "token", "run", "train", "merge", "into"} <= menus


async def test_the_frequent_choices_come_as_buttons_that_survive_a_restart(table: Table) -> None:
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (CLARA, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    first = await table.acting()
    started = [m for m in table.channel.sent if m.content and "begins" in m.content][0]
    (item,) = started.view.children  # `bid TSR ...` needs typing
    assert re.fullmatch(r"troika:pass:1:[0-9]+", item.custom_id)  # bound to game 1 at the post's event
    assert started.view.is_finished()  # not kept per message: the id's pattern answers it, after a restart too
    trainless = Post(1, 1, "500", "", "Boris for NW has no train: nationalize or keep?: `nationalize`, `keep`",
                     None, [])
    assert buttons_for(trainless) == ["keep", "nationalize"]

    @dataclass
    class Response:
        deferred: list[bool] = field(default_factory=list)

        async def defer(self, *, ephemeral: bool = False, thinking: bool = False) -> None:
            self.deferred.append(ephemeral)

    @dataclass
    class Followup:
        sent: list[str] = field(default_factory=list)

        async def send(self, content: str, *, ephemeral: bool = False) -> None:
            self.sent.append(content)

    @dataclass
    class Click:
        client: Any
        channel_id: int
        user: FakeUser
        response: Response = field(default_factory=Response)
        followup: Followup = field(default_factory=Followup)
        id: int = field(default_factory=lambda: next(MESSAGE_IDS))

    button = await ChoiceButton.from_custom_id(None, item.item, item.template.fullmatch(item.custom_id))  # type: ignore[arg-type]
    wrong = Click(table.bot, CHANNEL_ID, next(u for u in (ANNA, BORIS, CLARA) if u is not first))
    await button.callback(wrong)  # type: ignore[arg-type]
    assert wrong.response.deferred == [True] and wrong.followup.sent[0].startswith("✗ Not your turn")
    right = Click(table.bot, CHANNEL_ID, first)
    await button.callback(right)  # type: ignore[arg-type]
    assert right.followup.sent == ["✓"] and await table.acting() != first
    assert f"**{first.display_name}**: `pass`" in (table.channel.sent[-1].content or "")
    again = Click(table.bot, CHANNEL_ID, await table.acting())  # the same post's button, the game moved on
    await button.callback(again)  # type: ignore[arg-type]
    assert again.followup.sent[0].startswith("✗ This choice has passed")
    legacy = ChoiceButton("pass")  # a button posted by an older Troika names no position
    old = Click(table.bot, CHANNEL_ID, await table.acting())
    await legacy.callback(old)  # type: ignore[arg-type]
    assert old.followup.sent[0].startswith("✗ This button names no point") and await table.acting() == old.user


@pytest.mark.slow
async def test_times_are_discord_timestamps_and_reminders_are_per_player(table: Table) -> None:
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (CLARA, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    status = (await table.say(CLARA, "!status"))[0].content or ""
    assert "waiting " in status and "<t:" not in status  # the test service writes durations
    service = TroikaService(table.service.store, timestamps=True)
    assert re.search(r"\(waiting since <t:\d+:R>\)", (await service.status(1)).text)
    first = await table.acting()
    assert "is reminded after 2 h" in (await table.say(first, "!remind me 2"))[-1].content
    assert "✗ Only the commissioner" in (await table.say(BORIS, "!remind 5"))[0].content
    ledger = await table.service.core.ledger(1)
    assert ledger.player_remind == {str(first.id): 2.0} and ledger.remind_hours is None


async def test_a_game_belongs_to_the_server_it_is_set_up_in(table: Table) -> None:
    server = SimpleNamespace(id=(987_654 << 22) + 5, me=None)
    message = FakeMessage("!new", ANNA, table.channel, guild=server)
    ctx = await table.bot.get_context(message, cls=RecordingContext)  # type: ignore[arg-type]
    await table.bot.invoke(ctx)
    await settle()
    record = await table.service.store.active_game_in_channel(str(CHANNEL_ID))
    assert record is not None and record.guild_id == str(server.id)
    assert Shard(987_654 % 3, 3).owns(record.guild_id)


@dataclass
class FakeAttachment:
    filename: str
    data: bytes

    @property
    def size(self) -> int:
        return len(self.data)

    async def read(self) -> bytes:
        return self.data


async def test_a_site_game_is_imported_from_an_attachment_and_exported_as_one(table: Table) -> None:
    import json

    from tests.conftest import shared_game

    log, _ = shared_game("1867-19792")
    cut = {**log, "actions": log["actions"][:150]}
    message = FakeMessage("!import", ANNA, table.channel, next(MESSAGE_IDS),
                          attachments=[FakeAttachment("19792.json", json.dumps(cut).encode())])
    ctx = await table.bot.get_context(message, cls=RecordingContext)  # type: ignore[arg-type]
    await table.bot.invoke(ctx)
    await settle()
    answer = table.channel.sent[-1].content or ""
    assert answer.startswith("**Anna** imports 1867 game hs_ahjzadkh_19792 from 18xx.games as game 1 (150 actions")
    [sent] = await table.say(BORIS, "!export")
    assert sent.filenames == ["1867-troika-1.json"] and "as an 18xx.games log" in (sent.content or "")
    refused = await table.say(ANNA, "!import")  # nothing attached
    assert refused[0].content and refused[0].content.startswith("✗")


async def test_new_takes_the_rulebooks_options_and_slash_new_offers_the_titles_own(table: Table) -> None:
    reply = await table.say(ANNA, "!new 1867 no-floor left-of-auctioneer")
    text = reply[0].content or ""
    assert "sets up game 1 of 1867" in text and "No stock price floor (§14); Left of auctioneer (§14)" in text
    assert "3 to 6 players" in text  # the rulebook has no two-player 1867 (16)
    new = table.bot.get_command("new")
    assert new is not None and new.app_command is not None
    payload = new.app_command.to_dict(table.bot.tree)
    options = next(o for o in payload["options"] if o["name"] == "options")
    assert options.get("autocomplete")
    interaction = SimpleNamespace(namespace=SimpleNamespace(title="1867"), client=table.bot)
    choices = await suggest_options(interaction, "no-floor ")  # type: ignore[arg-type]
    assert [c.value for c in choices] == ["no-floor limited-special-trains", "no-floor long-game",
                                          "no-floor left-of-auctioneer"]  # no 1861 option for 1867
    listed = await table.say(BORIS, "!options")
    assert "✓ (this game)" in "\n".join(m.content or "" for m in listed)


async def test_a_thread_asked_for_twice_at_once_is_fetched_once(store: SqliteEventStore) -> None:
    """A post and a reply to one thread discord.py has not cached, resolved side by side
    (delivery runs per channel, beside information replies), share one fetch."""
    bot = TroikaBot(TroikaService(store, pictures=False))
    fetched: list[int] = []

    async def fetch_channel(number: int) -> Any:
        fetched.append(number)
        await asyncio.sleep(0.05)  # the REST round trip
        return SimpleNamespace(id=number)

    bot.fetch_channel = fetch_channel  # type: ignore[method-assign]
    first, second = await asyncio.gather(bot.resolve_channel("777"), bot.resolve_channel("777"))
    assert first is second and fetched == [777]
    assert await bot.resolve_channel("777") is first and fetched == [777]
    await bot.close()


OPTION_TYPES = {"text": 3, "word": 3, "number": 4, "member": 6, "file": 11}
"""Discord's application command option types, by the table's option kinds."""


async def test_every_slash_command_is_a_verb_of_the_table_with_its_options_and_in_help(table: Table) -> None:
    slash = {command.name: command.to_dict(table.bot.tree) for command in table.bot.tree.get_commands()}
    assert set(slash) == set(VERBS)  # each verb has its slash command, and there is no other
    listed = help_text("")
    for name, verb in VERBS.items():
        offered = {o["name"]: (o["type"], o["required"], bool(o.get("autocomplete")),
                               [c["value"] for c in o.get("choices", [])]) for o in slash[name].get("options", [])}
        assert offered == {o.name: (OPTION_TYPES[o.kind], o.required, o.menu is not None, list(o.choices))
                           for o in verb.options}, name
        assert slash[name]["description"] == verb.summary[:100]
        prefix = table.bot.get_command(name)
        assert prefix is not None and prefix.help == verb.usage
        assert f"`{name}`" in listed and help_text(name).startswith(f"`{verb.usage}` — ")


async def test_log_pages_are_asked_for_with_the_prefix_command_too(table: Table) -> None:
    for user, text in ((ANNA, "!new"), (BORIS, "!join"), (CLARA, "!join"), (ANNA, "!start")):
        await table.say(user, text)
    assert (await table.say(BORIS, "!log page 2"))[0].content == "There is no page 2 of the log."
    assert "the game starts" in ((await table.say(BORIS, "!log 5"))[0].content or "")


async def test_a_new_information_command_is_one_entry_in_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `trains` command: one entry in the table and one function of the information
    feature; `!trains`, `/trains`, `help` and the console all have it from the entry."""

    @handles("trains")
    async def trains(self: Information, record: GameRecord, rest: str) -> Reply:
        game = (await self.repo.load(record.id)).game
        return Reply(f"Trains in the yard: {len(game.state.depot.upcoming)}")

    monkeypatch.setattr(Information, "trains", trains, raising=False)
    verb = Verb("trains", "trains", "The trains still in the yard", "info", words=0)
    monkeypatch.setitem(VERBS, "trains", verb)

    class TrialCog(verb_commands({"trains": verb}), GameCog, name="Game"):  # type: ignore[misc]
        """The bot's cog with the new verb's command (the real one is made from the table as it is imported)."""

    async with SqliteEventStore(tmp_path / "bot.sqlite3") as store:
        service = TroikaService(store, pictures=False)
        channel = FakeChannel(CHANNEL_ID)
        async with FakeBot(service, channel) as bot:
            bot._connection.user = FakeUser(1, "Troika", bot=True)  # type: ignore[assignment]
            await bot.add_cog(TrialCog(bot))
            table = Table(bot, service, channel)
            for user, text in ((ANNA, "!new"), (BORIS, "!join"), (CLARA, "!join"), (ANNA, "!start")):
                await table.say(user, text)
            _, game = await service.game_in(str(CHANNEL_ID))
            assert (await table.say(BORIS, "!trains"))[0].content == \
                f"Trains in the yard: {len(game.state.depot.upcoming)}"
            assert "takes no `3`" in ((await table.say(BORIS, "!trains 3"))[0].content or "")
            assert "`trains`" in ((await table.say(BORIS, "!help"))[0].content or "")
            assert (await table.say(BORIS, "!help trains"))[0].content == "`trains` — The trains still in the yard."
            slash = {c.name: c for c in bot.tree.get_commands()}["trains"].to_dict(bot.tree)
            assert slash["description"] == "The trains still in the yard" and not slash.get("options")
            await bot.remove_cog("Game")
        out: list[str] = []
        console = Console(service, Path("unused"), out.append)
        await service.start_local_game("console", [("Anna", "Anna"), ("Boris", "Boris")])
        await console.line("trains")
        assert any(line.startswith("Trains in the yard: ") for line in out), out
