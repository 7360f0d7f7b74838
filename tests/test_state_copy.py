"""GameState.copy: the deep copy the computer players make of every position they look
at (one per move tried) must be the copy pickling makes, sharing nothing that changes."""

from __future__ import annotations

import dataclasses
import io
import pickle
from typing import Any

import pytest

from engine import Game, Rules, load_board
from engine.computer.agents import RandomAgent
from engine.state import GameState


class _SetsSorted(pickle._Pickler):
    """Pickling with every set's items in one order: a set's order follows its history
    and the process's string hashing, which a copy (pickling's too) need not keep. (The
    Python pickler: the C one asks ``reducer_override`` nothing about sets.)"""

    def reducer_override(self, obj: Any) -> Any:
        return (set, (sorted(obj, key=repr),)) if type(obj) is set else NotImplemented


def _pickled(value: Any) -> bytes:
    out = io.BytesIO()
    _SetsSorted(out).dump(value)
    return out.getvalue()


def _mutable_ids(value: Any, found: set[int]) -> set[int]:
    """The ids of every list, dict, set and dataclass reachable from ``value``."""
    if isinstance(value, (str, int, float, bytes, frozenset)) or value is None or id(value) in found:
        return found
    if isinstance(value, (list, dict, set)) or dataclasses.is_dataclass(value):
        found.add(id(value))
    if isinstance(value, dict):
        items: list[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, (list, set, tuple)):
        items = list(value)
    else:
        items = list(getattr(value, "__dict__", {}).values())
    for item in items:
        _mutable_ids(item, found)
    return found


@pytest.mark.parametrize("title", ["1861", "1867"])
def test_a_copy_is_the_one_pickling_makes_and_shares_nothing_that_changes(title: str) -> None:
    """At every 20th position of a random game (every kind of round), the copy equals
    the state (and pickling's copy), pickles to the same bytes as the state (so an object
    met twice is copied once, as pickling does) and shares no list, dict, set or
    dataclass with it; the game goes on the same from the copy."""
    rules = Rules.rulebook(market=load_board(title).default_market)
    game = Game.new([(f"p{i}", f"P{i}") for i in range(4)], 5, rules, title)
    agent = RandomAgent(5)
    rounds = set()
    for number in range(900):
        if game.state.finished:
            break
        if number % 20 == 0:
            copied = game.state.copy()
            assert copied == game.state == GameState.from_saved(game.state.saved())
            assert _pickled(copied) == _pickled(game.state)
            assert not _mutable_ids(copied, set()) & _mutable_ids(game.state, set())
            rounds.add(type(game.state.round).__name__)
            action = agent.decide(game).action
            fork = Game(game.ctx, copied)
            fork.apply(action)
            game.apply(action)
            assert fork.state == game.state
            continue
        game.apply(agent.decide(game).action)
    assert len(rounds) >= 3, rounds
