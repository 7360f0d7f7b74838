"""Troika on Discord: a thin cog over :class:`bot.service.TroikaService`.

Every command is hybrid (``!bid TSR 25``, ``@Troika bid TSR 25`` or ``/bid TSR 25``)
and passes its text to the service; argument menus of slash commands are filled from
the engine's candidate actions. Posts leave through the store's outbox, each sent
with its outbox id as the message nonce so a retry after a crash is not duplicated.
Prefix commands need the privileged message-content intent (see deploy/DISCORD.md).

Nobody is mentioned unless a post calls a seated player: replies mention no one, and
each post allows exactly the seat it calls. Each message or interaction is handed to
the service with its id, so a duplicate delivery is carried out once. The delivery and
reminder loops outlive any error: it is logged and the loop backs off.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from storage import Shard, StoreError, store_at

from .commands import VERBS, split
from .errors import Refusal
from .service import TITLES, Account, Post, Reply, TroikaService
from .site_games import check_size

log = logging.getLogger("troika.discord")

MESSAGE_LIMIT = 2000
MAX_MESSAGES = 4
"""Messages one reply may take; the rest is cut with a note."""
DELIVER_EVERY = 30.0
REMIND_EVERY = 600.0
MAX_BACKOFF = 600.0
Callback = TypeVar("Callback", bound=Callable[..., Coroutine[Any, Any, None]])


class TokenError(ValueError):
    """The token file is configured but holds no token."""


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


def request_key(ctx: commands.Context[Any]) -> str | None:
    """The id of the message or interaction a command came in (None if it has none)."""
    source, what = (ctx.interaction, "interaction") if ctx.interaction is not None else (ctx.message, "message")
    number = getattr(source, "id", None)
    return None if number is None else f"{what} {number}"


class TroikaBot(commands.Bot):
    """The bot: prefix ``!`` or a mention, slash commands, one error handler."""

    def __init__(self, service: TroikaService, *, guild_id: int | None = None) -> None:
        intents = discord.Intents.default()
        intents.message_content = True
        shard = service.shard
        super().__init__(
            command_prefix=commands.when_mentioned_or("!"),
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_id=shard.index if shard else None,
            shard_count=shard.count if shard else None,
        )
        self.service = service
        self.guild_id = guild_id

    async def setup_hook(self) -> None:
        self.add_view(ChoiceView(BUTTONS))  # buttons on earlier posts keep working after a restart
        await self.add_cog(GameCog(self))
        if self.service.shard is not None and self.service.shard.index != 0:
            return  # the commands are the bot's, not a shard's: shard 0 registers them
        if self.guild_id is not None:
            guild = discord.Object(self.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def resolve_channel(self, channel_id: str) -> Any:
        """The channel or thread with this id."""
        return self.get_channel(int(channel_id)) or await self.fetch_channel(int(channel_id))

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


def account(user: discord.abc.User) -> Account:
    return Account(str(user.id), user.display_name)


BUTTONS = ("pass", "payout", "half", "withhold", "agree", "refuse", "keep", "nationalize")
"""Frequent small choices offered as buttons under a post, when the post offers them."""


class ChoiceView(discord.ui.View):
    """Buttons for the choices a post offers; persistent (no timeout, fixed ids), so
    they work on old posts after a restart. A click is the command typed by the clicker."""

    def __init__(self, verbs: tuple[str, ...] | list[str]) -> None:
        super().__init__(timeout=None)
        for verb in verbs:
            button: discord.ui.Button[ChoiceView] = discord.ui.Button(
                label=verb, custom_id=f"troika:{verb}",
                style=discord.ButtonStyle.primary if verb != "refuse" else discord.ButtonStyle.secondary,
            )
            button.callback = self._clicked(verb)  # type: ignore[method-assign]
            self.add_item(button)

    @staticmethod
    def _clicked(verb: str) -> Callable[[discord.Interaction], Coroutine[Any, Any, None]]:
        async def click(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            bot: Any = interaction.client
            try:
                reply = await bot.service.handle(str(interaction.channel_id), account(interaction.user), verb)
                text = reply.text or "✓"
            except Refusal as exc:
                text = f"✗ {exc}"
            cog = bot.get_cog("Game")
            if isinstance(cog, GameCog):
                await cog.deliver()
            await interaction.followup.send(_fit(text), ephemeral=True)

        return click


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


def game_command(name: str, *, menu: bool = False) -> Callable[[Callback], Any]:
    """A hybrid command described by its verb; ``menu``: its ``what`` argument is
    autocompleted from the candidate actions."""
    verb = VERBS[name]

    def decorate(func: Callback) -> Any:
        if menu:
            func = app_commands.autocomplete(what=suggest)(func)
        if "what" in inspect.signature(func).parameters:
            func = app_commands.describe(what=verb.usage)(func)
        return commands.hybrid_command(name=name, description=verb.summary[:100], help=verb.usage)(func)

    return decorate


class GameCog(commands.Cog, name="Game"):
    """Set-up, moves, turns, information and the commissioner's commands."""

    def __init__(self, bot: TroikaBot) -> None:
        self.bot = bot
        self.service = bot.service
        self._loops: list[asyncio.Task[None]] = []

    async def cog_load(self) -> None:
        self._loops = [
            asyncio.create_task(self._when_ready("delivery", self.deliver, DELIVER_EVERY)),
            asyncio.create_task(self._when_ready("reminders", self.remind_due, REMIND_EVERY)),
        ]

    async def cog_unload(self) -> None:
        for task in self._loops:
            task.cancel()

    # --- delivery ------------------------------------------------------------------

    async def _when_ready(self, name: str, step: Callable[[], Awaitable[None]], every: float) -> None:
        await self.bot.wait_until_ready()
        await keep_running(name, step, every)

    async def remind_due(self) -> None:
        """Queue the reminders that are due and send them."""
        await self.service.send_reminders()
        await self.deliver()

    async def deliver(self) -> None:
        """Send the queued posts, then bring each game's pinned status up to date."""
        for game_id in await self.service.flush(self._send):
            try:
                await self._pin_status(game_id)
            except Exception:
                log.exception("status of game %s not updated", game_id)

    async def _send(self, post: Post) -> None:
        if post.channel_id is None:
            return
        text = post.content(lambda seat: f"<@{seat.discord_user_id}>" if seat.discord_user_id else seat.display_name)
        files = [discord.File(io.BytesIO(p.png), filename=f"{p.name}.png") for p in post.pictures]
        verbs = buttons_for(post)
        extra: dict[str, Any] = {"view": ChoiceView(verbs)} if verbs else {}
        try:
            channel = await self.bot.resolve_channel(post.channel_id)
            await channel.send(_fit(text), files=files, nonce=post.outbox_id, allowed_mentions=post_mentions(post),
                               **extra)
        except (discord.NotFound, discord.Forbidden) as exc:
            log.warning("post %s to channel %s dropped: %s", post.outbox_id, post.channel_id, exc)

    async def _pin_status(self, game_id: int) -> None:
        status = await self.service.status(game_id)
        if status.channel_id is None:
            return
        try:
            channel = await self.bot.resolve_channel(status.channel_id)
            if status.message_id is not None:
                try:
                    await channel.get_partial_message(int(status.message_id)).edit(content=_fit(status.text))
                    return
                except discord.NotFound:
                    pass
            message = await channel.send(_fit(status.text))
            await self.service.set_status_message(game_id, str(message.id))
            await message.pin()
        except discord.Forbidden as exc:
            log.warning("status of game %s not pinned: %s", game_id, exc)

    # --- the shared path --------------------------------------------------------------

    async def play(self, ctx: commands.Context[Any], text: str) -> None:
        """Carry out a command: defer (slash commands must answer within 3 s), hand it
        to the service, deliver its posts, answer."""
        await ctx.defer(ephemeral=VERBS[split(text)[0]].kind != "info")
        guild_id = str(ctx.guild.id) if ctx.guild else None
        reply = await self.service.handle(str(ctx.channel.id), account(ctx.author), text, key=request_key(ctx),
                                          guild_id=guild_id)
        try:
            await self.deliver()
        except Exception:  # the command is stored; the delivery loop sends its posts later
            log.exception("posts after %r not delivered yet", text)
        await self.answer(ctx, reply)

    @staticmethod
    async def answer(ctx: commands.Context[Any], reply: Reply) -> None:
        files = [discord.File(io.BytesIO(p.png), filename=f"{p.name}.png") for p in reply.pictures]
        files += [discord.File(io.BytesIO(f.data), filename=f.name) for f in reply.files]
        chunks = _chunks(reply.text)
        if not chunks and not files:
            if ctx.interaction is not None:
                await ctx.send("✓", ephemeral=True)
            return
        for i, chunk in enumerate(chunks or [""]):
            if i == 0 and files:
                await ctx.send(chunk or None, files=files)
            else:
                await ctx.send(chunk)

    # --- set-up ------------------------------------------------------------------------

    @game_command("new")
    @app_commands.choices(
        title=[app_commands.Choice(name=t, value=t) for t in TITLES],
        market=[app_commands.Choice(name=m, value=m) for m in ("grid", "column")],
        rules=[app_commands.Choice(name="as on 18xx.games", value="site")],
    )
    async def new(self, ctx: commands.Context[Any], title: str = "", market: str = "", rules: str = "") -> None:
        """Any word may come first: ``!new 1867``, ``!new column``, ``!new 1867 column site``."""
        await self.play(ctx, f"new {title} {market} {rules}".strip())

    @game_command("import")
    async def import_(self, ctx: commands.Context[Any], log: discord.Attachment) -> None:
        """The game's JSON exported from 18xx.games, attached (checked before it is read)."""
        await ctx.defer()
        check_size(log.size, log.filename)
        guild_id = str(ctx.guild.id) if ctx.guild else None
        reply = await self.service.import_site_game(str(ctx.channel.id), account(ctx.author), await log.read(),
                                                    name=log.filename, guild_id=guild_id)
        await self.answer(ctx, reply)

    @game_command("join")
    async def join(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "join")

    @game_command("leave")
    async def leave(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "leave")

    @game_command("start")
    async def start(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "start")

    # --- moves ---------------------------------------------------------------------------

    @game_command("bid", menu=True)
    async def bid(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"bid {what}")

    @game_command("auction", menu=True)
    async def auction(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"auction {what}")

    @game_command("pass")
    async def pass_(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "pass")

    @game_command("buy", menu=True)
    async def buy(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"buy {what}")

    @game_command("sell", menu=True)
    async def sell(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"sell {what}")

    @game_command("par", menu=True)
    async def par(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"par {what}")

    @game_command("token", menu=True)
    async def token(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"token {what}")

    @game_command("home", menu=True)
    async def home(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"home {what}")

    @game_command("lay", menu=True)
    async def lay(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"lay {what}")

    @game_command("run", menu=True)
    async def run(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"run {what}")

    @game_command("payout")
    async def payout(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "payout")

    @game_command("half")
    async def half(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "half")

    @game_command("withhold")
    async def withhold(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "withhold")

    @game_command("train", menu=True)
    async def train(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"train {what}")

    @game_command("discard", menu=True)
    async def discard(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"discard {what}")

    @game_command("private", menu=True)
    async def private(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"private {what}")

    @game_command("redeem", menu=True)
    async def redeem(self, ctx: commands.Context[Any], *, what: str = "1") -> None:
        await self.play(ctx, f"redeem {what}")

    @game_command("convert")
    async def convert(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "convert")

    @game_command("merge", menu=True)
    async def merge(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"merge {what}")

    @game_command("into", menu=True)
    async def into(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"into {what}")

    @game_command("remove", menu=True)
    async def remove(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"remove {what}")

    @game_command("nationalize")
    async def nationalize(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "nationalize")

    @game_command("keep")
    async def keep(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "keep")

    # --- turns ---------------------------------------------------------------------------

    @game_command("undo")
    async def undo(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"undo {what}")

    @game_command("redo")
    async def redo(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"redo {what}")

    @game_command("agree")
    async def agree(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "agree")

    @game_command("refuse")
    async def refuse(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "refuse")

    @game_command("withdraw")
    async def withdraw(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "withdraw")

    # --- information ------------------------------------------------------------------

    @game_command("status")
    async def status(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "status")

    @game_command("map")
    async def map_(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"map {what}")

    @game_command("market")
    async def market(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "market")

    @game_command("tiles")
    async def tiles(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"tiles {what}")

    @game_command("games")
    async def games(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "games")

    @game_command("table")
    async def table(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "table")

    @game_command("holdings")
    async def holdings(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "holdings")

    @game_command("export")
    async def export(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "export")

    @game_command("log")
    async def log_(self, ctx: commands.Context[Any], count: int = 15) -> None:
        await self.play(ctx, f"log {count}")

    @game_command("help")
    async def help_(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"help {what}")

    # --- the commissioner -------------------------------------------------------------

    @game_command("as")
    @app_commands.autocomplete(player=suggest_player)
    async def as_(self, ctx: commands.Context[Any], player: str, *, what: str) -> None:
        await self.play(ctx, f"as {player} {what}")

    @game_command("replace")
    @app_commands.autocomplete(player=suggest_player)
    async def replace(self, ctx: commands.Context[Any], player: str, member: discord.Member) -> None:
        await ctx.defer(ephemeral=True)
        reply = await self.service.replace_seat(str(ctx.channel.id), account(ctx.author), player, account(member),
                                                key=request_key(ctx))
        await self.answer(ctx, reply)

    @game_command("seat")
    @app_commands.autocomplete(player=suggest_player)
    async def seat(self, ctx: commands.Context[Any], player: str, member: discord.Member) -> None:
        """``!seat "Player 2" @someone``: an imported game's seat, by the site's name."""
        await self.replace(ctx, player, member)

    @game_command("pause")
    async def pause(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"pause {what}")

    @game_command("resume")
    async def resume(self, ctx: commands.Context[Any]) -> None:
        await self.play(ctx, "resume")

    @game_command("end")
    async def end(self, ctx: commands.Context[Any], *, what: str = "") -> None:
        await self.play(ctx, f"end {what}")

    @game_command("remind")
    async def remind(self, ctx: commands.Context[Any], *, what: str) -> None:
        await self.play(ctx, f"remind {what}")


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
    token: str, location: str | Path, guild_id: int | None = None, shard: Shard | None = None
) -> None:
    """Run the bot (or one shard of it) until it is stopped, on the store at ``location``
    (a SQLite file or a PostgreSQL URL); games load from the store on demand."""
    discord.utils.setup_logging()
    async with store_at(location) as store:
        service = TroikaService(store, shard=shard, timestamps=True)
        check = asyncio.create_task(check_other_versions(service))
        try:
            async with TroikaBot(service, guild_id=guild_id) as bot:
                await bot.start(token)
        finally:
            check.cancel()
            await service.close()


async def check_other_versions(service: TroikaService) -> None:
    """Replay, in the background, the running games last verified under another engine
    version, and log those that no longer load (their players are told on first use)."""
    try:
        problems = await service.repo.verify_running_games(other_versions_only=True)
    except StoreError as exc:
        log.error("the check of games stored under another version stopped: %s", exc)
        return
    for problem in problems:
        log.warning("game %s does not load: %s", problem.game_id, problem.message)
