"""`stats`: how long each player takes to act, the time bank they have left and the
days they have been away, all from the game's event log (:mod:`bot.clock`); the
game's end post shows them too.

Time to act is the wall-clock wait of each decision the player made themselves, from
when it began to count against them (:meth:`bot.clock.TableClock.counting`, the start
`status` shows) to their move; the computer's moves (counted apart) and a timeout's are
left out: its median, and the 90th percentile by the nearest-rank rule (the wait that 90%
of the decisions did not exceed).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engine import counted
from storage import Event, GameRecord
from storage.repository import effective_events

from .clock import COMPUTER_MOVED, TableClock, is_decision, shown_duration


@dataclass(frozen=True)
class PlayerStats:
    """One player's figures: waits in seconds, None when there is nothing to show."""

    player: str
    decisions: int
    median: float | None
    p90: float | None
    bank_left: float | None  # None: the table has no pace, so no bank
    away_used: float
    untimed: int = 0
    """Moves made before the game came to Troika (an imported game's): not timed."""
    by_computer: int = 0
    """Moves the computer made for the seat: not timed."""


def nearest_rank(values: Sequence[float], share: float) -> float:
    """The value that ``share`` of ``values`` do not exceed (nearest rank: the
    ceil(share × n)-th smallest)."""
    ordered = sorted(values)
    return ordered[max(math.ceil(share * len(ordered)), 1) - 1]


def player_stats(record: GameRecord, events: Sequence[Event], now: datetime, acting: str | None) -> list[PlayerStats]:
    """Each seat's figures, in seat order, from ``events`` (the game's whole log)."""
    clock = TableClock.of(record)
    clock.fold(events)
    waits = [w for w in clock.waits if w.own]
    decided = [e for e in effective_events(events) if is_decision(e)]
    imported = Counter(e.actor for e in decided if e.created_at <= record.created_at)
    by_computer = Counter(e.actor for e in decided if COMPUTER_MOVED in (e.note or ""))
    figures = []
    for seat in record.seats:
        mine = [w.seconds for w in waits if w.player == seat.player_id]
        figures.append(PlayerStats(
            seat.player_id, len(mine),
            statistics.median(mine) if mine else None,
            nearest_rank(mine, 0.9) if mine else None,
            clock.bank_left(seat.player_id, now, acting) if clock.pace else None,
            clock.player(seat.player_id).away_used(),
            imported[seat.player_id],
            by_computer[seat.player_id],
        ))
    return figures


def stats_text(record: GameRecord, events: Sequence[Event], now: datetime, acting: str | None) -> str:
    """`stats` as posted: a line per player."""
    names = {s.player_id: s.display_name for s in record.seats}
    lines = [f"**Time at the table**, game {record.id} (from its log; median and 90th percentile time to act)"]
    for figures in player_stats(record, events, now, acting):
        lines.append(f"{names[figures.player]}: {_player_line(figures)}")
    return "\n".join(lines)


def _player_line(figures: PlayerStats) -> str:
    computer = f"{counted(figures.by_computer, 'move')} by the computer, not timed" if figures.by_computer else ""
    if (figures.median is None or figures.p90 is None) and figures.untimed:
        acted = f"{counted(figures.untimed, 'move')} before the game came to Troika, not timed"
    elif figures.median is None or figures.p90 is None:
        acted = computer or "no moves yet"
        computer = ""
    else:
        acted = f"median {shown_duration(figures.median)}, 90% within {shown_duration(figures.p90)} " \
            f"({counted(figures.decisions, 'move')})"
    if computer:
        acted = f"{acted}; {computer}"
    bank = "no pace set" if figures.bank_left is None else f"bank {shown_duration(figures.bank_left)} left"
    away = f"away {shown_duration(figures.away_used)}" if figures.away_used >= 60 else "never away"
    return f"{acted} · {bank} · {away}"
