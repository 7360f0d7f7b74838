"""What a position is worth to a player: the computer players' yardstick.

A player's worth is what the rulebook scores at the end (12.2: cash, privates at face
value, shares at their price) plus what their holdings should still earn: each
company's income per operating round (its proven-best routes for the company in
question, its last run for the others), times the player's part of it (a president's
counts the shares still unsold), over the operating rounds the game likely has left,
less its loans. Money is the one unit.
"""

from __future__ import annotations

import pickle
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import market
from ..actions import Action, Bid, Par
from ..loans import borrowing_power
from ..nationalization import nationalization_payout
from ..operating import OperatingRound
from ..route_search import best_income, bounded_income
from ..scoring import final_values
from ..state import Company, GameState, Train
from ..stock_round import MINOR_MIN_BID
from ..trains import cheapest_bank_price

if TYPE_CHECKING:
    from ..game import Game

HORIZON = 4
"""Operating rounds of income counted at most: trains rust and prices move beyond that."""

LOAN_COST = 120
"""What a loan costs a company's holders: its 100 back and a round or two of interest (8.10)."""

SPARE_CASH = 0.4
"""A company's cash beyond the next train it needs, to its holders per unit (it may buy more later)."""

TRAIN_WORTH = 0.3
"""A company's train, to its holders, per unit of its price beyond what it earns within the
horizon: it runs on after that until it rusts, or is sold to another company (8.11). A
little below :data:`SPARE_CASH`, so a train is bought for what it adds to the run, and a
purchase that starts a phase is not judged only by the rounds the phase leaves."""

PER_STOP = 25
"""A rough revenue per stop for a company that has trains but has not run yet."""

ROUND_DISCOUNT = 0.5
"""What money one operating round later is worth now, to a bidder: cash kept for the
stock round starts minors and buys shares that pay, so revenue a round off counts half."""

PRESIDENT_PART = 0.5
"""The part of a minor's run its president receives: minors always half pay (8.9.1)."""


def rounds_left(game: Game) -> float:
    """The operating rounds the game likely has left, counted at most :data:`HORIZON`:
    the end when it is set (12.1), else fewer as the phases go by."""
    state, board = game.state, game.ctx.board
    if state.game_ends_after is not None:
        sets, number = state.game_ends_after
        return float(max(1, min(HORIZON, (sets - state.round_number) * state.operating_rounds + number)))
    names = [p.name for p in board.phases]
    done = names.index(state.phase) / max(1, len(names) - 1) if state.phase in names else 0.5
    return max(1.0, HORIZON * (1.0 - 0.6 * done))


class Work:
    """The route-search work one decision may still spend, counted in search steps
    (never seconds, so a decision is the same on every machine), and the incomes it
    has already found: a position whose map and trains were searched is not again."""

    def __init__(self, steps: int, per_search: int) -> None:
        self.left = steps
        self.per_search = per_search
        self.spent = 0
        self.known: dict[tuple[object, ...], int | None] = {}


def route_income(game: Game, sym: str) -> int:
    """What ``sym``'s trains would earn on their proven-best routes now, every train
    counted as ready to run (a trainless company: one of the bank's cheapest trains)."""
    ready = _ready_to_run(game, sym)
    if ready is None:
        return 0
    state, company = ready
    return best_income(game.ctx, state, company)


def bounded_route_income(game: Game, sym: str, work: Work) -> int | None:
    """:func:`route_income` within the work left (at most ``work.per_search`` steps);
    None when the search would need more. Positions alike in map, phase and trains
    share one search."""
    ready = _ready_to_run(game, sym)
    if ready is None:
        return 0
    state, company = ready
    key = (sym, state.phase, tuple(sorted(t.name for t in company.trains)), _map_key(state))
    if key in work.known:
        return work.known[key]
    if work.left <= 0:
        return None
    income, spent = bounded_income(game.ctx, state, company, min(work.left, work.per_search))
    work.left -= spent
    work.spent += spent
    work.known[key] = income
    return income


def income_within(game: Game, company: str | None, work: Work, otherwise: int | None) -> int:
    """What the acting ``company`` earns on its best routes in ``game``, within the work
    left; else ``otherwise`` (the run as it was), or its last run for the position itself."""
    if company is None:
        return 0
    found = bounded_route_income(game, company, work)
    if found is not None:
        return found
    return otherwise if otherwise is not None else game.state.companies[company].last_revenue or 0


def _map_key(state: GameState) -> bytes:
    """What routes see of the map (tiles, tokens, blocked hexes), as bytes that are the
    same however the map was reached (no set or dict order in them)."""
    board = state.map
    return pickle.dumps((sorted(board.tiles.items(), key=lambda item: item[0]),
                         sorted(board.tokens.items()), sorted(board.blocked_hexes)))


def _ready_to_run(game: Game, sym: str) -> tuple[GameState, Company] | None:
    """The state as it would be with ``sym``'s trains all ready to run (a trainless
    company given one of the bank's cheapest); None if it cannot run at all. Only the
    company is new: the route search reads the rest of the state and changes nothing."""
    company = game.state.companies[sym]
    if not company.placed_tokens:
        return None
    if company.trains:
        trains = [replace(train, operated=False) for train in company.trains]
    else:
        cheapest = _cheapest_train(game)
        if cheapest is None:
            return None
        trains = [Train("probe-0", cheapest)]
    ready = replace(company, trains=trains)
    return replace(game.state, companies={**game.state.companies, sym: ready}), ready


def _cheapest_train(game: Game) -> str | None:
    price = cheapest_bank_price(game.ctx, game.state)
    if price is None:
        return None
    for train in [*game.state.depot.upcoming, *game.state.depot.pool]:
        if game.ctx.board.train(train.name).price == price:
            return train.name
    return None


def guessed_income(game: Game, company: Company) -> int:
    """A company's income per operating round without a route search: its last run,
    or its trains' stops at :data:`PER_STOP` each before it has run; nothing without trains."""
    if not company.trains:
        return 0
    if company.last_revenue:
        return company.last_revenue
    return sum(game.ctx.board.train(t.name).pay for t in company.trains) * PER_STOP


def train_need(game: Game, company: Company) -> int:
    """The cash ``company`` needs for its next train: the bank's cheapest when it has
    none, else nothing."""
    if company.trains or company.closed:
        return 0
    return cheapest_bank_price(game.ctx, game.state) or 0


def company_value(game: Game, company: Company, income: int, horizon: float) -> float:
    """What ``company`` is worth to its holders beyond its share price, for all of it:
    income over the horizon, its cash (in full up to the train it needs), less loans.
    A minor always half pays (8.9.1): the half it keeps counts as its spare cash does."""
    cash = min(company.cash, train_need(game, company)) + spare_cash(game, company)
    paid = PRESIDENT_PART + (1 - PRESIDENT_PART) * SPARE_CASH if company.is_minor else 1.0
    trains = TRAIN_WORTH * sum(game.ctx.board.train(t.name).price for t in company.trains)
    return income * horizon * paid + cash + trains - LOAN_COST * company.loans


def spare_cash(game: Game, company: Company) -> float:
    """The part of :func:`company_value` that is cash beyond the train the company needs."""
    return SPARE_CASH * max(0, company.cash - train_need(game, company))


def doomed(game: Game, company: Company) -> bool:
    """Whether ``company`` is nationalized at its next train step (8.11.3, 10): it has no
    train and none within reach (:func:`train_beyond_reach`). Money a stock round could
    bring it (its treasury shares sold) saves it only once paid in."""
    if company.trains or company.market is None or not company.floated:  # e.g. a major just reset (10.1E)
        return False
    president = game.state.president(company.sym)
    return train_beyond_reach(game, company, president.id if president else None)


def nationalization_payouts(game: Game, company: Company) -> tuple[int, int]:
    """What a share of a :func:`doomed` company is paid if nationalized now, and at its
    train step (after a run that earns nothing, if one comes first)."""
    now = nationalization_payout(game.ctx, game.state, company.sym)
    runs = _runs_before_train_step(game, company)
    return now, nationalization_payout(game.ctx, game.state, company.sym, runs) if runs else now


def _runs_before_train_step(game: Game, company: Company) -> int:
    """1 if ``company`` comes to its dividend step before its next train step (it is not
    past its run in this operating round): it earns nothing there, and its price moves
    left (8.9.2); else 0."""
    rnd = game.state.round
    if not isinstance(rnd, OperatingRound) or rnd.index >= len(rnd.order) or rnd.order[rnd.index] != company.sym:
        return 1
    steps = game.ctx.title.step_index
    return int(steps[rnd.step] < steps["dividend"])


def train_beyond_reach(game: Game, company: Company, president: str | None) -> bool:
    """Whether ``company`` cannot afford the bank's cheapest train even with every loan it
    may still take (8.2, 8.11.3), and no other company of ``president``'s (if named) has a
    train that outlasts the next phase and that it would sell (:func:`seller_keeps_a_train`)."""
    state = game.state
    price = cheapest_bank_price(game.ctx, state)
    if price is None or borrowing_power(company) >= price:
        return False
    sisters = [c for c in state.companies.values() if c is not company and president is not None
               and (chief := state.president(c.sym)) is not None and chief.id == president]
    return not any(_outlasts_next_phase(game, train.name) and seller_keeps_a_train(game, train.id)
                   for sister in sisters for train in sister.trains)


def _phase_place(game: Game, phase: str | None) -> int:
    """``phase``'s place among the title's phases (past the last: none, or never)."""
    names = [p.name for p in game.ctx.board.phases]
    return names.index(phase) if phase in names else len(names)


def _lasts(game: Game, train: str) -> int:
    """The place among the phases of the one that rusts ``train`` (past the last: never)."""
    return _phase_place(game, game.ctx.board.train(train).rusts_on)


def _outlasts_next_phase(game: Game, train: str) -> bool:
    """Whether ``train`` runs on after the next phase begins (or never rusts)."""
    last = len(game.ctx.board.phases) - 1
    return _lasts(game, train) > min(_phase_place(game, game.state.phase) + 1, last)


def seller_keeps_a_train(game: Game, train: str) -> bool:
    """Whether the company that owns ``train`` keeps another that outlasts the next phase
    and lasts at least as long as ``train``: a company sells its older trains, not the
    one that carries it on."""
    seller = next(c for c in game.state.companies.values() if any(t.id == train for t in c.trains))
    sold = _lasts(game, next(t.name for t in seller.trains if t.id == train))
    return any(t.id != train and _outlasts_next_phase(game, t.name) and _lasts(game, t.name) >= sold
               for t in seller.trains)


def unfunded(game: Game, move: Action) -> bool:
    """A major the computer never starts: one whose treasury from its start (the
    president's two shares, 7.4) could not buy the bank's cheapest train even with every
    loan (8.2, 8.11.3), so it is nationalized at its first turn unless others pay in."""
    if not isinstance(move, Par):
        return False
    major = game.state.companies[move.company]
    return train_beyond_reach(game, replace(major, cash=major.cash + 2 * move.price), None)


def holding(state: GameState, player: str, company: Company) -> float:
    """The part of ``company`` that counts to ``player``: the shares they hold (a minor's
    one certificate is all of it) and, for its president, the shares still in its
    treasury: the president decides whether and when they are sold, and what they bring
    goes into the company's treasury (7.4, 9.1D), so a conversion or a merge that leaves
    the president 20% of the major does not throw away the rest."""
    part = state.player(player).percent_of(company.sym)
    if company.treasury and state.president(company.sym) is state.player(player):
        part += sum(c.percent for c in company.treasury)
    return part / 100


def worths(game: Game, incomes: dict[str, int] | None = None, horizon: float | None = None) -> dict[str, float]:
    """Every player's worth: the final score now plus their part of every company's
    :func:`company_value`; ``incomes`` overrides guessed incomes by company, ``horizon``
    the operating rounds counted (:func:`rounds_left` of ``game`` by default)."""
    state = game.state
    horizon = rounds_left(game) if horizon is None else horizon
    values: dict[str, float] = {k: float(v) for k, v in final_values(game.ctx, state).items()}
    for player in state.players:
        for sym in player.privates:
            values[player.id] += game.ctx.board.private(sym).revenue * horizon
    for company in state.companies.values():
        if company.closed or not company.floated or company.is_national:
            continue
        if doomed(game, company):  # its holders get the payout (10.1D), nothing else
            payout = nationalization_payouts(game, company)[1] - market.price(game.ctx, state, company.sym)
            for player in state.holders(company.sym):
                values[player.id] += player.shares_of(company.sym) * payout
            continue
        income = (incomes or {}).get(company.sym)
        if income is None:
            income = guessed_income(game, company)
        value = company_value(game, company, income, horizon)
        spare = spare_cash(game, company)  # counted by shares held: what unsold shares add is the buyers'
        for player in state.holders(company.sym):
            values[player.id] += holding(state, player.id, company) * (value - spare)
            values[player.id] += state.player(player.id).percent_of(company.sym) / 100 * spare
    return values


def standing(values: dict[str, float], player: str) -> float:
    """How far ``player`` is ahead: their worth less the best and the mean of the others'."""
    others = [v for k, v in values.items() if k != player]
    if not others:
        return values[player]
    return values[player] - 0.5 * max(others) - 0.5 * sum(others) / len(others)



def discounted_rounds(rounds: float) -> float:
    """Operating rounds of income, each worth :data:`ROUND_DISCOUNT` times the one before:
    what ``rounds`` rounds of 1 are worth now."""
    whole = int(rounds)
    total = sum(ROUND_DISCOUNT ** i for i in range(1, whole + 1))
    return total + (rounds - whole) * ROUND_DISCOUNT ** (whole + 1)


def rounds_before_sale(game: Game) -> float:
    """The operating rounds a private pays its owner before a company may buy it at face
    value (8.12, from the phase that allows it): one set of each phase before that, at
    least one round, at most :func:`rounds_left`."""
    board = game.ctx.board
    names = [p.name for p in board.phases]
    start = names.index(game.state.phase) if game.state.phase in names else 0
    rounds = 0
    for phase in board.phases[start:]:
        if "can_buy_companies" in phase.status:
            break
        rounds += phase.operating_rounds
    return min(rounds_left(game), float(max(1, rounds)))


def private_worth(game: Game, sym: str) -> float:
    """What a private is worth to a bidder, as an 18xx player counts it: its face value
    (the most a company pays for it, 8.12; what the bank pays at nationalization, 10.1;
    what it scores, 12.2) plus its revenue until a company may buy it, discounted
    (:func:`discounted_rounds`)."""
    private = game.ctx.board.private(sym)
    return private.value + private.revenue * discounted_rounds(rounds_before_sale(game))


def first_train_income(game: Game) -> int:
    """A guess at what a new company's first train earns a round: the bank's cheapest
    train's stops at :data:`PER_STOP` each."""
    cheapest = _cheapest_train(game)
    return game.ctx.board.train(cheapest).pay * PER_STOP if cheapest else 0


def minor_worth(game: Game, income: int) -> float:
    """What a minor earning ``income`` a round is worth to the player who wins it at
    auction (7.2): the treasury for its first train, which the bid pays in, and the
    president's half of its runs (8.9.1), discounted (:func:`discounted_rounds`). More
    cash in its treasury is locked there until it converts (9.1), so it is not counted."""
    treasury = max(MINOR_MIN_BID, cheapest_bank_price(game.ctx, game.state) or 0)
    return treasury + PRESIDENT_PART * income * discounted_rounds(rounds_left(game))


def stock_round_reserve(game: Game) -> float:
    """The cash a player keeps through the private auction: enough to win a minor in
    the first stock round (:func:`minor_worth` with a first train's guessed income)."""
    return minor_worth(game, first_train_income(game))


def is_private(game: Game, sym: str) -> bool:
    """Whether ``sym`` is a private company's."""
    return any(p.sym == sym for p in game.ctx.board.privates)


def bid_gain(game: Game, move: Action) -> float:
    """What a bid on a private gains its bidder if it wins: its worth to an 18xx player
    (:func:`private_worth`) less the price paid to the bank (5.2). A bid changes nobody's
    worth until it wins, so without this every bid would look as good as a pass."""
    if not isinstance(move, Bid) or not is_private(game, move.target):
        return 0.0
    return private_worth(game, move.target) - move.price
