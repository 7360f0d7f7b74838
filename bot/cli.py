"""The ``troika`` command: play, replay real games, render pictures, benchmark."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.errors import EngineError


def _read_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SystemExit(f"troika: no such file: {path}") from None
    except json.JSONDecodeError as exc:
        raise SystemExit(f"troika: {path} is not valid JSON ({exc})") from None


def _read_trace(path: str) -> list[dict[str, Any]]:
    lines = []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, 1):
                if not text.strip():
                    continue
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise SystemExit(f"troika: {path} line {number} is not valid JSON ({exc})") from None
                if "header" not in data:
                    lines.append(data)
    except FileNotFoundError:
        raise SystemExit(f"troika: no such file: {path}") from None
    return lines


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay an 18xx.games log, comparing with its trace after every action."""
    from engine.replay import replay

    log = _read_json(args.game)
    trace = _read_trace(args.trace) if args.trace else None
    try:
        report = replay(log, trace).report
    except EngineError as exc:
        print(f"troika: cannot replay {args.game}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(f"{report.title}: {report.applied}/{report.actions} actions applied, "
              f"{report.matched}/{report.compared} states match the trace")
        if report.first_divergence:
            d = report.first_divergence
            print(f"first divergence at action {d['id']}: {d['field']}: expected {d['expected']!r}, got {d['got']!r}")
        print(f"result {report.result} (logged {report.expected_result})")
    return 0 if report.ok and (trace is None or report.matched == report.compared) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="troika", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay an 18xx.games game log")
    p.add_argument("game", help="the game log (JSON exported from 18xx.games)")
    p.add_argument("--trace", help="the state after every action (.trace.jsonl) to compare with")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_replay)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``troika`` console script."""
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
