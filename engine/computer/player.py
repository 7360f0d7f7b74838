"""The computer player: every legal move tried on a copy of the game, the one that
leaves its seat furthest ahead chosen (:mod:`engine.computer.value`).

One move ahead, judged by worth: the final score now plus what each holding should
still earn. The acting company's earnings are its best routes after the move,
so track, tokens, trains (and the rusting they cause), mergers and nationalization
are judged by what they do to its runs; shares, pars, bids, dividends, loans and
privates by what they do to the seat's money, its holdings' prices and incomes, and
the others'. The work is bounded by counts, not clocks, so a decision is the same on
every machine: at most :data:`MOST_TRIED` moves, of them at most :data:`MOST_LAYS`
track lays picked by where they are, and at most :data:`DECISION_STEPS` steps of route
search among them (a move whose routes would need more is judged as leaving the run as
it is; a position met again in one decision is not searched again).
"""

from __future__ import annotations

from dataclasses import replace

from ..actions import (
    Action,
    Bid,
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
from .reasons import Move, no_higher, only_move, reason
from .track import LayAims
from .value import (
    Work,
    bid_gain,
    bounded_route_income,
    first_train_income,
    income_within,
    is_private,
    minor_worth,
    private_worth,
    rounds_left,
    route_income,
    seller_keeps_a_train,
    standing,
    stock_round_reserve,
    train_beyond_reach,
    unfunded,
    worths,
)

MOST_TRIED = 48
"""Moves tried on a copy for one decision, at most (the lays first cut to these)."""

MOST_LAYS = 16
"""Track lays tried on a copy for one decision, at most: each costs the engine a look at
where the company may lay next, and the best are among the first by :func:`_lay_rank`."""

MOST_REACHED = 32
"""Lays whose reach is walked (:meth:`LayAims.gain`) for one decision, at most: the first
by :func:`_lay_rank` and the quick signs of :class:`LayAims`, then cut to :data:`MOST_LAYS`."""

ROUTE_MOVES = (LayTile, PlaceToken, BuyTrain, DiscardTrain, RemoveToken, Merge, Convert, Choose)
"""Moves that may change what the acting company's trains earn."""

DECISION_STEPS = 100_000
"""Route-search steps one decision may spend over all the moves it tries (a step costs 10-50 µs
here, so a few seconds at worst; decisions in real games spend under 60 000)."""

SEARCH_STEPS = 40_000
"""Route-search steps one move's routes may take."""

LEAD_WORTH = 10.0
"""What a lay that leaves the run as it is adds to its seat's standing for leading toward
a stop the company does not reach (:meth:`LayAims.toward`, 1 or 2 of these): enough to lay
toward revenue rather than pass or lay aimlessly, and to pay a little for it, not to buy
track when the money is needed for a train."""

AIMLESS = -0.5
"""The same for a lay that leads nowhere nearer: below a pass, so such track is not laid."""

PRIVATE_PRICES = (1.0, 1.5, 2.0)
"""Prices tried for a private a company buys, times its face value (8.12: the engine refuses the rest)."""


class ComputerAgent(Agent):
    """The computer player: one move ahead, judged by worth (see the module)."""

    name = "computer"

    def decide(self, game: Game) -> Decision:
        return self.decide_within(game, Work(DECISION_STEPS, SEARCH_STEPS))

    def decide_within(self, game: Game, work: Work) -> Decision:
        """:meth:`decide` within the route-search ``work`` given (spent from it)."""
        allowed = moves(game)
        legal = [m for m in allowed if not _overbid(game, m, work) and not unfunded(game, m)] or allowed
        runs = [m for m in legal if isinstance(m, RunRoutes)]
        if runs:  # what they earn found within the work, as the decisions' searches are
            company = company_acting(game)
            found = bounded_route_income(game, company, work) if company else None
            return Decision(runs[0], "runs its proven-best routes" + (f" for {found}" if found else ""))
        if len(legal) == 1:
            if len(allowed) > 1:
                return Decision(legal[0], no_higher(game, [m for m in allowed if isinstance(m, Bid)]))
            return Decision(legal[0], only_move(game, legal[0]))
        player = game.acting_player() or ""
        company = company_acting(game)
        income = income_within(game, company, work, None)
        rng = self.rng(game)
        aims = LayAims(game, company) if company and any(isinstance(m, LayTile) for m in legal) else None

        # One horizon for every move compared: a train that starts a phase would otherwise
        # shorten it and seem to cost every holding its future runs, so none was bought.
        horizon = rounds_left(game)

        def judged(later: Game, move: Action) -> tuple[float, int]:
            """The seat's standing after ``move`` and what the acting company's trains earn."""
            running = runner(later, company)
            earns = income_within(later, running, work, income) if isinstance(move, ROUTE_MOVES) else income
            incomes = {running: earns} if running else None
            return standing(worths(later, incomes, horizon), player) + bid_gain(game, move), earns

        tried: list[tuple[float, float, Action, int, Game]] = []
        for move in candidates(game, legal, aims):
            later = after(game, move)
            if later is None:
                continue
            if company and _begins_a_major(game, move):  # judged by the best major it can end in
                ends = [judged(*end) for end in majors_named(later, company)]
                if ends:
                    score, earns = max(ends)
                    tried.append((score, rng.random(), move, earns, later))
                continue
            score, earns = judged(later, move)
            tried.append((score, rng.random(), move, earns, later))
        if not tried:
            return Decision(legal[0], "the first move allowed (no other could be judged)")
        raised = any(isinstance(t[2], LayTile) and t[3] > income for t in tried)
        best = max(tried, key=lambda t: (t[0] + (0.0 if raised else _lead(aims, t[2])), t[1]))
        stay = after(game, next((m for m in legal if isinstance(m, Pass)), legal[0]))
        baseline = standing(worths(stay, {company: income} if company else None, horizon), player) if stay else best[0]
        gain = bid_gain(game, best[2]) if isinstance(best[2], Bid) else best[0] - baseline  # a bid: what it sees
        earned: tuple[tuple[Action, int], ...] = tuple((t[2], t[3]) for t in tried if isinstance(t[2], ROUTE_MOVES))
        chosen = Move(game, best[4], best[2], company, (income, best[3]), gain, tuple(legal), aims, earned)
        return Decision(best[2], reason(chosen))


def explain(game: Game, action: Action) -> str:
    """The computer's one-line reason for ``action`` in ``game``, whether or not it would
    choose it (its run found in full, its worth against a pass left out but for a bid's)."""
    company = company_acting(game)
    later = after(game, action)
    before = route_income(game, company) if company else 0
    runs = (before, route_income(later, company) if company and later and isinstance(action, ROUTE_MOVES)
            else before)
    aims = LayAims(game, company) if company and isinstance(action, LayTile) else None
    return reason(Move(game, later, action, company, runs, bid_gain(game, action), tuple(moves(game)), aims))


def _overbid(game: Game, move: Action, work: Work) -> bool:
    """A bid the computer never makes: a private above its worth or leaving less cash than
    the first stock round needs to win a minor (:func:`stock_round_reserve`), a minor
    above its worth to its president (:func:`minor_worth`, from its best routes with a
    first train once its home is on the map) or whose treasury, the bid, could not buy
    it a train (:func:`train_beyond_reach`)."""
    if not isinstance(move, Bid):
        return False
    if is_private(game, move.target):
        cash = game.state.player(move.entity).cash
        return move.price > private_worth(game, move.target) or cash - move.price < stock_round_reserve(game)
    if move.target not in game.state.companies:
        return False
    if train_beyond_reach(game, replace(game.state.companies[move.target], cash=move.price), None):
        return True  # nationalized at its first train step (8.11.3)
    income = bounded_route_income(game, move.target, work) if game.state.companies[move.target].placed_tokens else None
    return move.price > minor_worth(game, max(income or 0, first_train_income(game)))


def _begins_a_major(game: Game, move: Action) -> bool:
    """A conversion begun, or a minor added to a merge (9.1, 9.2): nothing changes hands
    until the major is named."""
    return isinstance(move, Convert) or (isinstance(move, Merge) and game.state.companies[move.target].is_minor)


def majors_named(later: Game, minor: str, passes: int = 1) -> list[tuple[Game, Action]]:
    """The positions where ``minor``, having begun a conversion or merge, names the major
    next (or after ``passes`` passes, one of which ends its adding, RN 8.3), each with the
    naming move."""
    if company_acting(later) != minor:
        return []
    named: list[tuple[Game, Action]] = [
        (end, m) for m in moves(later)
        if isinstance(m, Merge) and later.state.companies[m.target].is_major and (end := after(later, m)) is not None]
    if named or not passes:
        return named
    done = next((after(later, m) for m in moves(later) if isinstance(m, Pass)), None)
    return majors_named(done, minor, passes - 1) if done is not None else []


def runner(game: Game, company: str | None) -> str | None:
    """The company that runs ``company``'s trains in ``game``: the major it converted
    or merged into (9.1B, 9.2B), else itself."""
    if company is None:
        return None
    return game.state.companies[company].merged_into or company


def _lead(aims: LayAims | None, move: Action) -> float:
    """What a lay adds for where it leads (:data:`LEAD_WORTH`), when no lay raises the run
    now (a run raised comes first)."""
    if aims is None or not isinstance(move, LayTile):
        return 0.0
    toward = 2 if aims.gain(move)[0] else aims.toward(move)  # a new stop reached counts as arrived
    return LEAD_WORTH * toward if toward else AIMLESS


def candidates(game: Game, legal: list[Action], aims: LayAims | None = None) -> list[Action]:
    """The moves worth trying: every one but the lays (and trains from other companies,
    :func:`_between_companies`), the lays cut to :data:`MOST_LAYS` (and to
    :data:`MOST_TRIED` moves in all) by :func:`_lay_rank` (first those that reach new
    stops or lead nearer to one, by ``aims``), and a private's purchase at a few prices."""
    lays = [m for m in legal if isinstance(m, LayTile)]
    owned = {t.id for c in game.state.companies.values() for t in c.trains}
    rest = [m for m in legal if not isinstance(m, LayTile) and not _between_companies(game, m, owned)]
    for move in list(rest):
        if isinstance(move, BuyPrivate):
            value = game.ctx.board.private(move.private).value
            rest += [BuyPrivate(move.entity, move.private, int(value * f)) for f in PRIVATE_PRICES
                     if int(value * f) > move.price]
    room = min(MOST_LAYS, max(0, MOST_TRIED - len(rest)))
    if len(lays) > room:
        seen: dict[tuple[str, str], int] = {}
        ranked = []
        for lay in lays:  # the n-th way to lay one tile on one hex comes after every hex's (n-1)-th
            nth = seen[lay.hex, lay.tile] = seen.get((lay.hex, lay.tile), -1) + 1
            rank = _lay_rank(game, lay)  # a stop's rise first, then joins, then toward a stop
            quick = (-aims.joins(lay), -aims.toward(lay)) if aims else (0, 0)
            ranked.append((min(rank, 0), *quick, rank, nth, lay.hex, lay.tile, lay.rotation, lay))
        ranked.sort(key=lambda r: r[:-1])
        if aims:  # the first few by what the company's reach gains with each
            ranked = sorted(ranked[:MOST_REACHED], key=lambda r: (tuple(-g for g in aims.gain(r[-1])), r[:-1]))
        lays = [r[-1] for r in ranked[:room]]
    return rest + lays


def _between_companies(game: Game, move: Action, owned: set[str]) -> bool:
    """A train bought from another company, left alone when the buyer has trains or the
    seller would keep none as lasting that outlasts the next phase (:func:`seller_keeps_a_train`):
    the worth of the seller's loss is only guessed (its last run), and a seller left
    trainless must buy a train at its next turn (8.11) or run nothing, so such sales would
    pass one train back and forth, neither company running it (or leave the seller to the
    next rust, its lasting train given away)."""
    if not isinstance(move, BuyTrain) or move.train not in owned:
        return False
    return bool(game.state.companies[move.entity].trains) or not seller_keeps_a_train(game, move.train)


def _lay_rank(game: Game, lay: LayTile) -> int:
    """Lays that raise what a stop pays first (by how much), then new cities and towns,
    then upgrades elsewhere, then plain track: the rest are cut first."""
    tile, _ = game.ctx.tile_at(game.state, lay.hex)
    new = game.ctx.board.tiles[lay.tile]
    gain = sum(n.revenue for n in new.nodes) - sum(n.revenue for n in tile.nodes)
    if gain > 0:
        return -gain
    return 1 if new.nodes else 2 if tile.nodes else 3
