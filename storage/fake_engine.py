"""A tiny stand-in rules engine for storage tests and benchmarks.

Players score points; that is the whole game. It keeps the promises the repository
relies on: :meth:`FakeEngine.apply` refuses an illegal action with
:class:`FakeRuleError` and leaves the state unchanged, and :meth:`FakeEngine.dump`
depends on the state alone.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from .store import GameRecord


class FakeRuleError(ValueError):
    """The fake engine refuses an action or a set-up."""


@dataclass
class FakeGame:
    title: str
    seed: int
    players: list[list[str]]  # [player id, display name] in seat order
    scores: dict[str, int]
    tokens: list[str] = field(default_factory=list)  # each "token" may be scored once
    moves: int = 0


class FakeEngine:
    """An :class:`~storage.repository.EngineAdapter` for the points game.

    ``multiplier`` and ``max_points`` are rule knobs: changing them between runs plays
    a rules change that alters (multiplier) or rejects (max_points) recorded history.
    ``games_created`` counts set-ups, i.e. replays.
    """

    def __init__(self, version: int = 1, *, multiplier: int = 1, max_points: int = 100) -> None:
        self.version = version
        self.multiplier = multiplier
        self.max_points = max_points
        self.games_created = 0
        self.snapshots_restored = 0

    def new_game(self, meta: GameRecord) -> FakeGame:
        """A game for the record's seats; at least two are needed."""
        if len(meta.seats) < 2:
            raise FakeRuleError("the points game needs at least 2 players")
        self.games_created += 1
        return FakeGame(
            title=meta.title,
            seed=meta.seed,
            players=[[s.player_id, s.display_name] for s in meta.seats],
            scores={s.player_id: 0 for s in meta.seats},
        )

    def encode(self, action: dict[str, Any]) -> dict[str, Any]:
        """The points game's actions are their stored form already."""
        return dict(action)

    def apply(
        self, game: FakeGame, action: dict[str, Any], *, replaying: bool = False, saved: bytes | None = None
    ) -> list[str]:
        """Apply ``pass`` or ``score`` (``points``, optional unique ``token``); a refusal
        never changes the state, replaying or not (so ``saved`` is not needed)."""
        kind, entity = action.get("type"), action.get("entity")
        if entity not in game.scores:
            raise FakeRuleError(f"{entity!r} is not playing")
        if kind == "pass":
            line = f"{entity} passes"
        elif kind == "score":
            points, token = action.get("points"), action.get("token")
            if not isinstance(points, int) or not 0 <= points <= self.max_points:
                raise FakeRuleError(f"points must be a whole number from 0 to {self.max_points}")
            if token is not None and token in game.tokens:
                raise FakeRuleError(f"token {token!r} has already been scored")
            game.scores[entity] += points * self.multiplier
            if token is not None:
                game.tokens.append(token)
            line = f"{entity} scores {points}"
        else:
            raise FakeRuleError(f"unknown action type {kind!r}")
        game.moves += 1
        return [line]

    def dump(self, game: FakeGame) -> dict[str, Any]:
        """The whole state as JSON-able data."""
        return asdict(game)

    def save(self, game: FakeGame) -> bytes:
        """The state as JSON bytes."""
        return json.dumps(asdict(game)).encode()

    def load_saved(self, game: FakeGame, data: bytes) -> FakeGame:
        return FakeGame(**json.loads(data))

    def snapshot(self, game: FakeGame, saved: bytes | None = None) -> bytes:
        """The state as JSON bytes."""
        return saved if saved is not None else self.save(game)

    def restore(self, meta: GameRecord, data: bytes) -> FakeGame:
        """The game :meth:`snapshot` saved (``snapshots_restored`` counts these)."""
        self.snapshots_restored += 1
        return FakeGame(**json.loads(data))


def fake_log(actions: int, players: int = 4, seed: int = 1861) -> dict[str, Any]:
    """A points-game log of ``actions`` scoring actions, in the export format."""
    ids = [f"p{i}" for i in range(1, players + 1)]
    return {
        "title": "points",
        "players": [{"id": pid, "name": f"Player {pid[1:]}"} for pid in ids],
        "settings": {"seed": seed, "options": {}},
        "actions": [
            {"id": n, "type": "score", "entity": ids[n % players], "points": n * 7 % 10,
             "token": f"t{n}"}
            for n in range(1, actions + 1)
        ],
    }
