"""The commissioner's commands: `as`, `replace` / `seat`, `pause`, `resume`, `end`,
`remind` (and every player's `remind me`)."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from engine import EndGame
from storage import CorruptEvent, EventKind, GameRecord, GameStatus, NewEvent, Seat, StoreError

from .commands import Parsed, split
from .computer_seats import COMPUTER, give_to_computer, is_computer_seat
from .core import Account, Core, Feature, Reply, code_span, handles, match_seat, seated_name, unquoted
from .errors import Refusal
from .posts import next_line
from .turns import Turns

REMIND_HOURS = (1, 720)
DISCORD_MENTION = re.compile(r"<@!?[0-9]+>")


class Commissioner(Feature):
    """What the commissioner decides for the table."""

    def __init__(self, core: Core, turns: Turns) -> None:
        super().__init__(core)
        self.turns = turns

    @handles("as")
    async def act_for(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        seat, used = match_seat(record, rest.split())
        command = " ".join(rest.split()[used:])
        if not command:
            raise Refusal(f"Write the command to enter for {seat.display_name}: `as {seat.display_name} pass`.")
        verb, args = split(command)
        if verb == "as":
            raise Refusal(f"One `as` at a time: `as {seat.display_name} {args or 'pass'}`.")
        return await self.turns.as_seat(record, seat, verb, args, commissioner)

    @handles("replace", "seat")
    async def replace_typed(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        """`replace PLAYER @ACCOUNT` (or `seat`) as typed: the account as its mention."""
        name, _, new = rest.rpartition(" ")
        if new.lower() == COMPUTER:
            return await self.replace(record, commissioner, unquoted(name), Account(COMPUTER, COMPUTER))
        if DISCORD_MENTION.fullmatch(new):  # an account is resolved by the frontend, not read here
            raise Refusal("Write it as `replace PLAYER @ACCOUNT`, mentioning the new player.")
        return await self.replace(record, commissioner, unquoted(name), Account(new, new.lstrip("@") or new))

    async def replace(self, record: GameRecord, commissioner: Seat, player: str, new: Account) -> Reply:
        """The commissioner gives ``player``'s seat to the account ``new``: to the computer
        if ``new`` is ``computer`` (the seat keeps its name); ``player`` ``computer`` is
        the seat the computer plays, if it plays one."""
        seat, used = _computer_seat(record, new) if player.lower() == COMPUTER else match_seat(record, player.split())
        if used != len(player.split()):
            raise Refusal("Write it as `replace PLAYER @ACCOUNT`.")
        if new.id == COMPUTER:
            if is_computer_seat(seat):
                raise Refusal(f"The computer plays {seat.display_name}'s seat already.")
            await self.repo.change_seats(record.id, lambda current: give_to_computer(current.seats, seat),
                                         commissioner.player_id, note=f"the computer replaces {seat.display_name}")
            return Reply(f"🤖 The computer takes {seat.display_name}'s seat.")
        name = seated_name(new)

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

    @handles("pause")
    async def pause(self, record: GameRecord, commissioner: Seat, reason: str) -> Reply:
        return await self._admin_post(record, commissioner, {"type": "pause"}, reason.strip(),
                                      f"⏸ **{commissioner.display_name}** pauses the game" +
                                      (f": {code_span(reason.strip())}" if reason.strip() else ""))

    @handles("resume")
    async def resume(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        return await self._admin_post(record, commissioner, {"type": "resume"}, None,
                                      f"▶ **{commissioner.display_name}** resumes the game", mention=True)

    @handles("end")
    async def end(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        word, _, reason = rest.strip().partition(" ")
        if word.lower() not in ("confirm", "yes"):
            what = "cancels the game being set up" if record.status is GameStatus.SETTING_UP else \
                "ends the game now and scores it as it stands (only an `undo` right after takes it back)"
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
        await self.turns.apply(record, live.seq, live.game, commissioner, parsed, "end",
                          None if reason.strip() else "ended by the commissioner", reason=reason)
        return Reply()

    async def _abandon_broken(
        self, record: GameRecord, commissioner: Seat, reason: str, problem: CorruptEvent
    ) -> Reply:
        """End a game that cannot be loaded: logged as an admin event (its log is not
        read), and the channel is free for another."""
        await self._abandon(record, str(problem), commissioner.player_id, reason.strip() or None)
        return Reply(f"Game {record.id} is ended: it could not be loaded ({problem.reason}). "
                     "The channel is free for a `new` game.")

    async def _abandon(self, record: GameRecord, problem: str, actor: str | None, note: str | None) -> None:
        seq = await self.store.last_seq(record.id)
        event = NewEvent({"type": "abandon", "problem": problem}, EventKind.ADMIN, actor, note)
        await self.store.append(record.id, seq, event, status=GameStatus.ABANDONED)

    async def channel_deleted(self, channel_id: str) -> int | None:
        """The game set up or played in a channel that was deleted is abandoned (a running
        one with an admin event saying why), so no list shows it as going on; its number."""

        async def attempt() -> int | None:
            record = await self.store.active_game_in_channel(channel_id)
            if record is None:
                return None
            if record.status is GameStatus.SETTING_UP:
                await self.store.set_status(record.id, GameStatus.ABANDONED)
            else:
                await self._abandon(record, "its channel was deleted", None, None)
            return record.id

        async with self.core.lock(channel_id):
            return await self.core.retrying(attempt)

    @handles("remind")
    async def remind(self, record: GameRecord, commissioner: Seat, rest: str) -> Reply:
        hours = _hours(rest)
        text = (f"⏰ Reminders: a player is reminded after {hours:g} h, the channel told after {2 * hours:g} h."
                if hours else "⏰ No more reminders.")
        return await self._admin_post(record, commissioner, {"type": "settings", "remind_hours": hours}, None, text)

    async def remind_me(self, record: GameRecord, seat: Seat, rest: str) -> Reply:
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


def _computer_seat(record: GameRecord, new: Account) -> tuple[Seat, int]:
    """The seat the computer plays that ``replace computer @ACCOUNT`` gives back, as
    :func:`bot.core.match_seat` answers: the one it plays under the new player's name
    (their own seat, handed over before), else the only one it plays."""
    seats = [s for s in record.seats if is_computer_seat(s)]
    theirs = [s for s in seats if s.display_name.lower() == seated_name(new).lower()]
    if len(theirs) == 1 or len(seats) == 1:
        return (theirs or seats)[0], 1
    if not seats:
        raise Refusal("The computer plays no seat here (by `replace`): name the seat to give, "
                      "`replace PLAYER @ACCOUNT`.")
    named = ", ".join(s.display_name for s in seats)
    raise Refusal(f"The computer plays {named}: name the seat to give back, as `status` shows it, "
                  f"`replace \"{seats[0].display_name}\" @ACCOUNT`.")


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
