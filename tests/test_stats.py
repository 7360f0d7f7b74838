"""`stats` (issue 38): time to act, banks and away days from the event log alone,
checked against a log whose figures are worked out by hand; then as players see it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.clock import DAY, HOUR
from bot.service import Account, TroikaService
from bot.stats import nearest_rank, player_stats, stats_text
from engine import counted
from storage import Event, EventKind, GameRecord, GameStatus, Seat, SqliteEventStore
from storage.repository import effective_events
from tests.conftest import shared_game
from tests.test_bot_service import Table

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
ADMIN, ACTION = EventKind.ADMIN, EventKind.ACTION
RECORD = GameRecord(1, "1861", {}, 1, "anna", GameStatus.RUNNING, 7, T0, seats=(
    Seat(0, "anna", "Anna", commissioner=True), Seat(1, "boris", "Boris"), Seat(2, "clara", "Clara")))


def _log(*rows: tuple[Any, ...]) -> list[Event]:
    """(hours after T0, kind, action, actor[, note])."""
    return [Event(1, seq, row[1], row[2], row[3], T0 + timedelta(hours=row[0]), row[4] if len(row) > 4 else None)
            for seq, row in enumerate(rows, 1)]


LOG = _log(
    (0, ADMIN, {"type": "start"}, "anna"),
    (1, ADMIN, {"type": "clock", "pace": 10 * HOUR}, "anna"),   # pace 10 h: each bank 30 h
    (2, ACTION, {"type": "pass"}, "anna"),                      # anna waited 1 h (from the pace, set at 1 h)
    (14, ACTION, {"type": "pass"}, "boris"),                    # boris 12 h: 2 h over the pace
    (15, ACTION, {"type": "standing_order"}, "clara"),          # no move: clara's clock runs on
    (16, ACTION, {"type": "pass"}, "clara"),                    # clara 2 h (from boris's move)
    (17, ADMIN, {"type": "away", "player": "anna", "seconds": 2 * DAY}, "anna"),
    (20, ACTION, {"type": "pass"}, "anna"),                     # anna 4 h, 3 h of it away: 1 h
    (21, ACTION, {"type": "pass"}, "boris"),                    # boris 1 h
    (51, ACTION, {"type": "pass"}, "clara"),                    # clara 30 h: 20 over the pace
    (52, ACTION, {"type": "pass"}, "anna", "played by the computer"),  # not anna's own
    (55, ACTION, {"type": "pass"}, "boris"),                    # boris 3 h
)
"""By hand: anna's own waits 1 h, 1 h (4 h less 3 h away: a holiday is no time to act);
boris 12 h, 1 h, 3 h; clara 2 h, 30 h.
Medians: anna 1 h, boris 3 h, clara 16 h; 90th percentile (nearest rank, the
ceil(0.9 n)-th smallest): anna 1 h (2nd of 2), boris 12 h (3rd of 3), clara 30 h.
Banks (30 h each, pace 10 h): anna 1 h → refills nothing (full), the 4 h (from 16 h)
counts 1 h (away from 17 h) → full, 30 h; boris 12 h spends 2 h, 1 h gives back 4.5 h (up to full), 3 h
gives back 3.5 h → 30 h; clara 2 h → full, 30 h spends 20 h → 10 h. Away: anna 2 d."""

NOW = T0 + timedelta(hours=56)


def test_nearest_rank_is_the_value_that_share_of_them_do_not_exceed() -> None:
    assert nearest_rank([5.0, 1.0, 3.0], 0.9) == 5.0
    assert nearest_rank(list(map(float, range(1, 11))), 0.9) == 9.0
    assert nearest_rank([7.0], 0.9) == 7.0


def test_stats_figures_match_the_hand_computed_log() -> None:
    figures = {f.player: f for f in player_stats(RECORD, LOG, NOW, acting="anna")}
    assert [(f.decisions, f.median, f.p90) for f in figures.values()] == [
        (2, 1 * HOUR, 1 * HOUR), (3, 3 * HOUR, 12 * HOUR), (2, 16 * HOUR, 30 * HOUR)]
    # anna acts now, 1 h into her decision: within the pace, nothing spent yet
    assert [f.bank_left for f in figures.values()] == [30 * HOUR, 30 * HOUR, 10 * HOUR]
    assert [f.away_used for f in figures.values()] == [2 * DAY, 0, 0]
    text = stats_text(RECORD, LOG, NOW, acting="anna")
    assert "Anna: median 1h, 90% within 1h (2 moves); 1 move by the computer, not timed · bank 1d 6h left · " \
        "away 2d" in text
    assert "Clara: median 16h, 90% within 1d 6h (2 moves) · bank 10h left · never away" in text


def test_without_a_pace_there_is_no_bank_to_show() -> None:
    log = [e for e in LOG if e.action.get("type") != "clock"]
    assert all(f.bank_left is None for f in player_stats(RECORD, log, NOW, acting=None))
    assert "no pace set" in stats_text(RECORD, log, NOW, acting=None)


async def test_stats_at_the_table_and_in_the_end_post(store: SqliteEventStore) -> None:
    table = Table(TroikaService(store, pictures=False))
    await table.say("new Anna Boris Clara")
    assert "Anna: no moves yet · no pace set · never away" in await table.say("stats")
    first = (await table.game()).state.players[(await table.game()).state.priority].name
    await table.say(f"as {first} pass")
    stats = await table.say("stats")
    assert f"{first}: median 0m, 90% within 0m (1 move)" in stats
    ended = await table.say("as Anna end confirm")
    assert "Game over" in ended and "Time at the table" in ended and f"{first}: median 0m" in ended
    assert "Time at the table" in await table.say("stats")  # a finished game's stats stay readable


def test_away_time_is_written_as_players_write_durations() -> None:
    """A few seconds away (`away 1h` then `back` at once) reads "never away", an hour
    "away 1h", never "away 7.11e-08 d" (checker of issue 38)."""
    from bot.stats import PlayerStats, _player_line

    assert _player_line(PlayerStats("anna", 0, None, None, None, 0.006)).endswith("never away")
    assert _player_line(PlayerStats("anna", 0, None, None, None, 3600.0)).endswith("away 1h")


def test_counts_are_written_singular_for_one_and_plural_otherwise() -> None:
    from bot.posts import holdings_text
    from engine import Game, counted

    assert [counted(n, "loan") for n in (0, 1, 2)] == ["0 loans", "1 loan", "2 loans"]
    game = Game.new([("a", "Anna"), ("b", "Boris"), ("c", "Clara")], 1867, title="1867")
    company = next(c for c in game.state.companies.values() if c.is_major)
    company.floated, company.cash, company.loans = True, 100, 1
    text = holdings_text(game)
    assert f"**{company.sym}** " in text and "· 1 loan" in text and "loan(s)" not in text
    company.loans = 2
    assert "· 2 loans" in holdings_text(game)


async def test_an_imported_games_moves_are_said_to_be_untimed_not_missing(store: SqliteEventStore) -> None:
    """Re-checker's low item: the moves an imported game came with are not timed, and
    `stats` says so (it said "no moves yet" of players who had made dozens)."""
    log, _ = shared_game("1861-29683")
    cut = {**log, "actions": log["actions"][:40], "result": {}}
    service = TroikaService(store, pictures=False)
    await service.import_site_game("c1", Account("u1", "Player 1"), json.dumps(cut).encode())
    [record] = await store.list_games()
    stats = (await service.handle("c1", Account("u1", "Player 1"), "stats")).text
    events = await store.events(record.id)
    for seat in record.seats:
        made = sum(1 for e in effective_events(events) if e.actor == seat.player_id and e.kind is ACTION)
        assert made and f"{seat.display_name}: {counted(made, 'move')} before the game came to Troika, " \
            "not timed" in stats, stats
    assert "no moves yet" not in stats
