"""Every shared 1861 and 1867 game replays exactly: every state equal to the site's trace and the
same final result (the real games in shared/games and the generated ones beside them)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.cli import main
from bot.gamefiles import describe, exact, game_logs, game_name, read_log, read_trace, trace_beside
from engine.replay import replay
from tests.conftest import GAMES

FOLDERS = (GAMES, GAMES / "generated")


def _shared_games() -> list[Path]:
    return [p for folder in FOLDERS if folder.is_dir() for p in game_logs(folder) if p.name[:5] in ("1861-", "1867-")]


GAME_PATHS = _shared_games()


def _missing() -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the shared games are missing: {GAMES}")
    pytest.skip(f"shared games not found at {GAMES}")


@pytest.mark.parametrize("path", GAME_PATHS or [None], ids=[game_name(p) for p in GAME_PATHS] or ["missing"])
def test_shared_game_replays_exactly(path: Path | None) -> None:
    if path is None:
        _missing()
        return
    log = read_log(path)
    assert log["title"] == path.name[:4]
    trace_path = trace_beside(path)
    assert trace_path is not None, f"no trace beside {path.name}"
    trace = read_trace(trace_path)
    report = replay(log, trace).report
    assert exact(report, trace), f"{game_name(path)}: {describe(report, trace)}"
    assert report.finished and report.matched == report.actions


def test_the_corpus_summary_counts_games_and_divergences(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``troika replay --corpus`` on a folder with one exact game and one with a wrong trace."""
    source = next((p for p in GAME_PATHS if p.parent == GAMES), None)
    if source is None:
        _missing()
        return
    trace_path = trace_beside(source)
    assert trace_path is not None
    (tmp_path / source.name).write_bytes(source.read_bytes())
    (tmp_path / trace_path.name).write_bytes(trace_path.read_bytes())
    trace = read_trace(trace_path)
    trace[10]["bank"] += 1
    (tmp_path / "1861-wrong.json").write_bytes(source.read_bytes())
    (tmp_path / "1861-wrong.trace.jsonl").write_text("\n".join(json.dumps(t) for t in trace), encoding="utf-8")
    assert main(["replay", "--corpus", str(tmp_path), "--title", "1861", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 2 and summary["exact"] == 1
    assert summary["actions"] == 2 * len(trace)
    assert summary["matched"] == len(trace) + 10
    bank = trace[10]["bank"]
    assert summary["first_divergences"] == [
        {"game": "1861-wrong", "id": trace[10]["id"], "field": "bank", "expected": bank, "got": bank - 1}
    ]


def test_a_gzipped_log_and_trace_replay_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    gzipped = next((p for p in GAME_PATHS if p.name.endswith(".gz")), None)
    if gzipped is None:
        _missing()
        return
    assert main(["replay", str(gzipped), "--trace", str(trace_beside(gzipped)), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["matched"] == report["actions"] and report["first_divergence"] is None


def test_a_broken_log_file_is_refused_with_its_reason(tmp_path: Path) -> None:
    bad = tmp_path / "1861-bad.json.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(SystemExit, match="cannot read"):
        main(["replay", str(bad)])
