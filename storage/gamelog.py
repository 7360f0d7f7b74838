"""Games as 18xx.games-style JSON logs, written in Troika's own action dicts.

A log is ``{"title", "players": [{"id", "name"}], "settings": {"seed", "options"},
"actions": [{"id": seq, "type": ..., ...}]}``, with undo and redo as 18xx.games writes
them (``{"type": "undo", "action_id"?}``, ``{"type": "redo"}``). Troika's extra details
ride along so that an exported game imports back identically: per player ``seat``,
``discord_user_id`` and ``commissioner``; per action ``user``, ``created_at`` (epoch
seconds) and ``troika`` (``{"kind": "seat"|"admin", "note": ...}`` when needed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .store import Event, EventKind, GameRecord, GameStatus, NewEvent, Seat, unstorable

MAX_NAME = 100
"""The longest player name a log may give (Discord's display names are at most 32)."""

LATEST_TIME = datetime(9999, 1, 1, tzinfo=UTC).timestamp()

_ENVELOPE = ("id", "user", "created_at", "troika")  # action keys that are not the action's own
_DERIVED_KINDS = {"undo": EventKind.UNDO, "redo": EventKind.REDO}


class InvalidGameLog(ValueError):
    """A log that cannot be imported; the message says what is wrong and where."""


@dataclass(frozen=True)
class ParsedLog:
    """A log read back: the game's set-up and its events in order."""

    title: str
    seed: int
    options: dict[str, Any]
    seats: list[Seat]
    events: list[NewEvent]
    status: GameStatus | None


def export_log(record: GameRecord, events: Sequence[Event]) -> dict[str, Any]:
    """The game as a JSON-able log (see the module docstring)."""
    return {
        "id": record.id,
        "title": record.title,
        "status": record.status.value,
        "created_by": record.created_by,
        "created_at": _epoch(record.created_at),
        "engine_version": record.engine_version,
        "players": [
            {"id": s.player_id, "name": s.display_name, "seat": s.seat,
             "discord_user_id": s.discord_user_id, "commissioner": s.commissioner}
            for s in record.seats
        ],
        "settings": {"seed": record.seed, "options": record.options},
        "actions": [_export_event(e) for e in events],
    }


def _export_event(event: Event) -> dict[str, Any]:
    clash = sorted(set(event.action) & set(_ENVELOPE))
    if clash:
        raise ValueError(f"event {event.seq} uses reserved keys {clash} in its action")
    entry = {"id": event.seq, **event.action, "user": event.actor,
             "created_at": _epoch(event.created_at)}
    extra: dict[str, Any] = {}
    if event.kind in (EventKind.SEAT, EventKind.ADMIN):
        extra["kind"] = event.kind.value
    if event.note is not None:
        extra["note"] = event.note
    if extra:
        entry["troika"] = extra
    return entry


def parse_log(data: Any) -> ParsedLog:
    """Read a log; raises :class:`InvalidGameLog` naming the first problem found."""
    if not isinstance(data, dict):
        raise InvalidGameLog("a game log must be a JSON object")
    settings = _get(data, "settings", dict, "settings")
    options = settings.get("options", {})
    if not isinstance(options, dict):
        raise InvalidGameLog("settings.options must be an object")
    status = data.get("status")
    try:
        parsed_status = None if status is None else GameStatus(status)
    except ValueError:
        raise InvalidGameLog(f"unknown status {status!r}") from None
    players = _get(data, "players", list, "players")
    actions = _get(data, "actions", list, "actions")
    return ParsedLog(
        title=_get(data, "title", str, "title"),
        seed=_seed(settings),
        options=options,
        seats=_distinct([_parse_player(i, p) for i, p in enumerate(players)]),
        events=[_parse_action(seq, a) for seq, a in enumerate(actions, 1)],
        status=parsed_status,
    )


def _parse_player(index: int, player: Any) -> Seat:
    where = f"players[{index}]"
    if not isinstance(player, dict):
        raise InvalidGameLog(f"{where} must be an object")
    player_id = player.get("id")
    if not isinstance(player_id, (str, int)) or isinstance(player_id, bool):
        raise InvalidGameLog(f"{where}.id must be text or a number")
    discord_id = player.get("discord_user_id")
    seat = _get(player, "seat", int, f"{where}.seat") if "seat" in player else index
    if seat < 0:
        raise InvalidGameLog(f"{where}.seat must be 0 or more, not {seat}")
    return Seat(
        seat=seat,
        player_id=_text(str(player_id), f"{where}.id"),
        display_name=_text(_get(player, "name", str, f"{where}.name"), f"{where}.name"),
        discord_user_id=None if discord_id is None else str(discord_id),
        commissioner=bool(player.get("commissioner", False)),
    )


def _distinct(seats: list[Seat]) -> list[Seat]:
    """The seats, if each has a name of its own on one line (ignoring case), as seats
    must for `seat` and `as` to name them."""
    seen: dict[str, int] = {}
    for index, seat in enumerate(seats):
        name = seat.display_name
        if not name.strip() or "\n" in name or "\r" in name:
            raise InvalidGameLog(f"players[{index}].name must be one line of text, not {name!r:.40}")
        if name.lower() in seen:
            raise InvalidGameLog(f"players[{seen[name.lower()]}] and players[{index}] are both called {name!r:.40}")
        seen[name.lower()] = index
    return seats


def _parse_action(seq: int, entry: Any) -> NewEvent:
    where = f"actions[{seq - 1}]"
    if not isinstance(entry, dict):
        raise InvalidGameLog(f"{where} must be an object")
    if entry.get("id") != seq:
        raise InvalidGameLog(f"{where} has id {entry.get('id')!r}; ids must run 1, 2, 3, ...")
    kind_name = _get(entry, "type", str, f"{where}.type")
    extra = entry.get("troika", {})
    if not isinstance(extra, dict):
        raise InvalidGameLog(f"{where}.troika must be an object")
    try:
        kind = EventKind(extra.get("kind", _DERIVED_KINDS.get(kind_name, EventKind.ACTION)))
    except ValueError:
        raise InvalidGameLog(f"{where}: unknown event kind {extra.get('kind')!r}") from None
    user, created, note = entry.get("user"), entry.get("created_at"), extra.get("note")
    if created is not None and (not isinstance(created, (int, float)) or not 0 <= created < LATEST_TIME):
        raise InvalidGameLog(f"{where}.created_at must be seconds since 1970, not {created!r:.40}")
    if note is not None and not isinstance(note, str):
        raise InvalidGameLog(f"{where}.troika.note must be text")
    return NewEvent(
        action={k: v for k, v in entry.items() if k not in _ENVELOPE},
        kind=kind,
        actor=None if user is None else _text(str(user), f"{where}.user"),
        note=None if note is None else _text(note, f"{where}.troika.note", limit=2000),
        created_at=None if created is None else datetime.fromtimestamp(created, UTC),
    )


def _seed(settings: dict[str, Any]) -> int:
    seed: int = _get(settings, "seed", int, "settings.seed")
    if not -(2**63) <= seed < 2**63:
        raise InvalidGameLog(f"settings.seed must fit in 64 bits, not {seed:.3g}")
    return seed


def _text(value: str, where: str, *, limit: int = MAX_NAME) -> str:
    """Text the store can hold, of at most ``limit`` characters."""
    if len(value) > limit:
        raise InvalidGameLog(f"{where} is longer than {limit} characters")
    problem = unstorable(value)
    if problem:
        raise InvalidGameLog(f"{where} holds {problem}")
    return value


def _get(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidGameLog(f"{where} must be {_KIND_NAMES[kind]}, not {value!r:.60}")
    return value


_KIND_NAMES = {str: "text", int: "a whole number", list: "a list", dict: "an object"}


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())
