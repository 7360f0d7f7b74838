"""Laying and upgrading tiles (rulebook 8.6)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import permutations

from .board import COLORS, TileDef, is_edge, node_index
from .errors import IllegalAction
from .state import Context, GameState, PlacedTile


def next_color(color: str) -> str | None:
    """The colour a tile of ``color`` upgrades to (white = empty land takes yellow)."""
    i = COLORS.index(color)
    return COLORS[i + 1] if i + 1 < len(COLORS) else None


def required_label(old: TileDef, hex_def: TileDef, new_color: str) -> str | None:
    """The label the new tile must carry: the hex's, or its future label from the
    colour it applies (Kharkov is a Y city until its gray Kh tile, 8.6)."""
    if hex_def.future_label is not None:
        label, color = hex_def.future_label
        if COLORS.index(new_color) >= COLORS.index(color):
            return label
    return old.label if old.label is not None else hex_def.label


def check_upgrade(ctx: Context, state: GameState, hex_id: str, new: TileDef, rotation: int) -> None:
    """Raise unless ``new`` at ``rotation`` may replace what is on ``hex_id``: one colour
    step, a tile the manifest allows (19), same label, every old track and station kept."""
    check_upgrade_tile(ctx, state, hex_id, new)
    check_keeps_track(ctx, state, hex_id, new, rotation)


def check_keeps_track(ctx: Context, state: GameState, hex_id: str, new: TileDef, rotation: int) -> None:
    """The rule of :func:`check_upgrade` that depends on the rotation: every old track
    and station kept."""
    old, old_rotation = ctx.tile_at(state, hex_id)
    if city_mapping(old, old_rotation, new, rotation) is None:
        raise IllegalAction(f"tile {new.name} at rotation {rotation} does not keep the track already on {hex_id}")


def check_upgrade_tile(ctx: Context, state: GameState, hex_id: str, new: TileDef) -> None:
    """The rules of :func:`check_upgrade` that do not depend on the rotation."""
    old, _ = ctx.tile_at(state, hex_id)
    hex_def = ctx.board.hexes[hex_id]
    if old.color in ("gray", "red", "blue") or hex_def.color in ("gray", "red", "blue"):
        raise IllegalAction(f"{hex_id} cannot take a tile")
    if new.color != next_color(old.color):
        raise IllegalAction(
            f"a {old.color} hex takes a {next_color(old.color)} tile; tile {new.name} is {new.color}"
        )
    allowed = ctx.board.upgrades.get(old.name)
    manifest = not ctx.rules.upgrades_by_track_only
    if manifest and old.name in ctx.board.tiles and allowed is not None and new.name not in allowed:
        raise IllegalAction(
            f"tile {old.name} upgrades only to {', '.join(allowed) or 'nothing'} "
            f"(the tile manifest, 19), not {new.name}"
        )
    label = required_label(old, hex_def, new.color)
    if new.label != label:
        fitting = [t.name for t in ctx.board.tiles.values() if t.color == new.color and t.label == label
                   and (allowed is None or t.name in allowed)]
        want = f"a tile labelled {label}" if label else "a tile without a label"
        names = f" ({new.color}: {', '.join(fitting)})" if label and fitting else ""
        raise IllegalAction(f"{hex_id} needs {want}{names}; tile {new.name} is labelled {new.label or 'nothing'}")
    if len(new.town_indexes) != len(old.town_indexes):
        raise IllegalAction(
            f"{hex_id} has {_count(len(old.town_indexes), 'town', 'towns')}; "
            f"tile {new.name} has {len(new.town_indexes)}"
        )
    if label is None and len(new.city_indexes) != len(old.city_indexes):
        raise IllegalAction(
            f"{hex_id} has {_count(len(old.city_indexes), 'city', 'cities')}; "
            f"tile {new.name} has {len(new.city_indexes)}"
        )
    if not new.city_indexes and old.city_indexes:
        raise IllegalAction(f"{hex_id} has a city; tile {new.name} has none")


_MAPPINGS: dict[tuple[TileDef, int, TileDef, int], Mapping[int, int] | None] = {}


def city_mapping(old: TileDef, old_rotation: int, new: TileDef, rotation: int) -> Mapping[int, int] | None:
    """Map each old revenue node to the new node that keeps its track (preservation,
    8.6), or None if the new tile loses track. Plain track must stay too. (A function
    of the two tiles and rotations, worked out once per process: a lay asks it when
    it is checked and again when it is placed.)"""
    key = (old, old_rotation % 6, new, rotation % 6)  # tiles are told apart by identity
    if key not in _MAPPINGS:
        _MAPPINGS[key] = _city_mapping(old, old_rotation, new, rotation)
    return _MAPPINGS[key]


def _city_mapping(old: TileDef, old_rotation: int, new: TileDef, rotation: int) -> dict[int, int] | None:
    if not old.edge_pairs(old_rotation) <= new.edge_pairs(rotation):
        return None
    old_exits = old.node_exits(old_rotation)
    new_exits = new.node_exits(rotation)
    mapping: dict[int, int] = {}
    for kind in ("city", "town"):
        olds = [i for i, n in enumerate(old.nodes) if n.kind == kind]
        news = [i for i, n in enumerate(new.nodes) if n.kind == kind]
        if not olds:
            continue
        if len(news) < len(olds):
            # Cities merge (Kiev, Moscow, St Petersburg, Montreal): each old city goes
            # to a new one that keeps all its track.
            for o in olds:
                target = next((n for n in news if old_exits[o] <= new_exits[n]), None)
                if target is None:
                    return None
                mapping[o] = target
            continue
        found = _match_nodes(olds, news, old_exits, new_exits)
        if found is None:
            return None
        mapping.update(found)
    return mapping


def _match_nodes(
    olds: list[int], news: list[int], old_exits: tuple[frozenset[int], ...], new_exits: tuple[frozenset[int], ...]
) -> dict[int, int] | None:
    for chosen in permutations(news, len(olds)):
        if all(old_exits[o] <= new_exits[n] for o, n in zip(olds, chosen)):
            # Keep a track-less old city at its own index when possible.
            return dict(zip(olds, chosen))
    return None


def exits_are_legal(ctx: Context, state: GameState, hex_id: str, tile: TileDef, rotation: int) -> str:
    """8.6.1: track may not run off the map, into a gray or red hex without track
    to meet it, or across an impassable border. Returns the reason, or ''."""
    hex_def = ctx.board.hexes[hex_id]
    for edge in tile.exits(rotation):
        neighbour = ctx.board.neighbours[hex_id].get(edge)
        if neighbour is None:
            return f"track on {hex_id} would run off the map (edge {edge})"
        if any(b.edge == edge and b.type == "impassable" for b in hex_def.borders):
            return f"track on {hex_id} would cross an impassable border"
        other = ctx.board.hexes[neighbour]
        if other.color in ("gray", "red", "blue") and neighbour not in state.map.tiles:
            back = (edge + 3) % 6
            if back not in other.exits(0):
                return f"track on {hex_id} would run into {neighbour}, which has no track to meet it"
    return ""


def stubs_missed(ctx: Context, hex_id: str, new: TileDef, rotation: int) -> str:
    """8.6 (1867): a yellow tile on a hex with yellow triangles (G15, K13, L10) must
    connect to them. Returns the reason, or ''."""
    stubs = ctx.board.hexes[hex_id].stubs
    missed = sorted(set(stubs) - new.exits(rotation)) if new.color == "yellow" else []
    if missed:
        return f"a yellow tile on {hex_id} must connect to its yellow triangle (edge {missed[0]}, 8.6)"
    return ""


def lay_cost(ctx: Context, state: GameState, hex_id: str, new: TileDef, second: bool) -> int:
    """What a lay costs (8.6, 8.6.2): 20 for the second action, terrain printed on the
    hex, and a cost printed on a tile (paid when laying it, or with the 18xx.games
    switch when replacing it)."""
    old, _ = ctx.tile_at(state, hex_id)
    cost = ctx.board.lay_costs[1 if second else 0]
    if ctx.rules.tile_cost_paid_on_replace:
        return cost + old.upgrade_cost
    printed = old.upgrade_cost if hex_id not in state.map.tiles else 0
    return cost + printed + new.upgrade_cost


def border_crossings_paid(
    ctx: Context, state: GameState, hex_id: str, new: TileDef, rotation: int
) -> list[tuple[str, int, int]]:
    """8.6.2: costly borders (1867's water) that this tile connects across, as
    (hex, edge, cost): paid once, by the lay that makes track meet across them."""
    result = []
    for border in ctx.board.hexes[hex_id].borders:
        if not border.cost or (hex_id, border.edge) in state.map.paid_borders:
            continue
        if border.edge not in new.exits(rotation):
            continue
        neighbour = ctx.board.neighbours[hex_id].get(border.edge)
        if neighbour is None:
            continue
        tile, neighbour_rotation = ctx.tile_at(state, neighbour)
        if (border.edge + 3) % 6 in tile.exits(neighbour_rotation):
            result.append((hex_id, border.edge, border.cost))
    return result


def pay_borders(ctx: Context, state: GameState, crossings: list[tuple[str, int, int]]) -> None:
    """A paid border costs nothing more, from either side."""
    for hex_id, edge, _ in crossings:
        state.map.paid_borders.add((hex_id, edge))
        neighbour = ctx.board.neighbours[hex_id][edge]
        state.map.paid_borders.add((neighbour, (edge + 3) % 6))


def place_tile(ctx: Context, state: GameState, hex_id: str, new: TileDef, rotation: int, tile_id: str) -> None:
    """Put the tile on the map, return the old one to the supply, carry over tokens
    and reservations to the cities that keep their track."""
    tile_id = tile_id or _copy_from_supply(state, new)
    old, old_rotation = ctx.tile_at(state, hex_id)
    mapping = city_mapping(old, old_rotation, new, rotation) or {}
    previous = state.map.tiles.get(hex_id)
    if previous is not None:
        supply = state.map.supply.get(previous.tile)
        if supply is not None:
            state.map.supply[previous.tile] = supply + 1
    remaining = state.map.supply.get(new.name)
    if remaining is not None:
        state.map.supply[new.name] = remaining - 1
    state.map.copies[new.name] = state.map.copies.get(new.name, 0) + 1
    state.map.tiles[hex_id] = PlacedTile(new.name, rotation, tile_id)
    _carry_over(state, hex_id, mapping, new)


def _copy_from_supply(state: GameState, new: TileDef) -> str:
    """The copy of ``new`` a lay takes (``57-1``): of a tile with a count, the lowest
    numbered copy not on the map, so a copy an upgrade took away is laid again (the
    18xx.games ids name the box's copies); of an unlimited tile, a new one."""
    if new.count is None:
        return f"{new.name}-{state.map.copies.get(new.name, 0)}"
    on_map = {placed.id for placed in state.map.tiles.values() if placed.tile == new.name}
    free = (copy for copy in (f"{new.name}-{i}" for i in range(new.count)) if copy not in on_map)
    copy = next(free, None)
    if copy is None:
        raise IllegalAction(f"no tile {new.name} is left")
    return copy


def _carry_over(state: GameState, hex_id: str, mapping: Mapping[int, int], new: TileDef) -> None:
    tokens = {k: v for k, v in state.map.tokens.items() if k[0] == hex_id}
    reservations = {k: v for k, v in state.map.reservations.items() if k[0] == hex_id}
    for key in tokens:
        del state.map.tokens[key]
    for key in reservations:
        del state.map.reservations[key]
    for (_, old_city), slots in sorted(tokens.items()):
        target = mapping.get(old_city, old_city)
        size = new.nodes[target].slots
        merged = state.map.tokens.get((hex_id, target), [None] * size)
        merged += [None] * (size - len(merged))
        for holder in slots:
            if holder is None:
                continue
            free = merged.index(None)
            merged[free] = holder
        state.map.tokens[(hex_id, target)] = merged
    for (_, old_city), sym in reservations.items():
        state.map.reservations[(hex_id, mapping.get(old_city, old_city))] = sym
    if all(old_city == new_city for old_city, new_city in mapping.items()):
        return  # every city keeps its number: the companies' tokens stay as they are
    for company in state.companies.values():
        for token in company.tokens:
            if token.hex == hex_id and token.city is not None:
                token.city = mapping.get(token.city, token.city)


def new_segments(old: TileDef, old_rotation: int, new: TileDef, rotation: int) -> list[tuple[int, int]]:
    """8.6 "new track": the paths of the new tile that no path of the old one covers
    (one between the same edges, or between the same edge and a revenue centre of the
    same kind: cities that merge keep their track)."""
    kept = {path_ends(old, path) for path in old.rotated_paths(old_rotation)}
    return [path for path in new.rotated_paths(rotation) if path_ends(new, path) not in kept]


def path_ends(tile: TileDef, path: tuple[int, int]) -> frozenset[int | str]:
    """A path's two ends, a revenue centre by its kind (what 8.6 compares: new track
    is a path whose ends no old path has)."""
    return frozenset(end if is_edge(end) else tile.nodes[node_index(end)].kind for end in path)


def _count(number: int, one: str, many: str) -> str:
    """``1 city``, ``2 cities``."""
    return f"{number} {one if number == 1 else many}"
