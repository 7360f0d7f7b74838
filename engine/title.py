"""What a title is: its data and the few rules the rulebook marks as its own ("1861"
or 🍁 1867), as hooks of :class:`Title`.

The shared rules (the rest of ``engine``) call the hooks where the rulebook gives a title
its own rule; a title is a subclass in a package of its own with its data files beside
it (``board.json``, ``upgrades.json``, ``two_player.json``, 1861's ``bundles.json``),
registered in :data:`engine.titles.TITLES`. The title owns the game's shape: its first
round, the order of the rounds (:meth:`Title.next_round`), the steps of an operating
turn (:attr:`Title.operating_steps`), when the national runs or exports, and what ends
the game (12.1). The rulebook's variants (§14–16) are options a title declares
(:attr:`Title.options`, from :mod:`engine.options` and its own folder, as 1861's short
game with its bundle round).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from . import game_end, merger, operating, stock_round, trains
from .errors import DataError
from .operating_steps import STEPS, Step
from .options import BOTH_TITLES, EXPORT_PER_SET, LONG_GAME, OptionDef
from .rounds import Round
from .scoring import end_game

if TYPE_CHECKING:

    from .state import Company, Context, GameState

    RoundStart = Callable[[Context, GameState], object]
    """Starts a round (:func:`engine.auction.start`)."""


class Title:
    """The hooks the shared rules call; each title overrides what the rulebook marks."""

    name = ""
    """The title's name in :data:`TITLES` (set when the registry loads it)."""

    currency = "$"

    first_minor: str | None = None
    """7.2.1: the minor that must be auctioned before any other (1861: the Nikolaev)."""

    minors_choose_home = False
    """7.2.1: the nominating player places the minor's token in an unoccupied city
    (1867); otherwise every minor has a reserved home on the map (1861)."""

    spots_open_in_phase = ""
    """7.2.1: the phase from which the spots of :meth:`closed_spots` open (1867: 3)."""

    nationalization_steps_per_loan = 1
    """10.1C: extra spaces left per outstanding loan when a company is nationalized."""

    options: tuple[OptionDef, ...] = BOTH_TITLES
    """The rulebook's optional rules this title offers (§14–16), in the rulebook's order."""

    option_sets: dict[str, tuple[str, ...]] = {}
    """Words that choose several options at once (1861: ``short``, all of §15)."""

    two_player_variant = False
    """16: the rulebook has a two-player set-up for this title (1861S); without it, an
    18xx.games import (RN 1.9) is the only two-player game."""

    operating_steps: tuple[Step, ...] = STEPS
    """8.4: the steps of an operating turn, in the order a company takes them."""

    def data(self, name: str) -> Any:
        """One of the title's data files, parsed: from the folder of the module that
        defines the title, else from its parent title's (a title built on another keeps
        only the files it changes), laid over the components both titles share
        (:func:`shared_data`)."""
        for cls in type(self).__mro__:
            module = sys.modules[cls.__module__]
            path = os.path.join(os.path.dirname(module.__file__ or ""), name)
            if cls is not Title and os.path.exists(path):
                return _laid_over(shared_data(name), _read_json(path))
        raise DataError(f"{self.name} has no data file {name}")

    @cached_property
    def step_index(self) -> dict[str, int]:
        """Each operating step's name -> its place in :attr:`operating_steps`."""
        return {step.name: i for i, step in enumerate(self.operating_steps)}

    # --- the sequence of rounds (6) and the national (8.13) ----------------------------

    def first_round(self, ctx: Context, state: GameState, private_auction: RoundStart) -> None:
        """Start the game's first round: 5, the private auction (``private_auction``
        starts it) unless the title opens with a round of its own."""
        private_auction(ctx, state)

    def next_round(self, ctx: Context, state: GameState, done: Round) -> None:
        """6: start the round that follows ``done``: after the private auction the first
        stock round (5.3), after a stock round the set's operating rounds (7.6), after an
        operating round the game's end, an export or a merger round (8.14), after a merger
        round the rest of the set (9.3)."""
        if isinstance(done, operating.OperatingRound):
            self.after_operating_round(ctx, state, done.number)
        elif isinstance(done, merger.MergerRound):
            self.go_on_in_set(ctx, state, done.after_or)  # 9.3
        elif done.opens_operating_rounds:
            operating.start_set(ctx, state)  # 7.6
        else:
            stock_round.start(ctx, state)  # 5.3: after the private auction

    def after_operating_round(self, ctx: Context, state: GameState, number: int) -> None:
        """8.14: after the last company, the game may end (12.1); the national may export
        a train (8.13); then a merger round or the set goes on."""
        if self.game_ends_after(ctx, state, number):
            return
        if self.national_exports(ctx, state, number):
            trains.export_train(ctx, state)
            if self.game_ends_after(ctx, state, number):
                return  # 12.1: the export's phase change broke the bank at the end of this round
        if self.merger_round_follows(ctx, state):
            merger.start(ctx, state, number)
        else:
            self.go_on_in_set(ctx, state, number)

    def game_ends_after(self, ctx: Context, state: GameState, number: int) -> bool:
        """12.1: end the game if it ends after this operating round (the bank may just have
        broken); True if it has ended."""
        game_end.check_bank(ctx, state)
        if state.game_ends_after != (state.round_number, number):
            return False
        end_game(ctx, state, state.game_end_trigger or "final_phase")
        return True

    def go_on_in_set(self, ctx: Context, state: GameState, number: int) -> None:
        """6: another operating round of the set, or the next set's stock round."""
        if number < state.operating_rounds:
            operating.start(ctx, state, number + 1)
            return
        state.round_number += 1
        stock_round.start(ctx, state)

    def draws_privates_out(self, ctx: Context) -> bool:
        """16.2: the two-player game removes privates at random before the first round."""
        return True

    def merger_round_follows(self, ctx: Context, state: GameState) -> bool:
        """9: a merger round follows each operating round while minors and majors both
        exist (phases 3 to 7: from the first 3-train to the first 8-train)."""
        limits = ctx.board.phase(state.phase).train_limit
        return "minor" in limits and "major" in limits

    def national_runs(self, ctx: Context, state: GameState) -> bool:
        """8.13: the national operates (runs and buys trains) in the phases that say so
        (1861: 4 to 7, unless it exports instead, §14, §15.2); 1867's CN never does."""
        return "national_operates" in ctx.board.phase(state.phase).status

    def national_exports(self, ctx: Context, state: GameState, number: int) -> bool:
        """8.13 (1867): the national exports a train after every operating round; with
        1861's train exports (§14, §15.2) after the set's last one, just before its
        merger round."""
        status = ctx.board.phase(state.phase).status
        if EXPORT_PER_SET in status:
            return number == state.operating_rounds
        return "export_train" in status

    def national_keeps_money(self, ctx: Context) -> bool:
        """8.13: a national that only exports trains keeps no money (1867), unless the
        18xx.games switch lets it collect its privates' income (RN 11.23)."""
        return ctx.board.national_operates or ctx.rules.national_collects_private_income

    # --- the game's end (12.1), read by :mod:`engine.trains` --------------------------

    def phase_began(self, ctx: Context, state: GameState, phase: str) -> None:
        """A phase began: the first train of its rank left the yard, bought or exported
        by the national (8.11.1, 8.13). 12.1: the first 8-train (the last phase)
        triggers the game's end, exported as bought; §14's long game ignores it and
        plays on until the bank breaks."""
        if phase == ctx.board.phases[-1].name and not ctx.rules.plays(LONG_GAME):
            self.final_phase_reached(ctx, state)

    # --- the title's own rules ------------------------------------------------------

    def setup_map(self, ctx: Context, state: GameState) -> None:
        """2H: what the title puts on the map before the game starts."""

    def green_spots_open(self, ctx: Context, state: GameState) -> None:
        """Phase 3: city spots the title keeps closed until then open up."""

    def closed_spots(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """Cities (hex, city) the title keeps closed to homes until phase 3, while they
        are closed (the map draws them as the board's green spots)."""
        return []

    def minor_home_cities(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """7.2.1: where a nominated minor may put its token (titles whose minors choose)."""
        raise NotImplementedError

    def major_home_cities(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """7.4: where a major started in a stock round may put its home token."""
        raise NotImplementedError

    def national_takes_assets(self, ctx: Context, state: GameState, company: Company) -> None:
        """10.1E: what happens to a nationalized company's cash, trains and privates."""
        raise NotImplementedError

    def final_phase_reached(self, ctx: Context, state: GameState) -> None:
        """12.1: when the game ends after the first 8-train."""
        raise NotImplementedError


SHARED_FOLDER = os.path.join(os.path.dirname(__file__), "titles", "shared")
"""The components 1861 and 1867 share: one rulebook, one box of tiles and markets."""

MERGED_ENTRIES = ("tiles", "upgrades")
"""Keys whose entries a title adds to the shared ones (a tile it names replaces the
shared tile of that name); every other key a title names replaces the shared value."""


def shared_data(name: str) -> dict[str, Any]:
    """The shared part of data file ``name`` (empty if both titles keep it whole)."""
    path = os.path.join(SHARED_FOLDER, name)
    return _read_json(path) if os.path.exists(path) else {}


def _laid_over(shared: dict[str, Any], own: Any) -> Any:
    if not shared:
        return own
    merged = {**shared, **own}
    for key in MERGED_ENTRIES:
        if key in shared:
            merged[key] = {**shared[key], **own.get(key, {})}
    return merged


def _read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as data:
        return json.load(data)
