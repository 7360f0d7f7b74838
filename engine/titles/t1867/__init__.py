"""1867: Railways of Canada — the rules the rulebook marks 🍁 1867."""

from __future__ import annotations

from engine.state import Company, Context, GameState
from engine.title import Title
from engine.tokens import NEUTRAL

GREEN_SPOTS = (("D2", 0), ("L12", 2))
"""7.2.1: Timmins and Montreal's third city, open to a minor's home only from phase 3."""



class Canada(Title):
    """1867: minors choose their homes, the CN exports trains and keeps no money (8.13)."""

    currency = "$"
    minors_choose_home = True
    spots_open_in_phase = "3"
    nationalization_steps_per_loan = 2

    def setup_map(self, ctx: Context, state: GameState) -> None:
        """2H: a CN token on its reserved Toronto spot; with the 18xx.games switch the
        two green spots hold neutral tokens until phase 3 (RN 11.25)."""
        from engine.tokens import city_slots, put_token

        nat = ctx.board.corporations[ctx.board.national()]
        if nat.home is not None:
            put_token(ctx, state, nat.sym, nat.home, nat.home_city)
        if ctx.rules.neutral_tokens:
            for hex_id, city in GREEN_SPOTS:
                slots = city_slots(ctx, state, hex_id, city)
                slots[slots.index(None)] = NEUTRAL
                state.map.tokens[(hex_id, city)] = slots

    def green_spots_open(self, ctx: Context, state: GameState) -> None:
        """Phase 3: the green spots open (the neutral tokens leave the map)."""
        for key, slots in state.map.tokens.items():
            state.map.tokens[key] = [None if s == NEUTRAL else s for s in slots]

    def closed_spots(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """7.2.1: the green spots, until the green minors become available (phase 3)."""
        return [] if "green_minors_available" in state.events else list(GREEN_SPOTS)

    def minor_home_cities(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """7.2.1: any unoccupied city with a free spot (the green spots from phase 3)."""
        from engine.tokens import open_unreserved_cities

        closed = self.closed_spots(ctx, state)
        return [c for c in open_unreserved_cities(ctx, state) if c not in closed]

    def major_home_cities(self, ctx: Context, state: GameState) -> list[tuple[str, int]]:
        """7.4 (1867): a free spot of an unconnected city if there is one (whoever else
        has a token there), else a connected unoccupied city, each city judged by
        itself. With the 18xx.games switches only unoccupied cities count (RN 4.3), a
        hex qualifies when no city on it holds a company's token (RN 11.6) and is
        unconnected when all its cities are (RN 4.3)."""
        from engine.graph import unconnected_cities
        from engine.tokens import cities_with_a_free_spot, city_slots

        def occupied(hex_id: str, city: int) -> bool:
            return any(s not in (None, NEUTRAL) for s in city_slots(ctx, state, hex_id, city))

        def unoccupied(hex_id: str, city: int) -> bool:
            if ctx.rules.whole_hex_unoccupied_for_major_home:
                return not any(occupied(hex_id, c) for c in ctx.tile_at(state, hex_id)[0].city_indexes)
            return not occupied(hex_id, city)

        free = cities_with_a_free_spot(ctx, state)
        unoccupied_spots = [(h, c) for h, c in free if unoccupied(h, c)]
        candidates = unoccupied_spots if ctx.rules.major_home_only_in_empty_city else free
        return unconnected_cities(ctx, state, candidates) or unoccupied_spots

    def national_takes_assets(self, ctx: Context, state: GameState, company: Company) -> None:
        """8.13 (1867): the CN keeps no money: the cash goes to the bank; trains and
        privates leave the game (RN 37: a major's trains stay for sale on the site)."""
        state.bank += company.cash
        company.cash = 0
        if ctx.rules.nationalized_major_trains_for_sale and company.is_major:
            state.depot.left_behind.extend(company.trains)
        company.trains = []
        for private in company.privates:
            state.private_owner[private] = None
            state.closed_privates.add(private)

    def final_phase_reached(self, ctx: Context, state: GameState) -> None:
        """12.1 (1867): finish this set of operating rounds, a stock round, then three
        operating rounds."""
        from engine.game_end import FINAL_SET_ROUNDS, end_after

        if end_after(ctx, state, (state.round_number + 1, FINAL_SET_ROUNDS), "final_phase"):
            state.log.append("The first 8-train: after this set, one more stock round and three operating rounds")


TITLE = Canada()
