"""Commands as 18xx players type them: the verbs, and text to engine actions.

``parse_action`` reads an action command against the game as it is now, filling in
what the player left out (the acting company, a token's city, a tile's rotation, the
train meant by ``train 3``); ``action_text`` writes an action back as a command.
Nothing here decides legality: the engine does, when the action is applied.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from engine import trains
from engine.actions import (
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
from engine.board import TileDef
from engine.errors import IllegalAction
from engine.game import Game
from engine.legal import legal_actions
from engine.routes import RouteResult
from engine.state import Train
from engine.view import turn_view

from .errors import Refusal
from .orders_text import order_command
from .routes_text import parse_routes, routes_detail


@dataclass(frozen=True)
class Verb:
    """A command word: how it is written and what it does."""

    name: str
    usage: str
    summary: str
    kind: str  # "setup", "action", "turn", "info" or "admin"


VERBS: dict[str, Verb] = {v.name: v for v in (
    Verb("new", "new [1861|1867] [grid|column] [OPTION ...]",
         "Set up a game of 1861 (or 1867) here, with the rulebook's options; you become its commissioner",
         "setup"),
    Verb("options", "options [1861|1867]", "The rulebook's optional rules (§14–16), to choose with `new`", "info"),
    Verb("join", "join", "Take a seat in the game being set up", "setup"),
    Verb("leave", "leave", "Give up your seat before the game starts", "setup"),
    Verb("start", "start", "Commissioner: start; seats are fixed and the first player drawn", "setup"),
    Verb("bid", "bid [PRIVATE|MINOR] PRICE", "Bid on the private or minor up for auction", "action"),
    Verb("auction", "auction MINOR [PRICE]", "Put a minor up for auction, opening at PRICE (100+)", "action"),
    Verb("pass", "pass", "Pass: in an auction, a stock turn or the current operating step "
         "(`pass KP` names the company it is for)", "action"),
    Verb("buy", "buy MAJOR [pool]", "Buy a 10% share from the treasury (or the bank pool)", "action"),
    Verb("sell", "sell MAJOR [COUNT]", "Sell shares of a major to the bank pool", "action"),
    Verb("par", "par MAJOR PRICE", "Start a major (phase 4+), then place its home token", "action"),
    Verb("token", "token HEX [CITY]", "Place a station token (CITY only if the hex has several)", "action"),
    Verb("home", "home HEX [CITY]", "Place a new major's home token (same as token)", "action"),
    Verb("lay", "lay HEX TILE [ROTATION] [loan]", "Lay or upgrade a tile; ROTATION 0-5, optional if one fits; "
         "`loan` agrees to borrow for it", "action"),
    Verb("tiles", "tiles [HEX]", "Where the company acting may lay track: hexes, tiles, rotations, costs", "info"),
    Verb("run", "run [TRAIN: HEX-HEX-...; ...] [= REVENUE]", "Run trains: the best routes, or yours by stops",
         "action"),
    Verb("payout", "payout", "Pay the whole revenue out to shareholders", "action"),
    Verb("half", "half", "Pay half out, keep half in the treasury", "action"),
    Verb("withhold", "withhold", "Keep the whole revenue in the treasury", "action"),
    Verb("train", "train TRAIN [pool] | train TRAIN from COMPANY PRICE | train 8 trade OWN",
         "Buy a train (1867, phase 8: trade one of yours in for half its value)", "action"),
    Verb("discard", "discard TRAIN", "Discard a train over the limit to the pool", "action"),
    Verb("private", "private PRIVATE PRICE", "The company buys a private from a player", "action"),
    Verb("redeem", "redeem [COUNT]", "The major buys back shares from the pool", "action"),
    Verb("convert", "convert", "Merger round: convert the minor into a major", "action"),
    Verb("merge", "merge MINOR", "Merger round: add another minor to the merge", "action"),
    Verb("into", "into MAJOR", "Merger round: choose the major the minors form", "action"),
    Verb("remove", "remove HEX [CITY]", "After a merge: remove one of the major's tokens", "action"),
    Verb("nationalize", "nationalize", "Nationalize the trainless major you run", "action"),
    Verb("keep", "keep", "Keep the trainless major you run", "action"),
    Verb("auto", "auto pass merger [this round|until phase N] | auto pass stock [this round] | "
         "auto buy MAJOR until N% | auto off",
         "Standing order, at any time: the engine passes (or buys) for you when you are called; "
         "your own move cancels it", "action"),
    Verb("undo", "undo [REASON]", "Take back your last action (commissioner: any, with a reason)", "turn"),
    Verb("redo", "redo [REASON]", "Restore what the last undo took back", "turn"),
    Verb("agree", "agree", "Agree to the deal you were asked about", "turn"),
    Verb("refuse", "refuse", "Refuse the deal you were asked about", "turn"),
    Verb("withdraw", "withdraw", "Take back a deal you proposed before it is answered", "turn"),
    Verb("status", "status", "Round, phase, who acts, what they may do, time to act", "info"),
    Verb("map", "map [HEX]", "The map, or a close-up around HEX", "info"),
    Verb("market", "market", "The stock market", "info"),
    Verb("table", "table", "Players, companies, privates, trains and phase", "info"),
    Verb("holdings", "holdings", "Cash, shares, privates and trains as text", "info"),
    Verb("log", "log [COUNT] | log page N", "The last actions with what they did, undos and commissioner decisions",
         "info"),
    Verb("games", "games", "Your games in every channel, and where it is your turn", "info"),
    Verb("help", "help [COMMAND]", "The commands, or how to use one", "info"),
    Verb("as", "as PLAYER COMMAND", "Commissioner: act for an absent player", "admin"),
    Verb("replace", "replace PLAYER @ACCOUNT", "Commissioner: give a seat to another account", "admin"),
    Verb("pause", "pause [REASON]", "Commissioner: pause the game", "admin"),
    Verb("resume", "resume", "Commissioner: resume a paused game", "admin"),
    Verb("end", "end confirm [REASON]", "Commissioner: end the game now (scores as it stands; no way back)",
         "admin"),
    Verb("remind", "remind [me] HOURS|off", "Commissioner: remind a player after HOURS, then the channel; "
         "`remind me`: anyone, their own time", "admin"),
)}

ALIASES = {
    "choose": "nationalize",
    "nationalise": "nationalize",
    "pay": "payout",
    "full": "payout",
    "withold": "withhold",
    "info": "status",
    "?": "help",
}
"""Other words players use; ``dividend KIND`` and ``choose nationalize`` read their argument."""

ARGUMENTS = {
    "new": 12, "options": 1, "join": 0, "leave": 0, "start": 0, "bid": 2, "auction": 2, "pass": 1, "buy": 2, "sell": 2,
    "par": 2, "token": 2, "home": 2, "lay": 4, "tiles": 1, "payout": 0, "half": 0, "withhold": 0, "train": 5,
    "discard": 1, "private": 2, "redeem": 1, "convert": 0, "merge": 1, "into": 1, "remove": 2,
    "nationalize": 0, "keep": 0, "agree": 0, "refuse": 0, "withdraw": 0, "status": 0, "map": 1, "market": 0,
    "table": 0, "holdings": 0, "log": 2, "help": 1, "resume": 0, "remind": 2, "games": 0,
}
"""The most words each command takes after its verb (others take free text)."""

MAX_COMMAND = 300
"""Characters in a command; more is a paste gone wrong."""

DIVIDENDS = {"payout": "payout", "full": "payout", "pay": "payout", "half": "half", "withhold": "withhold"}


def split(text: str) -> tuple[str, str]:
    """The verb (lower case, aliases resolved) and the rest of a command."""
    words = text.strip().split(None, 1)
    if not words:
        raise Refusal("Type a command; `help` lists them.")
    if len(text) > MAX_COMMAND:
        raise Refusal(f"That command is {len(text)} characters long; commands are short, e.g. `bid TSR 25`.")
    verb = words[0].lower().lstrip("!/")
    rest = words[1].strip() if len(words) > 1 else ""
    if verb == "dividend":
        if rest.lower() not in DIVIDENDS:
            raise Refusal("Write `payout`, `half` or `withhold` (or `dividend payout`...).")
        verb, rest = DIVIDENDS[rest.lower()], ""
    elif verb == "choose":
        if rest.lower() not in ("nationalize", "nationalise"):
            raise Refusal("`choose nationalize` (or `keep`) is the only choice")
        rest = ""
    verb = ALIASES.get(verb, verb)
    if verb not in VERBS:
        close = difflib.get_close_matches(verb, list(VERBS), n=2)
        hint = f" Did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else ""
        raise Refusal(f"I don't know `{shown(words[0])}`.{hint} `help` lists the commands.")
    extra = rest.split()[ARGUMENTS.get(verb, len(rest.split())):]
    if extra:
        raise Refusal(f"`{verb}` takes no `{shown(' '.join(extra))}`: write it as `{VERBS[verb].usage}`.")
    return verb, rest


def shown(word: str, limit: int = 24) -> str:
    """A player's word quoted back, cut short if long."""
    return word if len(word) <= limit else word[: limit - 1] + "…"


@dataclass(frozen=True)
class Parsed:
    """An action read from a command, with any detail worth posting (the routes run)."""

    action: Action
    detail: str = ""
    routes: tuple[RouteResult, ...] = ()  # a run's routes as the engine priced them while reading it


def parse_action(game: Game, verb: str, rest: str) -> Parsed:
    """The action ``verb rest`` stands for, taken by whoever acts now. Raises
    :class:`Refusal` for text that cannot be read (not for illegal moves)."""
    actor = game.actor()
    if actor is None:
        raise Refusal("The game is over.")
    args = rest.split()
    if verb == "run":
        return _run(game, actor, rest)
    try:
        return Parsed(_READERS[verb](game, actor, args))
    except Refusal:
        raise
    except (ValueError, IndexError):
        raise Refusal(f"Write it as `{VERBS[verb].usage}`.") from None


def _number(word: str, what: str) -> int:
    try:
        number = int(word.lstrip("$₽"))
    except ValueError:
        raise Refusal(f"{what} must be a whole number, not `{shown(word)}`") from None
    if number < 0:
        raise Refusal(f"{what} cannot be negative")
    return number


def _sym(word: str) -> str:
    return word.upper()


def _bid(game: Game, actor: str, args: list[str]) -> Action:
    if len(args) == 1:
        target = _auction_target(game)
        if target is None:
            raise Refusal("Nothing is up for auction: write `bid MINOR PRICE` or `auction MINOR PRICE`.")
        return Bid(actor, target, _number(args[0], "the bid"))
    return Bid(actor, _sym(args[0]), _number(args[1], "the bid"))


def _auction_target(game: Game) -> str | None:
    return turn_view(game).up_for_auction


def _auction(game: Game, actor: str, args: list[str]) -> Action:
    price = _number(args[1], "the opening bid") if len(args) > 1 else 100
    return Bid(actor, _sym(args[0]), price)


def _buy(game: Game, actor: str, args: list[str]) -> Action:
    if len(args) > 1 and args[1].lower() not in POOL_WORDS:
        raise Refusal(f"`buy` buys one share at a time: `buy {_sym(args[0])}` from the treasury or "
                      f"`buy {_sym(args[0])} pool`")
    return BuyShare(actor, _sym(args[0]), "pool" if len(args) > 1 else "treasury")


POOL_WORDS = ("pool", "market", "bank")


def _sell(game: Game, actor: str, args: list[str]) -> Action:
    count = _number(args[1], "the number of shares") if len(args) > 1 else 1
    return SellShares(actor, _sym(args[0]), count)


def _token(game: Game, actor: str, args: list[str]) -> Action:
    hex_id = _sym(args[0])
    if len(args) > 1:
        return PlaceToken(actor, hex_id, _number(args[1], "the city"))
    open_here = [c for h, c in _token_options(game) if h == hex_id]
    if len(open_here) > 1:
        raise Refusal(f"{hex_id} has cities {', '.join(map(str, open_here))} open: say which, e.g. "
                      f"`token {hex_id} {open_here[-1]}`")
    if open_here:
        return PlaceToken(actor, hex_id, open_here[0])
    cities = _cities(game, hex_id)
    return PlaceToken(actor, hex_id, cities[0] if cities else 0)  # the engine says why not


def _token_options(game: Game) -> list[tuple[str, int]]:
    """The cities the actor may token now, if it is placing a token."""
    if not turn_view(game).placing_token:
        return []
    return [(a.hex, a.city) for a in legal_actions(game) if isinstance(a, PlaceToken)]


def _cities(game: Game, hex_id: str) -> list[int]:
    if hex_id not in game.ctx.board.hexes:
        raise Refusal(f"There is no hex {shown(hex_id)} on the map.")
    tile, _ = game.ctx.tile_at(game.state, hex_id)
    return [i for i, node in enumerate(tile.nodes) if node.kind == "city"]


def _lay(game: Game, actor: str, args: list[str]) -> Action:
    loan = args[-1].lower() in ("loan", "loans")
    args = args[:-1] if loan else args
    if len(args) > 3:
        raise ValueError("too many words")
    hex_id, tile = _sym(args[0]), _tile_name(game, args[1])
    if len(args) > 2:
        rotation = _number(args[2], "the rotation")
        if rotation > 5:
            raise Refusal(f"A rotation is 0 to 5, not {rotation}: `tiles {hex_id}` shows the ones that fit")
        action = LayTile(actor, hex_id, tile, rotation)
    else:
        fits = distinct_rotations(game.ctx.board.tiles[tile], _rotations(game, actor, hex_id, tile))
        if len(fits) > 1:
            raise Refusal(f"Tile {tile} fits {hex_id} in rotations {', '.join(map(str, fits))}: say which, "
                          f"e.g. `lay {hex_id} {tile} {fits[0]}` (`tiles {hex_id}` shows them)")
        action = LayTile(actor, hex_id, tile, fits[0] if fits else 0)
    short = loan_needed(game, action)
    if short and not loan:
        raise Refusal(f"{short}; add `loan` to borrow: `{action_text(action)} loan`")
    return action


def loan_needed(game: Game, action: LayTile) -> str:
    """What a lay costs, if the company must borrow to pay for it (8.2: a loan for track
    is the president's choice), else ''."""
    from engine.lay import check_lay
    from engine.loans import INTEREST, LOAN

    company = game.state.companies.get(action.entity)
    if company is None or game.round_name != "Operating" or game.state.round.step != "track":
        return ""
    try:
        cost = check_lay(game.ctx, game.state, game.state.round, company, action)
    except IllegalAction:
        return ""
    if cost <= company.cash:
        return ""
    loans = -(-(cost - company.cash) // (LOAN - INTEREST))
    return (f"This lay costs {cost} and {company.sym} has {company.cash}: it would take {loans} loan(s) "
            f"of {LOAN} ({INTEREST} interest each round)")


def distinct_rotations(tile: TileDef, rotations: list[int]) -> list[int]:
    """The rotations that lay different track (a straight at 0 and 3 is the same lay;
    so is Montreal's X2 at 0 and 3, whose three cities swap places but not track)."""
    seen: set[tuple[frozenset[frozenset[int]], frozenset[tuple[object, ...]]]] = set()
    result = []
    for rotation in rotations:
        nodes = frozenset(
            (node.kind, node.revenue, node.slots, exits)
            for node, exits in zip(tile.nodes, tile.node_exits(rotation))
        )
        track = (tile.edge_pairs(rotation), nodes)
        if track not in seen:
            seen.add(track)
            result.append(rotation)
    return result


def _tile_name(game: Game, word: str) -> str:
    names = {name.upper(): name for name in game.ctx.board.tiles}
    if word.upper() not in names:
        raise Refusal(f"There is no tile {shown(word)}.")
    return names[word.upper()]


def _rotations(game: Game, actor: str, hex_id: str, tile: str) -> list[int]:
    """The rotations in which the acting company may lay ``tile`` on ``hex_id`` now."""
    from engine.lay import check_lay

    state = game.state
    if not turn_view(game).laying_track or actor not in state.companies:
        return []
    fits = []
    for rotation in range(6):
        try:
            check_lay(game.ctx, state, state.round, state.companies[actor], LayTile(actor, hex_id, tile, rotation))
        except IllegalAction:
            continue
        fits.append(rotation)
    return fits


def _run(game: Game, actor: str, rest: str) -> Parsed:
    from engine.routes import best_routes, to_route

    company = game.state.companies.get(actor)
    if company is None:
        raise Refusal(f"{actor} has no trains to run.")
    if rest.strip().lower() in ("", "best"):
        results = best_routes(game.ctx, game.state, company)
        action = RunRoutes(actor, tuple(to_route(r) for r in results))
    else:
        action, results = parse_routes(game.ctx, game.state, company, rest)
    return Parsed(action, routes_detail(game.ctx, game.state, company, results), tuple(results))


def _train(game: Game, actor: str, args: list[str]) -> Action:
    words = [w for w in args if w.lower() != "for"]
    if "from" in (w.lower() for w in words):
        at = [w.lower() for w in words].index("from")
        seller = _sym(words[at + 1])
        company = game.state.companies.get(seller)
        if company is None:
            raise Refusal(f"There is no company {shown(seller)}.")
        if len(words) > at + 3 or at != 1:
            raise ValueError("words out of place")
        train = _pick(words[0], company.trains, f"{seller} has no train {words[0]}")
        if len(words) <= at + 2:
            raise Refusal(f"Say the price: `train {train.id} from {seller} PRICE` (at least 1).")
        return BuyTrain(actor, train.id, _number(words[at + 2], "the price"))
    ctx, state = game.ctx, game.state
    if "trade" in (w.lower() for w in words):
        return _trade_in(game, actor, words)
    if len(words) > 2:
        raise ValueError("too many words")
    pool = len(words) > 1 and words[1].lower() in POOL_WORDS
    offered = trains.pool_trains(state) if pool else trains.yard_trains(ctx, state) + trains.pool_trains(state)
    train = _pick(words[0], offered, f"no {shown(words[0])}-train is for sale {'in the pool' if pool else 'now'}")
    price = ctx.board.train(train.name).price
    if len(words) > 1 and not pool:
        price = _number(words[1], "the price")
    return BuyTrain(actor, train.id, price)


def _trade_in(game: Game, actor: str, words: list[str]) -> Action:
    """``train 8 trade 5-0``: 1867, phase 8 — buy with one of the company's trains
    handed in for half its face value (8.11)."""
    at = [w.lower() for w in words].index("trade")
    if at != 1 or len(words) != 3:
        raise Refusal("Say which train you hand in: `train 8 trade 5-0`.")
    company = game.state.companies.get(actor)
    if company is None:
        raise Refusal("Only a company buys trains.")
    handed = _pick(words[2], company.trains, f"{actor} has no train {words[2]}")
    offers = trains.trade_in_prices(game.ctx, game.state, company)
    for train, own, price in offers:
        if own.id == handed.id and words[0].upper() in (train.name.upper(), train.id.upper()):
            return BuyTrain(actor, train.id, price, own.id)
    allowed = ", ".join(sorted({f"`train {t.name} trade {o.id}` ({p})" for t, o, p in offers}))
    open_now = f"Open now: {allowed}" if allowed else "None is open now (phase 8, majors)."
    raise Refusal(f"No trade-in like that. {open_now}")


def _pick(word: str, candidates: list[Train], missing: str) -> Train:
    """The train a player names by id (``3-1``) or by type (``3``: the first one)."""
    word = word.upper()
    for train in candidates:
        if train.id.upper() == word:
            return train
    for train in candidates:
        if train.name.upper() == word:
            return train
    raise Refusal(missing)


def _discard(game: Game, actor: str, args: list[str]) -> Action:
    company = game.state.companies.get(actor)
    owned = company.trains if company else []
    return DiscardTrain(actor, _pick(args[0], owned, f"{actor} has no train {shown(args[0])}").id)


def _private(game: Game, actor: str, args: list[str]) -> Action:
    if len(args) < 2:
        raise Refusal("Say the price: `private PRIVATE PRICE` (1 to its face value).")
    return BuyPrivate(actor, _sym(args[0]), _number(args[1], "the price"))


def _remove(game: Game, actor: str, args: list[str]) -> Action:
    hex_id = _sym(args[0])
    if len(args) > 1:
        return RemoveToken(actor, hex_id, _number(args[1], "the city"))
    company = game.state.companies.get(actor)
    cities = [t.city for t in (company.placed_tokens if company else []) if t.hex == hex_id]
    if len(cities) > 1:
        raise Refusal(f"{actor} has tokens in cities {', '.join(map(str, cities))} of {hex_id}: say which")
    return RemoveToken(actor, hex_id, cities[0] if cities and cities[0] is not None else 0)


def _keep(game: Game, actor: str, args: list[str]) -> Action:
    if not game.state.trainless_majors:
        raise Refusal("`keep` answers whether to nationalize a trainless major, and nothing asks that now")
    return Pass(actor)


_READERS = {
    "bid": _bid,
    "auction": _auction,
    "pass": lambda game, actor, args: Pass(actor),
    "keep": _keep,
    "buy": _buy,
    "sell": _sell,
    "par": lambda game, actor, args: Par(actor, _sym(args[0]), _number(args[1], "the price")),
    "token": _token,
    "home": _token,
    "lay": _lay,
    "payout": lambda game, actor, args: Dividend(actor, "payout"),
    "half": lambda game, actor, args: Dividend(actor, "half"),
    "withhold": lambda game, actor, args: Dividend(actor, "withhold"),
    "train": _train,
    "discard": _discard,
    "private": _private,
    "redeem": lambda game, actor, args: RedeemShares(actor, _number(args[0], "the count") if args else 1),
    "convert": lambda game, actor, args: Convert(actor),
    "merge": lambda game, actor, args: Merge(actor, _sym(args[0])),
    "into": lambda game, actor, args: Merge(actor, _sym(args[0])),
    "remove": _remove,
    "nationalize": lambda game, actor, args: Choose(actor, "nationalize"),
}


def action_text(action: Action) -> str:
    """An action as a command a player could type (for the log)."""
    match action:
        case Bid(target=target, price=price):
            return f"bid {target} {price}"
        case Pass():
            return "pass"
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
        case RunRoutes(routes=routes):
            return "run " + "; ".join(f"{r.train}: {'-'.join(route_stops(r.legs))}" for r in routes if r.legs)
        case Dividend(choice=choice):
            return choice
        case BuyTrain(train=train, price=price):
            return f"train {train} {price}"
        case DiscardTrain(train=train):
            return f"discard {train}"
        case BuyPrivate(private=private, price=price):
            return f"private {private} {price}"
        case RedeemShares(count=count):
            return f"redeem {count}"
        case Convert():
            return "convert"
        case Merge(target=target):
            return f"merge {target}"
        case RemoveToken(hex=hex_id, city=city):
            return f"remove {hex_id} {city}"
        case Choose(choice=choice):
            return choice
        case EndGame():
            return "end"
        case StandingOrder():
            return order_command(action)
    return action.kind


def command_for(game: Game, action: Action) -> str:
    """The command a player types for ``action``, in the game as it is before it."""
    state = game.state
    if isinstance(action, Bid):
        nominating = game.round_name == "Stock" and state.round.auction is None
        return f"{'auction' if nominating else 'bid'} {action.target} {action.price}"
    if isinstance(action, Pass) and state.trainless_majors:
        return "keep"
    if isinstance(action, Choose):
        return "nationalize"
    if isinstance(action, Merge):
        return f"{'merge' if state.companies[action.target].is_minor else 'into'} {action.target}"
    if isinstance(action, PlaceToken):
        tile, _ = game.ctx.tile_at(state, action.hex)
        cities = [n for n in tile.nodes if n.kind == "city"]
        return f"token {action.hex}" + (f" {action.city}" if len(cities) > 1 else "")
    if isinstance(action, RunBest):
        return "run best"
    if isinstance(action, RunRoutes):
        return "run " + "; ".join(f"{r.train}: {'-'.join(route_stops(r.legs))}" for r in action.routes)
    if isinstance(action, BuyTrain):
        return _train_command(game, action)
    return action_text(action)


def _train_command(game: Game, action: BuyTrain) -> str:
    source, train = trains.find_train(game.ctx, game.state, action.train)
    if action.exchange:
        return f"train {train.name} trade {action.exchange}"
    if source == "yard":
        return f"train {train.name}"
    if source == "pool":
        return f"train {train.name} pool"
    return f"train {train.id} from {source} {action.price}"


def route_stops(legs: tuple[tuple[str, ...], ...]) -> list[str]:
    """The stop hexes of a route from its legs, each of which may be written either way."""
    if len(legs) == 1:
        return [legs[0][0], legs[0][-1]]
    first, second = legs[0], legs[1]
    chain = [first[0], first[-1]] if first[-1] in (second[0], second[-1]) else [first[-1], first[0]]
    for leg in legs[1:]:
        chain.append(leg[-1] if leg[0] == chain[-1] else leg[0])
    return chain


def consent_needed(game: Game, action: Action) -> str | None:
    """The player who must agree before ``action`` happens, if it is not the actor's
    own decision: selling a train of their company, a private they own, or a minor
    they own into a merge (rulebook 8.11, 8.12, 9.2)."""
    state = game.state
    buyer = game.controller(action.entity)
    owner: str | None = None
    if isinstance(action, BuyTrain):
        try:
            source, _ = trains.find_train(game.ctx, state, action.train)
        except IllegalAction:
            return None
        owner = game.controller(source) if source in state.companies else None
    elif isinstance(action, BuyPrivate):
        holder = state.private_owner.get(action.private)
        owner = holder if holder is not None and holder not in state.companies else None
    elif isinstance(action, Merge):
        target = state.companies.get(action.target)
        owner = game.controller(action.target) if target is not None and target.is_minor else None
    return owner if owner is not None and owner != buyer else None
