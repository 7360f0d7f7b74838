"""Counted nouns as players read them: ``1 loan``, ``2 loans`` (never ``loan(s)``)."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str = "") -> str:
    """``count`` and ``noun``, singular for one and plural otherwise (``noun`` + s unless
    ``plural`` is given): ``counted(1, "move")`` is ``1 move``, ``counted(0, "share")`` ``0 shares``."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
