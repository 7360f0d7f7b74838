"""Setting up a new game (rulebook 2): bank, players' cash, charters, map, train yard."""

from __future__ import annotations

from collections.abc import Iterator

from .board import Board
from .errors import IllegalAction
from .state import (
    Certificate,
    Company,
    Context,
    Depot,
    GameState,
    MapState,
    Player,
    StationToken,
    Train,
)


def new_state(ctx: Context, players: list[tuple[str, str]], priority: int, seed: int = 0) -> GameState:
    """The state before the private auction: ``players`` are (id, name) in seat order."""
    board = ctx.board
    low, high = board.player_range
    if not low <= len(players) <= high:
        raise IllegalAction(f"{board.title} is played by {low} to {high} players, not {len(players)}")
    if len({pid for pid, _ in players}) != len(players):
        raise IllegalAction("every player needs a different id")
    cash = board.starting_cash[len(players)]
    state = GameState(
        title=board.title,
        players=[Player(pid, name, cash) for pid, name in players],
        companies={sym: new_company(board, sym) for sym in board.corporations},
        bank=board.bank_cash - cash * len(players),
        map=_new_map(board),
        depot=_new_depot(board),
        phase=board.phases[0].name,
        priority=priority,
    )
    state.private_owner = {p.sym: None for p in board.privates if not p.blocks_hexes}
    if len(players) == 2:
        _two_player_setup(ctx, state, seed)
    ctx.title.setup_map(ctx, state)
    return state


def _two_player_setup(ctx: Context, state: GameState, seed: int) -> None:
    """16.1–16.2: fewer trains, and (the standard game) two privates removed at random
    before the auction.
    The rulebook offers it for 1861 (1861S) only; an 18xx.games import plays it with
    any title (RN 1.9)."""
    if not (ctx.title.two_player_variant or ctx.rules.two_player_variant_every_title):
        raise IllegalAction(
            f"the rulebook plays {ctx.board.title} with 3 to 6 players: its two-player game (16) "
            "is 1861's; only a game imported from 18xx.games seats two"
        )
    variant = ctx.title.data("two_player.json")
    for name, count in variant["remove_trains"].items():
        copies = [t for t in state.depot.upcoming if t.name == name]
        for train in copies[len(copies) - count :]:
            state.depot.upcoming.remove(train)
    if not ctx.title.draws_privates_out(ctx):
        return
    draw = lcg(seed)
    keys = {sym: next(draw) for sym in state.private_owner}
    for sym in sorted(keys, key=lambda s: keys[s])[: variant["remove_privates"]]:
        del state.private_owner[sym]
        state.log.append(f"{sym} is removed from this two-player game")


def lcg(seed: int) -> Iterator[int]:
    """The game's random numbers (RULES-NOTES 0.6): a linear congruential generator."""
    value = seed
    while True:
        value = (1103515245 * value + 12345) % 2**31
        yield value


def new_company(board: Board, sym: str) -> Company:
    """A company as its charter comes out of the box (also used to restart a major)."""
    definition = board.corporations[sym]
    company = Company(sym, definition.type)
    company.tokens = [StationToken(price) for price in definition.tokens]
    if definition.type == "major":
        company.treasury = [Certificate(f"{sym}_0", sym, 20, president=True)] + [
            Certificate(f"{sym}_{i}", sym, 10) for i in range(1, 9)
        ]
    elif definition.type == "minor":
        company.treasury = [Certificate(f"{sym}_0", sym, 100, president=True)]
    return company


def _new_map(board: Board) -> MapState:
    state = MapState()
    for sym, corp in board.corporations.items():
        if corp.home is not None and corp.type in ("minor", "national"):
            state.reservations[(corp.home, corp.home_city)] = sym
    for tile in board.tiles.values():
        state.supply[tile.name] = tile.count
        state.copies[tile.name] = 0
    for private in board.privates:
        state.blocked_hexes.update(private.blocks_hexes)
    return state


def _new_depot(board: Board) -> Depot:
    depot = Depot()
    for train in board.trains:
        if train.count is None:
            depot.upcoming.append(Train(f"{train.name}-0", train.name))
            depot.copies[train.name] = 1
        else:
            depot.upcoming.extend(Train(f"{train.name}-{i}", train.name) for i in range(train.count))
    return depot
