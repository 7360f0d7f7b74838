"""Import 18xx.games game logs: map each logged action onto a Troika action.

The log format is described in ``shared/games/README.md`` and RULES-NOTES 12.
An imported game plays by :meth:`Rules.site` so that it replays exactly as on
the site. Conversion needs the current state (which city a city id names, who
holds a certificate), so the importer converts each action just before it is
applied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

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
    Route,
    RunRoutes,
    SellShares,
)
from .board import load_board
from .errors import EngineError, InvalidAction
from .game import Game
from .game_setup import declared
from .history import effective_entries
from .rules import Rules
from .state import GameState
from .titles import DEFAULT_TITLE

IGNORED_TYPES = {"message", "program_share_pass", "program_buy_shares", "program_merger_pass", "program_disable"}
"""Chat, and standing orders whose effects are logged as the auto_actions they caused."""


class LoggedAction(NamedTuple):
    """One action that took effect in the log, with the automatic actions that followed."""

    id: int
    raw: dict[str, Any]


def read_log(log: dict[str, Any]) -> tuple[Game, list[LoggedAction]]:
    """A new game set up as the log's, and the log's actions that are in effect."""
    if not isinstance(log, dict) or "players" not in log or "actions" not in log:
        raise InvalidAction("this is not an 18xx.games game log (no players or actions)")
    title = str(log.get("title", DEFAULT_TITLE))
    settings = log.get("settings") or {}
    optional = settings.get("optional_rules") or []
    market = "column" if "column_market" in optional else "grid" if "grid_market" in optional else None
    options = [word for word in optional if word in declared(title)]  # a Troika export's options
    rules = Rules.site(market=market or load_board(title).default_market, options=options)
    players = [(str(p["id"]), str(p["name"])) for p in log["players"]]
    game = Game.new(players, int(settings.get("seed") or 0), rules, title, first_player=0)
    entries = []
    for raw in log["actions"]:
        if not isinstance(raw, dict) or "type" not in raw:
            raise InvalidAction(f"malformed log entry: {raw!r}")
        entries.append((raw.get("id", 0), raw, LoggedAction(raw.get("id", 0), raw)))
    kept = [a for a in effective_entries(entries) if a.raw["type"] != "message"]
    return game, kept


@dataclass(eq=False, repr=False)  # holds a live game: compared by identity, no generated repr
class ImportedGame:
    """A site log read and replayed: its set-up, the Troika actions it holds in effect
    (undone ones, chat and standing orders left out) and the game they lead to. Its
    ``rules`` are those the game plays on by, the site's as its page checks a move
    (``Rules.site(live=True)``); the log's own moves replay as the site loads a log
    (``Game.new(..., site_moves=len(actions))``)."""

    title: str
    players: list[tuple[str, str]]
    seed: int
    rules: Rules
    actions: list[Action]
    typists: list[str | None]  # the player who decided each action
    stamps: list[int | None]  # when each was made on the site (seconds since 1970), if the log says
    game: Game


def import_log(log: dict[str, Any]) -> ImportedGame:
    """Read and replay a whole site log (as the site loads one, :meth:`Rules.loading`);
    raises :class:`EngineError` naming the action that does not replay. The game then
    plays on by the site's rules as its page checks moves."""
    game, logged = read_log(log)
    players = [(p.id, p.name) for p in game.state.players]
    fresh = (game.state.title, players, int((log.get("settings") or {}).get("seed") or 0), game.ctx.rules)
    actions: list[Action] = []
    typists: list[str | None] = []
    stamps: list[int | None] = []
    for entry in logged:
        made = entry.raw.get("created_at")
        stamp = made if isinstance(made, int) and not isinstance(made, bool) and made >= 0 else None
        try:
            for action in actions_of(lambda: game.state, entry):
                typists.append(game.controller(action.entity))
                game.apply(action, check=False)
                actions.append(action)
                stamps.append(stamp)  # the site's own moves after it were made at once
        except EngineError as exc:
            raise type(exc)(f"action {entry.id} ({entry.raw['type']}) does not replay: {exc}") from exc
    game.ctx.rules = game.ctx.rules.live()
    return ImportedGame(*fresh[:3], game.ctx.rules, actions, typists, stamps, game)


def convert(state: GameState, raw: dict[str, Any]) -> Action | None:
    """The Troika action for one logged action, or None if it changes nothing."""
    kind = raw["type"]
    if kind in IGNORED_TYPES:
        return None
    converter = CONVERTERS.get(kind)
    if converter is None:
        raise InvalidAction(f"unsupported 18xx.games action type {kind!r}")
    try:
        return converter(state, raw)
    except (KeyError, ValueError, TypeError) as exc:
        raise InvalidAction(f"malformed {kind} action {raw.get('id')}: {exc}") from exc


def actions_of(state_of: Callable[[], GameState], logged: LoggedAction) -> Iterator[Action]:
    """The Troika actions for a logged action and its ``auto_actions``, converted one
    at a time against the state as it is when each is applied."""
    for raw in [logged.raw, *logged.raw.get("auto_actions", [])]:
        action = convert(state_of(), raw)
        if action is not None:
            yield action


def _entity(raw: dict[str, Any]) -> str:
    return str(raw["entity"])


def _bid(state: GameState, raw: dict[str, Any]) -> Action:
    target = raw.get("company") or raw.get("corporation")
    return Bid(_entity(raw), str(target), int(raw["price"]))


def _pass(state: GameState, raw: dict[str, Any]) -> Action:
    return Pass(_entity(raw))


def _par(state: GameState, raw: dict[str, Any]) -> Action:
    price = int(str(raw["share_price"]).split(",")[0])
    return Par(_entity(raw), str(raw["corporation"]), price)


def _buy_shares(state: GameState, raw: dict[str, Any]) -> Action:
    ids = [str(s) for s in raw["shares"]]
    company = ids[0].rsplit("_", 1)[0]
    if raw.get("entity_type") == "corporation":
        return RedeemShares(_entity(raw), int(raw.get("percent", 10 * len(ids))) // 10)
    source = "pool" if any(c.id == ids[0] for c in state.pool) else "treasury"
    return BuyShare(_entity(raw), company, source, ids[0])


def _sell_shares(state: GameState, raw: dict[str, Any]) -> Action:
    ids = tuple(str(s) for s in raw["shares"])
    company = ids[0].rsplit("_", 1)[0]
    return SellShares(_entity(raw), company, int(raw["percent"]) // 10, ids)


def _city(state: GameState, city_id: str) -> tuple[str, int]:
    """'635-0-1' (tile copy, city index) or 'H8-0-1' (printed hex) -> (hex, city)."""
    tile_id, _, index = city_id.rpartition("-")
    for hex_id, placed in state.map.tiles.items():
        if placed.id == tile_id:
            return hex_id, int(index)
    return tile_id.rpartition("-")[0], int(index)


def _place_token(state: GameState, raw: dict[str, Any]) -> Action:
    hex_id, city = _city(state, str(raw["city"]))
    return PlaceToken(_entity(raw), hex_id, city)


def _remove_token(state: GameState, raw: dict[str, Any]) -> Action:
    hex_id, city = _city(state, str(raw["city"]))
    return RemoveToken(_entity(raw), hex_id, city)


def _lay_tile(state: GameState, raw: dict[str, Any]) -> Action:
    tile_id = str(raw["tile"])
    return LayTile(_entity(raw), str(raw["hex"]), tile_id.rpartition("-")[0], int(raw["rotation"]), tile_id)


def _run_routes(state: GameState, raw: dict[str, Any]) -> Action:
    routes = tuple(
        Route(str(r["train"]), tuple(tuple(str(h) for h in leg) for leg in r["connections"]))
        for r in raw.get("routes", [])
    )
    logged = [r.get("revenue") for r in raw.get("routes", [])]
    revenue = None if None in logged else sum(int(r) for r in logged)
    return RunRoutes(_entity(raw), routes, revenue)


def _dividend(state: GameState, raw: dict[str, Any]) -> Action:
    return Dividend(_entity(raw), str(raw["kind"]))


def _buy_train(state: GameState, raw: dict[str, Any]) -> Action:
    return BuyTrain(_entity(raw), str(raw["train"]), int(raw["price"]), str(raw.get("exchange") or ""))


def _discard_train(state: GameState, raw: dict[str, Any]) -> Action:
    return DiscardTrain(_entity(raw), str(raw["train"]))


def _buy_company(state: GameState, raw: dict[str, Any]) -> Action:
    return BuyPrivate(_entity(raw), str(raw["company"]), int(raw["price"]))


def _merge(state: GameState, raw: dict[str, Any]) -> Action:
    return Merge(_entity(raw), str(raw["corporation"]))


def _convert(state: GameState, raw: dict[str, Any]) -> Action:
    return Convert(_entity(raw))


def _choose(state: GameState, raw: dict[str, Any]) -> Action:
    return Choose(_entity(raw), str(raw["choice"]))


def _end_game(state: GameState, raw: dict[str, Any]) -> Action:
    return EndGame(_entity(raw))


CONVERTERS: dict[str, Callable[[GameState, dict[str, Any]], Action]] = {
    "bid": _bid,
    "pass": _pass,
    "par": _par,
    "buy_shares": _buy_shares,
    "sell_shares": _sell_shares,
    "place_token": _place_token,
    "remove_token": _remove_token,
    "lay_tile": _lay_tile,
    "run_routes": _run_routes,
    "dividend": _dividend,
    "buy_train": _buy_train,
    "discard_train": _discard_train,
    "buy_company": _buy_company,
    "merge": _merge,
    "convert": _convert,
    "choose": _choose,
    "end_game": _end_game,
}
