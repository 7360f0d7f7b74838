"""A company's track action (rulebook 8.6): check a lay or upgrade, pay, place."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import graph, loans
from .actions import LayTile
from .board import TileDef
from .errors import IllegalAction
from .state import Company, Context, GameState
from .track import (
    border_crossings_paid,
    check_keeps_track,
    check_upgrade,
    check_upgrade_tile,
    city_mapping,
    exits_are_legal,
    lay_cost,
    new_track_ends,
    next_color,
    pay_borders,
    place_tile,
    revenue_grows,
    stubs_missed,
)

if TYPE_CHECKING:
    from .operating import OperatingRound

def lay_tile(ctx: Context, state: GameState, rnd: OperatingRound, company: Company, action: LayTile) -> None:
    """Check every rule of 8.6 for this lay, then pay (with loans if needed) and lay."""
    cost = check_lay(ctx, state, rnd, company, action)
    hex_id = action.hex
    tile = ctx.board.tiles[action.tile]
    rotation = action.rotation % 6
    loans.borrow_for(state, company, cost)
    upgrade = hex_id in state.map.tiles or ctx.board.hexes[hex_id].color != "white"
    company.cash -= cost
    state.bank += cost
    pay_borders(ctx, state, border_crossings_paid(ctx, state, hex_id, tile, rotation))
    place_tile(ctx, state, hex_id, tile, rotation, action.tile_id)
    rnd.lays.append(hex_id)
    rnd.upgraded = rnd.upgraded or upgrade
    state.log.append(
        f"{company.sym} lays tile {tile.name} on {hex_id} (rotation {rotation})" + (f" for {cost}" if cost else "")
    )
    if tile.color == "gray" and ctx.rules.national_token_on_gray_moscow:
        _national_moscow_token(ctx, state, hex_id)


def possible_lays(
    ctx: Context, state: GameState, rnd: OperatingRound, company: Company, *, first_only: bool = False
) -> list[LayTile]:
    """Every tile, hex and rotation the company may lay now (8.6), or with
    ``first_only`` just the first found. Hexes and tiles refused whatever the rotation
    are passed over before the rotations are tried."""
    reach = graph.reachable(ctx, state, company.sym)
    hexes = set(reach.hexes) | {t.hex for t in company.tokens if t.hex}
    for hex_id, edge in reach.track_ends:
        neighbour = ctx.board.neighbours.get(hex_id, {}).get(edge)
        if neighbour:
            hexes.add(neighbour)
    tiles = [t for t in ctx.board.tiles.values() if not _refused(check_tile_available, ctx, state, t)]
    result = []
    for hex_id in sorted(hexes):
        current, _ = ctx.tile_at(state, hex_id)
        color = next_color(current.color) if current.color in ("white", "yellow", "green", "brown") else None
        if color is None or _refused(check_hex_open, ctx, state, rnd, hex_id):
            continue
        for tile in tiles:
            if tile.color != color or _refused(check_upgrade_tile, ctx, state, hex_id, tile):
                continue
            for rotation in range(6):
                action = LayTile(company.sym, hex_id, tile.name, rotation)
                try:
                    check_lay(ctx, state, rnd, company, action, reach)
                except IllegalAction:
                    continue
                result.append(action)
                if first_only:
                    return result
    return result


def _refused(check: Callable[..., None], *args: object) -> bool:
    try:
        check(*args)
    except IllegalAction:
        return True
    return False


def check_lay(
    ctx: Context,
    state: GameState,
    rnd: OperatingRound,
    company: Company,
    action: LayTile,
    reach: graph.Reach | None = None,
) -> int:
    """Raise unless the lay is legal (8.6); return what it costs. ``reach`` is the
    company's reach if the caller has it (checking many lays at once)."""
    hex_id = action.hex
    if hex_id not in ctx.board.hexes:
        raise IllegalAction(f"there is no hex {hex_id} on the map")
    tile = ctx.board.tiles.get(action.tile)
    if tile is None:
        raise IllegalAction(f"there is no tile {action.tile}")
    check_hex_open(ctx, state, rnd, hex_id)
    check_tile_available(ctx, state, tile)
    check_upgrade_tile(ctx, state, hex_id, tile)
    rotation = action.rotation % 6
    check_keeps_track(ctx, state, hex_id, tile, rotation)
    problem = exits_are_legal(ctx, state, hex_id, tile, rotation) or stubs_missed(ctx, hex_id, tile, rotation)
    if problem:
        raise IllegalAction(problem)
    if not ctx.rules.lay_connection_unchecked:
        _check_enhances_route(ctx, state, company, hex_id, tile, rotation, reach)
    _check_max_exits(ctx, state, hex_id, tile, rotation)
    cost = lay_cost(ctx, state, hex_id, tile, second=bool(rnd.lays))
    cost += sum(c for _, _, c in border_crossings_paid(ctx, state, hex_id, tile, rotation))
    if loans.borrowing_power(company) < cost:
        raise IllegalAction(f"this lay costs {cost}; {company.sym} cannot raise that even with loans")
    return cost


def check_hex_open(ctx: Context, state: GameState, rnd: OperatingRound, hex_id: str) -> None:
    """The rules of :func:`check_lay` about the hex alone: a track action left for it,
    not locked."""
    _check_action_allowed(rnd, hex_id, upgrade=hex_id in state.map.tiles or ctx.board.hexes[hex_id].color != "white")
    if hex_id in state.map.blocked_hexes:
        raise IllegalAction(f"{hex_id} is locked until phase 3 (8.6)")


def check_tile_available(ctx: Context, state: GameState, tile: TileDef) -> None:
    """The rules of :func:`check_lay` about the tile alone: its colour available in
    this phase, a copy left in the supply."""
    if tile.color not in ctx.board.phase(state.phase).tiles:
        raise IllegalAction(f"{tile.color} tiles are not available in phase {state.phase}")
    if state.map.supply.get(tile.name, 0) == 0 and tile.count is not None:
        raise IllegalAction(f"no tile {tile.name} is left")


def _check_action_allowed(rnd: OperatingRound, hex_id: str, *, upgrade: bool) -> None:
    """8.6: one free lay or upgrade and one extra action for 20; at most one upgrade
    and never twice on one hex."""
    if len(rnd.lays) >= 2:
        raise IllegalAction("a company has at most two track actions a turn")
    if hex_id in rnd.lays:
        raise IllegalAction(f"{hex_id} already had a track action this turn")
    if upgrade and rnd.upgraded:
        raise IllegalAction("the extra track action may only lay a yellow tile")


def _check_enhances_route(
    ctx: Context, state: GameState, company: Company, hex_id: str, tile: TileDef, rotation: int,
    reach: graph.Reach | None,
) -> None:
    """8.6: the lay must be on the company's home hex, extend its route (new track it
    reaches), or raise a city's value on it."""
    if any(t.hex == hex_id for t in company.tokens):
        return
    reach = reach or graph.reachable(ctx, state, company.sym)
    reached_edges = set(reach.edges_at(hex_id))
    for edge, neighbour in ctx.board.neighbours[hex_id].items():
        if (edge + 3) % 6 in reach.edges_at(neighbour):
            reached_edges.add(edge)
    if new_track_ends(ctx, state, hex_id, tile, rotation) & reached_edges:
        return
    if hex_id in reach.hexes and revenue_grows(ctx, state, hex_id, tile):
        return
    if _new_track_from_a_reached_stop(ctx, state, company, hex_id, tile, rotation, reach):
        return
    if hex_id in reach.hexes:
        raise IllegalAction(
            f"{company.sym} cannot reach the new track of tile {tile.name} on {hex_id}: an upgrade must "
            "connect the company to a new segment or raise a city's value on its route (8.6)"
        )
    raise IllegalAction(f"{company.sym} cannot reach {hex_id}: a lay must extend its route (8.6)")


def _new_track_from_a_reached_stop(
    ctx: Context, state: GameState, company: Company, hex_id: str, tile: TileDef, rotation: int, reach: graph.Reach
) -> bool:
    """8.6: "a company must have connectivity to at least one segment of new track":
    a new segment that leaves a city or town the company reaches and may pass
    through (a city of its own or not full of other companies' tokens)."""
    old, old_rotation = ctx.tile_at(state, hex_id)
    mapping = city_mapping(old, old_rotation, tile, rotation) or {}
    old_exits, new_exits = old.node_exits(old_rotation), tile.node_exits(rotation)
    track = graph.track_graph(ctx, state)
    blocked = graph.blocked_nodes(state, track, [company.sym])
    for old_node, new_node in mapping.items():
        node = track.node_of((hex_id, old_node))
        if node is None or (hex_id, old_node) not in reach.nodes or blocked >> node & 1:
            continue
        if new_exits[new_node] - old_exits[old_node]:
            return True
    return False


def _check_max_exits(ctx: Context, state: GameState, hex_id: str, tile: TileDef, rotation: int) -> None:
    """8.6: upgrading a green city to brown must use as many track segments as
    legally able (with the 18xx.games switch: every upgrade of a city)."""
    old, _ = ctx.tile_at(state, hex_id)
    if not tile.city_indexes or old.color == "white":
        return
    if not ctx.rules.max_exits_every_city_upgrade and not (old.color == "green" and tile.color == "brown"):
        return
    mine = len(tile.exits(rotation))
    for other, exits in ctx.board.city_tiles(tile.color):
        if exits <= mine:
            continue
        if state.map.supply.get(other.name, 0) == 0 and other.count is not None:
            continue
        for r in range(6):
            try:
                check_upgrade(ctx, state, hex_id, other, r)
            except IllegalAction:
                continue
            if not exits_are_legal(ctx, state, hex_id, other, r):
                raise IllegalAction(
                    f"tile {other.name} uses more track on {hex_id}; "
                    "an upgrade must use as many segments as it can (8.6)"
                )


def _national_moscow_token(ctx: Context, state: GameState, hex_id: str) -> None:
    """RN 11.21: laying the gray tile of the national's phase-8 city (Moscow, Montreal;
    not its home) puts the national's reserved token there."""
    from .nationalization import national
    from .tokens import put_token

    nat = national(ctx, state)
    if hex_id not in ctx.board.national_reservations or hex_id == ctx.board.corporations[nat.sym].home:
        return
    if any(t.hex == hex_id for t in nat.tokens):
        return
    if not any(t.hex is None for t in nat.tokens):
        return
    put_token(ctx, state, nat.sym, hex_id, 0)
