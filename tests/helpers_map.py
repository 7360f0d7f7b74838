"""Positions on the real 1861 map for the graph and route tests.

``position`` builds a :class:`GameState` by hand: tiles as ``"TILE@ROT"``, tokens
as hexes (or ``(hex, city)`` where a hex has several cities), trains by name.
``trace_position`` rebuilds the map, tokens, trains and privates of one line of
an 18xx.games trace (``shared/games/*.trace.jsonl``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engine.board import load_board
from engine.rules import Rules
from engine.state import Company, Context, GameState, PlacedTile, StationToken, Train
from engine.titles import title_named
from tests.conftest import GAMES, read_json_lines

TRACES = sorted(GAMES.glob("1861-*.trace.jsonl"))

TokenSpec = str | tuple[str, int]

# The end of 18xx.games game 29683 (phase 8): every tile laid and every token placed.
FINAL_TILES = {
    "B10": "8@4", "B12": "23@5", "B4": "801@4", "B6": "8@0", "B8": "204@1", "C13": "27@5",
    "C15": "7@3", "C3": "9@1", "C9": "88@1", "D14": "636@0", "D16": "24@3", "D18": "9@0",
    "D2": "24@4", "D20": "801@1", "D8": "8@5", "E1": "642@0", "E11": "4@0", "E13": "204@1",
    "E17": "9@2", "E19": "9@1", "E9": "63@0", "F10": "8@2", "F12": "9@1", "F14": "9@2",
    "F18": "611@1", "F8": "8@5", "G11": "24@4", "G13": "4@0", "G15": "640@0", "G17": "8@1",
    "G7": "28@5", "G9": "20@1", "H10": "87@1", "H14": "9@1", "H18": "5@5", "H6": "8@5",
    "H8": "639@0", "I11": "9@0", "I13": "63@0", "I19": "57@2", "I7": "23@1", "I9": "46@4",
    "J10": "8@4", "J12": "8@1", "J6": "23@1", "J8": "45@4", "K5": "8@5", "K7": "623@0",
    "K9": "24@1", "L6": "23@4", "L8": "23@4", "M5": "9@1", "M7": "63@0", "N10": "202@1",
    "N4": "9@1", "N8": "8@2", "O3": "8@5", "O7": "9@1", "P4": "8@2", "P6": "9@1",
}
FINAL_TOKENS = {
    "NW": ["E9", "H8", "K7"], "SW": ["E1", "D14", "H8"], "SE": ["F18", "D14", "E1"],
    "GRR": ["Q3", "H8", "I13"], "MKN": ["G15", "I13", "K7"],
    "RSR": ["B4", "D20", "N10", "I19", "H18", "E1", "D14", "H8"],
}
FINAL_TRAINS = {
    "NW": ["5", "7"], "SW": ["5", "2+2"], "SE": ["5", "2+2"], "GRR": ["6", "2+2"],
    "MKN": ["5", "7"], "RSR": ["8", "6"],
}


@cache
def context() -> Context:
    return Context(load_board("1861"), Rules(), title_named("1861"))


def position(
    tiles: Mapping[str, str] | None = None,
    tokens: Mapping[str, Sequence[TokenSpec]] | None = None,
    trains: Mapping[str, Sequence[str]] | None = None,
    privates: Mapping[str, Sequence[str]] | None = None,
    phase: str = "2",
) -> GameState:
    """A state with these tiles laid, tokens placed, trains and privates owned."""
    ctx = context()
    state = GameState(title="1861", players=[], companies={}, bank=15000, phase=phase)
    for hex_id, text in (tiles or {}).items():
        name, rotation = text.split("@")
        state.map.tiles[hex_id] = PlacedTile(name, int(rotation), f"{name}-0")
    syms = set(tokens or {}) | set(trains or {}) | set(privates or {})
    copies: Counter[str] = Counter()
    for sym in sorted(syms):
        company = Company(sym, ctx.board.corporations[sym].type, floated=True)
        state.companies[sym] = company
        for name in (trains or {}).get(sym, ()):
            company.trains.append(Train(f"{name}-{copies[name]}", name))
            copies[name] += 1
        company.privates.extend((privates or {}).get(sym, ()))
    for sym, specs in (tokens or {}).items():
        for spec in specs:
            hex_id, city = spec if isinstance(spec, tuple) else (spec, _city_for(state, sym, spec))
            slots = state.map.tokens.setdefault((hex_id, city), [])
            slots.append(sym)
            state.companies[sym].tokens.append(StationToken(0, hex_id, city))
    return state


def _city_for(state: GameState, sym: str, hex_id: str) -> int:
    """The city a token on ``hex_id`` most likely sits in: a minor's home, the RSR's
    St Petersburg spot, else the first city with a free slot."""
    ctx = context()
    tile, _ = ctx.tile_at(state, hex_id)
    cities = tile.city_indexes
    if len(cities) == 1:
        return cities[0]
    corp = ctx.board.corporations[sym]
    if corp.home == hex_id:
        return _upgraded_city(state, hex_id, corp.home_city)
    if corp.type == "national" and hex_id == "E1":
        return cities[-1]
    for city in cities:
        taken = [s for s in state.map.tokens.get((hex_id, city), []) if s]
        if len(taken) < tile.nodes[city].slots:
            return city
    raise ValueError(f"no free city for {sym} on {hex_id}")


def _upgraded_city(state: GameState, hex_id: str, printed_city: int) -> int:
    """Where a city printed on the map went after upgrades: the city of the current
    tile whose exits include all of the printed city's exits (RULES-NOTES 2.2)."""
    ctx = context()
    exits = ctx.board.hexes[hex_id].node_exits(0)[printed_city]
    tile, rotation = ctx.tile_at(state, hex_id)
    now = tile.node_exits(rotation)
    for city in tile.city_indexes:
        if exits <= now[city]:
            return city
    return printed_city


def trace_position(line: Mapping[str, Any], cities: Mapping[tuple[str, str], int] | None = None) -> GameState:
    """The state of one trace line; ``cities`` fixes (company, hex) -> city where needed."""
    corps = line["corporations"]
    owners: dict[str, list[str]] = {}
    for private, owner in line["companies"].items():
        if owner in corps:
            owners.setdefault(owner, []).append(private)
    tokens: dict[str, list[TokenSpec]] = {}
    for sym, corp in corps.items():
        tokens[sym] = [
            (h, cities[(sym, h)]) if cities and (sym, h) in cities else h for h in corp["tokens"]
        ]
    return position(
        tiles=line["tiles"],
        tokens=tokens,
        trains={sym: corp["trains"] for sym, corp in corps.items()},
        privates=owners,
        phase=line["phase"],
    )


def final_positions() -> list[GameState]:
    """The end-of-game map of every shared 1861 game."""
    result = []
    for path in TRACES:
        last = read_json_lines(path)[-1]
        result.append(trace_position(last))
    return result
