"""Computer players at the table: seats the computer plays, hand-overs, and `hint`.

A seat is the computer's when its account is a computer's (``computer-N``: seated by
``new ... computer``, or given by the commissioner, ``replace Boris computer``), or while
its player has handed it over (``computer takes over`` until ``I'm back``: admin events
``{"type": "computer", "player": ID, "on": true|false}``, :mod:`bot.ledger`). After every
command the computer moves for each such seat that is to act, its moves posted like
anyone's, marked as the computer's with its reason (:func:`engine.computer.decide`).
:meth:`ComputerSeats.move_for` is the one hand-over: what any policy that lets the
computer move for a seat (an absent player's time-out) calls.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace

from engine import Decision, Game, action_from_dict, answer_deal, as_listed, command, decide
from storage import GameRecord, GameStatus, Seat

from .clock import COMPUTER_MOVED
from .commands import VERBS, Parsed, split
from .core import Core, Feature, Reply, code_span, handles, seat_of
from .errors import NoGame, NotAllowed, Refusal
from .ledger import Ledger
from .posts import next_line
from .turns import Turns

PLAYED = COMPUTER_MOVED
"""The note on each move the computer makes for a seat."""

log = logging.getLogger("troika.computer")

COMPUTER = "computer"
"""The word for the computer player, where a person's name or account would go."""

MOST_MOVES = 25
"""Moves the computer makes after one command, at most (some seconds, well within a worker's
call time); the service's periodic pass (reminders) lets it go on."""


def computer_account(seat: int) -> str:
    """The account of the computer in seat ``seat`` (0-based)."""
    return f"{COMPUTER}-{seat + 1}"


def is_computer_seat(seat: Seat) -> bool:
    """The seat's account is a computer's."""
    return (seat.discord_user_id or "").startswith(f"{COMPUTER}-")


def handed_by_commissioner(seat: Seat) -> str:
    """What its player is told of a seat the commissioner gave the computer (`replace NAME
    computer`: the seat keeps its player's id), else nothing."""
    if not is_computer_seat(seat) or seat.player_id == seat.discord_user_id:
        return ""
    name = seat.display_name
    return (f"The commissioner handed {name}'s seat to the computer: only the commissioner gives it back "
            f"(`replace computer @{name}`).")


def computer_played(record: GameRecord, ledger: Ledger) -> set[str]:
    """The players whose seats the computer plays now."""
    return {s.player_id for s in record.seats if ComputerSeats.plays(s, ledger)}


def computer_seats(names: list[str]) -> list[tuple[str, str]]:
    """Players as (id, name) for names typed at `new`, each ``computer`` a computer's
    seat (``computer-N``, named "Computer N")."""
    players: list[tuple[str, str]] = []
    for i, name in enumerate(names):
        if name.lower() == COMPUTER:
            players.append((computer_account(i), f"Computer {sum(n.lower() == COMPUTER for n in names[:i + 1])}"))
        else:
            players.append((name, name))
    return players


class ComputerSeats(Feature):
    """The computer's moves for its seats, the hand-over and back, and `hint`."""

    def __init__(self, core: Core, turns: Turns) -> None:
        super().__init__(core)
        self.turns = turns

    @staticmethod
    def plays(seat: Seat, ledger: Ledger) -> bool:
        """The computer plays ``seat`` now."""
        return is_computer_seat(seat) or seat.player_id in ledger.computer

    async def catch_up(self, channel_id: str, most: int | None = None) -> int:
        """The computer moves for its seats while one of them is to act (not while the
        game is paused or waits for a consent), at most ``most`` moves (else
        :data:`MOST_MOVES`); how many moves it made."""
        most = MOST_MOVES if most is None else most
        for made in range(most):
            try:
                record = await self.core.channel_game(channel_id)
            except NoGame:
                return made
            if record.status is not GameStatus.RUNNING or not await self.move_for(record):
                return made
        return most

    async def move_for(self, record: GameRecord, player: str | None = None) -> bool:
        """One move by the computer for the seat to act if the computer plays it (or it is
        ``player``'s, whoever plays it: a hand-over policy's call); whether it moved."""
        live = await self.repo.load(record.id)
        game = live.game
        ledger = await self.core.ledger(record.id, live.seq)
        if game.state.finished or ledger.paused is not None:
            return False
        if ledger.ask is not None:
            return await self._answer_deal(record, live.seq, game, ledger)
        acting = game.acting_player()
        if acting is None:
            return False
        seat = seat_of(record, acting)
        if player != acting and not (player is None and self.plays(seat, ledger)):
            return False
        decision = await asyncio.to_thread(decide, game, seat_seed(record, seat))
        words = decision.words(game)
        try:
            parsed = _read(game, acting, words, decision)
            await self.turns.apply(record, live.seq, game, seat, parsed, words, PLAYED,
                                   reason=decision.reason)
        except Refusal as exc:  # the engine's own move refused: a bug to see in the log, not a stall
            log.error("game %s: the computer's %r was refused: %s", record.id, words, exc)
            return False
        return True

    async def _answer_deal(self, record: GameRecord, seq: int, game: Game, ledger: Ledger) -> bool:
        """A deal asked of a seat the computer plays (8.11, 8.12, 9.2: the owner's consent)
        is answered at once, so the table is not left waiting: agreed when it leaves the
        seat further ahead than no deal (:func:`engine.answer_deal`), else refused, with the
        reason. Whether it answered."""
        ask = ledger.ask
        if ask is None or not self.plays(consenter := seat_of(record, ask.consenter), ledger):
            return False
        deal = action_from_dict(ask.action)
        answer = await asyncio.to_thread(answer_deal, game, deal, ask.consenter)
        if answer.agrees:  # the asker's move, agreed to
            note = f"agreed by {consenter.display_name}, whose seat the computer plays: {answer.reason}"
            await self.turns.apply(record, seq, game, seat_of(record, ask.requester), Parsed(deal), ask.command, note)
            return True
        text = (f"🤖 **{consenter.display_name}** refuses {code_span(ask.command)} _({answer.reason}; "
                "played by the computer)_.")
        post = {"kind": "note", "seq": seq + 1, "text": text, "next": next_line(game), "mention": ask.requester}
        await self.repo.record_admin(record.id, seq, {"type": "answer", "answer": "refused"}, consenter.player_id,
                                     note=PLAYED, outbox=[post])
        return True

    @handles("computer")
    async def take_over(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`computer takes over`: the computer plays the player's seat until `I'm back`."""
        if rest.strip().lower() not in ("takes over", "take over", "play", ""):
            raise Refusal("Write it as `computer takes over` (then `I'm back` to play again).")
        await self._hand(record, seat, True, f"🤖 The computer plays **{seat.display_name}**'s seat until "
                                             f"they type `I'm back`.")
        return Reply()

    async def back(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`I'm back` (by way of :meth:`bot.timekeeping.Timekeeper.back`): the player plays their own seat again."""
        await self._hand(record, seat, False, f"**{seat.display_name}** is back and plays their own seat.")
        return Reply()

    async def _hand(self, record: GameRecord, seat: Seat, on: bool, text: str) -> None:
        handed = handed_by_commissioner(seat)
        if handed:
            raise NotAllowed(handed)
        if is_computer_seat(seat):
            raise NotAllowed("This seat is the computer's; the commissioner gives it to a person with "
                             "`replace computer @ACCOUNT`.")
        live = await self.repo.load(record.id)
        ledger = await self.core.ledger(record.id, live.seq)
        if (seat.player_id in ledger.computer) == on:
            raise Refusal("The computer already plays your seat: `I'm back` takes it back." if on else
                          "You play your own seat already; `computer takes over` hands it to the computer.")
        post = {"kind": "note", "seq": live.seq + 1, "text": text, "next": next_line(live.game),
                "mention": None if on else live.game.acting_player()}
        await self.repo.record_admin(record.id, live.seq, {"type": COMPUTER, "player": seat.player_id, "on": on},
                                     seat.player_id, outbox=[post])

    @handles("hint")
    async def hint(self, record: GameRecord, seat: Seat, rest: str, proxy: Seat | None) -> Reply:
        """`hint`: what the computer would do in the player's place now (a deal asked of
        them: `agree` or `refuse`), and why; it never acts."""
        live = await self.repo.load(record.id)
        game = live.game
        if game.state.finished:
            raise Refusal("The game is over.")
        ask = (await self.core.ledger(record.id, live.seq)).ask
        if ask is not None and ask.consenter == seat.player_id:
            answer = await asyncio.to_thread(answer_deal, game, action_from_dict(ask.action), ask.consenter)
            return Reply(f"💡 The computer would `{'agree' if answer.agrees else 'refuse'}` to "
                         f"{code_span(ask.command)}: {answer.reason}.")
        if game.acting_player() != seat.player_id:
            raise NotAllowed("It is not your turn: a hint is for the move you are to make.")
        decision = await asyncio.to_thread(decide, game, seat_seed(record, seat))
        words = command(game, as_listed(game, decision.action))  # a lay's rotation as `tiles` lists it
        return Reply(f"💡 The computer would {code_span(words)}: {decision.reason}.")


def seat_seed(record: GameRecord, seat: Seat) -> int:
    """The seed the computer plays ``seat`` with: the game's and the seat's own, so that
    computer seats break ties each their own way (with one seed for all, four computer
    seats passed every stock round of an 1861 opening, checker of issue 37)."""
    return record.seed * 8 + seat.seat


def _read(game: Game, player: str, words: str, decision: Decision) -> Parsed:
    """The computer's move read back from its command words, as a player's would be (so
    its post shows the same detail, such as the routes run); its own action if the words
    do not read back to it."""
    verb, rest = split(words)
    try:
        parsed = VERBS[verb].reader(game, player, verb, rest)
    except Refusal:
        return Parsed(decision.action)
    if parsed.action != decision.action and parsed.action.kind != "run_routes":
        return Parsed(decision.action)
    return parsed


def give_to_computer(seats: Sequence[Seat], seat: Seat) -> list[Seat]:
    """The seats with ``seat`` given to the computer (its name kept)."""
    return [replace(s, discord_user_id=computer_account(s.seat)) if s.seat == seat.seat else s for s in seats]
