"""What the bot reads from a game's log besides the game itself.

The bot keeps nothing of its own outside the store: its settings and requests are
admin events in the game's log (they never reach the engine and are never undone),
and :class:`Ledger` folds them, with the times of the game's actions, into what the
bot needs: the reminder setting, a pause, the open request for consent, reminders
already sent, the pinned status message, and how long each player takes to act.

Admin events (``{"type": ...}``): ``start``; ``settings`` (``remind_hours``, and
``player`` when a player sets their own);
``pause`` / ``resume`` (reason in the note); ``ask`` (``consenter``, ``action``,
``command``; the requester is the event's actor); ``answer`` (``answer``: refused or
withdrawn); ``reminder`` (``stage``, ``position``); ``status_message`` (``message_id``);
``computer`` (``player``, ``on``: the computer plays that player's seat, :mod:`bot.computer_seats`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from storage import Event, EventKind

from .clock import starts_a_decision


@dataclass(frozen=True)
class Ask:
    """A request for a player's consent, open until answered or the game moves on."""

    seq: int
    requester: str
    consenter: str
    action: dict[str, Any]
    command: str


@dataclass
class Ledger:
    """The fold of a game's events, kept up to date with :meth:`fold`."""

    seq: int = 0
    """The last event folded."""
    position: int = 0
    """The last event that changed the game (start, action, undo, redo)."""
    turn_began: datetime | None = None
    """When the decision now due became due (a resume restarts the clock)."""
    remind_hours: float | None = None
    player_remind: dict[str, float | None] = field(default_factory=dict)
    """Players' own reminder times (None: no reminders for them), by player id."""
    paused: str | None = None
    """The reason given for a pause ("" for none) while the game is paused."""
    ask: Ask | None = None
    reminded: set[int] = field(default_factory=set)
    """Reminder stages sent since ``position``."""
    status_message: str | None = None
    since: datetime | None = None
    """When the game came to Troika: the actions stored with it (an imported game's
    history) are not timed, and no turn began before it."""
    computer: set[str] = field(default_factory=set)
    """Players who have handed their seat to the computer for now, by player id."""
    unarchived: datetime | None = None
    """When the game was last brought back from the archive (`unarchive`)."""

    def fold(self, events: Iterable[Event]) -> None:
        """Take in the events after :attr:`seq`; those folded already are skipped, so
        overlapping folds (concurrent readers) count nothing twice."""
        for event in events:
            if event.seq <= self.seq:
                continue
            self._fold(event)
            self.seq = event.seq

    def _fold(self, event: Event) -> None:
        if event.kind in (EventKind.ACTION, EventKind.UNDO, EventKind.REDO):
            if starts_a_decision(event):  # a standing order set, or its undo, moves nothing (bot.clock)
                self._moved(event)
            return
        if event.kind is not EventKind.ADMIN:
            return
        data = event.action
        kind = data.get("type")
        if kind == "start":
            self._moved(event)
        elif kind == "settings" and data.get("player"):
            self.player_remind[data["player"]] = data.get("remind_hours")
        elif kind == "settings":
            self.remind_hours = data.get("remind_hours")
        elif kind == "pause":
            self.paused = event.note or ""
        elif kind == "resume":
            self.paused = None
            self.turn_began = event.created_at
        elif kind == "ask":
            self.ask = Ask(event.seq, event.actor or "", data["consenter"], data["action"], data["command"])
        elif kind == "answer":
            self.ask = None
        elif kind == "reminder" and data.get("position") == self.position:
            self.reminded.add(int(data["stage"]))
        elif kind == "status_message":
            self.status_message = data.get("message_id") or None  # "": unpinned, the game over
        elif kind == "unarchive":
            self.unarchived = _moment(data.get("at"), event.created_at)
        elif kind == "computer" and data.get("on"):
            self.computer.add(str(data.get("player")))
        elif kind == "computer":
            self.computer.discard(str(data.get("player")))

    def _moved(self, event: Event) -> None:
        self.position = event.seq
        self.turn_began = event.created_at
        self.ask = None
        self.reminded = set()


def _moment(text: object, otherwise: datetime) -> datetime:
    """The time an admin event names (ISO 8601 with its zone), else ``otherwise``."""
    try:
        moment = datetime.fromisoformat(str(text))
    except ValueError:
        return otherwise
    return moment if moment.tzinfo is not None else otherwise
