"""The options only 1861 offers: its train exports (§14) and the 1861 short variant
(§15), each an :class:`~engine.options.OptionDef` (the rules they change are the
hooks of :class:`engine.titles.t1861.Russia` and its bundle round)."""

from __future__ import annotations

from engine.options import LONG_GAME, OptionDef

EXPORTS = "exports"
BUNDLES = "bundles"
RSR_EXPORTS = "rsr-exports"
SIX_TRAIN_END = "six-train-end"

TRAIN_EXPORTS = OptionDef(
    EXPORTS,
    "1861 train exports",
    "Instead of running the Russian State Railway at the end of each Operating Round "
    "between Phases 4 to 7, export 1 train at the end of each set of Operating Rounds "
    "(just before the second Merger Round). It is recommended that players use this "
    "variant for their first full play of 1861.",
    "§14",
    national_exports_per_set=True,
)

STARTING_BUNDLES = OptionDef(
    BUNDLES,
    "1861 short: starting bundles",
    "Instead of the usual auction of Privates and Minor Companies, the initial setup "
    "includes bundles of Private and Minor Companies for sale – one to each player during "
    "the first Stock Round. Once a player has acquired a bundle, they take no further part "
    "in the Stock Round. All bundles have the same Minimum Bid. (3 to 5 players; with two, "
    "the 3-player bundles, §16.3.)",
    "§15.1",
    players=range(2, 6),
)
SHORT_RSR = OptionDef(
    RSR_EXPORTS,
    "1861 short: the RSR exports",
    "The Russian State Railway has no treasury and no loans, just trains and station "
    "markers. During Phases 4 to 7, at the end of each set of operating rounds, just before "
    "the second Merger Round, the Russian State Railway exports the next available train "
    "from the Train Yard.",
    "§15.2",
    conflicts=(EXPORTS,),
    national_exports_per_set=True,
)
SHORT_END = OptionDef(
    SIX_TRAIN_END,
    "1861 short: game end at the first 6-train",
    "The end of the game is triggered by the purchase of the first 6-train. Finish the "
    "Operating Round, and play two more Operating Rounds, with a Stock Round in the usual "
    "sequence.",
    "§15.3",
    conflicts=(LONG_GAME,),
)

SHORT = ("short", (BUNDLES, RSR_EXPORTS, SIX_TRAIN_END))
"""§15: "If this is your first play of 1861, it is recommended to use all three rule
changes": one word for the three."""
