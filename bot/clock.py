"""The rules of time at a table: how long each decision waited, the pace, the time
banks, holidays (`away`) and quiet hours, all read from the game's event log.

Nothing here keeps a clock of its own: every figure is derived from the events' times
(:func:`decision_waits`) and the clock settings stored as admin events (``{"type":
"clock", ...}``, see :class:`TableClock`), with ``now`` handed in by the caller.

The rules (README, "Time: pace, banks, holidays"):

- A decision's clock starts when it falls due (the game's start, the move before it)
  and stops when the player moves (or a standing order moves for them). Setting or
  cancelling a standing order is no move: the clock runs on. A pause stops it while
  it lasts: after the resume the same decision runs on, its bank spent kept.
- A player asked to agree to a deal, or whose seat the computer gave back, counts from
  then; while a deal waits for its consenter, the clock, the bank and the time-out are
  theirs (charged at the answer), and the proposer's decision stands still until it.
  A pace set after none counts from when it is set. `status`, `stats` and
  reminders read this one start.
- Time a player is away, or inside their quiet hours, does not count. A holiday stops
  the clock only while it lasts: after it (`back`, or its end) the same decision's
  clock runs on, its time already waited and bank already spent kept. Quiet hours and a
  time zone apply from when they are set, never to time already waited; quiet hours
  last at most :data:`QUIET_MOST` a day, and however often they or the zone change, at
  most that much of each day (UTC) stops the clock.
- An undone move is no decision: after an undo the player's decision counts again from
  when it first fell due (its wait is dropped from `stats`, its charge to the bank
  taken back). A redo makes the undone moves again: the clock is as they left it,
  the first of them charged the time it was held back too, and the decision open
  before the undo runs on with the time from the undo to the redo left out.
- With a pace set, the counted time beyond the pace comes out of the player's bank;
  a decision made within the pace gives back half the time it left unused, up to a
  full bank. Moves not made by the player (the computer's, a timeout's) spend what
  ran over but refill nothing. A new pace applies from when it is set: the open decision's time beyond
  the old pace stays spent, and it spends again once it has run longer than the new
  (a pace set again after `pace off` too: the decision counts on from its start).
- A player whose bank is empty while their decision is still open has timed out: the
  table's `on-timeout` policy applies, once per decision; after a change of policy an
  expired decision gets the new one (also one whose time-out move the commissioner undid).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from storage import Event, EventKind, GameRecord

from .errors import Refusal

HOUR = 3600.0
DAY = 24 * HOUR
BANK_PER_PACE = 3
"""A bank holds three paces unless the commissioner sets it (`bank 3d`)."""
REFILL_SHARE = 0.5
"""The share of the unused pace a decision made within the pace gives back to the bank."""
AWAY_LIMIT = 14 * DAY
"""Days a player may be away per game unless the commissioner sets it (`away-limit`)."""
PACE_RANGE = (5 * 60.0, 30 * DAY)
BANK_RANGE = (0.0, 60 * DAY)
AWAY_LIMIT_RANGE = (0.0, 365 * DAY)
POLICIES = ("wait", "computer", "pass")
"""What happens when a bank runs out (`on-timeout`)."""
QUIET_MOST = 12 * 60
"""The longest quiet hours a day, in minutes: the clock stands still at most half the day."""
COMPUTER_MOVED = "played by the computer"
"""The note on a move the computer made for a seat (:mod:`bot.computer_seats`)."""
TIMED_OUT = "time ran out"
"""The note on a move made because its player's time ran out (:mod:`bot.timekeeping`)."""
NOT_THEIR_OWN = (COMPUTER_MOVED, TIMED_OUT)
"""Words in a move's note that mark it as made for the player, not by them."""

_PART = r"(\d+(?:\.\d+)?)\s*([dhm])"
_DURATION = re.compile(rf"^(?:{_PART}\s*)+$")
_UNIT = {"d": DAY, "h": HOUR, "m": 60.0}
_QUIET = re.compile(r"^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$")


# --- how long each decision waited ------------------------------------------------------


@dataclass(frozen=True)
class Wait:
    """One decision: who made it, when it fell due and when they moved (``seq``: the move's event)."""

    player: str
    began: datetime
    ended: datetime
    seq: int
    own: bool
    """Made by the player (or the commissioner for them), not by the computer or a timeout."""
    away: float = 0.0
    """Seconds of it the player was away (on holiday): not time they took to act."""
    held: float = 0.0
    """Seconds the move was held back between its undo and its redo: time taken too."""
    charge: Charge | None = None
    """How the bank was charged for it (None: no pace), for a redo to charge the hold."""

    @property
    def seconds(self) -> float:
        return max((self.ended - self.began).total_seconds() - self.away, 0.0) + self.held


@dataclass(frozen=True)
class Charge:
    """A decision's charge to its player's bank: from ``spent`` before it, for
    ``counted`` seconds (away and quiet left out), ``fixed`` of them beyond an older
    pace already, with the pace ``pace`` and a bank of ``bank``."""

    spent: float
    counted: float
    fixed: Overrun
    pace: float | None
    bank: float
    own: bool

    def after(self, more: float = 0.0) -> float:
        """The bank spent after this decision, ``more`` seconds taken on top."""
        counted = self.counted + more
        over = self.fixed.beyond(counted, self.pace)
        if over > 0:
            return min(self.spent + over, self.bank)
        if self.own and self.pace:
            return max(self.spent - REFILL_SHARE * max(self.pace - counted, 0.0), 0.0)
        return self.spent


@dataclass(frozen=True)
class Overrun:
    """The open decision's time beyond the pace as fixed by changes of pace: ``spent``
    seconds beyond the older paces, and ``mark``, the seconds the decision had counted
    at the last change (the new pace is measured from there: it applies from then on)."""

    spent: float = 0.0
    mark: float = 0.0

    def beyond(self, counted: float, pace: float | None) -> float:
        """Seconds beyond the pace after ``counted`` seconds of the decision."""
        more = max(counted - max(self.mark, pace), 0.0) if pace else 0.0
        return self.spent + more


def decision_waits(events: Iterable[Event], since: datetime | None = None) -> list[Wait]:
    """Every decision the log shows made, with the time it waited: from when it began to
    count against its player (:meth:`TableClock.counting`, the one reading of a decision's
    start that `status` shows too) to their move. ``since``: when the game came to Troika
    (an imported game's earlier moves are not timed)."""
    clock = TableClock(since=since)
    clock.fold(events)
    return clock.waits


ORDER_MOVED = "a standing order moved"
"""The note on a standing order's event when the order acted at once (the service writes
it): only then did the game move, so only then is a decision made."""
ORDERS_ONLY = "standing orders alone"
"""The note on an undo or redo that took back or restored only standing orders that had
not moved the game: the position is as it was, and so is the open decision's clock."""


def is_decision(event: Event) -> bool:
    """A move a player was waited for. Setting or cancelling a standing order is no move
    (it is left at any time); an order that acted at once, as it was set, is one. The
    commissioner's `end` is none either: nobody was waited for it."""
    if event.kind is not EventKind.ACTION or not event.actor or event.action.get("type") == "end_game":
        return False
    return event.action.get("type") != "standing_order" or ORDER_MOVED in (event.note or "")


def starts_a_decision(event: Event) -> bool:
    """Whether a new decision falls due with ``event`` (the ledger's turn and reminders read it too)."""
    if event.kind is EventKind.ACTION:
        return is_decision(event)
    if event.kind in (EventKind.UNDO, EventKind.REDO):
        return ORDERS_ONLY not in (event.note or "")
    return event.kind is EventKind.ADMIN and event.action.get("type") in ("start", "resume")


def _own(event: Event) -> bool:
    return not any(words in (event.note or "") for words in NOT_THEIR_OWN)


# --- reading what players type ----------------------------------------------------------


def seconds_in(text: str) -> float | None:
    """Seconds in a duration as players write it: ``90m``, ``24h``, ``3d``, ``13d 23h``,
    ``1d12h``, ``1.5d``; ``0`` alone is none. None if ``text`` is no duration (a bare
    number other than 0 is none either: it names no unit)."""
    words = text.strip().lower()
    if words == "0":
        return 0.0
    if _DURATION.match(words) is None:
        return None
    return sum(float(number) * _UNIT[unit] for number, unit in re.findall(_PART, words))


def read_duration(text: str, what: str, low: float, high: float) -> float:
    """Seconds in ``text`` (:func:`seconds_in`), between ``low`` and ``high``."""
    seconds = seconds_in(text)
    if seconds is None:
        bare = text.strip()
        if re.fullmatch(r"\d+(?:\.\d+)?", bare):
            raise Refusal(f"Say which unit: `{bare}d` (days), `{bare}h` (hours) or `{bare}m` (minutes).")
        raise Refusal(f"Write the {what} in days, hours and minutes: `3d`, `24h`, `13d 23h`, `30m`.")
    if not low <= seconds <= high or (seconds == 0 and low > 0):
        raise Refusal(f"The {what} is from {shown_duration(low)} to {shown_duration(high)}; "
                      f"{text.strip()} is not.")
    return seconds


def read_quiet(text: str) -> tuple[int, int] | None:
    """Quiet hours ``23:00-08:00`` as minutes after midnight (start, end); ``off``: None."""
    if text.strip().lower() in ("off", "none"):
        return None
    match = _QUIET.match(text.strip())
    hours_minutes = [int(g) for g in match.groups()] if match else []
    if not match or hours_minutes[0] > 23 or hours_minutes[2] > 23 or hours_minutes[1] > 59 \
            or hours_minutes[3] > 59:
        raise Refusal("Write quiet hours as `quiet 23:00-08:00` (your own time, 00:00 to 23:59) or `quiet off`.")
    start, end = hours_minutes[0] * 60 + hours_minutes[1], hours_minutes[2] * 60 + hours_minutes[3]
    if start == end:
        raise Refusal("Quiet hours need a start and an end that differ: `quiet 23:00-08:00`.")
    if (end - start) % (24 * 60) > QUIET_MOST:
        raise Refusal(f"Quiet hours last at most {QUIET_MOST // 60} hours a day; "
                      f"{text.strip()} is longer: `quiet 23:00-08:00`.")
    return start, end


@cache
def _zone_names() -> dict[str, str]:
    """The zone database's names, by their lower case."""
    return {name.lower(): name for name in available_timezones()}


def read_zone(text: str) -> str:
    """A time zone's name as the zone database spells it (``europe/amsterdam`` is
    ``Europe/Amsterdam``), checked against it."""
    if not text.strip():
        raise Refusal("Which time zone? Write it as `tz Europe/Amsterdam` or `tz Asia/Tokyo`.")
    name = _zone_names().get(text.strip().lower(), text.strip())
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise Refusal(f"I don't know the time zone `{name[:40]}`; write it as `tz Europe/Amsterdam` "
                      "or `tz Asia/Tokyo`.") from None
    return name


def shown_duration(seconds: float) -> str:
    """``3d 4h``, ``5h 30m``, ``45m``: a duration as players write it."""
    minutes = int(round(seconds / 60))
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{days}d" if days else "", f"{hours}h" if hours else "", f"{minutes}m" if minutes else ""]
    return " ".join(p for p in parts if p) or "0m"


# --- the table's clock --------------------------------------------------------------------


@dataclass
class PlayerClock:
    """One player's time settings and bank."""

    zone: str = "UTC"
    quiet: tuple[int, int] | None = None
    away: list[tuple[datetime, datetime]] = field(default_factory=list)
    quiet_from: list[tuple[datetime, tuple[int, int] | None, str]] = field(default_factory=list)
    """Each setting of quiet hours or zone, from when it holds: (since, quiet, zone)."""
    spent: float = 0.0
    """Seconds taken from the bank so far."""
    returned: datetime | None = None
    """When the computer gave the seat back: the open decision counts from then."""

    def set_quiet(self, moment: datetime, quiet: tuple[int, int] | None, zone: str) -> None:
        """Quiet hours or zone as set at ``moment``: they hold from then on, never before."""
        self.quiet, self.zone = quiet, zone
        self.quiet_from.append((moment, quiet, zone))

    def away_at(self, moment: datetime) -> tuple[datetime, datetime] | None:
        return next(((a, b) for a, b in self.away if a <= moment < b), None)

    def away_used(self) -> float:
        return sum((b - a).total_seconds() for a, b in self.away)

    def stopped(self, start: datetime, end: datetime, quiet: bool = True) -> Iterator[tuple[datetime, datetime]]:
        """The stretches between ``start`` and ``end`` when this player's clock stands:
        away, or in their quiet hours (:meth:`quiet_stretches`)."""
        yield from self.away
        if quiet:
            yield from self.quiet_stretches(start, end)

    def quiet_stretches(self, start: datetime, end: datetime) -> Iterator[tuple[datetime, datetime]]:
        """The quiet hours that stop the clock between ``start`` and ``end``: each
        setting from when it was made, and however often they change, the first
        :data:`QUIET_MOST` minutes of quiet in each day (UTC) alone."""
        day = datetime.combine(start.astimezone(UTC).date(), time(), UTC)
        while day < end:
            following = day + timedelta(days=1)
            stretches = sorted((max(a, day), min(b, following)) for a, b in self._quiet_hours(day, following)
                               if a < following and b > day)
            left, reached = QUIET_MOST * 60.0, day
            for a, b in stretches:
                a = max(a, reached)
                if b <= a or left <= 0:
                    continue
                b = min(b, a + timedelta(seconds=left))
                left -= (b - a).total_seconds()
                reached = b
                yield a, b
            day = following

    def _quiet_hours(self, start: datetime, end: datetime) -> Iterator[tuple[datetime, datetime]]:
        """The quiet hours as set between ``start`` and ``end``, each setting from when it was made."""
        for n, (since, hours, zone_name) in enumerate(self.quiet_from):
            until = self.quiet_from[n + 1][0] if n + 1 < len(self.quiet_from) else end
            if hours is None or until <= start or since >= end:
                continue
            zone = ZoneInfo(zone_name)
            day = max(start, since).astimezone(zone).date() - timedelta(days=1)
            last = min(until, end).astimezone(zone).date()
            while day <= last:
                a, b = _quiet_stretch(day, hours, zone)
                if max(a, since) < min(b, until):
                    yield max(a, since), min(b, until)
                day += timedelta(days=1)

    def counted(self, start: datetime, end: datetime, quiet: bool = True,
                gaps: Iterable[tuple[datetime, datetime]] = ()) -> float:
        """Seconds from ``start`` to ``end`` that count against this player (:meth:`stopped`
        and ``gaps`` left out; without ``quiet``, only time away and ``gaps``)."""
        if end <= start:
            return 0.0
        stops = sorted((max(a, start), min(b, end)) for a, b in [*self.stopped(start, end, quiet), *gaps]
                       if a < end and b > start)
        total, reached = (end - start).total_seconds(), start
        for a, b in stops:
            if b > reached:
                total -= (b - max(a, reached)).total_seconds()
                reached = b
        return max(total, 0.0)

    def quiet_at(self, moment: datetime) -> bool:
        """Whether ``moment`` falls in this player's quiet hours (those that stop the clock)."""
        if self.quiet is None:
            return False
        return any(a <= moment < b for a, b in self.quiet_stretches(moment, moment + timedelta(seconds=1)))


def _quiet_stretch(day: date, quiet: tuple[int, int], zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The quiet hours that begin on local ``day``, as a stretch of time."""
    start, end = quiet
    begin = datetime.combine(day, time(start // 60, start % 60), zone)
    finish = datetime.combine(day + timedelta(days=0 if end > start else 1), time(end // 60, end % 60), zone)
    return begin, finish


Stretch = tuple[datetime, datetime]


@dataclass(frozen=True)
class Before:
    """The clock of the open decision as it was before a move (or an undo), for an undo
    (or a redo) to go back to."""

    began: datetime | None
    position: int
    waits: int
    spent: dict[str, float]
    overrun: dict[str, Overrun]
    gaps: tuple[Stretch, ...]


@dataclass(frozen=True)
class Undone:
    """What an undo took back, for a redo to put back: the moves, their waits, the clock
    just before the undo (``state``; None: the undo moved standing orders alone) and
    when the undo was made."""

    moves: list[tuple[int, Before]]
    waits: list[Wait]
    state: Before | None
    at: datetime


@dataclass
class TableClock:
    """The fold of a game's log into its clock: settings, players' clocks and banks, the
    decision open now. Kept up to date with :meth:`fold` (events after :attr:`seq`).

    Admin events: ``{"type": "clock", "pace"|"bank"|"away_limit": SECONDS|None}``,
    ``{"type": "clock", "on_timeout": POLICY}``, ``{"type": "clock", "player": ID,
    "zone"|"quiet": ...}``, ``{"type": "away", "player": ID, "seconds": S}``, ``{"type":
    "back", "player": ID}``, ``{"type": "timeout", "player": ID, "position": SEQ,
    "policy": POLICY}`` (the policy applied to the decision due since event SEQ)."""

    since: datetime | None = None
    seats: tuple[str, ...] = ()
    """The players (ids): a change of pace fixes each one's time beyond the old pace."""
    seq: int = 0
    pace: float | None = None
    bank: float | None = None
    away_limit: float = AWAY_LIMIT
    on_timeout: str = "wait"
    players: dict[str, PlayerClock] = field(default_factory=dict)
    began: datetime | None = None
    """When the decision open now fell due (None: before the start, or paused)."""
    position: int = 0
    """The event after which the open decision fell due."""
    overrun: dict[str, Overrun] = field(default_factory=dict)
    """The open decision's time beyond older paces, by player (:meth:`_pace_changed`)."""
    gaps: list[Stretch] = field(default_factory=list)
    """Stretches of the open decision that do not count: between an undo and its redo."""
    pace_since: datetime | None = None
    """When the pace was set after none: it counts from then, never back."""
    travelled: datetime | None = None
    """When the last undo or redo was made that set the clock back or forth."""
    timed_out: set[int] = field(default_factory=set)
    """Positions whose decision's time-out has been dealt with."""
    asked: tuple[str, datetime] | None = None
    """The player asked for their consent now, and since when: their clock counts from the request."""
    paused: tuple[datetime, datetime | None] | None = None
    """While paused: since when, and when the decision open at the pause fell due."""
    waits: list[Wait] = field(default_factory=list)
    """Every decision made so far (`stats`), each from :meth:`counting` to the move."""
    done: list[tuple[int, Before]] = field(default_factory=list)
    """The moves in effect (their events), each with the clock as it was before it: an undo goes back to it."""
    redo: list[Undone] = field(default_factory=list)
    """What each undo not yet redone took back, the latest last."""

    @classmethod
    def of(cls, record: GameRecord, on_timeout: str = "wait") -> TableClock:
        """The clock of the game ``record``, before its events are folded."""
        return cls(since=record.created_at, seats=tuple(s.player_id for s in record.seats), on_timeout=on_timeout)

    def player(self, player_id: str) -> PlayerClock:
        return self.players.setdefault(player_id, PlayerClock())

    @property
    def full_bank(self) -> float:
        if self.bank is not None:
            return self.bank
        return BANK_PER_PACE * self.pace if self.pace else 0.0

    def fold(self, events: Iterable[Event]) -> None:
        for event in events:
            if event.seq > self.seq:
                self._fold(event)
                self.seq = event.seq

    def _fold(self, event: Event) -> None:
        if event.kind is EventKind.ACTION:
            self.done.append((event.seq, self._before()))
            self.redo.clear()
            if TIMED_OUT in (event.note or ""):
                self.timed_out.add(self.position)  # dealt with: an undo of it does not time them out again
        if event.kind is EventKind.ACTION and self.asked is not None:
            self._answered(event)  # a deal agreed to: the consenter's time is theirs
        if is_decision(event) and (self.since is None or event.created_at > self.since):
            self._decided(event)
        if event.kind is EventKind.UNDO:
            self._undone(event, restore=ORDERS_ONLY not in (event.note or ""))
        elif event.kind is EventKind.REDO:
            self._redone(event)
        elif self.paused is not None and event.kind is EventKind.ADMIN and event.action.get("type") == "resume":
            self._resumed(event.created_at)
        elif starts_a_decision(event):
            began = event.created_at if self.since is None else max(event.created_at, self.since)
            self.began, self.position, self.asked = began, event.seq, None
            self.overrun, self.gaps = {}, []
        if event.kind is not EventKind.ADMIN:
            return
        data, kind = event.action, event.action.get("type")
        if kind == "pause":
            self.paused, self.began = (event.created_at, self.began), None
        elif kind == "ask":
            self.asked = (str(data["consenter"]), event.created_at)
        elif kind == "answer":
            self._answered(event)
        elif kind == "clock":
            self._setting(data, event.created_at)
        elif kind == "away":
            moment = event.created_at
            self.player(str(data["player"])).away.append((moment, moment + timedelta(seconds=float(data["seconds"]))))
        elif kind in ("back", "computer") and not data.get("on"):
            self._back(str(data.get("player")), event.created_at, kind == "computer")
        if kind in ("timeout", "computer") and "position" in data:
            self.timed_out.add(int(data["position"]))

    def _setting(self, data: dict[str, object], moment: datetime) -> None:
        if "player" in data:
            clock = self.player(str(data["player"]))
            zone, quiet = clock.zone, clock.quiet
            if "zone" in data:
                zone = str(data["zone"])
            if "quiet" in data:
                hours = data["quiet"]
                quiet = (int(hours[0]), int(hours[1])) if isinstance(hours, list) else None
            clock.set_quiet(moment, quiet, zone)
            return
        if "pace" in data:
            value = data["pace"]
            self._pace_changed(float(value) if isinstance(value, (int, float)) else None, moment)
        if "bank" in data:
            value = data["bank"]
            self.bank = float(value) if isinstance(value, (int, float)) else None
        if isinstance(data.get("away_limit"), (int, float)):
            self.away_limit = float(data["away_limit"])  # type: ignore[arg-type]
        if data.get("on_timeout") in POLICIES:
            if data["on_timeout"] != self.on_timeout:
                self.timed_out.clear()  # a new policy: an expired decision gets it, dealt with or not
            self.on_timeout = str(data["on_timeout"])

    def _pace_changed(self, pace: float | None, moment: datetime) -> None:
        """A new pace applies from ``moment``: the open decision's time beyond the old pace
        so far stays spent, and the new pace is measured from what it has counted by then.
        The game's first pace counts from when it is set, never back; a pace set again
        after `pace off` is a change of pace (the decision counts on from its start)."""
        if self.pace and self.began is not None:
            for player_id in {*self.seats, *self.players}:
                start = self.counting(player_id)
                if start is not None:
                    counted = self.counted(player_id, start, moment)
                    fixed = self.overrun.get(player_id, Overrun())
                    self.overrun[player_id] = Overrun(fixed.beyond(counted, self.pace), counted)
        if pace and not self.pace and self.pace_since is not None and self.began is not None:
            for player_id in {*self.seats, *self.players}:  # a pace again: counted on from the start
                start = self.counting(player_id)
                if start is not None:
                    spent = self.overrun.get(player_id, Overrun()).spent
                    self.overrun[player_id] = Overrun(spent, self.counted(player_id, start, moment))
        elif pace and not self.pace:
            self.pace_since = moment
            if self.began is not None:
                self.began = max(self.began, moment)
                self.overrun = {p: Overrun(o.spent) for p, o in self.overrun.items()}  # counted from now
        self.pace = pace

    def _back(self, player_id: str, moment: datetime, from_computer: bool) -> None:
        """The player is back: an away stretch still running ends now and their open
        decision's clock runs on (its time before the holiday still counted); a seat the
        computer gave back counts from now."""
        clock = self.player(player_id)
        clock.away = [(a, min(b, moment)) if a <= moment < b else (a, b) for a, b in clock.away]
        if from_computer:
            clock.returned = moment

    def _before(self) -> Before:
        return Before(self.began, self.position, len(self.waits), {p: c.spent for p, c in self.players.items()},
                      dict(self.overrun), tuple(self.gaps))

    def _restore(self, before: Before) -> None:
        """The open decision and the banks as ``before`` (a pace set since counts from when it was)."""
        began = before.began
        if began is not None and self.pace and self.pace_since is not None and self.pace_since > began:
            began = self.pace_since
        self.began, self.position, self.asked = began, before.position, None
        self.overrun, self.gaps = dict(before.overrun), list(before.gaps)
        del self.waits[before.waits:]
        for player_id, clock in self.players.items():
            clock.spent = before.spent.get(player_id, 0.0)

    def _undone(self, event: Event, restore: bool) -> None:
        """An undo: the moves it takes back were no decisions. The clock goes back to
        before the earliest of them: that decision counts again from when it fell due, its
        waits leave `stats`, and the bank is as it was. The time from its move to the last
        later move taken back (by this undo or those just before it) was others' decisions:
        it is left out, so each reopened decision is charged only its own time."""
        target = event.action.get("action_id")
        undone = [d for d in self.done if isinstance(target, int) and d[0] > target] if isinstance(target, int) \
            else self.done[-1:]
        if undone:
            del self.done[-len(undone):]
        if not restore:
            if undone:
                self.redo.append(Undone(undone, [], None, event.created_at))
            return
        if not undone:
            self.began, self.position, self.asked = event.created_at, event.seq, None
            self.overrun, self.gaps = {}, []
            return
        before = undone[0][1]
        self.redo.append(Undone(undone, self.waits[before.waits:], self._before(), event.created_at))
        mine = self.waits[before.waits] if len(self.waits) > before.waits else None
        self._restore(before)
        if mine is not None and mine.seq == undone[0][0]:  # the later moves' time was others'
            last = max(w.ended for u in self.redo for w in u.waits)
            if last > mine.ended:
                self.gaps.append((mine.ended, last))
        self.travelled = event.created_at

    def _redone(self, event: Event) -> None:
        """A redo: the undone moves are made again now. The clock is as they left it (the
        banks they spent, their waits in `stats`); the first of them took the time it was
        held back too (since the undo, or the redo before), and the decision open before
        the undo runs on, the time between the undo and the redo left out."""
        if not self.redo:
            return
        undone = self.redo.pop()
        self.done.extend(undone.moves)
        if undone.state is None:
            return
        moment, held_from = event.created_at, self.travelled or undone.at
        self.waits.extend(undone.waits)
        self._restore(undone.state)
        self.gaps.append((undone.at, moment))
        self.travelled = moment
        if undone.waits:
            first = undone.waits[0]
            mine = self.player(first.player)
            held = mine.counted(held_from, moment, quiet=False)
            self.waits[undone.state.waits - len(undone.waits)] = replace(first, held=first.held + held)
            if first.charge is not None:
                more = first.charge.after(mine.counted(held_from, moment)) - first.charge.after()
                mine.spent = min(max(mine.spent + more, 0.0), self.full_bank)

    def _resumed(self, moment: datetime) -> None:
        """A resume: the decision open at the pause runs on, its time before the pause and
        its bank spent kept, the pause left out (a game paused with none open starts one)."""
        assert self.paused is not None
        since, began = self.paused
        self.paused = None
        if began is None:
            self.began, self.overrun, self.gaps, self.asked = moment, {}, [], None
            return
        self.began = began
        self.gaps.append((since, moment))

    def _answered(self, event: Event) -> None:
        """A deal answered (agreed to or refused): the consenter's time since the request is
        charged to their bank, and it never counts against the proposer, whose decision
        runs on. A deal its proposer withdraws was their own time: the consenter is charged
        nothing and the proposer's decision counts on through it (else asking and
        withdrawing again and again would stop the proposer's clock)."""
        if self.asked is None:
            return
        consenter, since = self.asked
        self.asked = None
        if self.began is None or (event.kind is EventKind.ADMIN and event.action.get("answer") == "withdrawn"):
            self.overrun.pop(consenter, None)
            return
        self._charge(consenter, since, event.created_at, _own(event))
        self.overrun.pop(consenter, None)
        self.gaps.append((since, event.created_at))

    def _decided(self, event: Event) -> None:
        """A decision made: its wait is kept (less the time its player was away), and its time charged."""
        player, start = event.actor or "", self.counting(event.actor or "")
        if start is None:  # paused: no decision was open
            return
        raw = max((event.created_at - start).total_seconds(), 0.0)
        away = raw - self.counted(player, start, event.created_at, quiet=False)
        charge = self._charge(player, start, event.created_at, _own(event))
        self.waits.append(Wait(player, start, event.created_at, event.seq, _own(event), away, charge=charge))

    def _charge(self, player_id: str, began: datetime, ended: datetime, own: bool) -> Charge | None:
        """A decision made, counting from ``began``: time beyond the pace is spent from
        the bank, whoever moved (a time-out leaves the bank empty); made by the player
        within the pace, half the rest comes back."""
        fixed = self.overrun.get(player_id, Overrun())
        if not self.pace and not fixed.spent:
            return None
        clock = self.player(player_id)
        charge = Charge(clock.spent, self.counted(player_id, began, ended), fixed, self.pace, self.full_bank, own)
        clock.spent = charge.after()
        return charge

    # --- questions about now ------------------------------------------------------------

    def counted(self, player_id: str, start: datetime, end: datetime, quiet: bool = True) -> float:
        """Seconds of the open decision from ``start`` to ``end`` that count against
        ``player_id`` (:meth:`PlayerClock.counted`, the decision's :attr:`gaps` left out,
        and for all but the consenter, the time a deal waits for their answer)."""
        gaps = self.gaps
        if self.asked is not None and self.asked[0] != player_id:
            gaps = [*gaps, (self.asked[1], max(end, self.asked[1]))]
        return self.player(player_id).counted(start, end, quiet, gaps)

    def running(self, acting: str | None) -> str | None:
        """Whose clock runs: the consenter's while a deal waits for them, else the acting player's."""
        return self.asked[0] if self.asked is not None and self.began is not None else acting

    def counting(self, player_id: str) -> datetime | None:
        """Since when the open decision counts against ``player_id`` (None: no decision open)."""
        if self.began is None:
            return None
        began = self.asked[1] if self.asked and self.asked[0] == player_id else self.began
        returned = self.player(player_id).returned
        return max(began, returned) if returned else began

    def beyond_pace(self, player_id: str, now: datetime) -> float:
        """Seconds the open decision has run beyond the pace for ``player_id`` by ``now``."""
        start = self.counting(player_id)
        if start is None:
            return 0.0
        return self.overrun.get(player_id, Overrun()).beyond(self.counted(player_id, start, now), self.pace)

    def bank_left(self, player_id: str, now: datetime, acting: str | None) -> float:
        """Seconds left in the player's bank now, their open decision's overrun taken off."""
        left = self.full_bank - self.player(player_id).spent
        if player_id == acting:
            left -= self.beyond_pace(player_id, now)
        return max(left, 0.0)

    def timed_out_now(self, player_id: str | None, now: datetime) -> bool:
        """Whether the acting player's time ran out on the open decision, not yet dealt with."""
        dealt_with = self.position in self.timed_out and self.asked is None
        if not self.pace or player_id is None or dealt_with:
            return False
        if self.player(player_id).away_at(now) is not None or self.beyond_pace(player_id, now) <= 0:
            return False
        return self.bank_left(player_id, now, player_id) <= 0

    def away_left(self, player_id: str) -> float:
        return max(self.away_limit - self.player(player_id).away_used(), 0.0)
