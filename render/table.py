"""The table as SVG: players, companies, privates, trains and phase, under a header line.

What is happening (the round, who acts) comes in as plain text, so this module
reads only the state, the board and pure engine helpers: the stock price order
(``engine.market``), the certificate count (``engine.shares``), net worth
(``engine.scoring``) and the minors open to auction (``engine.stock_round``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import groupby

from engine import (
    AuctionView,
    Company,
    Context,
    Game,
    GameState,
    TurnView,
    available_minors,
    cert_count,
    cert_limit,
    describe_options,
    final_values,
    in_price_order,
    turn_view,
)

from .colors import swatch
from .svg import (
    INK,
    PAPER,
    PHASE_COLORS,
    el,
    money,
    svg_root,
    text,
    text_width,
    to_string,
)

PAD = 24.0
FONT = 16.0
HEAD_FONT = 15.0
SMALL_FONT = 14.0
TITLE_FONT = 20.0
HEADER_FONT = 24.0
ROW = 30.0
CELL_PAD = 10.0
CHIP_PAD = 6.0
SECTION_GAP = 22.0
CARD = (84.0, 74.0)
"""Width and height of a train card."""
DIM = "#8a8a8a"
STRIPE = "#f3f1ea"
HEAD_BACK = "#dcd8cc"
ACTING = "#fff1a8"
TYPE_ORDER = {"minor": 0, "major": 1, "national": 2}
OTHERS = {
    ("auction", None): "May be auctioned:",
    ("unstarted", "major"): "Majors not started:",
    ("unstarted", "minor"): "Minors not started:",
    ("merged", None): "Merged:",
    ("closed", None): "Closed:",
}
"""Companies listed as chips rather than table rows, by status (and type, so 1867's
majors and green minors waiting to start are told apart)."""
CHIP_LINE = 900.0
"""Width at which those chips wrap."""

CSS = f"""
.head text {{ font-weight: bold; }}
.chip rect {{ stroke: {INK}; stroke-width: 1; }}
.card rect {{ fill: {PAPER}; stroke: {INK}; stroke-width: 1.5; }}
.card.next rect {{ stroke-width: 4; }}
.swatch {{ stroke: {INK}; stroke-width: 1; }}
"""


@dataclass
class _Cell:
    text: str = ""
    bold: bool = False
    chip: str | None = None  # a company symbol drawn as a coloured chip before the text


@dataclass
class _Row:
    cells: list[_Cell]
    attrs: dict[str, object] = field(default_factory=dict)  # data- attributes of the row
    dim: bool = False
    marked: bool = False  # the row of whoever acts


def render_table(
    ctx: Context, state: GameState, *, round_name: str | None = None, acting: str | None = None
) -> str:
    """The table picture as an SVG document.

    ``round_name`` (e.g. "Operating round 3.1") and ``acting`` (a player's name or a
    company symbol) are shown in the header; the acting row is marked.
    """
    body = ET.Element("g")
    view = turn_view(Game(ctx, state))
    parts: list[Callable[[float], tuple[float, float]]] = [
        lambda y: _options(ctx, body, PAD, y),
        lambda y: _table(ctx, body, PAD, y, "Players", *_players(ctx, state, acting)),
        lambda y: _table(ctx, body, PAD, y, "Companies", *_companies(ctx, state, acting)),
        lambda y: _others(ctx, state, view, body, PAD, y),
        lambda y: _table(ctx, body, PAD, y, "Private companies", *_privates(ctx, state, view)),
        lambda y: _trains(ctx, state, body, PAD, y),
        lambda y: _phase(ctx, state, body, PAD, y),
    ]
    y = PAD + HEADER_FONT
    width = 0.0
    for part in parts:
        w, h = part(y + SECTION_GAP)
        if h:
            width, y = max(width, w), y + SECTION_GAP + h
    header = _header_text(ctx, state, round_name, acting)
    width = max(width, text_width(header, HEADER_FONT, True)) + 2 * PAD
    root = svg_root(width, y + PAD, CSS, class_="table", data_phase=state.phase)
    el(root, "rect", width=width, height=y + PAD, fill=PAPER)
    text(
        root,
        PAD,
        PAD + HEADER_FONT / 2,
        header,
        size=HEADER_FONT,
        bold=True,
        anchor="start",
        class_="header",
    )
    root.append(body)
    return to_string(root)


def _header_text(ctx: Context, state: GameState, round_name: str | None, acting: str | None) -> str:
    parts = [ctx.board.title]
    if state.finished:
        values = final_values(ctx, state)
        best = max(values.values())
        first = [p.name for p in state.players if values.get(p.id) == best]
        parts.append("game over: " + " and ".join(first) + (" win" if len(first) > 1 else " wins"))
    elif round_name:
        parts.append(round_name)
    if acting and not state.finished:
        parts.append(f"{acting} to act")
    parts += [f"phase {state.phase}", f"bank {money(ctx, state.bank)}"]
    return " · ".join(parts)


def _options(ctx: Context, body: ET.Element, x: float, y: float) -> tuple[float, float]:
    """The rulebook's optional rules in force (§14–16), and 18xx.games' rules for an
    import, under the header; nothing for a game by the plain rulebook."""
    shown = describe_options(ctx.board.title, ctx.rules.options)
    if ctx.rules.is_site:
        shown.append("18xx.games rules")
    if not shown:
        return 0.0, 0.0
    line = "Options: " + " · ".join(shown)
    text(body, x, y + FONT / 2, line, size=FONT, anchor="start", class_="options")
    return text_width(line, FONT), FONT


def _players(ctx: Context, state: GameState, acting: str | None) -> tuple[list[str], list[_Row]]:
    limit = cert_limit(ctx, state)
    majors = [
        s
        for s in ctx.board.corporations
        if any(c.company == s and c.percent < 100 for p in state.players for c in p.certs)
    ]
    headers = ["Player", "Cash", "Worth", "Certs", *majors, "Minors", "Privates"]
    worth = final_values(ctx, state)
    rows = []
    for i, player in enumerate(state.players):
        name = player.name + ("  (priority deal)" if i == state.priority else "")
        cells = [
            _Cell(name, bold=True),
            _Cell(money(ctx, player.cash)),
            _Cell(money(ctx, worth[player.id])),
            _Cell(f"{cert_count(player)}/{limit}"),
        ]
        for sym in majors:
            percent = player.percent_of(sym)
            president = any(c.company == sym and c.president for c in player.certs)
            cells.append(
                _Cell(
                    f"{percent}%" + (" P" if president else "") if percent else "", bold=president
                )
            )
        minors = [c.company for c in player.certs if c.percent == 100]
        cells.append(_Cell(" ".join(minors)))
        cells.append(_Cell(" ".join(player.privates)))
        rows.append(_Row(cells, {"data_player": player.id}, marked=acting == player.name))
    return headers, rows


def _status(ctx: Context, state: GameState, sym: str, auctions_open: bool = False) -> str:
    """'running', 'auction' (a minor open to auction, while the round lets minors be
    auctioned: ``auctions_open``), 'unstarted', 'merged' or 'closed'. The state railway
    always has a row (1861's RSR before it operates as 1867's CN)."""
    company = state.companies[sym]
    if company.merged_into is not None:
        return "merged"
    if company.closed:
        return "closed"
    if company.is_national or company.floated or company.market is not None:
        return "running"
    return "auction" if auctions_open and sym in available_minors(ctx, state) else "unstarted"


def _running(ctx: Context, state: GameState) -> list[str]:
    """Running companies in operating order: minors, majors (by share price), national."""
    running = [s for s in state.companies if _status(ctx, state, s) == "running"]
    priced = [s for s in running if state.companies[s].market is not None]
    ordered = in_price_order(ctx, state, priced) + [s for s in running if s not in priced]
    return sorted(ordered, key=lambda s: TYPE_ORDER[state.companies[s].type])


def _companies(ctx: Context, state: GameState, acting: str | None) -> tuple[list[str], list[_Row]]:
    headers = ["Company", "President", "Price", "Cash", "Trains", "Last run", "Loans", "Tokens left"]
    headers += ["Treasury", "Pool", "Privates"]
    rows = []
    for sym in _running(ctx, state):
        company = state.companies[sym]
        price = (
            ctx.board.market_cell(ctx.rules.market, *company.market).price if company.market else 0
        )
        treasury = sum(c.percent for c in company.treasury) if company.is_major else 0
        cells = [
            _Cell(ctx.board.corporations[sym].name, chip=sym),
            _Cell(_president(state, company)),
            _Cell(money(ctx, price) if price else ""),
            _Cell(money(ctx, company.cash)),
            _Cell(" ".join(t.name for t in company.trains)),
            _Cell(money(ctx, company.last_revenue) if company.last_revenue is not None else ""),
            _Cell(str(company.loans) if company.loans else ""),
            _Cell(f"{len(company.tokens) - len(company.placed_tokens)}/{len(company.tokens)}"),
            _Cell(_percent(treasury)),
            _Cell(_percent(state.pool_percent(sym))),
            _Cell(" ".join(company.privates)),
        ]
        attrs: dict[str, object] = {"data_company": sym, "data_status": "running"}
        rows.append(_Row(cells, attrs, marked=acting == sym))
    return headers, rows


def _president(state: GameState, company: Company) -> str:
    """Who runs a company: its president, or the player who operates the national."""
    if company.is_national:  # no president: a player runs it
        return f"run by {state.player(state.national_operator).name}" if state.national_operator else ""
    president = state.president(company.sym)
    return president.name if president else ""


def _others(
    ctx: Context, state: GameState, view: TurnView, parent: ET.Element, x: float, y: float
) -> tuple[float, float]:
    """Chips for the companies not started yet and for those closed, a group each,
    wrapped at ``CHIP_LINE`` pixels."""
    lines = 0
    width = 0.0
    indent = max(text_width(label, FONT, True) for label in OTHERS.values()) + CELL_PAD
    for (status, kind), label in OTHERS.items():
        syms = [
            s for s in state.companies
            if _status(ctx, state, s, view.minor_auctions_open) == status and kind in (None, state.companies[s].type)
        ]
        if not syms:
            continue
        group = el(parent, "g", class_="companies-" + status + (f"-{kind}" if kind else ""))
        text(group, x, y + lines * ROW + ROW / 2, label, size=FONT, bold=True, anchor="start")
        left = x + indent
        for sym in syms:
            if left + _chip_width(sym) > x + CHIP_LINE:
                lines, left = lines + 1, x + indent
            _chip(ctx, group, sym, left, y + lines * ROW + ROW / 2, data_status=status)
            left += _chip_width(sym) + CHIP_PAD
            width = max(width, left - x)
        lines += 1
    return width, lines * ROW


def _percent(value: int) -> str:
    return f"{value}%" if value else ""


def _privates(ctx: Context, state: GameState, view: TurnView) -> tuple[list[str], list[_Row]]:
    headers = ["Private", "Name", "Value", "Revenue", "Owner"]
    names = {p.id: p.name for p in state.players}
    notes = dict(view.private_notes)
    rows = []
    for private in ctx.board.privates:
        if private.sym not in state.private_owner and private.sym not in state.closed_privates:
            continue
        closed = private.sym in state.closed_privates
        owner = state.private_owner.get(private.sym)
        shown = "closed" if closed else names.get(owner or "", owner) or "for sale"
        shown = notes.get(private.sym, shown)
        if view.auction is not None and view.auction.what == "private" and private.sym == view.auction.item:
            shown = _auction_text(ctx, state, view.auction)
        cells = [
            _Cell(private.sym, bold=True),
            _Cell(private.name),
            _Cell(money(ctx, private.value)),
            _Cell(money(ctx, private.revenue)),
            _Cell(shown),
        ]
        rows.append(_Row(cells, {"data_private": private.sym}, dim=closed))
    return headers, rows


def _auction_text(ctx: Context, state: GameState, auction: AuctionView) -> str:
    """The private up for auction: the high bid, or the minimum an opening bid needs."""
    if auction.high_bidder is not None:
        return f"up for auction: {state.player(auction.high_bidder).name} bids {money(ctx, auction.high_bid)}"
    return f"up for auction: minimum bid {money(ctx, auction.minimum)}"


def _chip_width(sym: str) -> float:
    return text_width(sym, FONT, True) + 2 * CHIP_PAD


def _cell_width(cell: _Cell) -> float:
    chip = _chip_width(cell.chip) + CHIP_PAD if cell.chip else 0.0
    return chip + (text_width(cell.text, FONT, cell.bold) if cell.text else 0.0)


def _table(
    ctx: Context,
    parent: ET.Element,
    x: float,
    y: float,
    title: str,
    headers: list[str],
    rows: list[_Row],
) -> tuple[float, float]:
    """A titled table with a header row; returns its width and height."""
    widths = [
        max([text_width(h, HEAD_FONT, True)] + [_cell_width(r.cells[i]) for r in rows])
        + 2 * CELL_PAD
        for i, h in enumerate(headers)
    ]
    width = sum(widths)
    group = el(parent, "g", class_=title.split()[0].lower())
    text(
        group,
        x,
        y + TITLE_FONT / 2,
        title,
        size=TITLE_FONT,
        bold=True,
        anchor="start",
        class_="title",
    )
    top = y + TITLE_FONT + 8
    head = el(group, "g", class_="head")
    el(head, "rect", x=x, y=top, width=width, height=ROW, fill=HEAD_BACK)
    left = x
    for h, w in zip(headers, widths):
        text(head, left + CELL_PAD, top + ROW / 2, h, size=HEAD_FONT, anchor="start")
        left += w
    for n, row in enumerate(rows):
        ry = top + ROW * (n + 1)
        g = el(group, "g", class_="row", **row.attrs)
        back = ACTING if row.marked else STRIPE if n % 2 else PAPER
        el(g, "rect", x=x, y=ry, width=width, height=ROW, fill=back)
        left = x
        for cell, w in zip(row.cells, widths):
            _draw_cell(ctx, g, cell, left + CELL_PAD, ry + ROW / 2, row.dim)
            left += w
    return width, top - y + ROW * (len(rows) + 1)


def _draw_cell(
    ctx: Context, parent: ET.Element, cell: _Cell, x: float, cy: float, dim: bool
) -> None:
    if cell.chip:
        _chip(ctx, parent, cell.chip, x, cy)
        w = _chip_width(cell.chip)
        x += w + CHIP_PAD
    if cell.text:
        text(
            parent,
            x,
            cy,
            cell.text,
            size=FONT,
            bold=cell.bold,
            anchor="start",
            fill=DIM if dim else None,
        )


def _chip(ctx: Context, parent: ET.Element, sym: str, x: float, cy: float, **attrs: object) -> None:
    """A company's symbol on its colour, left edge at ``x``, centred on ``cy``."""
    colors = swatch(ctx.board, sym)
    w = _chip_width(sym)
    chip = el(parent, "g", class_="chip", data_company=sym, **attrs)
    el(
        chip,
        "rect",
        x=x,
        y=cy - ROW / 2 + 3,
        width=w,
        height=ROW - 6,
        rx=4.0,
        fill=colors.fill,
    )
    text(chip, x + w / 2, cy, sym, size=FONT, bold=True, fill=colors.text)


def _trains(
    ctx: Context, state: GameState, parent: ET.Element, x: float, y: float
) -> tuple[float, float]:
    """Cards for the trains still to come (the next one framed) and the bank pool."""
    group = el(parent, "g", class_="trains")
    text(
        group,
        x,
        y + TITLE_FONT / 2,
        "Trains",
        size=TITLE_FONT,
        bold=True,
        anchor="start",
        class_="title",
    )
    top = y + TITLE_FONT + 8
    left = x
    for i, (name, trains) in enumerate(groupby(state.depot.upcoming, key=lambda t: t.name)):
        train = ctx.board.train(name)
        if train.available_on and _phase_rank(ctx, state.phase) < _phase_rank(
            ctx, train.available_on
        ):
            count = f"from phase {train.available_on}"
        else:
            count = "unlimited" if train.count is None else f"{len(list(trains))} left"
        left = _card(group, left, top, name, money(ctx, train.price), count, "depot", next_=i == 0)
    if state.depot.pool:
        label = "bank pool:"
        text(group, left + CELL_PAD, top + CARD[1] / 2, label, size=FONT, anchor="start")
        left += 2 * CELL_PAD + text_width(label, FONT)
        names = sorted((t.name for t in state.depot.pool), key=lambda n: ctx.board.train(n).rank)
        for name, copies in groupby(names):
            train = ctx.board.train(name)
            left = _card(
                group, left, top, name, money(ctx, train.price), f"{len(list(copies))} for sale", "pool"
            )
    return left - x, top - y + CARD[1]


def _phase_rank(ctx: Context, name: str) -> int:
    return [p.name for p in ctx.board.phases].index(name)


def _card(
    parent: ET.Element,
    x: float,
    y: float,
    name: str,
    price: str,
    count: str,
    source: str,
    *,
    next_: bool = False,
) -> float:
    """One train card: name, price, how many; returns the x of the next card."""
    w = max(CARD[0], text_width(count, SMALL_FONT) + 12, text_width(name, TITLE_FONT, True) + 16)
    card = el(
        parent, "g", class_="card next" if next_ else "card", data_train=name, data_source=source
    )
    el(card, "rect", x=x, y=y, width=w, height=CARD[1], rx=6.0)
    text(card, x + w / 2, y + 18, name, size=TITLE_FONT, bold=True)
    text(card, x + w / 2, y + 42, price, size=SMALL_FONT)
    text(card, x + w / 2, y + 62, count, size=SMALL_FONT, fill=DIM, class_="count")
    return x + w + 8


def _phase(
    ctx: Context, state: GameState, parent: ET.Element, x: float, y: float
) -> tuple[float, float]:
    """The phase: tile colours allowed, train limits, operating rounds per set."""
    phase = ctx.board.phase(state.phase)
    group = el(parent, "g", class_="phase", data_phase=phase.name)
    words = f"Phase {phase.name}: tiles"
    text(group, x, y + ROW / 2, words, size=FONT, bold=True, anchor="start")
    left = x + text_width(words, FONT, True) + CELL_PAD
    for color in phase.tiles:
        el(
            group,
            "rect",
            class_="swatch",
            x=left,
            y=y + 6,
            width=34.0,
            height=ROW - 12,
            fill=PHASE_COLORS[color],
            data_color=color,
        )
        left += 40
    limits = ", ".join(
        f"{kind} {n}"
        for kind, n in sorted(phase.train_limit.items(), key=lambda kv: TYPE_ORDER[kv[0]])
    )
    rest = f"train limit: {limits} · {phase.operating_rounds} operating rounds per set"
    text(group, left + CELL_PAD, y + ROW / 2, rest, size=FONT, anchor="start")
    return left + CELL_PAD + text_width(rest, FONT) - x, ROW
