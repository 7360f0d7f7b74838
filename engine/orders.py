"""Standing orders: what a player away from the table has the engine do for them.

18xx.games players of 1867 rely on such programmed actions; here they are the
engine's own: a :class:`~engine.actions.StandingOrder` action sets or cancels one,
and whenever a player with a matching order is to act, :mod:`engine.game` carries it
out at once and logs it. Orders:

* ``pass_merger`` — pass with one's minors in merger rounds (this round, until a
  phase, or until cancelled); cancelled when another player converts or merges.
* ``pass_stock`` — pass in stock rounds, auctions of minors included (this round or
  until cancelled).
* ``buy`` — in stock rounds, buy a share of ``company`` (treasury first, then the
  pool) each turn until holding ``percent``; done then, cancelled if it cannot buy.
* ``run`` — in operating rounds, the player's companies run their best routes.
* ``pay`` — in operating rounds, the player's majors pay out, pay half or withhold.
* ``pass_track`` — in operating rounds, the player's companies pass their track step.

A player's own move where an order acts (a stock round, a merger round, or the
operating step it serves) cancels their orders for it. Every order is over once
another player's move changes the companies its player presides over (a dump, an
auction won, a merger); a stock-round order also once a president's sale could land
on its player, or another player sells a company its player holds (18xx.games
#10710, where a standing pass kept passing for a player who had become the target of
a dump, and #7619). What the player's own moves and orders do to their position ends
nothing. Each order's log line names what ends it (:func:`ends`).
"""

from __future__ import annotations

from . import trains
from .actions import Action, BuyShare, Convert, Dividend, Merge, Pass, RunBest, SellShares, StandingOrder
from .errors import IllegalAction
from .merger import MergerRound
from .operating import OperatingRound
from .state import Context, GameState, Order
from .stock_round import StockRound

MAX_IN_A_ROW = 1000
"""Orders carried out after one action, at most (a guard: every one moves the game on)."""

ROUND_OF = {"pass_merger": "Merger", "pass_stock": "Stock", "buy": "Stock",
            "run": "Operating", "pay": "Operating", "pass_track": "Operating"}
"""The round an order acts in."""

STEP_OF = {"run": "routes", "pay": "dividend", "pass_track": "track"}
"""The operating step an operating-round order acts in (8.4: D, E and B)."""

DIVIDEND_CHOICES = ("payout", "half", "withhold")

STOCK_ORDERS = ("pass_stock", "buy")
"""The orders that watch for a dump or a sale, as well as the player's companies."""

DUMPED = 20
"""A president's certificate passes to a player holding at least this share (7.3.2)."""


def set_order(ctx: Context, state: GameState, action: StandingOrder) -> None:
    """Set (or with ``off`` cancel) the player's standing order, checking it is one."""
    player = state.player(action.entity)
    if action.order == "off":
        mine = [o for o in state.orders if o.player == player.id]
        if not mine:
            raise IllegalAction(f"{player.name} has no standing order")
        for order in mine:
            _drop(state, order, "cancelled")
        return
    if action.order not in ROUND_OF:
        raise IllegalAction(f"there is no standing order {action.order!r}: "
                            f"{', '.join(ROUND_OF)} or off")
    if action.order == "pay" and action.choice not in DIVIDEND_CHOICES:
        raise IllegalAction(f"a standing dividend is payout, half or withhold, not {action.choice!r}")
    if action.order == "pass_merger" and not any(c.is_minor for c in state.companies.values()):
        raise IllegalAction("this game has no merger rounds")
    if action.until not in ("", "round") and not action.until.startswith("phase "):
        raise IllegalAction(f"an order lasts `this round`, `until phase N` or until cancelled, not {action.until!r}")
    until_phase = action.until.removeprefix("phase ") if action.until.startswith("phase ") else ""
    if until_phase:
        names = [p.name for p in ctx.board.phases]
        if until_phase not in names:
            raise IllegalAction(f"there is no phase {until_phase} (phases {', '.join(names)})")
        if names.index(until_phase) <= names.index(state.phase):
            raise IllegalAction(f"phase {state.phase} is under way: name a later phase")
    if action.order == "buy":
        _check_buy_order(ctx, state, action)
    order = Order(player.id, action.order, action.company, action.percent, action.choice,
                  presidencies(state, player.id), dump_targets(state, player.id), until_phase, action.until == "round",
                  round_key(state) if action.until == "round" and state.round is not None
                  and state.round.kind == ROUND_OF[action.order] else "")
    state.orders = [o for o in state.orders if not (o.player == player.id and o.order == order.order)] + [order]
    state.log.append(f"{player.name}'s standing order: {describe_order(order)} (ends with {ends(state, order)})")


def presidencies(state: GameState, player: str) -> tuple[str, ...]:
    """The companies ``player`` presides over (the national, run in turn, left out):
    the position an order was set in."""
    return tuple(sorted({c.company for c in state.player(player).certs if c.president or c.percent == 100}))


def dump_targets(state: GameState, player: str) -> tuple[str, ...]:
    """The companies whose president's certificate would pass to ``player`` if their
    president sold out (7.3.2: the most shares, at least 20%, ties clockwise from the
    president)."""
    targets = []
    seat = state.player_index(player)
    for sym in sorted({c.company for c in state.players[seat].certs}):
        president = state.president(sym)
        if president is None or president.id == player:
            continue
        start, n = state.players.index(president), len(state.players)
        others = [state.players[(start + i) % n] for i in range(1, n)]
        first = max(others, key=lambda p: p.percent_of(sym))  # max keeps the first of equals
        if first.id == player and first.percent_of(sym) >= DUMPED:
            targets.append(sym)
    return tuple(targets)


def _check_buy_order(ctx: Context, state: GameState, action: StandingOrder) -> None:
    company = state.companies.get(action.company)
    if company is None or not company.is_major:
        raise IllegalAction(f"{action.company or 'that'} is not a major company")
    if action.percent not in range(10, 101, 10):
        raise IllegalAction("name the holding to reach in tens of percent: `auto buy GTR until 40%`")
    if state.player(action.entity).percent_of(company.sym) >= action.percent:
        raise IllegalAction(f"{state.player(action.entity).name} already holds "
                            f"{state.player(action.entity).percent_of(company.sym)}% of {company.sym}")


PLAIN_ORDERS = {"pass_merger": "pass in merger rounds", "pass_stock": "pass in stock rounds",
                "run": "run the best routes", "pass_track": "pass the track step"}
"""How :func:`describe_order` says each order that has no company or choice."""

OWN_MOVE = {"pass_merger": "their own merger move", "pass_stock": "their own stock move",
            "buy": "their own stock move", "run": "their own run", "pay": "their own dividend",
            "pass_track": "their own track move"}
"""The player's own move that cancels each order."""


def describe_order(order: Order) -> str:
    """``pass in merger rounds until phase 5``, ``buy GTR until 40%``, ``pay half``..."""
    if order.order == "buy":
        text = f"buy {order.company} until {order.percent}%"
    elif order.order == "pay":
        text = {"payout": "pay out", "half": "pay half"}.get(order.choice, "withhold")
    else:
        text = PLAIN_ORDERS[order.order]
    if order.this_round:
        return text + (f" ({order.round})" if order.round else " (the next one only)")
    return text + (f" until phase {order.until_phase}" if order.until_phase else "")


def ends(state: GameState, order: Order) -> str:
    """What ends ``order``, for the line that sets it: ``their own run, another's move
    changing the companies they preside over (GT, KP) or `auto off```."""
    reasons = [OWN_MOVE[order.order]]
    if order.order == "buy":
        reasons.insert(0, f"{order.percent}% held, a turn it cannot buy")
    if order.order == "pass_merger":
        reasons.append("another player's conversion or merge")
    now = ", ".join(order.presiding) or "none yet"
    reasons.append(f"another's move changing the companies they preside over ({now})")
    if order.order in STOCK_ORDERS:
        reasons += ["a president's sale that could land on them", "another player selling a company they hold"]
    return ", ".join(reasons) + " or `auto off`"


def due(ctx: Context, state: GameState, actor: str | None, player: str | None) -> tuple[Order, list[Action]] | None:
    """The order to carry out now for ``player`` (deciding for ``actor``) and the
    actions it tries in turn, or None. Orders that have run out are dropped first,
    and an order for "this round" set before its round began is tied to it now."""
    _expire(ctx, state)
    if state.round is None or state.finished:
        return None
    kind = state.round.kind
    for order in state.orders:
        if order.this_round and not order.round and ROUND_OF[order.order] == kind:
            order.round = round_key(state)
    if actor is None or player is None or state.trainless_majors:
        return None
    for order in [o for o in state.orders if o.player == player and ROUND_OF[o.order] == kind]:
        tries = _tries(ctx, state, order, actor)
        if tries:
            return order, tries
    return None


def _tries(ctx: Context, state: GameState, order: Order, actor: str) -> list[Action]:
    rnd = state.round
    if order.order in STEP_OF:
        return _operating_tries(ctx, state, order, actor)
    if order.order == "pass_merger":
        deciding = isinstance(rnd, MergerRound) and bool(rnd.merging) and actor == rnd.merging[0] \
            and len(rnd.merging) == 1 and not rnd.converting and rnd.major is None and not rnd.buyers
        return [Pass(actor)] if deciding else []
    if actor != order.player or not isinstance(rnd, StockRound) or rnd.home_token:
        return []
    if order.order == "pass_stock":
        return [Pass(actor)]
    if rnd.auction:
        return []
    return [BuyShare(actor, order.company, "treasury"), BuyShare(actor, order.company, "pool")]


def _operating_tries(ctx: Context, state: GameState, order: Order, actor: str) -> list[Action]:
    """The move of an operating-round order, when the company operating is at its step
    (not while a company discards over its train limit, 8.11)."""
    rnd = state.round
    at_step = isinstance(rnd, OperatingRound) and rnd.step == STEP_OF[order.order] \
        and actor in state.companies and not trains.over_limit(ctx, state)
    if not at_step:
        return []
    if order.order == "run":
        return [RunBest(actor)]
    if order.order == "pay":
        return [Dividend(actor, order.choice)]
    return [Pass(actor)]


def announcement(state: GameState, order: Order, action: Action) -> str:
    """The log line that says an order acts: ``Anna's standing order: KP passes``."""
    name = state.player(order.player).name
    who = "" if action.entity == order.player else f"{action.entity} "
    return f"{name}'s standing order: {who}{_did(order, action)}"


def _did(order: Order, action: Action) -> str:
    if isinstance(action, RunBest):
        return "runs its best routes"
    if isinstance(action, Dividend):
        return {"payout": "pays out", "half": "pays half"}.get(action.choice, "withholds")
    if isinstance(action, Pass):
        return "passes its track step" if order.order == "pass_track" else "passes"
    return f"buys {order.company}"


def carried_out(state: GameState, order: Order, action: Action | None) -> None:
    """After the engine tried ``order``: drop it if it could not act (the player is
    then asked), or once a buy order has reached its holding."""
    if action is None:
        _drop(state, order, "cancelled: it cannot be carried out now")
        return
    _take_position(state, order.player)  # what their own order did ends none of their orders
    if order.order == "buy" and state.player(order.player).percent_of(order.company) >= order.percent:
        _drop(state, order, f"done ({order.percent}% of {order.company})")


def place(state: GameState) -> tuple[str, str]:
    """Where a move is made: the round's kind and, in an operating round, the step."""
    rnd = state.round
    if rnd is None:
        return "", ""
    return rnd.kind, rnd.step if isinstance(rnd, OperatingRound) else ""


def _serves(order: Order, where: tuple[str, str]) -> bool:
    """Whether ``order`` acts where a move was made (its round; for an operating-round
    order, its step)."""
    kind, step = where
    return ROUND_OF[order.order] == kind and STEP_OF.get(order.order, step) == step


def after_move(state: GameState, action: Action, where: tuple[str, str], key: str, controller: str | None) -> None:
    """A player's own move (``controller``, made ``where``: :func:`place`) cancels their
    orders that act there; another's conversion or merge cancels merger passes; an order
    for "this round" ends with its round (``key``: the round the move was made in)."""
    if isinstance(action, StandingOrder):
        return
    for order in list(state.orders):
        if order.player == controller and _serves(order, where):
            _drop(state, order, "cancelled by their own move")
        elif order.order == "pass_merger" and isinstance(action, (Convert, Merge)) and controller != order.player:
            _drop(state, order, "cancelled: another player " + ("converts" if isinstance(action, Convert)
                                                                  else "merges"))
        elif (sold := _sold_in_their_company(state, order, action, controller)) is not None:
            _drop(state, order, f"cancelled: {state.player(controller or '').name} sells {sold}, which they hold")
    if controller is not None and any(p.id == controller for p in state.players):
        _take_position(state, controller)  # their own move: they are at the table
    round_ended(state, key)


def _take_position(state: GameState, player: str) -> None:
    """The player's position as it is now becomes the one their orders watch."""
    for order in state.orders:
        if order.player == player:
            order.presiding, order.exposed = presidencies(state, player), dump_targets(state, player)


def _sold_in_their_company(state: GameState, order: Order, action: Action, controller: str | None) -> str | None:
    """The company of another player's sale that the order's player holds (#7619), if
    the sale did not change whom they preside over (then the position change says so)."""
    if order.order not in STOCK_ORDERS or not isinstance(action, SellShares) or controller == order.player:
        return None
    held = state.player(order.player).percent_of(action.company) > 0
    return action.company if held and presidencies(state, order.player) == order.presiding else None


def round_ended(state: GameState, key: str) -> None:
    """Drop the orders for "this round" once the round ``key`` is over."""
    if round_key(state) == key:
        return
    for order in list(state.orders):
        if order.this_round and order.round == key:
            _drop(state, order, "over with the round")


def _expire(ctx: Context, state: GameState) -> None:
    names = [p.name for p in ctx.board.phases]
    for order in list(state.orders):
        if order.until_phase and names.index(state.phase) >= names.index(order.until_phase):
            _drop(state, order, f"over: phase {state.phase}")
        elif (change := _position_change(state, order)) is not None:
            _drop(state, order, f"over: {change}")


def _position_change(state: GameState, order: Order) -> str | None:
    """``they now preside over GT; they no longer preside over KP``, ``a sale by NYC's
    president would now land on them``: why a changed position ends an order (None:
    no change that does)."""
    now = presidencies(state, order.player)
    gained = [c for c in now if c not in order.presiding]
    lost = [c for c in order.presiding if c not in now]
    parts = ([f"they now preside over {', '.join(gained)}"] if gained else []) + \
        ([f"they no longer preside over {', '.join(lost)}"] if lost else [])
    if order.order in STOCK_ORDERS:
        exposed = dump_targets(state, order.player)
        newly = [c for c in exposed if c not in order.exposed]
        parts += [f"a sale by {c}'s president would now land on them" for c in newly]
        order.exposed = tuple(c for c in order.exposed if c in exposed)  # a lost exposure counts anew
    return "; ".join(parts) or None


def _drop(state: GameState, order: Order, why: str) -> None:
    state.orders.remove(order)
    state.log.append(f"{state.player(order.player).name}'s standing order to {describe_order(order)} is {why}")


def round_key(state: GameState) -> str:
    """The round under way: ``Stock 4``, ``Merger 3.1``, ``Operating 3.2``."""
    rnd = state.round
    if rnd is None or state.finished:
        return "over"
    within = rnd.kind in ("Operating", "Merger")
    number = f"{state.round_number}.{rnd.operating_rounds_done()}" if within else str(state.round_number)
    return f"{rnd.kind} {number}"
