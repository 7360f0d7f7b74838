"""A title owns the game's shape: its rounds (:meth:`Title.next_round`), its operating
steps (:attr:`Title.operating_steps`) and its data, from its own package; the "title"
written inside a board.json decides nothing."""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine import selfplay
from engine.game import Game
from engine.operating import OperatingRound
from engine.titles import TITLES

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def watched(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count, at every position self-play reaches, the round kind and operating step."""
    seen: Counter[str] = Counter()
    check = selfplay.check_invariants

    def counting(game: Game, *args: object, **kwargs: object) -> None:
        rnd = game.state.round
        seen[rnd.kind if rnd else "none"] += 1
        if isinstance(rnd, OperatingRound):
            seen[f"step {rnd.step}"] += 1
        check(game, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(selfplay, "check_invariants", counting)
    return seen


@pytest.mark.slow
def test_a_title_of_the_tests_own_drops_a_step_adds_a_round_and_plays_to_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(TITLES, "quick", "tests.titles.quick")
    seen = watched(monkeypatch)
    summary = selfplay.play_many(4, seed=9100, title="quick")
    assert summary["failures"] == [] and summary["games"] == 4
    assert seen["Roll call"] >= 4 * 3 and seen["Operating"] > 0  # one pass a player, every set
    assert seen["step redeem"] == 0 and seen["step track"] > 0

    seen.clear()
    assert selfplay.play_many(4, seed=9100, title="1867")["failures"] == []
    assert seen["Roll call"] == 0 and seen["step redeem"] > 0  # the dropped step is real in 1867


@pytest.mark.slow
def test_a_copied_title_folder_plays_its_own_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy of 1867's folder, its board.json still saying "1867", is its own title."""
    shutil.copytree(ENGINE / "titles" / "t1867", tmp_path / "copied1867", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(TITLES, "copied", "copied1867")
    game = Game.new([("a", "Anna"), ("b", "Boris"), ("c", "Clara")], 5, title="copied")
    title = type(game.ctx.title)
    assert title.__module__ == "copied1867" and game.ctx.board.title == game.state.title == "copied"
    calls = Counter[str]()
    asked = title.merger_round_follows

    def counted(self: object, *args: object) -> bool:
        calls["merger_round_follows"] += 1
        return asked(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(title, "merger_round_follows", counted)
    result = selfplay.play_random_game(5, 3, "grid", "copied")
    assert result.failures == [] and result.finished
    assert calls["merger_round_follows"] > 0  # the copy's hook, not 1867's, decided the merger rounds


def test_the_components_both_titles_share_have_one_home() -> None:
    """Markets, the bank, the tiles and upgrades 1861 and 1867 share live in
    ``engine/titles/shared``; a title's own files add to them and replace what they name."""
    from engine.board import load_board
    from engine.title import SHARED_FOLDER, shared_data
    from engine.titles import title_named

    shared_board, shared_upgrades = shared_data("board.json"), shared_data("upgrades.json")
    assert len(shared_board["tiles"]) >= 50 and len(shared_upgrades["upgrades"]) >= 40 and "markets" in shared_board
    for name in ("1861", "1867"):
        folder = Path(sys.modules[type(title_named(name)).__module__].__file__ or "").parent
        own_board = json.loads((folder / "board.json").read_text())
        own_upgrades = json.loads((folder / "upgrades.json").read_text())["upgrades"]
        assert not {k for k in own_board if k in shared_board and own_board[k] == shared_board[k]} - {"source"}
        assert not {t for t, v in own_board["tiles"].items() if shared_board["tiles"].get(t) == v}
        assert not {t for t, v in own_upgrades.items() if shared_upgrades["upgrades"].get(t) == v}
        board = load_board(name)
        assert set(shared_board["tiles"]) | set(own_board["tiles"]) == set(board.tiles)
        assert board.bank_cash == shared_board["bank_cash"]
    # tile 15: one count in the shared box, each title its own (2 in 1861, 4 in 1867)
    assert "15" not in shared_board["tiles"]
    assert (load_board("1861").tiles["15"].count, load_board("1867").tiles["15"].count) == (2, 4)
    assert Path(SHARED_FOLDER).name == "shared"
