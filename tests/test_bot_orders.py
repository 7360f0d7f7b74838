"""Operating-round standing orders at the table (issue 38): set by a player at the
console (the service Discord uses) and through the worker pool `troika run` starts,
carried out when their company is called, posted and marked, ended with the reason
said, and taken back by the commissioner's `undo`."""

from __future__ import annotations

import pytest

from bot.service import TroikaService
from bot.workers import ServicePool
from storage import SqliteEventStore
from tests.test_bot_service import start_shared

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
