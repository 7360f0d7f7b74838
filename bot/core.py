"""What every part of the service shares: the :class:`Core` (store, repository,
engine, clock, the games' ledgers and the channels' locks) and the lookups every
feature makes (the channel's game, a seat, the commissioner), with the values the
service hands its frontends (:class:`Account`, :class:`Reply`, :class:`Post`,
:class:`Status`).

Each feature of the service (:mod:`bot.setting_up`, :mod:`bot.turns`,
:mod:`bot.commissioner`, :mod:`bot.information`, :mod:`bot.delivery`) is a
:class:`Feature` over one :class:`Core`; :class:`bot.service.TroikaService` puts them
together.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from engine import Game
from storage import (
    AppendConflict,
    CorruptEvent,
    EventStore,
    GameRecord,
    GameRepository,
    GameStatus,
    Seat,
    Shard,
    TroikaEngine,
)
from storage.store import DuplicateRequest

from .errors import NoGame, NotAllowed, Refusal
from .ledger import Ledger
from .posts import Attachment, Picture

T = TypeVar("T")

MAX_TRIES = 30
"""Times a command is tried when other processes keep changing its game meanwhile."""
REPLY_LIMIT = 1900
"""Characters of a refusal or a page of text: a Discord message (2,000) with room to spare."""
MAX_NAME = 32


@dataclass(frozen=True)
class Account:
    """Who typed a command: a Discord user (id, display name), or a console player."""

    id: str
    name: str


@dataclass(frozen=True)
class Command:
    """A command typed in a channel, as the service hands it to the feature that carries it out."""

    channel_id: str
    account: Account
    verb: str
    rest: str
    guild_id: str | None = None


@dataclass
class Reply:
    """The direct answer to a command."""

    text: str = ""
    pictures: list[Picture] = field(default_factory=list)
    files: list[Attachment] = field(default_factory=list)
    direct: str = ""
    """For the one who asked only: sent as a direct message on Discord (a private link)."""


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
    """A game's status text, and the channel and message that show it (if pinned yet);
    ``over``: the game has ended (its status is unpinned)."""

    channel_id: str | None
    message_id: str | None
    text: str
    over: bool = False


class Core:
    """The store and what the service keeps in memory for it, shared by every feature."""

    def __init__(
        self, store: EventStore, *, clock: Callable[[], datetime], pictures: bool, shard: Shard | None, owner: str,
        timestamps: bool, archive_after: timedelta | None = None,
    ) -> None:
        self.store = store
        self.shard = shard
        self.owner = owner
        self.timestamps = timestamps
        self.archive_after = archive_after
        """A running game with no move for this long is archived (:mod:`bot.archive`); None: never."""
        self.engine = TroikaEngine()
        self.repo = GameRepository(store, self.engine, cache_size=64)
        self.clock = clock
        self.pictures = pictures
        self._ledgers: dict[int, Ledger] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.conflicts_retried = 0
        """How often a command was tried again because another process changed its game."""
        self.handlers: dict[str, Callable[..., Awaitable[Reply]]] = {}
        """Each verb's handler (see :class:`bot.commands.Verb`), bound to this service's features."""

    async def retrying(self, attempt: Callable[[], Awaitable[T]]) -> T:
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
                raise AlreadyDone from None
        raise AssertionError("unreachable")

    async def ledger(self, game_id: int, last_seq: int | None = None) -> Ledger:
        """The game's ledger up to its last event (``last_seq`` if just read)."""
        ledger = self._ledgers.get(game_id)
        if ledger is None:
            ledger = self._ledgers[game_id] = Ledger(since=(await self.store.get_game(game_id)).created_at)
        if ledger.seq < (await self.store.last_seq(game_id) if last_seq is None else last_seq):
            ledger.fold(await self.store.events(game_id, after_seq=ledger.seq))
        return ledger

    def lock(self, channel_id: str) -> asyncio.Lock:
        """The channel's lock: one command at a time per channel in this process."""
        return self._locks.setdefault(channel_id, asyncio.Lock())

    async def channel_game(self, channel_id: str, *, finished: bool = False) -> GameRecord:
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

    @staticmethod
    def seat(record: GameRecord, account: Account) -> Seat:
        """The account's seat in the game; refused if it has none."""
        seat = next((s for s in record.seats if s.discord_user_id == account.id), None)
        if seat is None:
            from .computer_seats import handed_by_commissioner  # it builds on this module

            given = next((handed_by_commissioner(s) for s in record.seats
                          if account.id == s.player_id or account.name == s.display_name), "")
            if given:
                raise NotAllowed(given)
            raise NotAllowed(f"You have no seat in game {record.id} (seated: "
                             f"{', '.join(s.display_name for s in record.seats)}).")
        return seat

    @staticmethod
    def commissioner(record: GameRecord, account: Account) -> Seat:
        """The account's seat if it is the commissioner's; refused otherwise."""
        seat = next((s for s in record.seats if s.discord_user_id == account.id and s.commissioner), None)
        if seat is None:
            name = next((s.display_name for s in record.seats if s.commissioner), "")
            raise NotAllowed(f"Only the commissioner ({name}) may do that.")
        return seat

    @classmethod
    def ender(cls, record: GameRecord, account: Account) -> Seat:
        """Who may `end` the game: its commissioner; where its seats name no commissioner
        who has an account (damaged seats), any seated player, or, no seat having an
        account, the account that created the game (as a seat of its own)."""
        if any(s.commissioner and s.discord_user_id for s in record.seats):
            return cls.commissioner(record, account)
        seated = [s for s in record.seats if s.discord_user_id]
        seat = next((s for s in seated if s.discord_user_id == account.id), None)
        if seat is not None:
            return seat
        if not seated and account.id == record.created_by:
            return Seat(len(record.seats), account.id, account.name, account.id, commissioner=True)
        who = "any seated player" if seated else "the one who created it"
        raise NotAllowed(f"Game {record.id}'s seats name no commissioner (they are damaged): {who} may "
                         "`end confirm` it, freeing the channel for a `new` game.")

    @staticmethod
    def check_paused(ledger: Ledger) -> None:
        """Refuse a change to a paused game."""
        if ledger.paused is not None:
            reason = f" ({ledger.paused})" if ledger.paused else ""
            raise Refusal(f"The game is paused{reason}; the commissioner can `resume` it.")

    @classmethod
    def check_open(cls, game: Game, ledger: Ledger) -> None:
        """Refuse a move in a game that is over or paused."""
        if game.state.finished:
            raise Refusal("The game is over.")
        cls.check_paused(ledger)

    def owns(self, record: GameRecord) -> bool:
        """Whether the game is this process's shard's."""
        return self.shard is None or self.shard.owns(record.guild_id)


Handler = TypeVar("Handler", bound=Callable[..., Awaitable[Reply]])


def handles(*verbs: str) -> Callable[[Handler], Handler]:
    """Marks a feature's method as the handler of ``verbs`` (each declared in
    :data:`bot.commands.VERBS`, whose kind says what the method is called with)."""

    def mark(method: Handler) -> Handler:
        setattr(method, "handles", verbs)  # noqa: B010 - a function's own attribute, read by Feature.handlers
        return method

    return mark


class Feature:
    """One feature of the service, over the shared :class:`Core`."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.store = core.store
        self.repo = core.repo

    def handlers(self) -> dict[str, Callable[..., Awaitable[Reply]]]:
        """The verbs this feature carries out (its class's and inherited methods marked
        ``@handles``), each with its bound method; a verb marked twice is a bug."""
        found: dict[str, str] = {}
        for name in dir(type(self)):
            for verb in getattr(inspect.getattr_static(type(self), name), "handles", ()):
                if verb in found:
                    raise RuntimeError(f"`{verb}` is handled twice in {type(self).__name__}: {found[verb]}, {name}")
                found[verb] = name
        return {verb: getattr(self, name) for verb, name in found.items()}


class AlreadyDone(Exception):
    """The request was carried out before (a second delivery of one message)."""


def broken(problem: CorruptEvent) -> str:
    """What a player is told about a game that cannot be loaded."""
    where = f"event {problem.seq}" if problem.seq else "its set-up"
    return (f"Game {problem.game_id} cannot be loaded: {where} is at fault ({problem.reason}). "
            f"Its commissioner can `end` it and start another; an operator can accept a new "
            f"Troika's replay with `troika admin accept {problem.game_id}`.")


def notes(*notes: str | None) -> str | None:
    return "; ".join(n for n in notes if n) or None


def code_span(text: str) -> str:
    """User text shown as written, in a code span (so it cannot mention or format)."""
    text = " ".join(text.split()).replace("`", "ˋ")
    return f"`{text}`" if text else ""


def seated_name(account: Account) -> str:
    """The account's name as seated: one line, at most :data:`MAX_NAME` characters."""
    return " ".join(account.name.split())[:MAX_NAME] or account.id


def account_of(seat: Seat) -> Account:
    return Account(seat.discord_user_id or seat.player_id, seat.display_name)


def match_seat(record: GameRecord, words: list[str]) -> tuple[Seat, int]:
    """The seat whose name (or account mention) the first words give; longest name wins."""
    for used in range(len(words), 0, -1):
        name = unquoted(" ".join(words[:used])).lower()
        mention = name.strip("<@!>")
        for seat in record.seats:
            if name == seat.display_name.lower() or mention in (seat.discord_user_id, seat.player_id):
                return seat, used
    raise Refusal(f"Whom do you mean? Seated: {', '.join(s.display_name for s in record.seats)}.")


def unquoted(name: str) -> str:
    """A name as typed, without the quotes around it (`"Player 3"`)."""
    name = name.strip()
    for opening, closing in ('""', "''", "“”"):
        if len(name) > 1 and name[0] == opening and name[-1] == closing:
            return name[1:-1]
    return name


def typed_name(seat: Seat) -> str:
    """The seat's name as a command names it: quoted if it has a space (`as "Player 3" pass`)."""
    return f'"{seat.display_name}"' if " " in seat.display_name else seat.display_name


def seat_of(record: GameRecord, player_id: str) -> Seat:
    return next(s for s in record.seats if s.player_id == player_id)


def proxy_note(proxy: Seat | None) -> str | None:
    return f"entered by {proxy.display_name} (commissioner)" if proxy else None


def sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."
