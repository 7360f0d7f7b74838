"""The merger round (rulebook 9)."""

from __future__ import annotations

from .actions import Action
from .errors import IllegalAction
from .state import Context, GameState


def actor(state: GameState) -> str:
    return ""


def apply(ctx: Context, state: GameState, action: Action) -> None:
    raise IllegalAction("merger rounds are not playable yet")


def choices(ctx: Context, state: GameState) -> list[str]:
    return []
