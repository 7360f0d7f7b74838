"""What players look at: `status`, `log`, the pictures, `tiles`, `holdings`, `export`,
`games`, and the lookups the frontends make (whose turn it is, suggestions)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from engine import EngineError, Game, action_from_dict, command, counted, legal_actions, round_title, shown
from storage import CorruptEvent, Event, EventKind, GameRecord, GameStatus
from storage.repository import effective_events, undos_to_redo
from storage.store import ACTIVE_STATUSES

from .clock import TableClock
from .commands import VERBS
from .computer_seats import computer_played
from .core import (
    REPLY_LIMIT,
    Account,
    Command,
    Feature,
    Reply,
    Status,
    account_of,
    broken,
    handles,
    match_seat,
    typed_name,
)
from .errors import Refusal
from .posts import (
    Attachment,
    Moves,
    doing,
    help_text,
    holdings_text,
    log_line,
    numbered,
    render_pictures,
    status_text,
    who_acts,
)
from .setting_up import record_rules, setup_words
from .site_games import export_name, site_export
from .stats import stats_text
from .track_help import tiles_text, track_options
from .web import links

LOG_PAGE = 15


class Information(Feature):
    """Answers that change nothing."""

    table_clock: Callable[[int], Awaitable[TableClock]] | None = None
    """The game's clock (:meth:`bot.timekeeping.Timekeeper.table_clock`)."""
    clock_lines: Callable[[GameRecord, Game], Awaitable[str]] | None = None
    """The clock's lines in `status` (:meth:`bot.timekeeping.Timekeeper.status_lines`)."""

    async def status_of(self, record: GameRecord, game: Game) -> str:
        """The running game's status with its clock's lines: `status` and the pinned message."""
        clock = await self.table_clock(record.id) if self.table_clock is not None else TableClock()
        ledger = await self.core.ledger(record.id)
        text = status_text(record, game, ledger, clock, self.core.clock(), timestamps=self.core.timestamps,
                           computer=computer_played(record, ledger))
        lines = await self.clock_lines(record, game) if self.clock_lines is not None else ""
        return text + (f"\n{lines}" if lines else "")

    async def pinned_status(self, game_id: int) -> Status:
        """What the game's pinned status message should say, and where it is."""
        record = await self.store.get_game(game_id)
        async with self.core.lock(record.channel_id or f"game {game_id}"):
            ledger = await self.core.ledger(game_id)
            game = (await self.repo.load(game_id)).game
            return Status(record.channel_id, ledger.status_message, await self.status_of(record, game),
                          over=game.state.finished or record.status not in ACTIVE_STATUSES)

    async def seat_account(self, channel_id: str, words: list[str]) -> tuple[Account, int]:
        """The account of the seat named by the first of ``words``, and how many words
        the name took (names may have spaces)."""
        record = await self.core.channel_game(channel_id, finished=True)
        seat, used = match_seat(record, words)
        return account_of(seat), used

    async def deciding_account(self, channel_id: str) -> Account | None:
        """Whoever must decide now: the player asked to agree, else the acting player."""
        record = await self.store.active_game_in_channel(channel_id)
        if record is None or record.status is not GameStatus.RUNNING:
            return None
        try:
            ledger = await self.core.ledger(record.id)
            game = (await self.repo.load(record.id)).game
        except CorruptEvent:
            return None  # the command itself will be told why
        player = ledger.ask.consenter if ledger.ask else game.acting_player()
        seat = next((s for s in record.seats if s.player_id == player), None)
        return account_of(seat) if seat else None

    async def requesting_account(self, channel_id: str) -> Account | None:
        """The player whose deal is waiting for an answer, if any."""
        record = await self.store.active_game_in_channel(channel_id)
        if record is None or record.status is not GameStatus.RUNNING:
            return None
        ask = (await self.core.ledger(record.id)).ask
        seat = next((s for s in record.seats if ask and s.player_id == ask.requester), None)
        return account_of(seat) if seat else None

    async def called_company(self, channel_id: str) -> str | None:
        """The company the channel's game calls on now, or None (no game, or a player acts)."""
        try:
            _, game = await self.game_in(channel_id)
        except Refusal:  # no game here, or not started
            return None
        actor = game.actor()
        return actor if actor in game.state.companies else None

    async def typing_account(self, channel_id: str, verb: str) -> Account | None:
        """Whose seat ``verb``, typed bare at a shared keyboard (the console), is typed
        from, as the table says (:attr:`bot.commands.Verb.typist`): the player who must
        decide now, unless the verb is about a deal waiting (its requester), a move to take
        back (its mover) or an undo to restore (its undoer)."""
        typist = VERBS[verb].typist
        if typist == "keyboard":
            return None
        if typist in ("returning", "handing"):
            return await self._handing_account(channel_id, typist == "returning")
        if typist == "requester":  # with no deal waiting, the one deciding is told so
            return await self.requesting_account(channel_id) or await self.deciding_account(channel_id)
        record = await self.store.active_game_in_channel(channel_id)
        if typist in ("mover", "undoer") and record is not None and record.status is GameStatus.RUNNING:
            events = await self.store.events(record.id)
            made = effective_events(events) if typist == "mover" else undos_to_redo(events)
            seat = next((s for s in record.seats if made and s.player_id == made[-1].actor), None)
            if seat is not None:
                return account_of(seat)
        return await self.deciding_account(channel_id)

    async def _handing_account(self, channel_id: str, returning: bool) -> Account | None:
        """Whose seat a bare `I'm back` (``returning``) or `computer takes over` is typed
        from at the shared keyboard: the one player whom the computer plays for or who is
        away (`I'm back`); the player deciding now, else the one player who plays their own
        seat (`computer takes over`). Refused, naming them, when several could mean it."""
        record = await self.store.active_game_in_channel(channel_id)
        if record is None or record.status is not GameStatus.RUNNING:
            return None
        ledger = await self.core.ledger(record.id)
        played = computer_played(record, ledger)
        if returning:
            clock = await self.table_clock(record.id) if self.table_clock is not None else TableClock()
            now = self.core.clock()
            seats = [s for s in record.seats if s.player_id in ledger.computer or
                     clock.player(s.player_id).away_at(now) is not None]
            command, none = "I'm back", ("No player has handed their seat to the computer or is away: there is "
                                         "nothing to come back from.")
        else:
            deciding = await self.deciding_account(channel_id)
            seats = [s for s in record.seats if s.player_id not in played]
            if deciding is not None and any(account_of(s) == deciding for s in seats):
                return deciding
            command, none = "computer takes over", ("The computer plays every seat already"
                                                    + ("; `I'm back` gives one back." if ledger.computer else "."))
        if not seats:
            raise Refusal(none)
        if len(seats) > 1:
            raise Refusal(f"Whose seat? The keyboard types for every player: "
                          f"{' or '.join(f'`as {typed_name(s)} {command}`' for s in seats)}.")
        return account_of(seats[0])

    async def suggestions(self, channel_id: str, verb: str, current: str) -> list[str]:
        """Ways to complete ``verb``'s argument now, from the engine's candidate actions."""
        try:
            _, game = await self.game_in(channel_id)
        except Refusal:
            return []
        found: list[str] = []
        for action in legal_actions(game):
            try:
                word, _, rest = command(game, action).partition(" ")
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
        record = await self.core.channel_game(channel_id)
        if record.status is not GameStatus.RUNNING:
            raise Refusal("The game has not started yet.")
        try:
            return record, (await self.repo.load(record.id)).game
        except CorruptEvent as exc:
            raise Refusal(broken(exc)) from None

    @handles("games")
    async def games(self, command: Command) -> Reply:
        """`games`: the games the account has a seat in, across channels."""
        return Reply(await self._games(command.account))

    async def _games(self, account: Account) -> str:
        seated = [g for g in await self.store.list_games([GameStatus.SETTING_UP, GameStatus.RUNNING])
                  if any(s.discord_user_id == account.id for s in g.seats)]
        games = [g for g in seated if g.archived_at is None]
        archived = len(seated) - len(games)
        shelved = f"{counted(archived, 'archived game')} not shown (`unarchive` in its channel brings it back)" \
            if archived else ""
        if not games:
            return shelved or "You have no seat in a game being set up or played."
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
            ledger = await self.core.ledger(record.id)
            seat = next(s for s in record.seats if s.discord_user_id == account.id)
            mine = ledger.ask.consenter if ledger.ask else game.acting_player()
            turn = " — **your turn**" if mine == seat.player_id else ""
            lines.append(f"Game {record.id} in {where}: {round_title(game)}, {who_acts(game)} {doing(game)}{turn}")
        return "\n".join(lines + ([shelved] if shelved else []))

    @handles("web")
    async def web(self, command: Command) -> Reply:
        """`web`: the channel's game's web page; `web me`: the asker's own link to their games."""
        if links.base_url() is None:
            raise Refusal("The web page is off here: the operator serves it with `troika run --web HOST:PORT`.")
        words = command.rest.lower().split()
        if words == ["me"] and command.account.id == links.KEYBOARD:
            return Reply(direct=f"The console's games on the web, every seat (`as NAME web me`: one player's): "
                                f"{links.player_link(command.account.id)}")
        if words == ["me"]:
            return Reply(direct=f"Your games on the web (this link is yours: keep it to yourself): "
                                f"{links.player_link(command.account.id)}")
        if words:
            raise Refusal("Write it as `web` (this game's page) or `web me` (your games).")
        record = await self.core.channel_game(command.channel_id, finished=True)
        if record.status is GameStatus.SETTING_UP:
            return Reply(f"Game {record.id}'s web page opens when it starts: {links.game_link(record.id)}")
        return Reply(f"Game {record.id} on the web: {links.game_link(record.id)}")

    @handles("help")
    @staticmethod
    async def help(command: Command) -> Reply:
        """`help [COMMAND]`: the commands by kind, or how to use one."""
        return Reply(help_text(command.rest))

    @handles("status")
    async def status(self, record: GameRecord, rest: str) -> Reply:
        """`status`: round, phase, who acts and may do what, and for how long (or the set-up)."""
        if record.status is GameStatus.SETTING_UP:
            return self._being_set_up(record)
        game = await self._game(record)
        text = await self.status_of(record, game)
        link = links.game_link(record.id)
        return Reply(text + (f"\nWeb page: {link}" if link else ""))

    @handles("stats")
    async def stats(self, record: GameRecord, rest: str) -> Reply:
        """`stats`: each player's time to act, bank left and away days, from the log."""
        game = await self._game(record)
        return Reply(stats_text(record, await self.store.events(record.id), self.core.clock(), game.acting_player()))

    @handles("holdings")
    async def holdings(self, record: GameRecord, rest: str) -> Reply:
        """`holdings`: cash, shares, privates and trains as text."""
        return Reply(holdings_text(await self._game(record)))

    @handles("tiles")
    async def tiles(self, record: GameRecord, rest: str) -> Reply:
        """`tiles [HEX]`: where the acting company may lay track; for a hex, a picture of its choices."""
        game = await self._game(record)
        text = tiles_text(game, rest)
        focus = rest.strip().upper()
        sheet = ["tiles"] if focus in track_options(game) else ["map"]  # else the hex as it is
        pictures = await render_pictures(game, sheet, highlight=focus, focus=focus) \
            if focus and self.core.pictures else []
        return Reply(text, pictures)

    @handles("log")
    async def log(self, record: GameRecord, rest: str) -> Reply:
        """`log [COUNT] | log page N` (or the set-up, before the game starts)."""
        if record.status is GameStatus.SETTING_UP:
            return self._being_set_up(record)
        await self._game(record)
        return Reply(await self._log(record, rest))

    @handles("export")
    async def export(self, record: GameRecord, rest: str) -> Reply:
        """`export`: the game as an 18xx.games log, attached."""
        await self._game(record)
        return await self._export(record)

    @handles("map")
    async def map(self, record: GameRecord, rest: str) -> Reply:
        """`map [HEX]`: the map, or a close-up around the hex."""
        return await self._picture(record, "map", rest)

    @handles("market")
    async def market(self, record: GameRecord, rest: str) -> Reply:
        """`market`: the stock market."""
        return await self._picture(record, "market", rest)

    @handles("table")
    async def table(self, record: GameRecord, rest: str) -> Reply:
        """`table`: players, companies, privates, trains and phase."""
        return await self._picture(record, "table", rest)

    async def _picture(self, record: GameRecord, sheet: str, rest: str) -> Reply:
        game = await self._game(record)
        focus = rest.strip().upper() or None
        if focus is not None and focus not in game.ctx.board.hexes:
            raise Refusal(f"There is no hex {shown(focus)} on the map.")
        pictures = await render_pictures(game, [sheet], highlight=focus, focus=focus)
        return Reply(f"{round_title(game)} · phase {game.state.phase}", pictures)

    async def _game(self, record: GameRecord) -> Game:
        """The game to look at; refused while it is being set up."""
        if record.status is GameStatus.SETTING_UP:
            raise Refusal("The game has not started yet.")
        game: Game = (await self.repo.load(record.id)).game
        return game

    @staticmethod
    def _being_set_up(record: GameRecord) -> Reply:
        seated = ", ".join(s.display_name + (" (commissioner)" if s.commissioner else "") for s in record.seats)
        return Reply(f"Game {record.id} is being set up ({setup_words(record.title, record_rules(record))}). "
                     f"Seated: {seated}. `join` to play; the commissioner types `start`.")

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
        moves = numbered(events)
        effects, typed = await asyncio.to_thread(self._effects, record, events)  # a whole replay: off the loop
        shown = [(i, e) for i, e in enumerate(events) if log_line(record, e, moves, [])]
        pages: list[list[str]] = [[]]
        room = REPLY_LIMIT - 80  # for the note about earlier lines
        for i, event in reversed(shown):
            if len(pages) == page and count is not None and len(pages[-1]) == count:
                break
            line = "\n".join([self._log_line(record, events, i, moves, typed.get(event.seq)),
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
    def _log_line(record: GameRecord, events: list[Any], i: int, moves: Moves, typed: str | None) -> str:
        event = events[i]
        moved = []
        if event.kind in (EventKind.UNDO, EventKind.REDO):
            before = {e.seq: e for e in effective_events(events[:i])}
            after = {e.seq: e for e in effective_events(events[: i + 1])}
            moved = [before[s] for s in sorted(set(before) - set(after))] or \
                    [after[s] for s in sorted(set(after) - set(before))]
        return log_line(record, event, moves, moved, typed) or ""

    def _effects(self, record: GameRecord, events: list[Event]) -> tuple[dict[int, list[str]], dict[int, str]]:
        """What each effective action did, as the engine's log lines, and the command
        that makes it where it was made (a lay's `loan` included), as a player retypes
        it: the game replayed."""
        game = self.core.engine.new_game(record)
        effects, typed = {}, {}
        for event in effective_events(events):
            action = action_from_dict(event.action)
            typed[event.seq] = command(game, action)
            effects[event.seq] = self.core.engine.apply(game, action, replaying=True)
        return effects, typed

    async def _export(self, record: GameRecord) -> Reply:
        """The game as an 18xx.games log, attached (a whole replay: off the loop)."""
        events = await self.store.events(record.id)
        export = await asyncio.to_thread(site_export, record, events)
        text = f"Game {record.id} as an 18xx.games log: {counted(export.actions, 'action')}."
        if export.warning:
            text += f" ⚠ {export.warning}."
        data = json.dumps(export.log, ensure_ascii=False).encode("utf-8")
        return Reply(text, files=[Attachment(export_name(record), data)])
