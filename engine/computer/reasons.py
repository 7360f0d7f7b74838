"""The computer player's one-line reasons, in 18xx terms: what the move changes, named
(the tile and hex, the company, the train, the price), from the game before and after it.

"lays 57 on H14 (Kiev): MVR's best run 40 -> 60", "buys a 3-train for 180: rusts its own
2-trains; MVR's best run 40 -> 80", "pays out 60 (6 a share): share price 100 -> 110".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .. import loans, market, shares, trains
from ..actions import (
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
from ..board import hex_distance
from ..graph import tile_layout
from ..legal import consent_needed, legal_actions
from ..operating_steps import must_buy
from . import value
from .agents import after, company_acting
from .track import LayAims

if TYPE_CHECKING:
    from ..game import Game


@dataclass(frozen=True)
class Move:
    """A chosen move and what the computer saw of it: the game before and after (None if
    it could not be tried), the acting company and its best run before and after, and how
    much better off it leaves the seat than a pass would."""

    game: Game
    later: Game | None
    action: Action
    company: str | None
    runs: tuple[int, int]
    gain: float
    legal: tuple[Action, ...] = ()
    aims: LayAims | None = None
    tried: tuple[tuple[Action, int], ...] | None = None
    """The moves tried that may change the company's run, each with its best run after
    (None: not known)."""

    @property
    def lines(self) -> list[str]:
        """The log lines the move wrote (on the copy it was tried on)."""
        if self.later is None:
            return []
        return self.later.state.log[len(self.game.state.log):]

    def run_change(self) -> str:
        """"MVR's best run 40 -> 60", if the move changed it."""
        before, after = self.runs
        if not self.company or before == after:
            return ""
        company = self.game.state.companies.get(self.company)
        cheapest = _bank_cheapest(self.game) if company is not None and not company.trains else None
        if cheapest is not None:  # its run as the computer counts it: with the train it must buy
            return f"{self.company}'s best run with {a_train(cheapest[0])} {before} -> {after} (it has no train yet)"
        return f"{self.company}'s best run {before} -> {after}"


def reason(move: Move) -> str:
    """One line on why ``move.action``, naming what it changes."""
    explain = next((EXPLAIN[kind] for kind in type(move.action).__mro__ if kind in EXPLAIN), None)
    found = explain(move, move.action) if explain else ""
    taken = sum(line.startswith(f"{move.action.entity} takes a loan") for line in move.lines)  # not the national's
    if taken and found:
        found += f"; takes {'a loan' if taken == 1 else f'{taken} loans'} for it"
    found = found or f"leaves its seat {move.gain:+.0f} better off than passing"
    return _joined(found, _dooms(move, move.action.entity))


def _dooms(move: Move, sym: str) -> str:
    """What a move that leaves ``sym`` unable to afford its compulsory train means: its
    nationalization at its train step, and the payout."""
    if sym not in move.game.state.companies or move.later is None or \
            value.doomed(move.game, move.game.state.companies[sym]):
        return ""
    company = move.later.state.companies[sym]
    if company.closed or not value.doomed(move.later, company):
        return ""
    return f"{sym} can then afford no train, even with loans, so it is nationalized at its train step (8.11.3), " \
           f"paying {value.nationalization_payouts(move.later, company)[1]} a share"


def _place(game: Game, hex_id: str) -> str:
    name = game.ctx.board.location_names.get(hex_id)
    return f"{hex_id} ({name})" if name else hex_id


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _price(game: Game | None, sym: str) -> int | None:
    if game is None or game.state.companies[sym].market is None:
        return None
    return market.price(game.ctx, game.state, sym)


def _price_move(move: Move, sym: str) -> str:
    """"share price 100 -> 110", if the move moved it."""
    before, after = _price(move.game, sym), _price(move.later, sym)
    if before is None or after is None or before == after:
        return ""
    return f"{sym}'s share price {before} -> {after}"


def _lay(move: Move, lay: LayTile) -> str:
    what = f"lays {lay.tile} on {_place(move.game, lay.hex)}"
    cost = _cash_spent(move, lay.entity)
    why = move.run_change()
    if not why and move.aims is not None:
        stops, legs = move.aims.gain(lay)
        target = move.aims.aim(lay)
        opens = target is not None and move.aims.toward(lay) == 2
        why = (f"reaches new stops worth {stops}" if stops else
               f"opens the way to {_place(move.game, target)} for the next lay" if target and opens else
               f"leads toward {_place(move.game, target)}" if target else
               "a new way between its stops" if legs else _runs_on(move.aims, lay))
    return _joined(what + (f" for {cost}" if cost else ""), why)


def _runs_on(aims: LayAims, lay: LayTile) -> str:
    """What a lay that reaches nothing new and leads toward no stop does: where its
    track runs on to, if anywhere."""
    ends = aims.open_ends(lay)
    return f"no new stop yet: its track runs on into {', '.join(ends)}" if ends else \
        "no new stop, nor a new way between its stops"


def _cash_spent(move: Move, sym: str) -> int:
    """What the move cost ``sym``: the cash it has less, and what its loans for it brought (8.10)."""
    if move.later is None or sym not in move.game.state.companies:
        return 0
    borrowed = (loans.LOAN - loans.INTEREST) * sum(line.startswith(f"{sym} takes a loan") for line in move.lines)
    return max(0, move.game.state.companies[sym].cash - move.later.state.companies[sym].cash + borrowed)


def _token(move: Move, token: PlaceToken) -> str:
    what = f"places a station token in {_place(move.game, token.hex)}"
    cost = _cash_spent(move, token.entity)
    return _joined(what + (f" for {cost}" if cost else ""),
                   _home(move, token) or move.run_change() or "a city of its own on its network, before others take "
                   "the slot")


def _home(move: Move, token: PlaceToken) -> str:
    """What a company's first token, its home, gives it: what the city pays, and its best
    run from there with the bank's cheapest train, as the computer counts a home
    (:func:`value.route_income`); with no run from there yet, the nearest other stops."""
    game = move.game
    if move.later is None or game.state.companies[token.entity].placed_tokens:
        return ""
    color = game.ctx.board.phase(game.state.phase).color
    pays = game.ctx.tile_at(game.state, token.hex)[0].nodes[token.city].value(color)
    cheapest = _bank_cheapest(game)
    runs = value.route_income(move.later, token.entity) if cheapest else 0
    home = f"its home, a city paying {pays}" if pays else "its home, a city that pays once a tile is laid there"
    if runs and cheapest:
        return f"{home}: best run {runs} from there with {a_train(cheapest[0])}"
    return f"{home}; no run from there yet, the nearest other stops " + \
        ", ".join(f"{_place(game, hex_id)} {far} hex{'es' if far > 1 else ''} away"
                  for far, hex_id in _nearest_stops(game, token.hex))


def _nearest_stops(game: Game, home: str, count: int = 2) -> list[tuple[int, str]]:
    """The ``count`` hexes with a stop nearest ``home``, with their distance in hexes."""
    layout = tile_layout(game.ctx, game.state)
    stops = sorted((hex_distance(home, hex_id), hex_id) for hex_id, (tile, _) in layout.items()
                   if hex_id != home and any(not n.hidden for n in tile.nodes))
    return stops[:count]


def _train_name(game: Game, train_id: str) -> str:
    state = game.state
    for train in [*state.depot.upcoming, *state.depot.pool, *(t for c in state.companies.values() for t in c.trains)]:
        if train.id == train_id:
            return train.name
    return train_id.rsplit("-", 1)[0]


def a_train(name: str) -> str:
    """"a 3-train", "an 8-train", "an 8+8E-train": the train named with its article."""
    spoken = name.split("+")[0]
    return f"{'an' if spoken.startswith('8') or spoken in ('11', '18') else 'a'} {name}-train"


def _phase_started(move: Move) -> str | None:
    """The phase the move starts, if it starts one (8.11.1): from its "Phase N begins" line."""
    line = next((line for line in move.lines if line.startswith("Phase ") and " begins" in line), "")
    return line.split()[1] if line else None


def _rusted(move: Move, bought: BuyTrain) -> str:
    """"rusts its own 2-trains and those of MVR and NW": the trains whose rank rusts in
    the phase the buy starts (11), by their holders before it. A train traded in (8.11)
    leaves for the pool whatever the phase, and is no rusting."""
    phase = _phase_started(move)
    board = move.game.ctx.board
    rusting = {t.name for t in board.trains if t.rusts_on == phase} if phase else set()
    lost: dict[str, list[str]] = {}
    for sym, company in move.game.state.companies.items():
        names = {t.name for t in company.trains if t.name in rusting and t.id not in (bought.train, bought.exchange)}
        for name in sorted(names):
            lost.setdefault(name, []).append(sym)
    told = []
    for name, owners in sorted(lost.items()):
        others = [s for s in owners if s != bought.entity]
        own = bought.entity in owners
        told.append(f"its own {name}-trains" + (f" and those of {', '.join(others)}" if others else "") if own
                    else f"the {name}-trains of {', '.join(others)}")
    return "rusts " + " and ".join(told) if told else ""


def _trade_in(game: Game, buy: BuyTrain, name: str) -> str:
    """", trading in its 6-train for 325 off the 8-train's 1000" (8.11)."""
    price = game.ctx.board.train(name).price
    off = f" for {price - buy.price} off the {name}-train's {price}" if price > buy.price else ""
    return f", trading in its {_train_name(game, buy.exchange)}-train{off}"


def _train(move: Move, buy: BuyTrain) -> str:
    """A train bought in the train step (8.11), after the company's run (8.8): it first
    runs for the buyer in the next operating round, whatever it did this one."""
    game = move.game
    where, train = trains.find_train(game.ctx, game.state, buy.train)
    seller = where if where in game.state.companies else None
    what = f"buys {a_train(train.name)} for {buy.price}" + (f" from {seller}" if seller else "")
    if buy.exchange:
        what += _trade_in(game, buy, train.name)
    phase = next((line.split(":")[0].lower() for line in move.lines if line.startswith("Phase ")), "")
    first = not game.state.companies[buy.entity].trains
    return _joined(what, _rusted(move, buy), phase.replace("phase", "starts phase").replace(" begins", ""),
                   _spares(move, buy) if first and seller else "",
                   _first_run(move, buy, train.operated) if first else _next_run(move), _seller_left(move, seller))


def _bank_cheapest(game: Game) -> tuple[str, int] | None:
    """The bank's cheapest train now: its name and price."""
    price = trains.cheapest_bank_price(game.ctx, game.state)
    name = next((t.name for t in trains.bank_trains(game.ctx, game.state)
                 if game.ctx.board.train(t.name).price == price), None)
    return (name, price) if name is not None and price is not None else None


def _spares(move: Move, buy: BuyTrain) -> str:
    """What a trainless company's train from another company spares it: the purchase it
    must make from the bank (8.11.3), or its nationalization if it could afford none."""
    game, sym = move.game, buy.entity
    cheapest = _bank_cheapest(game)
    if cheapest is None:
        return f"{sym} must own a train (8.11.3) and the bank has none left"
    name, price = cheapest
    if must_buy(game.ctx, game.state, game.state.companies[sym]):
        borrowing = ", with loans" if game.state.companies[sym].cash < price else ""
        return f"{sym} must own a train (8.11.3): this spares it buying the bank's {name}-train for {price}{borrowing}"
    return f"{sym} must own a train (8.11.3) and cannot afford the bank's {name}-train for {price} even with " \
           "loans: without this one it is nationalized"


def _first_run(move: Move, buy: BuyTrain, ran: bool) -> str:
    """A first train's run, from the next operating round (a train runs once a round, 8.8),
    against the run with the bank's cheapest train that the computer weighs it against."""
    probe, runs = move.runs
    when = f"so it can run for {buy.entity} only from the next operating round" if ran else \
        f"it can run for {buy.entity} from the next operating round"
    lead = "the train has run this operating round, " if ran else "its first train: "
    cheapest = _bank_cheapest(move.game)
    other = f" ({probe} with the bank's {cheapest[0]}-train)" if cheapest and probe and probe != runs else ""
    return lead + when + (f": best run {runs}{other}" if runs else "")


def _next_run(move: Move) -> str:
    """The run the train changes from the next operating round; else that the run stays,
    and what the train is worth to the seat beside it (trains count for part of their
    price: they run on and may be sold, 8.11)."""
    change = move.run_change()
    if change:
        return f"{change} from the next operating round"
    stays = f"{move.company}'s best run stays {move.runs[0]}" if move.company else ""
    return _joined(stays, f"as a train in hand it leaves its seat about {move.gain:.0f} better off than buying none"
                   if move.gain >= 1 else "")


def _seller_left(move: Move, seller: str | None) -> str:
    """What the selling company is left with."""
    if seller is None or move.later is None:
        return ""
    left = sorted(t.name for t in move.later.state.companies[seller].trains)
    if not left:
        return f"leaves {seller} without a train"
    return f"{seller} keeps its {', '.join(left)}-train" + ("s" if len(left) > 1 else "")


def _discard(move: Move, discard: DiscardTrain) -> str:
    return _joined(f"discards {a_train(_train_name(move.game, discard.train))} to the pool",
                   "over the train limit, it keeps the trains that earn most")


def _run(move: Move, run: RunRoutes) -> str:
    ran = next((line.split(" for ", 1)[1] for line in move.lines if " runs for " in line), "")
    return "runs its proven-best routes" + (f" for {ran}" if ran else "")


def _dividend(move: Move, dividend: Dividend) -> str:
    sym = dividend.entity
    company = move.game.state.companies[sym]
    revenue = company.last_revenue or 0
    price = _price_move(move, sym)
    if dividend.choice == "withhold":
        cash = move.later.state.companies[sym].cash if move.later else company.cash
        return _joined(f"withholds {revenue}: {cash} in {sym}'s treasury toward its next train", price)
    per_share = next((line.split(" pays ", 1)[1].split(" a share")[0] for line in move.lines
                      if f"{sym} pays " in line and " a share" in line), "")
    half = "half " if dividend.choice == "half" else ""
    return _joined(f"pays out {half}{revenue}" + (f" ({per_share} a share)" if per_share else ""),
                   price or _price_stays(move, sym))


def _price_stays(move: Move, sym: str) -> str:
    """Why a payout leaves the share price where it is: less paid out than the price
    (8.9.2), or the price at the market's end."""
    stays = next((line for line in move.lines if line.startswith(f"{sym} share price stays at ")), "")
    if stays:
        return f"{sym}'s{stays[len(sym):].replace(' (it paid out less than that, 8.9.2)', '')}: it paid out less " \
               "than that (8.9.2)"
    price = _price(move.game, sym)
    return f"{sym}'s share price stays at {price}, as far right as it goes" if price else "to its holders"


def _par(move: Move, par: Par) -> str:
    cash = move.later.state.player(par.entity).cash if move.later else None
    floated = move.later is not None and move.later.state.companies[par.company].floated
    return _joined(f"pars {par.company} at {par.price} and takes its presidency" + (" (it floats)" if floated else ""),
                   f"{cash} left for more shares" if cash is not None else "")


def _presidency(move: Move, sym: str, player: str) -> str:
    """Who presides over ``sym`` after the move, if that changed."""
    if move.later is None:
        return ""
    before, after = move.game.state.president(sym), move.later.state.president(sym)
    if before is not None and after is not None and before.id == after.id:
        return ""
    if after is not None and after.id == player:
        return f"becomes {sym}'s president" + (f" over {before.name}" if before else "")
    if before is not None and before.id == player and after is not None:
        return f"dumps {sym}'s presidency on {after.name}"
    return ""


def _buy(move: Move, buy: BuyShare) -> str:
    sym = buy.company
    price = _price(move.game, sym)
    what = f"buys 10% of {sym} from the {buy.source}" + (f" for {price}" if price else "")
    earns = move.game.state.companies[sym].last_revenue
    floats = move.later is not None and move.later.state.companies[sym].floated and \
        not move.game.state.companies[sym].floated
    held = move.later.state.player(buy.entity).percent_of(sym) if move.later else 0
    return _joined(what, _presidency(move, sym, buy.entity) or (f"holds {held}%" if held else ""),
                   "it floats" if floats else "", f"{sym} last ran for {earns}" if earns else "")


def _sell(move: Move, sell: SellShares) -> str:
    sym = sell.company
    if move.later is None:
        return f"sells {sell.count * 10}% of {sym}"
    before, after = move.game.state.player(sell.entity), move.later.state.player(sell.entity)
    held = after.percent_of(sym)
    return _joined(f"sells {sell.count * 10}% of {sym} for {after.cash - before.cash}",
                   _presidency(move, sym, sell.entity) or (f"holds {held}%" if held else f"holds no more {sym}"),
                   _price_move(move, sym))


def _lot(game: Game, target: str) -> str:
    """"MRR (Moscow-Ryazan Railway)": the lot bid on, with its name."""
    board = game.ctx.board
    lot = board.corporations.get(target)
    name = next((p.name for p in board.privates if p.sym == target), lot.name if lot else "")
    return f"{target} ({name})" if name else target


def lot_worth(game: Game, target: str) -> float | None:
    """What the lot bid on is worth to its bidder as the computer counts it: a private's
    worth (:func:`private_worth`), a minor's to its president (:func:`minor_worth`, from
    its best routes once its home is on the map, else a first train's); None for neither."""
    if value.is_private(game, target):
        return value.private_worth(game, target)
    company = game.state.companies.get(target)
    if company is None:
        return None
    income = value.route_income(game, target) if company.placed_tokens else 0
    return value.minor_worth(game, max(income, value.first_train_income(game)))


def _bid(move: Move, bid: Bid) -> str:
    what = f"bids {bid.price} on {_lot(move.game, bid.target)}"
    worth = lot_worth(move.game, bid.target)
    if worth is None:
        return what
    return _joined(what, f"it sees it worth about {worth:.0f} to its seat")


def no_higher(game: Game, bids: list[Bid]) -> str:
    """Why the computer makes none of ``bids``, by lot (its lowest bid on each): above what
    it sees the lot worth, a private's bid that would leave less cash than it keeps to
    win a minor in the first stock round, or a minor's whose treasury could buy no train (the bids it never makes,
    :func:`engine.computer.player._overbid`), or a bid within both that it counts as no
    better than a pass: a bid on a minor changes no one's worth until it wins."""
    lowest: dict[str, Bid] = {}
    for bid in sorted(bids, key=lambda b: b.price):
        lowest.setdefault(bid.target, bid)
    whys = [_why_not(game, bid) for bid in lowest.values()]
    if len(lowest) == 1:
        return f"bids no higher on {_lot(game, bids[0].target)}: {whys[0]}"
    told: dict[str, list[str]] = {}
    for target, why in zip(lowest, whys):
        told.setdefault(why, []).append(target)
    return "bids on none of " + "; nor on ".join(f"{', '.join(targets)}: {why}" for why, targets in told.items())


def _why_not(game: Game, bid: Bid) -> str:
    """Why the computer makes no ``bid`` (see :func:`no_higher`)."""
    worth = lot_worth(game, bid.target)
    if worth is not None and bid.price > worth:
        return f"the next bid, {bid.price}, is above its worth to its seat, about {worth:.0f}"
    minor = game.state.companies.get(bid.target)
    if minor is not None and value.train_beyond_reach(game, replace(minor, cash=bid.price), None):
        return (f"a minor won for {bid.price} could not buy the bank's cheapest train, for "
                f"{trains.cheapest_bank_price(game.ctx, game.state)}, even with its {loans.MAX_LOANS[minor.type]} "
                "loans (8.2): it would be nationalized at its first train step (8.11.3)")
    cash = game.state.player(bid.entity).cash
    keeps = value.stock_round_reserve(game)
    if value.is_private(game, bid.target) and cash - bid.price < keeps:
        return (f"a bid of {bid.price} would leave {cash - bid.price} of its {cash}, less than "
                f"the {keeps:.0f} it keeps to win a minor in the first stock round")
    within = f"a bid of {bid.price} is within its worth to its seat, about {worth:.0f}" if worth is not None else \
        f"a bid of {bid.price} is allowed"
    better = _bid_over_pass(game, bid)
    if better > 0:
        return f"{within}, and leaves it about {better:.0f} better off than a pass"
    held = [c.sym for c in game.state.companies.values()
            if c.is_minor and not c.closed and game.state.president(c.sym) is game.state.player(bid.entity)]
    private = value.is_private(game, bid.target)
    return within + (", but leaves it no better off than a pass, as it counts it" if private
                     else ", but a bid counts for no more than a pass until the auction is won") + \
        (f" (it has the minors {', '.join(held)} already)" if held else "")


def _bid_over_pass(game: Game, bid: Bid) -> float:
    """How much better off the bid leaves its bidder than a pass, as the computer counts
    it (:func:`engine.computer.player.ComputerAgent.decide`): 0 if either is refused."""
    bidding, passing = after(game, bid), after(game, Pass(bid.entity))
    if bidding is None or passing is None:
        return 0.0
    gain = value.standing(value.worths(bidding), bid.entity) + value.bid_gain(game, bid)
    return gain - value.standing(value.worths(passing), bid.entity)


def only_move(game: Game, action: Action) -> str:
    """The reason for the one move the computer may make (it asks nobody's consent, so
    a train or private of another player's is not among its moves): a pass says why
    it buys or does nothing else that the step offers."""
    company = company_acting(game)
    if isinstance(action, Pass):
        offered = legal_actions(game)
        if len(offered) == 1:
            return "the only move allowed"
        return reason(Move(game, after(game, action), action, company, (0, 0), 0.0, tuple(offered)))
    told = reason(Move(game, after(game, action), action, company, (0, 0), 0.0, (action,)))
    consent = " without another player's consent" if len(legal_actions(game)) > 1 else ""  # their train, private
    return f"{told} (the only move allowed{consent})"


def _private(move: Move, buy: BuyPrivate) -> str:
    private = move.game.ctx.board.private(buy.private)
    return _joined(f"buys {buy.private} ({private.name}) for {buy.price}",
                   f"{private.revenue} a round to {buy.entity}" if private.revenue else "")


def _merge(move: Move, merge: Merge) -> str:
    formed = next((line for line in move.lines if " form " in line or " converts into " in line), "")
    if merge.target in move.game.state.companies and not move.game.state.companies[merge.target].is_minor:
        before, after = move.runs
        converting = getattr(move.game.state.round, "converting", False)
        return _joined(formed or f"forms {merge.target} from {' and '.join(_merging(move) or [merge.entity])}",
                       "a major pays its holders in full where a minor half pays (8.9.1), and has shares to sell "
                       "for cash" if converting else "one major runs their tokens and trains together",
                       f"{merge.target}'s best run {after} against {merge.entity}'s {before}" if after != before
                       else "")
    return _joined(f"adds {merge.target} to {merge.entity}'s merge (9.2)", "toward one major that runs both their "
                   "networks, named once the minors are in")


def _merging(move: Move) -> list[str]:
    rnd = move.game.state.round
    return list(getattr(rnd, "merging", []))


def _convert(move: Move, convert: Convert) -> str:
    return f"begins converting {convert.entity} into a major (9.1), named next: a major pays its holders in full " \
           "where a minor half pays (8.9.1), and has shares to sell for cash"


def _remove(move: Move, remove: RemoveToken) -> str:
    return _joined(f"removes {remove.entity}'s token from {_place(move.game, remove.hex)}",
                   move.run_change() or "the one its routes need least")


def _choose(move: Move, choose: Choose) -> str:
    game, sym = move.game, choose.entity
    if value.doomed(game, game.state.companies[sym]):
        price = trains.cheapest_bank_price(game.ctx, game.state)
        now, later = value.nationalization_payouts(game, game.state.companies[sym])
        return f"{choose.choice}s {sym} (10): it cannot afford the bank's cheapest train, for {price}, even with " \
               f"loans, so it would be nationalized at its train step (8.11.3)" + \
               (f" after a run that earns nothing (8.9.2): {now} a share now, not {later}" if later != now else "")
    return f"{choose.choice}s {sym}: it has no train and its president would pay more to keep it"


def _redeem(move: Move, redeem: RedeemShares) -> str:
    return _joined(f"buys back {redeem.count * 10}% of {redeem.entity} from the pool",
                   _price_move(move, redeem.entity) or "fewer shares to share its dividends")


def _pass(move: Move, action: Pass) -> str:
    legal_kinds = {type(a) for a in move.legal}
    if LayTile in legal_kinds:
        return _no_lay(move)
    if BuyTrain in legal_kinds and move.company:
        return _no_train(move, move.company)
    bids = [a for a in legal_actions(move.game) if isinstance(a, Bid)]  # also those the computer never makes
    if bids and (Bid in legal_kinds or not {BuyShare, Par} & legal_kinds):
        return no_higher(move.game, bids)
    if BuyShare in legal_kinds or Par in legal_kinds or SellShares in legal_kinds:
        return _no_share(move, action, buys=BuyShare in legal_kinds or Par in legal_kinds)
    if PlaceToken in legal_kinds:
        return _no_token(move)
    offered = legal_actions(move.game)  # also the moves that wait for another player's consent
    offered_kinds = {type(a) for a in offered}
    if Choose in offered_kinds:
        kept = move.later.state.companies[action.entity] if move.later else None
        if move.later and kept and value.doomed(move.later, kept):
            return f"keeps {action.entity} for now (10): it cannot afford the bank's cheapest train even with " \
                   "loans, so it is nationalized at its train step (8.11.3)"
        return f"does not nationalize {action.entity} (10): it has no train and must buy one (8.11.3), but kept it " \
               "is worth more to its seat"
    if Merge in offered_kinds or Convert in offered_kinds:
        return _no_merge(move.game, action, offered)
    if BuyPrivate in offered_kinds:
        return _no_private(move.game, offered)
    return "passes: nothing else leaves it better off"


def _no_share(move: Move, action: Pass, buys: bool) -> str:
    """A stock-round pass: no share bought or sold leaves the seat better off; with its
    cash and certificates, and whether it may buy at all."""
    game = move.game
    player = game.state.player(action.entity)
    held, limit = shares.cert_count(player), shares.cert_limit(game.ctx, game.state)
    if buys:
        starts = [m for m in legal_actions(game) if isinstance(m, Par)]
        unfunded = f"; starts no major: even at {max(m.price for m in starts)} its two shares (7.4) and loans " \
            f"would not buy the bank's cheapest train, for {trains.cheapest_bank_price(game.ctx, game.state)} " \
            "(8.11.3)" if starts and all(value.unfunded(game, m) for m in starts) else ""
        return f"passes: no share bought or sold leaves it better off ({player.cash} in hand, {held} of {limit} " \
               f"certificates){unfunded}"
    if held >= limit:
        return f"passes: at its certificate limit ({held} of {limit}) it may buy nothing, and no sale leaves it " \
               "better off"
    return f"passes: it may buy nothing now ({player.cash} in hand), and no sale leaves it better off"


def _no_lay(move: Move) -> str:
    """A company that lays no track (8.6): no lay tried raises its run or leads toward a
    stop enough to pay its cost, or the best that raises it is not worth its cost."""
    best = _best_raise(move, LayTile)
    if best is None:
        return "lays no track: no lay pays its cost here, in run or in a way toward a stop it does not reach"
    return f"lays no track: {_declined(move, *best)}"


def _no_token(move: Move) -> str:
    """A company that places no station token (8.7): none raises its run, or the best
    that does is not worth its cost to its seat."""
    if move.tried is None:
        return "places no token: none leaves its seat better off"
    best = _best_raise(move, PlaceToken)
    return f"places no token: {_declined(move, *best)}" if best else "places no token: none raises its run"


def _declined(move: Move, runs: int, best: LayTile | PlaceToken) -> str:
    """"the best, 57 on H14, would raise MVR's best run 40 -> 60, not worth its cost to its seat"."""
    where = f"{best.tile} on {_place(move.game, best.hex)}" if isinstance(best, LayTile) else \
        f"in {_place(move.game, best.hex)}"
    return f"the best, {where}, would raise {move.company}'s best run {move.runs[0]} -> {runs}, not worth its cost " \
           "to its seat"


def _best_raise(move: Move, kind: type[LayTile] | type[PlaceToken]) -> tuple[int, Any] | None:
    """The move of ``kind`` tried that raises the company's best run most, with that run."""
    raising = [(runs, tried) for tried, runs in move.tried or () if isinstance(tried, kind) and runs > move.runs[0]]
    return max(raising, key=lambda r: r[0]) if raising else None


def _no_merge(game: Game, action: Pass, offered: list[Action]) -> str:
    """A minor's pass in the merger round (9.1, 9.2): it adds no more minors to its merge,
    gives up the conversion or merge it began (nothing has changed hands yet), or stays
    a minor. A merger with another player's minor needs their consent, which the
    computer does not ask."""
    sym = action.entity
    companies = game.state.companies
    merges = [m for m in offered if isinstance(m, Merge)]
    others = [m.target for m in merges if consent_needed(game, m)]
    majors = [m.target for m in merges if not companies[m.target].is_minor and m.target not in others]
    minors = [m.target for m in merges if companies[m.target].is_minor and m.target not in others]
    rnd = game.state.round
    partners = [s for s in getattr(rnd, "merging", []) if s != sym]
    forming = f"forming {'any of ' if len(majors) > 1 else ''}{', '.join(majors)}" if majors else ""
    adding = f"adding {' or '.join(minors)}" if minors else ""
    if partners and not getattr(rnd, "adding_done", False):
        what, ways = f"{sym} adds no more minors to its merge with {', '.join(partners)}", [adding]
    elif partners or getattr(rnd, "converting", False):
        what = f"{sym} gives up {'the merge with ' + ', '.join(partners) if partners else 'converting'}"
        ways = [forming]
    else:
        what, ways = f"{sym} stays a minor", [forming, adding.replace("adding", "merging with")]
        if not any(ways) and not others:
            ways = ["converting"]
    told = " or ".join(w for w in ways if w)
    whose = "is another player's minor" if len(others) == 1 else "are other players' minors"
    return _joined(what + (f": {told} leaves its seat no better off" if told else ""),
                   f"{', '.join(others)} {whose}, to merge with only by consent (the computer asks no one)"
                   if others else "")


def _no_private(game: Game, offered: list[Action]) -> str:
    """A company that buys no private in its turn (8.12): those of other players need
    their consent, which the computer does not ask; its own president's cost more than
    they are worth to it."""
    privates = sorted({m.private for m in offered if isinstance(m, BuyPrivate)})
    others = sorted({m.private for m in offered if isinstance(m, BuyPrivate) and consent_needed(game, m)})
    own = [p for p in privates if p not in others]
    told = [f"{', '.join(own)} would leave its seat no better off at any price it may pay (8.12)"
            if own else "",
            f"{', '.join(others)} {'is' if len(others) == 1 else 'are'} other players' to sell (the computer asks "
            "no one)" if others else ""]
    return "buys no private: " + "; ".join(t for t in told if t)


def _no_train(move: Move, sym: str) -> str:
    """"buys no train: ...": none from the bank worth its price, or none it can afford
    (or room for none); other companies' trains kept by their presidents or its own."""
    game = move.game
    company = game.state.companies[sym]
    where = {a.train: trains.find_train(game.ctx, game.state, a.train)[0] for a in move.legal
             if isinstance(a, BuyTrain)}
    from_bank = [a for a in move.legal if isinstance(a, BuyTrain) and where[a.train] in ("yard", "pool")]
    cheapest = trains.cheapest_bank_price(game.ctx, game.state)
    if from_bank:
        buy = min(from_bank, key=lambda a: a.price)
        trade = f" with its {_train_name(game, buy.exchange)}-train traded in" if buy.exchange else ""
        why = f"none is worth its price to its seat now (the cheapest, {a_train(_train_name(game, buy.train))}, " \
              f"costs {buy.price}{trade})"
    elif len(company.trains) >= trains.train_limit(game.ctx, game.state, company):
        why = f"it holds as many trains as it may ({len(company.trains)})"
    elif cheapest is not None:
        why = f"the bank's cheapest costs {cheapest}, more than the {company.cash} in its treasury"
    else:
        why = "the bank has none left"
    president = game.controller(sym)
    sellers = sorted({s for s in where.values() if s in game.state.companies and s != sym})
    others = [s for s in sellers if game.controller(s) != president]
    own = [s for s in sellers if game.controller(s) == president]
    kept = f"its president's {own[0]} keeps its trains" if len(own) == 1 else \
        f"its president's {', '.join(own)} keep their trains" if own else ""
    return _joined(f"buys no train: {why}",
                   f"the trains of {', '.join(others)} are other players' to sell (the computer asks no one)"
                   if others else "", kept)


EXPLAIN: dict[type[Action], Callable[[Move, Any], str]] = {
    LayTile: _lay, PlaceToken: _token, BuyTrain: _train, DiscardTrain: _discard, RunRoutes: _run, Dividend: _dividend,
    Par: _par, BuyShare: _buy, SellShares: _sell, Bid: _bid, BuyPrivate: _private, Merge: _merge, Convert: _convert,
    RemoveToken: _remove, Choose: _choose, RedeemShares: _redeem, Pass: _pass,
}
