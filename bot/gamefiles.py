"""18xx.games logs and traces on disk (plain or gzipped), and replaying a folder of them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.replay import ReplayReport, replay

LOG_SUFFIXES = (".json", ".json.gz")
TRACE_MARK = ".trace.jsonl"


class GameFileError(Exception):
    """A log or trace that cannot be read, with the reason."""


def _text(path: Path) -> str:
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        return data.decode("utf-8")
    except FileNotFoundError:
        raise GameFileError(f"no such file: {path}") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise GameFileError(f"cannot read {path}: {exc}") from None


def read_log(path: Path) -> dict[str, Any]:
    """A game log exported from 18xx.games (``.json`` or ``.json.gz``)."""
    try:
        log = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise GameFileError(f"{path} is not valid JSON ({exc})") from None
    if not isinstance(log, dict) or not isinstance(log.get("actions"), list):
        raise GameFileError(f"{path} is not an 18xx.games game log (no list of actions)")
    return log


def read_trace(path: Path) -> list[dict[str, Any]]:
    """The site's state after every action (``.trace.jsonl`` or ``.trace.jsonl.gz``),
    without its header line."""
    lines = []
    for number, text in enumerate(_text(path).splitlines(), 1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GameFileError(f"{path} line {number} is not valid JSON ({exc})") from None
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
