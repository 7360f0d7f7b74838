"""The greedy player: a baseline that takes what pays now and never plans.

It runs the proven-best routes, lays the track and places the token that earn the
most this turn, buys the train that adds most to this turn's run with the cash it has,
always pays out, buys the share that paid the most last time for its price, starts a
company when it can and bids the least on what it can afford. It never sells, never
merges and keeps a trainless company.
"""

from __future__ import annotations

from ..actions import (
    Action,
    Bid,
    BuyShare,
    BuyTrain,
    DiscardTrain,
    Dividend,
    LayTile,
    Par,
    Pass,
    PlaceToken,
    RunRoutes,
)
from ..game import Game
from ..market import price
from .agents import Agent, Decision, after, company_acting, moves
from .player import DECISION_STEPS, SEARCH_STEPS
from .value import Work, bounded_route_income, guessed_income, income_within

ROUTE_MOVES = (LayTile, PlaceToken, BuyTrain, DiscardTrain)
"""Moves the greedy player judges by what the company's trains would earn after them."""


class GreedyAgent(Agent):
    """Buys what pays now, runs the best routes, never plans."""

    name = "greedy"

    def decide(self, game: Game) -> Decision:
        legal = moves(game)
        for move in legal:
            if isinstance(move, RunRoutes):
                return Decision(move, "runs the proven-best routes")
            if isinstance(move, Dividend) and move.choice == "payout":
                return Decision(move, "always pays out")
        company = company_acting(game)
        routed: list[Action] = [m for m in legal if isinstance(m, ROUTE_MOVES) and _affordable(game, m)]
        if company and routed:
            return _best_run(game, company, routed, legal)
        if company is None:
            for choose in (_best_share, _best_par, _cheapest_bid):
                found = choose(game, legal)
                if found is not None:
                    return found
        return _pass_or_first(legal)


def _affordable(game: Game, move: Action) -> bool:
    """A train only with the cash the company has (no loans unless it has no train)."""
    if not isinstance(move, BuyTrain):
        return True
    company = game.state.companies[move.entity]
    return move.price <= company.cash or not company.trains


def _best_run(game: Game, company: str, routed: list[Action], legal: list[Action]) -> Decision:
    """The move after which ``company``'s trains earn the most; a pass if none earns more.
    Its route searches are bounded as the computer player's are (:data:`SEARCH_STEPS` each,
    :data:`DECISION_STEPS` in all): a move whose routes would need more is not taken."""
    work = Work(DECISION_STEPS, SEARCH_STEPS)
    now = income_within(game, company, work, None)
    best, earns = None, now
    for move in routed:
        later = after(game, move)
        searched = bounded_route_income(later, company, work) if later is not None else None
        income = searched if searched is not None else -1
        if income > earns or (best is None and isinstance(move, DiscardTrain)):
            best, earns = move, income
    if best is None:
        return _pass_or_first(legal)
    return Decision(best, f"{company}'s trains would earn {earns} instead of {now}")


def _best_share(game: Game, legal: list[Action]) -> Decision | None:
    """The share whose last dividend was the highest for its price."""
    state = game.state
    player = state.player(game.actor() or "")
    buys = [m for m in legal if isinstance(m, BuyShare)]
    scored = []
    for move in buys:
        company = state.companies[move.company]
        cost = price(game.ctx, state, move.company)
        income = guessed_income(game, company)
        if income > 0 and cost <= player.cash:
            scored.append((income / cost, move))
    if not scored:
        return None
    rate, move = max(scored, key=lambda s: s[0])
    return Decision(move, f"{move.company} earned {rate:.0%} of its price last time")


def _best_par(game: Game, legal: list[Action]) -> Decision | None:
    """A new company at the highest par price the player can pay twice over."""
    cash = game.state.player(game.actor() or "").cash
    pars = [m for m in legal if isinstance(m, Par) and 2 * m.price <= cash]
    if not pars:
        return None
    move = max(pars, key=lambda m: m.price)
    return Decision(move, f"starts {move.company} at {move.price}")


def _cheapest_bid(game: Game, legal: list[Action]) -> Decision | None:
    """The lowest bid it can afford."""
    cash = game.state.player(game.actor() or "").cash
    bids = [m for m in legal if isinstance(m, Bid) and m.price <= cash // 2]
    if not bids:
        return None
    move = min(bids, key=lambda m: m.price)
    return Decision(move, f"bids the least, {move.price}, on {move.target}")


def _pass_or_first(legal: list[Action]) -> Decision:
    passes = [m for m in legal if isinstance(m, Pass)]
    if passes:
        return Decision(passes[0], "nothing pays now")
    return Decision(legal[0], "the first move allowed")
