"""Troika on Discord: a thin cog over :class:`bot.service.TroikaService`.

Every command is hybrid (``!bid TSR 25``, ``@Troika bid TSR 25`` or ``/bid TSR 25``),
one generated per verb of the table (:data:`bot.commands.VERBS`, :func:`verb_command`),
and passes its text to the service; argument menus of slash commands are filled from
the engine's candidate actions. Posts leave through the store's outbox, each sent
with its outbox id as the message nonce so a retry after a crash is not duplicated;
each channel's posts go out on their own, so one channel's rate limit holds back no other,
and a post whose pictures the channel refuses goes out without them. Buttons under a
post are bound to it: a click once the game has moved on is refused. Prefix commands
need the privileged message-content intent (see deploy/DISCORD.md); a refused token or
intent at start-up is one line and exit status 3 (:func:`startup_problem`).

Nobody is mentioned unless a post calls a seated player: replies mention no one, and
each post allows exactly the seat it calls. Each message or interaction is handed to
the service with its id, so a duplicate delivery is carried out once. The delivery and
reminder loops outlive any error: it is logged and the loop backs off.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands

from storage import Shard, StoreError

from .commands import BUTTONS, VERBS, Verb, split
from .errors import PostWaits, Refusal, WorkerStopped
from .face import ServiceFace
from .posts import Picture
from .service import Account, Post, Reply, option_suggestions
from .site_games import check_size
from .workers import open_service

log = logging.getLogger("troika.discord")

MESSAGE_LIMIT = 2000
MAX_MESSAGES = 4
"""Messages one reply may take; the rest is cut with a note."""
DELIVER_EVERY = 30.0
REMIND_EVERY = 600.0
MAX_BACKOFF = 600.0
CONNECT_BACKOFF = 60.0
"""The longest wait between tries of the first gateway connection."""
DEFER_AFTER = 1.5
"""Seconds an information command may take before its slash command is deferred
(Discord wants an answer within 3 s); an answer within them can still be private."""
NO_FILES = ("_(The pictures are not shown: Troika needs the **Attach Files** permission in this channel; "
            "a moderator can grant it in the channel's settings.)_")
NO_SEND = ("Troika cannot post in <#{channel}>: it needs the **Send Messages** permission there (a moderator "
           "can grant it in the channel's settings).")
MISSING_PERMISSIONS = 50013
UNKNOWN_CHANNEL = 10003
STATUS_RETRY = 5.0
"""Seconds before a pinned status that could not be brought up to date is tried again
(then at each delivery pass until it is)."""
FETCHED_CHANNELS = 1000
"""Threads kept once fetched (the oldest fetched is forgotten first)."""
EXIT_REFUSED = 3
"""Exit status when Discord refuses the configuration (the token, the intents): starting
again cannot help, so deploy/troika.service does not restart on it."""


class TokenError(ValueError):
    """The token file is configured but holds no token."""


LOCAL_DISCORD = "TROIKA_TEST_DISCORD_URL"
"""Tests only: the address of a fake Discord on this machine (``http://127.0.0.1:PORT``)
to send the bot's REST calls and gateway connection to (see deploy/DISCORD.md)."""


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def use_local_discord(url: str) -> None:
    """Point discord.py at a fake Discord at ``url`` on the loopback interface: REST under
    ``URL/api/v10``, and the gateway that its ``GET /gateway/bot`` names (asked before
    connecting, see :meth:`TroikaBot.connect`), else ``ws://HOST:PORT/gateway``. Anything
    but a loopback address is refused, so the setting cannot send a token elsewhere."""
    address = yarl.URL(url)
    if address.scheme != "http" or address.host not in LOOPBACK:
        raise ValueError(f"{LOCAL_DISCORD} must be an http:// address on this machine, not {url}")
    discord.http.Route.BASE = str(address.with_path("/api/v10"))
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = address.with_scheme("ws").with_path("/gateway")


def load_token() -> str | None:
    """The bot token from ``DISCORD_TOKEN``, or the file ``DISCORD_TOKEN_FILE`` names
    (which must hold one: :class:`TokenError` if it is empty)."""
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    path = os.environ.get("DISCORD_TOKEN_FILE", "").strip()
    if not token and path:
        token = Path(path).read_text(encoding="utf-8").strip()
        if not token:
            raise TokenError(f"the token file {path} (DISCORD_TOKEN_FILE) is empty")
    return token or None


async def keep_running(
    name: str,
    step: Callable[[], Awaitable[None]],
    every: float,
    *,
    max_backoff: float = MAX_BACKOFF,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Run ``step`` every ``every`` seconds for ever. An error is logged and the next try
    waits twice as long as the last (up to ``max_backoff``) until a step succeeds."""
    delay = every
    while True:
        try:
            await step()
            delay = every
        except Exception:
            delay = min(delay * 2, max(max_backoff, every))
            log.exception("%s failed; trying again in %.0f s", name, delay)
        await sleep(delay)


def post_mentions(post: Post) -> discord.AllowedMentions:
    """Who a post may ping: the seated player it calls, nobody else."""
    user = post.mention.discord_user_id if post.mention else None
    users: list[discord.abc.Snowflake] | bool = [discord.Object(int(user))] if user and user.isdigit() else False
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=False)


def post_text(post: Post) -> str:
    """The post as Discord shows it: the called player's mention stands for their name
    at the head of the last line (``@Boris bids on TSR``, not ``@Boris Boris bids``)."""
    seat = post.mention
    if seat is None or not seat.discord_user_id:
        return post.content(lambda s: s.display_name)
    name = seat.display_name + " "
    shown = replace(post, next=post.next[len(name):]) if post.next.startswith(name) else post
    return shown.content(lambda s: f"<@{s.discord_user_id}>")


def startup_problem(error: BaseException) -> tuple[int, str] | None:
    """The exit status and the one line to print for a mistake that stops the bot at
    start-up (None for anything else, which is a bug to show in full)."""
    see = "see deploy/DISCORD.md, Troubleshooting"
    closed = error.code if isinstance(error, discord.ConnectionClosed) else None
    if isinstance(error, discord.LoginFailure) or closed == 4004:
        return EXIT_REFUSED, (f"Discord refused the bot token (401 Unauthorized): copy a new one from the "
                              f"Developer Portal, Bot, Reset Token, into DISCORD_TOKEN or its file ({see})")
    if isinstance(error, discord.PrivilegedIntentsRequired) or closed in (4013, 4014):
        return EXIT_REFUSED, (f"Discord refused the connection: the Message Content intent is off for this bot; "
                              f"switch it on in the Developer Portal, Bot, Privileged Gateway Intents ({see})")
    if isinstance(error, discord.HTTPException) and error.status == 429:  # Cloudflare's ban: no Via header
        return 1, (f"Discord refuses this machine for now (429 Too Many Requests, often after many failed "
                   f"starts); wait an hour before starting again ({see})")
    if isinstance(error, (aiohttp.ClientError, ConnectionError, asyncio.TimeoutError, discord.DiscordServerError,
                          discord.GatewayNotFound)):
        why = str(error).strip() or type(error).__name__
        return 1, f"cannot reach Discord ({why}); check this machine's network and discordstatus.com ({see})"
    return None


def request_key(ctx: commands.Context[Any]) -> str | None:
    """The id of the message or interaction a command came in (None if it has none)."""
    source, what = (ctx.interaction, "interaction") if ctx.interaction is not None else (ctx.message, "message")
    number = getattr(source, "id", None)
    return None if number is None else f"{what} {number}"


class TroikaBot(commands.Bot):
    """The bot: prefix ``!`` or a mention, slash commands, one error handler."""

    def __init__(self, service: ServiceFace, *, guild_id: int | None = None) -> None:
        intents = discord.Intents.default()
        intents.message_content = True
        shard = service.shard
        super().__init__(
            command_prefix=commands.when_mentioned_or("!"),
            case_insensitive=True,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_id=shard.index if shard else None,
            shard_count=shard.count if shard else None,
        )
        self.service = service
        self.guild_id = guild_id
        self._fetched: OrderedDict[int, Any] = OrderedDict()
        self._fetching: dict[int, asyncio.Lock] = {}
        """Per channel id, held while it is fetched: a post and a reply to the same
        uncached thread, arriving together, share one fetch."""

    async def setup_hook(self) -> None:
        self.add_dynamic_items(ChoiceButton)  # buttons on earlier posts keep working after a restart
        await self.add_cog(GameCog(self))
        if self.service.shard is not None and self.service.shard.index != 0:
            return  # the commands are the bot's, not a shard's: shard 0 registers them
        if self.guild_id is not None:
            guild = discord.Object(self.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def connect(self, *, reconnect: bool = True) -> None:
        """discord.py's connection loop, begun again with back-off when the very first
        gateway connection fails: discord.py 2.7.1 then dies reading the session of a
        connection it never had (Rapptz/discord.py#10520). Later drops it resumes itself."""
        if os.environ.get(LOCAL_DISCORD):
            await self._ask_local_gateway()
        delay = 1.0
        while True:
            try:
                await super().connect(reconnect=reconnect)
                return
            except AttributeError:
                if self.ws is not None or self.is_closed():
                    raise
            log.warning("Discord's gateway cannot be reached; trying again in %.0f s", delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, CONNECT_BACKOFF)

    async def _ask_local_gateway(self) -> None:
        """A fake Discord's gateway, as its ``GET /gateway/bot`` names it, if it does
        (discord.py itself goes straight to Discord's well-known gateway)."""
        try:
            _, url, _ = await self.http.get_bot_gateway()
        except discord.GatewayNotFound:
            return
        gateway = yarl.URL(url)
        if gateway.host not in LOOPBACK:
            raise ValueError(f"the fake Discord's gateway must be on this machine, not {url}")
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway

    async def resolve_channel(self, channel_id: str) -> Any:
        """The channel or thread with this id. A thread discord.py has not cached (one it
        never heard of, or archived) is fetched once and kept, not fetched for each post."""
        number = int(channel_id)
        found = self.get_channel(number) or self._fetched.get(number)
        if found is not None:
            return found
        async with self._fetching.setdefault(number, asyncio.Lock()):
            found = self._fetched.get(number)
            if found is None:
                found = self._fetched[number] = await self.fetch_channel(number)
                while len(self._fetched) > FETCHED_CHANNELS:
                    self._fetched.popitem(last=False)
        self._fetching.pop(number, None)
        return found

    async def on_command_error(self, ctx: commands.Context[Any], error: commands.CommandError) -> None:
        """The one error handler: refusals and bad input are answered, crashes logged."""
        if isinstance(error, commands.CommandNotFound):
            await self._other_word(ctx)
            return
        original: BaseException = error
        while isinstance(getattr(original, "original", None), BaseException):
            original = original.original  # type: ignore[attr-defined]
        if isinstance(original, (Refusal, commands.UserInputError)):
            await ctx.send(_fit(f"✗ {original}"), ephemeral=True)
            return
        if isinstance(original, discord.Forbidden):  # the channel refuses the answer: no bug of ours
            log.warning("the answer to %r in channel %s is refused: %s", ctx.message.content, ctx.channel.id,
                        original)
            await tell_privately(ctx, NO_SEND.format(channel=ctx.channel.id))
            return
        log.error("command %r failed", ctx.message.content, exc_info=original)
        await ctx.send("✗ Something went wrong on my side; it is logged.", ephemeral=True)


    async def _other_word(self, ctx: commands.Context[Any]) -> None:
        """A word that is not a command: another name for one (``pay``, ``dividend half``,
        ``choose nationalize``) is carried out; in a game's channel, a typo is answered."""
        if await self.service.store.active_game_in_channel(str(ctx.channel.id)) is None:
            return  # not a game's channel: perhaps another bot's command
        text = ctx.message.content[len(ctx.prefix or ""):]
        cog = self.get_cog("Game")
        try:
            split(text)
            if isinstance(cog, GameCog):
                await cog.play(ctx, text)
        except Refusal as exc:
            await ctx.send(_fit(f"✗ {exc}"))


def defer_after(interaction: Any) -> float:
    """Seconds an information command's slash command may still wait for its answer before
    it is deferred: :data:`DEFER_AFTER` from its creation (by its id's time), less what
    reaching the bot took."""
    created = getattr(interaction, "created_at", None)
    if created is None:
        return DEFER_AFTER
    age: float = (discord.utils.utcnow() - created).total_seconds()
    return DEFER_AFTER - min(max(age, 0.0), DEFER_AFTER)


def account(user: discord.abc.User) -> Account:
    return Account(str(user.id), user.display_name)


async def tell_privately(ctx: commands.Context[Any], text: str) -> None:
    """``text`` for the one who gave the command only: beside a slash command's answer,
    else as a direct message (which they may have closed: then it is logged)."""
    try:
        if ctx.interaction is not None:
            await ctx.send(_fit(text), ephemeral=True)
        else:
            await ctx.author.send(_fit(text))
    except discord.HTTPException as exc:
        log.warning("%s could not be told privately: %s", ctx.author.id, exc)


class ChoiceButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=r"troika:(?P<verb>[a-z]+)(?::(?P<game>[0-9]+):(?P<seq>[0-9]+))?"):
    """A button for one choice a post offers, bound to the post: its custom id names the
    game and the event the post was written after (``troika:pass:12:40``). A click is
    the command typed by the clicker while the game stands there, and is refused once the
    game has moved past. The ids are matched by pattern, so buttons keep working after a
    restart; a button of an older Troika (``troika:pass``) names no position and is
    refused with the command to type."""

    def __init__(self, verb: str, game_id: int | None = None, seq: int | None = None) -> None:
        where = f":{game_id}:{seq}" if game_id is not None and seq is not None else ""
        style = discord.ButtonStyle.primary if verb != "refuse" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=verb, custom_id=f"troika:{verb}{where}", style=style))
        self.verb, self.game_id, self.seq = verb, game_id, seq

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChoiceButton:
        game, seq = match["game"], match["seq"]
        return cls(match["verb"], int(game) if game else None, int(seq) if seq else None)

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        bot: Any = interaction.client
        channel_id = str(interaction.channel_id)
        try:
            if self.verb not in BUTTONS or self.game_id is None or self.seq is None:
                raise Refusal(f"This button names no point of a game (it is from an older Troika): "
                              f"type `{self.verb}` instead.")
            reply = await bot.service.handle(channel_id, account(interaction.user), self.verb,
                                             key=f"interaction {interaction.id}", at=(self.game_id, self.seq))
            text = reply.text or "✓"
        except Refusal as exc:
            text = f"✗ {exc}"
        cog = bot.get_cog("Game")
        try:
            if isinstance(cog, GameCog):
                await cog.deliver(channel_id)
                if channel_id in cog.cannot_send:
                    text += "\n" + cog.waiting_note(channel_id)
        except Exception:  # the click is stored; the delivery loop sends its posts later
            log.exception("posts after a click on %s not delivered yet", self.verb)
        await interaction.followup.send(_fit(text), ephemeral=True)


def choice_view(post: Post) -> discord.ui.View | None:
    """The buttons of the choices the post offers, bound to it (None if it offers none)."""
    verbs = buttons_for(post)
    if not verbs:
        return None
    view = discord.ui.View(timeout=None)
    for verb in verbs:
        view.add_item(ChoiceButton(verb, post.game_id, post.seq))
    return view


def buttons_for(post: Post) -> list[str]:
    """The button choices the post's prompt offers."""
    offered = post.next
    return [verb for verb in BUTTONS if f"`{verb}`" in offered]


async def suggest(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete of a game command's argument, from the engine's candidate actions."""
    bot: Any = interaction.client
    verb = interaction.command.name if interaction.command else ""
    texts = await bot.service.suggestions(str(interaction.channel_id), verb, current)
    return [app_commands.Choice(name=t[:100], value=t[:100]) for t in texts[:25]]


async def suggest_player(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    bot: Any = interaction.client
    names = await bot.service.seat_names(str(interaction.channel_id))
    return [app_commands.Choice(name=n, value=n) for n in names if n.lower().startswith(current.lower())]


async def suggest_options(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """``/new``'s options: the chosen title's declared options, continuing what is typed."""
    title = str(getattr(interaction.namespace, "title", "") or "")
    texts = option_suggestions(title, current)
    return [app_commands.Choice(name=t[:100], value=t[:100]) for t in texts[:25]]


MENUS: dict[str, Callable[[discord.Interaction, str], Coroutine[Any, Any, list[app_commands.Choice[str]]]]] = {
    "actions": suggest, "players": suggest_player, "options": suggest_options,
}
"""Where an option's suggestions come from (:class:`bot.commands.Option` ``menu``)."""

TYPES: dict[str, type] = {"text": str, "word": str, "number": int, "file": discord.Attachment,
                          "member": discord.Member}
"""The Python type discord.py reads an option as, by its kind."""


def verb_callback(verb: Verb) -> Callable[..., Coroutine[Any, Any, None]]:
    """A coroutine function whose parameters are the verb's options (discord.py reads a
    command's options from its callback's signature): a ``text`` option keyword-only, so
    that a prefix command gives it the rest of the line, the others one word each. It
    hands the values to :meth:`GameCog.carry_out`."""
    parameters, names = [], []
    for option in verb.options:
        if option.kind == "text" and "*" not in parameters:
            parameters.append("*")
        default = "" if option.required else f" = defaults[{option.name!r}]"
        parameters.append(f"{option.name}: types[{option.kind!r}]{default}")
        names.append(option.name)
    source = (f"async def {verb.name}_(cog, ctx, {', '.join(parameters)}):\n"
              f"    await cog.carry_out(ctx, verb, {{{', '.join(f'{n!r}: {n}' for n in names)}}})\n")
    defaults = {o.name: TYPES[o.kind](o.default) for o in verb.options if not o.required}
    namespace: dict[str, Any] = {"__name__": __name__, "verb": verb, "types": TYPES, "defaults": defaults}
    code = compile(source, f"<the {verb.name} command>", "exec", dont_inherit=True)  # annotations as types
    exec(code, namespace)  # a signature made from data, as dataclasses makes __init__
    callback: Callable[..., Coroutine[Any, Any, None]] = namespace[f"{verb.name}_"]
    callback.__qualname__ = f"GameCog.{verb.name}"  # discord.py passes the cog to a command named in its class
    return callback


def verb_command(verb: Verb) -> commands.HybridCommand[Any, ..., None]:
    """The hybrid command (``!verb``, ``/verb``) of a verb of the table, its options as
    declared there; choices, menus and descriptions go to the slash command."""
    func: Any = verb_callback(verb)
    choices = {o.name: [app_commands.Choice(name=c, value=c) for c in o.choices] for o in verb.options if o.choices}
    menus = {o.name: MENUS[o.menu] for o in verb.options if o.menu}
    described = {o.name: o.description or verb.usage for o in verb.options if o.description or o.name == "what"}
    if choices:
        func = app_commands.choices(**choices)(func)
    if menus:
        func = app_commands.autocomplete(**menus)(func)
    if described:
        func = app_commands.describe(**described)(func)
    return commands.hybrid_command(name=verb.name, description=verb.summary[:100], help=verb.usage)(func)


def verb_commands(verbs: Mapping[str, Verb]) -> type:
    """A class holding the generated command of each verb, for a cog to collect (a cog
    gathers the commands of its bases)."""
    return type("VerbCommands", (), {f"{name}_command": verb_command(verb) for name, verb in verbs.items()})


VerbCommands = verb_commands(VERBS)
"""Every verb's command, generated from the table, for :class:`GameCog` to collect."""


class GameCog(VerbCommands, commands.Cog, name="Game"):  # type: ignore[misc,valid-type]
    """Set-up, moves, turns, information and the commissioner's commands: one per verb
    of the table (:data:`bot.commands.VERBS`), each carried out by :meth:`carry_out`."""

    def __init__(self, bot: TroikaBot) -> None:
        self.bot = bot
        self.service = bot.service
        self._loops: list[asyncio.Task[None]] = []
        self.cannot_send: dict[str, str] = {}
        """Channels that refuse Troika's posts (a permission missing), with Discord's
        answer: their posts wait in the outbox."""
        self._status_owed: set[int] = set()
        """Games whose pinned status could not be brought up to date."""
        self._status_retry: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self._loops = [
            asyncio.create_task(self._when_ready("delivery", self.deliver, DELIVER_EVERY)),
            asyncio.create_task(self._when_ready("reminders", self.remind_due, REMIND_EVERY)),
        ]

    async def cog_unload(self) -> None:
        for task in [*self._loops, *([self._status_retry] if self._status_retry else [])]:
            task.cancel()

    # --- delivery ------------------------------------------------------------------

    async def _when_ready(self, name: str, step: Callable[[], Awaitable[None]], every: float) -> None:
        await self.bot.wait_until_ready()
        await keep_running(name, step, every)

    async def remind_due(self) -> None:
        """Queue the reminders that are due and send them."""
        await self.service.send_reminders()
        await self.deliver()

    async def deliver(self, channel_id: str | None = None) -> None:
        """Send the queued posts (of one channel's games, or all), each channel's on its
        own so that a slow channel holds back no other, and bring each game's pinned status
        up to date after its posts (a pass over all also mends the statuses owed)."""
        await self.service.flush(self._send, channel_id=channel_id, then=self._after_posts, attach=self._attach)
        if channel_id is None:
            await self._mend_statuses()

    async def _after_posts(self, game_id: int) -> None:
        """Bring the game's pinned status up to date; if Discord or the game's worker
        fails, it is owed: tried again shortly, then at each delivery pass."""
        try:
            await self._pin_status(game_id)
        except (discord.HTTPException, WorkerStopped, StoreError) as exc:
            if game_id not in self._status_owed:
                log.warning("status of game %s not updated (%s); tried again later", game_id, exc)
            self._owe_status(game_id)
        except Exception:
            log.exception("status of game %s not updated", game_id)
            self._owe_status(game_id)
        else:
            self._status_owed.discard(game_id)

    def _owe_status(self, game_id: int) -> None:
        self._status_owed.add(game_id)
        if self._status_retry is None or self._status_retry.done():
            self._status_retry = asyncio.create_task(self._mend_statuses(STATUS_RETRY))

    async def _mend_statuses(self, after: float = 0.0) -> None:
        await asyncio.sleep(after)
        for game_id in sorted(self._status_owed):
            await self._after_posts(game_id)

    def waiting_note(self, channel_id: str) -> str:
        """What the mover is told privately when the channel refuses the post of their move."""
        return "⚠ " + NO_SEND.format(channel=channel_id) + " Your move is stored; its post follows once it can."

    async def _send(self, post: Post) -> Any:
        """Send a post's text (its pictures follow: :meth:`_attach`); the message sent.
        A post the channel refuses (a permission missing) waits in the outbox; one to a
        deleted channel is dropped, and the channel's game abandoned."""
        if post.channel_id is None:
            return None
        view = choice_view(post)
        try:
            channel = await self.bot.resolve_channel(post.channel_id)
            extra: dict[str, Any] = {"view": view} if view is not None else {}
            sent = await channel.send(_fit(post_text(post)), nonce=post.outbox_id,
                                      allowed_mentions=post_mentions(post), **extra)
        except discord.Forbidden as exc:
            if post.channel_id not in self.cannot_send:
                log.warning("posts to channel %s wait from post %s on: %s", post.channel_id, post.outbox_id, exc)
            self.cannot_send[post.channel_id] = str(exc)
            raise PostWaits(str(exc)) from None
        except discord.NotFound as exc:
            log.warning("post %s to channel %s dropped: %s", post.outbox_id, post.channel_id, exc)
            if exc.code == UNKNOWN_CHANNEL:
                await self._channel_gone(post.channel_id)
            return None
        finally:
            if view is not None:
                view.stop()  # its buttons are answered by ChoiceButton's pattern, not kept per message
        if self.cannot_send.pop(post.channel_id, None) is not None:
            log.warning("posts to channel %s go out again", post.channel_id)
        return sent

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self._channel_gone(str(channel.id))

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self._channel_gone(str(payload.thread_id))

    async def _channel_gone(self, channel_id: str) -> None:
        """The channel was deleted: its game is abandoned, so that nothing lists it as going on."""
        try:
            game_id = await self.service.channel_deleted(channel_id)
        except Exception:
            log.exception("the game of the deleted channel %s is not marked abandoned", channel_id)
            return
        if game_id is not None:
            log.warning("game %s is abandoned: its channel %s was deleted", game_id, channel_id)

    async def _attach(self, sent: Any, post: Post, pictures: list[Picture]) -> None:
        """Attach a post's pictures, once drawn, to the message that carried its text: the
        message :meth:`_send` answered, or after a restart its id; a channel that refuses
        files gets a note instead."""
        if sent is None or post.channel_id is None:
            return
        if isinstance(sent, str):  # owed by a bot that stopped: the message found by its id
            sent = (await self.bot.resolve_channel(post.channel_id)).get_partial_message(int(sent))
        files = [discord.File(io.BytesIO(p.png), filename=f"{p.name}.png") for p in pictures]
        try:
            await sent.edit(attachments=files)
        except discord.Forbidden as exc:
            if exc.code != MISSING_PERMISSIONS:
                raise
            log.warning("post %s to channel %s goes without its pictures: %s", post.outbox_id,
                        post.channel_id, exc)
            await sent.edit(content=_fit(post_text(replace(post, text="\n".join(filter(None, (post.text, NO_FILES)))))))

    async def _pin_status(self, game_id: int) -> None:
        """Edit the game's pinned status message (posted and pinned if it has none); once
        the game is over, its last edit and then unpinned."""
        status = await self.service.status(game_id)
        if status.channel_id is None or (status.over and status.message_id is None):
            return
        try:
            channel = await self.bot.resolve_channel(status.channel_id)
            if status.message_id is not None:
                try:
                    pinned = channel.get_partial_message(int(status.message_id))
                    await pinned.edit(content=_fit(status.text))
                    if status.over:
                        await pinned.unpin()
                        await self.service.set_status_message(game_id, "")  # a reopened game pins anew
                    return
                except discord.NotFound:
                    if status.over:
                        return
            message = await channel.send(_fit(status.text))
            await self.service.set_status_message(game_id, str(message.id))
            await message.pin()
        except discord.Forbidden as exc:
            log.warning("status of game %s not pinned: %s", game_id, exc)

    # --- the shared path --------------------------------------------------------------

    async def play(self, ctx: commands.Context[Any], text: str) -> None:
        """Carry out a command: hand it to the service, deliver its channel's posts, answer.

        A slash command must be answered within 3 s. A move is deferred privately at once
        (its outcome is a post); information is answered as :meth:`answer_for_all` says."""
        channel_id = str(ctx.channel.id)
        information = VERBS[split(text)[0]].kind == "info"
        if not information:
            await ctx.defer(ephemeral=True)
        guild_id = str(ctx.guild.id) if ctx.guild else None
        work = asyncio.ensure_future(self.service.handle(channel_id, account(ctx.author), text,
                                                         key=request_key(ctx), guild_id=guild_id))
        if information:  # information queues no post, and must not wait behind the channel's
            await self.answer_for_all(ctx, work)
            return
        reply = await work
        if VERBS[split(text)[0]].secret and ctx.interaction is None:  # a slash command's answer is private already
            try:
                await self.answer(ctx, reply, send=ctx.author.send)
            except discord.HTTPException:  # direct messages closed: `/hint` would answer privately
                await ctx.send("✗ I cannot send you a direct message: use `/hint`, whose answer only you see.")
            return
        try:
            await self.deliver(channel_id)
        except Exception:  # the command is stored; the delivery loop sends its posts later
            log.exception("posts after %r not delivered yet", text)
        if channel_id in self.cannot_send:
            await tell_privately(ctx, self.waiting_note(channel_id))
        await self.answer(ctx, reply)

    async def answer_for_all(self, ctx: commands.Context[Any], work: asyncio.Future[Reply]) -> None:
        """Answer with ``work``'s reply for everyone, its refusal only for the one who asked.

        The first answer after a slash command's deferral keeps the deferral's visibility,
        so the answer is given directly if it is ready within :data:`DEFER_AFTER` of the
        interaction's creation (time spent reaching the bot counts); if not, the deferral
        is private, and the answer goes to the channel as a message of its own. An answer
        with files is acknowledged (deferred for everyone) before they are uploaded, so no
        upload runs against Discord's 3 s."""
        late = False
        if ctx.interaction is not None:
            done, _ = await asyncio.wait({work}, timeout=defer_after(ctx.interaction))
            if not done:
                await ctx.defer(ephemeral=True)
                late = True
        reply = await work
        if late:
            if reply.text or reply.pictures or reply.files:
                await self.answer(ctx, reply, send=ctx.channel.send)
            await ctx.send("✓", ephemeral=True)
            return
        if ctx.interaction is not None and (reply.pictures or reply.files):
            await ctx.defer()
        await self.answer(ctx, reply)

    @staticmethod
    async def answer(ctx: commands.Context[Any], reply: Reply,
                     send: Callable[..., Awaitable[Any]] | None = None) -> None:
        """Send a command's direct answer: as the reply to it, or by ``send``."""
        send = send or ctx.send
        if reply.direct:
            reply = await _send_direct(ctx, reply)
        chunks = _chunks(reply.text)
        if not chunks and not reply.pictures and not reply.files:
            if ctx.interaction is not None:
                await ctx.send("✓", ephemeral=True)
            return
        for i, chunk in enumerate(chunks or [""]):
            if i == 0 and (reply.pictures or reply.files):
                files = [discord.File(io.BytesIO(p.png), filename=f"{p.name}.png") for p in reply.pictures]
                files += [discord.File(io.BytesIO(f.data), filename=f.name) for f in reply.files]
                try:
                    await send(chunk or None, files=files)
                except discord.Forbidden as exc:
                    if exc.code != MISSING_PERMISSIONS:
                        raise
                    await send("\n".join(filter(None, (chunk, NO_FILES))))
            else:
                await send(chunk)

    # --- the commands ------------------------------------------------------------------

    async def carry_out(self, ctx: commands.Context[Any], verb: Verb, values: dict[str, Any]) -> None:
        """A verb's command (``values``: its options by name), for the service: as typed
        (a prefix command), or its slash options written back as the command's text; an
        attached file (`import`) and a member (`replace`, `seat`) are no text and go to the
        service's own calls for them."""
        if "log" in values:
            await self.import_file(ctx, values["log"])
        elif "member" in values:
            await self.replace_member(ctx, values["player"], values["member"])
        elif ctx.interaction is None:  # typed: the service reads the words as written (`!pass KP`, `!log page 2`)
            await self.play(ctx, ctx.message.content[len(ctx.prefix or ""):])
        else:
            await self.play(ctx, " ".join(str(v) for v in [verb.name, *values.values()] if str(v)))

    async def import_file(self, ctx: commands.Context[Any], log: discord.Attachment) -> None:
        """The game's JSON exported from 18xx.games, attached (checked before it is read);
        the import told to all, a refusal to the importer only."""
        check_size(log.size, log.filename)
        guild_id = str(ctx.guild.id) if ctx.guild else None

        async def imported() -> Reply:
            return await self.service.import_site_game(str(ctx.channel.id), account(ctx.author), await log.read(),
                                                       name=log.filename, guild_id=guild_id)

        await self.answer_for_all(ctx, asyncio.ensure_future(imported()))

    async def replace_member(self, ctx: commands.Context[Any], player: str, member: discord.Member) -> None:
        """``!replace Boris @someone`` (``!seat "Player 2" @someone``): the seat to a member."""
        await ctx.defer(ephemeral=True)
        reply = await self.service.replace_seat(str(ctx.channel.id), account(ctx.author), player, account(member),
                                                key=request_key(ctx))
        await self.answer(ctx, reply)


async def _send_direct(ctx: commands.Context[Any], reply: Reply) -> Reply:
    """Send the reply's private part to its asker as a direct message; the reply left to
    answer in the channel says where it went (or why it could not go)."""
    try:
        await ctx.author.send(reply.direct)
    except discord.HTTPException:
        note = "I cannot send you a direct message: allow direct messages from this server's members, then ask again."
    else:
        note = "Sent you a direct message."
    return Reply("\n".join(filter(None, (reply.text, note))), reply.pictures, reply.files)


def _fit(text: str) -> str:
    """Text cut to Discord's message limit, keeping its last line (the mention)."""
    if len(text) <= MESSAGE_LIMIT:
        return text
    head, _, last = text.rpartition("\n")
    room = MESSAGE_LIMIT - len(last) - 3
    return (head[:room] + "…\n" + last) if room > 0 else text[:MESSAGE_LIMIT]


def _chunks(text: str) -> list[str]:
    """Text split at line ends into messages Discord accepts, at most
    :data:`MAX_MESSAGES` of them (the last then ends with a note that the rest is cut)."""
    chunks: list[str] = []
    for line in text.splitlines():
        if chunks and len(chunks[-1]) + len(line) + 1 <= MESSAGE_LIMIT:
            chunks[-1] += "\n" + line
        else:
            chunks.append(line[:MESSAGE_LIMIT])
    if len(chunks) > MAX_MESSAGES:
        chunks = chunks[:MAX_MESSAGES]
        chunks[-1] = _fit(chunks[-1] + "\n… (the rest is cut: too long for Discord)")
    return chunks


async def run_discord(
    token: str, location: str | Path, guild_id: int | None = None, shard: Shard | None = None,
    workers: int | None = None,
) -> None:
    """Run the bot (or one shard of it) until it is stopped, on the store at ``location``
    (a SQLite file or a PostgreSQL URL); games load from the store on demand, in
    ``workers`` worker processes (:mod:`bot.workers`; 0: in this process)."""
    discord.utils.setup_logging()
    if os.environ.get(LOCAL_DISCORD):
        use_local_discord(os.environ[LOCAL_DISCORD])
    async with open_service(location, workers=workers, shard=shard, timestamps=True) as service:
        check = asyncio.create_task(check_other_versions(service))
        try:
            async with TroikaBot(service, guild_id=guild_id) as bot:
                await bot.start(token)  # the start-up's mistakes raise here: see startup_problem
        finally:
            check.cancel()
            await service.close()


async def check_other_versions(service: ServiceFace) -> None:
    """Replay, in the background, the running games last verified under another engine
    version, and log those that no longer load (their players are told on first use)."""
    try:
        problems = await service.verify_running_games(other_versions_only=True)
    except StoreError as exc:
        log.error("the check of games stored under another version stopped: %s", exc)
        return
    for problem in problems:
        log.warning("game %s does not load: %s", problem.game_id, problem.message)
