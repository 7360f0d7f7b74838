"""Laying and upgrading tiles (rulebook 8.6) on hexes of the real 1861 map."""

from __future__ import annotations

import pytest

from engine.actions import LayTile, Pass
from engine.errors import IllegalAction
from engine.game import Game
from engine.legal import legal_actions
from engine.replay import replay
from engine.rules import Rules
from engine.state import PlacedTile
from engine.track import check_upgrade, lay_cost
from tests.conftest import play, refused, replayed, shared_game


def _first_operating_round() -> Game:
    """1861-29683 in operating round 1.1, M-K (home Moscow city 0) about to lay track."""
    log, _ = shared_game("1861-29683")
    game = replay(log, None, until=58).game
    assert game.actor() == "M-K" and game.state.round.step == "track"
    return game


def test_a_yellow_tile_extending_the_route_is_laid_for_free() -> None:
    game = _first_operating_round()
    cash = game.state.companies["M-K"].cash
    play(game, LayTile("M-K", "H10", "58", 1))
    assert game.state.map.tiles["H10"].tile == "58"
    assert game.state.companies["M-K"].cash == cash
    assert game.state.map.supply["58"] == 3


def test_refused_lays_say_why_and_change_nothing() -> None:
    game = _first_operating_round()
    refused(game, LayTile("M-K", "I5", "58", 0), "locked until phase 3")
    refused(game, LayTile("M-K", "H10", "87", 0), "green tiles are not available in phase 2")
    refused(game, LayTile("M-K", "H10", "57", 0), "town")
    refused(game, LayTile("M-K", "H10", "9", 0), "town")
    game.ctx.rules = game.ctx.rules.but(lay_connection_unchecked=False)  # the rulebook's 8.6
    refused(game, LayTile("M-K", "B6", "9", 0), "cannot reach B6")
    refused(game, LayTile("N", "H10", "58", 1), "M-K's turn")
    refused(game, LayTile("M-K", "Z99", "58", 1), "no hex Z99")


def test_the_second_lay_costs_20_and_may_not_use_the_same_hex() -> None:
    game = _first_operating_round()
    play(game, LayTile("M-K", "H10", "58", 1))
    refused(game, LayTile("M-K", "H10", "87", 1), "already had a track action")
    cash = game.state.companies["M-K"].cash
    play(game, LayTile("M-K", "G11", "9", 1))
    assert game.state.companies["M-K"].cash == cash - 20


def test_terrain_is_paid_by_the_yellow_lay() -> None:
    game = _first_operating_round()
    state = game.state
    assert lay_cost(game.ctx, state, "M7", game.ctx.board.tiles["6"], second=False) == 40
    assert lay_cost(game.ctx, state, "M9", game.ctx.board.tiles["58"], second=True) == 100


def test_costs_printed_on_tiles_by_rulebook_and_by_18xx_games() -> None:
    game = _first_operating_round()
    game.ctx.rules = Rules.rulebook()
    state, board = game.state, game.ctx.board
    # The printed Nizhnii Novgorod (K7) carries 20 for its upgrade in both rule sets.
    assert lay_cost(game.ctx, state, "K7", board.tiles["207"], second=False) == 20
    # Kiev's green 635 carries 40: paid when laid (rulebook) or when replaced (site).
    assert lay_cost(game.ctx, state, "D14", board.tiles["635"], second=False) == 40
    state.map.tiles["D14"] = PlacedTile("635", 0, "635-0")
    assert lay_cost(game.ctx, state, "D14", board.tiles["636"], second=False) == 0
    game.ctx.rules = game.ctx.rules.but(tile_cost_paid_on_replace=True)
    assert lay_cost(game.ctx, state, "D14", board.tiles["636"], second=False) == 40
    state.map.tiles.pop("D14")
    assert lay_cost(game.ctx, state, "D14", board.tiles["635"], second=False) == 0


@pytest.mark.parametrize(
    "hex_id,placed,tile,rotation,problem",
    [
        ("K7", None, "207", 4, None),  # Y city, exits 1 and 5 kept
        ("K7", None, "207", 5, None),
        ("K7", None, "207", 0, "does not keep the track"),
        ("K7", None, "14", 4, "labelled Y"),  # Nizhnii Novgorod is a Y city
        ("G15", ("623", 0), "640", 0, None),  # Kharkov takes its Kh label at gray
        ("G15", ("623", 0), "639", 0, "upgrades only to 640"),
        ("G15", None, "5", 0, "labelled Y"),
        ("G15", ("201", 0), "207", 0, None),  # a Y city until gray
        ("G11", ("8", 0), "16", 0, None),  # 8 -> 16 in the manifest
        ("G11", ("9", 0), "16", 0, "upgrades only to"),  # 9 -> 16 is not
        ("G11", ("9", 0), "18", 0, None),
        ("G11", ("9", 0), "63", 0, "green tile"),  # one colour step at a time
        ("H8", None, "637", 1, None),  # Moscow's three cities each keep their track
        ("H8", None, "635", 1, "labelled M"),
        ("E1", None, "641", 0, None),  # St Petersburg: two cities become one
    ],
)
def test_upgrade_rules(hex_id, placed, tile, rotation, problem) -> None:
    game = _first_operating_round()
    game.ctx.rules = game.ctx.rules.but(upgrades_by_track_only=False)  # the manifest (19)
    if placed is not None:
        game.state.map.tiles[hex_id] = PlacedTile(placed[0], placed[1], f"{placed[0]}-0")
    new = game.ctx.board.tiles[tile]
    if problem is None:
        check_upgrade(game.ctx, game.state, hex_id, new, rotation)
    else:
        with pytest.raises(IllegalAction, match=problem):
            check_upgrade(game.ctx, game.state, hex_id, new, rotation)


def test_tokens_follow_their_city_when_moscow_is_upgraded() -> None:
    game = _first_operating_round()
    state = game.state
    from engine.track import place_tile

    place_tile(game.ctx, state, "H8", game.ctx.board.tiles["637"], 1, "")
    # N's city (edge 2) is city 0 of 637 at rotation 1 (exits 1, 2).
    assert state.map.tokens[("H8", 0)] == ["N"]
    assert state.map.tokens[("H8", 2)] == ["M-K"]  # edge 0 is in city 2 (exits 5, 0)
    assert next(t for t in state.companies["N"].tokens if t.hex).city == 0


def test_passing_ends_the_track_step() -> None:
    game = _first_operating_round()
    play(game, Pass("M-K"))
    assert game.state.round.step != "track"


@pytest.mark.parametrize("site", [False, True])
def test_ottawas_water_is_paid_once_by_its_first_tile(site: bool) -> None:
    """8.6.2: a cost printed on a hex "is incurred when a tile is placed or upgraded in
    that hex", and 8.6 (Preservation) keeps "track, cities, towns, and hex letters but
    not printed costs": the first tile on Ottawa (J12, water 20) pays it and covers it,
    so in 1867-21268 CV's upgrade to green 622 costs nothing (18xx.games alike)."""
    rules = Rules.site() if site else Rules.rulebook()
    first = replayed("1867-21268", 97, rules)  # AE lays yellow 202 there next
    assert lay_cost(first.ctx, first.state, "J12", first.ctx.board.tiles["202"], second=False) == 20
    game = replayed("1867-21268", 183, rules)
    state = game.state
    assert state.map.tiles["J12"].tile == "202" and game.actor() == "CV"
    assert lay_cost(game.ctx, state, "J12", game.ctx.board.tiles["622"], second=False) == 0
    cash = state.companies["CV"].cash
    log, _ = shared_game("1867-21268")
    lay = next(a for a in log["actions"] if a["id"] == 184)
    play(game, LayTile("CV", "J12", "622", lay["rotation"]))
    assert state.companies["CV"].cash == cash


@pytest.mark.parametrize("site", [False, True])
def test_the_two_track_actions_in_either_order(site: bool) -> None:
    """8.6: a free lay or upgrade plus a yellow lay for 20, "in any order": in
    1861-29683's OR 3.1 RO lays yellow on D6, then upgrades B6 (the 20 is paid by the
    second action); an upgrade first leaves only a yellow lay. 18xx.games alike
    (RN 7.3: the second action may upgrade when the first did not)."""
    rules = Rules.site() if site else Rules.rulebook()
    game = replayed("1861-29683", 229, rules)
    ro = game.state.companies["RO"]
    cash = ro.cash
    play(game, LayTile("RO", "D6", "9", 2), LayTile("RO", "B6", "23", 2))
    assert ro.cash == cash - 20 and game.state.map.tiles["B6"].tile == "23"
    game = replayed("1861-29683", 229, rules)
    play(game, LayTile("RO", "B6", "23", 2))
    refused(game, LayTile("RO", "B8", "88", 0), "the extra track action may only lay a yellow tile")
    play(game, LayTile("RO", "D6", "9", 2))
    assert game.state.companies["RO"].cash == cash - 20


RULE_MODES = {"rulebook": Rules.rulebook(), "site": Rules.site(live=True)}


@pytest.mark.parametrize("mode", RULE_MODES)
def test_new_track_joined_where_the_company_leaves_the_hex_connects_nothing(mode: str) -> None:
    """8.6: "a company must have connectivity to at least one segment of new track";
    8.1: a train cannot reverse at a hex edge. 1861-29683 before id 265: M-K's route
    runs Moscow (H10) - G11 - F12 - E13 over two tiles 9, and reaches F12's edge 1
    only through F12 itself (nothing lies beyond it). Tile 23 turned 1 adds a curve
    from that edge: a train could run onto it only by turning back there, so the lay
    connects nothing; turned 4 its curve leaves edge 4, where M-K's trains run in from
    G11. 18xx.games (its page, `new … site`) refuses the first, accepts the second."""
    game = replayed("1861-29683", 264, RULE_MODES[mode])
    assert game.actor() == "M-K" and game.state.map.tiles["F12"].tile == "9"
    offered = {a for a in legal_actions(game) if isinstance(a, LayTile) and a.hex in ("F12", "G11")}
    for hex_id in ("F12", "G11"):
        for tile in ("23", "26", "27"):
            lay = LayTile("M-K", hex_id, tile, 1)
            assert lay not in offered
            refused(game, lay, f"M-K cannot reach the new track of tile {tile} on {hex_id}")
        assert LayTile("M-K", hex_id, "23", 4) in offered
    play(game, LayTile("M-K", "F12", "23", 4))
    assert game.state.map.tiles["F12"] == PlacedTile("23", 4, "23-0")


@pytest.mark.parametrize("mode", RULE_MODES)
def test_new_track_from_a_town_the_company_runs_through_connects(mode: str) -> None:
    """8.6, 8.1: a train may leave a town by any of its track. 1861-29683 id 265: M-K
    (token in Moscow, H8) runs through the town of H10 (tile 58) and upgrades it to 87,
    whose new track leaves the town, as the players did; the town's other green tiles
    are offered too, also at E13, the town at the far end of its route."""
    game = replayed("1861-29683", 264, RULE_MODES[mode])
    lays = {a for a in legal_actions(game) if isinstance(a, LayTile)}
    assert {a.tile for a in lays if a.hex == "H10"} == {a.tile for a in lays if a.hex == "E13"} == {"87", "88", "204"}
    play(game, LayTile("M-K", "H10", "87", 1))
    assert game.state.map.tiles["H10"] == PlacedTile("87", 1, "87-0")
