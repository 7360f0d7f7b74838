"""Undo and redo as events: which logged actions are in effect.

Nothing is ever deleted from a game's log. An ``undo`` entry takes back the
latest action still in effect (or everything after the action named by
``action_id``); a ``redo`` restores what the last undo took back; any other
action clears the redo stack. This is the meaning 18xx.games gives its logs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:

    T = TypeVar("T")


def effective_entries(entries: Iterable[tuple[int, dict[str, Any], T]]) -> list[T]:
    """Filter ``(id, raw dict, payload)`` log entries down to the payloads in effect.

    ``raw["type"]`` decides: ``undo`` (optional ``action_id``), ``redo``, ``message``
    (kept, never undone, no effect) or anything else (a game action).
    """
    kept, _ = _fold(entries)
    return [payload for _, kind, payload in kept if kind != "message"]


def redo_stack(entries: Iterable[tuple[int, dict[str, Any], T]]) -> list[T]:
    """The payloads of the undo entries a ``redo`` would take back now, the next last
    (18xx.games keeps a stack: two undos are redone in turn, until another action)."""
    _, undone = _fold(entries)
    return [undo for undo, _ in undone]


def _fold(
    entries: Iterable[tuple[int, dict[str, Any], T]],
) -> tuple[list[tuple[int, str, T]], list[tuple[T, list[tuple[int, str, T]]]]]:
    """The entries in effect as (id, type, payload), and the stack of undone groups,
    each with the payload of the undo that took it back."""
    kept: list[tuple[int, str, T]] = []
    undone: list[tuple[T, list[tuple[int, str, T]]]] = []
    for entry_id, raw, payload in entries:
        kind = raw.get("type")
        if kind == "undo":
            target = raw.get("action_id")
            if target is None:
                cut = _last_game_action(kept)
            elif target == 0:
                cut = 0
            else:
                cut = next((i + 1 for i, k in enumerate(kept) if k[0] == target), len(kept))
            group = [k for k in kept[cut:] if k[1] != "message"]
            kept = kept[:cut] + [k for k in kept[cut:] if k[1] == "message"]
            if group:
                undone.append((payload, group))
        elif kind == "redo":
            if undone:
                kept.extend(undone.pop()[1])
        elif kind == "message":
            kept.append((entry_id, "message", payload))
        else:
            undone.clear()
            kept.append((entry_id, str(kind), payload))
    return kept, undone


def _last_game_action(kept: list[tuple[int, str, Any]]) -> int:
    for i in range(len(kept) - 1, -1, -1):
        if kept[i][1] != "message":
            return i
    return len(kept)
