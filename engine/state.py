"""The game's state: plain dataclasses and named tuples, nothing else.

The state is only ever changed by the round modules while applying an action;
everything here is data plus small queries that need no rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from .board import Board, TileDef
from .errors import IllegalAction
from .rules import Rules

if TYPE_CHECKING:
    from .rounds import Round
    from .title import Title


@dataclass
class Certificate:
    """A share certificate: ``NW_0`` is the president's 20%, ``NW_1``… are 10%."""

    id: str
    company: str
    percent: int
    president: bool = False


@dataclass
class Player:
    """A player: cash, certificates in the order received, privates owned."""

    id: str
    name: str
    cash: int = 0
    certs: list[Certificate] = field(default_factory=list)  # in the order received
    privates: list[str] = field(default_factory=list)

    def percent_of(self, company: str) -> int:
        return sum(c.percent for c in self.certs if c.company == company)

    def shares_of(self, company: str) -> int:
        """Shares held in ``company`` as they are scored and paid (12.2, 10.1D): a
        president's certificate and a minor's certificate count as two."""
        return sum(2 if c.percent in (20, 100) else 1 for c in self.certs if c.company == company)


@dataclass
class Train:
    """One physical train: a company's, in the depot or in the bank pool."""

    id: str  # "2-0": train name and copy
    name: str
    operated: bool = False  # ran in the current operating round


@dataclass
class StationToken:
    """One of a company's station tokens: placed on (hex, city) or still on the charter."""

    price: int  # 0 home, 20 or 40 per hex
    hex: str | None = None
    city: int | None = None


@dataclass
class Company:
    """A minor, a major or the national railway."""

    sym: str
    type: str  # "minor", "major", "national"
    cash: int = 0
    trains: list[Train] = field(default_factory=list)
    loans: int = 0
    loans_due: int = 0  # loans owing interest this operating round (fixed at its start)
    treasury: list[Certificate] = field(default_factory=list)  # shares the company holds of itself
    privates: list[str] = field(default_factory=list)
    tokens: list[StationToken] = field(default_factory=list)
    market: tuple[int, int] | None = None  # (row, column) on the stock market
    floated: bool = False
    operated: bool = False  # has completed an operating turn
    closed: bool = False
    last_revenue: int | None = None  # what its trains earned in its last run
    merged_into: str | None = None  # the major a minor became part of (9)

    @property
    def placed_tokens(self) -> list[StationToken]:
        return [t for t in self.tokens if t.hex is not None]

    @property
    def is_minor(self) -> bool:
        return self.type == "minor"

    @property
    def is_major(self) -> bool:
        return self.type == "major"

    @property
    def is_national(self) -> bool:
        return self.type == "national"


class PlacedTile(NamedTuple):
    """A tile laid on a hex: ``tile`` is the tile name, ``id`` the physical copy (``58-0``).
    (A named tuple: a lay replaces it, and the map's tiles are hashed to find their
    track graph, :func:`engine.graph.track_graph`.)"""

    tile: str
    rotation: int
    id: str


@dataclass
class MapState:
    """What is on the board now: laid tiles, station tokens, reservations."""

    tiles: dict[str, PlacedTile] = field(default_factory=dict)
    # (hex, city index) -> company symbol in each slot (None = empty)
    tokens: dict[tuple[str, int], list[str | None]] = field(default_factory=dict)
    # (hex, city index) -> company that has that city's spot reserved
    reservations: dict[tuple[str, int], str] = field(default_factory=dict)
    supply: dict[str, int | None] = field(default_factory=dict)  # tile name -> left (None: unlimited)
    copies: dict[str, int] = field(default_factory=dict)  # tile name -> copies handed out so far
    blocked_hexes: set[str] = field(default_factory=set)  # locked until phase 3
    paid_borders: set[tuple[str, int]] = field(default_factory=set)  # (hex, edge) crossed and paid for


@dataclass
class Depot:
    """The train yard (upcoming trains in order) and the bank pool of trains."""

    upcoming: list[Train] = field(default_factory=list)
    pool: list[Train] = field(default_factory=list)
    copies: dict[str, int] = field(default_factory=dict)  # unlimited trains: copies issued
    left_behind: list[Train] = field(default_factory=list)
    """Trains of nationalized majors still for sale (RN 37, ``nationalized_major_trains_for_sale``)."""


@dataclass
class Order:
    """A player's standing order (:mod:`engine.orders`)."""

    player: str
    order: str  # "pass_merger", "pass_stock", "buy", "run", "pay" or "pass_track"
    company: str = ""  # buy: the major
    percent: int = 0  # buy: the holding to reach
    choice: str = ""  # pay: "payout", "half" or "withhold"
    presiding: tuple[str, ...] = ()  # the companies the player presided over when it was set
    exposed: tuple[str, ...] = ()  # the companies a president's sale would land on them (stock orders)
    until_phase: str = ""  # over once this phase begins ("" none)
    this_round: bool = False  # only for one round of its kind
    round: str = ""  # that round (``Merger 3.1``), once it is under way


@dataclass
class GameState:
    """Everything that changes during a game."""

    title: str
    players: list[Player]
    companies: dict[str, Company]
    bank: int
    pool: list[Certificate] = field(default_factory=list)  # the bank pool (market)
    private_owner: dict[str, str | None] = field(default_factory=dict)  # player id / company / None
    closed_privates: set[str] = field(default_factory=set)
    market: dict[tuple[int, int], list[str]] = field(default_factory=dict)  # stacks, top first
    map: MapState = field(default_factory=MapState)
    depot: Depot = field(default_factory=Depot)
    phase: str = "2"
    events: set[str] = field(default_factory=set)  # train events that have happened (11)
    priority: int = 0  # index of the player with the priority deal
    national_operator: str | None = None  # player who runs the national's trains (8.13)
    round: Round | None = None  # the round in progress (:mod:`engine.rounds`)
    round_number: int = 1  # stock-round number (the "set")
    operating_rounds: int = 2  # operating rounds in the current set
    trainless_majors: list[str] = field(default_factory=list)  # awaiting their president's choice (10)
    orders: list[Order] = field(default_factory=list)  # players' standing orders, oldest first
    bank_broken: bool = False
    game_ends_after: tuple[int, int] | None = None  # (set, operating round) that ends the game
    game_end_trigger: str | None = None  # what set game_ends_after: "bank" or "final_phase" (12.1)
    finished: bool = False
    end_reason: str | None = None
    log: list[str] = field(default_factory=list)
    site_moves_to_load: int = field(default=0, compare=False)
    """Moves of an 18xx.games log still to be replayed as the site loads a log (RN 0.4:
    without the checks its page alone makes, :data:`~engine.rules.LOG_LOADING_ONLY`);
    an imported game's moves, after which its own are checked as the page checks them.
    How the game is being loaded, not where it stands: two states equal in play compare
    equal whatever is left to load."""

    def copy(self) -> GameState:
        """A deep copy, as :meth:`saved` and :meth:`from_saved` would make it (the same
        values, an object met twice copied once) in a third of their time."""
        copied: GameState = _deep_copy(self, {})
        return copied

    def saved(self) -> bytes:
        """The state as bytes, to read back with :meth:`from_saved` (half a copy, for
        a copy that is rarely needed)."""
        import pickle  # here: a replay whose merges need no undo point never loads it (7 M instructions)

        return pickle.dumps(self, pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def from_saved(data: bytes) -> GameState:
        """The state :meth:`saved` wrote."""
        import pickle

        state: GameState = pickle.loads(data)
        return state

    def player(self, player_id: str) -> Player:
        return self.players[self.player_index(player_id)]

    def player_index(self, player_id: str) -> int:
        for i, p in enumerate(self.players):
            if p.id == player_id:
                return i
        raise IllegalAction(f"{player_id} is not a player in this game")

    def holders(self, company: str) -> list[Player]:
        return [p for p in self.players if any(c.company == company for c in p.certs)]

    def president(self, company: str) -> Player | None:
        for p in self.players:
            for c in p.certs:
                if c.company == company and (c.president or c.percent == 100):
                    return p
        return None

    def pool_percent(self, company: str) -> int:
        return sum(c.percent for c in self.pool if c.company == company)


_KEPT = frozenset({str, int, bool, float, type(None), bytes, frozenset})
"""Types whose values never change: a copy shares them."""


def _deep_copy(value: Any, memo: dict[int, Any]) -> Any:
    """A deep copy of the state's plain data: dataclasses, lists, dicts, sets and
    tuples of them; ``memo`` holds what is copied already by the original's id, so an
    object met twice is copied once (as pickling does). Anything else goes to
    :func:`copy.deepcopy` with the same memo."""
    kind = type(value)
    if kind in _KEPT:
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    new: Any
    if kind is list:
        new = memo[id(value)] = list(value)
        for i, item in enumerate(new):
            if type(item) not in _KEPT:
                new[i] = _deep_copy(item, memo)
    elif kind is dict:
        new = memo[id(value)] = {}
        for key, item in value.items():
            new[key if type(key) in _KEPT else _deep_copy(key, memo)] = (
                item if type(item) in _KEPT else _deep_copy(item, memo))
    elif kind is tuple or (issubclass(kind, tuple) and hasattr(kind, "_make")):
        if all(type(item) in _KEPT for item in value):
            return value
        items = [_deep_copy(item, memo) for item in value]
        if all(a is b for a, b in zip(items, value)):
            return value  # nothing in it changes: shared, as a tuple of plain values may be
        new = memo[id(value)] = tuple(items) if kind is tuple else kind._make(items)
    elif kind is set:
        new = memo[id(value)] = {_deep_copy(item, memo) for item in value}
    elif hasattr(kind, "__dataclass_fields__") and hasattr(value, "__dict__"):
        new = memo[id(value)] = object.__new__(kind)
        fields = new.__dict__
        fields.update(value.__dict__)
        for name, item in fields.items():
            if type(item) not in _KEPT:
                fields[name] = _deep_copy(item, memo)
    else:
        import copy

        new = copy.deepcopy(value, memo)
    return new


@dataclass
class Context:
    """What the round modules need besides the state: static data and the rule switches."""

    board: Board
    rules: Rules
    title: Title
    """The title's own rules (hooks for what the rulebook marks 1861 or 1867), chosen
    with the game (:meth:`engine.game.Game.new`)."""

    def tile_def(self, name: str) -> TileDef:
        return self.board.tiles[name]

    def tile_at(self, state: GameState, hex_id: str) -> tuple[TileDef, int]:
        """The tile on a hex and its rotation: a laid tile, else what the map prints."""
        placed = state.map.tiles.get(hex_id)
        if placed is None:
            return self.board.hexes[hex_id], 0
        return self.board.tiles[placed.tile], placed.rotation

    def phase_color(self, state: GameState) -> str:
        """The latest tile colour of the current phase (off-board values, 11)."""
        return self.board.phase(state.phase).color
