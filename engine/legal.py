"""Concrete actions the actor could take now: for the bot's menus and for self-play.

The lists are generated from the rules each round module exposes; ``Game.apply``
stays the judge, so a caller tries a candidate and gets a clear refusal if some
detail (an exact price, a limit) rules it out.
"""

from __future__ import annotations

from collections.abc import Callable

from . import graph, trains
from .actions import (
    Action,
    Bid,
    BuyPrivate,
    BuyShare,
    BuyTrain,
    Choose,
    Convert,
    DiscardTrain,
    Dividend,
    LayTile,
    Merge,
    Par,
    Pass,
    PlaceToken,
    RedeemShares,
    RemoveToken,
    RunRoutes,
    SellShares,
)
from .errors import IllegalAction
from .game import Game
from .state import Company
from .track import next_color


def candidates(game: Game) -> list[Action]:
    """Actions worth offering the actor now (each is legal or refused with a reason)."""
    kind = game.round_name
    if game.state.trainless_majors:  # first in every round (10)
        actor = game.actor() or ""
        return [Choose(actor, "nationalize"), Pass(actor)]
    if kind == "Auction":
        return _auction(game)
    if kind == "Stock":
        return _stock(game)
    if kind == "Operating":
        return _operating(game)
    if kind == "Merger":
        return _merger(game)
    return []


def _auction(game: Game) -> list[Action]:
    rnd = game.state.round
    actor = game.actor() or ""
    lowest = rnd.minimum if rnd.high_bidder is None else rnd.high_bid + 5
    return [Bid(actor, rnd.private, lowest), Bid(actor, rnd.private, lowest + 10), Pass(actor)]


def _stock(game: Game) -> list[Action]:
    ctx, state = game.ctx, game.state
    rnd = state.round
    actor = game.actor() or ""
    if rnd.home_token:
        from .stock_round import home_cities

        return [PlaceToken(actor, h, c) for h, c in home_cities(ctx, state)]
    if rnd.auction:
        return [Bid(actor, rnd.auction.minor, rnd.auction.high_bid + 5), Pass(actor)]
    player = state.player(actor)
    result: list[Action] = [Pass(actor)]
    for cert in player.certs:
        if cert.percent != 100:
            result.append(SellShares(actor, cert.company, 1))
    for sym, company in state.companies.items():
        if company.is_major and company.floated and not company.closed:
            result += [BuyShare(actor, sym, "treasury"), BuyShare(actor, sym, "pool")]
        elif company.is_major and "majors_can_ipo" in state.events:
            prices = sorted({c.price for c in ctx.board.market_cells(ctx.rules.market) if c.can_start_major})
            result += [Par(actor, sym, p) for p in prices if 2 * p <= player.cash]
    from .stock_round import available_minors

    for minor in available_minors(ctx, state):
        result.append(Bid(actor, minor, 100))
    return result


def _operating(game: Game) -> list[Action]:
    ctx, state = game.ctx, game.state
    actor = game.actor() or ""
    over = trains.over_limit(ctx, state)
    if over:
        return [DiscardTrain(actor, t.id) for t in state.companies[over[0]].trains]
    company = state.companies[actor]
    step = state.round.step
    result: list[Action] = [Pass(actor)]
    if step == "redeem":
        result.append(RedeemShares(actor, 1))
    elif step == "track":
        result += legal_lays(game, company)
    elif step == "token":
        from .operating import tokenable_cities

        result += [PlaceToken(actor, h, c) for h, c in tokenable_cities(ctx, state, company)]
    elif step == "routes":
        from .routes import best_routes, to_route

        best = best_routes(ctx, state, company)
        result = [RunRoutes(actor, tuple(to_route(r) for r in best))]
    elif step == "dividend":
        result = [Dividend(actor, c) for c in ("payout", "half", "withhold")]
    elif step in ("private_before_loans", "private_end"):
        for private, owner in state.private_owner.items():
            if owner is not None and owner not in state.companies:
                face = ctx.board.private(private).value
                result += [BuyPrivate(actor, private, face), BuyPrivate(actor, private, 1)]
    elif step == "trains":
        result += _train_purchases(game, company)
    return result


def _train_purchases(game: Game, company: Company) -> list[Action]:
    ctx, state = game.ctx, game.state
    result: list[Action] = []
    from .operating import affordable_trains

    for train in affordable_trains(ctx, state, company):
        result.append(BuyTrain(company.sym, train.id, ctx.board.train(train.name).price))
    for other in state.companies.values():
        if other is company or other.is_national or other.closed:
            continue
        for train in other.trains:
            result.append(BuyTrain(company.sym, train.id, max(1, min(company.cash, ctx.board.train(train.name).price))))
    return result


def legal_lays(game: Game, company: Company) -> list[LayTile]:
    """Every tile, hex and rotation the company may lay now (8.6). Hexes and tiles
    refused whatever the rotation are passed over before the rotations are tried."""
    from .lay import check_hex_open, check_lay, check_tile_available
    from .track import check_upgrade_tile

    ctx, state = game.ctx, game.state
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
        if color is None or _refused(check_hex_open, ctx, state, state.round, hex_id):
            continue
        for tile in tiles:
            if tile.color != color or _refused(check_upgrade_tile, ctx, state, hex_id, tile):
                continue
            for rotation in range(6):
                action = LayTile(company.sym, hex_id, tile.name, rotation)
                try:
                    check_lay(ctx, state, state.round, company, action, reach)
                except IllegalAction:
                    continue
                result.append(action)
    return result


def _refused(check: Callable[..., None], *args: object) -> bool:
    try:
        check(*args)
    except IllegalAction:
        return True
    return False


def _merger(game: Game) -> list[Action]:
    ctx, state = game.ctx, game.state
    rnd = state.round
    actor = game.actor() or ""
    over = trains.over_limit(ctx, state)
    if over:
        return [DiscardTrain(actor, t.id) for t in state.companies[over[0]].trains]
    if rnd.major is not None and not rnd.buy_phase and not rnd.buyers:
        return [RemoveToken(actor, t.hex or "", t.city or 0) for t in state.companies[rnd.major].placed_tokens]
    if rnd.buyers:
        return [BuyShare(actor, rnd.major or "", "treasury"), Pass(actor)]
    free = [s for s, c in state.companies.items() if c.is_major and not c.floated]
    result: list[Action] = [Pass(actor), Convert(actor)]
    from .merger import merge_candidates

    result += [Merge(actor, s) for s in merge_candidates(ctx, state, rnd)]
    result += [Merge(actor, s) for s in free]
    return result
