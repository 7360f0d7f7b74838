"""Setting a game up: `new`, `join`, `leave`, `start`, `options`, and games begun at
once (the console) or brought from 18xx.games."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine import (
    DEFAULT_TITLE,
    TITLES,
    EngineError,
    Game,
    Rules,
    Setup,
    counted,
    describe_options,
    load_board,
    parse_setup,
    round_title,
    rulebook_players,
    title_named,
)
from storage import ChannelBusy, CorruptEvent, EventKind, GameRecord, GameStatus, InvalidGameLog, NewEvent, Seat
from storage.repository import rules_options

from .clock import POLICIES
from .computer_seats import COMPUTER, computer_account
from .core import Account, Command, Feature, Reply, code_span, handles, seated_name
from .errors import NoGame, Refusal
from .posts import doing, next_line, options_text, who_acts
from .site_games import one_line, read_site_file, troika_log
from .web import links

MAX_PLAYERS = 6


class SetUp(Feature):
    """Set-up: the seats of a game being set up, its options, and its start."""

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
        on_timeout: str | None = None,
    ) -> Reply:
        """Set up and start a game of ``title`` at once (console, tests): ``players`` are
        (id, name), each player's account id being their id; the first is the commissioner;
        ``on_timeout``: the table's policy, as `new ... on-timeout computer` chooses it."""
        if not 2 <= len(players) <= MAX_PLAYERS:
            raise Refusal(f"Name 2 to {MAX_PLAYERS} players: `new Anna Boris Clara`.")
        options = (rules or Rules.rulebook(market=load_board(title).default_market)).to_dict()
        if first_player is not None:
            options["first_player"] = first_player
        if on_timeout is not None:
            options["on_timeout"] = on_timeout
        seats = [Seat(i, pid, name, pid, i == 0) for i, (pid, name) in enumerate(players)]
        async with self.core.lock(channel_id):
            record = await self._create(channel_id, seats, options, seed, players[0][0], title, guild_id)
            try:
                return await self._begin(record)
            except Refusal:
                await self.store.set_status(record.id, GameStatus.ABANDONED)
                raise

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
        seat = next(p for p in troika["players"] if p["commissioner"])
        site_name = seat["name"]
        if not hot_seat:  # the importer plays under their own name, as a member given a seat does
            seat["name"] = seated_name(account)
        try:
            record = await self.repo.import_game(troika, account.id, guild_id=guild_id, channel_id=channel_id)
        except ChannelBusy as exc:
            raise Refusal(await self._busy(exc.game_id)) from None
        except InvalidGameLog as exc:
            raise Refusal(f"This 18xx.games log does not replay: {one_line(str(exc))}") from None
        game = (await self.repo.load(record.id)).game
        where = "The game is over." if game.state.finished else f"{round_title(game)}: {who_acts(game)} {doing(game)}."
        free = [s.display_name for s in record.seats if s.discord_user_id is None]
        seats = f" Free seats: {', '.join(free)}; the commissioner gives them with `seat \"{free[0]}\" @someone`." \
            if free else ""
        renamed = [f"{code_span(str(site.get('name'))) or '(no name)'} → {played['name']}"
                   for site, played in zip(log["players"], troika["players"], strict=True)
                   if str(site.get("name")) != played["name"] and played is not seat]
        names = f" Renamed so each seat has a name of its own, on one line: {'; '.join(renamed)}." if renamed else ""
        return Reply(f"**{account.name}** imports {log.get('title')} game {log.get('id', '')} from 18xx.games as "
                     f"game {record.id} ({counted(len(troika['actions']), 'action')}, the site's rules); the "
                     "commissioner "
                     f"holds {site_name}'s seat{'' if seat['name'] == site_name else ' as ' + seat['name']}. "
                     f"{where}{seats}{names}")

    @handles("import")
    @staticmethod
    async def import_text(command: Command) -> Reply:
        """`import` typed: the file comes attached (:meth:`import_site_game`), or by path on the console."""
        raise Refusal("Attach the game's JSON exported from 18xx.games to `!import` (or `/import`); "
                      "on the console, `import PATH`.")

    @handles("new")
    async def new(self, command: Command) -> Reply:
        """`new [TITLE] [MARKET] [OPTION ...]`: a game set up in the channel, its commissioner the one who typed it."""
        channel_id, account, guild_id = command.channel_id, command.account, command.guild_id
        words, policy = timeout_chosen(command.rest.split())
        setup = game_choice([w for w in words if w.lower() != COMPUTER])
        seat = Seat(0, account.id, account.name, account.id, True)
        computers = [Seat(i, computer_account(i), f"Computer {i}", computer_account(i))
                     for i in range(1, 1 + sum(w.lower() == COMPUTER for w in words))]
        if len(computers) >= MAX_PLAYERS:
            raise Refusal(f"The table is full at {MAX_PLAYERS} players: seat fewer computers.")
        rules = setup.rules()
        options = rules.to_dict() | ({"on_timeout": policy} if policy else {})
        record = await self._create(channel_id, [seat, *computers], options, None, account.id, setup.title, guild_id)
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
            raise Refusal(await self._busy(exc.game_id)) from None

    async def _busy(self, game_id: int) -> str:
        """Why a new game may not start here: the channel's game, archived or not."""
        record = await self.store.get_game(game_id)
        if record.archived_at is not None:
            return (f"This channel has game {game_id}, archived on {record.archived_at:%d %b %Y} for want of moves: "
                    "`unarchive` brings it back, and its commissioner can then `end` it.")
        return f"This channel already has game {game_id}; its commissioner can `end` it."

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

    @handles("join")
    async def join(self, command: Command) -> Reply:
        """`join`: a seat in the game being set up."""
        account = command.account
        name = seated_name(account)

        def seated(record: GameRecord) -> list[Seat]:
            if any(s.discord_user_id == account.id for s in record.seats):
                raise Refusal("You already have a seat.")
            if len(record.seats) >= MAX_PLAYERS:
                raise Refusal(f"The table is full ({MAX_PLAYERS} players).")
            if any(s.display_name.lower() == name.lower() for s in record.seats):
                raise Refusal(f"A player called {name} is already seated; change your nickname first.")
            return [*record.seats, Seat(len(record.seats), account.id, name, account.id)]

        seats = await self._change_seats(command.channel_id, seated, account.id, "join")
        return Reply(f"**{name}** joins. Seated: {', '.join(s.display_name for s in seats)}.")

    @handles("leave")
    async def leave(self, command: Command) -> Reply:
        """`leave`: give up one's seat before the game starts."""
        account = command.account

        def seated(record: GameRecord) -> list[Seat]:
            seat = self.core.seat(record, account)
            if seat.commissioner:
                raise Refusal("The commissioner keeps their seat; `end` cancels the game instead.")
            return [replace(s, seat=i) for i, s in enumerate(s for s in record.seats if s != seat)]

        seats = await self._change_seats(command.channel_id, seated, account.id, "leave")
        return Reply(f"**{seated_name(account)}** leaves. Seated: {', '.join(s.display_name for s in seats)}.")

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

    @handles("start")
    async def start(self, command: Command) -> Reply:
        """`start` (the commissioner): the seats are fixed and the game begins."""
        record = await self._setting_up(command.channel_id)
        self.core.commissioner(record, command.account)
        return await self._begin(record)

    async def _begin(self, record: GameRecord) -> Reply:
        def posts(game: Game, seq: int) -> list[dict[str, Any]]:
            order = " → ".join(p.name for p in game.state.players)
            return [{
                "kind": "start", "seq": seq, "pictures": ["map", "table"],
                "text": f"**Game {record.id} of {record.title} begins** "
                        f"({setup_words(record.title, game.ctx.rules)}). "
                        f"Seats: {order}. Priority deal: **{who_acts(game)}**."
                        + (f"\nWatch it on the web: {link}" if (link := links.game_link(record.id)) else ""),
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

    @handles("options")
    async def options(self, command: Command) -> Reply:
        """``options [1861|1867]``: a title's optional rules in the rulebook's words (the
        title named, else the channel's game's, else every title's), those in force marked."""
        word = command.rest.strip().lower()
        if word and word not in TITLES:
            raise Refusal(f"`{word[:20]}` is not a game: `options 1861` or `options 1867`.")
        record = await self.store.active_game_in_channel(command.channel_id)
        title = word or (record.title if record is not None else None)
        chosen: frozenset[str] = frozenset()
        if record is not None and record.title == title:
            chosen = record_rules(record).options
        return Reply(options_text(title, chosen))


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


def timeout_chosen(words: list[str]) -> tuple[list[str], str | None]:
    """``new``'s words less ``on-timeout POLICY``, and the policy (:data:`bot.clock.POLICIES`) if named."""
    lowered = [w.lower() for w in words]
    if "on-timeout" not in lowered:
        return words, None
    at = lowered.index("on-timeout")
    policy = lowered[at + 1] if at + 1 < len(words) else ""
    if policy not in POLICIES:
        raise Refusal("Write it as `new ... on-timeout wait|computer|pass` (what happens when a player's time "
                      "bank runs out).")
    return words[:at] + words[at + 2:], policy


def record_rules(record: GameRecord) -> Rules:
    """The rules stored with a game (its options less the seat that plays first and the
    site game it came from)."""
    try:
        return Rules.from_dict(rules_options(record.options))
    except EngineError as exc:
        raise Refusal(f"Game {record.id}'s stored options cannot be read: {exc}.") from None


def setup_words(title: str, rules: Rules) -> str:
    """A game's setup as the players chose it: ``grid market; Long game (§14)``."""
    site = ["the rules as on 18xx.games"] if rules.is_site else []
    return "; ".join([f"{rules.market} market", *site, *describe_options(title, rules.options)])
