"""Games that survive absent players (issue 38): pace and banks, holidays and quiet
hours, the time-out policies, all driven through the console (the service Discord
calls too) with an injected clock that both the service and the store read, so days
of play pass in seconds."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.console import CHANNEL
from bot.errors import Refusal
from bot.service import Account, Post, TroikaService
from bot.setting_up import game_choice
from bot.workers import ServicePool
from storage import Event, EventKind, GameStatus, SqliteEventStore
from tests.test_bot_service import Table

MONDAY = datetime(2027, 1, 4, 12, 0, tzinfo=UTC)
"""12:00 UTC: 13:00 in Amsterdam, 21:00 in Tokyo."""


class Clock:
    """The one time the service and the store read, moved on by the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, start: datetime = MONDAY) -> None:
        self.now = start
        for module in ("storage.sql", "storage.repository"):  # the times events are stored at
            monkeypatch.setattr(f"{module}.utc_now", self)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The injected time, at :data:`MONDAY`."""
    return Clock(monkeypatch)


PLAYERS = [("anna", "Anna"), ("boris", "Boris"), ("clara", "Clara")]


async def _table(store: SqliteEventStore, clock: Clock, players: list[tuple[str, str]] = PLAYERS,
                 **settings: object) -> Table:
    service = TroikaService(store, clock=clock, pictures=False)
    await service.start_local_game(CHANNEL, players, first_player=0, seed=1861, **settings)  # type: ignore[arg-type]
    return Table(service)


async def _stored(store: SqliteEventStore) -> list[tuple[int, str]]:
    return [(e.seq, e.kind.value) for e in await store.events(1)]


async def _acting(table: Table) -> str:
    game = await table.game()
    return str(game.state.player(game.acting_player()).name)


def _bank(status: str, name: str) -> str:
    found = re.search(rf"{name} ([\dmdh ]+?)(?:,| ·)", status.split("banks left: ")[1])
    assert found, status
    return found[1]


async def test_the_pace_spends_the_bank_and_a_quick_decision_refills_half_the_rest(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _table(store, clock)
    assert "Pace: 1d per decision; beyond it each player spends from a bank of 3d" in await table.say(
        "as Anna pace 24h")
    clock.advance(hours=30)  # Anna takes 30 h: 6 h over the pace
    status = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status
    assert _bank(status, "Anna") == "2d 18h" and _bank(status, "Boris") == "3d"
    await table.say("as Anna bid TSR 20")
    while await _acting(table) != "Anna":  # the others, within the pace (full banks: nothing to give back)
        clock.advance(hours=1)
        assert "✗" not in await table.say(f"as {await _acting(table)} pass")
    clock.advance(hours=14)  # Anna, 10 h within the pace: 5 h back
    await table.say("as Anna pass")
    status = await table.say("status")
    assert _bank(status, "Anna") == "2d 23h" and _bank(status, "Boris") == "3d"


async def test_bad_clock_input_is_refused_in_one_line_and_changes_nothing(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _table(store, clock)
    await table.say("as Anna pace 24h")
    before, status = await _stored(store), await table.say("status")
    for line in ("as Anna pace 0", "as Anna pace soon", "as Boris away 400d", "as Boris away 15d",
                 "as Clara tz Mars/Olympus", "as Clara quiet 25:00-08:00", "as Anna on-timeout nap",
                 "as Boris pace 2h", "as Anna bank forever", "as Boris away 5", "as Anna pace 24h",
                 "as Anna pace 1d", "as Boris away 14d 1h", "as Clara quiet 08:00-21:00", "as Clara tz europe/nowhere",
                 "as Anna bank 3 days"):
        said = await table.say(line)
        assert said.startswith("✗ ") and "\n" not in said, (line, said)
    assert await _stored(store) == before and await table.say("status") == status


async def test_away_stops_the_clock_tells_the_table_and_back_ends_it(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    said = await table.say("as Anna away 5d")
    assert "Anna is away for 5d, until 2027-01-09 12:00 UTC: their clock stands still" in said
    clock.advance(days=4)
    status = await table.say("status")
    assert "(stopped: away)" in status and _bank(status, "Anna") == "1d 12h"
    assert "Anna is away until 2027-01-09 12:00 UTC" in status
    assert "✗ You may be away 9d more in this game" in await table.say("as Anna away 10d")
    assert "Anna is back; their clock runs again" in await table.say("as Anna back")
    clock.advance(hours=13)  # 13 h since she came back: 1 h over
    assert _bank(await table.say("status"), "Anna") == "1d 11h"
    assert "✗ You are neither away" in await table.say("as Anna back")
    assert "may be away 10d more" in await table.say("as Anna away 11d")  # 4 days used of 14


async def test_reminders_wait_for_the_end_of_quiet_hours_in_tokyo_and_amsterdam(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _table(store, clock, [("anna", "Anna"), ("kenji", "Kenji"), ("clara", "Clara")])
    service = table.service
    await table.say("as Anna remind 2")
    for line in ("as Kenji tz Asia/Tokyo", "as Kenji quiet 23:00-08:00", "as Anna tz Europe/Amsterdam",
                 "as Anna quiet 14:30-16:00"):
        assert "✗" not in await table.say(line)
    sent: list[Post] = []

    async def reminders_at(moment: datetime) -> list[str]:
        clock.now = moment
        await service.send_reminders()
        start = len(sent)
        await service.flush(_collect(sent))
        return [p.text for p in sent[start:] if p.text.startswith("⏰")]

    # Anna (Amsterdam, quiet 14:30-16:00 = 13:30-15:00 UTC) is due a reminder at 14:00 UTC
    assert await reminders_at(MONDAY + timedelta(hours=2)) == []
    assert await reminders_at(MONDAY + timedelta(hours=2, minutes=59)) == []
    assert await reminders_at(MONDAY + timedelta(hours=3)) == ["⏰ Your turn has waited 3h."]
    await service.handle(CHANNEL, Account("anna", "Anna"), "bid TSR 20")  # at 15:00 UTC = 00:00 in Tokyo
    assert await _acting(table) == "Kenji"
    # Kenji's reminder falls due at 17:00 UTC (02:00 in Tokyo) and waits until 08:00 there (23:00 UTC)
    assert await reminders_at(MONDAY + timedelta(hours=5)) == []
    assert await reminders_at(MONDAY + timedelta(hours=10, minutes=59)) == []
    player, channel = await reminders_at(MONDAY + timedelta(hours=11))  # the channel's was due too
    assert player == "⏰ Your turn has waited 8h." and channel.startswith("⏰ **Kenji** has not acted for 8h.")


async def _timing_out(store: SqliteEventStore, clock: Clock, policy: str) -> Table:
    """A table whose pace is an hour and banks empty; Anna has bid, Boris is to act."""
    table = await _table(store, clock)
    for line in ("as Anna pace 1h", "as Anna bank 0", f"as Anna on-timeout {policy}", "as Anna bid TSR 20"):
        assert "✗" not in await table.say(line)
    assert await _acting(table) == "Boris"
    return table


def _moves(events: list[Event], player: str) -> list[Event]:
    return [e for e in events if e.kind is EventKind.ACTION and e.actor == player]


async def test_on_timeout_wait_tells_the_commissioner_once(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _timing_out(store, clock, "wait")
    clock.advance(minutes=59)
    assert "time bank ran out" not in await table.say("status")
    clock.advance(minutes=2)
    told = await table.say("status")  # any line at the console runs the reminder pass
    assert "⌛ Boris's time bank ran out on this decision. The commissioner may act for them (`as Boris ...`)" in told
    assert "\n▶ Anna: Boris bids on TSR" in told  # the commissioner is called (a mention on Discord)
    clock.advance(hours=5)
    assert "ran out" not in await table.say("status")  # once per decision
    assert _moves(await store.events(1), "boris") == []  # nobody moved for him


async def test_on_timeout_computer_plays_the_seat_until_its_player_is_back_and_is_undone(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _timing_out(store, clock, "computer")
    before = (await table.game()).dump()
    clock.advance(hours=2)
    said = await table.say("status")
    assert "⌛ Boris's time bank ran out: the computer plays their seat until they type `back`" in said
    [move, *_] = _moves(await store.events(1), "boris")
    assert "played by the computer" in (move.note or "")
    assert "Boris" in said and "played by the computer" in said  # posted and marked
    assert "Boris is back and plays their own seat" in await table.say("as Boris back")
    undone = await table.say(f"as Anna undo {move.seq} the computer moved for Boris")
    assert "✗" not in undone, undone
    while (await table.game()).dump() != before and "✗" not in undone:
        undone = await table.say("as Anna undo the computer moved for Boris")
    assert (await table.game()).dump() == before and await _acting(table) == "Boris"


async def test_on_timeout_pass_makes_the_safe_move_marked_and_undoable(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _timing_out(store, clock, "pass")
    before = (await table.game()).dump()
    clock.advance(hours=1, minutes=1)
    said = await table.say("status")
    assert "Boris: `pass` (time ran out: the safe move made for them)" in said, said
    [move] = _moves(await store.events(1), "boris")
    assert move.action["type"] == "pass" and (await table.game()).state.player("boris").cash == 420  # spent nothing
    assert await _acting(table) == "Clara"
    assert "✗" not in await table.say("as Anna undo Boris ran out of time")
    assert (await table.game()).dump() == before


@pytest.mark.slow
async def test_time_outs_fire_through_the_worker_pool(tmp_path: Path, clock: Clock) -> None:
    anna, boris = Account("anna", "Anna"), Account("boris", "Boris")
    async with SqliteEventStore(tmp_path / "pool.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        await pool.start_local_game("chan", [("anna", "Anna"), ("boris", "Boris"), ("clara", "Clara")],
                                    first_player=0, seed=1861)
        for line in ("pace 1h", "bank 0", "on-timeout computer", "bid TSR 20"):
            await pool.handle("chan", anna, line)
        clock.advance(minutes=30)
        await pool.send_reminders(clock())
        assert _moves(await store.events(1), "boris") == []
        clock.advance(hours=1)
        await pool.send_reminders(clock())  # the worker of the channel applies the time-out at the bot's time
        events = await store.events(1)
        assert any(e.action.get("type") == "computer" and e.action.get("timeout") for e in events)
        assert "played by the computer" in (_moves(events, "boris")[0].note or "")
        sent: list[Post] = []
        await pool.flush(_collect(sent))
        assert any("time bank ran out" in p.text for p in sent)
        await pool.handle("chan", boris, "back")
        assert "boris" not in [e.action.get("player") for e in await store.events(1)
                               if e.action.get("type") == "computer" and e.action.get("on")][1:]


def _collect(sent: list[Post]) -> Callable[[Post], object]:
    async def deliver(post: Post) -> None:
        sent.append(post)
    return deliver


FOUR = [("anna", "Anna"), ("boris", "Boris"), ("clara", "Clara"), ("dmitri", "Dmitri")]
AWAY = {"Boris": (1, 8), "Clara": (3, 10)}
"""Who is away (days after the start, from, until): each types `away 7d` on the first day."""


@pytest.mark.slow  # a whole game, about two minutes on an idle machine
@pytest.mark.timeout(900)
async def test_a_four_week_game_with_two_holidays_and_a_player_who_never_returns_finishes_unattended(
    store: SqliteEventStore, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A short game of 1861. Anna sets the policy once; Boris and Clara each go away for
    a week; Dmitri never types a thing. The others move when it is their turn, as the
    computer would advise them (`hint`), at the top of each hour; the reminder pass runs
    every hour. Dmitri's bank runs out, the computer takes his seat, and the game ends
    within four weeks with no other word from the commissioner."""
    clock = Clock(monkeypatch)
    table = await _table(store, clock, FOUR, rules=game_choice(["1861", "short"]).rules())
    for line in ("as Anna pace 12h", "as Anna bank 1d", "as Anna on-timeout computer"):
        assert "✗" not in await table.say(line)
    typed: list[str] = []
    gone: set[str] = set()
    while not await _over(store):
        day = (clock() - MONDAY).total_seconds() / 86400
        assert day < 28, "the game did not finish in four weeks"
        for name, (start, _) in AWAY.items():
            if day >= start and name not in gone:
                gone.add(name)
                assert "is away for 7d" in await table.say(f"as {name} away 7d")
        for _ in range(60):
            ask = (await table.service.core.ledger(1)).ask
            name = _name(ask.consenter) if ask else await _acting(table)
            if name == "Dmitri" or any(name == who and a <= day < b for who, (a, b) in AWAY.items()):
                break  # the game waits for them (their clock, or their bank)
            move = "agree" if ask else await _advised(table, name, store)
            said = await table.say(f"as {name} {move}")
            typed.append(f"{name}: {move}")
            assert "✗" not in said, (name, move, said)
            if "refuses" in said or await _over(store):
                break
        clock.advance(hours=1)
        await table.service.send_reminders()
        await table.service.flush(_collect([]))
    events = await store.events(1)
    commissioner = [e.action for e in events if e.action.get("type") in ("clock", "pause", "resume", "settings")
                    or e.kind in (EventKind.SEAT, EventKind.UNDO) or "(commissioner)" in (e.note or "")]
    assert commissioner == [{"type": "clock", "pace": 43200.0}, {"type": "clock", "bank": 86400.0},
                            {"type": "clock", "on_timeout": "computer"}]  # the policy, and nothing more
    handed = [e for e in events if e.action.get("type") == "computer"]
    assert [(e.action["player"], e.action.get("timeout")) for e in handed] == [("dmitri", True)]
    assert not any(e.actor == "dmitri" and e.kind is EventKind.ACTION and "computer" not in (e.note or "")
                   for e in events)
    assert [e.action["player"] for e in events if e.action.get("type") == "away"] == ["boris", "clara"]
    assert all(e.actor == "dmitri" for e in events if e.note == "time ran out")  # refused for him alone
    days = (clock() - MONDAY).total_seconds() / 86400
    back = max(until for _, until in AWAY.values())
    assert back < days < 28 and len(typed) > 50, (days, len(typed))  # the game outlasted both holidays


async def _over(store: SqliteEventStore) -> bool:
    return (await store.get_game(1)).status is GameStatus.FINISHED


def _refused_for_absent(events: list[Event]) -> set[str]:
    """The deals refused for an absent player since the last move."""
    last = max((e.seq for e in events if e.kind is not EventKind.ADMIN), default=0)
    asks = [e for e in events if e.seq > last and e.action.get("type") in ("ask", "answer")]
    return {str(ask.action["command"]) for ask, answer in zip(asks, asks[1:], strict=False)
            if ask.action["type"] == "ask" and answer.note == "time ran out"}


def _name(player_id: str) -> str:
    return dict(FOUR)[player_id]


async def _advised(table: Table, name: str, store: SqliteEventStore) -> str:
    """The computer's advice to ``name`` (`hint`), or, where its deal was refused before,
    a pass or a train from the bank, else the first other choice `status` offers as it is typed."""
    advice = await table.say(f"as {name} hint")
    words = re.search(r"The computer would `([^`]+)`", advice)
    assert words, advice
    deal = words[1].split()[0] in ("train", "private", "merge")  # those a player may have to agree to
    if not deal or words[1] not in _refused_for_absent(await store.events(1)):
        return words[1]
    may = (await table.say("status")).split("May: ")[1].split("\n")[0]
    choices = re.findall(r"`([^`]+)`", may)
    plain = [m for m in choices if ".." not in m and not re.search(r"\b[A-Z]{4,}\b", m) and " from " not in m]
    return next((m for m in plain if m == "pass" or re.fullmatch(r"train [\w-]+", m)), plain[0])


async def test_status_on_discord_writes_when_the_clock_started_as_a_discord_timestamp(
    store: SqliteEventStore, clock: Clock,
) -> None:
    service = TroikaService(store, clock=clock, pictures=False, timestamps=True)
    await service.start_local_game("chan", PLAYERS, first_player=0, seed=1861)
    anna = Account("anna", "Anna")
    await service.handle("chan", anna, "pace 24h")
    await service.handle("chan", Account("boris", "Boris"), "away 3d")
    clock.advance(hours=25)
    status = (await service.handle("chan", anna, "status")).text
    assert f"Clock: Anna's runs since <t:{int(MONDAY.timestamp())}:R>" in status
    assert "banks left: Anna 2d 23h, Boris 3d, Clara 3d" in status
    assert f"Boris is away until <t:{int((MONDAY + timedelta(days=3)).timestamp())}:R>" in status


async def test_the_time_out_policy_is_chosen_at_new_and_a_bad_one_sets_up_nothing(
    store: SqliteEventStore, clock: Clock,
) -> None:
    service = TroikaService(store, clock=clock, pictures=False)
    anna, boris = Account("anna", "Anna"), Account("boris", "Boris")
    with pytest.raises(Refusal, match="on-timeout wait|computer|pass"):
        await service.handle("chan", anna, "new 1861 on-timeout nap")
    assert await store.list_games() == []
    await service.handle("chan", anna, "new 1861 short on-timeout computer")
    await service.handle("chan", boris, "join")
    await service.handle("chan", anna, "start")
    await service.handle("chan", anna, "pace 1h")
    assert "on time-out: computer" in (await service.handle("chan", anna, "status")).text
    clock.advance(hours=5)  # the pace and a bank of three paces are over for whoever acts
    await service.send_reminders()
    assert any(e.action.get("type") == "computer" and e.action.get("timeout") for e in await store.events(1))


async def test_setting_or_cancelling_a_standing_order_leaves_the_clock_running(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Only a move ends a decision: `auto run`, `auto off` or taking them back does not
    restart the player's clock (nor refill the bank). (An order that acts at once does:
    tests/test_bot_orders.py.)"""
    table = await _table(store, clock)
    await table.say("as Anna pace 24h")
    for line in ("as Anna auto run", "as Anna auto off", "as Anna auto pay withhold", "as Anna undo",
                 "as Anna redo"):
        clock.advance(hours=8)
        assert "✗" not in await table.say(line), line
    clock.advance(hours=10)  # 50 h since her decision fell due: 26 h over the pace
    status = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status and _bank(status, "Anna") == "1d 22h", status
    assert "Anna: no moves yet" in await table.say("stats")
    await table.say("as Anna bid TSR 20")
    assert "Anna: median 2d 2h, 90% within 2d 2h (1 move)" in await table.say("stats")


async def test_status_and_stats_read_one_start_for_each_decision(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """By hand: Anna's decision falls due at 12:00; the pace is set at 13:00 (it counts
    from then), she is away from 14:00 and back at 15:00 (the holiday stops the clock
    only while it lasts) and bids at 19:00. `status` says her clock runs since 13:00 and
    has waited 5 h; `stats` says she took 5 h (6 h less the hour away)."""
    table = await _table(store, clock)
    for hours, line in ((1, "as Anna pace 24h"), (1, "as Anna away 1d"), (1, "as Anna back")):
        clock.advance(hours=hours)
        assert "✗" not in await table.say(line), line
    clock.advance(hours=4)
    said = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 13:00 UTC" in said and "(waiting 5h)" in said, said
    await table.say("as Anna bid TSR 20")
    assert "Anna: median 5h, 90% within 5h (1 move)" in await table.say("stats")
    assert "Time to act (median): Anna 5h (1 move)" in await table.say("status")
    clock.advance(hours=2)  # Boris: from Anna's bid
    assert "Clock: Boris's runs since 2027-01-04 19:00 UTC" in await table.say("status")
    await table.say("as Boris pass")
    assert "Boris: median 2h, 90% within 2h (1 move)" in await table.say("stats")


async def test_away_after_a_short_back_says_what_is_left_rounded_down_and_what_it_says_fits(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Away a few seconds of the 14 days: `away 14d` no longer fits, and the refusal says
    so without rounding the few seconds away (it said 14d were left); what it offers fits."""
    table = await _table(store, clock)
    await table.say("as Boris away 1h")
    clock.advance(seconds=5)
    await table.say("as Boris back")
    said = await table.say("as Boris away 14d")
    assert said == "✗ You may be away 13d 23h 59m more in this game (the limit is 14d); `away 13d` fits.", said
    assert "is away for 13d" in await table.say("as Boris away 13d")


@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.slow)])
async def test_the_consoles_new_reads_the_time_out_policy_as_discords_does(tmp_path: Path, workers: int) -> None:
    """At the console too (and through the worker pool `troika run` starts): `new NAMES
    on-timeout pass` seats the named players and sets the policy; a bad one sets up nothing."""
    async with SqliteEventStore(tmp_path / "console.db") as store, \
            ServicePool(store, workers=workers, pictures=False) as pool:
        table = Table(pool)  # type: ignore[arg-type]
        said = await table.say("new Anna Boris Clara on-timeout nap")
        assert said.startswith("✗ Write it as `new ... on-timeout wait|computer|pass`"), said
        assert await store.list_games() == []
        assert "✗" not in await table.say("new Anna Boris Clara on-timeout pass")
        [record] = await store.list_games()
        assert [s.display_name for s in record.seats] == ["Anna", "Boris", "Clara"]
        assert "✗" not in await table.say("as Anna pace 1h")
        assert "on time-out: pass" in await table.say("status")


async def test_the_pinned_status_shows_the_clock_lines_status_shows(store: SqliteEventStore, clock: Clock) -> None:
    table = await _table(store, clock)
    for line in ("as Anna pace 24h", "as Boris away 3d"):
        assert "✗" not in await table.say(line)
    clock.advance(hours=25)
    pinned = (await table.service.status(1)).text
    typed = await table.say("status")
    for line in ("Clock: Anna's runs since 2027-01-04 12:00 UTC", "banks left: Anna 2d 23h, Boris 3d, Clara 3d",
                 "Boris is away until 2027-01-07 12:00 UTC", "bids on TSR (waiting 1d 1h)"):
        assert line in pinned and line in typed, (line, pinned)


@pytest.mark.slow
async def test_the_pinned_status_shows_the_clock_lines_through_the_worker_pool(tmp_path: Path) -> None:
    anna = Account("anna", "Anna")
    async with SqliteEventStore(tmp_path / "pool.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        await pool.start_local_game("chan", PLAYERS, first_player=0, seed=1861)
        await pool.handle("chan", anna, "pace 24h")
        pinned = (await pool.status(1)).text
        assert "Clock: Anna's runs since" in pinned and "banks left: Anna 3d, Boris 3d, Clara 3d" in pinned


# --- the checker's dodges (issue 38, second round) ------------------------------------------


async def _reminded(table: Table, sent: list[Post]) -> list[str]:
    """The reminders the periodic pass sends now."""
    await table.service.send_reminders()
    start = len(sent)
    await table.service.flush(_collect(sent))
    return [p.text for p in sent[start:] if p.text.startswith("⏰")]


async def test_away_then_back_keeps_the_time_waited_and_the_bank_spent(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's item 1: Anna waits 40 h at a pace of 12 h (bank 1d 12h: 8 h left), is away
    half an hour and back: her bank is still 8 h and her clock still runs since the
    decision fell due; she bids 10.5 h later and `stats` counts 50.5 h (51 h less the
    half hour away). Before the fix `back` gave her a full bank and a clock from then."""
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    clock.advance(hours=40)
    assert _bank(await table.say("status"), "Anna") == "8h"
    await table.say("as Anna away 1h")
    clock.advance(minutes=30)
    assert "Anna is back" in await table.say("as Anna back")
    status = await table.say("status")
    assert _bank(status, "Anna") == "8h" and "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status, status
    clock.advance(hours=4)
    assert _bank(await table.say("status"), "Anna") == "4h"
    clock.advance(hours=6, minutes=30)
    await table.say("as Anna bid TSR 20")
    assert "Anna: median 2d 2h 30m" in await table.say("stats")


async def test_quiet_hours_and_zones_hold_from_when_they_are_set_and_last_at_most_12_hours(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's item 2: pace 12 h, bank 12 h; Anna waits 20 h (4 h left), then sets quiet
    hours that would have covered 8 h of that wait: her bank stays 4 h (before the fix:
    12 h again). A whole day of quiet is refused; a change of zone changes nothing past."""
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    await table.say("as Anna bank 12h")
    clock.advance(hours=20)  # Tuesday 08:00 UTC
    assert _bank(await table.say("status"), "Anna") == "4h"
    assert "✗ Quiet hours last at most 12 hours a day" in await table.say("as Anna quiet 00:00-23:59")
    assert "✗" not in await table.say("as Anna quiet 00:00-12:00")
    status = await table.say("status")
    assert _bank(status, "Anna") == "4h" and "(stopped: quiet hours)" in status, status
    clock.advance(hours=4)  # quiet until 12:00: nothing spent
    assert _bank(await table.say("status"), "Anna") == "4h"
    assert "✗" not in await table.say("as Anna tz Asia/Tokyo")  # 21:00 there: not quiet now
    assert _bank(await table.say("status"), "Anna") == "4h"
    clock.advance(hours=1)
    assert _bank(await table.say("status"), "Anna") == "3h"


async def _bid_and_undo(store: SqliteEventStore, clock: Clock, hours: float) -> Table:
    """Pace 12 h: Anna bids after ``hours`` and takes it back 5 min later."""
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    clock.advance(hours=hours)
    await table.say("as Anna bid TSR 20")
    clock.advance(minutes=5)
    assert "✗" not in await table.say("as Anna undo")
    return table


async def test_an_undone_move_is_no_decision_and_the_clock_resumes_from_its_start(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's item 3: Anna waits 30 h at a pace of 12 h (18 h of her 1d 12h bank left),
    bids and takes it back 5 min later: her decision runs again since Monday 12:00 (before
    the fix: since the undo, a fresh pace; the 5 min after the bid count too), and `stats`
    counts no move of hers."""
    table = await _bid_and_undo(store, clock, 30)
    assert await _acting(table) == "Anna"
    status = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status and _bank(status, "Anna") == "17h 55m", status
    assert "Anna: no moves yet" in await table.say("stats")
    clock.advance(hours=1)
    assert _bank(await table.say("status"), "Anna") == "16h 55m"


async def test_a_holiday_that_ends_by_itself_is_not_time_to_act_for_reminders(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's item 4: Anna is away a day from when her decision falls due; an hour after
    it ends she has waited 1 h, not 25 h: no reminder yet (before the fix: "waited 25 h" at
    once), one after 2 h."""
    table = await _table(store, clock)
    await table.say("as Anna remind 2")
    await table.say("as Anna away 1d")
    sent: list[Post] = []
    clock.advance(hours=25)
    assert await _reminded(table, sent) == []
    assert "(waiting 1h)" in await table.say("status")
    clock.advance(hours=1)
    assert await _reminded(table, sent) == ["⏰ Your turn has waited 2h."]


async def test_reminders_and_status_count_from_one_start_after_away_and_back(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's item 5: Anna waits 3 h, is away an hour, back, and waits an hour more:
    `status` and the reminder both say 4 h (before the fix: status 1 h, reminder 5 h)."""
    table = await _table(store, clock)
    await table.say("as Anna remind 4")
    clock.advance(hours=3)
    await table.say("as Anna away 1d")
    clock.advance(hours=1)
    await table.say("as Anna back")
    clock.advance(hours=1)
    assert await _reminded(table, []) == ["⏰ Your turn has waited 4h."]
    assert "(waiting 4h)" in await table.say("status")


# --- the re-checker's dodges (issue 38, third round) ------------------------------------------


async def test_undo_then_redo_of_ones_own_move_keeps_the_bank_spent_and_the_move_in_stats(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Re-checker's item 1: pace 12 h, Anna waits 40 h (28 h of her 1d 12h bank spent),
    bids, takes it back 5 min later and redoes it an hour after that. The redo is the bid
    made again: the hour she held it back is hers too, so 7 h are left and `stats` counts
    one move of 41 h; Boris's decision runs on from the bid (the hour between the undo
    and the redo is not his). Before the fix the redo gave her a full bank and no move."""
    table = await _bid_and_undo(store, clock, 40)
    clock.advance(hours=1)
    assert _bank(await table.say("status"), "Anna") == "6h 55m"  # the 5 min after the bid count too
    assert "✗" not in await table.say("as Anna redo")
    status = await table.say("status")
    assert _bank(status, "Anna") == "7h" and "Clock: Boris's runs since 2027-01-06 04:00 UTC" in status, status
    assert "(waiting 5m)" in status, status
    assert "Anna: median 1d 17h, 90% within 1d 17h (1 move)" in await table.say("stats")
    clock.advance(hours=13)  # Boris: 13 h 5 min on this decision, 1 h 5 min over
    assert _bank(await table.say("status"), "Boris") == "1d 10h 55m"


async def test_a_commissioners_undo_of_three_moves_and_their_redo_give_each_bank_and_wait_back(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Anna waits 40 h and bids, Boris 20 h and passes, Clara 1 h and passes (pace 12 h,
    banks 1d 12h). The commissioner takes the three back: no moves in `stats`, Boris's
    and Clara's banks whole again, Anna's decision open since Monday. Redone at once,
    every bank and wait is as the moves left them."""
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    for hours, line in ((40, "as Anna bid TSR 20"), (20, "as Boris pass"), (1, "as Clara pass")):
        clock.advance(hours=hours)
        assert "✗" not in await table.say(line), line
    moved = await table.say("stats")
    for _ in range(3):
        assert "✗" not in await table.say("as Anna undo to test the clock")
    status = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status, status
    assert _bank(status, "Boris") == "1d 12h" and _bank(status, "Clara") == "1d 12h", status
    assert "Anna: no moves yet" in await table.say("stats")
    for _ in range(3):
        assert "✗" not in await table.say("as Anna redo")
    assert await table.say("stats") == moved
    status = await table.say("status")
    assert (_bank(status, "Anna"), _bank(status, "Boris"), _bank(status, "Clara")) == ("8h", "1d 4h", "1d 12h")


async def test_an_undo_past_a_pace_setting_counts_the_pace_from_when_it_was_set(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Anna bids at 14:00 with no pace; the pace (12 h) is set at 15:00 and she takes her
    bid back at 16:00: her decision is open again, but the pace counts from 15:00, never
    back (before the fix: from 12:00, three hours of her bank gone)."""
    table = await _table(store, clock)
    clock.advance(hours=2)
    await table.say("as Anna bid TSR 20")
    clock.advance(hours=1)
    await table.say("as Anna pace 12h")
    clock.advance(hours=1)
    assert "✗" not in await table.say("as Anna undo")
    clock.advance(hours=14)  # 15 h since the pace was set: 3 h over
    status = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 15:00 UTC" in status and _bank(status, "Anna") == "1d 9h", status


async def test_quiet_hours_moved_twice_a_day_stop_the_clock_at_most_12_hours_a_day(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Re-checker's item 2: Anna moves her quiet hours on as each ends, 11 h at a time,
    for two and a half days. However often they change, at most 12 h of each day (UTC)
    are quiet: by Wednesday 19:00 she has waited 55 h of which 36 h were quiet, so 19 h
    count, 7 h over the pace (before the fix none counted: the clock had stopped)."""
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    for hours, hours_quiet in ((0, "12:00-23:00"), (11, "23:00-10:00"), (11, "10:00-21:00"),
                               (11, "21:00-08:00"), (11, "08:00-19:00")):
        clock.advance(hours=hours)
        assert "✗" not in await table.say(f"as Anna quiet {hours_quiet}")
    clock.advance(hours=11)
    status = await table.say("status")
    assert _bank(status, "Anna") == "1d 5h" and "stopped" not in status, status


async def test_a_time_zone_changed_twice_a_day_stops_the_clock_at_most_12_hours_a_day(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Quiet 08:00-20:00, the zone switched between UTC and UTC-12 as each stretch ends,
    so that every hour is quiet somewhere: 12 h a day count still. Wednesday 20:00: 56 h
    waited, 36 h quiet, 20 h counted, 8 h over (before the fix: nothing counted)."""
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    assert "✗" not in await table.say("as Anna quiet 08:00-20:00")
    for zone in ("Etc/GMT+12", "UTC", "Etc/GMT+12", "UTC"):
        clock.advance(hours=12 if zone != "Etc/GMT+12" or clock() > MONDAY else 8)
        assert "✗" not in await table.say(f"as Anna tz {zone}")
    clock.advance(hours=12)
    assert clock() == MONDAY + timedelta(hours=56)
    assert _bank(await table.say("status"), "Anna") == "1d 4h"


async def test_a_player_may_not_undo_a_move_made_for_them_when_their_time_ran_out(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Re-checker's item 3: Boris's time ran out and the safe move was made for him. His
    own `undo` is refused in one line and changes nothing (before: it was taken back and
    the time-out never came again); the commissioner's undo is allowed."""
    table = await _timing_out(store, clock, "pass")
    clock.advance(hours=1, minutes=1)
    assert "time ran out" in await table.say("status")
    before = await _stored(store)
    said = await table.say("as Boris undo")
    assert said.startswith("✗ That move was made for you when your time ran out") and "\n" not in said, said
    assert await _stored(store) == before
    assert "✗" not in await table.say("as Anna undo Boris asked")


async def test_a_player_may_not_undo_the_computers_move_for_them_after_a_time_out(
    store: SqliteEventStore, clock: Clock,
) -> None:
    table = await _timing_out(store, clock, "computer")
    clock.advance(hours=2)
    await table.say("status")
    assert "✗" not in await table.say("as Boris back")
    said = await table.say("as Boris undo")
    assert said.startswith("✗ That move was made for you by the computer"), said


async def test_re_setting_the_pace_neither_restarts_the_clock_nor_refills_the_bank(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Re-checker's item 4: pace 12 h, bank 36 h; Anna waits 40 h (8 h left). The same
    pace again is refused and changes nothing; a new pace (1 d) applies from now: the
    28 h spent stay spent, and as her decision has waited longer than the new pace too,
    each hour more spends (before the fix: a full bank and a fresh clock)."""
    table = await _table(store, clock)
    await table.say("as Anna pace 12h")
    await table.say("as Anna bank 36h")
    clock.advance(hours=40)
    before = await _stored(store)
    said = await table.say("as Anna pace 12h")
    assert said.startswith("✗ The pace is 12h already") and "\n" not in said, said
    assert await _stored(store) == before
    assert "✗" not in await table.say("as Anna pace 1d")
    status = await table.say("status")
    assert _bank(status, "Anna") == "8h" and "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status, status
    clock.advance(hours=2)
    assert _bank(await table.say("status"), "Anna") == "6h"
    await table.say("as Anna bid TSR 20")
    assert _bank(await table.say("status"), "Anna") == "6h"


@pytest.mark.slow
async def test_redo_keeps_the_bank_spent_and_a_time_out_move_stays_through_the_worker_pool(
    tmp_path: Path, clock: Clock,
) -> None:
    """As `troika run` plays (two worker processes): undo then redo of one's own move
    leaves the bank spent, and Boris may not undo the move his time-out made."""
    async with SqliteEventStore(tmp_path / "pool.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        table = Table(pool)  # type: ignore[arg-type]
        await pool.start_local_game(CHANNEL, PLAYERS, first_player=0, seed=1861)
        for line in ("as Anna pace 12h", "as Anna on-timeout pass"):
            assert "✗" not in await table.say(line)
        clock.advance(hours=40)
        for line in ("as Anna bid TSR 20", "as Anna undo", "as Anna redo"):
            assert "✗" not in await table.say(line), line
        status = await table.say("status")
        assert _bank(status, "Anna") == "8h" and "Clock: Boris's runs since 2027-01-06 04:00 UTC" in status, status
        assert "Anna: median 1d 16h" in await table.say("stats")
        clock.advance(days=3)
        await pool.send_reminders(clock())
        assert _moves(await store.events(1), "boris")  # his time ran out: passed for him
        said = await table.say("as Boris undo")
        assert said.startswith("✗ That move was made for you when your time ran out"), said


async def test_durations_take_a_unit_and_may_be_compound_and_zones_any_case(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Re-checker's low items: `away 5` asks for a unit (it was read as 5 hours);
    `away 13d 23h`, `pace 1d 12h` are read (they were refused); `tz europe/amsterdam`
    is Europe/Amsterdam (it was refused for its case)."""
    table = await _table(store, clock)
    await table.say("status")
    before = await _stored(store)
    assert await table.say("as Boris away 5") == "✗ Say which unit: `5d` (days), `5h` (hours) or `5m` (minutes)."
    assert await _stored(store) == before
    assert "Pace: 1d 12h per decision" in await table.say("as Anna pace 1d 12h")
    assert "Each player's bank holds 2d 6h" in await table.say("as Anna bank 2d 6h")
    assert "Boris is away for 13d 23h, until 2027-01-18 11:00 UTC" in await table.say("as Boris away 13d 23h")
    assert "Clara's time zone: Europe/Amsterdam." in await table.say("as Clara tz europe/amsterdam")
    assert "quiet 23:00-08:00 (Europe/Amsterdam)" in await table.say("as Clara quiet 23:00-08:00")


async def test_the_commissioners_end_is_no_move_in_stats(store: SqliteEventStore, clock: Clock) -> None:
    table = await _table(store, clock)
    clock.advance(hours=2)
    await table.say("as Anna bid TSR 20")
    clock.advance(hours=5)
    ended = await table.say("as Anna end confirm we stop here")
    assert "Anna: median 2h, 90% within 2h (1 move)" in ended, ended
    assert "Anna: median 2h, 90% within 2h (1 move)" in await table.say("stats")


async def test_the_policy_chosen_at_new_shows_in_status_before_a_pace_is_set(
    store: SqliteEventStore, clock: Clock,
) -> None:
    service = TroikaService(store, clock=clock, pictures=False)
    anna = Account("anna", "Anna")
    await service.handle("chan", anna, "new 1861 short on-timeout computer")
    await service.handle("chan", Account("boris", "Boris"), "join")
    await service.handle("chan", anna, "start")
    status = (await service.handle("chan", anna, "status")).text
    assert "No pace yet (the commissioner's `pace 24h` sets one) · on time-out: computer" in status, status


@pytest.mark.slow
async def test_quiet_hours_moved_and_the_pace_re_set_neither_stop_nor_refill_through_the_worker_pool(
    tmp_path: Path, clock: Clock,
) -> None:
    """As `troika run` plays (two worker processes): quiet hours moved on as each ends
    stop the clock 12 h a day at most, and the same pace again is refused. (The workers
    read the real time; the store the injected one, so the bid is what is charged.)"""
    async with SqliteEventStore(tmp_path / "pool.db") as store, \
            ServicePool(store, workers=2, pictures=False) as pool:
        table = Table(pool)  # type: ignore[arg-type]
        await pool.start_local_game(CHANNEL, PLAYERS, first_player=0, seed=1861)
        assert "✗" not in await table.say("as Anna pace 12h")
        for hours, hours_quiet in ((0, "12:00-23:00"), (11, "23:00-10:00"), (11, "10:00-21:00")):
            clock.advance(hours=hours)
            assert "✗" not in await table.say(f"as Anna quiet {hours_quiet}")
        clock.advance(hours=22)  # Wednesday 08:00: 44 h waited, 24 h quiet (12 h a day), 8 h over
        assert "✗" not in await table.say("as Anna bid TSR 20")
        assert _bank(await table.say("status"), "Anna") == "1d 4h"
        assert (await table.say("as Anna pace 12h")).startswith("✗ The pace is 12h already")
        assert _bank(await table.say("status"), "Anna") == "1d 4h"


async def test_a_deal_awaiting_consent_runs_the_consenters_clock_and_bank_not_the_proposers(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's high item: while a deal waits for its consenter, the clock, the bank and
    the time-out are the consenter's; the proposer's decision runs on after the answer."""
    from tests.test_bot_service import BEFORE_MK_BUYS, start_shared

    table = await start_shared(TroikaService(store, clock=clock, pictures=False), BEFORE_MK_BUYS)
    for line in ("as Player 1 pace 12h", "as Player 1 on-timeout computer"):
        assert "✗" not in await table.say(line)
    assert "asks Player 3 to agree" in await table.say("as Player 2 train 2-0 from N 60")
    clock.advance(hours=40)
    status = await table.say("status")
    assert "Clock: Player 3's runs" in status, status
    assert _bank(status, "Player 2") == "1d 12h" and _bank(status, "Player 3") == "8h"
    clock.advance(hours=10)  # Player 3's bank runs out: the deal is refused for them
    said = await table.say("status")
    assert "Player 3** refuses" in said or "Player 3 refuses" in said, said
    assert "computer plays" not in said, said
    status = await table.say("status")
    assert "Clock: Player 2's runs" in status and _bank(status, "Player 2") == "1d 12h", status
    assert _bank(status, "Player 3") == "0m"
    assert await _acting(table) == "Player 2"


async def test_asking_and_withdrawing_a_deal_again_and_again_does_not_stop_the_proposers_clock(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Re-checker's dodge: a proposer who asked for a deal and withdrew it just before the
    consenter's pace ran out, again and again, stood still on the clock for free. A
    withdrawn deal is the proposer's own time, and the consenter is charged nothing."""
    from tests.test_bot_service import BEFORE_MK_BUYS, start_shared

    table = await start_shared(TroikaService(store, clock=clock, pictures=False), BEFORE_MK_BUYS)
    assert "✗" not in await table.say("as Player 1 pace 12h")
    clock.advance(hours=10)
    for _ in range(4):
        assert "asks Player 3 to agree" in await table.say("as Player 2 train 2-0 from N 60")
        clock.advance(hours=11, minutes=50)
        assert "✗" not in await table.say("as Player 2 withdraw")
    status = await table.say("status")
    assert "Clock: Player 2's runs" in status and "(waiting 2d 9h 20m)" in status, status
    assert _bank(status, "Player 2") == "0m" and _bank(status, "Player 3") == "1d 12h", status  # was 1d 12h and 1d 12h


async def test_pause_and_resume_stop_the_clock_while_paused_and_keep_the_bank_spent(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's medium item: resume continues the same decision, its bank as it was."""
    table = await _table(store, clock)
    assert "✗" not in await table.say("as Anna pace 24h")
    clock.advance(hours=30)
    assert _bank(await table.say("status"), "Anna") == "2d 18h"
    assert "✗" not in await table.say("as Anna pause holiday")
    clock.advance(hours=1)
    assert "✗" not in await table.say("as Anna resume")
    clock.advance(hours=2)
    status = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status, status
    assert _bank(status, "Anna") == "2d 16h", status  # 32 h counted, the hour paused left out
    assert "(waiting 1d 8h)" in status, status
    await table.say("as Anna bid TSR 20")
    assert _bank(await table.say("status"), "Anna") == "2d 16h"


async def test_pace_off_then_on_counts_on_from_the_decisions_start(store: SqliteEventStore, clock: Clock) -> None:
    """Checker's item: `pace off` then `pace 24h` is a change of pace, not a new decision."""
    table = await _table(store, clock)
    assert "✗" not in await table.say("as Anna pace 24h")
    clock.advance(hours=30)  # 6 h beyond the pace: spent
    assert "✗" not in await table.say("as Anna pace off")
    clock.advance(hours=10)  # no pace: nothing more spent
    assert "✗" not in await table.say("as Anna pace 24h")
    status = await table.say("status")
    assert "Clock: Anna's runs since 2027-01-04 12:00 UTC" in status and "(waiting 1d 16h)" in status, status
    assert _bank(status, "Anna") == "2d 18h", status
    clock.advance(hours=2)  # the decision has run longer than the new pace: it spends again
    assert _bank(await table.say("status"), "Anna") == "2d 16h"
    await table.say("as Anna bid TSR 20")
    assert _bank(await table.say("status"), "Anna") == "2d 16h"


@pytest.mark.parametrize("policy", ["pass", "computer"])
async def test_a_new_policy_applies_to_a_decision_whose_time_out_was_dealt_with(
    store: SqliteEventStore, clock: Clock, policy: str,
) -> None:
    """Checker's item: the commissioner called (`wait`), then `on-timeout pass|computer`:
    the expired decision gets the new policy, and the game does not stall."""
    table = await _timing_out(store, clock, "wait")
    clock.advance(hours=2)
    assert "time bank ran out on this decision" in await table.say("status")
    assert "✗" not in await table.say(f"as Anna on-timeout {policy}")
    clock.advance(hours=6)
    await table.say("status")
    [move, *_] = _moves(await store.events(1), "boris")
    assert ("time ran out" if policy == "pass" else "played by the computer") in (move.note or "")


async def test_undoing_two_moves_charges_each_reopened_decision_only_its_own_time(
    store: SqliteEventStore, clock: Clock,
) -> None:
    """Checker's item: Boris passes after 30 h, Clara after 72 h; the commissioner takes
    both back. Boris's reopened decision counts his 30 h, not Clara's 72 h too (before:
    4d 6h, his bank gone and a time-out pass made for him at once)."""
    table = await _table(store, clock, on_timeout="pass")
    for line in ("as Anna pace 24h", "as Anna bid TSR 20"):
        assert "✗" not in await table.say(line)
    for hours, line in ((30, "as Boris pass"), (72, "as Clara pass")):
        clock.advance(hours=hours)
        assert "✗" not in await table.say(line), line
    for _ in range(2):
        said = await table.say("as Anna undo to test the clock")
        assert "✗" not in said and "time ran out" not in said, said
    assert await _acting(table) == "Boris"
    status = await table.say("status")
    assert "(waiting 1d 6h)" in status and _bank(status, "Boris") == "2d 18h", status
    assert _bank(status, "Clara") == "3d", status
