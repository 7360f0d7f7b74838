"""Real games from 18xx.games replay exactly: every state equal to the site's trace."""

from __future__ import annotations

import copy

import pytest

from engine.replay import replay
from tests.conftest import shared_game


@pytest.mark.parametrize("name", ["1861-29683", "1861-bank-breaks"])
def test_shared_game_replays_exactly(name: str) -> None:
    log, trace = shared_game(name)
    report = replay(log, trace).report
    assert report.first_divergence is None
    assert report.applied == report.actions
    assert report.compared == len(trace)
    assert report.matched == report.compared
    assert report.finished
    assert report.result == report.expected_result


def test_a_wrong_trace_is_reported_as_the_first_divergence() -> None:
    log, trace = shared_game("1861-29683")
    trace = copy.deepcopy(trace)
    line = next(t for t in trace if t["round"] == "Operating")
    line["bank"] += 1
    report = replay(log, trace).report
    assert report.first_divergence == {
        "id": line["id"],
        "field": "bank",
        "expected": line["bank"],
        "got": line["bank"] - 1,
    }
    assert not report.ok


def test_an_illegal_logged_action_stops_the_replay_with_its_reason() -> None:
    log, trace = shared_game("1861-29683")
    log = copy.deepcopy(log)
    run = next(a for a in log["actions"] if a["type"] == "run_routes" and not a.get("skip"))
    run["routes"][0]["revenue"] += 10
    report = replay(log, trace).report
    assert report.first_divergence is not None
    assert report.first_divergence["id"] == run["id"]
    assert "earn" in report.first_divergence["got"]
    assert report.applied < report.actions


def test_undo_and_redo_in_the_log_are_honoured() -> None:
    log, trace = shared_game("1861-29683")
    assert any(a["type"] == "undo" for a in log["actions"])
    assert any(a["type"] == "redo" for a in log["actions"])
    report = replay(log, trace).report
    undone = sum(1 for a in log["actions"] if a.get("skip"))
    assert undone > 0
    assert report.matched == len(trace)
