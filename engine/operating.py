"""The operating round (rulebook 8)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import Action
from .errors import IllegalAction
from .state import Context, GameState


@dataclass
class OperatingRound:
    kind = "Operating"
    number: int = 1
    order: list[str] = field(default_factory=list)
    index: int = 0


def start_set(ctx: Context, state: GameState) -> None:
    state.round = OperatingRound()


def actor(state: GameState) -> str:
    rnd: OperatingRound = state.round
    return rnd.order[rnd.index] if rnd.order else ""


def apply(ctx: Context, state: GameState, action: Action) -> None:
    raise IllegalAction("operating rounds are not playable yet")


def choices(ctx: Context, state: GameState) -> list[str]:
    return []
