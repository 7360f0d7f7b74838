"""Game options and the rule switches: the one place where rule sets differ.

A new Troika game plays by the rulebook (:meth:`Rules.rulebook`). A game
imported from 18xx.games plays by :meth:`Rules.site`, which turns on every
switch below where that site applies the rules differently
(``shared/RULES-NOTES.md`` section 11, cited as "RN 11.n").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .errors import InvalidAction


@dataclass(frozen=True)
class Rules:
    """Options chosen for a game plus the rulebook/18xx.games switches."""

    market: str = "grid"
    """Which stock market: "grid" or "column" (rulebook 4)."""

    auction_decliner_may_bid: bool = False
    """RN 11.1 — a player who declined to open a private auction may still bid once
    someone has opened it. Rulebook 5.2: a pass is final."""

    major_start_offered_from_lowest_price: bool = False
    """RN 4.1 — a stock-round player is offered to start a major with twice the market's
    lowest start price (50) in cash, even if no home city is free, and must pass
    explicitly. Rulebook 7.4: a major needs a major start price (70 or more, paid
    twice) and an unconnected city, so such a player has nothing to do."""

    auction_reduced_price_first_taker: bool = False
    """RN 11.2 — after all decline a private, the first player to bid the reduced
    minimum buys it at once. Rulebook 5 note: the reduced private is auctioned normally."""

    price_drop_per_sell_action: bool = False
    """RN 11.5 — a president's sale drops the price once per sell action. Rulebook 7.3.1:
    once per stock turn, however many sales."""

    max_exits_every_city_upgrade: bool = False
    """RN 11.11 — "use as many track segments as possible" applies to every upgrade of
    a city. Rulebook 8.6: only green cities upgraded to brown."""

    lay_connection_unchecked: bool = False
    """RN 0.4, 11.12 — 18xx.games does not check, when it loads a log, that a lay is
    connected to the company's route, so its logs may hold lays its own page would not
    offer. Rulebook 8.6: a lay must extend the company's route."""

    tile_cost_paid_on_replace: bool = False
    """RN 11.13 — a cost printed on a tile (Kiev's 635) is paid when that tile is
    replaced. Rulebook 8.6.2: paid when the tile is placed."""

    bank_breaks_below_zero: bool = False
    """RN 11.35 — the bank breaks when a payment would take it below zero. Rulebook
    12.1: when it has run out (nothing left)."""

    explicit_private_window: bool = False
    """RN 7.2 — a company with no loans is still offered the private-purchase window
    before loan operations (18xx.games passes it automatically and logs the pass).
    Rulebook 8.12: buying a private is possible at any time, so no separate window."""

    national_token_on_gray_moscow: bool = False
    """RN 11.21 — the national's reserved Moscow token is placed when gray 639 is laid
    there. Rulebook 8.13: at the start of phase 8."""

    merger_turn_for_every_minor: bool = False
    """RN 8.1 — every minor gets a merger-round turn and must pass even when it can
    neither convert nor merge (18xx.games logs those passes). Rulebook 9: only
    eligible minors are asked."""

    merger_buying_from_highest_minor: bool = False
    """RN 11.28 — after a merge, the owner of the highest-priced minor buys shares
    first. Rulebook 9.2C: the owner of the active minor."""

    merger_keeps_cheapest_spare_tokens: bool = False
    """RN 8.3, 11.14 — after a token reduction the major keeps its map tokens plus its
    cheapest spare tokens up to two (a removed home token stays, free), then a 40.
    Rulebook 9.2E: the tokens left go on the charter's 20/hex and 40/hex spots."""

    national_route_entered_by_player: bool = False
    """RN 7.12 — the priority player enters the RSR's routes (the site accepts any).
    Rulebook 8.13 asks for the RSR's maximum revenue, so Troika finds and runs it."""

    upgrades_by_track_only: bool = False
    """RN 0.4, 2.2 — an upgrade is legal when it keeps the old track, labels and cities;
    the tile manifest's list of upgrades is not consulted (1867 logs upgrade 23 to 47,
    28 to 70, X4 to X6). Rulebook 19: only the upgrades the manifest lists."""

    neutral_tokens: bool = False
    """RN 11.25 (1867) — Timmins and Montreal's third city hold neutral tokens until
    phase 3 (they fill the spot, never block). Rulebook 7.2.1: those spots are simply
    not open to a minor's home before phase 3."""

    whole_hex_unoccupied_for_major_home: bool = False
    """RN 11.6 (1867) — a major started in a stock round may take a home hex only if no
    city on the whole hex holds a company's token. Rulebook 7.4: an unoccupied city."""

    national_collects_private_income: bool = False
    """RN 11.23 (1867) — the CN collects the income of the privates nationalized in
    phase 6. Rulebook 8.13: the CN keeps no money."""

    first_seat_starts: bool = False
    """18xx.games orders a game's seats at random when it is made, and the first seat
    has the priority deal, so a log names no first player. Rulebook 2M: the first
    player is drawn (Troika draws it from the game's seed)."""

    @classmethod
    def rulebook(cls, **options: Any) -> Rules:
        """The rulebook's rules, with game options such as ``market="column"``."""
        return cls(**options)

    @classmethod
    def site(cls, **options: Any) -> Rules:
        """The rules as 18xx.games applies them, for replaying its logs."""
        switches = {f.name: True for f in fields(cls) if f.type == "bool"}
        return cls(**{**switches, **options})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise InvalidAction(f"unknown game options: {', '.join(sorted(unknown))}")
        rules = cls(**data)
        if rules.market not in ("grid", "column"):
            raise InvalidAction(f"market must be 'grid' or 'column', not {rules.market!r}")
        return rules

    def but(self, **changes: Any) -> Rules:
        """A copy with some switches changed."""
        return replace(self, **changes)
