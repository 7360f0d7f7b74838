"""The merger round (rulebook 9)."""

from __future__ import annotations

from .actions import Action
from .errors import IllegalAction
from .state import Context, GameState


def actor(ctx: Context, state: GameState) -> str:
    return ""


def apply(ctx: Context, state: GameState, action: Action) -> None:
    raise IllegalAction("merger rounds are not playable yet")


def choices(ctx: Context, state: GameState) -> list[str]:
    return []


def active_in_phase(ctx: Context, state: GameState) -> bool:
    """9: merger rounds follow operating rounds in phases 3 to 7."""
    return 3 <= int(state.phase) <= 7


def start(ctx: Context, state: GameState, after_or: int) -> None:
    raise IllegalAction("merger rounds are not playable yet")
