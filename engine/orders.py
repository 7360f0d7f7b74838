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

A player's own move in a round an order covers cancels their orders for it.
"""

from __future__ import annotations

from .actions import Action, BuyShare, Convert, Merge, Pass, StandingOrder
from .errors import IllegalAction
from .merger import MergerRound
from .state import Context, GameState, Order
from .stock_round import StockRound

MAX_IN_A_ROW = 1000
"""Orders carried out after one action, at most (a guard: every one moves the game on)."""

ROUND_OF = {"pass_merger": "Merger", "pass_stock": "Stock", "buy": "Stock"}
"""The round an order acts in."""


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
        raise IllegalAction(f"there is no standing order {action.order!r}: pass_merger, pass_stock, buy or off")
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
    order = Order(player.id, action.order, action.company, action.percent, until_phase,
                  action.until == "round", round_key(state) if action.until == "round" and
                  state.round is not None and state.round.kind == ROUND_OF[action.order] else "")
    state.orders = [o for o in state.orders if not (o.player == player.id and o.order == order.order)] + [order]
    state.log.append(f"{player.name}'s standing order: {describe_order(order)}")


def _check_buy_order(ctx: Context, state: GameState, action: StandingOrder) -> None:
    company = state.companies.get(action.company)
    if company is None or not company.is_major:
        raise IllegalAction(f"{action.company or 'that'} is not a major company")
    if action.percent not in range(10, 101, 10):
        raise IllegalAction("name the holding to reach in tens of percent: `auto buy GTR until 40%`")
    if state.player(action.entity).percent_of(company.sym) >= action.percent:
        raise IllegalAction(f"{state.player(action.entity).name} already holds "
                            f"{state.player(action.entity).percent_of(company.sym)}% of {company.sym}")


def describe_order(order: Order) -> str:
    """``pass in merger rounds until phase 5``, ``buy GTR until 40%``..."""
    what = {"pass_merger": "pass in merger rounds", "pass_stock": "pass in stock rounds"}.get(order.order)
    text = what or f"buy {order.company} until {order.percent}%"
    if order.this_round:
        return text + (f" ({order.round})" if order.round else " (the next one only)")
    return text + (f" until phase {order.until_phase}" if order.until_phase else "")


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
        tries = _tries(state, order, actor)
        if tries:
            return order, tries
    return None


def _tries(state: GameState, order: Order, actor: str) -> list[Action]:
    rnd = state.round
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


def announcement(state: GameState, order: Order, action: Action) -> str:
    """The log line that says an order acts: ``Anna's standing order: KP passes``."""
    name = state.player(order.player).name
    who = "" if action.entity == order.player else f"{action.entity} "
    return f"{name}'s standing order: {who}" + ("passes" if isinstance(action, Pass) else f"buys {order.company}")


def carried_out(state: GameState, order: Order, action: Action | None) -> None:
    """After the engine tried ``order``: drop it if it could not act (the player is
    then asked), or once a buy order has reached its holding."""
    if action is None:
        _drop(state, order, "cancelled: it cannot be carried out now")
    elif order.order == "buy" and state.player(order.player).percent_of(order.company) >= order.percent:
        _drop(state, order, f"done ({order.percent}% of {order.company})")


def after_move(state: GameState, action: Action, kind: str, key: str, controller: str | None) -> None:
    """A player's own move (``controller``, in a round of ``kind``) cancels their orders
    for that round; another's conversion or merge cancels merger passes; an order for
    "this round" ends with its round (``key``: the round the move was made in)."""
    if isinstance(action, StandingOrder):
        return
    for order in list(state.orders):
        if order.player == controller and ROUND_OF[order.order] == kind:
            _drop(state, order, "cancelled by their own move")
        elif order.order == "pass_merger" and isinstance(action, (Convert, Merge)) and controller != order.player:
            _drop(state, order, "cancelled: another player " + ("converts" if isinstance(action, Convert)
                                                                  else "merges"))
    round_ended(state, key)


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
