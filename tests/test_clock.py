"""The rules of time (issue 38): decision waits, banks, holidays and quiet hours, from
hand-built logs (:mod:`bot.clock`); the service-level tests are in test_bot_clock.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.clock import DAY, HOUR, TableClock, decision_waits, read_duration, read_quiet, read_zone
from bot.errors import Refusal
from storage import Event, EventKind

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # a Monday


def _log(*rows: tuple[float, EventKind, dict[str, Any], str | None] | tuple[float, EventKind, dict[str, Any],
                                                                            str | None, str]) -> list[Event]:
    """Events at ``hours`` after T0: (hours, kind, action, actor[, note])."""
    return [Event(1, seq, row[1], row[2], row[3], T0 + timedelta(hours=row[0]), row[4] if len(row) > 4 else None)
            for seq, row in enumerate(rows, 1)]


ADMIN, ACTION = EventKind.ADMIN, EventKind.ACTION


def test_each_decision_waits_from_the_move_before_to_its_own_and_setting_a_standing_order_is_neither() -> None:
    log = _log((0, ADMIN, {"type": "start"}, None), (2, ACTION, {"type": "pass"}, "anna"),
               (3, ACTION, {"type": "standing_order"}, "clara"), (7, ACTION, {"type": "bid"}, "boris"),
               (8, ADMIN, {"type": "pause"}, "anna"), (20, ADMIN, {"type": "resume"}, "anna"),
               (21, ACTION, {"type": "pass"}, "clara", "played by the computer"))
    waits = decision_waits(log)
    assert [(w.player, w.seconds / HOUR, w.own) for w in waits] == [
        ("anna", 2, True), ("boris", 5, True), ("clara", 2, False)]  # no order moved; pause 8-20 left out
    assert decision_waits(log, since=T0 + timedelta(hours=5))[0].seconds == 2 * HOUR  # imported: from 5 h


def test_time_beyond_the_pace_is_spent_and_a_quick_decision_refills_half_the_rest() -> None:
    clock = TableClock()
    clock.fold(_log((0, ADMIN, {"type": "clock", "pace": 24 * HOUR}, "anna"), (0, ADMIN, {"type": "start"}, None),
                    (30, ACTION, {"type": "pass"}, "anna"),  # 6 h over
                    (34, ACTION, {"type": "pass"}, "boris"),  # 20 h under: 10 h back, bank already full
                    (36, ACTION, {"type": "pass"}, "anna")))  # 22 h under: 11 h back (6 h spent)
    assert clock.full_bank == 3 * DAY
    assert clock.player("anna").spent == 0 and clock.player("boris").spent == 0
    now = T0 + timedelta(hours=36 + 24 + 5)
    assert clock.bank_left("boris", now, "boris") == 3 * DAY - 5 * HOUR
    assert not clock.timed_out_now("boris", now)
    assert clock.timed_out_now("boris", T0 + timedelta(hours=36 + 24 + 72))


def test_away_and_quiet_hours_do_not_count_in_the_players_own_zone() -> None:
    clock = TableClock()
    clock.fold(_log((0, ADMIN, {"type": "clock", "pace": 1 * HOUR}, "anna"),
                    (0, ADMIN, {"type": "clock", "player": "kenji", "zone": "Asia/Tokyo"}, "kenji"),
                    (0, ADMIN, {"type": "clock", "player": "kenji", "quiet": [23 * 60, 8 * 60]}, "kenji"),
                    (0, ADMIN, {"type": "away", "player": "anna", "seconds": 5 * DAY}, "anna"),
                    (0, ADMIN, {"type": "start"}, None)))
    tokyo = clock.player("kenji")  # 09:00 UTC is 18:00 in Tokyo; quiet 23:00-08:00 there = 14:00-23:00 UTC
    assert tokyo.counted(T0, T0 + timedelta(hours=24)) == 15 * HOUR
    assert tokyo.quiet_at(T0 + timedelta(hours=6)) and not tokyo.quiet_at(T0)
    anna = clock.player("anna")
    assert anna.counted(T0, T0 + timedelta(days=6)) == 1 * DAY
    assert clock.away_left("anna") == 9 * DAY
    clock.fold([Event(1, 9, ADMIN, {"type": "back", "player": "anna"}, "anna", T0 + timedelta(days=2))])
    assert clock.away_left("anna") == 12 * DAY and anna.counted(T0, T0 + timedelta(days=3)) == 1 * DAY


@pytest.mark.parametrize("bad", ["0", "400d", "soon", "-2h"])
def test_a_bad_duration_is_refused_in_one_line(bad: str) -> None:
    with pytest.raises(Refusal) as refused:
        read_duration(bad, "pace", 5 * 60, 30 * DAY)
    assert "\n" not in str(refused.value)


def test_bad_quiet_hours_and_zones_are_refused() -> None:
    assert read_quiet("23:00-08:00") == (23 * 60, 8 * 60) and read_quiet("off") is None
    for bad in ("25:00-08:00", "23:00-23:00", "late"):
        with pytest.raises(Refusal):
            read_quiet(bad)
    assert read_zone("Europe/Amsterdam") == "Europe/Amsterdam"
    for zone in ("Mars/Olympus", "../etc/passwd"):
        with pytest.raises(Refusal, match="I don't know the time zone"):
            read_zone(zone)
    with pytest.raises(Refusal, match="Which time zone"):  # it said "I don't know the time zone ``"
        read_zone(" ")


def test_a_time_out_leaves_the_bank_empty_for_the_next_decision() -> None:
    """A player who never comes back is timed out after the pace alone on each later
    decision, not after a refilled bank (checker of issue 38: the bank came back full)."""
    clock = TableClock()
    clock.fold(_log((0, ADMIN, {"type": "clock", "pace": 24 * HOUR}, "anna"), (0, ADMIN, {"type": "start"}, None),
                    (24 + 72 + 1, ACTION, {"type": "pass"}, "boris", "time ran out"),
                    (98, ACTION, {"type": "pass"}, "clara")))
    assert clock.player("boris").spent == clock.full_bank
    assert clock.bank_left("boris", T0 + timedelta(hours=99), "boris") == 0
    assert clock.timed_out_now("boris", T0 + timedelta(hours=98 + 25))


def test_a_pace_counts_from_when_it_is_set_and_an_import_from_when_it_came() -> None:
    """Anna had waited five days with no pace: `pace 24h` gives her the pace from now,
    not a time-out at once; an imported game's open decision counts from the import."""
    clock = TableClock()
    clock.fold(_log((0, ADMIN, {"type": "start"}, None),
                    (120, ADMIN, {"type": "clock", "pace": 24 * HOUR}, "anna")))
    assert not clock.timed_out_now("anna", T0 + timedelta(hours=121))
    assert clock.bank_left("anna", T0 + timedelta(hours=120 + 30), "anna") == 3 * DAY - 6 * HOUR
    imported = TableClock(since=T0 + timedelta(days=2000))
    imported.fold(_log((0, ADMIN, {"type": "clock", "pace": HOUR}, "anna"), (1, ACTION, {"type": "pass"}, "boris")))
    assert imported.counting("clara") == T0 + timedelta(days=2000)
    assert not imported.timed_out_now("clara", T0 + timedelta(days=2000, minutes=30))
