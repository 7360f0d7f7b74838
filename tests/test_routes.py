"""Routes and revenue (rulebook 8.8; RULES-NOTES 7.5, 11.15-16, 12.5) on the 1861 map."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

import pytest
from helpers_map import (
    FINAL_TILES,
    FINAL_TOKENS,
    FINAL_TRAINS,
    TRACES,
    context,
    final_positions,
    position,
)

from engine.actions import Route
from engine.errors import IllegalAction
from engine.game import Game
from engine.graph import track_graph
from engine.replay import replay
from engine.route_search import QUICK_STEPS, _TrainSearch, best_routes
from engine.routes import RouteResult, Scope, check_routes, route_text, to_route
from engine.state import Company, GameState, Train

CTX = context()

Legs = Sequence[Sequence[str]]

# N's 2-train in the first operating round of game 29683: Moscow, Tver, St Petersburg.
TVER = [["G5", "G7", "H8"], ["E1", "F2", "F4", "G5"]]

# MNN (Moscow city 3) east to Nizhnii Novgorod (K7) and Kazan (M7) ...
EAST = {"I7": "8@5", "J8": "8@2", "L8": "8@2", "M7": "57@1"}
TO_KAZAN = [["H8", "I7", "J8", "K7"], ["K7", "L8", "M7"]]
# ... and, with green Moscow, south-east to Voronezh (I13).
VORONEZH = {**EAST, "H8": "637@0", "I9": "8@0", "I11": "9@0", "I13": "619@0"}

# Moscow to Ekaterinburg along the final map of game 29683.
TO_EKATERINBURG = [["H8", "I7", "J6", "K5", "L6", "M5", "N4", "O3", "P4", "Q3"]]

# Kazan to Poland on the final map: M7 K7 H8 G5 E1 B4 B8 A9.
ACROSS = [
    ["M7", "L8", "K7"], ["K7", "J8", "I7", "H8"], ["H8", "G7", "G5"], ["G5", "F4", "F2", "E1"],
    ["E1", "D2", "C3", "B4"], ["B4", "A5", "B6", "B8"], ["B8", "A9"],
]

# Rostov (V) with track to both Caucasus hexes and on past J20 to Lugansk (I17).
ROSTOV = {"I19": "5@5", "J18": "8@0", "I17": "58@3"}

# Green Moscow with a loop through Tver back into Moscow.
LOOP = {"H8": "637@0", "G5": "87@5", "H6": "8@0", "F6": "8@4", "F8": "8@3", "G9": "8@2"}


def run(state: GameState, sym: str, *routes: tuple[str, Legs]) -> list[RouteResult]:
    company = state.companies[sym]
    return check_routes(
        CTX, state, company, [Route(t, tuple(tuple(leg) for leg in legs)) for t, legs in routes]
    )


def revenue(state: GameState, sym: str, *routes: tuple[str, Legs]) -> int:
    return sum(r.revenue for r in run(state, sym, *routes))


def refused(match: str, state: GameState, sym: str, *routes: tuple[str, Legs]) -> None:
    with pytest.raises(IllegalAction, match=match):
        run(state, sym, *routes)


# ----------------------------------------------------------------- counting (8.8.1)


def test_two_train_counts_its_two_cities_and_skips_the_town() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2"]})
    (result,) = run(state, "N", ("2-0", TVER))
    assert result.revenue == 80  # Moscow 40 + St Petersburg 40
    assert result.stops == (("H8", 1), ("G5", 0), ("E1", 1))
    assert result.counted == (("H8", 1), ("E1", 1))
    assert route_text(result) == "H8-G5-E1"
    assert result.legs == (("H8", "G7", "G5"), ("G5", "F4", "F2", "E1"))


def test_legs_may_be_written_either_way_and_in_either_order() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2"]})
    forward = [["H8", "G7", "G5"], ["G5", "F4", "F2", "E1"]]
    backward = [["E1", "F2", "F4", "G5"], ["G5", "G7", "H8"]]
    assert revenue(state, "N", ("2-0", forward)) == 80
    (result,) = run(state, "N", ("2-0", backward))
    assert result.revenue == 80 and result.stops[0] == ("E1", 1)


def test_spare_capacity_counts_the_best_towns() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["3"]})
    assert revenue(state, "N", ("3-0", TVER)) == 90


def test_spw_poland_vilna_st_petersburg() -> None:
    state = position(tiles={"B8": "4@1"}, tokens={"SPW": ["E1"]}, trains={"SPW": ["2"]})
    legs = [["B8", "A9"], ["E1", "D2", "D4", "C5", "C7", "B8"]]
    (result,) = run(state, "SPW", ("2-0", legs))
    assert result.revenue == 70  # Poland 30 (yellow) + St Petersburg 40
    assert result.counted == (("A9", 0), ("E1", 0))


def test_off_board_value_follows_the_phase() -> None:
    legs = [["B8", "A9"], ["E1", "D2", "D4", "C5", "C7", "B8"]]
    state = position(tiles={"B8": "4@1"}, tokens={"SPW": ["E1"]}, trains={"SPW": ["2"]}, phase="3")
    assert revenue(state, "SPW", ("2-0", legs)) == 80  # Poland 40 (green)


def test_ro_riga_dunaberg() -> None:
    state = position(tiles={"B4": "202@5"}, tokens={"RO": ["B4"]}, trains={"RO": ["2"]})
    assert revenue(state, "RO", ("2-0", [["B4", "C5"]])) == 40  # Riga 30 + Dünaberg 10


def test_a_route_may_pass_a_hex_and_later_stop_there() -> None:
    # RO's route in the bank-breaks game: through C5 on its plain track, later to its town.
    tiles = {"B4": "202@5", "B6": "8@0", "B8": "3@3"}
    state = position(tiles=tiles, tokens={"RO": ["B4"]}, trains={"RO": ["2"]})
    legs = [["E1", "D2", "D4", "C5", "C7", "B8"], ["B8", "B6", "A5", "B4"], ["B4", "C5"]]
    (result,) = run(state, "RO", ("2-0", legs))
    assert result.revenue == 70
    assert result.counted == (("E1", 0), ("B4", 0))


def test_a_train_may_visit_no_more_cities_than_it_counts() -> None:
    state = position(tiles=EAST, tokens={"MNN": ["H8"]}, trains={"MNN": ["2", "3"]})
    refused(r"2-0: a 2-train counts at most 2 cities", state, "MNN", ("2-0", TO_KAZAN))
    assert revenue(state, "MNN", ("3-0", TO_KAZAN)) == 90


def test_a_route_needs_a_city_with_the_company_token() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2"]})
    refused(r"2-0: .* must include a city with a N token", state, "N",
            ("2-0", [["G5", "F4", "F2", "E1"]]))


def test_blocked_city_only_at_an_end() -> None:
    open_map = position(tiles=EAST, tokens={"MNN": ["H8"]}, trains={"MNN": ["3"]})
    assert revenue(open_map, "MNN", ("3-0", TO_KAZAN)) == 90
    blocked = position(tiles=EAST, tokens={"MNN": ["H8"], "SW": ["K7"]}, trains={"MNN": ["3"]})
    refused(r"Nizhnii Novgorod \(K7\) is full of other companies' tokens", blocked, "MNN",
            ("3-0", TO_KAZAN))
    assert revenue(blocked, "MNN", ("3-0", TO_KAZAN[:1])) == 70


def test_off_boards_only_at_the_ends() -> None:
    state = position(tiles=ROSTOV, tokens={"V": ["I19"]}, trains={"V": ["3"]})
    assert revenue(state, "V", ("3-0", [["I19", "J20"]])) == 30  # Rostov 20 + Caucasus 10
    refused(r"Caucasus \(J20\) is an off-board area", state, "V",
            ("3-0", [["I19", "J20"], ["J20", "J18", "I17"]]))


def test_one_hex_of_an_off_board_area() -> None:
    state = position(tiles=ROSTOV, tokens={"V": ["I19"]}, trains={"V": ["3"]})
    refused(r"may reach Caucasus only once", state, "V", ("3-0", [["I21", "I19"], ["I19", "J20"]]))


def test_a_node_once_per_route() -> None:
    state = position(tiles=LOOP, tokens={"N": ["H8"]}, trains={"N": ["3"]}, phase="3")
    refused(r"visits Moscow \(H8\) city 2 twice", state, "N",
            ("3-0", [["H8", "G7", "G5"], ["G5", "H6", "H8"]]))


def test_one_stop_per_hex() -> None:
    state = position(tiles=LOOP, tokens={"N": ["H8"]}, trains={"N": ["3"]}, phase="3")
    refused(r"stops twice in H8", state, "N",
            ("3-0", [["H8", "G7", "G5"], ["G5", "F6", "F8", "G9", "H8"]]))


# ----------------------------------------------------------------- track (8.8.1)


def test_track_is_not_shared_between_trains() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2", "2"]})
    refused(r"2-1: the track between \w+ and \w+ is already used by train 2-0", state, "N",
            ("2-0", TVER), ("2-1", TVER))


def test_trains_leaving_by_one_junction_share_its_border() -> None:
    # I7 (tile 23) forks towards J6 and J8 after a single border with Moscow.
    state = position(tiles=FINAL_TILES, tokens={"SW": ["H8"]}, trains={"SW": ["2+2", "5"]},
                     phase="8")
    to_k7 = [["H8", "I7", "J8", "K7"]]
    assert revenue(state, "SW", ("5-0", to_k7)) == 150
    with pytest.raises(IllegalAction) as info:
        run(state, "SW", ("2+2-0", TO_EKATERINBURG), ("5-0", to_k7))
    assert re.search(r"between (H8 and I7|I7 and H8) is already used by train 2\+2-0", str(info.value))


def test_leg_problems_are_explained() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2"]})
    refused(r"G5 and F2 are not neighbouring", state, "N", ("2-0", [["H8", "G7", "G5", "F2"]]))
    refused(r"no track joins H8 and H10", state, "N", ("2-0", [["H8", "H10"]]))
    refused(r"without passing another on the way", state, "N",
            ("2-0", [["H8", "G7", "G5", "F4", "F2", "E1"]]))
    refused(r"F2 has none", state, "N", ("2-0", [["E1", "F2"]]))
    refused(r"at least two hexes", state, "N", ("2-0", [["H8"]]))
    refused(r"at least two revenue centres", state, "N", ("2-0", []))
    state = position(tiles={"B8": "4@1"}, tokens={"N": ["H8"]}, trains={"N": ["2"]})
    refused(r"must meet at a revenue centre", state, "N",
            ("2-0", [["H8", "G7", "G5"], ["E1", "D2", "D4", "C5", "C7", "B8"]]))


def test_trains_must_be_the_company_s_own_and_run_once() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2", "2"]})
    refused(r"N has no train 3-0", state, "N", ("3-0", TVER))
    refused(r"train 2-0 is given more than one route", state, "N", ("2-0", TVER), ("2-0", TVER))
    state.companies["N"].trains[0].operated = True
    refused(r"train 2-0 has already run", state, "N", ("2-0", TVER))


# ----------------------------------------------------------------- bonuses (8.8.2)


def test_moscow_ekaterinburg_bonus() -> None:
    state = position(tiles=FINAL_TILES, tokens={"SW": ["H8"]}, trains={"SW": ["5", "2+2"]},
                     phase="8")
    # 5-train: Moscow 100 + Ekaterinburg 40, doubled Ekaterinburg 40.
    assert revenue(state, "SW", ("5-0", TO_EKATERINBURG)) == 180
    # 2+2: (100 + 40) x 2 + 40 x 2, as SW's logged 2+2 run (360).
    assert revenue(state, "SW", ("2+2-0", TO_EKATERINBURG)) == 360


def test_ekaterinburg_without_moscow_has_no_bonus() -> None:
    state = position(tiles=FINAL_TILES, tokens={"SW": ["K7"]}, trains={"SW": ["5"]}, phase="8")
    legs = [["Q3", "P4", "O3", "N4", "M5", "L6", "K7"]]
    assert revenue(state, "SW", ("5-0", legs)) == 90  # Ekaterinburg 40 + Nizhnii Novgorod 50


def test_private_bonus_per_counted_stop() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2"]}, privates={"N": ["MYR"]})
    assert revenue(state, "N", ("2-0", TVER)) == 90
    state = position(tiles={"B8": "4@1"}, tokens={"SPW": ["E1"]}, trains={"SPW": ["2"]},
                     privates={"SPW": ["WVR"]})
    assert revenue(state, "SPW", ("2-0", [["B8", "A9"], ["E1", "D2", "D4", "C5", "C7", "B8"]])) == 80


def test_private_bonus_is_not_doubled() -> None:
    """8.8.2: a train's revenue is the sum of the values counted "(adding any
    bonuses)", and 8.8.3 doubles the values: the private's +10 is added once."""
    state = position(tiles=FINAL_TILES, tokens={"SW": ["H8"]}, trains={"SW": ["2+2"]},
                     privates={"SW": ["MYR", "MRR"]}, phase="8")
    assert revenue(state, "SW", ("2+2-0", TO_EKATERINBURG)) == 360 + 10 + 10


def test_closed_private_gives_no_bonus() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2"]}, privates={"N": ["MYR"]})
    state.closed_privates.add("MYR")
    assert revenue(state, "N", ("2-0", TVER)) == 80


# ----------------------------------------------------------------- special trains (8.8.3)


def test_two_plus_two_counts_two_stops_doubled() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2+2"]})
    (result,) = run(state, "N", ("2+2-0", TVER))
    assert result.revenue == 160 and result.counted == (("H8", 1), ("E1", 1))


def test_express_skips_cities_and_doubles_its_best_five() -> None:
    state = position(tiles=FINAL_TILES, tokens={"MKV": ["H8"]}, trains={"MKV": ["5+5E", "8"]},
                     phase="8")
    # 8-train: every stop (6 cities and off-boards, 2 towns) counts.
    assert revenue(state, "MKV", ("8-0", ACROSS)) == 40 + 50 + 100 + 10 + 70 + 50 + 10 + 70
    (result,) = run(state, "MKV", ("5+5E-0", ACROSS))
    # Poland 70 + Moscow 100 + St Petersburg 70 + Nizhnii Novgorod 50 + Riga 50, doubled.
    assert result.revenue == 680
    assert set(result.counted) == {("A9", 0), ("H8", 0), ("E1", 0), ("K7", 0), ("B4", 0)}


def test_express_counts_every_off_board_it_visits() -> None:
    # In phase 2 Poland is worth 30, less than Kazan (40), but is counted all the same
    # (RULES-NOTES 11.16): 30 + 100 + 70 + 50 + 50, doubled.
    state = position(tiles=FINAL_TILES, tokens={"MKV": ["H8"]}, trains={"MKV": ["5+5E"]}, phase="2")
    (result,) = run(state, "MKV", ("5+5E-0", ACROSS))
    assert result.revenue == 600 and ("A9", 0) in result.counted and ("M7", 0) not in result.counted


def test_express_counts_a_city_with_the_company_token() -> None:
    # The token is in Kazan (40), below the five best; Kazan replaces Riga (50).
    state = position(tiles=FINAL_TILES, tokens={"MKV": ["M7"]}, trains={"MKV": ["5+5E"]}, phase="8")
    (result,) = run(state, "MKV", ("5+5E-0", ACROSS))
    assert result.revenue == 660 and ("M7", 0) in result.counted


def test_express_takes_the_moscow_ekaterinburg_pair() -> None:
    # Moscow 100 + Ekaterinburg 40 (+40) beat Kazan 40: the pair is counted, doubled.
    state = position(tiles=FINAL_TILES, tokens={"MKV": ["H8"]}, trains={"MKV": ["5+5E"]}, phase="8")
    legs = [["M7", "L8", "K7"], ["K7", "J8", "I7", "H8"], ["H8", "G7", "G5"],
            ["G5", "F4", "F2", "E1"]]
    (result,) = run(state, "MKV", ("5+5E-0", legs))
    assert result.revenue == (40 + 50 + 100 + 10 + 70) * 2
    (result,) = run(state, "MKV", ("5+5E-0", TO_EKATERINBURG))
    assert result.revenue == (100 + 40) * 2 + 80


# ----------------------------------------------------------------- the best routes


def test_best_route_of_one_train() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2"]})
    (result,) = best_routes(CTX, state, state.companies["N"])
    assert result.revenue == 80 and set(result.counted) == {("H8", 1), ("E1", 1)}


def test_best_routes_beat_the_greedy_choice() -> None:
    # Alone, the 3-train earns most on K7-H8-I13 (30 + 50 + 30), but that uses both of
    # Moscow's exits. Best: 3-train H8-K7-M7 (100) and 2-train H8-I13 (80).
    lone = position(tiles=VORONEZH, tokens={"MNN": ["H8"]}, trains={"MNN": ["3"]}, phase="3")
    (alone,) = best_routes(CTX, lone, lone.companies["MNN"])
    assert alone.revenue == 110
    state = position(tiles=VORONEZH, tokens={"MNN": ["H8"]}, trains={"MNN": ["3", "2"]}, phase="3")
    results = best_routes(CTX, state, state.companies["MNN"])
    assert [(r.train, r.revenue) for r in results] == [("3-0", 100), ("2-0", 80)]
    assert {route_text(r) for r in results} <= {"M7-K7-H8", "H8-K7-M7", "I13-H8", "H8-I13"}


def test_best_routes_with_two_trains_of_one_type() -> None:
    state = position(tiles=VORONEZH, tokens={"MNN": ["H8"]}, trains={"MNN": ["2", "2"]}, phase="3")
    results = best_routes(CTX, state, state.companies["MNN"])
    assert sorted(r.revenue for r in results) == [80, 80]


def test_best_routes_leave_out_trains_that_have_run() -> None:
    state = position(tokens={"N": ["H8"]}, trains={"N": ["2", "3"]})
    state.companies["N"].trains[1].operated = True
    assert [r.train for r in best_routes(CTX, state, state.companies["N"])] == ["2-0"]


def test_best_routes_when_nothing_can_run() -> None:
    no_track = position(tokens={"MB": ["E9"]}, trains={"MB": ["2"]})
    assert best_routes(CTX, no_track, no_track.companies["MB"]) == []
    no_trains = position(tokens={"N": ["H8"]})
    assert best_routes(CTX, no_trains, no_trains.companies["N"]) == []


def test_best_routes_round_trip_through_check_routes() -> None:
    state = position(tiles=FINAL_TILES, tokens=FINAL_TOKENS, trains=FINAL_TRAINS, phase="8")
    for sym, company in state.companies.items():
        results = best_routes(CTX, state, company)
        checked = check_routes(CTX, state, company, [to_route(r) for r in results])
        assert [r.revenue for r in checked] == [r.revenue for r in results], sym
        assert [r.stops for r in checked] == [r.stops for r in results], sym


SMALL_POSITIONS = [
    (VORONEZH, {"MNN": ["H8"]}, {"MNN": ["3", "2"]}, "3"),
    (VORONEZH, {"MNN": ["H8"], "SW": ["K7"]}, {"MNN": ["4"]}, "4"),
    (LOOP, {"N": ["H8"]}, {"N": ["2", "3"]}, "3"),
    (LOOP, {"N": ["H8"]}, {"N": ["5+5E"]}, "8"),
    (ROSTOV, {"V": ["I19"]}, {"V": ["2", "2"]}, "5"),
    ({"B4": "202@5", "B6": "8@0", "B8": "3@3"}, {"RO": ["B4"]}, {"RO": ["2", "3"]}, "3"),
    (VORONEZH, {"MNN": ["H8"]}, {"MNN": ["2", "2", "2"]}, "3"),
    (VORONEZH, {"MNN": ["H8"]}, {"MNN": ["3", "2", "2"]}, "3"),
    (LOOP, {"N": ["H8"]}, {"N": ["2+2", "3", "2"]}, "8"),
]
"""Hand-built positions small enough for an exhaustive search."""


@pytest.mark.parametrize("quick_steps", [QUICK_STEPS, 0], ids=["search", "program"])
@pytest.mark.parametrize(("tiles", "tokens", "trains", "phase"), SMALL_POSITIONS)
def test_best_routes_match_an_exhaustive_search(
    tiles: dict[str, str],
    tokens: dict[str, list[str]],
    trains: dict[str, list[str]],
    phase: str,
    quick_steps: int,
) -> None:
    # With no steps for the search over trains, the integer program combines them.
    state = position(tiles=tiles, tokens=tokens, trains=trains, phase=phase)
    sym = next(iter(trains))
    found = sum(r.revenue for r in best_routes(CTX, state, state.companies[sym], quick_steps))
    assert found == _exhaustive_best(state, sym)


@pytest.mark.slow
@pytest.mark.skipif(not TRACES, reason="shared game traces not present")
def test_best_routes_are_fast_on_final_maps() -> None:
    for state in [*final_positions(), position(FINAL_TILES, FINAL_TOKENS, FINAL_TRAINS, phase="8")]:
        for sym, company in state.companies.items():
            start = time.process_time()
            best_routes(CTX, state, company)
            # About 0.5 s at most on the slow machine these were measured on.
            assert time.process_time() - start < 2.0, sym


# ----------------------------------------------------------------- helpers


def _exhaustive_best(state: GameState, sym: str) -> int:
    """Every walk between revenue nodes, priced by check_routes, best combination."""
    graph = track_graph(CTX, state)
    company = state.companies[sym]
    options: list[list[tuple[int, int]]] = []

    def walk(train: str, nodes: list[int], segments: list[int], used: int, found: dict[int, int]) -> None:
        if len(nodes) > 1 and nodes[0] < nodes[-1]:
            legs = []
            for here, s in zip(nodes, segments):
                seg = graph.segments[s]
                legs.append(seg.hexes if seg.a == here else seg.hexes[::-1])
            try:
                (result,) = check_routes(CTX, state, company, [Route(train, tuple(legs))])
            except IllegalAction:
                pass
            else:
                found[used] = max(found.get(used, 0), result.revenue)
        for s in graph.adjacent[nodes[-1]]:
            seg = graph.segments[s]
            other = seg.a ^ seg.b ^ nodes[-1]
            if other not in nodes and not used & seg.mask:
                walk(train, [*nodes, other], [*segments, s], used | seg.mask, found)

    for train in company.trains:
        by_track: dict[int, int] = {}
        for start in range(len(graph.nodes)):
            walk(train.id, [start], [], 0, by_track)
        options.append(list(by_track.items()))

    def combine(i: int, used: int) -> int:
        if i == len(options):
            return 0
        best = combine(i + 1, used)
        for mask, value in options[i]:
            if not mask & used:
                best = max(best, value + combine(i + 1, used | mask))
        return best

    return combine(0, 0)


def _national_with(names: list[str]) -> tuple[Game, Company]:
    """The RSR on the final map of game 29683 (eight tokens), with the given trains."""
    from tests.conftest import shared_game

    log, _ = shared_game("1861-29683")
    game = replay(log, None).game
    rsr = game.state.companies["RSR"]
    rsr.trains = [Train(f"{name}-9{i}", name) for i, name in enumerate(names)]
    return game, rsr


@pytest.mark.slow
@pytest.mark.skipif(not TRACES, reason="shared game traces not present")
@pytest.mark.parametrize("names", [["4", "4", "5", "5"], ["4", "5", "6"], ["4", "4", "4", "5"]])
def test_the_integer_program_agrees_with_the_search_over_trains(names: list[str]) -> None:
    # Two exact methods, written apart, on a dense map: the same best total.
    game, rsr = _national_with(names)
    by_program = best_routes(game.ctx, game.state, rsr, quick_steps=0)
    by_search = best_routes(game.ctx, game.state, rsr, quick_steps=10**9)
    assert sum(r.revenue for r in by_program) == sum(r.revenue for r in by_search)


@pytest.mark.slow
@pytest.mark.skipif(not TRACES, reason="shared game traces not present")
def test_a_national_with_many_trains_runs_legal_routes_for_the_same_total_every_time() -> None:
    # Seven trains: past its steps the search over trains hands over to the program.
    game, rsr = _national_with(["4", "4", "4", "5", "5", "6", "6"])
    routes = best_routes(game.ctx, game.state, rsr)
    assert len(routes) == 7
    total = sum(r.revenue for r in routes)
    checked = check_routes(game.ctx, game.state, rsr, [to_route(r) for r in routes])
    assert sum(r.revenue for r in checked) == total
    assert best_routes(game.ctx, game.state, rsr) == routes
    # No less than the best of six of them, with the seventh on the track left.
    rsr.trains.pop()
    assert total >= sum(r.revenue for r in best_routes(game.ctx, game.state, rsr))


@pytest.mark.skipif(not TRACES, reason="shared game traces not present")
@pytest.mark.parametrize("name", ["4", "6"])
def test_a_train_s_routes_for_a_higher_bar_are_the_lower_bar_s_list_cut(name: str) -> None:
    # One solve enumerates a train's routes once: the list for a higher bar is read
    # off the lower one's, and must be what a fresh search lists.
    game, rsr = _national_with([name])
    scope = Scope(game.ctx, game.state, rsr)
    train = game.ctx.board.train(name)
    fresh = _TrainSearch(scope, train).pool(200)
    reused = _TrainSearch(scope, train)
    lower = reused.pool(100)
    assert len(lower) > len(fresh) > 0
    assert reused.pool(200) == fresh


@pytest.mark.skipif(not TRACES, reason="shared game traces not present")
def test_hex_border_rows_prove_the_heaviest_national_run_met_in_play(monkeypatch: pytest.MonkeyPatch) -> None:
    # S4018, the RSR in phase 7 with 4, 5, 5, 6, 7: without the rows the relaxation's
    # bound is far above the best total; with them it is the best total, so no branch
    # and bound is needed.
    from engine import packing
    from tests.conftest import replayed

    game = replayed("1861-gen-P4-column-S4018", 766)
    rsr = game.state.companies["RSR"]
    plain = packing.Packing
    made: list[tuple[Sequence[packing.Item], dict[str, int], float]] = []

    class Recorded(plain):
        def __init__(self, items: Sequence[packing.Item], limits: dict[str, int], groups: Sequence[int] = ()) -> None:
            super().__init__(items, limits, groups)
            made.append((items, limits, self.bound))

    monkeypatch.setattr(packing, "Packing", Recorded)
    total = sum(r.revenue for r in best_routes(game.ctx, game.state, rsr, remember=False))
    ((items, limits, bound),) = made
    assert total - 1 < bound < total + 1
    assert plain(items, limits).bound > total + 50


def test_a_remembered_bounded_search_answers_as_a_search_made_afresh() -> None:
    """bounded_income remembers each search by all it reads of the position
    (route_search.routes_key): asked again, with any budget, it answers as a search made
    afresh would (the income, or out of steps, and the work counted: the computer
    player's budget depends on it), also where a smaller budget runs out inside a lump
    of work. A position that differs in anything the search reads is searched afresh,
    where a stale answer would be wrong: the phase (off-board values), a private closed
    (its bonus), a city filled by another company's token, the order of the tokens.
    best_income (the greedy player's, remembered the same way) answers afresh too."""
    from engine import route_search
    from engine.route_search import bounded_income

    def remembered_and_afresh(state: GameState, sym: str, steps: int, primed: GameState, prime: int
                              ) -> tuple[int | None, int]:
        route_search._SEARCHED.clear()
        bounded_income(CTX, primed, primed.companies[sym], prime)
        remembered = bounded_income(CTX, state, state.companies[sym], steps)
        route_search._SEARCHED.clear()
        assert remembered == bounded_income(CTX, state, state.companies[sym], steps), (sym, steps)
        return remembered

    final = position(FINAL_TILES, FINAL_TOKENS, FINAL_TRAINS, phase="8")
    route_search._SEARCHED.clear()
    income, total = bounded_income(CTX, final, final.companies["RSR"], 10**9)
    ((_, searched),) = route_search._SEARCHED.items()
    (before, lump), = [(b, n) for b, n in searched.lumps if n > 1]  # the clash tables of two trains' lists
    budgets = (1, before, before + lump - 1, before + lump, total - 1, total)
    remembered = [bounded_income(CTX, final, final.companies["RSR"], steps) for steps in budgets]
    for steps, found in zip(budgets, remembered):
        assert found == ((income, total) if steps >= total else (None, before + lump if before <= steps < before + lump
                                                                 else steps + 1))
        route_search._SEARCHED.clear()
        assert found == bounded_income(CTX, final, final.companies["RSR"], steps)
    assert remembered_and_afresh(final, "RSR", before // 2, final, before) == (None, before // 2 + 1)
    assert remembered_and_afresh(final, "RSR", 10**9, final, before) == (income, total)

    early = position(FINAL_TILES, FINAL_TOKENS, FINAL_TRAINS, phase="2")  # off-boards pay their yellow values
    closed = position(FINAL_TILES, FINAL_TOKENS, FINAL_TRAINS, {"SW": ["MYR"]}, phase="8")
    bonus = position(FINAL_TILES, FINAL_TOKENS, FINAL_TRAINS, {"SW": ["MYR"]}, phase="8")
    closed.closed_privates.add("MYR")
    filled = position(FINAL_TILES, FINAL_TOKENS, FINAL_TRAINS, phase="8")
    filled.map.tokens[("M7", 0)] = ["SE", "SW"]  # Kazan (M7) full of others' tokens: NW runs past it no more
    reordered = position(FINAL_TILES, FINAL_TOKENS, FINAL_TRAINS, phase="8")
    reordered.companies["NW"].tokens.reverse()
    assert [(t.hex, t.city) for t in reordered.companies["NW"].placed_tokens][0] == ("K7", 0)
    for state, sym, primed, changed in ((early, "SW", final, True), (closed, "SW", bonus, True),
                                        (filled, "NW", final, True), (reordered, "NW", final, False)):
        route_search._SEARCHED.clear()
        was = bounded_income(CTX, primed, primed.companies[sym], 10**9)
        now = remembered_and_afresh(state, sym, 10**9, primed, 10**9)
        assert (now[0] != was[0]) == changed and now != was, (sym, was, now)  # the order: the same, found later
        route_search._INCOMES.clear()
        assert route_search.best_income(CTX, primed, primed.companies[sym]) == was[0]
        assert route_search.best_income(CTX, state, state.companies[sym]) == now[0] == sum(
            r.revenue for r in best_routes(CTX, state, state.companies[sym], remember=False))
