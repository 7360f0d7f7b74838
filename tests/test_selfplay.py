"""Seeded random self-play: whole games of 1861 (2 to 6 players) and 1867 (3 to 6) on
both markets, with the invariants checked after every action (engine/selfplay.py)."""

from __future__ import annotations

import pytest

from engine.actions import Action, BuyTrain, LayTile, Merge, Pass
from engine.game import Game
from engine.game_end import check_bank
from engine.importer import actions_of, read_log
from engine.replay import replay
from engine.rules import Rules
from engine.selfplay import (
    SELFPLAY_SETUPS,
    Before,
    InvariantError,
    check_invariants,
    play_random_game,
    selfplay_setups,
)
from tests.conftest import replayed, shared_game

GAMES_PER_TITLE = len(SELFPLAY_SETUPS)
"""One game for every player count and market."""


@pytest.mark.parametrize("title", ["1861", "1867"])
@pytest.mark.parametrize("index", range(GAMES_PER_TITLE))
def test_a_random_game_plays_to_the_end_soundly(title: str, index: int) -> None:
    setups = selfplay_setups(title)
    players, market = setups[index % len(setups)]
    result = play_random_game(1000 + index, players, market, title)
    assert result.failures == []
    assert result.finished
    assert result.actions > 100


@pytest.mark.parametrize("title", ["1861", "1867"])
def test_a_random_game_by_the_site_rules_plays_what_its_page_allows(title: str) -> None:
    """`selfplay --rules site` plays by the rules of `new … site` (the site's page checks
    each move, RN 0.4): its export, read back, is accepted move by move under them."""
    players, market = selfplay_setups(title)[1]
    result = play_random_game(2000, players, market, title, site=True)
    assert result.failures == [] and result.finished
    assert result.rules == Rules.site(market=market, live=True)
    game, logged = read_log(result.site_log())
    game.ctx.rules = result.rules
    for entry in logged:
        for action in actions_of(lambda: game.state, entry):
            game.apply(action)
    assert game.state.finished


# --- the invariants catch what the rulebook forbids (positions from shared games) ---


def _refused_by_invariants(game: Game, action: Action, match: str) -> None:
    before = Before.of(game)
    game.apply(action)
    with pytest.raises(InvariantError, match=match):
        check_invariants(game, action, before)


def test_the_invariants_catch_a_lay_that_misses_its_new_track() -> None:
    """8.6: RO's tile 17 on B6 adds a curve RO cannot reach (accepted only when the
    connection is not checked, as 18xx.games's logs are)."""
    game = replayed("1861-29683", 229, Rules.rulebook().but(lay_connection_unchecked=True))
    _refused_by_invariants(game, LayTile("RO", "B6", "17", 2), "reaches none of its new track")


def test_the_invariants_catch_a_national_buying_in_phase_eight() -> None:
    log, _ = shared_game("1861-29683")
    buy = next(a for a in log["actions"] if a["type"] == "buy_train" and a["entity"] == "SE" and a["train"] == "4-1")
    game = replayed("1861-29683", buy["id"] - 1, Rules.rulebook().but(national_buys_into_phase_eight=True))
    game.state.companies["RSR"].cash += 4000
    game.state.bank -= 4000
    _refused_by_invariants(game, BuyTrain("SE", "4-1", 25), "the national bought a train in phase 8")


def test_the_invariants_catch_a_merged_major_on_a_pink_space() -> None:
    game = replayed("1861-29683", 311, Rules.rulebook().but(merger_price_on_major_start_space=True))
    rnd = game.state.round
    rnd.index = rnd.order.index("KK")
    rnd.merging, rnd.adding_done = ["KK", "Y"], True
    _refused_by_invariants(game, Merge("KK", "SE"), r"9.2A: blue or teal")


@pytest.mark.parametrize("site", [False, True])
def test_the_invariants_catch_an_end_moved_later(site: bool) -> None:
    """12.1: the bank breaking in OR 6.2 ends 1861-29683 after OR 6.2; an 8-train's
    later end may not replace it. RN 11.35: on 18xx.games it does, which is no failure."""
    game = replayed("1861-29683", 676, Rules.rulebook().but(final_phase_end_wins=site))
    state = game.state
    state.players[0].cash += state.bank + 1
    state.bank = -1
    check_bank(game.ctx, state)
    before = Before.of(game)
    state.game_ends_after = (6, 3)  # as the 8-train's end would set it (12.1 1861: SR + 3 ORs)
    if site:
        check_invariants(game, Pass(game.actor() or ""), before)
        return
    with pytest.raises(InvariantError, match=r"the end moved from \(6, 1\) to \(6, 3\)"):
        check_invariants(game, Pass(game.actor() or ""), before)


def test_a_merge_in_progress_is_no_invariant_failure() -> None:
    """9.2E-F: while the owners buy SE's shares, SE still has two tokens in Moscow and
    is not yet asked to reduce them or discard (S4015 by the rulebook); a seated player acts."""
    game = replayed("1861-gen-P6-grid-S4015", 283, Rules.rulebook())
    before = Before.of(game)
    game.apply(Merge("MNN", "SE"))
    check_invariants(game, Merge("MNN", "SE"), before)
    assert game.acting_player() == "2"


def test_a_merge_that_found_no_president_is_undone_in_the_export() -> None:
    """9.2 note: Troika reverses a failed merge itself; 18xx.games waits for an undo (RN
    8.3), so the export undoes the merge back to the minor's first choice and the minor
    passes (1867 self-play 840004: OP adds KP, names C&O, nobody can preside)."""
    players, market = selfplay_setups("1867")[3]
    result = play_random_game(840004, players, market, "1867", site=True)
    log = result.site_log()
    actions = log["actions"]
    undo = next(i for i, a in enumerate(actions) if a["type"] == "undo")
    first = next(i for i, a in enumerate(actions) if a["id"] == actions[undo]["action_id"]) + 1
    assert [a["type"] for a in actions[first:first + 2]] == ["merge", "merge"]
    assert {a["entity"] for a in actions[first:first + 2]} == {"OP"}
    assert actions[undo + 1] == {"id": actions[undo]["id"] + 1, "type": "pass", "entity": "OP",
                                 "entity_type": "corporation"}
    report = replay(log).report
    assert report.finished and report.applied == report.actions and report.first_divergence is None
