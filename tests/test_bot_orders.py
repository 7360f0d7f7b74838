"""Operating-round standing orders at the table (issue 38): set by a player at the
console (the service Discord uses) and through the worker pool `troika run` starts,
carried out when their company is called, posted and marked, ended with the reason
said, and taken back by the commissioner's `undo`."""

from __future__ import annotations

import pytest

from bot.clock import ORDER_MOVED, decision_waits
from bot.service import TroikaService
from bot.workers import ServicePool
from storage import SqliteEventStore
from tests.test_bot_clock import Clock
from tests.test_bot_service import Table, start_shared

CV_AT_TRACK = 124
"""Commands of 1867-19792 after which Player 1's CV (Player 1 presides over AE and CV)
is called to lay track."""


@pytest.mark.slow
async def test_operating_orders_act_for_the_players_company_and_are_marked(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), CV_AT_TRACK, "1867-19792")
    before = (await table.game()).dump()
    track = await table.say("as Player 1 auto pass track")
    assert "⚙ Player 1's standing order: pass the track step (ends with their own track move, another's move " \
           "changing the companies they preside over (AE, CV) or `auto off`)" in track
    assert "⚙ Player 1's standing order: CV passes its track step" in track
    assert "▶ Player 1 for CV runs its trains" in track
    ran = await table.say("as Player 1 auto run")
    assert "⚙ Player 1's standing order: CV runs its best routes" in ran and "CV runs for 70" in ran
    status = await table.say("status")
    assert "Standing orders: Player 1: pass the track step · Player 1: run the best routes" in status
    undone = await table.say("as Player 2 undo")
    assert "✗" in undone and (await table.game()).state.companies["CV"].last_revenue == 70  # not theirs
    undone = await table.say("undo the run was a mistake")  # the commissioner (Player 1 types at the console)
    assert "takes back #" in undone and "(Player 1: `auto run`) and what standing orders did after it: " \
        "⚙ CV `run best` (`the run was a mistake`)" in undone
    game = await table.game()
    assert game.state.round.step == "routes" and game.actor() == "CV"  # the order's run taken back
    await table.say("as Player 1 undo")  # and the pass the track order made
    assert (await table.game()).dump() == before


@pytest.mark.slow
async def test_bad_orders_are_refused_in_one_line_and_change_nothing(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), CV_AT_TRACK, "1867-19792")
    before = (await table.game()).dump()
    for bad in ("auto pay everything", "auto run fast", "auto pass tracks", "auto pay"):
        refused = await table.say(f"as Player 2 {bad}")
        assert refused.startswith("✗ Write a standing order as") and "\n" not in refused, refused
    assert (await table.game()).dump() == before


@pytest.mark.slow
async def test_operating_orders_through_the_worker_pool(store: SqliteEventStore) -> None:
    """As `troika run` serves Discord: the order set and carried out in a worker process."""
    async with ServicePool(store, workers=2, pictures=False) as pool:
        table = await start_shared(pool, CV_AT_TRACK, "1867-19792")  # type: ignore[arg-type]
        said = await table.say("as Player 1 auto pay withhold")
        assert "Player 1's standing order: withhold (ends with their own dividend" in said
        said = await table.say("as Player 1 auto run")
        assert "⚙ Player 1's standing order: CV runs its best routes" not in said  # CV is laying track
        said = await table.say("as Player 1 pass")
        said += await table.say("as Player 1 pass")
        assert "⚙ Player 1's standing order: CV runs its best routes" in said
        assert "CV earns 70: 35 to its owner" in said  # a minor splits its revenue (8.9): no dividend asked
        assert "Standing orders: Player 1: withhold · Player 1: run the best routes" in await table.say("status")


DUMP_ON_PLAYER_1 = 277
"""Commands of generated game 1861-gen-P2-grid-S4021 before Player 2 sells MK (a stock
round) and MK's president's certificate passes to Player 1 (18xx.games #10710)."""


async def _orders_end_on_a_dump(table: Table) -> None:
    """Player 1's operating-round orders end when another player's sale makes them MK's
    president, each saying why; Player 1's own later moves set nothing going again."""
    for order in ("auto run", "auto pay payout", "auto pass track"):
        assert "✗" not in await table.say(f"as Player 1 {order}")
    sold = await table.say("as Player 2 sell MK 1")
    for what in ("run the best routes", "pay out", "pass the track step"):
        assert f"⚙ Player 1's standing order to {what} is over: they now preside over MK" in sold, sold
    assert "Standing orders" not in await table.say("status")  # none in force


@pytest.mark.slow
async def test_operating_orders_end_when_another_players_sale_makes_their_player_president(
    store: SqliteEventStore,
) -> None:
    await _orders_end_on_a_dump(await start_shared(TroikaService(store, pictures=False), DUMP_ON_PLAYER_1,
                                                   "1861-gen-P2-grid-S4021"))


@pytest.mark.slow
async def test_operating_orders_end_on_a_dump_through_the_worker_pool(store: SqliteEventStore) -> None:
    async with ServicePool(store, workers=2, pictures=False) as pool:
        await _orders_end_on_a_dump(await start_shared(pool, DUMP_ON_PLAYER_1,  # type: ignore[arg-type]
                                                       "1861-gen-P2-grid-S4021"))


@pytest.mark.slow
async def test_an_order_that_acts_as_it_is_set_is_its_players_decision(
    store: SqliteEventStore, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The service marks the order's event, so the clock counts it as the move it was:
    Player 1 took 5 h to leave `auto pass track` for CV, called to lay track; `auto run`
    set then, in the routes step, is no move, and the clock runs on from the pass."""
    clock = Clock(monkeypatch)
    table = await start_shared(TroikaService(store, clock=clock, pictures=False), CV_AT_TRACK, "1867-19792")
    clock.advance(hours=5)
    assert "CV passes its track step" in await table.say("as Player 1 auto pass track")
    clock.advance(hours=2)
    assert "CV runs its best routes" not in await table.say("as Player 1 auto pay withhold")
    events = await store.events(1)
    assert ORDER_MOVED in (events[-2].note or "") and ORDER_MOVED not in (events[-1].note or "")
    last = decision_waits(events)[-1]
    assert (last.player, last.seconds, last.own, last.seq) == (events[-2].actor, 5 * 3600, True, events[-2].seq)
    clock.advance(hours=1)
    status = await table.say("status")
    assert "(waiting 3h)" in status and "Time to act (median): Player 1 5h (1 move)" in status, status


@pytest.mark.slow
async def test_an_order_that_acts_as_it_is_set_is_marked_through_the_worker_pool(store: SqliteEventStore) -> None:
    """As `troika run` serves Discord: the worker marks the order that moved the game, and
    only that one, so the clock reads the same log either way."""
    async with ServicePool(store, workers=2, pictures=False) as pool:
        table = await start_shared(pool, CV_AT_TRACK, "1867-19792")  # type: ignore[arg-type]
        assert "CV passes its track step" in await table.say("as Player 1 auto pass track")
        assert "CV runs its best routes" not in await table.say("as Player 1 auto pay withhold")
        *_, moved, set_only = await store.events(1)
        assert ORDER_MOVED in (moved.note or "") and ORDER_MOVED not in (set_only.note or "")
        assert decision_waits(await store.events(1))[-1].seq == moved.seq


@pytest.mark.slow
async def test_the_redo_of_an_order_that_acted_says_what_it_did(store: SqliteEventStore) -> None:
    """Re-checker's low item: the undo's post named what the order had done; the redo's
    post now names what it does again (it said only "redoes #N (Player 1: `auto run`)")."""
    table = await start_shared(TroikaService(store, pictures=False), CV_AT_TRACK, "1867-19792")
    await table.say("as Player 1 auto pass track")
    await table.say("as Player 1 auto run")
    assert "✗" not in await table.say("undo the run was a mistake")
    redone = await table.say("redo it was not")
    assert "(Player 1: `auto run`) and what standing orders did after it: ⚙ CV `run best`" in redone, redone
    assert (await table.game()).state.companies["CV"].last_revenue == 70
