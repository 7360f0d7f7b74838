"""Seeded random self-play: whole games of 1861 with 2 to 6 players on both markets,
with the invariants checked after every action (engine/selfplay.py)."""

from __future__ import annotations

import pytest

from engine.selfplay import SELFPLAY_SETUPS, play_random_game

GAMES = 20


@pytest.mark.parametrize("index", range(GAMES))
def test_a_random_game_plays_to_the_end_soundly(index: int) -> None:
    players, market = SELFPLAY_SETUPS[index % len(SELFPLAY_SETUPS)]
    result = play_random_game(1000 + index, players, market)
    assert result.failures == []
    assert result.finished
    assert result.actions > 100
