"""Every round behind the one protocol (:class:`engine.rounds.Round`), as plain data a
snapshot keeps: a game caught in each kind of round is saved and restored through the
storage's allow-list (:func:`storage.repository.load_engine_state`) to the same state."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from engine.game import Game
from engine.legal import legal_actions
from engine.rounds import Round
from engine.rules import Rules
from engine.view import turn_view
from storage import TroikaEngine
from storage.store import GameRecord, GameStatus, Seat
from tests.conftest import PLAYERS3

SEATS = tuple(Seat(i, pid, name) for i, (pid, name) in enumerate(PLAYERS3))


def _each_round(options: tuple[str, ...], seed: int, kinds: set[str]) -> dict[str, Game]:
    """Random legal play from a new game until a round of each of ``kinds`` has been seen:
    the game as it was when each first began (a copy)."""
    game = Game.new(PLAYERS3, seed, Rules.rulebook(market="grid", options=options), "1861", first_player=0)
    rng, seen = random.Random(seed), {}
    while not game.state.finished and set(seen) < kinds:
        kind = game.round_name
        if kind not in seen:
            seen[kind] = Game(game.ctx, game.state.copy())
        moves = legal_actions(game)
        rng.shuffle(moves)
        assert game.apply_first(moves) is not None
    return seen


def test_a_game_in_each_kind_of_round_survives_a_snapshot() -> None:
    engine = TroikaEngine()
    caught = _each_round(("bundles",), 5, {"Bundles", "Stock", "Operating", "Merger"})
    caught |= _each_round((), 5, {"Auction"})
    assert set(caught) == {"Auction", "Bundles", "Stock", "Operating", "Merger"}
    for kind, game in caught.items():
        assert isinstance(game.state.round, Round) and not game.state.round.over
        options = {"options": sorted(game.ctx.rules.options), "first_player": 0, "market": "grid"}
        meta = GameRecord(1, "1861", options, 5, "a", GameStatus.RUNNING, 1, datetime.now(UTC), seats=SEATS)
        restored = engine.restore(meta, engine.snapshot(game))
        assert restored.dump() == game.dump(), kind
        assert turn_view(restored) == turn_view(game) and legal_actions(restored) == legal_actions(game), kind
