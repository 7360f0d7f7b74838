"""1861: Railways of the Russian Empire — the rules the rulebook marks "1861"."""

from __future__ import annotations

from ...options import BOTH_TITLES, SHORT, SHORT_END, SHORT_RSR, STARTING_BUNDLES, TRAIN_EXPORTS
from ...state import Company, Context, GameState
from .. import Title


class Russia(Title):
    """1861: reserved minor homes, the Nikolaev first, the RSR that operates (8.13)."""

    name = "1861"
    folder = "t1861"
    currency = "₽"
    first_minor = "N"
    nationalization_steps_per_loan = 1
    options = (*BOTH_TITLES, TRAIN_EXPORTS, STARTING_BUNDLES, SHORT_RSR, SHORT_END)
    option_sets = dict([SHORT])
    two_player_variant = True

    def major_home_cities(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """7.4: only an unconnected city; with none, no major can start this way."""
        from ...graph import city_is_unconnected
        from ...tokens import open_unreserved_cities

        return [(h, c) for h, c in open_unreserved_cities(ctx, state) if city_is_unconnected(ctx, state, h, c)]

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
        from ...game_end import FINAL_SET_ROUNDS, end_after

        rnd = state.round
        if rnd is not None and rnd.kind == "Operating" and rnd.operating_rounds_done() == 1:
            if end_after(ctx, state, (state.round_number, FINAL_SET_ROUNDS), "final_phase"):
                state.operating_rounds = FINAL_SET_ROUNDS
                state.log.append("The first 8-train: two more operating rounds after this one, then the game ends")
        elif end_after(ctx, state, (state.round_number + 1, FINAL_SET_ROUNDS), "final_phase"):
            state.log.append("The first 8-train: one more stock round and three operating rounds")


TITLE = Russia()
