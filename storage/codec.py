"""What the SQL backends share: JSON text in and out of rows, and numbered migrations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .store import CorruptEvent, StoreError


def to_json(value: Any) -> str:
    """Compact JSON text for a column; TypeError/ValueError for what JSON cannot hold."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def game_options(text: str) -> tuple[dict[str, Any], str | None]:
    """A game's options column, and why it cannot be read (then the options are empty)."""
    try:
        options = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, f"its options are not valid JSON ({exc})"
    if not isinstance(options, dict):
        return {}, "its options are not a JSON object"
    return options, None


def event_action(game_id: int, seq: int, text: str) -> dict[str, Any]:
    """An event's action column, or CorruptEvent if it is not a JSON object."""
    try:
        action = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptEvent(game_id, seq, f"its action is not valid JSON ({exc})") from exc
    if not isinstance(action, dict):
        raise CorruptEvent(game_id, seq, "its action is not a JSON object")
    return action


def post_payload(text: str) -> tuple[dict[str, Any], str | None]:
    """An outbox payload column, and why it cannot be read (then the payload is empty)."""
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, f"its payload is not valid JSON ({exc})"
    if not isinstance(payload, dict):
        return {}, "its payload is not a JSON object"
    return payload, None


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
