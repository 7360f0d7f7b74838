"""Actions: small immutable values with a stable JSON form.

Stored games keep these dictionaries forever, so a field is never renamed or
repurposed; new fields get defaults. ``Action.to_dict`` / ``action_from_dict``
round-trip exactly.

Actions are frozen dataclasses: they compare, hash and print by their fields. An
action that adds no field to its base class (``Pass``, ``Convert``, ``EndGame``,
``RunBest``) has no ``@dataclass`` of its own.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from .errors import InvalidAction


@dataclass(frozen=True)
class Action:
    """Base class. ``entity`` is the player id or company symbol that acts."""

    kind: ClassVar[str] = ""
    entity: str

    def to_dict(self) -> dict[str, Any]:
        data = {"type": self.kind, **asdict(self)}
        for key, value in list(data.items()):
            if isinstance(value, tuple):
                data[key] = _listify(value)
        return data


def _listify(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_listify(v) for v in value]
    return value


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


class Pass(Action):
    """Decline whatever the current step offers (bid, stock turn, track, token, ...)."""

    kind: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Bid(Action):
    """Bid on a private (auction) or a minor (stock round); the first bid nominates."""

    kind: ClassVar[str] = "bid"
    target: str = ""
    price: int = 0


@dataclass(frozen=True)
class BuyShare(Action):
    """A player buys one certificate of a major from its treasury or the bank pool."""

    kind: ClassVar[str] = "buy_share"
    company: str = ""
    source: str = "treasury"  # "treasury" or "pool"
    cert: str = ""  # a certificate id such as "NW_3"; empty = the first one there


@dataclass(frozen=True)
class SellShares(Action):
    """A player sells ``count`` 10% shares of a major to the bank pool."""

    kind: ClassVar[str] = "sell_shares"
    company: str = ""
    count: int = 1
    certs: tuple[str, ...] = ()  # certificate ids; empty = the engine chooses


@dataclass(frozen=True)
class Par(Action):
    """A player starts a major by buying its president's certificate (phase 4+)."""

    kind: ClassVar[str] = "par"
    company: str = ""
    price: int = 0


@dataclass(frozen=True)
class PlaceToken(Action):
    """A company places a station token in a city (``city`` = index on the hex)."""

    kind: ClassVar[str] = "place_token"
    hex: str = ""
    city: int = 0


@dataclass(frozen=True)
class LayTile(Action):
    """A company lays or upgrades a tile."""

    kind: ClassVar[str] = "lay_tile"
    hex: str = ""
    tile: str = ""
    rotation: int = 0
    tile_id: str = ""  # a physical copy such as "58-0"; empty = the engine picks one


@dataclass(frozen=True)
class Route:
    """One train's route: the train id and the track walked, one hex chain per leg
    between consecutive stops (as 18xx.games writes ``connections``)."""

    train: str
    legs: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class RunRoutes(Action):
    """A company runs its trains; ``revenue`` is what the player claims (checked)."""

    kind: ClassVar[str] = "run_routes"
    routes: tuple[Route, ...] = ()
    revenue: int | None = None  # the total the player expects; None = whatever the routes earn

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "entity": self.entity,
            "routes": [{"train": r.train, "legs": _listify(r.legs)} for r in self.routes],
            "revenue": self.revenue,
        }


class RunBest(RunRoutes):
    """A company runs its trains on the best routes, found when the run is applied:
    what ``legal_actions`` offers, so a menu or a prompt never waits for a route search."""

    kind: ClassVar[str] = "run_best"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "entity": self.entity}


@dataclass(frozen=True)
class Dividend(Action):
    """A major chooses ``payout``, ``half`` or ``withhold``."""

    kind: ClassVar[str] = "dividend"
    choice: str = "payout"


@dataclass(frozen=True)
class BuyTrain(Action):
    """A company buys a train from the yard, the pool or another company."""

    kind: ClassVar[str] = "buy_train"
    train: str = ""
    price: int = 0
    exchange: str = ""  # 1867, phase 8: an own train handed in for a discount (8.11)


@dataclass(frozen=True)
class DiscardTrain(Action):
    """A company over its train limit discards a train to the pool."""

    kind: ClassVar[str] = "discard_train"
    train: str = ""


@dataclass(frozen=True)
class BuyPrivate(Action):
    """A company buys a private company from a player."""

    kind: ClassVar[str] = "buy_private"
    private: str = ""
    price: int = 0


@dataclass(frozen=True)
class RedeemShares(Action):
    """A major buys back ``count`` of its shares from the bank pool."""

    kind: ClassVar[str] = "redeem_shares"
    count: int = 1


class Convert(Action):
    """A minor starts converting into a major (merger round)."""

    kind: ClassVar[str] = "convert"


@dataclass(frozen=True)
class Merge(Action):
    """In a merger round: add minor ``target`` to the merge, or choose major ``target``
    as the company the minors form."""

    kind: ClassVar[str] = "merge"
    target: str = ""


@dataclass(frozen=True)
class RemoveToken(Action):
    """During a merge, drop a station token from the map."""

    kind: ClassVar[str] = "remove_token"
    hex: str = ""
    city: int = 0


@dataclass(frozen=True)
class Choose(Action):
    """A trainless major's president decides: ``nationalize`` or keep (use Pass)."""

    kind: ClassVar[str] = "choose"
    choice: str = ""


@dataclass(frozen=True)
class StandingOrder(Action):
    """A player's standing order, carried out whenever they are to act
    (:mod:`engine.orders`): ``order`` is ``pass_merger``, ``pass_stock``, ``buy``
    (``company`` until ``percent``), ``run``, ``pay`` (``choice``: ``payout``,
    ``half`` or ``withhold``), ``pass_track`` or ``off``; ``until`` is
    ``round`` (this round only), ``phase N`` or empty (until cancelled)."""

    kind: ClassVar[str] = "standing_order"
    order: str = ""
    company: str = ""
    percent: int = 0
    until: str = ""
    choice: str = ""


class EndGame(Action):
    """End the game now (players' agreement or a commissioner)."""

    kind: ClassVar[str] = "end_game"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.kind: cls
    for cls in (
        Pass,
        Bid,
        BuyShare,
        SellShares,
        Par,
        PlaceToken,
        LayTile,
        RunRoutes,
        RunBest,
        Dividend,
        BuyTrain,
        DiscardTrain,
        BuyPrivate,
        RedeemShares,
        Convert,
        Merge,
        RemoveToken,
        Choose,
        StandingOrder,
        EndGame,
    )
}


def action_from_dict(data: dict[str, Any]) -> Action:
    """Rebuild an action from its stored form; raises :class:`InvalidAction` if malformed."""
    if not isinstance(data, dict):
        raise InvalidAction(f"an action must be a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise InvalidAction(f"unknown action type {kind!r}")
    values = {k: v for k, v in data.items() if k != "type"}
    try:
        if cls is RunRoutes:
            routes = tuple(
                Route(str(r["train"]), tuple(tuple(str(h) for h in leg) for leg in r["legs"]))
                for r in values.get("routes", [])
            )
            revenue = values.get("revenue")
            if revenue is not None and not isinstance(revenue, int):
                raise InvalidAction(f"run_routes: revenue must be a whole number, not {revenue!r}")
            return RunRoutes(str(values["entity"]), routes, revenue)
        allowed = {"entity"} if cls is RunBest else {f.name for f in fields(cls)}
        unknown = set(values) - set(allowed)
        if unknown:
            raise InvalidAction(f"{kind}: unknown fields {', '.join(sorted(unknown))}")
        converted = {k: _tuplify(v) for k, v in values.items()}
        action = cls(**converted)
    except (KeyError, TypeError) as exc:
        raise InvalidAction(f"{kind}: malformed action ({exc})") from exc
    _check_types(action)
    return action


def _check_types(action: Action) -> None:
    for f in fields(action):
        value = getattr(action, f.name)
        expected = f.type if isinstance(f.type, str) else f.type.__name__
        if expected == "int" and (not isinstance(value, int) or isinstance(value, bool)):
            raise InvalidAction(f"{action.kind}: {f.name} must be a whole number, not {value!r}")
        if expected == "str" and not isinstance(value, str):
            raise InvalidAction(f"{action.kind}: {f.name} must be text, not {value!r}")
