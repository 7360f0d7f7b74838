"""What the bot writes: turn lines, status, holdings, results, help, the log, pictures.

Text only, no Discord: bold is Markdown (``**``), which the console shows as is.
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine import (
    TITLES,
    Action,
    BuyTrain,
    EngineError,
    Game,
    OptionDef,
    PlaceToken,
    RouteResult,
    RunRoutes,
    action_from_dict,
    check_routes,
    command,
    counted,
    describe_options,
    find_train,
    hinted_actions,
    load_board,
    pass_note,
    round_title,
    share_price,
    title_named,
    turn_view,
)
from render.map import render_map
from render.market import render_market
from render.png import svg_to_png
from render.routes import render_routes
from render.table import render_table
from render.tiles import render_tiles
from storage import Event, EventKind, GameRecord
from storage.repository import effective_events

from .clock import TableClock, shown_duration
from .commands import VERBS, split
from .errors import Refusal
from .ledger import Ledger
from .orders_text import orders_text
from .track_help import sheet_candidates

CHOICES_LIMIT = 350
"""Characters of "what they may do" shown in a post; ``status`` shows them all."""

GAME_OVER = "**Game over**"
"""How the line after a game's last move begins (:func:`results_text`): nobody acts next."""

PICTURES = ("map", "market", "table")

@dataclass(frozen=True)
class Picture:
    name: str
    png: bytes


@dataclass(frozen=True)
class Attachment:
    """A file sent with a reply (an exported game log)."""

    name: str
    data: bytes


def player_name(game: Game, player_id: str | None) -> str:
    for player in game.state.players:
        if player.id == player_id:
            return player.name
    return player_id or "nobody"


def who_acts(game: Game) -> str:
    """``Boris`` or ``Boris for NW``."""
    actor = game.actor()
    player = game.acting_player()
    name = player_name(game, player)
    return name if actor == player or actor is None else f"{name} for {actor}"


def doing(game: Game) -> str:
    """What the actor is about: ``lays track``, ``bids on TSR``..."""
    return turn_view(game).doing


def choices_text(game: Game, limit: int | None = CHOICES_LIMIT) -> str:
    """What the actor may do, as commands; laying track, the hexes open to it."""
    if game.state.trainless_majors and not game.state.finished:
        return "`nationalize`, `keep`"
    view = turn_view(game)  # once: each choice below reads it
    if view.laying_track:
        return f"{track_hint(game)}, `pass`"
    items: list[tuple[str, str | None]] = []  # each choice, and the company it buys a train from
    for hint, actions in hinted_actions(game):
        first = actions[0]
        if isinstance(first, PlaceToken):
            items.append((_token_choice(game, hint, first, view.operating), None))
        elif isinstance(first, BuyTrain) and hint.endswith(" PRICE"):  # `train 3-5 from GRR PRICE`
            items.append((f"`{hint}`", hint.split()[3]))
        else:
            items.append((f"`{hint}`{_loan_mark(game, actions, view.operating)}{pass_note(game, first)}", None))
    text = ", ".join(choice for choice, _ in items)
    if limit is None or len(text) <= limit:
        return text
    return _fitted(items, limit)


def _fitted(items: list[tuple[str, str | None]], limit: int) -> str:
    """Choices too many for one line: the usual ones first, the first and a closing
    `pass` always kept (any cut between are in `status`), then the trains other
    companies may sell, in one clause (by company only if naming the trains is too long)."""
    usual = [choice for choice, seller in items if seller is None]
    offers: dict[str, list[str]] = {}
    for choice, seller in items:
        if seller is not None:
            offers.setdefault(seller, []).append(choice.split()[1])
    trains = ", ".join(f"{company} {' '.join(ids)}" for company, ids in offers.items())
    sellers = f"; or a train from another company, `train ID from COMPANY PRICE`: {trains}" if offers else ""
    if len(", ".join(usual) + sellers) > limit and offers:
        sellers = f"; or a train from {', '.join(offers)} (`train ID from COMPANY PRICE`)"
    room = limit - len(sellers)
    last = [usual.pop()] if len(usual) > 1 and usual[-1].startswith("`pass`") else []
    shown, cut = usual[:1], False
    for choice in usual[1:]:
        if len(", ".join(shown + [choice] + last)) > room:
            cut = True
            break
        shown.append(choice)
    return ", ".join(shown + ["…"] * cut + last) + sellers + (" (`status` shows all)" if cut else "")


def _token_choice(game: Game, command: str, token: PlaceToken, operating: bool) -> str:
    """``token M9 0`` offered with the place's name and, in an operating round
    (``operating``), what the token costs: ```token O7 0` Québec $40``."""
    from engine import token_cost

    hex_id = token.hex
    name = game.ctx.board.location_names.get(hex_id, "").partition(" (")[0]
    cost = ""
    if operating:
        cost = f" {game.ctx.title.currency}{token_cost(game.state, game.actor() or '', hex_id)}"
    return f"`{command}`" + (f" {name}" if name else "") + cost


def _loan_mark(game: Game, actions: list[Action], operating: bool) -> str:
    """`` (loan)`` after a train from the bank the company can only pay for by borrowing
    (8.11.3) in an operating round (``operating``); a train from another company has its
    price still to name."""
    action = actions[0]
    if not isinstance(action, BuyTrain) or not operating:
        return ""
    try:
        source, _ = find_train(game.ctx, game.state, action.train)
    except EngineError:
        return ""
    company = game.state.companies.get(action.entity)
    from_bank = source in ("yard", "pool")
    return " (loan)" if from_bank and company is not None and action.price > company.cash else ""


def next_line(game: Game) -> str:
    """Who acts next and what they may do."""
    if game.state.finished:
        return results_text(game)
    return f"{who_acts(game)} {doing(game)}: {choices_text(game)}"


def track_hint(game: Game) -> str:
    """``lay HEX TILE ROTATION`` on the hexes open to the company, pointing to ``tiles``."""
    from .track_help import track_options

    hexes = sorted(track_options(game))
    if not hexes:
        return "no hex to lay track on"
    listed = ", ".join(hexes[:8]) + (", …" if len(hexes) > 8 else "")
    track = turn_view(game).track
    cost = track.next_lay_cost if track else 0
    second = f" for {game.ctx.title.currency}{cost} (a second lay, 8.6)" if cost else ""
    return f"`lay HEX TILE ROTATION` on {listed}{second} (`tiles` lists the tiles and rotations)"


def results_text(game: Game) -> str:
    """The final scores, the winner (or the players tied first) named first."""
    scores = sorted(game.result().items(), key=lambda kv: -kv[1])
    reason = f" ({game.state.end_reason.replace('_', ' ')})" if game.state.end_reason else ""
    cur = game.ctx.title.currency
    return f"{GAME_OVER}{reason}: {winners_text(game)}. " + ", ".join(f"{player_name(game, p)} {cur}{v}"
                                                                      for p, v in scores)


def winners_text(game: Game) -> str:
    """``Anna wins``, or ``Anna and Boris share the win``: who won a finished game."""
    scores = game.result()
    best = max(scores.values())
    first = [player_name(game, p) for p, v in sorted(scores.items(), key=lambda kv: -kv[1]) if v == best]
    return f"{first[0]} wins" if len(first) == 1 else f"{', '.join(first[:-1])} and {first[-1]} share the win"


def status_text(
    record: GameRecord, game: Game, ledger: Ledger, clock: TableClock, now: datetime, *, timestamps: bool = False,
    computer: Collection[str] = (),
) -> str:
    """The status of a running game: round, phase, who acts, what they may do, times
    from the table's ``clock`` (``timestamps``: when the turn began as a Discord
    timestamp, in each reader's zone); the seats of the players in ``computer`` are
    marked as the computer's."""
    state = game.state
    rules = game.ctx.rules
    lines = [f"**{record.title}** game {record.id} · {round_title(game)} · phase {state.phase} · {rules.market} market"]
    in_force = describe_options(record.title, rules.options) + (["18xx.games rules"] if rules.is_site else [])
    if in_force:
        lines.append("Options: " + " · ".join(in_force))
    if record.archived_at is not None:
        lines.append(f"📦 **Archived** on {record.archived_at:%d %b %Y} for want of moves: `unarchive` brings it back")
    if ledger.paused is not None:
        lines.append("⏸ **Paused** by the commissioner" + (f": {ledger.paused}" if ledger.paused else ""))
    if state.finished:
        lines.append(results_text(game))
    else:
        waiting, acting = "", game.acting_player()
        began = clock.counting(acting) if acting is not None else None
        if began and timestamps:
            waiting = f" (waiting since <t:{int(began.timestamp())}:R>)"
        elif began:
            waiting = f" (waiting {shown_duration(clock.counted(acting or '', began, now, quiet=False))})"
        lines.append(f"To act: **{who_acts(game)}** {doing(game)}{waiting}")
        lines.append(f"May: {choices_text(game, None)}")
    if state.orders:
        lines.append(f"Standing orders: {orders_text(game)} (`auto off` cancels yours)")
    if ledger.ask is not None:
        lines.append(f"Waiting for {player_name(game, ledger.ask.consenter)} to `agree` or `refuse`: "
                     f"{player_name(game, ledger.ask.requester)} asks `{ledger.ask.command}`")
    priority = state.players[state.priority].name
    seats = " · ".join(
        s.display_name + (" (commissioner)" if s.commissioner else "")
        + (" (computer)" if s.player_id in computer else "") for s in record.seats
    )
    lines.append(f"Seats: {seats} — priority deal: {priority}")
    times = []
    for seat in record.seats:  # `stats` reads the same waits
        waits = [w.seconds for w in clock.waits if w.own and w.player == seat.player_id]
        if waits:
            median = shown_duration(statistics.median(waits))
            times.append(f"{seat.display_name} {median} ({counted(len(waits), 'move')})")
    if times:
        lines.append("Time to act (median): " + " · ".join(times))
    if ledger.remind_hours:
        lines.append(f"Reminders after {ledger.remind_hours:g} h")
    return "\n".join(lines)


def options_text(title: str | None, chosen: frozenset[str] = frozenset()) -> str:
    """The rulebook's optional rules (§14–16) of ``title`` (of every title when None) in
    its own words, with the word to type after ``new``; those in ``chosen`` marked."""
    titles = [title] if title else list(TITLES)
    offered: dict[str, tuple[OptionDef, list[str]]] = {}
    for name in titles:
        for option in title_named(name).options:
            offered.setdefault(option.sym, (option, []))[1].append(name)
    example = next(iter(offered), "long-game")
    lines = [f"**Options of {' and '.join(titles)}**: type them after `new`, e.g. `new {titles[0]} {example}`."]
    for option, where in offered.values():
        only = f", {' and '.join(where)} only" if len(where) < len(titles) else ""
        mark = " ✓ (this game)" if option.sym in chosen else ""
        lines.append(f"• `{option.sym}` — **{option.name}** ({option.section}{only}){mark}: {option.rule}")
    for name in titles:
        for word, syms in title_named(name).option_sets.items():
            lines.append(f"• `{word}` — all of {', '.join(f'`{s}`' for s in syms)} ({name}; the rulebook "
                         "recommends them together for a first play)")
    return "\n".join(lines)


def holdings_text(game: Game) -> str:
    """Cash, certificates, privates and trains, as text."""
    ctx, state = game.ctx, game.state
    cur = ctx.title.currency
    lines = []
    for player in state.players:
        held: dict[str, int] = {}
        for cert in player.certs:
            held[cert.company] = held.get(cert.company, 0) + cert.percent
        parts = [f"{sym} {pct}%" + (" (pres.)" if _is_president(game, player.id, sym) else "")
                 for sym, pct in held.items()]
        parts += [f"private {p}" for p in player.privates]
        lines.append(f"**{player.name}** {cur}{player.cash}" + (" · " + ", ".join(parts) if parts else ""))
    for sym, company in state.companies.items():
        if company.closed or not (company.floated or company.trains or company.cash):
            continue
        price = f" · price {share_price(ctx, state, sym)}" if company.market else ""
        trains = ", ".join(t.id for t in company.trains) or "no trains"
        loans = f" · {counted(company.loans, 'loan')}" if company.loans else ""
        privates = f" · owns {', '.join(company.privates)}" if company.privates else ""
        lines.append(f"**{sym}** {cur}{company.cash}{price} · {trains}{loans}{privates}")
    pool: dict[str, int] = {}
    for cert in state.pool:
        pool[cert.company] = pool.get(cert.company, 0) + cert.percent
    in_pool = " · pool " + ", ".join(f"{s} {p}%" for s, p in pool.items()) if pool else ""
    lines.append(f"Bank {cur}{state.bank}{in_pool}")
    return "\n".join(lines)


def _is_president(game: Game, player_id: str, sym: str) -> bool:
    president = game.state.president(sym)
    company = game.state.companies.get(sym)
    return president is not None and president.id == player_id and company is not None and company.is_major


def fingerprints(game: Game) -> dict[str, int]:
    """Cheap digests of what each picture shows, to post only the pictures that changed."""
    state = game.state
    return {
        "map": hash(repr((sorted(state.map.tiles.items()), sorted(state.map.tokens.items())))),
        "market": hash(repr(sorted(state.market.items()))),
        "table": hash(repr((
            state.players, state.companies, state.bank, state.pool, sorted(state.private_owner.items()),
            sorted(state.closed_privates), state.depot, state.phase, round_title(game), state.finished,
        ))),
    }


def changed_pictures(before: dict[str, int], after: dict[str, int]) -> list[str]:
    return [name for name in PICTURES if before[name] != after[name]]


def routes_payload(game: Game, action: Action, priced: Sequence[RouteResult] = ()) -> dict[str, Any] | None:
    """For a run, before it is applied: the company and each train's route as the
    engine prices it (``priced`` if the routes were priced while the command was read),
    as JSON for the post's routes picture; None for other actions (and for a run the
    engine refuses)."""
    if not isinstance(action, RunRoutes) or not action.routes:
        return None
    results = list(priced)
    if not results:
        try:
            results = check_routes(game.ctx, game.state, game.state.companies[action.entity], action.routes)
        except EngineError:
            return None
    ran = {r.train for r in results}
    idle = [t.id for t in game.state.companies[action.entity].trains if not t.operated and t.id not in ran]
    return {"company": action.entity, "idle": idle, "trains": [
        {"train": r.train, "stops": [list(s) for s in r.stops], "legs": [list(leg) for leg in r.legs],
         "revenue": r.revenue, "counted": [list(s) for s in r.counted]} for r in results
    ]}


def _route_results(payload: dict[str, Any]) -> list[RouteResult]:
    return [RouteResult(t["train"], tuple((h, int(n)) for h, n in t["stops"]),
                        tuple(tuple(leg) for leg in t["legs"]), int(t["revenue"]),
                        tuple((h, int(n)) for h, n in t.get("counted", [])))  # older posts have none
            for t in payload["trains"]]


async def render_pictures(
    game: Game, names: list[str], *, highlight: str | None = None, focus: str | None = None,
    routes: dict[str, Any] | None = None,
) -> list[Picture]:
    """The named pictures as PNG, drawn and encoded in worker threads: ``game`` must not
    change meanwhile (hold its channel, or pass a copy). "routes" draws the run in
    ``routes`` (from :func:`routes_payload`)."""
    svgs = await asyncio.to_thread(_draw, game, names, highlight, focus, routes)
    pngs = await asyncio.gather(*(asyncio.to_thread(svg_to_png, svg) for svg in svgs.values()))
    return [Picture(name, png) for name, png in zip(svgs, pngs)]


def _draw(
    game: Game, names: list[str], highlight: str | None, focus: str | None, routes: dict[str, Any] | None
) -> dict[str, str]:
    """The named pictures as SVG."""
    ctx, state = game.ctx, game.state
    svgs: dict[str, str] = {}
    for name in names:
        if name == "map":
            svgs[name] = render_map(ctx, state, highlight=highlight or (), focus=focus)
        elif name == "market":
            svgs[name] = render_market(ctx, state)
        elif name == "routes" and routes:
            svgs[name] = render_routes(ctx, state, routes["company"], _route_results(routes),
                                       routes.get("idle", []))
        elif name == "tiles" and focus:
            svgs[name] = render_tiles(ctx, state, focus, sheet_candidates(game, focus))
        elif name == "table":
            actor = game.actor()
            acting = player_name(game, actor) if actor == game.acting_player() else actor
            svgs[name] = render_table(ctx, state, round_name=round_title(game), acting=acting)
    return svgs


def help_text(rest: str) -> str:
    """All commands by kind, or one command's usage."""
    word = rest.strip().lower().lstrip("!/")
    if word:
        try:
            verb, _ = split(word)
        except Refusal as exc:
            return str(exc)
        info = VERBS[verb]
        return f"`{info.usage}` — {info.summary}."
    groups = {"setup": "Set-up", "action": "Your move", "turn": "Turns", "info": "Look", "admin": "Commissioner"}
    lines = []
    for kind, title in groups.items():
        names = ", ".join(f"`{v.name}`" for v in VERBS.values() if v.kind == kind)
        lines.append(f"**{title}**: {names}")
    lines.append("Examples: `bid TSR 25`, `auction N 140`, `buy NW pool`, `tiles` then `lay H10 58 1`, "
                 "`run 2-0: H8-G5-E1`, `train 3`, `train 2-1 from KB 150`. `help COMMAND` for one. "
                 "On Discord, start a command with `!` or `/`, or mention the bot.")
    return "\n".join(lines)


def seat_name(record: GameRecord, player_id: str | None) -> str:
    """The display name of the seat with this player id."""
    seat = next((s for s in record.seats if s.player_id == player_id), None)
    return seat.display_name if seat else (player_id or "the bot")


def event_command(record: GameRecord, event: Event) -> str:
    """A stored action of the game as the command that makes it."""
    board = load_board(record.title) if record.title in TITLES else None
    try:
        return command(None, action_from_dict(event.action), board=board)
    except EngineError:
        return str(event.action.get("type"))


@dataclass(frozen=True)
class Moves:
    """A game's log read for its lines: the actions in effect, and each action's move
    number (its place in the line of play when it was made: the number the web page's
    slider and ``?at=N`` show the game after; an undone move keeps the number it had)."""

    effective: frozenset[int]
    numbers: dict[int, int]


def numbered(events: Sequence[Event]) -> Moves:
    """The moves of ``events``, a game's whole log in order."""
    in_effect = effective_events(events)
    numbers = {e.seq: n for n, e in enumerate(in_effect, 1)}
    for i, event in enumerate(events):
        if event.kind is EventKind.ACTION and event.seq not in numbers:  # undone: rare, so counted again
            numbers[event.seq] = len(effective_events(events[:i])) + 1
    return Moves(frozenset(e.seq for e in in_effect), numbers)


def log_line(record: GameRecord, event: Event, moves: Moves, moved: list[Event],
             typed: str | None = None) -> str | None:
    """One line of the ``log`` command: a move's number (``#N``), the time and what
    happened; None for bookkeeping the players need not see."""
    text = log_text(record, event, moves, moved, typed)
    if text is None:
        return None
    number = f"#{moves.numbers[event.seq]} " if event.seq in moves.numbers else ""
    made = made_at(record, event)
    return f"{number}{made.strftime('%d %b %H:%M') if made else 'imported'} {text}"


def made_at(record: GameRecord, event: Event) -> datetime | None:
    """When a move was made; None for one imported without its time (an 18xx.games log
    that does not say), which the store dates at the import itself: exactly the game's
    own creation time, which no move made afterwards can have."""
    return None if event.created_at == record.created_at else event.created_at


def log_text(record: GameRecord, event: Event, moves: Moves, moved: list[Event],
             typed: str | None = None) -> str | None:
    """What a log line says happened, or None for bookkeeping the players need not see;
    ``moved``: the actions an undo took back or a redo restored; ``typed``: an action's
    command as it was typed where it was made, if known (else the form that names all)."""
    who = seat_name(record, event.actor)
    data = event.action
    note = f" _({event.note})_" if event.note else ""
    if event.kind is EventKind.ACTION:
        entity = data.get("entity")
        for_ = f" for {entity}" if entity not in (event.actor, None) and data.get("type") != "end_game" else ""
        undone = "" if event.seq in moves.effective else " — undone"
        return f"{who}{for_}: `{typed or event_command(record, event)}`{note}{undone}"
    what = ", ".join(f"#{moves.numbers[e.seq]} `{event_command(record, e)}`" for e in moved)
    if event.kind is EventKind.UNDO:
        return f"↶ {who} takes back {what or 'a move'}{note}"
    if event.kind is EventKind.REDO:
        return f"↷ {who} redoes {what or 'a move'}{note}"
    if event.kind is EventKind.SEAT:
        seats = ", ".join(s["display_name"] for s in data.get("seats", []))
        return f"seats: {seats}{note}"
    kind = data.get("type")
    texts = {
        "start": "the game starts",
        "pause": f"⏸ {who} pauses the game",
        "resume": f"▶ {who} resumes the game",
        "settings": f"⏰ {who} sets reminders to "
                    + (f"{data.get('remind_hours'):g} h" if data.get("remind_hours") else "off"),
        "ask": f"{who} asks {seat_name(record, data.get('consenter'))} to agree: `{data.get('command')}`",
        "answer": f"{who} {data.get('answer')}",
        "reminder": f"⏰ reminder {data.get('stage')}",
        "archive": "📦 archived for want of moves",
        "unarchive": f"📦 {who} brings the game back from the archive",
    }
    text = texts.get(str(kind))
    return f"{text}{note}" if text else None
