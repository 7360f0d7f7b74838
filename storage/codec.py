"""What the SQL backends share: JSON text in and out of rows, and numbered migrations."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .store import CorruptEvent, Event, EventKind, GameRecord, GameStatus, OutboxMessage, Seat, StoreError

Row = Mapping[str, Any]
"""A row as either driver returns it, read by column name."""

ReadTime = Callable[[Any], datetime]
"""A backend's reading of a stored time; TypeError or ValueError if it cannot."""

UNREADABLE_TIME = datetime(1970, 1, 1, tzinfo=UTC)
"""The time a record whose stored time cannot be read is given (with its ``problem`` said)."""


def to_json(value: Any) -> str:
    """Compact JSON text for a column; TypeError/ValueError for what JSON cannot hold."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


UNREADABLE = (ValueError, RecursionError, TypeError)
"""What reading a stored value can raise besides a clean refusal: JSON with a number
Python will not convert (over 4,300 digits) or nested past the recursion limit, text
where a time or number belongs."""


def _json_object(text: Any, what: str, be: str = "is") -> tuple[dict[str, Any], str | None]:
    """A JSON object column, and why it cannot be read (then it is empty); the reason
    starts with ``what`` and ``be``: "its options are not valid JSON (...)"."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, f"{what} {be} not valid JSON ({exc})"
    except UNREADABLE as exc:
        return {}, f"{what} cannot be read ({type(exc).__name__}: {str(exc)[:80]})"
    if not isinstance(value, dict):
        return {}, f"{what} {be} not a JSON object"
    return value, None


def game_options(text: str) -> tuple[dict[str, Any], str | None]:
    """A game's options column, and why it cannot be read (then the options are empty)."""
    return _json_object(text, "its options", "are")


def event_action(game_id: int, seq: int, text: str) -> dict[str, Any]:
    """An event's action column, or CorruptEvent if it is not a readable JSON object."""
    action, problem = _json_object(text, "its action")
    if problem is not None:
        raise CorruptEvent(game_id, seq, problem)
    return action


def post_payload(text: str) -> tuple[dict[str, Any], str | None]:
    """An outbox payload column, and why it cannot be read (then the payload is empty)."""
    return _json_object(text, "its payload")


def migration_scripts(folder: Path) -> list[tuple[int, str, str]]:
    """The migrations in ``folder`` as (version, file name, SQL), checked to be numbered
    001, 002, ... without gaps."""
    files = sorted(folder.glob("*.sql"))
    for version, file in enumerate(files, 1):
        if not file.name.startswith(f"{version:03d}_"):
            raise StoreError(
                f"migrations in {folder} must be numbered 001_, 002_, ... without gaps;"
                f" expected {version:03d}_*.sql, found {file.name}"
            )
    return [(version, f.name, f.read_text(encoding="utf-8")) for version, f in enumerate(files, 1)]


def decode_game(row: Row, seats: Iterable[Row], read_time: ReadTime) -> GameRecord:
    """A game's record from its row and its seats' rows. Whatever cannot be read is
    named in the record's ``problem`` (so the game refuses to load and can be ended)
    instead of raising, so one damaged game never stops a listing of all."""
    problems: list[str] = []

    def read(column: str, kind: type, default: Any) -> Any:
        value = row[column]
        if isinstance(value, kind) and not isinstance(value, bool):
            return value
        problems.append(f"its {column} is unreadable ({str(value)[:40]!r})")
        return default

    options, problem = game_options(row["options"])
    problems += [problem] if problem else []
    try:
        created_at = read_time(row["created_at"])
    except UNREADABLE:
        problems.append(f"its time is unreadable ({str(row['created_at'])[:40]!r})")
        created_at = UNREADABLE_TIME
    try:
        status = GameStatus(row["status"])
    except ValueError:
        problems.append(f"its status is unreadable ({str(row['status'])[:40]!r})")
        status = GameStatus.ABANDONED
    try:
        archived_at = None if row["archived_at"] is None else read_time(row["archived_at"])
    except UNREADABLE:
        problems.append(f"its archive time is unreadable ({str(row['archived_at'])[:40]!r})")
        archived_at = None
    read_seats = []
    for s in seats:
        if not (isinstance(s["seat"], int) and isinstance(s["player_id"], str) and isinstance(s["display_name"], str)):
            problems.append(f"a seat is unreadable ({str(s['seat'])[:20]!r}, {str(s['player_id'])[:20]!r})")
            continue
        read_seats.append(Seat(s["seat"], s["player_id"], s["display_name"], s["discord_user_id"],
                               bool(s["commissioner"])))
    return GameRecord(
        id=row["id"],
        title=read("title", str, "?"),
        options=options if not problems else {},
        seed=read("seed", int, 0),
        created_by=read("created_by", str, "?"),
        status=status,
        engine_version=read("engine_version", int, 0),
        created_at=created_at,
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        seats=tuple(read_seats),
        problem="; ".join(problems) or None,
        archived_at=archived_at,
    )


def decode_event(game_id: int, expected_seq: int, row: Row, read_time: ReadTime) -> Event:
    """An event from its row, or :class:`CorruptEvent` naming what cannot be read."""
    seq = row["seq"]
    if seq != expected_seq:
        raise CorruptEvent(game_id, expected_seq, "this event is missing from the log")
    action = event_action(game_id, seq, row["action"])
    try:
        kind = EventKind(row["kind"])
        created_at = read_time(row["created_at"])
    except UNREADABLE as exc:
        raise CorruptEvent(game_id, seq, f"its kind or time is unreadable ({exc})") from exc
    return Event(
        game_id=game_id,
        seq=seq,
        kind=kind,
        action=action,
        actor=row["actor"],
        created_at=created_at,
        note=row["note"],
        state_hash=row["state_hash"],
        request_key=row["request_key"],
    )


def decode_post(row: Row, read_time: ReadTime) -> OutboxMessage:
    """A post from its row (pending; or sent, its pictures owed, with ``sent_at`` and
    ``pictures_for``); what cannot be read is its ``problem``."""
    payload, problem = post_payload(row["payload"])
    try:
        created_at = read_time(row["created_at"])
    except UNREADABLE:
        created_at, problem = UNREADABLE_TIME, problem or f"its time is unreadable ({str(row['created_at'])[:40]!r})"
    columns = row.keys()
    sent_at, owed = None, row["pictures_for"] if "pictures_for" in columns else None
    if owed is not None:
        try:
            sent_at = read_time(row["sent_at"])
        except UNREADABLE:
            sent_at = UNREADABLE_TIME
        if not isinstance(owed, str):
            owed, problem = None, problem or f"where it went is unreadable ({str(owed)[:40]!r})"
    return OutboxMessage(row["id"], row["game_id"], payload, created_at, sent_at, problem, owed)
