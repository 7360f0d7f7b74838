"""Export a game as an 18xx.games game log: the importer's vocabulary, written back.

The log is the shape the site exports and :mod:`engine.importer` reads
(``shared/games/README.md``): the players in seat order from the first player on,
``settings`` (seed, ``optional_rules`` for the other market), every action with the
site's fields, undo and redo as the site writes them, and the result. Several fields
name what the action did rather than what the player asked (the share certificate
bought, the tile copy laid, the token slot filled), so each action is written from
the game just before and just after it is applied.

A standing order is written as the site's ``program_*`` action (an operating-round
order, which the site has no programme for, as a chat message naming it), and the
moves it made for its player as the ``auto_actions`` of the action after which they
were made, as the site writes its own programmed moves.

A game played by the rulebook may hold moves the site would refuse; such a log is
still written, with a warning naming the first of them (found by replaying the game
under :meth:`Rules.site`, the rules the site applies).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

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
    action_from_dict,
)
from .errors import EngineError
from .game import Game
from .history import effective_entries
from .merger import MergerRound
from .route_notation import route_stops
from .rules import Rules
from .shares import first_plain
from .state import GameState
from .stock_round import choose_sold


@dataclass(frozen=True)
class Entry:
    """One entry of a Troika game's log: a game action, or an undo (``undo_to``: undo
    everything after that entry's id; None: the latest action) or a redo."""

    id: int
    kind: str  # "action", "undo" or "redo"
    action: Action | None = None
    undo_to: int | None = None
    created_at: int | None = None  # seconds since 1970
    user: str | None = None  # the player who made it


@dataclass
class Export:
    """The log, and why the site would refuse it, if it would."""

    log: dict[str, Any]
    warning: str | None = None
    actions: int = 0


def site_ids(players: Sequence[str]) -> dict[str, int]:
    """Player ids as the site's numbers: the ids themselves where all are numbers (a
    game imported from the site), else the seat numbers 1, 2, ..."""
    if all(p.isdigit() and len(p) < 16 for p in players):
        return {p: int(p) for p in players}
    return {p: n for n, p in enumerate(players, 1)}


def export_game(game_id: int, seed: int, fresh: Callable[[], Game], entries: Sequence[Entry], *,
                description: str | None = None) -> Export:
    """The 18xx.games log of a game: ``fresh()`` sets it up (``Game.new`` with
    ``seed``), then every entry of its log in order (game ``game_id``, described as
    Troika's unless ``description`` is given: a game imported from the site keeps its own)."""
    start = fresh()
    players = [(p.id, p.name) for p in start.state.players]
    first = start.state.priority
    seated = players[first:] + players[:first]  # the site seats the first player first
    ids = site_ids([pid for pid, _ in players])
    writer = _Writer(fresh, ids)
    for entry in entries:
        writer.write(entry)
    game = writer.game
    rules = start.ctx.rules
    optional = ([] if rules.market == start.ctx.board.default_market else [f"{rules.market}_market"]) + sorted(
        rules.options)  # the rulebook's options by Troika's words: the site has none of them, Troika reads them back
    finished = game.state.finished
    log: dict[str, Any] = {
        "id": game_id,
        "description": f"Troika game {game_id}" if description is None else description,
        "title": start.state.title,
        "min_players": len(players),
        "max_players": len(players),
        "players": [{"id": ids[pid], "name": name} for pid, name in seated],
        "settings": {"seed": seed, "optional_rules": optional},
        "status": "finished" if finished else "active",
        "round": "Finished" if finished else game.round_name,
        "turn": game.state.round_number,
        "acting": [ids[p] for p in [game.acting_player()] if p],
        "result": {str(ids[k]): v for k, v in game.result().items()} if finished else {},
        "game_end_reason": game.state.end_reason if finished else None,
        "loaded": True,
        "actions": writer.written,
    }
    site_rules = Rules.site(market=rules.market)
    warning = None
    if rules != site_rules:
        site_game = Game.new(seated, seed, site_rules, start.state.title, first_player=0)
        warning = _first_refusal(site_game, writer.effective_actions(), _why_rules_differ(rules), game)
    return Export(log, warning, len(writer.written))


def _why_rules_differ(rules: Rules) -> str:
    """Why a game's moves may not be the site's: the rulebook's readings, or options the
    site does not have (it plays a log without them)."""
    noun = "option" if len(rules.options) == 1 else "options"
    options = f"the rulebook's {noun} {', '.join(sorted(rules.options))}, which the site does not have"
    if rules.is_site:
        return f"the game plays {options}"
    why = "the game was played by the rulebook, where the site reads the rules differently"
    return f"{why}, and with {options}" if rules.options else why


def _first_refusal(game: Game, actions: list[Action], why: str, played: Game) -> str | None:
    """The first action the site's rules refuse, replayed in order, as a warning saying
    ``why``; or, when it refuses none, a finished game's other result there."""
    from .notation import command

    for n, action in enumerate(actions, 1):
        try:
            game.apply(action)
        except EngineError as exc:
            who = next((p.name for p in game.state.players if p.id == action.entity), action.entity)
            return f"18xx.games would refuse move {n} ({who}: `{command(None, action)}`): {exc}; {why}"
    if played.state.finished and (not game.state.finished or game.result() != played.result()):
        return f"18xx.games would not reach this game's result with the same moves; {why}"
    return None


class _Writer:
    """Replays a Troika log, writing each entry as the site's action."""

    def __init__(self, fresh: Callable[[], Game], players: dict[str, int]) -> None:
        self.fresh = fresh
        self.players = players
        self.game = fresh()
        self.written: list[dict[str, Any]] = []
        self.seen: list[tuple[int, dict[str, Any], Action | None]] = []  # as history reads them
        self.ids: dict[int, int] = {}  # Troika entry id -> site action id

    def write(self, entry: Entry) -> None:
        site_number = len(self.written) + 1
        stamp = {} if entry.created_at is None else {"created_at": entry.created_at}
        if entry.user in self.players:
            stamp["user"] = self.players[entry.user]
        if entry.kind == "action":
            assert entry.action is not None
            before = Game(self.game.ctx, self.game.state.copy())
            self.game.apply(entry.action, check=False)
            if self.game.carried_out:
                raw = self._with_orders(before, [entry.action, *self.game.carried_out], entry.created_at)
            else:
                raw = to_site(before, entry.action, self.game.state, self.players)
            self.seen.append((entry.id, {"type": "action"}, entry.action))
        else:
            marker: dict[str, Any] = {"type": entry.kind}
            undo_to = entry.undo_to if entry.kind == "undo" else None
            if undo_to is not None:
                marker["action_id"] = undo_to
            self.seen.append((entry.id, marker, None))
            actor = self.game.actor() or self.game.state.players[0].id
            raw = {"type": entry.kind, **_entity(self.game.state, actor, self.players)}
            if undo_to is not None:
                raw["action_id"] = max((v for k, v in self.ids.items() if k <= undo_to), default=0)
            self._rebuild()
        self.ids[entry.id] = site_number
        self.written.append({"id": site_number, **raw, **stamp})
        if entry.kind == "action":
            self._undo_a_failed_merge(before, stamp)

    def _undo_a_failed_merge(self, before: Game, stamp: dict[str, Any]) -> None:
        """9.2 note: Troika reverses a merge that found no president and the next minor
        has its turn; the site waits for its players to undo it (RN 8.3), so the log
        undoes the merge back to the minor's first choice, and the minor passes."""
        rnd = before.state.round
        if not isinstance(rnd, MergerRound) or rnd.major is None or self.game.state.companies[rnd.major].floated:
            return
        start = max(i for i, w in enumerate(self.written) if w["type"] == "merge" and w.get("corporation") == rnd.major)
        minor = self.written[start]["entity"]  # the active minor, who made every choice of the merge
        while start > 0 and self.written[start - 1]["type"] in ("merge", "pass") \
                and self.written[start - 1]["entity"] == minor:
            start -= 1
        actor = self.game.acting_player() or self.game.state.players[0].id
        back = self.written[start - 1]["id"] if start else 0
        for raw in ({"type": "undo", **_entity(self.game.state, actor, self.players), "action_id": back},
                    {"type": "pass", **_entity(self.game.state, minor, self.players)}):
            self.written.append({"id": len(self.written) + 1, **raw, **stamp})

    def _with_orders(self, before: Game, moves: list[Action], created: int | None) -> dict[str, Any]:
        """An action and the moves standing orders made after it, as the site's action
        with ``auto_actions``: each move written from the game just before and after it."""
        written = []
        for move in moves:
            after = Game(before.ctx, before.state.copy())
            after.apply(move, check=False, orders=False)
            written.append(to_site(before, move, after.state, self.players))
            before = after
        stamp = {} if created is None else {"created_at": created}
        return {**written[0], "auto_actions": [a | stamp for a in written[1:]]}

    def effective_actions(self) -> list[Action]:
        return [a for a in effective_entries(self.seen) if a is not None]

    def _rebuild(self) -> None:
        self.game = self.fresh()
        for action in self.effective_actions():
            self.game.apply(action, check=False)


def _entity(state: GameState, entity: str, players: dict[str, int]) -> dict[str, Any]:
    if entity in players:
        return {"entity": players[entity], "entity_type": "player"}
    if entity in state.companies:
        return {"entity": entity, "entity_type": "corporation"}
    return {"entity": entity, "entity_type": "company"}


def to_site(game: Game, action: Action, after: GameState, players: dict[str, int]) -> dict[str, Any]:
    """One action in the site's vocabulary, from the game just before it and the state
    ``after`` it (which names the certificate bought, the tile copy, the token slot);
    ``players``: the site's number for each player id."""
    state = game.state
    kind = PROGRAM_TYPES.get(action.order, "message") if isinstance(action, StandingOrder) \
        else SITE_TYPES[type(action)]
    raw: dict[str, Any] = {"type": kind, **_entity(state, action.entity, players)}
    match action:
        case Bid(target=target, price=price):
            raw["corporation" if target in state.companies else "company"] = target
            raw["price"] = price
        case Par(company=company, price=price):
            row, column = after.companies[company].market or (0, 0)
            raw |= {"corporation": company, "share_price": f"{price},{row},{column}"}
        case BuyShare(company=company, source=source, cert=cert):
            offered = state.pool if source == "pool" else state.companies[company].treasury
            plain = first_plain(offered, company)
            bought = [cert] if cert else [plain.id] if plain else []
            raw |= {"shares": bought, "percent": _percent(state, bought)}
        case RedeemShares():
            bought = _moved_certs(_pool(after, action.entity), _pool(state, action.entity))
            raw |= {"shares": bought, "percent": _percent(state, bought)}
        case SellShares(company=company, count=count, certs=certs):
            player = state.player(action.entity)
            sold = list(certs) or [c.id for c in choose_sold(player, company, count, ())]
            raw |= {"shares": sold, "percent": 10 * count}  # of a president's certificate, perhaps half
        case LayTile(hex=hex_id, rotation=rotation):
            raw |= {"hex": hex_id, "tile": after.map.tiles[hex_id].id, "rotation": rotation}
        case PlaceToken(hex=hex_id, city=city):
            slots_before = state.map.tokens.get((hex_id, city), [])
            slots = after.map.tokens.get((hex_id, city), [])
            slot = next((i for i, s in enumerate(slots) if s == action.entity
                         and (i >= len(slots_before) or slots_before[i] != action.entity)), 0)
            raw |= {"city": _city_id(game, after, hex_id, city), "slot": slot}
        case RemoveToken(hex=hex_id, city=city):
            slots = state.map.tokens.get((hex_id, city), [])
            raw |= {"city": _city_id(game, state, hex_id, city),
                    "slot": slots.index(action.entity) if action.entity in slots else 0}
        case RunRoutes():
            raw |= {"routes": _routes(game, action), "extra_revenue": 0, "subsidy": 0}
        case Dividend(choice=choice):
            raw["kind"] = choice
        case BuyTrain(train=train, price=price, exchange=exchange):
            raw |= {"train": train, "price": price, "variant": train.rpartition("-")[0]}
            if exchange:
                raw["exchange"] = exchange
        case DiscardTrain(train=train):
            raw["train"] = train
        case BuyPrivate(private=private, price=price):
            raw |= {"company": private, "price": price}
        case Merge(target=target):
            raw["corporation"] = target
        case Choose(choice=choice):
            raw["choice"] = choice
        case StandingOrder():
            raw |= _program(action)
    return raw


def _program(order: StandingOrder) -> dict[str, Any]:
    """A standing order's fields as the site's programmed action has them."""
    if order.order == "buy":  # until holding so many 10% shares, from the treasury first
        return {"corporation": order.company, "until_condition": order.percent // 10,
                "from_market": False, "auto_pass_after": False}
    if order.order == "pass_stock":
        return {"unconditional": False, "indefinite": order.until != "round"}
    if order.order == "pass_merger":
        return {"corporations_by_round": None, "options": []}
    if order.order in PROGRAM_TYPES:
        return {"reason": "cancelled by the player"}  # off
    from .notation import order_command

    return {"message": f"standing order: {order_command(order)}"}


SITE_TYPES: dict[type[Action], str] = {
    Pass: "pass",
    Bid: "bid",
    BuyShare: "buy_shares",
    RedeemShares: "buy_shares",
    SellShares: "sell_shares",
    Par: "par",
    PlaceToken: "place_token",
    RemoveToken: "remove_token",
    LayTile: "lay_tile",
    RunRoutes: "run_routes",
    RunBest: "run_routes",
    Dividend: "dividend",
    BuyTrain: "buy_train",
    DiscardTrain: "discard_train",
    BuyPrivate: "buy_company",
    Merge: "merge",
    Convert: "convert",
    Choose: "choose",
    EndGame: "end_game",
}
"""Each Troika action's type in the site's vocabulary (a company buying back its own
shares is the site's ``buy_shares`` by a corporation); a standing order's type
depends on the order (:data:`PROGRAM_TYPES`)."""

PROGRAM_TYPES = {
    "pass_stock": "program_share_pass",
    "buy": "program_buy_shares",
    "pass_merger": "program_merger_pass",
    "off": "program_disable",
}
"""Each standing order as the site's programmed action."""


def _pool(state: GameState, company: str) -> list[str]:
    return [c.id for c in state.pool if c.company == company]


def _moved_certs(fewer: list[str], more: list[str]) -> list[str]:
    """The certificates in ``more`` that are not in ``fewer``, in order."""
    return [c for c in more if c not in fewer]


def _percent(state: GameState, certs: list[str]) -> int:
    known = {c.id: c.percent for p in state.players for c in p.certs}
    known |= {c.id: c.percent for c in state.pool}
    known |= {c.id: c.percent for co in state.companies.values() for c in co.treasury}
    return sum(known.get(c, 10) for c in certs)


def _city_id(game: Game, state: GameState, hex_id: str, city: int) -> str:
    """``TILE-COPY-CITYINDEX`` as the site names a city: ``15-0-0`` on a laid tile,
    ``D16-1-0`` on what the map prints."""
    placed = state.map.tiles.get(hex_id)
    return f"{placed.id if placed else game.ctx.board.printed_ids[hex_id]}-{city}"


def _routes(game: Game, action: RunRoutes) -> list[dict[str, Any]]:
    """The routes run, each with its train, legs, stops, nodes and revenue (``run best``:
    the best routes, found as the run found them)."""
    from .route_search import best_routes
    from .routes import check_routes, to_route

    company = game.state.companies[action.entity]
    if isinstance(action, RunBest):
        results = best_routes(game.ctx, game.state, company)
        routes = tuple(to_route(r) for r in results)
    else:
        routes = action.routes
        results = check_routes(game.ctx, game.state, company, routes) if routes else []
    written = []
    for route, result in zip(routes, results, strict=True):
        stops = route_stops(route.legs)
        written.append({"train": route.train, "connections": [list(leg) for leg in route.legs],
                        "hexes": stops, "revenue": result.revenue, "revenue_str": "-".join(stops),
                        "nodes": [f"{hex_id}-{node}" for hex_id, node in result.stops]})
    return written


def entries_from_events(events: Sequence[tuple[int, str, dict[str, Any], int | None, str | None]]) -> list[Entry]:
    """Entries from stored events ``(id, kind, action dict, created_at, player)``; kinds
    other than action, undo and redo (seat changes, notes) are left out."""
    entries = []
    for event_id, kind, data, created, user in events:
        if kind == "action":
            entries.append(Entry(event_id, kind, action_from_dict(data), created_at=created, user=user))
        elif kind in ("undo", "redo"):
            entries.append(Entry(event_id, kind, undo_to=data.get("action_id"), created_at=created, user=user))
    return entries
