"""A game's market and options, and the rule switches: the one place where rule sets differ.

A new Troika game plays by the rulebook (:meth:`Rules.rulebook`). A game
imported from 18xx.games plays by :meth:`Rules.site`, which turns on every
switch below where that site applies the rules differently
(``shared/RULES-NOTES.md`` section 11, cited as "RN 11.n").

The players' options (the rulebook's §14–16, declared by each title in
:mod:`engine.options`) are a set of words apart from the switches: ``site()`` never
turns one on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from .errors import InvalidAction

MARKETS = ("grid", "column")
"""The two stock markets of the box (rulebook 4)."""


class Rules(NamedTuple):
    """The market and options chosen for a game plus the rulebook/18xx.games switches."""

    market: str = "grid"
    """Which stock market: "grid" or "column" (rulebook 4)."""

    options: frozenset[str] = frozenset()
    """The rulebook's optional rules chosen for the game (``long-game``; see
    :mod:`engine.options`), checked against the title when the game is set up."""

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

    any_minor_auctioned_first: bool = False
    """RN 4.2, 11.3 (1861) — the site's engine accepts a bid on any minor as the game's
    first minor auction (its page alone asks for the Nikolaev first, so a log may hold
    another). Rulebook 7.2.1: the Nikolaev must be the first minor auctioned."""

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

    new_track_by_first_walk: bool = False
    """Found with the site's engine (issue 35) — 18xx.games admits an upgrade only if its
    one depth-first walk from each token runs onto new track of the tile (or a city whose
    value changes); the walk does not go back to a city it walked through (unless it came
    by an edge where paths converge) and never runs onto a path by whose other edge it
    left the hex, so new track a train could reach by another route may not count
    (:mod:`engine.site_walk`). Rulebook 8.6, 8.1: connectivity by any legal route."""

    tile_cost_paid_on_replace: bool = False
    """RN 11.13 — a cost printed on a tile (Kiev's 635) is paid when that tile is
    replaced. Rulebook 8.6.2: paid when the tile is placed."""

    bank_breaks_below_zero: bool = False
    """RN 11.35 — the bank breaks when a payment would take it below zero. Rulebook
    12.1: when it has run out (nothing left)."""

    final_phase_end_wins: bool = False
    """RN 10.1, 11.35 — when the bank breaks and the first 8-train is bought, the
    8-train's end is used, even if the bank broke first. Rulebook 12.1: each trigger
    ends the game "and then", so the earlier end wins."""

    explicit_private_window: bool = False
    """RN 7.2 — a company with no loans is still offered the private-purchase window
    before loan operations (18xx.games passes it automatically and logs the pass), and
    again after buying trains. Rulebook 8.12: buying a private is possible at any time,
    so the window is offered once a company turn (before loans if it has some, else
    after its trains, unless the train step already offered the privates)."""

    pass_asked_without_choice: bool = False
    """RN 7.2 — a company is asked to lay track or place a token even when no lay or
    token is legal or affordable, and to buy a train when the only other trains are the
    national's (which never sells), and its logs hold the player's pass. Rulebook 8.4:
    a step with nothing to decide is passed over (and the log says why)."""

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

    merger_connected_to_any_member: bool = False
    """RN 8.3, 11.30 — a minor may join a merge if it is connected to any minor already
    in it (a chain). Rulebook 9.2: "One of the Minor Companies involved must be
    connected to all other Minor Companies" (a hub)."""

    merger_exchange_in_price_order: bool = False
    """RN 8.3, 11.27 — after a merge the minor certificates are exchanged in the minors'
    stock-price order. Rulebook 9.2C: starting with the active player, clockwise."""

    merger_price_on_major_start_space: bool = False
    """RN 8.3, 11.32 — a merged major's price goes on the highest major start space
    (pink or teal) at or below the sum. Rulebook 9.2A: on the blue or teal section
    (100–200); on the grid 100 and 110 are blue, not pink (a conversion, 9.1A, is
    pink or teal on both)."""

    merger_major_named_after_adding: bool = False
    """RN 8.3 — a merge adds minors until its player passes (or none is left to add) and
    only then names its major; once the adding is done, or a conversion begun, the
    player must name the major and cannot pass. Rulebook 9.2A: the active player names
    the major once two minors are in (which ends the adding), and may give the merge or
    conversion up by passing until then: nothing has changed hands yet, and every
    owner must agree to a merge (9.2)."""

    merger_tokens_before_shares: bool = False
    """RN 8.1, 11.26 — the token reduction (9.2E) comes before the share purchases
    (9.2C–D), the order the designer confirmed to 18xx.games; while the new major has
    no president the owner of the active minor chooses. Rulebook 9.2: C, D, then E,
    chosen by the president."""

    national_route_entered_by_player: bool = False
    """RN 7.12 — the priority player enters the RSR's routes (the site accepts any).
    Rulebook 8.13 asks for the RSR's maximum revenue, so Troika finds and runs it."""

    run_asked_for_any_walk: bool = False
    """RN 7.2 — a company with trains is asked to run (and may enter no route) when a
    walk from its token reaches any other revenue centre, also another city of its own
    hex (Moscow's three). Rulebook 8.8.1: a route counts one revenue centre per hex, so
    a walk back into the token's hex is no route and the step is passed over."""

    idle_trains_count_as_run: bool = False
    """RN 7.8 — once a company's earnings are settled (8.9), every train it owns counts
    as run this operating round, also one that found no route; so a train the national
    takes over later in the round (a company nationalized for its loan interest, 10.1E)
    does not run for it. Rulebook 8.8: "If a company owns any trains, it operates them",
    so the national runs each train it owns that has not run."""

    national_buys_into_phase_eight: bool = False
    """RN 7.12 — the RSR goes on buying the next train while its cash covers it, also
    after its own purchase has started phase 8. Rulebook 8.13: it ceases operation at
    the start of phase 8, so it buys nothing more."""

    trade_in_only_for_special_trains: bool = False
    """RN 11.20 (1867) — a train may be traded in only when buying an 8, 2+2 or 5+5E,
    so a pool 5, 6 or 7 cannot be bought so. Rulebook 8.11: in phase 8 "a 50% discount
    of its face value on another train", from the yard or the pool."""

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

    unconnected_unless_no_stop_reached: bool = False
    """RN 4.3, 11.6 — a city is "unconnected" (a major's home, 7.4) only if its track
    reaches no other city, town or off-board, and does not loop back into the city
    itself (found with the site's engine, issue 35: its walk from a city stops at any
    stop but the track it set out on). Rulebook glossary: a city that cannot trace a
    legal route to another city, so track to a town or off-board alone, or a loop,
    does not connect it."""

    unconnected_judged_per_hex: bool = False
    """RN 4.3 — a city counts as unconnected for a major's home only if every city on
    its hex is unconnected (1861: the only homes; 1867: the homes preferred). Rulebook
    7.4: each city is judged by itself."""

    major_home_only_in_empty_city: bool = False
    """RN 4.3 — a major started in a stock round takes its home only in a city that holds
    no token and no reservation. Rulebook 7.4: "a city spot that is unconnected" — a free
    spot of an unconnected city, whoever else has a token there (8.7: not the last spot
    a reservation needs); only 1867's fallback to a connected city asks for an
    unoccupied one."""

    privates_nationalized_before_trainless: bool = False
    """RN 7.9 — at the start of phase 6 the privates are nationalized (paying their owners
    face value) before the trainless companies are, so a trainless company's private is
    paid for and the money goes to the national with it. Rulebook 11, phase 6: "3-Trains
    rust; Trainless Minor Companies ... are immediately nationalized; Trainless Major
    Companies ... may be nationalized; Private Companies are nationalized" (10: "if they
    have not done so already"), so a private a nationalized company owned goes to the
    national unpaid."""

    nationalized_major_trains_for_sale: bool = False
    """RN 37 (1867) — a nationalized major's trains stay on its old charter, out of
    play, and any company may buy them there for any price from 1 (Troika pays it to
    the bank: the old charter holds no money in play) until they rust. Rulebook 8.13,
    10.1E: its trains go to the CN, which neither runs nor sells them (a sale between
    companies needs both presidents' agreement, 8.11, and the CN has none)."""

    operating_major_not_nationalized: bool = False
    """Found with the site's engine (issue 35) — a trainless major whose turn it is
    to operate (first in a new operating round's order) cannot be nationalized by choice
    while another trainless major is still to choose: 18xx.games then resets the major but
    leaves it the operating company (its round moves on only when the major it closes is
    the one it waits for, and it waits for the next chooser), with nothing it may do, so
    its game cannot go on; the president may only keep it (pass). Rulebook 10: the choice
    is open in any round, and a nationalized company simply does not operate."""

    buyer_turn_ends_when_minors_nationalized: bool = False
    """Found with the site's engine (issue 35) — when a company's train purchase starts the
    phase in which every minor is nationalized while a minor still holds a train (over
    its limit, which is none), 18xx.games ends the buying company's turn there: closing
    that minor, the one its discard step waits for, moves its operating round on, so the
    buyer buys no more trains or privates. Rulebook 10, 8.11: the buyer's turn goes on."""

    national_collects_private_income: bool = False
    """RN 11.23 (1867) — the CN collects the income of the privates nationalized in
    phase 6. Rulebook 8.13: the CN keeps no money."""

    first_seat_starts: bool = False
    """18xx.games orders a game's seats at random when it is made, and the first seat
    has the priority deal, so a log names no first player. Rulebook 2M: the first
    player is drawn (Troika draws it from the game's seed)."""

    two_player_variant_every_title: bool = False
    """RN 1.9 — 18xx.games sets up every two-player game as the rulebook's 1861S
    two-player game (16.1–16.2), 1867 too. Rulebook 16: that variant is 1861's only."""

    @classmethod
    def rulebook(cls, *, market: str = "grid", options: Iterable[str] = ()) -> Rules:
        """The rulebook's rules, with a market and the players' options."""
        return cls(market=market, options=frozenset(options))

    @classmethod
    def site(cls, *, market: str = "grid", options: Iterable[str] = (), live: bool = False) -> Rules:
        """The rules as 18xx.games applies them, for replaying its logs: every switch
        on, and no option but those given. ``live``: for a game played here by the
        site's rules (``new … site``), whose moves its page would check, so the
        switches for what it skips only while loading a log stay off (RN 0.4)."""
        on = [name for name in SWITCHES if not (live and name in LOG_LOADING_ONLY)]
        return cls(market=market, options=frozenset(options), **{name: True for name in on})

    def loading(self) -> Rules:
        """These rules as 18xx.games loads a log: its page's checks (:data:`LOG_LOADING_ONLY`)
        off, for the moves of an imported log (RN 0.4)."""
        return self.but(**dict.fromkeys(LOG_LOADING_ONLY, True)) if self.is_site else self

    def live(self) -> Rules:
        """These rules as 18xx.games' page checks a move (:data:`LOG_LOADING_ONLY` off):
        an imported game's, once its log is loaded (RN 0.4)."""
        return self.but(**dict.fromkeys(LOG_LOADING_ONLY, False)) if self.is_site else self

    def plays(self, option: str) -> bool:
        """Whether the game plays the optional rule ``option`` (:mod:`engine.options`)."""
        return option in self.options

    @property
    def switches_on(self) -> list[str]:
        """The 18xx.games switches turned on."""
        return [name for name in SWITCHES if getattr(self, name)]

    @property
    def is_site(self) -> bool:
        """Whether the game plays by 18xx.games' readings: every switch on (an imported
        game), or all but the log-loading ones (a live game, :meth:`site`)."""
        return set(SWITCHES) - set(self.switches_on) <= LOG_LOADING_ONLY

    @property
    def is_live_site(self) -> bool:
        """Whether the game plays by 18xx.games' readings as its page checks moves."""
        return self.is_site and not any(getattr(self, name) for name in LOG_LOADING_ONLY)

    def to_dict(self) -> dict[str, Any]:
        """The stored form: ``{"market", "options": [...], "site": true}`` (or
        ``"site": "live"``, :meth:`site`), or with the switches named
        (``"switches": [...]``) when only some are on."""
        data: dict[str, Any] = {"market": self.market, "options": sorted(self.options)}
        if self.is_site:
            data["site"] = "live" if self.is_live_site else True
        elif self.switches_on:
            data["switches"] = self.switches_on
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Read :meth:`to_dict`'s form, or the flat form of older games (every field by
        name: ``{"market": "grid", "price_drop_per_sell_action": true, ...}``)."""
        rules = cls._from_stored(data) if set(data) <= STORED_KEYS else cls._from_flat(data)
        if rules.market not in MARKETS:
            raise InvalidAction(f"market must be 'grid' or 'column', not {rules.market!r}")
        return rules

    @classmethod
    def _from_stored(cls, data: dict[str, Any]) -> Rules:
        options, switches = data.get("options", []), data.get("switches", [])
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise InvalidAction("the game's options must be a list of option words")
        if not isinstance(switches, list) or not set(switches) <= set(SWITCHES):
            raise InvalidAction(f"unknown 18xx.games switches: {switches!r}")
        market = data.get("market", "grid")
        if data.get("site") in (True, "live"):
            return cls.site(market=market, options=options, live=data["site"] == "live")
        return cls(market=market, options=frozenset(options), **{name: True for name in switches})

    @classmethod
    def _from_flat(cls, data: dict[str, Any]) -> Rules:
        """A flat dict with every switch it names on was an import (``site()``): the
        switches added since are on too. Games stored before the two-player switch was
        set up with two players whatever the title, so it stays on for them."""
        known = set(cls._fields) - {"options"}
        unknown = set(data) - known
        if unknown:
            raise InvalidAction(f"unknown game options: {', '.join(sorted(unknown))}")
        named = [data[name] for name in SWITCHES if name in data]
        if named and all(v is True for v in named):
            return cls.site(market=data.get("market", "grid"))
        return cls(**{"two_player_variant_every_title": True, **data})

    def but(self, **changes: Any) -> Rules:
        """A copy with some switches changed."""
        return self._replace(**changes)


SWITCHES = tuple(name for name, default in Rules._field_defaults.items() if isinstance(default, bool))
"""The 18xx.games switches (every boolean field); the options are not among them."""

LOG_LOADING_ONLY = frozenset({"lay_connection_unchecked", "any_minor_auctioned_first"})
"""The switches for checks 18xx.games makes only on its page, where a move is made
(RN 0.4: a lay's connection, which its engine skips while it loads a log; RN 4.2: the
Nikolaev first, which its engine never checks): its logs may break them, so an import
plays with the switch on, while a live game by its rules keeps the check."""

STORED_KEYS = frozenset({"market", "options", "site", "switches"})
"""The keys of :meth:`Rules.to_dict`'s form."""
