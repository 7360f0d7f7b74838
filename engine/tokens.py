"""Station tokens on the map (rulebook 8.7): slots, reservations, homes and costs."""

from __future__ import annotations

from .board import hex_distance
from .errors import IllegalAction
from .state import Context, GameState

NEUTRAL = "neutral"
"""The holder written in a city spot for a neutral token: it fills the spot and
belongs to no company, so it never blocks a route (RN 11.25, 1867's green spots)."""


def city_slots(ctx: Context, state: GameState, hex_id: str, city: int) -> list[str | None]:
    """Who holds each slot of a city (None = empty)."""
    tile, _ = ctx.tile_at(state, hex_id)
    if city >= len(tile.nodes) or tile.nodes[city].kind != "city":
        raise IllegalAction(f"{hex_id} has no city {city}")
    slots = state.map.tokens.get((hex_id, city))
    size = tile.nodes[city].slots
    if slots is None:
        return [None] * size
    return slots + [None] * (size - len(slots))


def free_slot_for(ctx: Context, state: GameState, sym: str, hex_id: str, city: int) -> int | None:
    """The slot ``sym`` may take in a city, keeping room for another company's
    reservation (8.7), or None if the city is full for it."""
    slots = city_slots(ctx, state, hex_id, city)
    reserver = state.map.reservations.get((hex_id, city))
    empty = [i for i, s in enumerate(slots) if s is None]
    if not empty:
        return None
    if reserver is not None and reserver != sym and len(empty) <= 1:
        return None
    return empty[0]


def home_city(ctx: Context, state: GameState, sym: str) -> tuple[str, int] | None:
    """Where the company's home token goes: the city its reservation has moved to when
    an upgrade renumbered the cities (RN 2.2), else its printed home city."""
    corp = ctx.board.corporations[sym]
    if corp.home is None:
        return None
    for key, holder in state.map.reservations.items():
        if key[0] == corp.home and holder == sym:
            return key
    return corp.home, corp.home_city


def place_home_token(ctx: Context, state: GameState, sym: str) -> None:
    """7.2.1 (1861): a minor's token goes on its reserved home city as it starts, won at
    auction or bought in a starting bundle (15.1 replaces only the auction)."""
    home = home_city(ctx, state, sym)
    if home is not None:
        put_token(ctx, state, sym, *home)


def put_token(ctx: Context, state: GameState, sym: str, hex_id: str, city: int) -> None:
    """Place the company's next unused token in a city (no cost, no checks of reach)."""
    company = state.companies[sym]
    token = next((t for t in company.tokens if t.hex is None), None)
    if token is None:
        raise IllegalAction(f"{sym} has no station token left")
    slot = free_slot_for(ctx, state, sym, hex_id, city)
    if slot is None:
        raise IllegalAction(f"{hex_id} city {city} has no free slot for {sym}")
    slots = city_slots(ctx, state, hex_id, city)
    slots[slot] = sym
    state.map.tokens[(hex_id, city)] = slots
    if state.map.reservations.get((hex_id, city)) == sym:
        del state.map.reservations[(hex_id, city)]
    token.hex, token.city = hex_id, city


def put_national_token(ctx: Context, state: GameState, sym: str, hex_id: str, city: int, which: str) -> None:
    """Place one of the national's tokens by itself (8.13) and say so, as every
    automatic effect is told: ``RSR places its home token in St Petersburg (E1)``."""
    put_token(ctx, state, sym, hex_id, city)
    name = ctx.board.location_names.get(hex_id, "").split(" (")[0]
    state.log.append(f"{sym} places its {which} token in {name or hex_id} ({hex_id}, 8.13)")


def remove_token(state: GameState, sym: str, hex_id: str, city: int) -> None:
    """Take a company's token off a city and back to its charter."""
    slots = state.map.tokens.get((hex_id, city), [])
    for i, holder in enumerate(slots):
        if holder == sym:
            slots[i] = None
    for token in state.companies[sym].tokens:
        if token.hex == hex_id and token.city == city:
            token.hex = token.city = None


def cities(ctx: Context, state: GameState) -> list[tuple[str, int]]:
    """Every city on the map as (hex, city index)."""
    result: list[tuple[str, int]] = []
    for hex_id in ctx.board.hexes:
        tile, _ = ctx.tile_at(state, hex_id)
        result.extend((hex_id, i) for i in tile.city_indexes)
    return result


def cities_with_a_free_spot(ctx: Context, state: GameState) -> list[tuple[str, int]]:
    """Cities where a new company may put a token: a free spot that is not the last
    one another company's reservation needs (8.7), whoever else has a token there."""
    return [(h, c) for h, c in cities(ctx, state) if free_slot_for(ctx, state, "", h, c) is not None]


def open_unreserved_cities(ctx: Context, state: GameState) -> list[tuple[str, int]]:
    """Cities with no token and no reservation: open for a new company's home."""
    result = []
    for hex_id, city in cities(ctx, state):
        if any(state.map.tokens.get((hex_id, city), [])):
            continue
        if (hex_id, city) in state.map.reservations:
            continue
        if free_slot_for(ctx, state, "", hex_id, city) is not None:
            result.append((hex_id, city))
    return result


def token_cost(state: GameState, sym: str, hex_id: str) -> int:
    """8.7: the next token's price per hex times the distance to the nearest own token."""
    company = state.companies[sym]
    token = next((t for t in company.tokens if t.hex is None), None)
    if token is None:
        raise IllegalAction(f"{sym} has no station token left")
    placed = [t.hex for t in company.tokens if t.hex is not None]
    if not placed:
        return 0
    return token.price * min(hex_distance(h, hex_id) for h in placed)
