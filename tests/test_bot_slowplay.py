"""Slow play without friction (issue 25): no stray passes, only real decisions asked,
standing orders, replies that leave nothing to guess, a console that fits hot-seat play.
Each test types at the console (the same service as Discord) as a player would."""

from __future__ import annotations

import pytest

from bot.service import TroikaService
from storage import SqliteEventStore
from tests.test_bot_service import Table, start_shared

CV_TURN_ENDS = 124
"""Commands of 1867-19792 after which Player 1's company has passed its last step and
Player 1's CV is called to lay track: a second `pass` may be meant for the first."""


async def _stored(store: SqliteEventStore) -> int:
    count = 0
    for record in await store.list_games():
        count += len(await store.events(record.id))
    return count


# point 2: no stray moves ------------------------------------------------------------


async def test_a_pass_right_after_a_turn_ended_is_questioned_once(store: SqliteEventStore) -> None:
    table = await start_shared(TroikaService(store, pictures=False), CV_TURN_ENDS, "1867-19792")
    game = await table.game()
    assert game.actor() == "CV" and game.state.round.step == "track"
    before, events = game.dump(), await _stored(store)
    asked = await table.say("pass")
    assert asked.startswith("✗ ") and "'s turn ended with its pass. Now CV lays track" in asked
    assert "`pass` again to pass CV (or `pass CV`)" in asked
    assert (await table.game()).dump() == before and await _stored(store) == events  # nothing happened
    assert "Player 1 for CV: `pass`" in await table.say("pass")  # again: meant
    assert (await table.game()).state.round.step != "track"


async def test_a_pass_naming_the_company_goes_through_and_another_company_is_refused(
    store: SqliteEventStore,
) -> None:
    table = await start_shared(TroikaService(store, pictures=False), CV_TURN_ENDS, "1867-19792")
    refused = await table.say("pass KP")
    assert refused.startswith("✗ It is not KP's turn: now CV lays track; `pass` passes CV.")
    assert "for CV: `pass CV`" in await table.say("pass CV")


async def test_a_pass_after_another_players_move_is_not_questioned(store: SqliteEventStore) -> None:
    """Hot seat: Player 3's company ran, its turn ended, Player 2's company is called."""
    table = await start_shared(TroikaService(store, pictures=False), 105, "1867-19792")
    game = await table.game()
    assert game.state.player(game.acting_player()).name == "Player 2" and game.round_name == "Operating"
    passed = await table.say("pass")
    assert "✗" not in passed and passed.startswith(f"Player 2 for {game.actor()}: `pass`")
