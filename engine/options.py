"""The rulebook's optional rules and variants (§14–16), as data, and a game's setup.

A title declares the options it offers (:attr:`engine.titles.Title.options`), each an
:class:`OptionDef`: the word a player types after ``new``, the rulebook's own words, its
section, and which options it cannot be played with. A game's setup
(:class:`engine.game_setup.Setup`) is its title, its market, the options chosen and
whether it plays by the rulebook or by 18xx.games (an import). The chosen options
travel in :attr:`engine.rules.Rules.options`, apart from the 18xx.games switches:
:meth:`Rules.site` never turns an option on.

Rules that an option changes ask ``ctx.rules.plays(LONG_GAME)``, in the title's hooks
where only one title offers the option (1861's, :mod:`engine.titles.t1861.options`); an
option that only changes data (how many special trains, the phases in which the national
exports) patches the title's board (:func:`engine.game_setup.board_for`). This module
holds the declarations of the options either title offers.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

LIMITED_SPECIAL_TRAINS = "limited-special-trains"
NO_FLOOR = "no-floor"
LONG_GAME = "long-game"
LEFT_OF_AUCTIONEER = "left-of-auctioneer"

EXPORT_PER_SET = "national_exports_per_set"
"""The phase status of an option's train exports (1861's §14, §15.2): the national does
not run; it exports a train at the end of each set of operating rounds, just before the
second merger round."""


class OptionDef(NamedTuple):
    """One optional rule of the rulebook, as a title offers it."""

    sym: str
    """The word a player types after ``new`` (``long-game``)."""
    name: str
    """A short name (``Long game``)."""
    rule: str
    """The rulebook's words."""
    section: str
    """Where the rulebook has it (``§14``)."""
    default: bool = False
    """Whether a game plays it unless told otherwise."""
    conflicts: tuple[str, ...] = ()
    """Options it cannot be played with (either side may name the other)."""
    train_counts: Mapping[str, int] = MappingProxyType({})
    """Trains it limits: train name -> copies in the yard."""
    national_exports_per_set: bool = False
    """The national exports a train at the end of each set instead of running (§14)."""
    players: range | None = None
    """The player counts it is for, if not all."""


SPECIAL_TRAINS = OptionDef(
    LIMITED_SPECIAL_TRAINS,
    "Special trains: only two of each",
    "Play with unlimited 2+2 and 5+5E trains (recommended). Alternatively, only include "
    "two 2+2 Trains and two 5+5E trains.",
    "§14",
    train_counts=MappingProxyType({"2+2": 2, "5+5E": 2}),
)
NO_STOCK_PRICE_FLOOR = OptionDef(
    NO_FLOOR,
    "No stock price floor",
    "When nationalizing, a company's stock price may be reduced below 35. Each time the "
    "stock price would move left of the 35 space, the amount paid out per share is reduced "
    "by 5. The stock price cannot fall below 0.",
    "§14",
)
LONG = OptionDef(
    LONG_GAME,
    "Long game",
    "Ignore the game end triggers based on the 8-train's purchase and continue until the "
    "bank breaks. The Bank size remains $15,000.",
    "§14",
)
LEFT_OF_THE_AUCTIONEER = OptionDef(
    LEFT_OF_AUCTIONEER,
    "Left of auctioneer",
    "At the end of the auction of a Private or Minor Company, the next turn in the Stock "
    "Round is the player to the left of the player who proposed the auction rather than "
    "the player to the left of the winner.",
    "§14",
)
BOTH_TITLES = (SPECIAL_TRAINS, NO_STOCK_PRICE_FLOOR, LONG, LEFT_OF_THE_AUCTIONEER)
"""The §14 options of either title."""
