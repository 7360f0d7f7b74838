"""Seeded random self-play: whole games of 1861 (2 to 6 players) and 1867 (3 to 6) on
both markets, with the invariants checked after every action (engine/selfplay.py)."""

from __future__ import annotations

import pytest

from engine.selfplay import SELFPLAY_SETUPS, play_random_game, selfplay_setups

GAMES_PER_TITLE = len(SELFPLAY_SETUPS)
"""One game for every player count and market."""


@pytest.mark.parametrize("title", ["1861", "1867"])
@pytest.mark.parametrize("index", range(GAMES_PER_TITLE))
def test_a_random_game_plays_to_the_end_soundly(title: str, index: int) -> None:
    setups = selfplay_setups(title)
    players, market = setups[index % len(setups)]
    result = play_random_game(1000 + index, players, market, title)
    assert result.failures == []
    assert result.finished
    assert result.actions > 100
