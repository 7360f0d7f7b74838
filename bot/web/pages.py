"""The web page's HTML: templates (``templates/``) filled with escaped text.

Every text that comes from a game (names, log lines, options) passes through
:func:`html.escape` here; the templates hold no script, and the page's one script is
the static file ``static/web.js``. The stylesheet ``static/web.css`` goes in each page's
head (allowed by its hash).
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from string import Template

from engine import Game, describe_options, round_title, share_price
from storage import Event, GameRecord, GameStatus

from ..posts import doing, log_text, made_at, numbered, results_text, who_acts, winners_text
from .history import GameHistory

TEMPLATES = Path(__file__).with_name("templates")
STYLE = Path(__file__).with_name("static").joinpath("web.css").read_text(encoding="utf-8")
"""The pages' stylesheet, in each page's head: the page paints without asking for another file."""
STYLE_SOURCE = "'sha256-" + base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode() + "'"
"""The one style the pages' Content-Security-Policy allows (no other inline style)."""
LOG_SHOWN = 60
"""Moves the log shows, the latest first (older ones: move the slider back)."""
MARKDOWN = re.compile(r"\*\*|`|(?<![\w`])_|_(?![\w`])")


@cache
def template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text(encoding="utf-8"))


def fill(file: str, /, **values: str | int) -> str:
    """The template ``file`` with ``values``, which must be escaped HTML already."""
    return template(file).substitute(values)


def page(file: str, title: str, /, **values: str | int) -> str:
    """A whole page: the template ``file`` after the head every page shares (its
    stylesheet and its one script), titled ``title`` (plain text)."""
    return fill(file, head=fill("head.html", title=text(title), style=STYLE), **values)


def text(value: object) -> str:
    """Plain text (Markdown marks taken out) as HTML."""
    return html.escape(MARKDOWN.sub("", str(value)))


def when(moment: datetime) -> str:
    """A time, in the one form every time on the page takes; the page's script shows it
    in the reader's zone, in that form (UTC without the script)."""
    iso = moment.isoformat(timespec="seconds")
    return f'<time datetime="{html.escape(iso)}">{html.escape(moment.strftime("%d %b %Y %H:%M UTC"))}</time>'


def made(record: GameRecord, event: Event) -> str:
    """When a move was made, as :func:`when` writes it; nothing for one imported without its time."""
    moment = made_at(record, event)
    return "" if moment is None else when(moment)


def over(game: Game, status: GameStatus) -> str:
    """The page's badge for a game that is over (``finished: Anna wins``), else empty."""
    if game.state.finished:
        return f"finished: {winners_text(game)}"
    return "ended" if status is GameStatus.ABANDONED else ""


@dataclass(frozen=True)
class Moment:
    """What the page shows: the game after move ``n`` of its history."""

    history: GameHistory
    game: Game
    n: int
    turn_began: datetime | None
    """When the turn now under way began (at the latest move), else None."""


def moment_html(moment: Moment, base: str) -> str:
    """The part of a game's page that changes with the move shown."""
    history, game, n = moment.history, moment.game, moment.n
    record, state = history.record, game.state
    heading = (f"{record.title} game {record.id} · {round_title(game)} · phase {state.phase} · "
               f"{game.ctx.rules.market} market")
    label = f'After move {n} of <span id="at-total">{history.total}</span>'
    stamp = made(record, history.moves[n - 1]) if n else ""
    if n:
        label += f" ({stamp})" if stamp else " (imported: its time is not known)"
    rules = game.ctx.rules
    in_force = describe_options(record.title, rules.options) + (["18xx.games rules"] if rules.is_site else [])
    return fill(
        "moment.html", base=html.escape(base), at=n, heading=text(heading), at_label=label,
        over=text(over(game, record.status)),
        turn=_turn(moment), options="Options: " + text(" · ".join(in_force) or "none"),
        players=_players(game), companies=_companies(game), **_log(history, n),
    )


def _turn(moment: Moment) -> str:
    game = moment.game
    if game.state.finished:
        return text(results_text(game))
    if moment.history.record.status is GameStatus.ABANDONED:
        return "The game was ended."
    since = f" since {when(moment.turn_began)}" if moment.turn_began else ""
    return f'To act: <strong id="acting">{text(who_acts(game))}</strong> {text(doing(game))}{since}'


def _players(game: Game) -> str:
    cur = html.escape(game.ctx.title.currency)
    rows = []
    for player in game.state.players:
        held: dict[str, int] = {}
        for cert in player.certs:
            held[cert.company] = held.get(cert.company, 0) + cert.percent
        shares = ", ".join(f"{sym} {pct}%" for sym, pct in held.items())
        rows.append(f'<tr data-player="{html.escape(player.id)}"><th scope="row">{text(player.name)}</th>'
                    f'<td class="cash">{cur}{player.cash}</td><td>{text(shares)}</td>'
                    f'<td>{text(", ".join(player.privates))}</td></tr>')
    return ('<table id="players"><thead><tr><th>Player</th><th>Cash</th><th>Shares</th><th>Privates</th></tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table>')


def _companies(game: Game) -> str:
    ctx, state = game.ctx, game.state
    cur = html.escape(ctx.title.currency)
    rows = []
    for sym, company in state.companies.items():
        if company.closed or not (company.floated or company.trains or company.cash):
            continue
        price = str(share_price(ctx, state, sym)) if company.market else ""
        trains = ", ".join(t.id for t in company.trains)
        rows.append(f'<tr data-company="{html.escape(sym)}"><th scope="row">{text(sym)}</th>'
                    f'<td class="cash">{cur}{company.cash}</td><td class="price">{price}</td>'
                    f'<td>{text(trains)}</td></tr>')
    return ('<table id="companies"><thead><tr><th>Company</th><th>Cash</th><th>Price</th><th>Trains</th></tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table><p id="bank">Bank {cur}{state.bank}</p>')


def _log(history: GameHistory, n: int) -> dict[str, str]:
    """The moves up to ``n``, the latest first, each under its move number (the ``#N`` of
    the bot's ``log``, the slider's N), with its time and what it did."""
    record = history.record
    moves = numbered(history.events)
    items = []
    for index in range(n - 1, max(n - LOG_SHOWN, 0) - 1, -1):
        event = history.moves[index]
        line = log_text(record, event, moves, []) or ""
        effects = "".join(f"<li>{text(e)}</li>" for e in history.effects.get(index, []))
        items.append(f'<li value="{index + 1}">{made(record, event)} {text(line)}'
                     + (f"<ul>{effects}</ul>" if effects else "") + "</li>")
    earlier = n - len(items)
    note = f"{earlier} earlier moves: move the slider back to see them." if earlier > 0 else ""
    return {"log": "".join(items), "log_note": text(note)}


def game_page(moment: Moment, base: str, live: bool) -> str:
    """A game's whole page, showing ``moment``."""
    history = moment.history
    record = history.record
    ended = over(moment.game, record.status) if moment.n == history.total else ""
    badge = ended or ("live" if live else f"move {moment.n} of {history.total}")  # as the script then keeps it
    return page(
        "game.html", f"{record.title} game {record.id}", title=text(f"{record.title} game {record.id}"),
        base=html.escape(base), at=moment.n, badge=text(badge),
        badge_class="finished" if ended else "live" if live else "history",
        total=history.total, live="1" if live else "0", moment=moment_html(moment, base),
    )


@dataclass(frozen=True)
class GameLine:
    """One game in a player's list."""

    link: str
    title: str
    where: str
    turn: str
    mine: bool
    finished: bool = False


def player_page(name: str, games: list[GameLine]) -> str:
    """A player's games, with whose turn it is in each (finished ones marked so, with their results)."""
    items = []
    for g in games:
        mark = " class=mine" if g.mine else " class=finished" if g.finished else ""
        state = "<strong>finished</strong>: " if g.finished else ""
        yours = " — <strong>your turn</strong>" if g.mine else ""
        items.append(f'<li{mark}><a href="{html.escape(g.link)}">{text(g.title)}</a> '
                     f'<span class="where">{text(g.where)}</span> — {state}{text(g.turn)}{yours}</li>')
    return page("player.html", f"Troika · {name}'s games", name=text(name),
                games="".join(items) or "<li>No game being played.</li>")


def missing_page() -> str:
    """The one answer to any address that is not a page: says nothing of what exists."""
    return fill("missing.html")
