"""What every round of the game is (rulebook 6): the private auction (5), the
starting bundles (15.1), stock rounds (7), operating rounds (8) and merger rounds (9).

A round is plain data (it is pickled with the state) and knows only its own rules:
when it is over it says so (:attr:`Round.over`) and the title's sequence of rounds
(:mod:`engine.sequence`) starts the next one, so no round imports another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

RoundKind = Literal["Auction", "Bundles", "Stock", "Operating", "Merger"]


@dataclass
class Round:
    """The state of the round in progress."""

    kind: ClassVar[RoundKind]
    over: bool = field(default=False, compare=False, repr=False)
    """Its last action is done: the sequence starts the next round (never stored at rest)."""
