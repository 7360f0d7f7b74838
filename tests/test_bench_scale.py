"""``troika bench``'s scale figures, on a small scale: start-up with stored copies of a
real game, games played at once beside the national solve, memory per live game."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import bench_scale
from bot.bench import troika_log
from tests.conftest import shared_game

pytestmark = pytest.mark.slow  # whole games and benchmarks: seconds each


def test_the_scale_figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log, _ = shared_game("1861-29683")
    for name, value in (("CONCURRENT_GAMES", 2), ("CONCURRENT_COMMANDS", 3), ("TYPING_S", (0.0, 0.01)),
                        ("MEMORY_GAMES", 2)):
        monkeypatch.setattr(bench_scale, name, value)
    figures = bench_scale.bench_scale(log, troika_log(log), tmp_path, games=4, workers=2)
    startup = figures["startup"]
    assert (startup["games"], startup["events_per_game"]) == (4, len(troika_log(log)["actions"]))
    assert startup["first_reply_after_restart_s"] > 0 and startup["first_reply_s"] > 0
    assert figures["memory_per_game_kib"] > 10  # a whole game's state, not nothing
    assert figures["concurrent"]["workers"] == 2
    for run in (figures["concurrent"]["typed"], figures["concurrent"]["flood"]):
        assert run["commands"] == 2 * 3 and run["national_solves"] >= 1
        assert 0 < run["p50_ms"] <= run["max_ms"] and run["p95_ms"] > 0
