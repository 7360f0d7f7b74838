"""Setting up a game (rulebook 2, 16): cash, bank, limits, yard and reservations."""

from __future__ import annotations

from collections import Counter

import pytest

from engine import shares
from engine.actions import Pass
from engine.errors import IllegalAction
from engine.game import Game


def _players(n: int) -> list[tuple[str, str]]:
    return [(f"p{i}", f"Player {i + 1}") for i in range(n)]


@pytest.mark.parametrize("n,cash,limit", [(2, 420, 21), (3, 420, 21), (4, 315, 16), (5, 252, 13), (6, 210, 11)])
def test_starting_cash_and_certificate_limit(n: int, cash: int, limit: int) -> None:
    game = Game.new(_players(n), seed=7)
    assert all(p.cash == cash for p in game.state.players)
    assert game.state.bank == 15000 - n * cash
    assert shares.cert_limit(game.ctx, game.state) == limit


def test_two_players_play_with_fewer_trains_and_three_privates() -> None:
    game = Game.new(_players(2), seed=7)
    yard = Counter(t.name for t in game.state.depot.upcoming)
    assert yard == {"2": 7, "3": 5, "4": 3, "5": 3, "6": 1, "7": 1, "8": 1, "2+2": 1, "5+5E": 1}
    assert len(game.state.private_owner) == 3
    assert shares.max_holding(game.state) == 70


def test_the_seed_decides_the_first_player_and_the_removed_privates() -> None:
    first = {Game.new(_players(4), seed=s).actor() for s in range(12)}
    assert len(first) > 1
    a, b = Game.new(_players(2), seed=3), Game.new(_players(2), seed=3)
    assert a.dump() == b.dump()


def test_minor_homes_and_st_petersburg_are_reserved_from_the_start() -> None:
    state = Game.new(_players(3), seed=1).state
    assert state.map.reservations[("H8", 1)] == "N"
    assert state.map.reservations[("E1", 1)] == "RSR"
    assert state.map.reservations[("Q3", 0)] == "E"  # green minors too
    assert ("D14", 0) not in state.map.reservations
    assert state.map.blocked_hexes == {"E3", "H6", "I5", "I9", "J10"}


@pytest.mark.parametrize("n", [1, 7])
def test_player_count_is_checked(n: int) -> None:
    with pytest.raises(IllegalAction, match="2 to 6 players"):
        Game.new(_players(n), seed=1)


def test_strangers_cannot_act() -> None:
    game = Game.new(_players(3), seed=1)
    before = game.dump()
    with pytest.raises(IllegalAction, match="not a player"):
        game.apply(Pass("p9"))
    assert game.dump() == before
