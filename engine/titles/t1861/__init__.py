"""1861: Railways of the Russian Empire — the rules the rulebook marks "1861"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.options import BOTH_TITLES
from engine.state import Company, Context, GameState
from engine.title import Title

from . import bundles
from .options import (
    BUNDLES,
    RSR_EXPORTS,
    SHORT,
    SHORT_END,
    SHORT_RSR,
    SIX_TRAIN_END,
    STARTING_BUNDLES,
    TRAIN_EXPORTS,
)

if TYPE_CHECKING:
    from engine.title import RoundStart

SHORT_END_TRAIN = "6"
"""§15.3: the train whose first purchase ends the short game."""


class Russia(Title):
    """1861: reserved minor homes, the Nikolaev first, the RSR that operates (8.13)."""

    currency = "₽"
    first_minor = "N"
    nationalization_steps_per_loan = 1
    options = (*BOTH_TITLES, TRAIN_EXPORTS, STARTING_BUNDLES, SHORT_RSR, SHORT_END)
    option_sets = dict([SHORT])
    two_player_variant = True

    def first_round(self, ctx: Context, state: GameState, private_auction: RoundStart) -> None:
        """15.1: with the starting bundles, the first stock round sells them instead of
        the private auction."""
        if ctx.rules.plays(BUNDLES):
            bundles.start(ctx, state)
        else:
            private_auction(ctx, state)

    def draws_privates_out(self, ctx: Context) -> bool:
        """16.3: in the short two-player game the bundles decide which privates play."""
        return not ctx.rules.plays(BUNDLES)

    def national_keeps_money(self, ctx: Context) -> bool:
        """§15.2: the short game's RSR has no treasury."""
        return not ctx.rules.plays(RSR_EXPORTS) and super().national_keeps_money(ctx)

    def last_phase_began(self, ctx: Context, state: GameState) -> None:
        """§15.3: the short game ends at the first 6-train, not the 8-train."""
        if not ctx.rules.plays(SIX_TRAIN_END):
            super().last_phase_began(ctx, state)

    def train_bought(self, ctx: Context, state: GameState, train: str) -> None:
        """§15.3: the purchase of the first 6-train ends the game: finish this operating
        round and play two more, with a stock round in the usual sequence (12.1: with
        another trigger, the earlier end wins)."""
        from engine.game_end import end_after

        if not ctx.rules.plays(SIX_TRAIN_END) or train != SHORT_END_TRAIN:
            return
        done = state.round.operating_rounds_done() if state.round is not None else 0
        last = done + 2
        if last <= state.operating_rounds:
            after = (state.round_number, last)
        else:
            after = (state.round_number + 1, last - state.operating_rounds)
        if end_after(ctx, state, after, "first_6_train"):
            state.log.append("The first 6-train: two more operating rounds after this one, then the game ends (§15.3)")

    def major_home_cities(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """7.4: "a city spot that is unconnected", whoever else has a token in the city;
        with none, no major can start this way. RN 4.3: on 18xx.games only a city with
        no token and no reservation."""
        from engine.graph import city_is_unconnected
        from engine.tokens import cities_with_a_free_spot, open_unreserved_cities

        empty_only = ctx.rules.major_home_only_in_empty_city
        spots = open_unreserved_cities(ctx, state) if empty_only else cities_with_a_free_spot(ctx, state)
        return [(h, c) for h, c in spots if city_is_unconnected(ctx, state, h, c)]

    def national_takes_assets(self, ctx: Context, state: GameState, company: Company) -> None:
        """10.1E: the RSR takes the company's cash, trains and privates."""
        nat = state.companies[ctx.board.national()]
        nat.cash += company.cash
        company.cash = 0
        nat.trains.extend(company.trains)
        for private in company.privates:
            state.private_owner[private] = nat.sym
            nat.privates.append(private)

    def final_phase_reached(self, ctx: Context, state: GameState) -> None:
        """12.1 (1861): bought in the first operating round of a set, two more operating
        rounds follow; otherwise a stock round and three operating rounds."""
        from engine.game_end import FINAL_SET_ROUNDS, end_after

        rnd = state.round
        if rnd is not None and rnd.kind == "Operating" and rnd.operating_rounds_done() == 1:
            if end_after(ctx, state, (state.round_number, FINAL_SET_ROUNDS), "final_phase"):
                state.operating_rounds = FINAL_SET_ROUNDS
                state.log.append("The first 8-train: two more operating rounds after this one, then the game ends")
        elif end_after(ctx, state, (state.round_number + 1, FINAL_SET_ROUNDS), "final_phase"):
            state.log.append("The first 8-train: one more stock round and three operating rounds")


TITLE = Russia()
