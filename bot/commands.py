"""Commands as 18xx players type them: the verbs, and the bot's side of reading them.

``split`` reads the verb; ``parse_action`` hands an action command to the engine's
notation (:mod:`engine.notation`), which reads it against the game as it is now, and
turns what the engine cannot read into a :class:`Refusal`. Nothing here decides
legality: the engine does, when the action is applied.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from engine import notation, trains
from engine.actions import Action, BuyPrivate, BuyTrain, Merge, RunRoutes
from engine.errors import EngineError, IllegalAction
from engine.game import Game
from engine.notation import shown
from engine.route_notation import routes_detail
from engine.routes import RouteResult

from .errors import Refusal


@dataclass(frozen=True)
class Verb:
    """A command word: how it is written and what it does."""

    name: str
    usage: str
    summary: str
    kind: str  # "setup", "action", "turn", "info" or "admin"


VERBS: dict[str, Verb] = {v.name: v for v in (
    Verb("new", "new [1861|1867] [grid|column] [site] [OPTION ...]",
         "Set up a game of 1861 (or 1867) here, with the rulebook's options (`site`: the rules as 18xx.games "
         "plays them); you become its commissioner", "setup"),
    Verb("import", "import (with the JSON attached)", "Bring a game from 18xx.games here and play on; you become "
         "its commissioner", "setup"),
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
    Verb("export", "export", "The game as an 18xx.games log, a JSON file to open on the site", "info"),
    Verb("log", "log [COUNT] | log page N", "The last actions with what they did, undos and commissioner decisions",
         "info"),
    Verb("games", "games", "Your games in every channel, and where it is your turn", "info"),
    Verb("help", "help [COMMAND]", "The commands, or how to use one", "info"),
    Verb("as", "as PLAYER COMMAND", "Commissioner: act for an absent player", "admin"),
    Verb("replace", "replace PLAYER @ACCOUNT", "Commissioner: give a seat to another account", "admin"),
    Verb("seat", 'seat "PLAYER" @ACCOUNT', "Commissioner: give an imported game's seat to a member", "admin"),
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
    "new": 13, "options": 1, "import": 1, "join": 0, "leave": 0, "start": 0, "bid": 2, "auction": 2, "pass": 1,
    "buy": 2, "sell": 2,
    "par": 2, "token": 2, "home": 2, "lay": 4, "tiles": 1, "payout": 0, "half": 0, "withhold": 0, "train": 5,
    "discard": 1, "private": 2, "redeem": 1, "convert": 0, "merge": 1, "into": 1, "remove": 2,
    "nationalize": 0, "keep": 0, "agree": 0, "refuse": 0, "withdraw": 0, "status": 0, "map": 1, "market": 0,
    "table": 0, "holdings": 0, "log": 2, "export": 0, "help": 1, "resume": 0, "remind": 2, "games": 0,
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


@dataclass(frozen=True)
class Parsed:
    """An action read from a command, with any detail worth posting (the routes run)."""

    action: Action
    detail: str = ""
    routes: tuple[RouteResult, ...] = ()  # a run's routes as the engine priced them while reading it


def parse_action(game: Game, verb: str, rest: str) -> Parsed:
    """The action ``verb rest`` stands for, taken by whoever acts now. Raises
    :class:`Refusal` for text the engine cannot read (not for illegal moves)."""
    try:
        action, priced = notation.parse_priced(game, f"{verb} {rest}")
    except notation.Unreadable:
        raise Refusal(f"Write it as `{VERBS[verb].usage}`.") from None
    except EngineError as exc:
        raise Refusal(str(exc)) from None
    if not isinstance(action, RunRoutes):
        return Parsed(action)
    company = game.state.companies[action.entity]
    return Parsed(action, routes_detail(game.ctx, game.state, company, list(priced)), priced)


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
