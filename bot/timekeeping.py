"""The table's clock as commands: `pace`, `bank`, `away-limit`, `on-timeout` (the
commissioner's), `away`, `back`, `quiet`, `tz` (each player's own), the clock's lines
in `status`, quiet hours that hold reminders back, and the time-outs the periodic
reminder pass applies (:meth:`Timekeeper.enforce`). The rules are :mod:`bot.clock`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from engine import Action, Choose, DiscardTrain, Dividend, Game, Pass, RemoveToken, RunRoutes, command, legal_actions
from storage import GameRecord, GameStatus, Seat

from .clock import (
    AWAY_LIMIT_RANGE,
    BANK_RANGE,
    DAY,
    PACE_RANGE,
    POLICIES,
    TIMED_OUT,
    TableClock,
    read_duration,
    read_quiet,
    read_zone,
    shown_duration,
)
from .commands import Parsed
from .computer_seats import COMPUTER, ComputerSeats
from .core import Core, Feature, Reply, code_span, handles, seat_of
from .errors import Refusal
from .ledger import Ask
from .posts import next_line, player_name
from .turns import Turns

log = logging.getLogger("troika.clock")

AWAY_MOST = 365 * DAY
"""The longest `away` anyone may type (the game's away limit is usually far less)."""


class Timekeeper(Feature):
    """Pace, banks, holidays and quiet hours; the time-outs."""

    def __init__(self, core: Core, turns: Turns, computer: ComputerSeats) -> None:
        super().__init__(core)
        self.turns = turns
        self.computer = computer
        self._clocks: dict[int, TableClock] = {}

    async def table_clock(self, game_id: int) -> TableClock:
        """The game's clock, folded up to its last event."""
        clock = self._clocks.get(game_id)
        if clock is None:
            record = await self.store.get_game(game_id)
            chosen = record.options.get("on_timeout")  # at `new`
            clock = self._clocks[game_id] = TableClock.of(record, chosen if chosen in POLICIES else "wait")
        if clock.seq < await self.store.last_seq(game_id):
            clock.fold(await self.store.events(game_id, after_seq=clock.seq))
        return clock

    # --- the commissioner's settings ---------------------------------------------------

    @handles("pace")
    async def pace(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        """`pace 24h|off`: the time each decision may take before the bank is used. A new
        pace applies from now (:meth:`bot.clock.TableClock._pace_changed`); the pace it is
        already changes nothing and is refused."""
        clock = await self.table_clock(record.id)
        off = rest.strip().lower() in ("off", "none")
        seconds = None if off else read_duration(rest, "pace", *PACE_RANGE)
        if seconds == clock.pace:
            raise Refusal(f"The pace is {shown_duration(seconds)} already; nothing changed." if seconds
                          else "There is no pace already; nothing changed.")
        if seconds is None:
            return await self._setting(record, commissioner, {"pace": None}, "⏱ No pace: decisions take as long "
                                       "as they take, and no bank is used.")
        bank = clock.bank if clock.bank is not None else 3 * seconds
        return await self._setting(record, commissioner, {"pace": seconds},
                                   f"⏱ Pace: {shown_duration(seconds)} per decision; beyond it each player "
                                   f"spends from a bank of {shown_duration(bank)} (`status` shows what is left).")

    @handles("bank")
    async def bank(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        """`bank 3d`: each player's time bank (by default three paces)."""
        seconds = read_duration(rest, "bank", *BANK_RANGE)
        return await self._setting(record, commissioner, {"bank": seconds},
                                   f"⏱ Each player's bank holds {shown_duration(seconds)}.")

    @handles("away-limit")
    async def away_limit(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        """`away-limit 14d`: how long a player may be away in this game, all told."""
        seconds = read_duration(rest, "away limit", *AWAY_LIMIT_RANGE)
        return await self._setting(record, commissioner, {"away_limit": seconds},
                                   f"⏱ Each player may be away {shown_duration(seconds)} in this game.")

    @handles("on-timeout")
    async def on_timeout(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        """`on-timeout wait|computer|pass`: what happens when a player's bank runs out."""
        policy = rest.strip().lower()
        if policy not in POLICIES:
            raise Refusal("Write it as `on-timeout wait` (the commissioner is told), `on-timeout computer` "
                          "(the computer plays the seat until its player is back) or `on-timeout pass`.")
        told = {"wait": "the commissioner is told", "computer": "the computer plays the seat until its "
                "player types `back`", "pass": "the safe move is made for them (a pass, a withhold; never one "
                "that spends their money)"}[policy]
        return await self._setting(record, commissioner, {"on_timeout": policy},
                                   f"⏱ When a player's bank runs out, {told}.")

    async def _setting(self, record: GameRecord, seat: Seat, data: dict[str, Any], text: str) -> Reply:
        return await self._record(record, seat, {"type": "clock", **data}, text)

    # --- each player's own --------------------------------------------------------------

    @handles("away")
    async def away(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`away 5d`: the player's clock stops for that long (within the game's away limit)."""
        seconds = read_duration(rest, "time away", 60 * 60, AWAY_MOST)
        clock = await self.table_clock(record.id)
        left = clock.away_left(seat.player_id)
        if seconds > left:  # what is left is said rounded down, so what it says fits does
            fits = f"`away {int(left // DAY)}d` fits" if left >= DAY else f"`away {int(left // 3600)}h` fits" \
                if left >= 3600 else "the shortest `away` is 1h"
            raise Refusal(f"You may be away {shown_duration(left // 60 * 60)} more in this game (the limit is "
                          f"{shown_duration(clock.away_limit)}); {fits}.")
        if clock.player(seat.player_id).away_at(self.core.clock()) is not None:
            raise Refusal("You are away already: `back` ends it, then `away` again.")
        until = self.core.clock() + timedelta(seconds=seconds)
        return await self._record(record, seat, {"type": "away", "player": seat.player_id, "seconds": seconds},
                                  f"🏖 **{seat.display_name}** is away for {shown_duration(seconds)}, until "
                                  f"{self._when(until)}: their clock stands still. `back` ends it early.")

    @handles("back")
    async def back(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`back` (or `I'm back`): an away stretch ends now; a seat the computer plays comes back."""
        clock = await self.table_clock(record.id)
        ledger = await self.core.ledger(record.id)
        if ComputerSeats.plays(seat, ledger):
            return await self.computer.back(record, seat, rest, proxy)
        if clock.player(seat.player_id).away_at(self.core.clock()) is None:
            raise Refusal("You are neither away nor played by the computer: there is nothing to come back from.")
        return await self._record(record, seat, {"type": "back", "player": seat.player_id},
                                  f"**{seat.display_name}** is back; their clock runs again.")

    @handles("quiet")
    async def quiet(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`quiet 23:00-08:00|off`: hours in the player's own zone with no reminders and no clock."""
        quiet = read_quiet(rest)
        zone = (await self.table_clock(record.id)).player(seat.player_id).zone
        text = (f"🌙 **{seat.display_name}** is quiet {rest.strip()} ({zone}): no reminders then, and the clock "
                "stands still." if quiet else f"🌙 **{seat.display_name}** has no quiet hours.")
        return await self._record(record, seat, {"type": "clock", "player": seat.player_id,
                                                 "quiet": list(quiet) if quiet else None}, text)

    @handles("tz")
    async def tz(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`tz Europe/Amsterdam`: the zone the player's quiet hours are in."""
        zone = read_zone(rest)
        return await self._record(record, seat, {"type": "clock", "player": seat.player_id, "zone": zone},
                                  f"🌍 **{seat.display_name}**'s time zone: {zone}.")

    async def _record(self, record: GameRecord, seat: Seat, data: dict[str, Any], text: str) -> Reply:
        """Store a clock event of ``seat``'s and post ``text``, the table told."""
        if record.status is not GameStatus.RUNNING:
            raise Refusal("The game has not started yet.")
        live = await self.repo.load(record.id)
        post = {"kind": "note", "seq": live.seq + 1, "text": text, "next": next_line(live.game), "mention": None}
        await self.repo.record_admin(record.id, live.seq, data, seat.player_id, outbox=[post])
        return Reply()

    # --- what others see ------------------------------------------------------------------

    def _when(self, moment: datetime) -> str:
        """A moment as each reader sees it: a Discord timestamp, or UTC at the console."""
        if self.core.timestamps:
            return f"<t:{int(moment.timestamp())}:R>"
        return moment.strftime("%Y-%m-%d %H:%M UTC")

    async def status_lines(self, record: GameRecord, game: Game) -> str:
        """`status`'s clock lines: whose clock runs and since when, banks left, who is away."""
        clock = await self.table_clock(record.id)
        chosen = "on_timeout" in record.options or clock.on_timeout != "wait"
        if not clock.pace and not chosen and not any(c.away for c in clock.players.values()):
            return ""
        now = self.core.clock()
        acting = clock.running(game.acting_player())
        lines = []
        if acting is not None and (start := clock.counting(acting)) is not None and not game.state.finished:
            stopped = self._why_stopped(clock, acting, now)
            lines.append(f"Clock: {player_name(game, acting)}'s runs since {self._when(start)}" + stopped)
        if clock.pace:
            banks = ", ".join(f"{s.display_name} {shown_duration(clock.bank_left(s.player_id, now, acting))}"
                              for s in record.seats)
            lines.append(f"Pace {shown_duration(clock.pace)} per decision · banks left: {banks} · "
                         f"on time-out: {clock.on_timeout}")
        elif chosen:
            lines.append(f"No pace yet (the commissioner's `pace 24h` sets one) · on time-out: {clock.on_timeout}")
        for seat in record.seats:
            stretch = clock.player(seat.player_id).away_at(now)
            if stretch is not None:
                lines.append(f"{seat.display_name} is away until {self._when(stretch[1])}")
        return "\n".join(lines)

    @staticmethod
    def _why_stopped(clock: TableClock, player: str, now: datetime) -> str:
        mine = clock.player(player)
        if mine.away_at(now) is not None:
            return " (stopped: away)"
        return " (stopped: quiet hours)" if mine.quiet_at(now) else ""

    async def holds_reminder(self, record: GameRecord, player: str | None, now: datetime) -> bool:
        """Whether a reminder for ``player`` waits: they are away or in their quiet hours."""
        if player is None:
            return False
        mine = (await self.table_clock(record.id)).player(player)
        return mine.quiet_at(now) or mine.away_at(now) is not None

    async def waited(self, record: GameRecord, player: str | None, now: datetime) -> tuple[datetime, float] | None:
        """Since when ``player``'s open decision counts (the start `status` shows) and the
        seconds it has waited since, time away left out (quiet hours only hold a reminder
        back): reminders count these."""
        if player is None:
            return None
        clock = await self.table_clock(record.id)
        start = clock.counting(player)
        return None if start is None else (start, clock.counted(player, start, now, quiet=False))

    # --- time-outs ------------------------------------------------------------------------

    async def enforce(self, game_ids: Collection[int] | None = None, now: datetime | None = None) -> None:
        """Apply the table's `on-timeout` policy wherever the acting player's bank has run
        out on the open decision (each decision once); called by the reminder pass."""
        now = now or self.core.clock()
        for record in await self.store.list_games([GameStatus.RUNNING]):
            if (game_ids is not None and record.id not in game_ids) or not self.core.owns(record):
                continue
            try:
                async with self.core.lock(record.channel_id or f"game {record.id}"):
                    await self.core.retrying(partial(self._time_out, record, now))
            except Exception as exc:  # that game's trouble; the other games' clocks still run
                log.warning("no time-outs for game %s: %s", record.id, exc)

    async def _time_out(self, record: GameRecord, now: datetime) -> None:
        clock = await self.table_clock(record.id)
        if not clock.pace:  # no pace, no time-outs: the game is not even loaded
            return
        live = await self.repo.load(record.id)
        game = live.game
        ledger = await self.core.ledger(record.id, live.seq)
        if game.state.finished or ledger.paused is not None:
            return
        if ledger.ask is not None:
            consenter = ledger.ask.consenter
            if clock.timed_out_now(consenter, now):  # a computer-played seat refuses at once (ComputerSeats)
                await self._refuse_for(record, live.seq, game, seat_of(record, consenter), ledger.ask)
            return
        player = game.acting_player()
        if player is None:
            return
        if player in ledger.computer or not clock.timed_out_now(player, now):
            return
        seat = seat_of(record, player)
        policy = clock.on_timeout
        move = safe_move(game) if policy == "pass" else None
        if policy == "computer":
            await self._hand_to_computer(record, live.seq, game, seat, clock.position)
            await self.computer.move_for(record, player)
        elif move is not None:
            await self.turns.apply(record, live.seq, game, seat, Parsed(move), command(game, move),
                                   f"{TIMED_OUT}: the safe move made for them")
        else:
            await self._tell_commissioner(record, live.seq, game, seat, clock.position, policy)

    async def _refuse_for(self, record: GameRecord, seq: int, game: Game, seat: Seat, ask: Ask) -> None:
        """A request waiting for a player whose time ran out is refused for them: a
        refusal keeps what is theirs and spends nothing."""
        text = f"⌛ **{seat.display_name}** refuses {code_span(ask.command)} _({TIMED_OUT}: refused for them)_."
        post = {"kind": "note", "seq": seq + 1, "text": text, "next": next_line(game), "mention": ask.requester}
        await self.repo.record_admin(record.id, seq, {"type": "answer", "answer": "refused"}, seat.player_id,
                                     note=TIMED_OUT, outbox=[post])

    async def _hand_to_computer(self, record: GameRecord, seq: int, game: Game, seat: Seat, position: int) -> None:
        text = (f"⌛ **{seat.display_name}**'s time bank ran out: the computer plays their seat until they "
                "type `back`. The commissioner may `undo` its moves.")
        post = {"kind": "note", "seq": seq + 1, "text": text, "next": next_line(game), "mention": None}
        await self.repo.record_admin(record.id, seq, {"type": COMPUTER, "player": seat.player_id, "on": True,
                                                      "timeout": True, "position": position}, None, outbox=[post])

    async def _tell_commissioner(
        self, record: GameRecord, seq: int, game: Game, seat: Seat, position: int, policy: str
    ) -> None:
        commissioner = next(s for s in record.seats if s.commissioner)
        why = "" if policy == "wait" else " There is no safe move to make for them here."
        text = (f"⌛ **{seat.display_name}**'s time bank ran out on this decision.{why} The commissioner may act "
                f"for them (`as {seat.display_name} ...`) or wait.")
        post = {"kind": "note", "seq": seq + 1, "text": text, "next": next_line(game),
                "mention": commissioner.player_id}
        await self.repo.record_admin(record.id, seq, {"type": "timeout", "player": seat.player_id,
                                                      "position": position, "policy": policy}, None, outbox=[post])


SAFE_MOVES: tuple[type[Action], ...] = (Dividend, Pass, RunRoutes, DiscardTrain, RemoveToken)
"""The kinds of move a time-out may make, in the order preferred: none spends a player's own money."""


def safe_move(game: Game) -> Action | None:
    """The safe default move now, if one exists (`on-timeout pass`): withhold, a pass (in
    a stock round, an auction, a track or token step; no purchase), nationalising a
    trainless major rather than keeping it (10), the best run, a forced discard or token
    removal. None where every move would spend (a train the company must buy)."""
    moves = legal_actions(game)
    if game.state.trainless_majors:
        return next((m for m in moves if isinstance(m, Choose) and m.choice == "nationalize"), None)
    for kind in SAFE_MOVES:
        for move in moves:
            if isinstance(move, kind) and (not isinstance(move, Dividend) or move.choice == "withhold"):
                return move
    return None
