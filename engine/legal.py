"""What the actor may do now: the one answer for refusals, hints, menus and self-play.

``legal_actions`` lists every action the engine accepts now, built from the same
rule predicates the rounds judge with (``tests/test_legal_moves.py`` checks that
every offered action applies and no refused one is offered). Amounts (bids,
prices) are offered at their lowest; ``engine.notation.hints`` folds them into command words.
"""

from __future__ import annotations

from collections.abc import Callable

from . import market, trains
from .actions import (
    Action,
    Bid,
    BuyPrivate,
    BuyTrain,
    Choose,
    DiscardTrain,
    Dividend,
    LayTile,
    Pass,
    PlaceToken,
    RedeemShares,
    RunBest,
)
from .game import Game
from .lay import possible_lays
from .operating import OperatingRound
from .state import Company


def legal_actions(game: Game) -> list[Action]:
    """Every action the actor may take now, each one the engine accepts (bids and
    prices at the lowest amount allowed; a run as the best routes). The one answer to
    "what may this player do": refusals, menus, hints and self-play all read it."""
    if game.state.finished:
        return []
    if game.state.trainless_majors:  # first in every round (10)
        actor = game.actor() or ""
        return [Choose(actor, "nationalize"), Pass(actor)]
    return ROUND_MOVES[game.round_name](game)


def _auction(game: Game) -> list[Action]:
    from .auction import BID_STEP

    rnd = game.state.round
    player = game.state.players[rnd.turn]
    lowest = rnd.minimum if rnd.high_bidder is None else rnd.high_bid + BID_STEP
    bid: list[Action] = [Bid(player.id, rnd.private, lowest)] if player.cash >= lowest else []
    return bid + [Pass(player.id)]


def _stock(game: Game) -> list[Action]:
    from .stock_round import moves

    return moves(game.ctx, game.state)


def _operating(game: Game) -> list[Action]:
    from . import operating

    ctx, state = game.ctx, game.state
    actor = game.actor() or ""
    over = trains.over_limit(ctx, state)
    if over:
        return [DiscardTrain(actor, t.id) for t in state.companies[over[0]].trains]
    company = state.companies[actor]
    rnd = state.round
    step = rnd.step
    result: list[Action] = []
    if step == "redeem":
        price = market.price(ctx, state, actor)
        pool = state.pool_percent(actor) // 10
        result += [RedeemShares(actor, n) for n in range(1, pool + 1) if n * price <= company.cash]
    elif step == "track":
        result += legal_lays(game, company)
    elif step == "token":
        from .tokens import token_cost

        cities = operating.tokenable_cities(ctx, state, company)
        result += [PlaceToken(actor, h, c) for h, c in cities if token_cost(state, actor, h) <= company.cash]
    elif step == "routes":
        return [RunBest(actor)]  # solved only if applied
    elif step == "dividend":
        return [Dividend(actor, c) for c in ("payout", "half", "withhold")]
    elif step == "trains":
        result += _train_purchases(game, company)
        if operating.must_buy(ctx, state, company) and result:
            return result
    if operating.can_buy_private(ctx, state, company):
        for private, owner in state.private_owner.items():
            if owner is not None and owner not in state.companies and private not in state.closed_privates:
                face = ctx.board.private(private).value
                result.append(BuyPrivate(actor, private, min(face, company.cash)))
    return result + [Pass(actor)]


def _train_purchases(game: Game, company: Company) -> list[Action]:
    """8.11: trains from the yard and the pool at list price (with loans when the
    purchase is compulsory), trade-ins (1867), and other companies' trains for 1."""
    from .loans import borrowing_power

    ctx, state = game.ctx, game.state
    if len(company.trains) >= trains.train_limit(ctx, state, company):
        return [
            BuyTrain(company.sym, t.id, price, own.id)
            for t, own, price in trains.trade_in_prices(ctx, state, company)
            if price <= company.cash
        ]
    means = borrowing_power(company) if not company.trains else company.cash
    result: list[Action] = [
        BuyTrain(company.sym, t.id, ctx.board.train(t.name).price)
        for t in trains.bank_trains(ctx, state)
        if ctx.board.train(t.name).price <= means
    ]
    result += [
        BuyTrain(company.sym, t.id, price, own.id)
        for t, own, price in trains.trade_in_prices(ctx, state, company)
        if price <= company.cash
    ]
    if company.cash >= 1:
        for other in state.companies.values():
            if other is company or other.is_national or other.closed:
                continue
            result += [BuyTrain(company.sym, t.id, 1) for t in other.trains]
    return result


def legal_lays(game: Game, company: Company, *, first_only: bool = False) -> list[LayTile]:
    """Every tile, hex and rotation the company may lay now (8.6; :func:`engine.lay.possible_lays`)."""
    rnd = game.state.round
    assert isinstance(rnd, OperatingRound)
    return possible_lays(game.ctx, game.state, rnd, company, first_only=first_only)


def _merger(game: Game) -> list[Action]:
    from . import merger

    return merger.moves(game.ctx, game.state)


def _bundles(game: Game) -> list[Action]:
    from .bundles import moves

    return moves(game.ctx, game.state)


ROUND_MOVES: dict[str, Callable[[Game], list[Action]]] = {
    "Auction": _auction,
    "Bundles": _bundles,
    "Stock": _stock,
    "Operating": _operating,
    "Merger": _merger,
}
