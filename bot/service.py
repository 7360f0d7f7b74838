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

The work is split by feature, each a module over one shared :class:`bot.core.Core`:
set-up (:mod:`bot.setting_up`), turns (:mod:`bot.turns`), the commissioner
(:mod:`bot.commissioner`), information (:mod:`bot.information`) and delivery
(:mod:`bot.delivery`). :class:`TroikaService` is their face: it reads a command's verb
and hands it to the handler the verb table names (:data:`bot.commands.VERBS`).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

from engine import TITLES
from storage import CorruptEvent, EventStore, GameStatus, OutboxMessage, Shard
from storage.repository import request
from storage.store import unstorable, utc_now

from .archive import ARCHIVE_AFTER, Archive
from .commands import VERBS, split
from .commissioner import Commissioner
from .computer_seats import COMPUTER, ComputerSeats, computer_seats
from .core import REPLY_LIMIT, Account, AlreadyDone, Command, Core, Post, Reply, Status, broken
from .delivery import Delivery, process_name
from .errors import Refusal
from .information import Information
from .posts import Picture
from .setting_up import MAX_PLAYERS, SetUp, game_choice, option_suggestions, setup_words
from .timekeeping import Timekeeper
from .turns import Turns

log = logging.getLogger("troika.service")

__all__ = [
    "MAX_PLAYERS", "TITLES", "Account", "Post", "Reply", "Status", "TroikaService", "game_choice",
    "option_suggestions", "setup_words",
]


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
        draw: Callable[[OutboxMessage], Awaitable[list[Picture]]] | None = None,
        archive_after: timedelta | None = ARCHIVE_AFTER,
    ) -> None:
        """``timestamps``: write times as Discord timestamps (``<t:UNIX:R>``), which each
        reader sees in their own time zone, instead of durations. ``draw`` draws a post's
        pictures elsewhere (the game's worker) instead of in this process. A running game
        with no move for ``archive_after`` is archived (None: never)."""
        self.core = Core(store, clock=clock, pictures=pictures, shard=shard, owner=owner or process_name(shard),
                         timestamps=timestamps, archive_after=archive_after)
        self.store, self.repo, self.engine = self.core.store, self.core.repo, self.core.engine
        self.setup = SetUp(self.core)
        self.delivery = Delivery(self.core)
        self.turns = Turns(self.core, self.delivery)
        self.commissioner = Commissioner(self.core, self.turns)
        self.information = Information(self.core)
        self.computer = ComputerSeats(self.core, self.turns)
        self.timekeeper = Timekeeper(self.core, self.turns, self.computer)
        self.delivery.holds = self.timekeeper.holds_reminder
        self.delivery.waited = self.timekeeper.waited
        self.information.table_clock = self.timekeeper.table_clock
        self.information.clock_lines = self.timekeeper.status_lines
        self.archive = Archive(self.core)
        self._done: OrderedDict[str, None] = OrderedDict()
        features = (self.setup, self.turns, self.commissioner, self.information, self.computer, self.timekeeper,
                    self.archive)
        handled = [(verb, method) for feature in features for verb, method in feature.handlers().items()]
        self.core.handlers.update(handled)
        twice = sorted({verb for verb, _ in handled if [v for v, _ in handled].count(verb) > 1})
        if twice or set(VERBS) != set(self.core.handlers):  # stops the service here
            raise RuntimeError(f"each verb needs one handler: handled twice {twice}, unhandled "
                               f"{sorted(set(VERBS) - set(self.core.handlers))}, "
                               f"not in the table {sorted(set(self.core.handlers) - set(VERBS))}")
        self.import_site_game = self.setup.import_site_game
        if draw is not None:
            self.delivery.draw = draw
        self.flush = self.delivery.flush
        self.drawn = self.delivery.drawn
        self.post_pictures = self.delivery.pictures
        self.verify_running_games = self.repo.verify_running_games
        self.close = self.delivery.close
        self.set_status_message = self.delivery.set_status_message
        self.channel_deleted = self.commissioner.channel_deleted
        self.status = self.information.pinned_status
        self.seat_account = self.information.seat_account
        self.deciding_account = self.information.deciding_account
        self.requesting_account = self.information.requesting_account
        self.typing_account = self.information.typing_account
        self.called_company = self.information.called_company
        self.suggestions = self.information.suggestions
        self.seat_names = self.information.seat_names
        self.game_in = self.information.game_in

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.core.clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self.core.clock = clock

    @property
    def shard(self) -> Shard | None:
        return self.core.shard

    @property
    def owner(self) -> str:
        return self.core.owner

    @property
    def conflicts_retried(self) -> int:
        """How often a command was tried again because another process changed its game."""
        return self.core.conflicts_retried

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
                reply = await self._handle(channel_id, account, text, guild_id, at)
        except AlreadyDone:
            return Reply()
        except Refusal as exc:
            text = str(exc)
            if len(text) <= REPLY_LIMIT:
                raise
            raise type(exc)(text[:REPLY_LIMIT - 30].rstrip() + " … (cut: too long)") from None
        await self._computer_moves(channel_id)
        return reply

    async def computer_moves(self, channel_id: str, most: int) -> int:
        """At most ``most`` moves by the computer for its seats while one is to act (the
        console's play on, one move at a time); how many it made."""
        async with self.core.lock(channel_id):
            return await self.computer.catch_up(channel_id, most)

    async def _computer_moves(self, channel_id: str) -> None:
        """The computer's moves for its seats after a command (each its own event, under
        no request key of a person's command); its trouble is logged, the command stands."""
        try:
            async with self.core.lock(channel_id):
                await self.computer.catch_up(channel_id)
        except Exception:
            log.exception("the computer's moves in channel %s stopped", channel_id)

    async def send_reminders(self, game_ids: Collection[int] | None = None, now: datetime | None = None) -> None:
        """The reminders due (:meth:`bot.delivery.Delivery.send_reminders`), the time-outs
        (:meth:`bot.timekeeping.Timekeeper.enforce`), then the computer's moves in running
        games where it is to act (a long stretch of its moves goes on here). ``now``: the
        bot's time, handed to a worker (else this process's clock)."""
        await self.delivery.send_reminders(game_ids, now)
        await self.timekeeper.enforce(game_ids, now)
        for record in await self.store.list_games([GameStatus.RUNNING]):
            if record.channel_id and self.core.owns(record) and (game_ids is None or record.id in game_ids) \
                    and record.archived_at is None:
                await self._computer_moves(record.channel_id)

    @asynccontextmanager
    async def _command(self, channel_id: str, key: str | None) -> AsyncIterator[None]:
        """The channel's lock and the request key, around the attempts of one command."""
        async with self.core.lock(channel_id):
            if key is not None and key in self._done:
                raise AlreadyDone
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
        if verb == "lay" and not rest:
            verb = "tiles"
        if verb == "as" and len(rest.split()) < 2:
            raise Refusal("Write it as `as PLAYER COMMAND`: the commissioner enters a command for an absent "
                          "player, e.g. `as Boris pass`.")
        command = Command(channel_id, account, verb, rest, guild_id)
        if not VERBS[verb].game:
            return await self.core.retrying(lambda: self.core.handlers[verb](command))
        return await self.core.retrying(lambda: self._in_game(command, at))

    async def _in_game(self, command: Command, at: tuple[int, int] | None = None) -> Reply:
        """A command on the channel's game, its handler called as its kind says (:class:`bot.commands.Verb`)."""
        channel_id, account, verb, rest = command.channel_id, command.account, command.verb, command.rest
        kind, handler = VERBS[verb].kind, self.core.handlers[verb]
        record = await self.core.channel_game(channel_id, finished=True)
        try:
            if kind == "info":
                return await handler(record, rest)
            if verb == "undo" and await self.turns.reopen_if_ended(channel_id, account):
                return await self.turns.undo_the_end(channel_id, account, rest)
            if record.status is GameStatus.FINISHED:
                record = await self.core.channel_game(channel_id)  # "it is over"
            if kind == "admin":
                if verb == "remind" and rest.split()[:1] == ["me"]:  # anyone's own reminder time
                    return await self.commissioner.remind_me(record, self.core.seat(record, account), rest[2:])
                who = self.core.ender(record, account) if verb == "end" else self.core.commissioner(record, account)
                return await handler(record, who, rest)
            if at is not None:  # checked in each attempt: the game may move between attempts
                await self.turns.check_still_open(record, *at)
                if verb == "pass" and not rest.strip():  # the post called the company: not a stray pass
                    rest = await self.turns.company_called(record)
            return await self.turns.as_seat(record, self.core.seat(record, account), verb, rest, None)
        except CorruptEvent as exc:
            if exc.game_id != record.id:
                raise
            raise Refusal(broken(exc)) from None

    async def replace_seat(
        self, channel_id: str, account: Account, player: str, new: Account, *, key: str | None = None
    ) -> Reply:
        """The commissioner gives ``player``'s seat to another account."""

        async def attempt() -> Reply:
            record = await self.core.channel_game(channel_id)
            return await self.commissioner.replace(record, self.core.commissioner(record, account), player, new)

        try:
            async with self._command(channel_id, key):
                reply = await self.core.retrying(attempt)
        except AlreadyDone:
            return Reply()
        await self._computer_moves(channel_id)
        return reply

    async def start_local_game(self, channel_id: str, /, players: list[tuple[str, str]], **kwargs: Any) -> Reply:
        """Set up and start a game at once (console, tests; :meth:`bot.setting_up.SetUp.start_local_game`);
        a player named ``computer`` is a computer's seat. The computer then moves while it is to act."""
        reply = await self.setup.start_local_game(channel_id, computer_seats([name for _, name in players])
                                                  if any(n.lower() == COMPUTER for _, n in players) else players,
                                                  **kwargs)
        async with self.core.lock(channel_id):
            await self.computer.catch_up(channel_id)
        return reply
