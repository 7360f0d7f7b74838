"""The printed board: hex coordinates, tiles parsed from the code notation, and the map.

Everything here is static data read from ``engine/titles/<title>/board.json`` (format in
``shared/reference/README.md``); what changes during a game (laid tiles, tokens)
lives in :mod:`engine.state`.

Track ends are small integers: ``0..5`` is a tile edge, ``-1 - i`` is the tile's
i-th revenue node (cities, towns and off-boards in the order they are listed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from .errors import DataError
from .options import EXPORT_PER_SET

COLORS = ("white", "yellow", "green", "brown", "gray")
"""Tile colours in upgrade order (white = empty land)."""

# Edge -> (dx, dy) of the neighbour across that edge on the flat layout.
EDGE_DELTAS: dict[int, tuple[int, int]] = {
    0: (0, 2),
    1: (-1, 1),
    2: (-1, -1),
    3: (0, -2),
    4: (1, -1),
    5: (1, 1),
}

_DIGITS = "0123456789"
"""What a hex name or a market cell is read with (str methods, no regular expression:
compiling one costs every start of the program 0.6 M instructions)."""


def parse_hex(hex_id: str) -> tuple[int, int]:
    """'H8' -> (7, 8): column index from the letters, row number."""
    letters = hex_id.rstrip(_DIGITS)
    number = hex_id[len(letters) :]
    if not (number and letters.isascii() and letters.isalpha() and letters.isupper()):
        raise DataError(f"{hex_id!r} is not a hex name like H8")
    x = 0
    for ch in letters:
        x = x * 26 + (ord(ch) - ord("A") + 1)
    return x - 1, int(number)


def _neighbours_of(at: dict[tuple[int, int], str], x: int, y: int) -> dict[int, str]:
    """The hexes of the map around (x, y), by edge (``at``: the map's hexes by place)."""
    found = {}
    for edge, (dx, dy) in EDGE_DELTAS.items():
        other = at.get((x + dx, y + dy))
        if other is not None:
            found[edge] = other
    return found


def hex_distance(a: str, b: str) -> int:
    """Number of hex borders crossed between two hexes (rulebook 8.7 token cost)."""
    ax, ay = parse_hex(a)
    bx, by = parse_hex(b)
    dx, dy = abs(ax - bx), abs(ay - by)
    return dx + max(0, (dy - dx) // 2)


def is_edge(end: int) -> bool:
    """True for a tile edge end, False for a revenue-node end."""
    return end >= 0


def node_end(index: int) -> int:
    """The track end that stands for revenue node ``index``."""
    return -1 - index


def node_index(end: int) -> int:
    """The revenue node a negative track end stands for."""
    return -1 - end


class Node(NamedTuple):
    """A revenue centre printed on a tile or hex."""

    kind: str  # "city", "town" or "offboard"
    revenue: int = 0
    slots: int = 1
    phase_revenue: tuple[tuple[str, int], ...] = ()  # off-boards: (colour, value)
    groups: tuple[str, ...] = ()
    hidden: bool = False
    loc: float | None = None

    def value(self, phase_color: str) -> int:
        """The node's revenue in a phase whose latest tile colour is ``phase_color``."""
        if not self.phase_revenue:
            return self.revenue
        by_color = dict(self.phase_revenue)
        for color in reversed(COLORS[: COLORS.index(phase_color) + 1]):
            if color in by_color:
                return by_color[color]
        return self.phase_revenue[0][1]


class Border(NamedTuple):
    """A drawn or rule-bearing hex border."""

    edge: int
    type: str | None = None  # None (outline only), "impassable", "water"
    cost: int = 0


@dataclass(frozen=True, eq=False, repr=False)  # one object per tile of a board: identity tells them apart
class TileDef:
    """A tile (or the printed contents of a map hex) parsed from the code notation."""

    name: str
    color: str
    nodes: tuple[Node, ...] = ()
    paths: tuple[tuple[int, int], ...] = ()
    label: str | None = None
    future_label: tuple[str, str] | None = None  # (label, colour it applies from)
    upgrade_cost: int = 0
    terrain: str | None = None
    borders: tuple[Border, ...] = ()
    stubs: tuple[int, ...] = ()
    count: int | None = None  # None = unlimited

    @cached_property
    def city_indexes(self) -> tuple[int, ...]:
        return tuple(i for i, n in enumerate(self.nodes) if n.kind == "city")

    @cached_property
    def town_indexes(self) -> tuple[int, ...]:
        return tuple(i for i, n in enumerate(self.nodes) if n.kind == "town")

    def rotated_paths(self, rotation: int) -> tuple[tuple[int, int], ...]:
        """Paths with every edge end turned clockwise by ``rotation`` sixths."""
        return self._turned(rotation).paths

    def numbered_paths(
        self, rotation: int
    ) -> tuple[tuple[int, ...], tuple[tuple[tuple[bool, int], tuple[bool, int]], ...]]:
        """The edges the paths end on at ``rotation`` (in the order the paths first reach
        them), and each path's two ends as (is a node, node index or that edge's position)."""
        turned = self._turned(rotation)
        return turned.edge_order, turned.numbered

    def exits(self, rotation: int) -> frozenset[int]:
        """Hex edges that track on this tile leaves by, at ``rotation``."""
        return self._turned(rotation).exits

    def node_exits(self, rotation: int) -> tuple[frozenset[int], ...]:
        """For each node, the hex edges joined to it directly by a path."""
        return self._turned(rotation).node_exits

    def edge_pairs(self, rotation: int) -> frozenset[frozenset[int]]:
        """Plain edge-to-edge track pieces (not through a node)."""
        return self._turned(rotation).edge_pairs

    def _turned(self, rotation: int) -> _Turned:
        """The tile's track at ``rotation``, worked out the first time it is asked for."""
        rotation %= 6
        turned = self._turns[rotation]
        if turned is None:
            turned = self._turns[rotation] = _Turned.of(self, rotation)
        return turned

    @cached_property
    def _turns(self) -> list[_Turned | None]:
        return [None] * 6


class _Turned(NamedTuple):
    """A tile's track at one rotation, worked out once (the rules ask for it often)."""

    paths: tuple[tuple[int, int], ...]
    exits: frozenset[int]
    node_exits: tuple[frozenset[int], ...]
    edge_pairs: frozenset[frozenset[int]]
    edge_order: tuple[int, ...]  # the edges the paths end on, in the order they first do
    numbered: tuple[tuple[tuple[bool, int], tuple[bool, int]], ...]  # see TileDef.numbered_paths

    @classmethod
    def of(cls, tile: TileDef, rotation: int) -> _Turned:
        # Worked out for every tile and rotation laid, so the ends are told apart in
        # line: an edge is 0..5 (it turns with the tile), a node end is negative
        # (:func:`is_edge`, :func:`node_index`).
        paths = tuple(((a + rotation) % 6 if a >= 0 else a, (b + rotation) % 6 if b >= 0 else b) for a, b in tile.paths)
        node_exits: list[set[int]] = [set() for _ in tile.nodes]
        edge_order: list[int] = []  # the edges the paths end on, in the order they first do
        for a, b in paths:
            if a < 0 <= b:
                node_exits[-1 - a].add(b)
            elif b < 0 <= a:
                node_exits[-1 - b].add(a)
            for e in (a, b):
                if e >= 0 and e not in edge_order:
                    edge_order.append(e)
        return cls(
            paths=paths,
            edge_order=tuple(edge_order),
            numbered=tuple(
                (
                    (False, edge_order.index(a)) if a >= 0 else (True, -1 - a),
                    (False, edge_order.index(b)) if b >= 0 else (True, -1 - b),
                )
                for a, b in paths
            ),
            exits=frozenset(edge_order),
            node_exits=tuple(frozenset(found) for found in node_exits),
            edge_pairs=frozenset(frozenset(p) for p in paths if p[0] >= 0 and p[1] >= 0),
        )


def _parse_fields(body: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for item in body.split(","):
        if not item:
            continue
        key, _, value = item.partition(":")
        fields[key] = value
    return fields


def _parse_end(text: str) -> int:
    return node_end(int(text[1:])) if text.startswith("_") else int(text)


def parse_tile(name: str, color: str, code: str, count: int | None = None) -> TileDef:
    """Parse the ``;``-separated code notation of a tile or map hex."""
    nodes: list[Node] = []
    paths: list[tuple[int, int]] = []
    label = None
    future_label = None
    upgrade_cost = 0
    terrain = None
    borders: list[Border] = []
    stubs: list[int] = []
    for part in filter(None, code.split(";")):
        kind, _, body = part.partition("=")
        f = _parse_fields(body)
        if kind in ("city", "town"):
            loc = f.get("loc")
            nodes.append(
                Node(
                    kind,
                    int(f.get("revenue", "0")),
                    int(f.get("slots", "1")),
                    loc=float(loc) if loc else None,
                )
            )
        elif kind == "offboard":
            revenue = f["revenue"]
            phases: tuple[tuple[str, int], ...] = ()
            if "_" in revenue:
                phases = tuple(
                    (c, int(v)) for c, v in (item.split("_") for item in revenue.split("|"))
                )
            base = phases[0][1] if phases else int(revenue)
            groups = tuple(filter(None, f.get("groups", "").split("|")))
            nodes.append(Node("offboard", base, 0, phases, groups, f.get("hide") == "1"))
        elif kind == "path":
            paths.append((_parse_end(f["a"]), _parse_end(f["b"])))
        elif kind == "label":
            label = body
        elif kind == "future_label":
            future_label = (f["label"], f["color"])
        elif kind == "upgrade":
            upgrade_cost = int(f.get("cost", "0"))
            terrain = f.get("terrain")
        elif kind == "border":
            borders.append(Border(int(f["edge"]), f.get("type"), int(f.get("cost", "0"))))
        elif kind == "stub":
            stubs.append(int(f["edge"]))
        else:
            raise DataError(f"tile {name}: unknown part {part!r}")
    return TileDef(
        name,
        color,
        tuple(nodes),
        tuple(paths),
        label,
        future_label,
        upgrade_cost,
        terrain,
        tuple(borders),
        tuple(stubs),
        count,
    )


class MarketCell(NamedTuple):
    """One space of a stock market."""

    row: int
    col: int
    price: int
    flags: str  # letters from the data: p, x, z, C, m

    @property
    def can_start_major(self) -> bool:
        return "p" in self.flags or "z" in self.flags

    @property
    def can_start_minor(self) -> bool:
        return "p" in self.flags or "x" in self.flags

    @property
    def convert_zone(self) -> bool:
        """The blue zone (9.1)."""
        return "C" in self.flags

    @property
    def teal(self) -> bool:
        """The teal section: majors only (7.4, 9.2A)."""
        return "z" in self.flags

    @property
    def minor_ceiling(self) -> bool:
        return "m" in self.flags


@dataclass(frozen=True)
class TrainDef:
    """A train type from the data."""

    name: str
    price: int
    count: int | None  # None = unlimited
    rusts_on: str | None
    events: tuple[str, ...]
    available_on: str | None
    multiplier: int
    pay: int  # stops counted
    express: bool  # 5+5E: may skip cities, counts off-boards first
    trade_in: tuple[tuple[str, int], ...] = ()  # 1867: train handed in -> discount (8.11)

    @property
    def rank(self) -> int:
        return int(self.name.split("+")[0])


class PhaseDef(NamedTuple):
    """A game phase from the data (rulebook 11)."""

    name: str
    train_limit: dict[str, int]
    tiles: tuple[str, ...]
    status: tuple[str, ...]
    operating_rounds: int

    @property
    def color(self) -> str:
        """The latest tile colour: decides off-board values."""
        return self.tiles[-1]


class PrivateDef(NamedTuple):
    """A private company from the data (rulebook 3.1)."""

    sym: str
    name: str
    value: int
    revenue: int
    min_bid: int
    bonus_hexes: tuple[str, ...]
    bonus: int
    blocks_hexes: tuple[str, ...]


class CorporationDef(NamedTuple):
    """A major, minor or the national railway from the data."""

    sym: str
    name: str
    type: str  # "major", "minor", "national"
    tokens: tuple[int, ...]
    color: str
    text_color: str
    home: str | None = None
    home_city: int = 0


# One Board per title and option set, read once: told apart by identity, and no repr
# printing the whole map.
@dataclass(eq=False, repr=False)
class Board:
    """All static data of one title."""

    title: str
    hexes: dict[str, TileDef]
    tiles: dict[str, TileDef]
    upgrades: dict[str, tuple[str, ...]]
    location_names: dict[str, str]
    markets: dict[str, list[list[MarketCell | None]]]
    default_market: str
    phases: list[PhaseDef]
    trains: list[TrainDef]
    privates: list[PrivateDef]
    corporations: dict[str, CorporationDef]
    green_minors: tuple[str, ...]
    bonus_capitals: tuple[str, ...]
    bonus_revenue_hex: str | None
    national_reservations: tuple[str, ...]
    starting_cash: dict[int, int]
    cert_limit: dict[int, int]
    bank_cash: int
    player_range: tuple[int, int]
    lay_costs: tuple[int, ...]
    """8.6: a company's track actions in an operating turn, each with its extra cost
    (the first free, the second 20), from the board's ``tile_lays``."""
    printed_ids: dict[str, str] = field(default_factory=dict)
    """Hex -> the id 18xx.games gives what the map prints there (``D16-1``: the hex and
    its place among the hexes printed alike), which names its cities in site logs."""
    neighbours: dict[str, dict[int, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        at = {parse_hex(h): h for h in self.hexes}
        self.neighbours = {h: _neighbours_of(at, *xy) for xy, h in at.items()}

    @cached_property
    def across(self) -> dict[tuple[str, int], tuple[str, int]]:
        """For each hex edge that track may cross, the hex edge on the other side of the
        border (edges on impassable borders, and off the map, have none)."""
        closed = {(h, b.edge) for h, tile in self.hexes.items() for b in tile.borders if b.type == "impassable"}
        found: dict[tuple[str, int], tuple[str, int]] = {}
        for hex_id, sides in self.neighbours.items():
            for edge, other in sides.items():
                back = (edge + 3) % 6
                if (hex_id, edge) not in closed and (other, back) not in closed:
                    found[(hex_id, edge)] = (other, back)
        return found

    @property
    def national_operates(self) -> bool:
        """Whether the national railway runs (or, with 1861's train exports, would run)
        trains in some phase, holding a treasury and trains (8.13, 1861)."""
        return any("national_operates" in p.status or EXPORT_PER_SET in p.status for p in self.phases)

    def train(self, name: str) -> TrainDef:
        found = self._trains_named.get(name)
        if found is None:
            raise DataError(f"no train called {name!r}")
        return found

    @cached_property
    def _trains_named(self) -> dict[str, TrainDef]:
        return {t.name: t for t in self.trains}  # the rules ask for trains by name often

    @cached_property
    def early_trains(self) -> dict[str, int]:
        """The trains the yard sells before their turn comes: name -> the phase (as a
        number) from which it does (8.11)."""
        return {t.name: int(t.available_on) for t in self.trains if t.available_on is not None}

    def city_tiles(self, color: str) -> tuple[tuple[TileDef, int], ...]:
        """The tiles of ``color`` that have a city, in the board's order, each with the
        number of edges its track leaves by (worked out once per colour)."""
        found = self._city_tiles.get(color)
        if found is None:
            found = self._city_tiles[color] = tuple(
                (t, len(t.exits(0))) for t in self.tiles.values() if t.color == color and t.city_indexes
            )
        return found

    @cached_property
    def _city_tiles(self) -> dict[str, tuple[tuple[TileDef, int], ...]]:
        return {}

    def phase(self, name: str) -> PhaseDef:
        found = self._phases_named.get(name)
        if found is not None:
            return found
        raise DataError(f"no phase called {name!r}")

    @cached_property
    def _phases_named(self) -> dict[str, PhaseDef]:
        return {p.name: p for p in self.phases}

    def private(self, sym: str) -> PrivateDef:
        for p in self.privates:
            if p.sym == sym:
                return p
        raise DataError(f"no private company called {sym!r}")

    def majors(self) -> list[str]:
        return [s for s, c in self.corporations.items() if c.type == "major"]

    def minors(self) -> list[str]:
        return [s for s, c in self.corporations.items() if c.type == "minor"]

    def national(self) -> str:
        return next(s for s, c in self.corporations.items() if c.type == "national")

    def market_cell(self, market: str, row: int, col: int) -> MarketCell:
        grid = self.markets[market]
        if 0 <= row < len(grid) and 0 <= col < len(grid[row]):
            cell = grid[row][col]
            if cell is not None:
                return cell
        raise DataError(f"no stock market space at row {row}, column {col}")

    def market_cells(self, market: str) -> Iterable[MarketCell]:
        for row in self.markets[market]:
            for cell in row:
                if cell is not None:
                    yield cell


def _check_known(raw: dict[str, Any]) -> None:
    """Refuse data the rules do not implement, rather than ignoring it."""
    from .trains import EVENTS

    for train in raw["trains"]:
        for event in train.get("events", []):
            if event["type"] not in EVENTS:
                raise DataError(f"train {train['name']}: unknown event {event['type']!r}")
    for phase in raw["phases"]:
        for status in phase.get("status", []):
            if status not in KNOWN_STATUS:
                raise DataError(f"phase {phase['name']}: unknown status {status!r}")
    for company in raw["companies"]:
        for ability in company.get("abilities", []):
            if ability["type"] not in KNOWN_ABILITIES:
                raise DataError(f"private {company['sym']}: unknown ability {ability['type']!r}")


def _parse_market(rows: list[list[str]]) -> list[list[MarketCell | None]]:
    result: list[list[MarketCell | None]] = []
    for r, row in enumerate(rows):
        cells: list[MarketCell | None] = []
        for c, text in enumerate(row):
            if not text:
                cells.append(None)
                continue
            flags = text.lstrip(_DIGITS)
            price = text[: len(text) - len(flags)]
            if not price or not (flags.isascii() and (flags.isalpha() or not flags)):
                raise DataError(f"bad market cell {text!r}")
            cells.append(MarketCell(r, c, int(price), flags))
        result.append(cells)
    return result


def _parse_train(d: dict[str, Any]) -> TrainDef:
    distance = d["distance"]
    if isinstance(distance, int):
        pay, express = distance, False
    else:
        first = distance[0]
        pay = first["pay"]
        express = first["nodes"] == ["offboard"]
    num = d.get("num")
    return TrainDef(
        name=d["name"],
        price=d["price"],
        count=None if num == "unlimited" else int(str(num)),
        rusts_on=d.get("rusts_on"),
        events=tuple(e["type"] for e in d.get("events", [])),
        available_on=d.get("available_on"),
        multiplier=d.get("multiplier", 1),
        pay=pay,
        express=express,
        trade_in=tuple((name, int(amount)) for name, amount in (d.get("discount") or {}).items()),
    )


def _parse_private(d: dict[str, Any]) -> PrivateDef:
    bonus_hexes: tuple[str, ...] = ()
    bonus = 0
    blocks: tuple[str, ...] = ()
    for ability in d.get("abilities", []):
        if ability["type"] == "hex_bonus":
            bonus_hexes = tuple(ability["hexes"])
            bonus = ability["amount"]
        elif ability["type"] == "blocks_hexes":
            blocks = tuple(ability["hexes"])
    return PrivateDef(
        d["sym"],
        d["name"],
        d["value"],
        d["revenue"],
        d["value"] - d.get("discount", 0),
        bonus_hexes,
        bonus,
        blocks,
    )


def _parse_corporation(d: dict[str, Any]) -> CorporationDef:
    return CorporationDef(
        d["sym"],
        d["name"],
        d["type"],
        tuple(d["tokens"]),
        d.get("color") or "#888888",
        d.get("text_color", "white"),
        d.get("coordinates"),
        d.get("city", 0),
    )


_BOARDS: dict[str, Board] = {}


def load_board(title: str) -> Board:
    """The board of ``title``, parsed once per process."""
    if title not in _BOARDS:
        _BOARDS[title] = _read_board(title)
    return _BOARDS[title]


KNOWN_STATUS = frozenset({"can_buy_companies", "national_operates", "export_train", EXPORT_PER_SET})
"""Phase statuses the rules know (11)."""

KNOWN_ABILITIES = frozenset({"hex_bonus", "blocks_hexes"})
"""Private company abilities the rules know (3.1)."""


def _manifest_order(tile: str) -> tuple[bool, int, str]:
    """Tiles in the manifest's order: numbered tiles by number, then lettered ones (X1...)."""
    return (not tile.isdigit(), int(tile) if tile.isdigit() else 0, tile)


def _read_board(title: str) -> Board:
    from .titles import title_named

    rules = title_named(title)
    raw = rules.data("board.json")
    manifest = rules.data("upgrades.json")
    _check_known(raw)
    tiles = {
        name: parse_tile(
            name, t["color"], t["code"], None if t["count"] == "unlimited" else int(t["count"])
        )
        for name, t in sorted(raw["tiles"].items(), key=lambda item: _manifest_order(item[0]))
    }
    hexes = {h: parse_tile(h, v["color"], v["code"]) for h, v in raw["hexes"].items()}
    return Board(
        title=title,
        hexes=hexes,
        tiles=tiles,
        upgrades={k: tuple(v) for k, v in manifest["upgrades"].items()},
        location_names=raw["location_names"],
        markets={name: _parse_market(rows) for name, rows in raw["markets"].items()},
        default_market=raw["default_market"],
        phases=[
            PhaseDef(
                p["name"],
                p["train_limit"],
                tuple(p["tiles"]),
                tuple(p.get("status", [])),
                p["operating_rounds"],
            )
            for p in raw["phases"]
        ],
        trains=[_parse_train(t) for t in raw["trains"]],
        privates=[_parse_private(c) for c in raw["companies"]],
        corporations={c["sym"]: _parse_corporation(c) for c in raw["corporations"]},
        green_minors=tuple(raw.get("green_minors", [])),
        bonus_capitals=tuple(raw.get("bonus_capitals", [])),
        bonus_revenue_hex=raw.get("bonus_revenue_hex"),
        national_reservations=tuple(raw.get("national_reservations", [])),
        starting_cash={int(k): v for k, v in raw["starting_cash"].items()},
        cert_limit={int(k): v for k, v in raw["cert_limit"].items()},
        bank_cash=raw["bank_cash"],
        lay_costs=tuple(int(lay.get("cost", 0)) for lay in raw["tile_lays"]),
        player_range=(raw["player_range"][0], raw["player_range"][1]),
        printed_ids=_printed_ids(raw["hexes"]),
    )


def _printed_ids(hexes: dict[str, Any]) -> dict[str, str]:
    """The site numbers the hexes printed alike (same colour and code) in map order."""
    seen: dict[tuple[str, str], int] = {}
    ids = {}
    for hex_id, printed in hexes.items():
        key = (printed["color"], printed["code"])
        ids[hex_id] = f"{hex_id}-{seen.get(key, 0)}"
        seen[key] = seen.get(key, 0) + 1
    return ids
