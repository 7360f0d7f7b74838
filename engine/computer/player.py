"""The computer player: every legal move tried on a copy of the game, the one that
leaves its seat furthest ahead chosen (:mod:`engine.computer.value`).

One move ahead, judged by worth: the final score now plus what each holding should
still earn. The acting company's earnings are its proven-best routes after the move,
so track, tokens, trains (and the rusting they cause), mergers and nationalization
are judged by what they do to its runs; shares, pars, bids, dividends, loans and
privates by what they do to the seat's money, its holdings' prices and incomes, and
the others'. The work is bounded by counts, not clocks: at most :data:`MOST_TRIED`
moves, the track lays first cut down by where they are.
"""

from __future__ import annotations

from ..actions import (
    Action,
    BuyPrivate,
    BuyTrain,
    Choose,
    Convert,
    DiscardTrain,
    LayTile,
    Merge,
    Pass,
    PlaceToken,
    RemoveToken,
    RunRoutes,
)
from ..game import Game
from .agents import Agent, Decision, after, company_acting, moves
from .value import route_income, standing, worths

MOST_TRIED = 48
"""Moves tried on a copy for one decision, at most (the lays first cut to these)."""

ROUTE_MOVES = (LayTile, PlaceToken, BuyTrain, DiscardTrain, RemoveToken, Merge, Convert, Choose)
"""Moves that may change what the acting company's trains earn."""

PRIVATE_PRICES = (1.0, 1.5, 2.0)
"""Prices tried for a private a company buys, times its face value (8.12: the engine refuses the rest)."""


class ComputerAgent(Agent):
    """The computer player: one move ahead, judged by worth (see the module)."""

    name = "computer"

    def decide(self, game: Game) -> Decision:
        legal = moves(game)
        runs = [m for m in legal if isinstance(m, RunRoutes)]
        if runs:
            return Decision(runs[0], "runs the proven-best routes")
        if len(legal) == 1:
            return Decision(legal[0], "the only move allowed")
        player = game.acting_player() or ""
        company = company_acting(game)
        income = route_income(game, company) if company else 0
        rng = self.rng(game)
        best: tuple[float, float, Action, int] | None = None
        for move in candidates(game, legal):
            later = after(game, move)
            if later is None:
                continue
            earns = route_income(later, company) if company and isinstance(move, ROUTE_MOVES) else income
            incomes = {company: earns} if company else None
            score = (standing(worths(later, incomes), player), rng.random(), move, earns)
            if best is None or score[:2] > best[:2]:
                best = score
        if best is None:
            return Decision(legal[0], "the first move allowed (no other could be judged)")
        stay = after(game, next((m for m in legal if isinstance(m, Pass)), legal[0]))
        baseline = standing(worths(stay, {company: income} if company else None), player) if stay else best[0]
        return Decision(best[2], _reason(game, best[2], company, income, best[3], best[0] - baseline))


def candidates(game: Game, legal: list[Action]) -> list[Action]:
    """The moves worth trying: every one but the lays (and trains from other companies,
    :func:`_between_companies`), the lays cut to :data:`MOST_TRIED` (a city's first), and
    a private's purchase at a few prices."""
    lays = [m for m in legal if isinstance(m, LayTile)]
    owned = {t.id for c in game.state.companies.values() for t in c.trains}
    rest = [m for m in legal if not isinstance(m, LayTile) and not _between_companies(game, m, owned)]
    for move in list(rest):
        if isinstance(move, BuyPrivate):
            value = game.ctx.board.private(move.private).value
            rest += [BuyPrivate(move.entity, move.private, int(value * f)) for f in PRIVATE_PRICES
                     if int(value * f) > move.price]
    room = max(0, MOST_TRIED - len(rest))
    if len(lays) > room:
        lays.sort(key=lambda m: _lay_rank(game, m))
        lays = lays[:room]
    return rest + lays


def _between_companies(game: Game, move: Action, owned: set[str]) -> bool:
    """A train bought from another company by one that has trains: left alone, since the
    worth of the seller's loss is only guessed (its last run), which would pass trains
    back and forth between companies for ever."""
    return isinstance(move, BuyTrain) and move.train in owned and bool(game.state.companies[move.entity].trains)


def _lay_rank(game: Game, lay: LayTile) -> tuple[int, str]:
    """Lays on a city or town hex first (they raise what a stop pays), then the rest."""
    tile, _ = game.ctx.tile_at(game.state, lay.hex)
    new = game.ctx.board.tiles[lay.tile]
    return (0 if new.nodes and max((n.revenue for n in new.nodes), default=0) > 0 else
            1 if tile.nodes else 2, lay.hex)


def _reason(game: Game, move: Action, company: str | None, before: int, later: int, gain: float) -> str:
    """One line: what the move does to the company's run, else to the seat's standing."""
    if company and isinstance(move, ROUTE_MOVES) and later != before:
        what = "a train's" if isinstance(move, BuyTrain) else "its"
        return f"{company}'s run {before} -> {later} with {what} change; worth {gain:+.0f} to its president"
    if isinstance(move, Pass):
        return "nothing else leaves its seat better off"
    return f"leaves its seat {gain:+.0f} better off than passing"
