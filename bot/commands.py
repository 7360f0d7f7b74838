"""Commands as 18xx players type them: the verbs, and the bot's side of reading them.

:data:`VERBS` is the one table of commands: each verb declared once, with its words,
other names, reader, button and slash options; the service, the Discord cog,
the console and `help` all read it. ``split`` reads the verb; ``parse_action`` hands an action command to the engine's
notation (:mod:`engine.notation`), which reads it against the game as it is now, and
turns what the engine cannot read into a :class:`Refusal`. Nothing here decides
legality: the engine does, when the action is applied.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Protocol

from engine import (
    MARKETS,
    TITLES,
    Action,
    EngineError,
    Game,
    RouteResult,
    RunRoutes,
    Unreadable,
    parse_order,
    parse_priced,
    routes_detail,
    shown,
)

from .errors import Refusal

TITLES_OFFERED = tuple(TITLES)


@dataclass(frozen=True)
class Option:
    """One argument of a verb as a slash command offers it (``/bid what:TSR 25``).

    ``kind``: ``text``, the rest of the line; ``word``, one word; ``number``; ``file``, an
    attachment; ``member``, a member of the server. ``menu``: its values are suggested
    as it is typed, from ``actions`` (the engine's candidate moves for the verb),
    ``players`` (the seats) or ``options`` (the title's optional rules)."""

    name: str
    kind: str = "text"
    required: bool = False
    default: str = ""
    choices: tuple[str, ...] = ()
    menu: str | None = None
    description: str = ""


def what(*, required: bool = True, menu: bool = False, default: str = "") -> tuple[Option, ...]:
    """The usual single option: the rest of the command, described by its usage."""
    return (Option("what", required=required, default=default, menu="actions" if menu else None),)


class Reader(Protocol):
    """How an action verb's text becomes the engine's action, read against the game now."""

    def __call__(self, game: Game, player: str, verb: str, rest: str) -> Parsed: ...


def read_action(game: Game, player: str, verb: str, rest: str) -> Parsed:
    """A move in the engine's notation, by whoever acts now (see :func:`parse_action`)."""
    return parse_action(game, verb, rest)


def read_order(game: Game, player: str, verb: str, rest: str) -> Parsed:
    """A standing order (``auto pass merger``) for ``player``."""
    try:
        return Parsed(parse_order(player, rest))
    except EngineError as exc:
        raise Refusal(str(exc)) from None


@dataclass(frozen=True)
class Verb:
    """A command word, declared once: how it is written, read and carried out.

    ``kind`` groups it in `help`; ``game``: it acts on the channel's game, else on the
    channel (``handler(command)``, a :class:`bot.core.Command`). Its handler is the
    feature's method marked ``@handles(name)`` (:func:`bot.core.handles`); for a
    verb on the game, its kind says what the service resolves before calling it:
    ``info`` gets ``(record, rest)``, ``admin`` ``(record, commissioner, rest)``,
    ``turn`` ``(record, seat, rest, proxy)``, and ``action`` ``(record, seat, verb, rest,
    proxy)``, its text read by ``reader`` into the engine's action.
    ``words``: the most words after the verb (None: free text); ``button``: offered as a
    button under a post whose prompt names it; ``options``: its slash command's
    arguments; ``typist``: whose seat a bare command is typed from at a shared keyboard
    (the console): the player who must decide now (``decider``), the one whose deal
    waits (``requester``), the one whose move it takes back (``mover``) or whose undo it
    restores (``undoer``), the one player whose seat is handed over or away (``returning``)
    or who plays their own seat (``handing``), or none but the keyboard, which types for
    every seat (``keyboard``)."""

    name: str
    usage: str
    summary: str
    kind: str  # "setup", "action", "turn", "info" or "admin"
    words: int | None = None
    aliases: tuple[str, ...] = ()
    reader: Reader = read_action
    button: bool = False
    options: tuple[Option, ...] = ()
    game: bool = True
    any_time: bool = False
    """An action any seated player may take, their turn or not (a standing order)."""
    secret: bool = False
    """Its answer is for the one who asked alone: typed (not a slash command), it goes by direct message."""
    typist: str = "decider"


def _move(name: str, usage: str, summary: str, words: int | None, *, required: bool = True, default: str = "",
          **more: Any) -> Verb:
    """An action verb: read by the engine's notation, its argument (if it takes one)
    offered from the candidate moves."""
    options = more.pop("options", what(menu=True, required=required, default=default) if words != 0 else ())
    return Verb(name, usage, summary, "action", words=words, options=options, **more)


SEAT_OPTIONS = (Option("player", "word", required=True, menu="players"), Option("member", "member", required=True))

VERBS: dict[str, Verb] = {v.name: v for v in (
    Verb("new", "new [1861|1867] [grid|column] [site] [OPTION ...] [on-timeout wait|computer|pass]",
         "Set up a game of 1861 (or 1867) here, with the rulebook's options (`site`: the rules as 18xx.games "
         "plays them) and what happens when a player's time runs out; you become its commissioner", "setup",
         words=15, game=False, options=(
             Option("title", "word", choices=TITLES_OFFERED), Option("market", "word", choices=MARKETS),
             Option("options", menu="options",
                    description="the rulebook's optional rules, e.g. long-game no-floor (`/options` lists them)"))),
    Verb("import", "import (with the JSON attached)", "Bring a game from 18xx.games here and play on; you become "
         "its commissioner", "setup", words=1, game=False,
         options=(Option("log", "file", required=True),)),
    Verb("options", "options [1861|1867]", "The rulebook's optional rules (§14–16), to choose with `new`", "info",
         words=1, game=False, options=(Option("title", "word", choices=TITLES_OFFERED),)),
    Verb("join", "join", "Take a seat in the game being set up", "setup", words=0, game=False),
    Verb("leave", "leave", "Give up your seat before the game starts", "setup", words=0, game=False),
    Verb("start", "start", "Commissioner: start; seats are fixed and the first player drawn", "setup",
         words=0, game=False),
    _move("bid", "bid [PRIVATE|MINOR] PRICE", "Bid on the private or minor up for auction", 2),
    _move("auction", "auction MINOR [PRICE]", "Put a minor up for auction, opening at PRICE (100+)", 2),
    _move("pass", "pass", "Pass: in an auction, a stock turn or the current operating step "
          "(`pass KP` names the company it is for)", 1, button=True, options=()),
    _move("buy", "buy MAJOR [pool]", "Buy a 10% share from the treasury (or the bank pool)", 2),
    _move("sell", "sell MAJOR [COUNT]", "Sell shares of a major to the bank pool", 2),
    _move("par", "par MAJOR PRICE", "Start a major (phase 4+), then place its home token", 2),
    _move("token", "token HEX [CITY]", "Place a station token (CITY only if the hex has several)", 2),
    _move("home", "home HEX [CITY]", "Place a new major's home token (same as token)", 2),
    _move("lay", "lay HEX TILE [ROTATION] [loan]", "Lay or upgrade a tile; ROTATION 0-5, optional if one fits; "
          "`loan` agrees to borrow for it", 4),
    Verb("tiles", "tiles [HEX]", "Where the company acting may lay track: hexes, tiles, rotations, costs", "info",
         words=1, options=what(required=False)),
    _move("run", "run [TRAIN: HEX-HEX-...; ...] [= REVENUE]", "Run trains: the best routes, or yours by stops",
          None, required=False),
    _move("payout", "payout", "Pay the whole revenue out to shareholders", 0, aliases=("pay", "full"), button=True),
    _move("half", "half", "Pay half out, keep half in the treasury", 0, button=True),
    _move("withhold", "withhold", "Keep the whole revenue in the treasury", 0, aliases=("withold",), button=True),
    _move("train", "train TRAIN [pool] | train TRAIN from COMPANY PRICE | train 8 trade OWN",
          "Buy a train (1867, phase 8: trade one of yours in for half its value)", 5),
    _move("discard", "discard TRAIN", "Discard a train over the limit to the pool", 1),
    _move("private", "private PRIVATE PRICE", "The company buys a private from a player", 2),
    _move("redeem", "redeem [COUNT]", "The major buys back shares from the pool", 1, required=False, default="1"),
    _move("convert", "convert", "Merger round: convert the minor into a major", 0),
    _move("merge", "merge MINOR", "Merger round: add another minor to the merge", 1),
    _move("into", "into MAJOR", "Merger round: choose the major the minors form", 1),
    _move("remove", "remove HEX [CITY]", "After a merge: remove one of the major's tokens", 2),
    _move("keep", "keep", "Keep the trainless major you run", 0, button=True),
    _move("nationalize", "nationalize", "Nationalize the trainless major you run", 0,
          aliases=("choose", "nationalise"), button=True),
    Verb("auto", "auto pass merger [this round|until phase N] | auto pass stock [this round] | "
         "auto buy MAJOR until N% | auto run | auto pay payout|half|withhold | auto pass track | auto off",
         "Standing order, at any time: the engine moves for you when you are called; your own move "
         "there, or a change in the companies you preside over, ends it",
         "action", reader=read_order, any_time=True, options=what()),
    Verb("undo", "undo [REASON]", "Take back your last action (commissioner: any, with a reason)", "turn",
         options=what(required=False), typist="mover"),
    Verb("redo", "redo [REASON]", "Restore what the last undo took back", "turn",
         options=what(required=False), typist="undoer"),
    Verb("hint", "hint", "What the computer would do in your place now, and why (only you see it; it never acts)",
         "turn", words=0, secret=True),
    Verb("computer", "computer takes over", "Let the computer play your seat until you type `I'm back`", "turn",
         words=2, typist="handing"),
    Verb("back", "back | I'm back", "Back from `away`, or play your own seat again after `computer takes over` "
         "(or a time-out)", "turn", words=1, aliases=("i'm", "im", "i’m"), typist="returning"),
    Verb("away", "away DURATION", "Stop your clock while you are away, e.g. `away 5d` or `away 2d 12h` "
         "(within the game's away limit); the table is told", "turn", words=4, options=what()),
    Verb("quiet", "quiet HH:MM-HH:MM | quiet off", "Your quiet hours in your time zone (`tz`): no reminders "
         "then, and your clock stands still, e.g. `quiet 23:00-08:00`", "turn", words=1, options=what()),
    Verb("tz", "tz ZONE", "Your time zone for quiet hours, e.g. `tz Europe/Amsterdam`", "turn", words=1,
         options=what()),
    Verb("agree", "agree", "Agree to the deal you were asked about", "turn", words=0, button=True),
    Verb("refuse", "refuse", "Refuse the deal you were asked about", "turn", words=0, button=True),
    Verb("withdraw", "withdraw", "Take back a deal you proposed before it is answered", "turn",
         words=0, typist="requester"),
    Verb("status", "status", "Round, phase, who acts, what they may do, time to act", "info",
         words=0, aliases=("info",)),
    Verb("unarchive", "unarchive", "Bring an archived game (no move for 60 days) back", "turn", words=0),
    Verb("stats", "stats", "Per player: median and 90th-percentile time to act, bank left, away days",
         "info", words=0),
    Verb("map", "map [HEX]", "The map, or a close-up around HEX", "info", words=1,
         options=what(required=False)),
    Verb("market", "market", "The stock market", "info", words=0),
    Verb("table", "table", "Players, companies, privates, trains and phase", "info", words=0),
    Verb("holdings", "holdings", "Cash, shares, privates and trains as text", "info",
         words=0),
    Verb("export", "export", "The game as an 18xx.games log, a JSON file to open on the site", "info", words=0),
    Verb("log", "log [COUNT] | log page N", "The last actions with what they did, undos and commissioner decisions",
         "info", words=2,
         options=(Option("count", default="15", description="how many lines (15), or `page N` for older ones"),)),
    Verb("games", "games", "Your games in every channel, and where it is your turn", "info",
         words=0, game=False),
    Verb("web", "web [me]", "This game's web page; `web me`: your own link to all your games (sent privately)",
         "info", words=1, game=False, options=what(required=False), typist="keyboard"),
    Verb("help", "help [COMMAND]", "The commands, or how to use one", "info", words=1,
         aliases=("?",), game=False, options=what(required=False)),
    Verb("as", "as PLAYER COMMAND", "Commissioner: act for an absent player", "admin",
         options=(Option("player", "word", required=True, menu="players"), Option("what", required=True))),
    Verb("replace", "replace PLAYER @ACCOUNT", "Commissioner: give a seat to another account", "admin",
         options=SEAT_OPTIONS),
    Verb("seat", 'seat "PLAYER" @ACCOUNT', "Commissioner: give an imported game's seat to a member", "admin",
         options=SEAT_OPTIONS),
    Verb("pause", "pause [REASON]", "Commissioner: pause the game", "admin",
         options=what(required=False)),
    Verb("resume", "resume", "Commissioner: resume a paused game", "admin", words=0),
    Verb("end", "end confirm [REASON]", "Commissioner: end the game now (scores as it stands; no way back)",
         "admin", options=what(required=False)),
    Verb("pace", "pace DURATION|off", "Commissioner: the time a decision may take (e.g. `pace 24h`); beyond it "
         "a player's bank is spent", "admin", words=4, options=what()),
    Verb("bank", "bank DURATION", "Commissioner: each player's time bank (three paces unless set), e.g. "
         "`bank 3d`", "admin", words=4, options=what()),
    Verb("away-limit", "away-limit DURATION", "Commissioner: how long each player may be `away` in this game "
         "(14d unless set)", "admin", words=4, options=what()),
    Verb("on-timeout", "on-timeout wait|computer|pass", "Commissioner: what happens when a bank runs out: tell "
         "the commissioner, the computer plays the seat, or the safe move (pass, withhold)", "admin", words=1,
         options=what()),
    Verb("remind", "remind [me] HOURS|off", "Commissioner: remind a player after HOURS, then the channel; "
         "`remind me`: anyone, their own time", "admin", words=2, options=what()),
)}

ALIASES = {alias: verb.name for verb in VERBS.values() for alias in verb.aliases}
"""Other words players use; ``dividend KIND`` and ``choose nationalize`` read their argument."""

BUTTONS = tuple(verb.name for verb in VERBS.values() if verb.button)
"""Frequent small choices offered as buttons under a post, when the post offers them."""

ACTION_VERBS = tuple(verb.name for verb in VERBS.values() if verb.kind == "action")
"""The verbs read into the engine's actions: one handler carries them all out."""

MAX_COMMAND = 300
"""Characters in a command; more is a paste gone wrong."""

DIVIDENDS = {word: verb.name for verb in VERBS.values() if verb.name in ("payout", "half", "withhold")
             for word in (verb.name, *verb.aliases)}
"""The words ``dividend KIND`` reads (``dividend pay``)."""


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
    most = VERBS[verb].words
    extra = rest.split()[most:] if most is not None else []
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
        action, priced = parse_priced(game, f"{verb} {rest}")
    except Unreadable:
        raise Refusal(f"Write it as `{VERBS[verb].usage}`.") from None
    except EngineError as exc:
        raise Refusal(str(exc)) from None
    if not isinstance(action, RunRoutes):
        return Parsed(action)
    company = game.state.companies[action.entity]
    return Parsed(action, routes_detail(game.ctx, game.state, company, list(priced)), priced)
