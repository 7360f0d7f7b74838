"""Games to and from 18xx.games: a stored game as the site's log, a site log as a game.

``read_site_file`` reads an uploaded or named file within limits (size, nesting,
number length) so that a hostile file is refused in one line before anything is
parsed at length; ``site_export`` writes a stored game as the site's log
(:mod:`engine.exporter`); ``troika_log`` turns a site log, checked by replaying it
(:func:`engine.importer.import_log`), into the Troika log that
:meth:`storage.GameRepository.import_game` stores.
"""

from __future__ import annotations

import json
from typing import Any

from engine import TITLES, EngineError, Export, entries_from_events, export_game, import_log
from storage import TroikaEngine
from storage.gamelog import MAX_NAME
from storage.store import Event, GameRecord, GameStatus

from .errors import Refusal

MAX_FILE = 16 * 1024 * 1024
"""Bytes in a site log; the longest real games are about 1 MB."""

MAX_DEPTH = 32
"""Nesting of a site log's JSON (a run's connections sit 5 deep)."""

MAX_DIGITS = 15
"""Digits in one number of a site log (ids, prices, times)."""


def check_size(size: int, name: str = "the file") -> None:
    """A :class:`Refusal` for a file too large to be a site log (checked before it is read)."""
    if size > MAX_FILE:
        raise Refusal(f"{name} is {size // 1_000_000} MB; an 18xx.games log is at most {MAX_FILE // 1_000_000} MB.")


def read_site_file(data: bytes, name: str = "the file") -> dict[str, Any]:
    """The JSON object of a site log; a :class:`Refusal` in one line if it is too large,
    too deep, not JSON or not a game log."""
    check_size(len(data), name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refusal(f"{name} is not text: attach the JSON the site exports.") from None
    if _depth(text) > MAX_DEPTH:
        raise Refusal(f"{name} nests deeper than an 18xx.games log ever does ({MAX_DEPTH} levels).")
    try:
        log = json.loads(text, parse_int=_whole, parse_float=_decimal, parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        raise Refusal(f"{name} is not valid JSON: {one_line(str(exc))}.") from None
    if not isinstance(log, dict) or not isinstance(log.get("actions"), list) \
            or not isinstance(log.get("players"), list):
        raise Refusal(f"{name} is not an 18xx.games game log (no players and actions).")
    return log


def _depth(text: str) -> int:
    """How deep the brackets of a JSON text nest (brackets inside strings not counted)."""
    deepest = depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif char in "]}":
            depth -= 1
    return deepest


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _decimal(text: str) -> float:
    if len(text) > MAX_DIGITS + 8:
        raise ValueError(f"a number of {len(text)} characters")
    return float(text)


def _constant(text: str) -> float:
    raise ValueError(f"{text} is not a number")


def one_line(text: str, limit: int = 200) -> str:
    """A message on one line, cut short."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def site_export(record: GameRecord, events: list[Event]) -> Export:
    """The stored game as the 18xx.games log of its actions, undos and redos."""
    entries = entries_from_events(
        [(e.seq, e.kind.value, e.action, int(e.created_at.timestamp()), e.actor) for e in events]
    )
    site = record.options.get("site_game") or {}  # a game imported from the site goes back as that game
    return export_game(site.get("id", record.id), record.seed, lambda: TroikaEngine().new_game(record), entries,
                       description=site.get("description"))


def export_name(record: GameRecord) -> str:
    return f"{record.title}-troika-{record.id}.json"


def seat_names(names: list[str]) -> list[str]:
    """A site game's player names as its seats hold them: each on one line, none empty
    (``Player 2``), none the same as an earlier one ignoring case (``Anna 2``), so that
    every seat can be named in `seat` and shown on a line of its own."""
    seated: list[str] = []
    for number, name in enumerate(names, 1):
        base = " ".join(name.split()) or f"Player {number}"
        candidate, copies = base, 1
        while candidate.lower() in (n.lower() for n in seated):
            copies += 1
            candidate = f"{base[:MAX_NAME - 1 - len(str(copies))]} {copies}"
        seated.append(candidate)
    return seated


def troika_log(log: dict[str, Any], commissioner: tuple[str, str], hot_seat: bool = False) -> dict[str, Any]:
    """The Troika log (:mod:`storage.gamelog`) of a site log, after replaying it: the
    site's players keep their seats and names, none bound to an account except the
    commissioner's ``(account id, name)``, who takes the seat of that name, else the
    first (``hot_seat``: every seat is its own player's, as on the console); the game
    plays on by the site's rules as its page checks a move (the log's own moves, its
    ``site_moves``, replay as the site loads a log)."""
    title = str(log.get("title", ""))
    if title not in TITLES:
        raise Refusal(f"This is a game of {title[:20] or 'no title'}; Troika plays {' and '.join(TITLES)}.")
    try:
        imported = import_log(log)
    except (EngineError, KeyError, IndexError, AttributeError, TypeError, ValueError) as exc:
        # A hostile or damaged file fails wherever its shape first breaks the reader.
        raise Refusal(f"This 18xx.games log does not replay: {one_line(str(exc))}") from None
    account, name = commissioner
    shown = seat_names([n for _, n in imported.players])
    names = [n.lower() for n in shown]
    mine = names.index(name.lower()) if name.lower() in names and not hot_seat else 0
    game = imported.game
    return {
        "title": imported.title,
        "status": (GameStatus.FINISHED if game.state.finished else GameStatus.RUNNING).value,
        "players": [
            {"id": pid, "name": shown_name, "seat": i, "commissioner": i == mine,
             "discord_user_id": pid if hot_seat else account if i == mine else None}
            for i, ((pid, _), shown_name) in enumerate(zip(imported.players, shown, strict=True))
        ],
        "settings": {"seed": imported.seed,
                     "options": {**imported.rules.to_dict(), "first_player": 0, "site_moves": len(imported.actions),
                                 **_site_game(log)}},
        "actions": [
            {"id": seq, **action.to_dict(), "user": typist} | ({} if stamp is None else {"created_at": stamp})
            for seq, (action, typist, stamp)
            in enumerate(zip(imported.actions, imported.typists, imported.stamps, strict=True), 1)
        ],
    }


def _site_game(log: dict[str, Any]) -> dict[str, Any]:
    """The site's game number and description, kept to be written back by an export."""
    number, description = log.get("id"), log.get("description")
    if not isinstance(number, int) or isinstance(number, bool) or not 0 < number < 10**MAX_DIGITS:
        return {}
    kept = one_line(description, 200) if isinstance(description, str) else ""
    return {"site_game": {"id": number, "description": kept}}
