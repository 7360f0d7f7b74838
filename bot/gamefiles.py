"""18xx.games logs and traces on disk (plain or gzipped), and replaying a folder of them."""

from __future__ import annotations

import json
import os
import zlib
from io import BufferedIOBase
from typing import TYPE_CHECKING, Any

from engine import EngineError, ReplayReport, replay

if TYPE_CHECKING:
    from pathlib import Path

    FilePath = str | os.PathLike[str]  # a replay reads its file by name: pathlib costs a start-up 18 M instructions

LOG_SUFFIXES = (".json", ".json.gz")
TRACE_MARK = ".trace.jsonl"

MAX_FILE_BYTES = 64 * 2**20
"""The most a log or trace may hold, on disk and once decompressed (the longest real
game's trace is about 5 MB): a gzip bomb stops inflating here."""

MAX_SEED = 2**63
"""Seeds are stored as 64-bit integers."""


class GameFileError(Exception):
    """A log or trace that cannot be read, with the reason."""


def _text(path: FilePath) -> str:
    try:
        if os.stat(path).st_size > MAX_FILE_BYTES:
            raise GameFileError(f"{path} is larger than {MAX_FILE_BYTES} bytes")
        with _open(path) as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise GameFileError(f"{path} inflates to larger than {MAX_FILE_BYTES} bytes")
        return data.decode("utf-8")
    except FileNotFoundError:
        raise GameFileError(f"no such file: {path}") from None
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as exc:
        raise GameFileError(f"cannot read {path}: {exc}") from None


def _open(path: FilePath) -> BufferedIOBase:
    if os.fspath(path).endswith(".gz"):
        import gzip  # imported here: only a gzipped file needs it, and a plain replay starts without it

        return gzip.open(path, "rb")
    return open(path, "rb")


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GameFileError(f"{where} is not valid JSON ({exc})") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, nesting past the stack
        raise GameFileError(f"{where} cannot be read ({type(exc).__name__}: {str(exc)[:80]})") from None


def read_log(path: FilePath) -> dict[str, Any]:
    """A game log exported from 18xx.games (``.json`` or ``.json.gz``), checked to have
    the shape the importer reads (see :func:`log_shape_problem`)."""
    log: dict[str, Any] = _json(_text(path), str(path))
    problem = log_shape_problem(log)
    if problem:
        raise GameFileError(f"{path} is not an 18xx.games game log that Troika can read: {problem}")
    return log


def log_shape_problem(log: Any) -> str | None:
    """Why ``log`` does not have the shape of an 18xx.games log, if it does not: an object
    with a list of action objects, players with an id and a name, a known title, a seed
    that is a 64-bit integer, settings and auto-actions of the right kinds."""
    from engine import TITLES

    if not isinstance(log, dict) or not isinstance(log.get("actions"), list):
        return "no list of actions"
    players = log.get("players")
    if not isinstance(players, list) or not all(isinstance(p, dict) and "id" in p and "name" in p for p in players):
        return "its players are not a list of objects with an id and a name"
    title = log.get("title", "1861")
    if not isinstance(title, str) or title not in TITLES:
        return f"its title {str(title)[:40]!r} is not one of {', '.join(TITLES)}"
    settings = log.get("settings") or {}
    if not isinstance(settings, dict) or not isinstance(settings.get("optional_rules") or [], list):
        return "its settings are not an object with a list of optional rules"
    seed = settings.get("seed") or 0
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < MAX_SEED:
        return f"its seed {str(seed)[:40]!r} is not a whole number from 0 to 2**63 - 1"
    for action in log["actions"]:
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            return f"action {str(action)[:40]!r} is not an object with a type"
        if "auto_actions" in action and not _typed_list(action["auto_actions"]):  # few actions have them
            return f"the auto_actions of action {action.get('id')!r} are not a list of objects with a type"
    return None


def _typed_list(items: Any) -> bool:
    return isinstance(items, list) and all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in items)


def read_trace(path: FilePath) -> list[dict[str, Any]]:
    """The site's state after every action (``.trace.jsonl`` or ``.trace.jsonl.gz``),
    without its header line."""
    lines = []
    for number, text in enumerate(_text(path).splitlines(), 1):
        if not text.strip():
            continue
        data = _json(text, f"{path} line {number}")
        if not isinstance(data, dict):
            raise GameFileError(f"{path} line {number} is not a JSON object")
        if "header" not in data:
            lines.append(data)
    return lines


def trace_beside(log_path: Path) -> Path | None:
    """``name.trace.jsonl[.gz]`` next to ``name.json[.gz]``, if it exists."""
    name = log_path.name
    for suffix in LOG_SUFFIXES[::-1]:
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            for trace_suffix in (".gz", ""):
                candidate = log_path.with_name(stem + TRACE_MARK + trace_suffix)
                if candidate.exists():
                    return candidate
    return None


def game_logs(folder: Path) -> list[Path]:
    """The game logs of a folder (not its traces), by name."""
    if not folder.is_dir():
        raise GameFileError(f"no such folder: {folder}")
    return sorted(p for p in folder.iterdir() if p.name.endswith(LOG_SUFFIXES) and TRACE_MARK not in p.name)


def game_name(path: Path) -> str:
    return next(path.name[: -len(s)] for s in LOG_SUFFIXES[::-1] if path.name.endswith(s))


def exact(report: ReplayReport, trace: list[dict[str, Any]] | None) -> bool:
    """Every action applied, every state equal to the trace, the same result."""
    return report.ok and (trace is None or report.matched == len(trace))


def replay_corpus(folder: Path, title: str | None = None) -> dict[str, Any]:
    """Replay every game of ``folder`` (of one ``title`` if given) against the trace
    beside it: ``{games, exact, actions, matched, first_divergences}``."""
    summary: dict[str, Any] = {"games": 0, "exact": 0, "actions": 0, "matched": 0, "first_divergences": []}
    for path in game_logs(folder):
        name = game_name(path)
        try:
            log = read_log(path)
            if title is not None and str(log.get("title")) != title:
                continue
            trace_path = trace_beside(path)
            trace = read_trace(trace_path) if trace_path else None
        except GameFileError as exc:
            summary["games"] += 1
            summary["first_divergences"].append({"game": name, "error": str(exc)})
            continue
        summary["games"] += 1
        try:
            report = replay(log, trace).report
        except EngineError as exc:
            summary["first_divergences"].append({"game": name, "error": str(exc)})
            continue
        summary["actions"] += report.actions
        summary["matched"] += report.matched if trace is not None else report.applied
        if exact(report, trace):
            summary["exact"] += 1
        else:
            summary["first_divergences"].append({"game": name, **describe(report, trace)})
    return summary


def describe(report: ReplayReport, trace: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Where a replay stopped agreeing with the site."""
    if report.first_divergence is not None:
        return dict(report.first_divergence)
    if trace is not None and report.compared < len(trace):
        return {"field": "trace", "expected": f"{len(trace)} states", "got": f"{report.compared} compared"}
    return {"field": "result", "expected": report.expected_result, "got": report.result}
