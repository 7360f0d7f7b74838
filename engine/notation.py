"""The notation: actions as 18xx players type them, read and written in one place.

``parse(game, text)`` reads a command such as ``lay H10 58 1`` against the game as it
is now, filling in what the player left out (the acting company, a token's city, a
tile's rotation, the train meant by ``train 3``); ``command(game, action)`` writes an
action as the command that reads back to it (``parse(game, command(game, a)) == a``
for every action ``legal_actions`` offers); ``hints(game)`` folds the legal actions
into short command words. Nothing here decides legality: the rounds do, when the
action is applied. Routes are read and written by :mod:`engine.route_notation`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from . import trains
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
    EndGame,
    LayTile,
    Merge,
    Par,
    Pass,
    PlaceToken,
    RedeemShares,
    RemoveToken,
    RunBest,
    RunRoutes,
    SellShares,
    StandingOrder,
)
from .board import Board, TileDef
from .errors import AmbiguousAction, IllegalAction, InvalidAction
from .operating import OperatingRound
from .route_notation import parse_routes, route_stops
from .routes import RouteResult
from .state import Train
from .stock_round import StockRound
from .view import turn_view
from .words import counted

if TYPE_CHECKING:
    from .game import Game

POOL_WORDS = ("pool", "market", "bank")
ROTATIONS = range(6)


class Unreadable(InvalidAction):
    """The words do not fit the command's shape (too few, too many, out of place);
    ``verb`` is the command, so a caller can show how it is written."""

    def __init__(self, verb: str) -> None:
        super().__init__(f"`{verb}` is not written that way")
        self.verb = verb


def parse(game: Game, text: str) -> Action:
    """The action ``text`` stands for, taken by whoever acts now. Raises
    :class:`InvalidAction` for words that cannot be read, :class:`AmbiguousAction`
    when they could mean more than one action, :class:`IllegalAction` when nothing
    they could mean is open now."""
    return parse_priced(game, text)[0]


def parse_priced(game: Game, text: str) -> tuple[Action, tuple[RouteResult, ...]]:
    """:func:`parse`, with a run's routes as they were priced while reading them (so
    that what they earn is not worked out twice)."""
    actor = game.actor()
    if actor is None:
        raise IllegalAction("The game is over.")
    verb, _, rest = text.strip().partition(" ")
    verb = verb.lower()
    if verb == "run":
        return _run(game, actor, rest)
    reader = READERS.get(verb)
    if reader is None:
        raise InvalidAction(f"`{shown(verb)}` is not a move")
    try:
        return reader(game, actor, rest.split()), ()
    except IndexError:
        raise Unreadable(verb) from None


def shown(word: str, limit: int = 24) -> str:
    """A player's word quoted back, cut short if long."""
    return word if len(word) <= limit else word[: limit - 1] + "…"


def _number(word: str, what: str) -> int:
    digits = word.lstrip("$₽")
    if not digits.isdigit():
        raise InvalidAction(f"{what} must be a whole number, not `{shown(word)}`")
    if len(digits.lstrip("0")) > 9:
        raise InvalidAction(f"{what} of {len(digits)} digits is too large, `{shown(word)}`")
    return int(digits)


def _sym(word: str) -> str:
    return word.upper()


def _words(verb: str, args: list[str], most: int) -> list[str]:
    if len(args) > most:
        raise Unreadable(verb)
    return args


def _bid(game: Game, actor: str, args: list[str]) -> Action:
    from .view import turn_view

    if len(_words("bid", args, 2)) == 1:
        target = turn_view(game).up_for_auction
        if target is None:
            raise IllegalAction("Nothing is up for auction: write `bid MINOR PRICE` or `auction MINOR PRICE`.")
        return Bid(actor, target, _number(args[0], "the bid"))
    return Bid(actor, _sym(args[0]), _number(args[1], "the bid"))


def _auction(game: Game, actor: str, args: list[str]) -> Action:
    price = _number(args[1], "the opening bid") if len(_words("auction", args, 2)) > 1 else 100
    return Bid(actor, _sym(args[0]), price)


def _buy(game: Game, actor: str, args: list[str]) -> Action:
    if len(args) > 1 and (len(args) > 2 or args[1].lower() not in POOL_WORDS):
        raise InvalidAction(f"`buy` buys one share at a time: `buy {_sym(args[0])}` from the treasury or "
                            f"`buy {_sym(args[0])} pool`")
    return BuyShare(actor, _sym(args[0]), "pool" if len(args) > 1 else "treasury")


def _sell(game: Game, actor: str, args: list[str]) -> Action:
    count = _number(args[1], "the number of shares") if len(_words("sell", args, 2)) > 1 else 1
    return SellShares(actor, _sym(args[0]), count)


def _par(game: Game, actor: str, args: list[str]) -> Action:
    _words("par", args, 2)
    return Par(actor, _sym(args[0]), _number(args[1], "the price"))


def _token(game: Game, actor: str, args: list[str]) -> Action:
    hex_id = _sym(args[0])
    if len(_words("token", args, 2)) > 1:
        return PlaceToken(actor, hex_id, _number(args[1], "the city"))
    open_here = [c for h, c in _token_options(game) if h == hex_id]
    if len(open_here) > 1:
        raise AmbiguousAction(f"{hex_id} has cities {', '.join(map(str, open_here))} open: say which, e.g. "
                              f"`token {hex_id} {open_here[-1]}`")
    if open_here:
        return PlaceToken(actor, hex_id, open_here[0])
    cities = _cities(game, hex_id)
    return PlaceToken(actor, hex_id, cities[0] if cities else 0)  # the rounds say why not


def _token_options(game: Game) -> list[tuple[str, int]]:
    """The cities the actor may token now, if it is placing a token."""
    from .legal import legal_actions
    from .view import turn_view

    if not turn_view(game).placing_token:
        return []
    return [(a.hex, a.city) for a in legal_actions(game) if isinstance(a, PlaceToken)]


def _cities(game: Game, hex_id: str) -> list[int]:
    if hex_id not in game.ctx.board.hexes:
        raise InvalidAction(f"There is no hex {shown(hex_id)} on the map.")
    tile, _ = game.ctx.tile_at(game.state, hex_id)
    return [i for i, node in enumerate(tile.nodes) if node.kind == "city"]


def _loan_word(args: list[str]) -> tuple[bool, list[str]]:
    """Whether the words end in ``loan`` (a lay's consent to borrow; the `(loan)` a menu
    shows after a train), and the words without it."""
    loan = bool(args) and args[-1].lower() in ("loan", "loans")
    return loan, args[:-1] if loan else args


def _lay(game: Game, actor: str, args: list[str]) -> Action:
    loan, args = _loan_word(args)
    args = _words("lay", args, 3)
    hex_id, tile = _sym(args[0]), _tile_name(game, args[1])
    if len(args) > 2:
        rotation = _number(args[2], "the rotation")
        if rotation not in ROTATIONS:
            raise InvalidAction(f"A rotation is 0 to 5, not {rotation}: `tiles {hex_id}` shows the ones that fit")
        action = LayTile(actor, hex_id, tile, rotation)
    else:
        fits = distinct_rotations(game.ctx.board.tiles[tile], rotations(game, actor, hex_id, tile))
        if len(fits) > 1:
            raise AmbiguousAction(f"Tile {tile} fits {hex_id} in rotations {', '.join(map(str, fits))}: say "
                                  f"which, e.g. `lay {hex_id} {tile} {fits[0]}` (`tiles {hex_id}` shows them)")
        action = LayTile(actor, hex_id, tile, fits[0] if fits else 0)
    short = loan_needed(game, action)
    if short and not loan:
        raise IllegalAction(f"{short}; add `loan` to borrow: `{command(game, action)}`")
    return action


def loan_needed(game: Game, action: LayTile) -> str:
    """What a lay costs, if the company must borrow to pay for it (8.2: a loan for track
    is the president's choice), else ''."""
    from .lay import check_lay
    from .loans import INTEREST, LOAN

    company, rnd = game.state.companies.get(action.entity), game.state.round
    if company is None or game.state.finished or not isinstance(rnd, OperatingRound) or rnd.step != "track":
        return ""
    try:
        cost = check_lay(game.ctx, game.state, rnd, company, action)
    except IllegalAction:
        return ""
    if cost <= company.cash:
        return ""
    loans = -(-(cost - company.cash) // (LOAN - INTEREST))
    return (f"This lay costs {cost} and {company.sym} has {company.cash}: it would take {counted(loans, 'loan')} "
            f"of {LOAN} ({INTEREST} interest each round)")


def distinct_rotations(tile: TileDef, fits: list[int]) -> list[int]:
    """The rotations that lay different track (a straight at 0 and 3 is the same lay;
    so is Montreal's X2 at 0 and 3, whose three cities swap places but not track)."""
    seen: set[tuple[frozenset[frozenset[int]], frozenset[tuple[object, ...]]]] = set()
    result = []
    for rotation in fits:
        track = _laid(tile, rotation)
        if track not in seen:
            seen.add(track)
            result.append(rotation)
    return result


def _laid(tile: TileDef, rotation: int) -> tuple[frozenset[frozenset[int]], frozenset[tuple[object, ...]]]:
    """The track ``tile`` lays at ``rotation``: its edges joined, and its stops with their exits."""
    nodes = frozenset(
        (node.kind, node.revenue, node.slots, exits)
        for node, exits in zip(tile.nodes, tile.node_exits(rotation))
    )
    return tile.edge_pairs(rotation), nodes


def as_listed(game: Game, action: Action) -> Action:
    """``action`` as `tiles` lists it: a lay at the first rotation that lays the same
    track (:func:`distinct_rotations`, a straight at 3 written at 0); any other as it is."""
    if not isinstance(action, LayTile):
        return action
    tile = game.ctx.board.tiles[action.tile]
    laid = _laid(tile, action.rotation)
    return replace(action, rotation=next(r for r in ROTATIONS if _laid(tile, r) == laid))


def _tile_name(game: Game, word: str) -> str:
    names = {name.upper(): name for name in game.ctx.board.tiles}
    if word.upper() not in names:
        raise InvalidAction(f"There is no tile {shown(word)}.")
    return names[word.upper()]


def rotations(game: Game, actor: str, hex_id: str, tile: str) -> list[int]:
    """The rotations in which the acting company may lay ``tile`` on ``hex_id`` now."""
    from .lay import check_lay
    from .view import turn_view

    state = game.state
    rnd = state.round
    if not turn_view(game).laying_track or actor not in state.companies or not isinstance(rnd, OperatingRound):
        return []
    fits = []
    for rotation in ROTATIONS:
        try:
            check_lay(game.ctx, state, rnd, state.companies[actor], LayTile(actor, hex_id, tile, rotation))
        except IllegalAction:
            continue
        fits.append(rotation)
    return fits


def _run(game: Game, actor: str, rest: str) -> tuple[RunRoutes, tuple[RouteResult, ...]]:
    """``run`` or ``run best``: the best routes, named (as the players' run is stored);
    else the routes written."""
    from .route_search import best_routes
    from .routes import to_route

    company = game.state.companies.get(actor)
    if company is None:
        raise IllegalAction(f"{actor} has no trains to run.")
    if rest.strip().lower() in ("", "best"):
        results = best_routes(game.ctx, game.state, company)
        return RunRoutes(actor, tuple(to_route(r) for r in results)), tuple(results)
    action, priced = parse_routes(game.ctx, game.state, company, rest)
    return action, tuple(priced)


def _train(game: Game, actor: str, args: list[str]) -> Action:
    _, args = _loan_word(args)  # `train 2 loan`, as a menu shows it: the loan is taken anyway (8.11.3)
    words = [w for w in _words("train", args, 5) if w.lower() != "for"]
    lowered = [w.lower() for w in words]
    if "from" in lowered:
        at = lowered.index("from")
        if len(words) > at + 3 or at != 1:
            raise Unreadable("train")
        seller = _sym(words[at + 1])
        company = game.state.companies.get(seller)
        if lowered[at + 1] == trains.LEFT_BEHIND:  # RN 37: a nationalized major's, on 18xx.games
            seller, held = trains.LEFT_BEHIND, game.state.depot.left_behind
        elif company is None:
            raise InvalidAction(f"There is no company {shown(seller)}.")
        else:
            held = company.trains
        train = _pick(words[0], held, f"{seller} has no train {shown(words[0])}")
        if len(words) <= at + 2:
            raise InvalidAction(f"Say the price: `train {train.id} from {seller} PRICE` (at least 1).")
        return BuyTrain(actor, train.id, _number(words[at + 2], "the price"))
    if "trade" in lowered:
        return _trade_in(game, actor, words)
    if len(words) > 2:
        raise Unreadable("train")
    ctx, state = game.ctx, game.state
    pool = len(words) > 1 and lowered[1] in POOL_WORDS
    offered = trains.pool_trains(state) if pool else trains.yard_trains(ctx, state) + trains.pool_trains(state)
    train = _pick(words[0], offered, f"no {shown(words[0])}-train is for sale {'in the pool' if pool else 'now'}")
    price = ctx.board.train(train.name).price
    if len(words) > 1 and not pool:
        price = _number(words[1], "the price")
    return BuyTrain(actor, train.id, price)


def _trade_in(game: Game, actor: str, words: list[str]) -> Action:
    """``train 8 trade 5-0``: 1867, phase 8 — buy with one of the company's trains
    handed in for half its face value (8.11)."""
    if [w.lower() for w in words].index("trade") != 1 or len(words) != 3:
        raise InvalidAction("Say which train you hand in: `train 8 trade 5-0`.")
    company = game.state.companies.get(actor)
    if company is None:
        raise IllegalAction("Only a company buys trains.")
    handed = _pick(words[2], company.trains, f"{actor} has no train {shown(words[2])}")
    offers = trains.trade_in_prices(game.ctx, game.state, company)
    for train, own, price in offers:
        if own.id == handed.id and words[0].upper() in (train.name.upper(), train.id.upper()):
            return BuyTrain(actor, train.id, price, own.id)
    allowed = ", ".join(sorted({f"`train {t.name} trade {o.id}` ({p})" for t, o, p in offers}))
    open_now = f"Open now: {allowed}" if allowed else "None is open now (phase 8, majors)."
    raise IllegalAction(f"No trade-in like that. {open_now}")


def _pick(word: str, candidates: list[Train], missing: str) -> Train:
    """The train a player names by id (``3-1``) or by type (``3``: the first one)."""
    word = word.upper()
    for train in candidates:
        if train.id.upper() == word:
            return train
    for train in candidates:
        if train.name.upper() == word:
            return train
    raise InvalidAction(missing)


def _discard(game: Game, actor: str, args: list[str]) -> Action:
    company = game.state.companies.get(actor)
    owned = company.trains if company else []
    word = _words("discard", args, 1)[0]
    return DiscardTrain(actor, _pick(word, owned, f"{actor} has no train {shown(word)}").id)


def _private(game: Game, actor: str, args: list[str]) -> Action:
    if len(_words("private", args, 2)) < 2:
        raise InvalidAction("Say the price: `private PRIVATE PRICE` (1 to its face value).")
    return BuyPrivate(actor, _sym(args[0]), _number(args[1], "the price"))


def _redeem(game: Game, actor: str, args: list[str]) -> Action:
    return RedeemShares(actor, _number(args[0], "the count") if _words("redeem", args, 1) else 1)


def _remove(game: Game, actor: str, args: list[str]) -> Action:
    hex_id = _sym(args[0])
    if len(_words("remove", args, 2)) > 1:
        return RemoveToken(actor, hex_id, _number(args[1], "the city"))
    company = game.state.companies.get(actor)
    cities = [t.city for t in (company.placed_tokens if company else []) if t.hex == hex_id]
    if len(cities) > 1:
        raise AmbiguousAction(f"{actor} has tokens in cities {', '.join(map(str, cities))} of {hex_id}: say which")
    return RemoveToken(actor, hex_id, cities[0] if cities and cities[0] is not None else 0)


def _keep(game: Game, actor: str, args: list[str]) -> Action:
    if not game.state.trainless_majors:
        raise IllegalAction("`keep` answers whether to nationalize a trainless major, and nothing asks that now")
    return Pass(actor)


def _merge(game: Game, actor: str, args: list[str]) -> Action:
    return Merge(actor, _sym(_words("merge", args, 1)[0]))


def _pass(game: Game, actor: str, args: list[str]) -> Action:
    """``pass``, or ``pass COMPANY`` naming the company called now: a pass so addressed
    is never taken for one typed for a turn that has just ended."""
    if not args:
        return Pass(actor)
    named = args[0].upper()
    if len(args) == 1 and named == actor.upper():
        return Pass(actor)
    if len(args) == 1 and named in {s.upper() for s in game.state.companies}:
        raise IllegalAction(f"It is not {named}'s turn: now {actor} {turn_view(game).doing}; `pass` passes {actor}.")
    raise InvalidAction(f"`pass` takes no `{shown(' '.join(args))}`: write it as `pass`. `pass COMPANY` names the "
                        "company called now.")


def addressed(action: Pass) -> str:
    """``pass COMPANY``: the pass written with the company it is for (read by :func:`parse`)."""
    return f"pass {action.entity}"


def _bare(make: Callable[[str], Action]) -> Callable[[Game, str, list[str]], Action]:
    """A reader for a command of one word."""
    return lambda game, actor, args: make(actor)


READERS: dict[str, Callable[[Game, str, list[str]], Action]] = {
    "bid": _bid,
    "auction": _auction,
    "pass": _pass,
    "keep": _keep,
    "buy": _buy,
    "sell": _sell,
    "par": _par,
    "token": _token,
    "home": _token,
    "lay": _lay,
    "payout": _bare(lambda actor: Dividend(actor, "payout")),
    "half": _bare(lambda actor: Dividend(actor, "half")),
    "withhold": _bare(lambda actor: Dividend(actor, "withhold")),
    "train": _train,
    "discard": _discard,
    "private": _private,
    "redeem": _redeem,
    "convert": _bare(Convert),
    "merge": _merge,
    "into": _merge,
    "remove": _remove,
    "nationalize": _bare(lambda actor: Choose(actor, "nationalize")),
}
"""The action commands and how each is read (``run`` is read by :mod:`engine.route_notation`)."""


def command(game: Game | None, action: Action, *, board: Board | None = None) -> str:
    """The command a player types for ``action`` in ``game`` as it is before it. With no
    game (a stored action shown on its own), the form that names everything; the game's
    ``board`` tells which word the player typed where the verb depends on the company
    (`into MAJOR`, `merge MINOR`)."""
    if game is not None:
        typed = _in_position(game, action)
        if typed is not None:
            return typed
    match action:
        case Bid(target=target, price=price):
            return f"bid {target} {price}"
        case BuyShare(company=company, source=source):
            return f"buy {company}" + (" pool" if source == "pool" else "")
        case SellShares(company=company, count=count):
            return f"sell {company} {count}"
        case Par(company=company, price=price):
            return f"par {company} {price}"
        case PlaceToken(hex=hex_id, city=city):
            return f"token {hex_id} {city}"
        case LayTile(hex=hex_id, tile=tile, rotation=rotation):
            return f"lay {hex_id} {tile} {rotation}"
        case RunBest():
            return "run best"
        case RunRoutes(routes=routes, revenue=revenue):
            stops = "; ".join(f"{r.train}: {'-'.join(route_stops(r.legs))}" for r in routes if r.legs)
            return " ".join(w for w in ("run", stops, "" if revenue is None else f"= {revenue}") if w)
        case Dividend(choice=choice):
            return choice
        case BuyTrain(train=train, price=price, exchange=exchange):
            return f"train {train} trade {exchange}" if exchange else f"train {train} {price}"
        case DiscardTrain(train=train):
            return f"discard {train}"
        case BuyPrivate(private=private, price=price):
            return f"private {private} {price}"
        case RedeemShares(count=count):
            return f"redeem {count}"
        case Merge(target=target):
            return f"into {target}" if board is not None and _is_major(board, target) else f"merge {target}"
        case RemoveToken(hex=hex_id, city=city):
            return f"remove {hex_id} {city}"
        case Choose():
            return "nationalize"
        case EndGame():
            return "end"
        case StandingOrder():
            return order_command(action)
    return action.kind


ORDER_USAGE = ("`auto pass merger [this round | until phase N]`, `auto pass stock [this round]`, "
               "`auto buy MAJOR until 40%`, `auto run`, `auto pay payout|half|withhold`, `auto pass track` "
               "or `auto off`")


def parse_order(player: str, rest: str) -> StandingOrder:
    """The standing order ``auto REST`` typed by ``player`` (any seated player, at any
    time, so not read against whoever acts now; :mod:`engine.orders` keeps them)."""
    words = rest.lower().replace("%", "").split()
    if words == ["off"]:
        return StandingOrder(player, "off")
    if words[:2] in (["pass", "merger"], ["pass", "mergers"]):
        return StandingOrder(player, "pass_merger", until=_until(words[2:], phases=True))
    if words[:2] == ["pass", "stock"]:
        return StandingOrder(player, "pass_stock", until=_until(words[2:], phases=False))
    if words in (["run"], ["run", "best"]):
        return StandingOrder(player, "run")
    if words == ["pass", "track"]:
        return StandingOrder(player, "pass_track")
    if len(words) == 2 and words[0] == "pay" and words[1] in ("payout", "half", "withhold"):
        return StandingOrder(player, "pay", choice=words[1])
    if len(words) == 4 and words[0] == "buy" and words[2] == "until" and words[3].isdigit() and len(words[3]) < 4:
        return StandingOrder(player, "buy", company=words[1].upper(), percent=int(words[3]))
    raise InvalidAction(f"Write a standing order as {ORDER_USAGE}.")


def _until(words: list[str], *, phases: bool) -> str:
    if not words:
        return ""
    if words == ["this", "round"]:
        return "round"
    if phases and len(words) == 3 and words[:2] == ["until", "phase"]:
        return f"phase {words[2]}"
    raise InvalidAction(f"Write a standing order as {ORDER_USAGE}.")


def _is_major(board: Board, sym: str) -> bool:
    corporation = board.corporations.get(sym)
    return corporation is not None and corporation.type == "major"


def order_command(action: StandingOrder) -> str:
    """The standing order as typed: ``auto pay half``, ``auto pass stock this round``."""
    if action.order == "off":
        return "auto off"
    if action.order == "buy":
        return f"auto buy {action.company} until {action.percent}%"
    if action.order in ("run", "pass_track", "pay"):
        return {"run": "auto run", "pass_track": "auto pass track"}.get(action.order, f"auto pay {action.choice}")
    what = "pass merger" if action.order == "pass_merger" else "pass stock"
    until = {"": "", "round": " this round"}.get(action.until, f" until {action.until}")
    return f"auto {what}{until}"


def _nominating(game: Game) -> bool:
    """A bid now puts a minor up for auction (7.2), no auction being under way."""
    rnd = game.state.round
    return not game.state.finished and isinstance(rnd, StockRound) and rnd.auction is None


def _in_position(game: Game, action: Action) -> str | None:
    """The shorter command the position allows, where it differs from the full form."""
    state = game.state
    if isinstance(action, Bid):
        nominating = _nominating(game)
        return f"auction {action.target} {action.price}" if nominating else None
    if isinstance(action, Pass) and state.trainless_majors:
        return "keep"
    if isinstance(action, Merge) and action.target in state.companies:
        return None if state.companies[action.target].is_minor else f"into {action.target}"
    if isinstance(action, PlaceToken) and action.hex in game.ctx.board.hexes:
        return f"token {action.hex}" if len(_cities(game, action.hex)) == 1 and action.city == 0 else None
    if isinstance(action, LayTile):
        typed = f"lay {action.hex} {action.tile} {action.rotation}"
        return typed + " loan" if loan_needed(game, action) else typed
    if isinstance(action, RunRoutes) and not isinstance(action, RunBest):
        return _run_command(game, action)
    if isinstance(action, BuyTrain):
        return _train_command(game, action)
    return None


def _run_command(game: Game, action: RunRoutes) -> str:
    """The routes by their stops; where the stops alone would read as other track, by
    every hex the trains pass."""
    short = command(None, action)
    try:
        if parse(game, short) == action:
            return short
    except (InvalidAction, IllegalAction):
        return short
    chains = "; ".join(f"{r.train}: {'-'.join(_chain(r.legs))}" for r in action.routes if r.legs)
    claim = "" if action.revenue is None else f" = {action.revenue}"
    return f"run {chains}{claim}"


def _chain(legs: tuple[tuple[str, ...], ...]) -> list[str]:
    """Every hex of a route in order, from its legs (each written either way)."""
    stops = route_stops(legs)
    hexes = [stops[0]]
    for leg, stop in zip(legs, stops[1:], strict=True):
        walked = leg if leg[-1] == stop else leg[::-1]
        hexes += list(walked[1:])
    return hexes


def _train_command(game: Game, action: BuyTrain) -> str | None:
    try:
        source, train = trains.find_train(game.ctx, game.state, action.train)
    except IllegalAction:
        return None
    name = train.name
    if action.exchange:
        return f"train {name} trade {action.exchange}"
    if source not in ("yard", "pool"):
        return f"train {train.id} from {source} {action.price}"
    pool = source == "pool"
    offered = trains.pool_trains(game.state) if pool else trains.yard_trains(game.ctx, game.state)
    if not pool:
        offered += trains.pool_trains(game.state)
    first = next((t for t in offered if t.name == name), None)
    word = name if first is not None and first.id == train.id else train.id
    listed = game.ctx.board.train(name).price
    return f"train {word}" + (" pool" if pool else "") + ("" if action.price == listed or pool else f" {action.price}")


def hints(game: Game) -> list[str]:
    """The legal actions as the short command words a player types, alike ones
    folded together (``sell NW 1..3``, ``auction RO|KB 100+``)."""
    return [hint for hint, _ in hinted_actions(game)]


def hinted_actions(game: Game) -> list[tuple[str, list[Action]]]:
    """Each hint of :func:`hints` with the legal actions it stands for."""
    from .legal import legal_actions

    folds: dict[str, list[Action]] = {}
    for action in legal_actions(game):
        folds.setdefault(_fold_key(game, action), []).append(action)
    return [(_hint(game, key, actions), actions) for key, actions in folds.items()]


def _fold_key(game: Game, action: Action) -> str:
    """Actions told as one hint share a key."""
    if isinstance(action, SellShares):
        return f"sell {action.company}"
    if isinstance(action, Bid):
        nominating = _nominating(game)
        return "auction" if nominating else f"bid {action.target}"
    if isinstance(action, Par):
        return f"par {action.company}"
    if isinstance(action, (LayTile, RedeemShares)):
        return action.kind
    return repr(action)


def _hint(game: Game, key: str, actions: list[Action]) -> str:
    first = actions[0]
    if isinstance(first, SellShares):
        return f"sell {first.company} 1..{max(a.count for a in actions)}"  # type: ignore[attr-defined]
    if isinstance(first, Bid):
        if key == "auction":
            return "auction " + "|".join(a.target for a in actions) + f" {first.price}+"  # type: ignore[attr-defined]
        if not game.state.finished and game.round.bids_up_to_cash:  # a private or a bundle (5.1, 15.1)
            cash = game.state.player(first.entity).cash
            return f"bid {first.target} {first.price}..{cash - cash % 5}"
        return f"bid {first.target} {first.price}+"
    if isinstance(first, Par):
        prices = [a.price for a in actions]  # type: ignore[attr-defined]
        return f"par {first.company} {min(prices)}..{max(prices)}"
    if isinstance(first, LayTile):
        return "lay HEX TILE ROTATION"
    if isinstance(first, RedeemShares):
        return f"redeem 1..{max(a.count for a in actions)}"  # type: ignore[attr-defined]
    if isinstance(first, RunRoutes):
        return "run"
    if isinstance(first, BuyPrivate):
        return f"private {first.private} 1..{first.price}"
    typed = command(game, first)
    if isinstance(first, BuyTrain) and " from " in typed:
        return typed.rpartition(" ")[0] + " PRICE"
    return typed
