"""The table's rules, without Discord: seats, turns, consent, undo, reminders, posts.

:meth:`TroikaService.handle` takes one command (channel, account, text). It either
raises a :class:`Refusal` with a message for the player, having stored nothing, or
stores what the command changes: game actions through the repository, the bot's own
records as admin events (see :mod:`bot.ledger`), and the posts it owes the channel in
the store's outbox. Each command writes once: its event, its posts and any change of
the game's status in one transaction. It returns the direct reply (info, help),
usually empty for actions, whose outcome is a post. Frontends deliver posts with
:meth:`TroikaService.flush`, so a post due when the process stopped is delivered once
it runs again.

A command is read-decide-append for one game: if another process appends first, it is
tried again from the start, and carries the frontend's request key so a message
delivered twice is carried out once. A game whose log cannot be replayed is refused
with the event at fault; its channel can still end it, and nothing else waits for it.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import math
import pickle
import random
import re
import secrets
import socket
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from engine import notation
from engine.actions import (
    Action,
    EndGame,
    LayTile,
    PlaceToken,
    RemoveToken,
    action_from_dict,
)
from engine.board import load_board
from engine.errors import EngineError
from engine.game import Game
from engine.game_setup import Setup, describe, parse_setup, rulebook_players
from engine.legal import legal_actions
from engine.rules import Rules
from engine.titles import DEFAULT_TITLE, TITLES, title_named
from engine.view import round_title
from storage import (
    AppendConflict,
    ChannelBusy,
    CorruptEvent,
    Event,
    EventKind,
    EventStore,
    GameNotFound,
    GameRecord,
    GameRepository,
    GameStatus,
    InvalidGameLog,
    NewEvent,
    OutboxMessage,
    Seat,
    Shard,
    StoreError,
    TroikaEngine,
    UndoError,
)
from storage.repository import effective_events, request, undos_to_redo
from storage.store import DuplicateRequest, unstorable, utc_now

from .commands import (
    VERBS,
    Parsed,
    consent_needed,
    parse_action,
    shown,
    split,
)
from .errors import NoGame, NotAllowed, Refusal
from .ledger import Ledger
from .posts import (
    Attachment,
    Picture,
    changed_pictures,
    choices_text,
    doing,
    event_command,
    fingerprints,
    help_text,
    holdings_text,
    log_line,
    next_line,
    options_text,
    player_name,
    render_pictures,
    routes_payload,
    seat_name,
    status_text,
    who_acts,
)
from .site_games import export_name, one_line, read_site_file, site_export, troika_log
from .stray import LastMove, questioned_pass
from .track_help import tiles_text, track_options

MAX_PLAYERS = 6
SINCE_SHOWN = 6
"""Others' moves listed in "since your last move" (older ones are counted)."""
DRAWN_KEPT = 64
"""States kept for posts whose pictures are not drawn yet (one per game and event)."""
MAX_TRIES = 30
"""Times a command is tried when other processes keep changing its game meanwhile."""
REPLY_LIMIT = 1900
"""Characters of a refusal or a page of text: a Discord message (2,000) with room to spare."""
REMIND_HOURS = (1, 720)
LOG_PAGE = 15
MAX_NAME = 32
DISCORD_MENTION = re.compile(r"<@!?[0-9]+>")

log = logging.getLogger("troika.service")


@dataclass(frozen=True)
class Account:
    """Who typed a command: a Discord user (id, display name), or a console player."""

    id: str
    name: str


@dataclass
class Reply:
    """The direct answer to a command."""

    text: str = ""
    pictures: list[Picture] = field(default_factory=list)
    files: list[Attachment] = field(default_factory=list)


@dataclass(frozen=True)
class Post:
    """A post the bot owes a game's channel; ``mention`` is the seat to call, if any."""

    outbox_id: int
    game_id: int
    channel_id: str | None
    text: str
    next: str
    mention: Seat | None
    pictures: list[Picture]
    seq: int = 0
    """The game's event the post was written after: the position its choices are for."""
    recap: str = ""
    """For the player called: the moves others made since their last one."""

    def content(self, mention: Callable[[Seat], str], *, recap: bool = True) -> str:
        """The post as text, the mention written by ``mention`` before the next line;
        without the ``recap`` (hot seat: everyone saw every move)."""
        tail = ((mention(self.mention) + " " if self.mention else "") + self.next) if self.next else ""
        return "\n".join(part for part in (self.text, self.recap if recap else "", tail) if part)


@dataclass(frozen=True)
class Status:
    """A game's status text, and the channel and message that show it (if pinned yet)."""

    channel_id: str | None
    message_id: str | None
    text: str


class TroikaService:
    """Commands in, stored events and outbox posts out. One per process."""

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = utc_now,
        pictures: bool = True,
        shard: Shard | None = None,
        owner: str | None = None,
        timestamps: bool = False,
    ) -> None:
        """``timestamps``: write times as Discord timestamps (``<t:UNIX:R>``), which each
        reader sees in their own time zone, instead of durations."""
        self.store = store
        self.shard = shard
        self.owner = owner or _process_name(shard)
        self._guilds: dict[int, str | None] = {}
        self.timestamps = timestamps
        self.engine = TroikaEngine()
        self.repo = GameRepository(store, self.engine, cache_size=64)
        self.clock = clock
        self.pictures = pictures
        self._ledgers: dict[int, Ledger] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._flush_locks: dict[str, asyncio.Lock] = {}
        self._channels: dict[int, str | None] = {}
        self._done: OrderedDict[str, None] = OrderedDict()
        self._drawn: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        """(game, event) -> the state the event left, saved as it was stored, for its post's pictures."""
        self._sent_unmarked: set[int] = set()
        self._questioned: dict[int, int] = {}
        """Per game, the position at which a bare `pass` was last questioned (:mod:`bot.stray`)."""
        self.conflicts_retried = 0
        """How often a command was tried again because another process changed its game."""
        self._setup: dict[str, Callable[[str, Account, str], Awaitable[Reply]]] = {
            "join": self._join, "leave": self._leave, "start": self._start,
        }
        self._turns: dict[str, Callable[[GameRecord, Seat, str, Seat | None], Awaitable[Reply]]] = {
            "undo": self._undo, "redo": self._redo, "agree": self._agree, "refuse": self._refuse,
            "withdraw": self._withdraw,
        }
        self._admin: dict[str, Callable[[GameRecord, Seat, str], Awaitable[Reply]]] = {
            "as": self._as, "pause": self._pause, "resume": self._resume, "end": self._end, "remind": self._remind,
        }

    # --- entry points ------------------------------------------------------------

    async def handle(
        self, channel_id: str, account: Account, text: str, *, key: str | None = None, guild_id: str | None = None,
        at: tuple[int, int] | None = None,
    ) -> Reply:
        """Carry out one command typed in a channel (of server ``guild_id``, whose shard
        owns the games set up there); raises :class:`Refusal`.

        ``key`` identifies the incoming message or interaction: a second delivery of it
        changes nothing and answers nothing. ``at`` (game id, event seq) is where a post
        offered the command (a button under it): it is refused once that game has moved
        past. A command overtaken by another process writing to its game is tried again
        from the start, so no player sees the clash."""
        for what, value in (("That message", text), ("Your name", account.name)):
            problem = unstorable(value)
            if problem:  # N11: refused at the edge, before any store sees it
                raise Refusal(f"{what} holds {problem}, which Troika cannot store; type it again without.")
        try:
            async with self._command(channel_id, key):
                return await self._handle(channel_id, account, text, guild_id, at)
        except _AlreadyDone:
            return Reply()
        except Refusal as exc:
            text = str(exc)
            if len(text) <= REPLY_LIMIT:
                raise
            raise type(exc)(text[:REPLY_LIMIT - 30].rstrip() + " … (cut: too long)") from None

    @asynccontextmanager
    async def _command(self, channel_id: str, key: str | None) -> AsyncIterator[None]:
        """The channel's lock and the request key, around the attempts of one command."""
        async with self._lock(channel_id):
            if key is not None and key in self._done:
                raise _AlreadyDone
            with request(key):
                yield
            if key is not None:
                self._done[key] = None
                while len(self._done) > 1000:
                    self._done.popitem(last=False)

    async def _handle(
        self, channel_id: str, account: Account, text: str, guild_id: str | None, at: tuple[int, int] | None = None
    ) -> Reply:
        verb, rest = split(text)
        if verb == "help":
            return Reply(help_text(rest))
        if verb == "lay" and not rest:
            verb = "tiles"
        if verb == "as" and len(rest.split()) < 2:
            raise Refusal("Write it as `as PLAYER COMMAND`: the commissioner enters a command for an absent "
                          "player, e.g. `as Boris pass`.")
        if verb == "new":
            return await self._retrying(lambda: self._new(channel_id, account, rest, guild_id))
        if verb in self._setup:
            return await self._retrying(lambda: self._setup[verb](channel_id, account, rest))
        if verb == "games":
            return Reply(await self._games(account))
        if verb == "options":
            return Reply(await self._options(channel_id, rest))
        if verb == "import":
            raise Refusal("Attach the game's JSON exported from 18xx.games to `!import` (or `/import`); "
                          "on the console, `import PATH`.")
        return await self._retrying(lambda: self._in_game(channel_id, account, verb, rest, at))

    async def _in_game(
        self, channel_id: str, account: Account, verb: str, rest: str, at: tuple[int, int] | None = None
    ) -> Reply:
        record = await self._game_in(channel_id, finished=True)
        try:
            if VERBS[verb].kind == "info":
                return await self._info(record, verb, rest)
            if verb == "undo" and await self._reopen_if_ended(channel_id, account):
                return await self._undo_the_end(channel_id, account, rest)
            if record.status is GameStatus.FINISHED:
                record = await self._game_in(channel_id)  # "it is over"
            if VERBS[verb].kind == "admin":
                if verb == "remind" and rest.split()[:1] == ["me"]:
                    return await self._remind_me(record, self._seat(record, account), rest[2:])
                commissioner = self._commissioner(record, account)
                if verb in ("replace", "seat"):
                    name, _, new = rest.rpartition(" ")
                    if DISCORD_MENTION.fullmatch(new):  # an account is resolved by the frontend, not read here
                        raise Refusal("Write it as `replace PLAYER @ACCOUNT`, mentioning the new player.")
                    return await self._replace(record, commissioner, name.strip('"'), Account(new, new))
                return await self._admin[verb](record, commissioner, rest)
            if at is not None:  # checked in each attempt: the game may move between attempts
                await self._check_still_open(record, *at)
                if verb == "pass" and not rest.strip():  # the post called the company: not a stray pass
                    rest = await self._company_called(record)
            return await self._as_seat(record, self._seat(record, account), verb, rest, None)
        except CorruptEvent as exc:
            if exc.game_id != record.id:
                raise
            raise Refusal(_broken(exc)) from None

    async def _check_still_open(self, record: GameRecord, game_id: int, seq: int) -> None:
        """Refuse a choice offered after event ``seq`` of game ``game_id`` if the
        channel's game (``record``) is another one now, or has moved since: a move, an
        undo or redo, or a new request for consent."""
        if record.id != game_id:
            raise Refusal(f"This choice has passed: it was offered in game {game_id}, which is over.")
        if record.status is not GameStatus.RUNNING:
            return
        ledger = await self._ledger(record.id)
        if ledger.position > seq or (ledger.ask is not None and ledger.ask.seq > seq):
            game = (await self.repo.load(record.id)).game
            raise Refusal(f"This choice has passed: the game has moved on since that post. Now {next_line(game)}")

    async def _company_called(self, record: GameRecord) -> str:
        """The company acting now ("" when a player acts for themself)."""
        game = (await self.repo.load(record.id)).game
        actor = game.actor() or ""
        return actor if actor in game.state.companies else ""

    async def replace_seat(
        self, channel_id: str, account: Account, player: str, new: Account, *, key: str | None = None
    ) -> Reply:
        """The commissioner gives ``player``'s seat to another account."""

        async def attempt() -> Reply:
            record = await self._game_in(channel_id)
            return await self._replace(record, self._commissioner(record, account), player, new)

        try:
            async with self._command(channel_id, key):
                return await self._retrying(attempt)
        except _AlreadyDone:
            return Reply()

    async def _retrying(self, attempt: Callable[[], Awaitable[Any]]) -> Any:
        """``attempt()``, tried again while another process overtakes it."""
        for tries in range(MAX_TRIES):
            try:
                return await attempt()
            except AppendConflict:
                if tries == MAX_TRIES - 1:
                    raise
                self.conflicts_retried += 1
                await asyncio.sleep(random.uniform(0, 0.01 * (tries + 1)))
            except DuplicateRequest:
                raise _AlreadyDone from None
        raise AssertionError("unreachable")

    async def start_local_game(
        self,
        channel_id: str,
        players: list[tuple[str, str]],
        *,
        rules: Rules | None = None,
        first_player: int | None = None,
        seed: int | None = None,
        title: str = DEFAULT_TITLE,
        guild_id: str | None = None,
    ) -> Reply:
        """Set up and start a game of ``title`` at once (console, tests): ``players`` are
        (id, name), each player's account id being their id; the first is the commissioner."""
        if not 2 <= len(players) <= MAX_PLAYERS:
            raise Refusal(f"Name 2 to {MAX_PLAYERS} players: `new Anna Boris Clara`.")
        options = (rules or Rules.rulebook(market=load_board(title).default_market)).to_dict()
        if first_player is not None:
            options["first_player"] = first_player
        seats = [Seat(i, pid, name, pid, i == 0) for i, (pid, name) in enumerate(players)]
        async with self._lock(channel_id):
            record = await self._create(channel_id, seats, options, seed, players[0][0], title, guild_id)
            try:
                return await self._begin(record)
            except Refusal:
                await self.store.set_status(record.id, GameStatus.ABANDONED)
                raise

    async def flush(
        self, deliver: Callable[[Post], Awaitable[None]], *, channel_id: str | None = None,
        then: Callable[[int], Awaitable[None]] | None = None,
    ) -> set[int]:
        """Deliver every post not yet sent of this process's games (or of the games in
        ``channel_id``), oldest first per game, marking each sent once ``deliver``
        returns; ``then(game_id)`` follows a game's posts. Returns the games posted to.

        Each channel's posts go out on their own, side by side with other channels',
        under the channel's own lock, so a slow channel (a rate limit, Discord's retries
        after server errors) holds back no other; in a channel, an older game's posts go
        before a newer one's. A game's posts go out under this process's claim on it,
        taken or renewed before each post, so no other process sends them too; a post is
        sent only if it is still unsent once the claim is held. A game's trouble stays
        with that game: if ``deliver`` raises, that post and the game's later ones wait
        for the next flush. A post whose stored payload cannot be read is logged and
        dropped. A post delivered but not marked (the database busy) is marked before
        anything else is sent, never delivered again by this process."""
        await self._mark_delivered()
        channels: dict[str, list[int]] = {}  # the games with posts to send, by channel, oldest first
        after = 0
        while batch := await self.store.outbox_unsent(after_id=after):
            after = batch[-1].id
            for message in batch:
                try:
                    where = await self._channel_of(message.game_id) or f"game {message.game_id}"
                except GameNotFound:  # its game was deleted by hand: nowhere to post it
                    log.error("post %s dropped: there is no game %s", message.id, message.game_id)
                    await self.store.outbox_mark_sent(message.id)
                    continue
                games = channels.setdefault(where, [])
                if message.game_id not in games and channel_id in (None, where):
                    games.append(message.game_id)
        results = await asyncio.gather(*(self._flush_channel(where, games, deliver, then)
                                         for where, games in channels.items() if games), return_exceptions=True)
        touched: set[int] = set()
        for result in results:
            if isinstance(result, BaseException):
                raise result
            touched |= result
        return touched

    async def _flush_channel(
        self, where: str, games: list[int], deliver: Callable[[Post], Awaitable[None]],
        then: Callable[[int], Awaitable[None]] | None,
    ) -> set[int]:
        """Deliver the unsent posts of a channel's games, game by game (see :meth:`flush`),
        each followed by ``then``; the games posted to."""
        touched = set()
        async with self._flush_locks.setdefault(where, asyncio.Lock()):
            for game_id in games:
                if await self._send_game(game_id, deliver):
                    touched.add(game_id)
                    if then is not None:
                        await then(game_id)
        return touched

    async def _send_game(self, game_id: int, deliver: Callable[[Post], Awaitable[None]]) -> bool:
        posted = False
        after = 0
        while batch := await self.store.outbox_unsent(after_id=after, game_id=game_id):
            after = batch[-1].id
            for message in batch:
                if message.id in self._sent_unmarked:
                    continue
                try:
                    claimed = await self._claim(game_id)
                except GameNotFound:  # its game was deleted by hand: nowhere to post it
                    log.error("post %s dropped: there is no game %s", message.id, game_id)
                    await self.store.outbox_mark_sent(message.id)
                    continue
                if not claimed:
                    return posted
                if not await self._still_unsent(message):
                    continue
                if message.problem is not None:
                    log.error("post %s of game %s dropped: %s", message.id, game_id, message.problem)
                else:
                    try:
                        await deliver(await self._post(message))
                    except Exception:
                        log.exception("post %s of game %s not delivered; retried later", message.id, game_id)
                        return posted
                    posted = True
                self._sent_unmarked.add(message.id)
                await self._mark_delivered()
        return posted

    async def _channel_of(self, game_id: int) -> str | None:
        if game_id not in self._channels:
            try:
                self._channels[game_id] = (await self.store.get_game(game_id)).channel_id
            except GameNotFound:  # deleted by hand: in no channel
                return None
        return self._channels[game_id]

    async def _mark_delivered(self) -> None:
        """Mark sent the posts delivered but not yet marked; raises if the store cannot."""
        for message_id in sorted(self._sent_unmarked):  # a copy: other games' flushes add to it meanwhile
            await self.store.outbox_mark_sent(message_id)
            self._sent_unmarked.discard(message_id)

    async def send_reminders(self) -> None:
        """Queue the reminders that are due in this process's games: the acting player
        after the game's reminder time, then the channel after twice that, each once per
        decision. A game that cannot be loaded is logged and skipped."""
        now = self.clock()
        for record in await self.store.list_games([GameStatus.RUNNING]):
            try:
                if not self._owns(record) or not await self.store.claim_game(record.id, self.owner):
                    continue
                async with self._lock(record.channel_id or f"game {record.id}"):
                    await self._retrying(lambda record=record: self._reminders_for(record, now))
            except Exception as exc:  # that game's trouble; later games are still reminded
                log.warning("no reminders for game %s: %s", record.id, exc)

    async def close(self) -> None:
        """Give up this process's claims, so another may deliver its games' posts at once."""
        await self.store.release_claims(self.owner)

    async def status(self, game_id: int) -> Status:
        """What the game's pinned status message should say, and where it is."""
        record = await self.store.get_game(game_id)
        async with self._lock(record.channel_id or f"game {game_id}"):
            ledger = await self._ledger(game_id)
            game = (await self.repo.load(game_id)).game
            return Status(record.channel_id, ledger.status_message,
                          status_text(record, game, ledger, self.clock(), timestamps=self.timestamps))

    async def set_status_message(self, game_id: int, message_id: str) -> None:
        record = await self.store.get_game(game_id)

        async def attempt() -> None:
            live = await self.repo.load(game_id)
            await self.repo.record_admin(game_id, live.seq, {"type": "status_message", "message_id": message_id},
                                         None)

        async with self._lock(record.channel_id or f"game {game_id}"):
            await self._retrying(attempt)

    async def seat_account(self, channel_id: str, words: list[str]) -> tuple[Account, int]:
        """The account of the seat named by the first of ``words``, and how many words
        the name took (names may have spaces)."""
        record = await self._game_in(channel_id, finished=True)
        seat, used = _match_seat(record, words)
        return _account(seat), used

    async def deciding_account(self, channel_id: str) -> Account | None:
        """Whoever must decide now: the player asked to agree, else the acting player."""
        record = await self.store.active_game_in_channel(channel_id)
        if record is None or record.status is not GameStatus.RUNNING:
            return None
        try:
            ledger = await self._ledger(record.id)
            game = (await self.repo.load(record.id)).game
        except CorruptEvent:
            return None  # the command itself will be told why
        player = ledger.ask.consenter if ledger.ask else game.acting_player()
        seat = next((s for s in record.seats if s.player_id == player), None)
        return _account(seat) if seat else None

    async def requesting_account(self, channel_id: str) -> Account | None:
        """The player whose deal is waiting for an answer, if any."""
        record = await self.store.active_game_in_channel(channel_id)
        if record is None or record.status is not GameStatus.RUNNING:
            return None
        ask = (await self._ledger(record.id)).ask
        seat = next((s for s in record.seats if ask and s.player_id == ask.requester), None)
        return _account(seat) if seat else None

    async def suggestions(self, channel_id: str, verb: str, current: str) -> list[str]:
        """Ways to complete ``verb``'s argument now, from the engine's candidate actions."""
        try:
            _, game = await self.game_in(channel_id)
        except Refusal:
            return []
        found: list[str] = []
        for action in legal_actions(game):
            try:
                word, _, rest = notation.command(game, action).partition(" ")
            except EngineError:
                continue
            named = word == verb or (verb == "home" and word == "token")
            if named and rest.lower().startswith(current.strip().lower()) and rest not in found:
                found.append(rest)
        return found

    async def seat_names(self, channel_id: str) -> list[str]:
        record = await self.store.active_game_in_channel(channel_id)
        return [s.display_name for s in record.seats] if record else []

    async def game_in(self, channel_id: str) -> tuple[GameRecord, Game]:
        """The channel's running game (for suggestions and the console)."""
        record = await self._game_in(channel_id)
        if record.status is not GameStatus.RUNNING:
            raise Refusal("The game has not started yet.")
        try:
            return record, (await self.repo.load(record.id)).game
        except CorruptEvent as exc:
            raise Refusal(_broken(exc)) from None

    # --- set-up ------------------------------------------------------------------

    async def _new(self, channel_id: str, account: Account, rest: str, guild_id: str | None = None) -> Reply:
        setup = game_choice(rest.split())
        seat = Seat(0, account.id, account.name, account.id, True)
        rules = setup.rules()
        record = await self._create(channel_id, [seat], rules.to_dict(), None, account.id, setup.title, guild_id)
        seats = rulebook_players(setup.title, rules.options)
        return Reply(f"**{account.name}** sets up game {record.id} of {setup.title} "
                     f"({setup_words(setup.title, rules)}) and is its commissioner. Others: `join`. "
                     f"Then the commissioner types `start` ({seats[0]} to {seats[-1]} players).")

    async def _create(
        self,
        channel_id: str,
        seats: list[Seat],
        options: dict[str, Any],
        seed: int | None,
        creator: str,
        title: str = DEFAULT_TITLE,
        guild_id: str | None = None,
    ) -> GameRecord:
        try:
            return await self.repo.create_game(
                title, options, secrets.randbelow(2**31) if seed is None else seed, seats, creator,
                guild_id=guild_id, channel_id=channel_id,
            )
        except ChannelBusy as exc:
            if await self._settle_finished(exc.game_id):
                return await self._create(channel_id, seats, options, seed, creator, title, guild_id)
            raise Refusal(f"This channel already has game {exc.game_id}; its commissioner can `end` it.") from None

    async def _settle_finished(self, game_id: int) -> bool:
        """Mark finished a running game its last action finished (a crash of an older
        Troika may have left it running); whether it was."""
        try:
            record = await self.store.get_game(game_id)
            finished = record.status is GameStatus.RUNNING and (await self.repo.load(game_id)).game.state.finished
        except CorruptEvent:
            return False
        if finished:
            await self.store.set_status(game_id, GameStatus.FINISHED)
        return finished

    async def _join(self, channel_id: str, account: Account, rest: str) -> Reply:
        name = _name(account)

        def seated(record: GameRecord) -> list[Seat]:
            if any(s.discord_user_id == account.id for s in record.seats):
                raise Refusal("You already have a seat.")
            if len(record.seats) >= MAX_PLAYERS:
                raise Refusal(f"The table is full ({MAX_PLAYERS} players).")
            if any(s.display_name.lower() == name.lower() for s in record.seats):
                raise Refusal(f"A player called {name} is already seated; change your nickname first.")
            return [*record.seats, Seat(len(record.seats), account.id, name, account.id)]

        seats = await self._change_seats(channel_id, seated, account.id, "join")
        return Reply(f"**{name}** joins. Seated: {', '.join(s.display_name for s in seats)}.")

    async def _leave(self, channel_id: str, account: Account, rest: str) -> Reply:
        def seated(record: GameRecord) -> list[Seat]:
            seat = self._seat(record, account)
            if seat.commissioner:
                raise Refusal("The commissioner keeps their seat; `end` cancels the game instead.")
            return [replace(s, seat=i) for i, s in enumerate(s for s in record.seats if s != seat)]

        seats = await self._change_seats(channel_id, seated, account.id, "leave")
        return Reply(f"**{_name(account)}** leaves. Seated: {', '.join(s.display_name for s in seats)}.")

    async def _change_seats(
        self, channel_id: str, change: Callable[[GameRecord], list[Seat]], actor: str, note: str
    ) -> list[Seat]:
        """Change the seats of the channel's game being set up, as one read-decide-append."""
        record = await self._setting_up(channel_id)
        decided: list[Seat] = []

        def decide(current: GameRecord) -> list[Seat]:
            if current.status is not GameStatus.SETTING_UP:
                raise Refusal(f"Game {current.id} has already started.")
            decided[:] = change(current)
            return decided

        await self.repo.change_seats(record.id, decide, actor, note=note)
        return decided

    async def _start(self, channel_id: str, account: Account, rest: str) -> Reply:
        record = await self._setting_up(channel_id)
        self._commissioner(record, account)
        return await self._begin(record)

    async def _begin(self, record: GameRecord) -> Reply:
        def posts(game: Game, seq: int) -> list[dict[str, Any]]:
            order = " → ".join(p.name for p in game.state.players)
            return [{
                "kind": "start", "seq": seq, "pictures": ["map", "table"],
                "text": f"**Game {record.id} of {record.title} begins** "
                        f"({setup_words(record.title, game.ctx.rules)}). "
                        f"Seats: {order}. Priority deal: **{who_acts(game)}**.",
                "next": next_line(game), "mention": game.acting_player(),
            }]

        start = NewEvent({"type": "start"}, EventKind.ADMIN, record.created_by)
        try:
            await self.repo.start_game(record.id, record_start=start, outbox=posts)
        except EngineError as exc:
            raise Refusal(f"The game cannot start: {exc}.") from None
        return Reply()

    async def _setting_up(self, channel_id: str) -> GameRecord:
        record = await self.store.active_game_in_channel(channel_id)
        if record is None:
            raise NoGame("No game is being set up here: `new` sets one up.")
        if record.status is not GameStatus.SETTING_UP:
            raise Refusal(f"Game {record.id} has already started.")
        return record

    # --- who may act --------------------------------------------------------------

    async def _game_in(self, channel_id: str, *, finished: bool = False) -> GameRecord:
        """The channel's game being set up or played; with ``finished``, else its last
        finished game (to look at)."""
        record = await self.store.active_game_in_channel(channel_id)
        if record is not None:
            return record
        over = [g for g in await self.store.list_games([GameStatus.FINISHED]) if g.channel_id == channel_id]
        if over and finished:
            return over[-1]
        if over:
            raise NoGame(f"Game {over[-1].id} here is over (`status` and `log` still show it); "
                         "`new` sets up another.")
        raise NoGame("There is no game in this channel: `new` sets one up.")

    async def _reopen_if_ended(self, channel_id: str, account: Account) -> bool:
        """The commissioner's `undo` right after `end`: the game runs again, so the undo
        can take the end back; whether it was reopened."""
        if await self.store.active_game_in_channel(channel_id) is not None:
            return False
        over = [g for g in await self.store.list_games([GameStatus.FINISHED]) if g.channel_id == channel_id]
        if not over:
            return False
        effective = effective_events(await self.store.events(over[-1].id))
        if not effective or effective[-1].action.get("type") != "end_game":
            return False
        self._commissioner(over[-1], account)
        try:
            await self.store.set_status(over[-1].id, GameStatus.RUNNING)
        except ChannelBusy:
            raise Refusal("Another game has started here since; the ended one stays ended.") from None
        return True

    async def _undo_the_end(self, channel_id: str, account: Account, reason: str) -> Reply:
        """The undo of a reopened game's `end`; refused, the game is finished again (N10)."""
        record = await self._game_in(channel_id)
        try:
            return await self._as_seat(record, self._seat(record, account), "undo", reason, None)
        except BaseException:
            await self.store.set_status(record.id, GameStatus.FINISHED)
            raise

    async def _games(self, account: Account) -> str:
        """The games this account has a seat in, across channels."""
        games = [g for g in await self.store.list_games([GameStatus.SETTING_UP, GameStatus.RUNNING])
                 if any(s.discord_user_id == account.id for s in g.seats)]
        if not games:
            return "You have no seat in a game being set up or played."
        lines = []
        for record in games:
            where = f"<#{record.channel_id}>" if record.channel_id and record.channel_id.isdigit() else \
                (record.channel_id or "no channel")
            if record.status is GameStatus.SETTING_UP:
                lines.append(f"Game {record.id} in {where}: being set up")
                continue
            try:
                game = (await self.repo.load(record.id)).game
            except CorruptEvent as exc:  # that game's problem, told in its line only
                lines.append(f"Game {record.id} in {where}: cannot be loaded ({exc.reason})")
                continue
            ledger = await self._ledger(record.id)
            seat = next(s for s in record.seats if s.discord_user_id == account.id)
            mine = ledger.ask.consenter if ledger.ask else game.acting_player()
            turn = " — **your turn**" if mine == seat.player_id else ""
            lines.append(f"Game {record.id} in {where}: {round_title(game)}, {who_acts(game)} {doing(game)}{turn}")
        return "\n".join(lines)

    @staticmethod
    def _seat(record: GameRecord, account: Account) -> Seat:
        seat = next((s for s in record.seats if s.discord_user_id == account.id), None)
        if seat is None:
            raise NotAllowed(f"You have no seat in game {record.id} (seated: "
                             f"{', '.join(s.display_name for s in record.seats)}).")
        return seat

    @staticmethod
    def _commissioner(record: GameRecord, account: Account) -> Seat:
        seat = next((s for s in record.seats if s.discord_user_id == account.id and s.commissioner), None)
        if seat is None:
            name = next((s.display_name for s in record.seats if s.commissioner), "")
            raise NotAllowed(f"Only the commissioner ({name}) may do that.")
        return seat

    async def _as_seat(
        self, record: GameRecord, seat: Seat, verb: str, rest: str, proxy: Seat | None
    ) -> Reply:
        """Run a player's command (turn or action) for ``seat``; ``proxy`` is the
        commissioner entering it for them."""
        if record.status is not GameStatus.RUNNING:
            raise Refusal("The game has not started yet: `join`, then the commissioner types `start`.")
        if verb in self._turns:
            return await self._turns[verb](record, seat, rest, proxy)
        if VERBS[verb].kind != "action":
            raise Refusal(f"`{verb}` cannot be done for another player.")
        return await self._act(record, seat, verb, rest, proxy)

    @staticmethod
    def _check_paused(ledger: Ledger) -> None:
        if ledger.paused is not None:
            reason = f" ({ledger.paused})" if ledger.paused else ""
            raise Refusal(f"The game is paused{reason}; the commissioner can `resume` it.")

    @staticmethod
    def _check_open(game: Game, ledger: Ledger) -> None:
        if game.state.finished:
            raise Refusal("The game is over.")
        if ledger.paused is not None:
            reason = f" ({ledger.paused})" if ledger.paused else ""
            raise Refusal(f"The game is paused{reason}; the commissioner can `resume` it.")

    # --- actions -------------------------------------------------------------------

    async def _act(self, record: GameRecord, seat: Seat, verb: str, rest: str, proxy: Seat | None) -> Reply:
        live = await self.repo.load(record.id)
        game = live.game
        ledger = await self._ledger(record.id, live.seq)
        self._check_open(game, ledger)
        if verb == "auto":  # a standing order: any seated player, at any time
            try:
                order = notation.parse_order(seat.player_id, rest)
            except EngineError as exc:
                raise Refusal(str(exc)) from None
            await self._apply(record, live.seq, game, seat, Parsed(order), f"auto {rest}".strip(),
                              _proxy_note(proxy))
            return Reply()
        if ledger.ask is not None and ledger.ask.requester != seat.player_id:
            ask = ledger.ask
            raise NotAllowed(f"Waiting for {player_name(game, ask.consenter)} to `agree` or `refuse` "
                             f"{_code(ask.command)}; {player_name(game, ask.requester)} may `withdraw` it.")
        if game.acting_player() != seat.player_id:
            raise NotAllowed(f"Not your turn: {who_acts(game)} {doing(game)} "
                             f"(may {choices_text(game)}).")
        command = f"{verb} {rest}".strip()
        if verb == "pass" and not rest.strip():  # `pass COMPANY` is addressed: never questioned
            await self._question_pass(record, live.seq, game, seat)
        try:  # in a worker thread: `run best` solves the routes
            parsed = await asyncio.to_thread(parse_action, game, verb, rest)
        except Refusal as exc:
            raise Refusal(f"{_sentence(str(exc))} You may: {choices_text(game)}") from None
        consenter = consent_needed(game, parsed.action)
        if consenter is not None:
            _try(game, parsed.action)
            return await self._ask(record, live.seq, seat, consenter, parsed, command, proxy)
        await self._apply(record, live.seq, game, seat, parsed, command, _proxy_note(proxy))
        return Reply()

    async def _question_pass(self, record: GameRecord, seq: int, game: Game, seat: Seat) -> None:
        """Refuse, once at this position, a bare `pass` that may be meant for a turn
        which has just ended by itself (:mod:`bot.stray`)."""
        if self._questioned.get(record.id) == seq or game.round_name != "Operating":
            return
        moves = [e for e in effective_events(await self.store.events(record.id)) if e.kind is EventKind.ACTION]
        last = LastMove(str(moves[-1].action.get("type")), str(moves[-1].action.get("entity")), moves[-1].actor) \
            if moves else None
        question = questioned_pass(game, last, seat.player_id)
        if question is not None:
            self._questioned[record.id] = seq
            raise Refusal(question)

    async def _apply(
        self, record: GameRecord, seq: int, game: Game, seat: Seat, parsed: Parsed, command: str, note: str | None,
        *, reason: str = "",
    ) -> None:
        """Apply an action for ``seat`` and queue its post, in one transaction; the
        player's ``reason`` is logged before the note and shown in a code span."""
        before, acting_before = fingerprints(game), game.acting_player()
        shown = _notes(_code(reason), note)
        note = _notes(reason.strip(), note)
        entity = parsed.action.entity
        ran = routes_payload(game, parsed.action, parsed.routes)  # priced on the state before the run

        def posts(after: Game, lines: list[str]) -> list[dict[str, Any]]:
            head = f"**{seat.display_name}**" + (f" for {entity}" if entity != seat.player_id else "")
            text = "\n".join([f"{head}: {_code(command)}" + (f" _({shown})_" if shown else ""),
                              *([parsed.detail] if parsed.detail else []), *lines])
            pictures = changed_pictures(before, fingerprints(after)) + (["routes"] if ran else [])
            if pictures and self.pictures:
                self._keep_drawn(record.id, seq + 1, after)
            return [{
                "kind": "turn", "seq": seq + 1, "text": text, "next": next_line(after),
                "mention": _turn_changed(after, acting_before),
                "pictures": pictures, "highlight": _hex_of(parsed), **({"routes": ran} if ran else {}),
            }]

        def status(after: Game) -> GameStatus | None:
            return GameStatus.FINISHED if after.state.finished else None

        try:
            await self.repo.act(record.id, seq, parsed.action, seat.player_id,
                                note=note, outbox=posts, status=status)
        except BaseException as exc:
            self._drawn.pop((record.id, seq + 1), None)  # not stored: another event may take its place
            if isinstance(exc, EngineError):
                raise Refusal(f"{_sentence(str(exc))} {who_acts(game)} may: {choices_text(game)}") from None
            raise

    async def _ask(
        self, record: GameRecord, seq: int, seat: Seat, consenter: str, parsed: Parsed, command: str,
        proxy: Seat | None,
    ) -> Reply:
        """Store a request for ``consenter``'s agreement and ask them in the channel."""
        ask = {"type": "ask", "consenter": consenter, "action": parsed.action.to_dict(), "command": command}
        other = _seat_of(record, consenter).display_name
        post = {
            "kind": "ask", "seq": seq + 1,
            "text": f"**{seat.display_name}** for {parsed.action.entity} asks **{other}** to agree: {_code(command)}",
            "next": "`agree` or `refuse`?", "mention": consenter,
        }
        await self.repo.record_admin(record.id, seq, ask, seat.player_id, note=_proxy_note(proxy), outbox=[post])
        return Reply()

    async def _agree(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        ledger = await self._ledger(record.id)
        ask = self._open_ask(ledger, seat)
        live = await self.repo.load(record.id)
        self._check_open(live.game, ledger)
        requester = _seat_of(record, ask.requester)
        note = f"agreed by {seat.display_name}" + (f", {_proxy_note(proxy)}" if proxy else "")
        await self._apply(record, live.seq, live.game, requester, Parsed(action_from_dict(ask.action)),
                          ask.command, note)
        return Reply()

    async def _refuse(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        ledger = await self._ledger(record.id)
        ask = self._open_ask(ledger, seat)
        live = await self.repo.load(record.id)
        post = {
            "kind": "note", "seq": live.seq + 1, "text": f"**{seat.display_name}** refuses {_code(ask.command)}.",
            "next": next_line(live.game), "mention": ask.requester,
        }
        await self.repo.record_admin(record.id, live.seq, {"type": "answer", "answer": "refused"},
                                     seat.player_id, note=_proxy_note(proxy), outbox=[post])
        return Reply()

    async def _withdraw(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        ledger = await self._ledger(record.id)
        ask = ledger.ask
        if ask is None:
            raise Refusal("Nobody is waiting for an answer.")
        if ask.requester != seat.player_id and proxy is None:
            raise NotAllowed(f"Only {seat_name(record, ask.requester)}, who asked, may withdraw "
                             f"{_code(ask.command)}.")
        live = await self.repo.load(record.id)
        post = {"kind": "note", "seq": live.seq + 1, "text": f"**{seat.display_name}** withdraws {_code(ask.command)}.",
                "next": next_line(live.game)}
        await self.repo.record_admin(record.id, live.seq, {"type": "answer", "answer": "withdrawn"},
                                     seat.player_id, note=_proxy_note(proxy), outbox=[post])
        return Reply()

    @staticmethod
    def _open_ask(ledger: Ledger, seat: Seat) -> Any:
        if ledger.ask is None:
            raise Refusal("Nobody is waiting for an answer.")
        if ledger.ask.consenter != seat.player_id:
            raise NotAllowed("The open request is not addressed to you.")
        return ledger.ask

    # --- undo and redo -------------------------------------------------------------

    async def _undo(self, record: GameRecord, seat: Seat, reason: str, proxy: Seat | None) -> Reply:
        self._check_paused(await self._ledger(record.id))
        events = await self.store.events(record.id)
        effective = effective_events(events)
        if not effective:
            raise Refusal("There is nothing to undo.")
        last = effective[-1]
        self._check_travel(record, seat, last.actor, reason, proxy, "take back")
        line = f"↶ **{seat.display_name}** takes back #{last.seq} " \
               f"({seat_name(record, last.actor)}: `{event_command(last)}`)"
        return await self._travel(record, seat, reason, proxy, line, undo=True)

    async def _redo(self, record: GameRecord, seat: Seat, reason: str, proxy: Seat | None) -> Reply:
        self._check_paused(await self._ledger(record.id))
        stored = await self.store.events(record.id)
        undos = undos_to_redo(stored)
        if not undos:
            raise Refusal("There is nothing to redo.")
        self._check_travel(record, seat, undos[-1].actor, reason, proxy, "redo")
        undo = stored.index(undos[-1])
        kept = {e.seq for e in effective_events(stored[: undo + 1])}
        restored = [e for e in effective_events(stored[:undo]) if e.seq not in kept]
        what = ", ".join(f"#{e.seq} ({seat_name(record, e.actor)}: `{event_command(e)}`)" for e in restored)
        return await self._travel(record, seat, reason, proxy, f"↷ **{seat.display_name}** redoes {what}".rstrip(),
                                  undo=False)

    @staticmethod
    def _check_travel(
        record: GameRecord, seat: Seat, owner: str | None, reason: str, proxy: Seat | None, doing_: str
    ) -> None:
        """Players undo and redo their own last move; the commissioner anything, saying why."""
        if owner == seat.player_id:
            return
        if not (seat.commissioner or proxy is not None):
            raise NotAllowed(f"You can only {doing_} your own last move; this one was "
                             f"{seat_name(record, owner)}'s. Ask the commissioner.")
        if not reason.strip():
            raise Refusal(f"Say why, for the log: `{'undo' if doing_ == 'take back' else 'redo'} REASON`.")

    async def _travel(
        self, record: GameRecord, seat: Seat, reason: str, proxy: Seat | None, line: str, *, undo: bool
    ) -> Reply:
        live = await self.repo.load(record.id)
        before, acting_before = fingerprints(live.game), live.game.acting_player()
        note = _notes(reason.strip(), _proxy_note(proxy))
        shown = _notes(_code(reason), _proxy_note(proxy))
        travel = self.repo.undo if undo else self.repo.redo

        def posts(game: Game, seq: int) -> list[dict[str, Any]]:
            return [{
                "kind": "turn", "seq": seq, "text": line + (f" _({shown})_" if shown else ""),
                "next": next_line(game), "mention": _turn_changed(game, acting_before),
                "pictures": changed_pictures(before, fingerprints(game)),
            }]

        try:
            await travel(record.id, live.seq, seat.player_id, note=note, outbox=posts)
        except UndoError as exc:
            raise Refusal(f"{_sentence(str(exc))}") from None
        return Reply()

    # --- the commissioner ----------------------------------------------------------

    async def _as(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        seat, used = _match_seat(record, rest.split())
        command = " ".join(rest.split()[used:])
        if not command:
            raise Refusal(f"Write the command to enter for {seat.display_name}: `as {seat.display_name} pass`.")
        verb, args = split(command)
        if verb == "as":
            raise Refusal(f"One `as` at a time: `as {seat.display_name} {args or 'pass'}`.")
        return await self._as_seat(record, seat, verb, args, commissioner)

    async def _replace(self, record: GameRecord, commissioner: Seat, player: str, new: Account) -> Reply:
        seat, used = _match_seat(record, player.split())
        if used != len(player.split()):
            raise Refusal("Write it as `replace PLAYER @ACCOUNT`.")
        name = _name(new)

        def seated(current: GameRecord) -> list[Seat]:
            if any(s.discord_user_id == new.id for s in current.seats):
                raise Refusal(f"{name} already has a seat.")
            if any(s.display_name.lower() == name.lower() for s in current.seats if s.seat != seat.seat):
                raise Refusal(f"A player called {name} is already seated; they need another nickname first.")
            return [replace(s, discord_user_id=new.id, display_name=name) if s.seat == seat.seat else s
                    for s in current.seats]

        await self.repo.change_seats(record.id, seated, commissioner.player_id,
                                     note=f"{name} replaces {seat.display_name}")
        return Reply(f"**{name}** takes {seat.display_name}'s seat.")

    async def _pause(self, record: GameRecord, commissioner: Seat, reason: str) -> Reply:
        return await self._admin_post(record, commissioner, {"type": "pause"}, reason.strip(),
                                      f"⏸ **{commissioner.display_name}** pauses the game" +
                                      (f": {_code(reason.strip())}" if reason.strip() else ""))

    async def _resume(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        return await self._admin_post(record, commissioner, {"type": "resume"}, None,
                                      f"▶ **{commissioner.display_name}** resumes the game", mention=True)

    async def _reminders_for(self, record: GameRecord, now: datetime) -> None:
        ledger = await self._ledger(record.id)
        if ledger.paused is not None or ledger.turn_began is None:
            return
        game = (await self.repo.load(record.id)).game
        waited = (now - ledger.turn_began).total_seconds() / 3600
        player = ledger.ask.consenter if ledger.ask else game.acting_player()
        hours = ledger.player_remind.get(player or "", ledger.remind_hours) if player in ledger.player_remind \
            else ledger.remind_hours
        if not hours:
            return
        name = player_name(game, player)
        since = f"since <t:{int(ledger.turn_began.timestamp())}:R>" if self.timestamps else f"for {waited:.0f} h"
        for stage in (1, 2):
            if waited < stage * hours or stage in ledger.reminded or game.state.finished:
                continue
            if stage == 1:
                text, mention = f"⏰ Your turn has waited {since.removeprefix('for ')}.", player
            else:
                commissioner = next(s.display_name for s in record.seats if s.commissioner)
                text, mention = (f"⏰ **{name}** has not acted {since}. The commissioner "
                                 f"({commissioner}) may act for them: `as {name} ...`."), None
            live = await self.repo.load(record.id)
            post = {"kind": "note", "seq": live.seq + 1, "text": text, "next": next_line(game), "mention": mention}
            await self.repo.record_admin(
                record.id, live.seq, {"type": "reminder", "stage": stage, "position": ledger.position}, None,
                outbox=[post])
            await self._ledger(record.id)

    async def _end(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        word, _, reason = rest.strip().partition(" ")
        if word.lower() not in ("confirm", "yes"):
            what = "cancels the game being set up" if record.status is GameStatus.SETTING_UP else \
                "ends the game now and scores it as it stands; nothing can take that back"
            return Reply(f"`end` {what}. To go ahead, type `end confirm` (a reason may follow: "
                         "`end confirm we stop here`).")
        if record.status is GameStatus.SETTING_UP:
            await self.store.set_status(record.id, GameStatus.ABANDONED)
            return Reply(f"Game {record.id} is cancelled.")
        try:
            live = await self.repo.load(record.id)
        except CorruptEvent as exc:
            return await self._abandon_broken(record, commissioner, reason, exc)
        except StoreError as exc:  # a damaged page of its log, say: ended all the same
            unreadable = CorruptEvent(record.id, 0, f"its log cannot be read ({exc})")
            return await self._abandon_broken(record, commissioner, reason, unreadable)
        if live.game.state.finished:
            await self.store.set_status(record.id, GameStatus.FINISHED)
            return Reply(f"Game {record.id} was over already; the channel is free for a `new` game.")
        parsed = Parsed(EndGame(commissioner.player_id))
        await self._apply(record, live.seq, live.game, commissioner, parsed, "end",
                          None if reason.strip() else "ended by the commissioner", reason=reason)
        return Reply()

    async def _abandon_broken(
        self, record: GameRecord, commissioner: Seat, reason: str, problem: CorruptEvent
    ) -> Reply:
        """End a game that cannot be loaded: logged as an admin event (its log is not
        read), and the channel is free for another."""
        seq = await self.store.last_seq(record.id)
        event = NewEvent({"type": "abandon", "problem": str(problem)}, EventKind.ADMIN, commissioner.player_id,
                         reason.strip() or None)
        await self.store.append(record.id, seq, event, status=GameStatus.ABANDONED)
        return Reply(f"Game {record.id} is ended: it could not be loaded ({problem.reason}). "
                     "The channel is free for a `new` game.")

    async def _remind(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        hours = _hours(rest)
        text = (f"⏰ Reminders: a player is reminded after {hours:g} h, the channel told after {2 * hours:g} h."
                if hours else "⏰ No more reminders.")
        return await self._admin_post(record, commissioner, {"type": "settings", "remind_hours": hours}, None, text)

    async def _remind_me(self, record: GameRecord, seat: Seat, rest: str) -> Reply:
        """A player's own reminder time, instead of the game's."""
        hours = _hours(rest, "remind me")
        text = (f"⏰ **{seat.display_name}** is reminded after {hours:g} h." if hours
                else f"⏰ **{seat.display_name}** gets no reminders.")
        data = {"type": "settings", "player": seat.player_id, "remind_hours": hours}
        return await self._admin_post(record, seat, data, None, text)

    async def _admin_post(
        self, record: GameRecord, commissioner: Seat, data: dict[str, Any], note: str | None, text: str,
        *, mention: bool = False,
    ) -> Reply:
        if record.status is not GameStatus.RUNNING:
            raise Refusal("The game has not started yet.")
        live = await self.repo.load(record.id)
        post = {
            "kind": "note", "seq": live.seq + 1, "text": text, "next": next_line(live.game),
            "mention": live.game.acting_player() if mention else None,
        }
        await self.repo.record_admin(record.id, live.seq, data, commissioner.player_id, note=note or None,
                                     outbox=[post])
        return Reply()

    # --- information ---------------------------------------------------------------

    async def _options(self, channel_id: str, rest: str) -> str:
        """``options [1861|1867]``: a title's optional rules in the rulebook's words (the
        title named, else the channel's game's, else every title's), those in force marked."""
        word = rest.strip().lower()
        if word and word not in TITLES:
            raise Refusal(f"`{word[:20]}` is not a game: `options 1861` or `options 1867`.")
        record = await self.store.active_game_in_channel(channel_id)
        title = word or (record.title if record is not None else None)
        chosen: frozenset[str] = frozenset()
        if record is not None and record.title == title:
            chosen = _record_rules(record).options
        return options_text(title, chosen)

    async def _info(self, record: GameRecord, verb: str, rest: str) -> Reply:
        if record.status is GameStatus.SETTING_UP:
            if verb in ("status", "log"):
                seated = ", ".join(s.display_name + (" (commissioner)" if s.commissioner else "")
                                   for s in record.seats)
                rules = _record_rules(record)
                return Reply(f"Game {record.id} is being set up ({setup_words(record.title, rules)}). "
                             f"Seated: {seated}. `join` to play; the commissioner types `start`.")
            raise Refusal("The game has not started yet.")
        game = (await self.repo.load(record.id)).game
        if verb == "status":
            return Reply(status_text(record, game, await self._ledger(record.id), self.clock(),
                                     timestamps=self.timestamps))
        if verb == "holdings":
            return Reply(holdings_text(game))
        if verb == "tiles":
            text = tiles_text(game, rest)
            focus = rest.strip().upper()
            sheet = ["tiles"] if focus in track_options(game) else ["map"]  # else the hex as it is
            pictures = await render_pictures(game, sheet, highlight=focus, focus=focus) \
                if focus and self.pictures else []
            return Reply(text, pictures)
        if verb == "log":
            return Reply(await self._log(record, rest))
        if verb == "export":
            return await self._export(record)
        focus = rest.strip().upper() or None
        if focus is not None and focus not in game.ctx.board.hexes:
            raise Refusal(f"There is no hex {shown(focus)} on the map.")
        pictures = await render_pictures(game, [verb], highlight=focus, focus=focus)
        return Reply(f"{round_title(game)} · phase {game.state.phase}", pictures)

    async def _log(self, record: GameRecord, rest: str) -> str:
        """The newest ``log N`` lines (15 by default), or ``log page P``: pages of one
        message each, counted back from the newest."""
        words = rest.lower().split()
        try:
            if words[:1] == ["page"] and len(words) == 2:
                page, count = int(words[1]), None
            elif len(words) <= 1:
                page, count = 1, int(words[0]) if words else LOG_PAGE
            else:
                raise ValueError(rest)
        except ValueError:
            raise Refusal("Write it as `log`, `log 30` or `log page 2`.") from None
        if page < 1 or (count is not None and count < 1):
            raise Refusal("Write it as `log`, `log 30` or `log page 2`.")
        events = await self.store.events(record.id)
        effective = {e.seq for e in effective_events(events)}
        effects = await asyncio.to_thread(self._effects, record, events)  # a whole replay: off the loop
        shown = [(i, e) for i, e in enumerate(events) if log_line(record, e, effective, [])]
        pages: list[list[str]] = [[]]
        room = REPLY_LIMIT - 80  # for the note about earlier lines
        for i, event in reversed(shown):
            if len(pages) == page and count is not None and len(pages[-1]) == count:
                break
            line = "\n".join([self._log_line(record, events, i, effective),
                              *(f"    {effect}" for effect in effects.get(event.seq, []))])[:room]
            if sum(len(x) + 1 for x in pages[-1]) + len(line) > room:
                if len(pages) == page:
                    break
                pages.append([])
            pages[-1].append(line)
        if len(pages) < page or not pages[-1]:
            return "Nothing has happened yet." if page == 1 else f"There is no page {page} of the log."
        lines = pages[page - 1][::-1]
        earlier = len(shown) - sum(len(p) for p in pages[:page])
        cut = count is None or len(lines) < min(count, len(shown))  # the page is full, not the count
        note = [f"… {earlier} earlier lines: `log page {page + 1}`"] if earlier > 0 and cut else []
        return "\n".join(note + lines)

    @staticmethod
    def _log_line(record: GameRecord, events: list[Any], i: int, effective: set[int]) -> str:
        event = events[i]
        moved = []
        if event.kind in (EventKind.UNDO, EventKind.REDO):
            before = {e.seq: e for e in effective_events(events[:i])}
            after = {e.seq: e for e in effective_events(events[: i + 1])}
            moved = [before[s] for s in sorted(set(before) - set(after))] or \
                    [after[s] for s in sorted(set(after) - set(before))]
        return log_line(record, event, effective, moved)

    def _effects(self, record: GameRecord, events: list[Event]) -> dict[int, list[str]]:
        """What each effective action did, as the engine's log lines (the game replayed)."""
        game = self.engine.new_game(record)
        effects = {}
        for event in effective_events(events):
            effects[event.seq] = self.engine.apply(game, event.action, replaying=True)
        return effects

    # --- 18xx.games ------------------------------------------------------------------

    async def _export(self, record: GameRecord) -> Reply:
        """The game as an 18xx.games log, attached (a whole replay: off the loop)."""
        events = await self.store.events(record.id)
        export = await asyncio.to_thread(site_export, record, events)
        text = f"Game {record.id} as an 18xx.games log: {export.actions} actions."
        if export.warning:
            text += f" ⚠ {export.warning}."
        data = json.dumps(export.log, ensure_ascii=False).encode("utf-8")
        return Reply(text, files=[Attachment(export_name(record), data)])

    async def import_site_game(
        self, channel_id: str, account: Account, data: bytes, *, name: str = "the file",
        guild_id: str | None = None, hot_seat: bool = False,
    ) -> Reply:
        """Bring an 18xx.games game into the channel, checked by replaying it, to play on
        under the site's rules; ``account`` becomes its commissioner and holds the seat
        of its own name (else the first) until seats are handed out with `seat`
        (``hot_seat``: the console, where every seat is at one keyboard)."""
        log = read_site_file(data, name)
        troika = await asyncio.to_thread(troika_log, log, (account.id, account.name), hot_seat)
        try:
            record = await self.repo.import_game(troika, account.id, guild_id=guild_id, channel_id=channel_id)
        except ChannelBusy as exc:
            raise Refusal(f"This channel already has game {exc.game_id}; its commissioner can `end` it.") from None
        except InvalidGameLog as exc:
            raise Refusal(f"This 18xx.games log does not replay: {one_line(str(exc))}") from None
        game = (await self.repo.load(record.id)).game
        mine = next(s for s in record.seats if s.commissioner)
        where = "The game is over." if game.state.finished else f"{round_title(game)}: {who_acts(game)} {doing(game)}."
        free = [s.display_name for s in record.seats if s.discord_user_id is None]
        seats = f" Free seats: {', '.join(free)}; the commissioner gives them with `seat \"{free[0]}\" @someone`." \
            if free else ""
        return Reply(f"**{account.name}** imports {log.get('title')} game {log.get('id', '')} from 18xx.games as "
                     f"game {record.id} ({len(troika['actions'])} actions, the site's rules); the commissioner "
                     f"holds {mine.display_name}'s seat. {where}{seats}")

    # --- posts ---------------------------------------------------------------------

    async def _post(self, message: OutboxMessage) -> Post:
        payload = message.payload
        record = await self.store.get_game(message.game_id)
        mention = next((s for s in record.seats if s.player_id == payload.get("mention")), None)
        pictures: list[Picture] = []
        if self.pictures and payload.get("pictures"):
            try:
                game = await self._game_at(message.game_id, int(payload["seq"]))
            except CorruptEvent as exc:
                log.warning("post %s goes without pictures: %s", message.id, exc)
            else:
                hex_id = payload.get("highlight")  # a close-up around the tile or token just placed
                pictures = await render_pictures(game, payload["pictures"], highlight=hex_id, focus=hex_id,
                                                 routes=payload.get("routes"))
        since = ""
        if mention is not None and payload.get("kind") == "turn":
            since = await self._since(record, mention.player_id, int(payload["seq"]))
        return Post(message.id, message.game_id, record.channel_id, payload.get("text", ""), payload.get("next", ""),
                    mention, pictures, seq=int(payload.get("seq", 0)), recap=since)

    async def _since(self, record: GameRecord, player_id: str, seq: int) -> str:
        """The moves others made between ``player_id``'s last move and event ``seq``."""
        effective = effective_events([e for e in await self.store.events(record.id) if e.seq <= seq])
        moves = [e for e in effective if e.kind is EventKind.ACTION]
        own = [i for i, e in enumerate(moves) if e.actor == player_id]
        others = [e for e in moves[own[-1] + 1 if own else 0:] if e.seq != seq]
        if not others:
            return ""
        shown = [f"{_mover(record, e)} `{event_command(e)}`" for e in others[-SINCE_SHOWN:]]
        earlier = f"{len(others) - SINCE_SHOWN} earlier moves · " if len(others) > SINCE_SHOWN else ""
        return f"_Since your last move:_ {earlier}{' · '.join(shown)} (`log` shows what each did)"

    def _keep_drawn(self, game_id: int, seq: int, game: Game) -> None:
        """Save the state event ``seq`` leaves (called as it is stored) for its post's pictures."""
        self._drawn[(game_id, seq)] = pickle.dumps(game.state, pickle.HIGHEST_PROTOCOL)
        while len(self._drawn) > DRAWN_KEPT:
            self._drawn.popitem(last=False)

    async def _game_at(self, game_id: int, seq: int) -> Game:
        """The game as it was after event ``seq``, the caller's own: the state saved as
        the event was stored if this process stored it, else a copy of the live one (its
        next command may change it while the post's pictures are drawn) unless it has
        moved on."""
        saved = self._drawn.pop((game_id, seq), None)
        if saved is not None:
            live = (await self.repo.load(game_id)).game
            return Game(live.ctx, pickle.loads(saved))
        later = await self.store.events(game_id, after_seq=seq)
        if not any(e.kind is not EventKind.ADMIN and e.kind is not EventKind.SEAT for e in later):
            live = (await self.repo.load(game_id)).game
            return Game(live.ctx, pickle.loads(pickle.dumps(live.state, pickle.HIGHEST_PROTOCOL)))
        record = await self.store.get_game(game_id)
        game = self.engine.new_game(record)
        events = [e for e in await self.store.events(game_id) if e.seq <= seq]
        for event in effective_events(events):
            self.engine.apply(game, event.action, replaying=True)
        return game

    async def _claim(self, game_id: int) -> bool:
        """Whether this process may post to the game now: it is one of its shard's, and
        the process holds the game's claim (taken or renewed here)."""
        if self.shard is not None:
            if game_id not in self._guilds:
                self._guilds[game_id] = (await self.store.get_game(game_id)).guild_id
            if not self.shard.owns(self._guilds[game_id]):
                return False
        return await self.store.claim_game(game_id, self.owner)

    async def _still_unsent(self, message: OutboxMessage) -> bool:
        """Whether the post is still unsent (another process may have sent it since it
        was read, before this one held the game's claim)."""
        first = await self.store.outbox_unsent(1, message.id - 1, game_id=message.game_id)
        return bool(first) and first[0].id == message.id

    def _owns(self, record: GameRecord) -> bool:
        return self.shard is None or self.shard.owns(record.guild_id)

    async def _ledger(self, game_id: int, last_seq: int | None = None) -> Ledger:
        """The game's ledger up to its last event (``last_seq`` if just read)."""
        ledger = self._ledgers.setdefault(game_id, Ledger())
        if ledger.seq < (await self.store.last_seq(game_id) if last_seq is None else last_seq):
            ledger.fold(await self.store.events(game_id, after_seq=ledger.seq))
        return ledger

    def _lock(self, channel_id: str) -> asyncio.Lock:
        return self._locks.setdefault(channel_id, asyncio.Lock())


def _hours(text: str, verb: str = "remind") -> float | None:
    """A reminder time in hours (``24``, ``24h``, ``2d``), or None for ``off``."""
    word = text.strip().lower()
    if word in ("off", "0", "never", "none"):
        return None
    try:
        hours = float(word.rstrip("hd").strip()) * (24 if word.endswith("d") else 1)
    except ValueError:
        raise Refusal(f"Write it as `{verb} 24` (hours), `{verb} 2d` or `{verb} off`.") from None
    low, high = REMIND_HOURS
    if not (math.isfinite(hours) and low <= hours <= high):
        raise Refusal(f"The reminder time is a number of hours from {low} to {high} (30 days): `{verb} 24`.")
    return hours


def _process_name(shard: Shard | None) -> str:
    """The name this process claims games under: its shard and machine, so that the same
    bot restarted after a crash takes its games back at once, while any other process
    waits for the claims to run out."""
    which = f"shard {shard.index} of {shard.count}" if shard else "troika"
    return f"{which} on {socket.gethostname()}"


class _AlreadyDone(Exception):
    """The request was carried out before (a second delivery of one message)."""


def _broken(problem: CorruptEvent) -> str:
    """What a player is told about a game that cannot be loaded."""
    where = f"event {problem.seq}" if problem.seq else "its set-up"
    return (f"Game {problem.game_id} cannot be loaded: {where} is at fault ({problem.reason}). "
            f"Its commissioner can `end` it and start another; an operator can accept a new "
            f"Troika's replay with `troika admin accept {problem.game_id}`.")


def _notes(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


def _code(text: str) -> str:
    """User text shown as written, in a code span (so it cannot mention or format)."""
    text = " ".join(text.split()).replace("`", "ˋ")
    return f"`{text}`" if text else ""


def _name(account: Account) -> str:
    """The account's name as seated: one line, at most :data:`MAX_NAME` characters."""
    return " ".join(account.name.split())[:MAX_NAME] or account.id


def _account(seat: Seat) -> Account:
    return Account(seat.discord_user_id or seat.player_id, seat.display_name)


def _match_seat(record: GameRecord, words: list[str]) -> tuple[Seat, int]:
    """The seat whose name (or account mention) the first words give; longest name wins."""
    for used in range(len(words), 0, -1):
        name = " ".join(words[:used]).lower()
        mention = name.strip("<@!>")
        for seat in record.seats:
            if name == seat.display_name.lower() or mention in (seat.discord_user_id, seat.player_id):
                return seat, used
    raise Refusal(f"Whom do you mean? Seated: {', '.join(s.display_name for s in record.seats)}.")


def _seat_of(record: GameRecord, player_id: str) -> Seat:
    return next(s for s in record.seats if s.player_id == player_id)


def _try(game: Game, action: Action) -> None:
    """Raise a :class:`Refusal` if ``action`` would be refused now (a deal is checked
    before the other side is asked)."""
    trial = Game(game.ctx, copy.deepcopy(game.state))
    try:
        trial.apply(action, check=False)
    except EngineError as exc:
        raise Refusal(f"{_sentence(str(exc))} You may: {choices_text(game)}") from None


def _mover(record: GameRecord, event: Event) -> str:
    """Who made a move: the company acting, else the player's name."""
    entity = str(event.action.get("entity") or "")
    return entity if entity and all(s.player_id != entity for s in record.seats) else seat_name(record, event.actor)


def _proxy_note(proxy: Seat | None) -> str | None:
    return f"entered by {proxy.display_name} (commissioner)" if proxy else None


def _turn_changed(game: Game, acting_before: str | None) -> str | None:
    """The player to mention: the one who must act now, if it was someone else before."""
    now = game.acting_player()
    return now if now is not None and now != acting_before else None


def _hex_of(parsed: Parsed) -> str | None:
    action = parsed.action
    return action.hex if isinstance(action, (LayTile, PlaceToken, RemoveToken)) else None


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def game_choice(words: list[str]) -> Setup:
    """The setup named in ``new``'s words (``1867 column long-game``): title, market and
    the rulebook's options, each defaulting as the box does (1861, the title's market)."""
    try:
        return parse_setup(words)
    except EngineError as exc:
        raise Refusal(f"{exc}.") from None


def option_suggestions(title: str, typed: str) -> list[str]:
    """What ``/new``'s options field may read next: the words typed so far plus one more
    option the title declares (the title's default when none is chosen yet)."""
    words = typed.lower().split()
    ending = "" if typed.endswith(" ") or not words else words.pop()
    chosen = title_named(title if title in TITLES else DEFAULT_TITLE)
    offered = [o.sym for o in chosen.options] + list(chosen.option_sets)
    return [" ".join([*words, sym]) for sym in offered if sym not in words and sym.startswith(ending)]


def _record_rules(record: GameRecord) -> Rules:
    """The rules stored with a game (its options less the seat that plays first)."""
    try:
        return Rules.from_dict({k: v for k, v in record.options.items() if k != "first_player"})
    except EngineError as exc:
        raise Refusal(f"Game {record.id}'s stored options cannot be read: {exc}.") from None


def setup_words(title: str, rules: Rules) -> str:
    """A game's setup as the players chose it: ``grid market; Long game (§14)``."""
    site = ["the rules as on 18xx.games"] if rules.is_site else []
    return "; ".join([f"{rules.market} market", *site, *describe(title, rules.options)])
