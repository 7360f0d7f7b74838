"""Track graph and connectivity (rulebook 8.1, 9.2; RULES-NOTES 2.1, 4.3) on the 1861 map."""

from __future__ import annotations

import time

import pytest
from helpers_map import TRACES, context, final_positions, position

from engine import graph
from engine.actions import Action
from engine.game import Game
from engine.graph import MinorLinks, city_is_unconnected, reachable, track_graph
from engine.rules import Rules
from engine.state import Company, Context
from tests.conftest import replayed

CTX = context()

# MNN (Moscow city 3) eastwards: I7, J8 to Nizhnii Novgorod (K7), L8 on to Kazan (M7).
EAST = {"I7": "8@5", "J8": "8@2", "L8": "8@2", "M7": "57@1"}

# The bank-breaks game before action 504: MKN's track reaches the Poland off-board A11
# only by crossing the B12-C13 border twice (C13 and B12 are junction tiles).
TWICE_ACROSS = {
    "B10": "9@0", "B12": "23@5", "B4": "801@4", "B6": "8@0", "B8": "88@0", "C13": "23@2",
    "C15": "7@3", "C3": "9@1", "D14": "636@0", "D16": "9@0", "D18": "9@0", "D2": "24@4",
    "D20": "202@1", "D6": "9@2", "D8": "9@2", "E1": "641@0", "E13": "58@5", "E7": "9@2",
    "E9": "619@0", "F14": "9@2", "F8": "24@5", "G13": "58@4", "G15": "623@0", "G17": "8@3",
    "G5": "87@5", "G9": "8@2", "H10": "4@0", "H12": "25@3", "H14": "9@1", "H18": "57@2",
    "H6": "8@0", "H8": "638@0", "I13": "14@1", "I7": "8@5", "I9": "8@2", "J12": "8@5",
    "J8": "23@4", "K11": "4@0", "K13": "7@2", "K7": "623@0", "K9": "9@0", "L6": "8@4",
    "L8": "28@3", "M5": "9@1", "N4": "9@1", "O3": "8@5", "P4": "8@2",
}
TWICE_ACROSS_TOKENS = {
    "NW": ["B4", "E1", "D14"], "RSR": ["E1", "D14", "D20"], "SW": ["H8", "K7"],
    "SE": ["H8", "Q3", "G15"], "MKN": ["H8", "E9", "K7"], "GRR": ["G15", "I13"],
}


def test_printed_track_joins_across_borders() -> None:
    # N's Moscow city leaves by edge 2 into G7, through Tver (G5) to St Petersburg.
    reach = reachable(CTX, position(tokens={"N": ["H8"]}), "N")
    assert reach.nodes == {("H8", 1), ("G5", 0), ("E1", 1)}
    assert reach.track_ends == {
        ("H8", 2), ("G7", 5), ("G7", 3), ("G5", 0), ("G5", 2),
        ("F4", 5), ("F4", 3), ("F2", 0), ("F2", 2), ("E1", 5),
    }
    assert reach.hexes == {"H8", "G7", "G5", "F4", "F2", "E1"}


def test_cities_of_one_hex_are_separate() -> None:
    reach = reachable(CTX, position(tokens={"N": ["H8"]}), "N")
    assert ("H8", 0) not in reach.nodes and ("H8", 2) not in reach.nodes
    assert ("E1", 0) not in reach.nodes


def test_a_token_without_track_reaches_its_own_city_only() -> None:
    reach = reachable(CTX, position(tokens={"MB": ["E9"]}), "MB")
    assert reach.nodes == {("E9", 0)} and reach.hexes == {"E9"} and not reach.track_ends


def test_track_ends_pointing_at_empty_hexes_are_reached() -> None:
    # L8 points on to M7; with no tile there the end is still reached (a new tile may join).
    tiles = {k: v for k, v in EAST.items() if k != "M7"}
    reach = reachable(CTX, position(tiles=tiles, tokens={"MNN": ["H8"]}), "MNN")
    assert ("L8", 4) in reach.track_ends
    assert ("K7", 0) in reach.nodes


def test_blocked_city_ends_a_walk() -> None:
    open_map = position(tiles=EAST, tokens={"MNN": ["H8"]})
    assert ("M7", 0) in reachable(CTX, open_map, "MNN").nodes
    blocked = position(tiles=EAST, tokens={"MNN": ["H8"], "SW": ["K7"]})
    reach = reachable(CTX, blocked, "MNN")
    assert ("K7", 0) in reach.nodes  # it may end a walk
    assert ("M7", 0) not in reach.nodes and ("L8", 2) not in reach.track_ends


def test_a_city_with_an_own_token_is_not_blocked() -> None:
    # Green 622 has two slots; SW and MNN fill them: blocked for others, not for MNN.
    state = position(tiles={**EAST, "K7": "622@1"}, tokens={"MNN": ["H8"], "SW": ["K7"]})
    state.map.tokens[("K7", 0)].append("MNN")
    assert ("M7", 0) in reachable(CTX, state, "MNN").nodes
    state.companies["N"] = Company("N", "minor", tokens=list(state.companies["MNN"].tokens))
    assert ("M7", 0) not in reachable(CTX, state, "N").nodes


def test_reversing_at_a_junction_is_not_allowed() -> None:
    # Tile 23 on I7 turned 4: paths 1-4 and 2-4 meet at edge 4. Coming in at edge 1 from
    # Moscow a walk goes on to edge 4 but cannot turn back to edge 2 (8.1).
    reach = reachable(CTX, position(tiles={"I7": "23@4"}, tokens={"MNN": ["H8"]}), "MNN")
    assert ("I7", 4) in reach.track_ends and ("I7", 2) not in reach.track_ends
    # Turned 1, the junction faces Moscow: both branches are reached.
    reach = reachable(CTX, position(tiles={"I7": "23@1"}, tokens={"MNN": ["H8"]}), "MNN")
    assert {("I7", 4), ("I7", 5)} <= reach.track_ends


def test_no_border_crossed_twice() -> None:
    state = position(tiles=TWICE_ACROSS, tokens=TWICE_ACROSS_TOKENS, phase="5")
    reach = reachable(CTX, state, "MKN")
    assert ("B12", 3) in reach.track_ends and ("C13", 2) in reach.track_ends
    assert ("A11", 0) not in reach.nodes
    assert ("B12", 2) not in reach.track_ends


def test_off_boards_are_not_passed_through() -> None:
    # Rostov (I19) reaches Caucasus (J20); the track beyond J20 towards Lugansk is not reached.
    tiles = {"I19": "5@5", "J18": "8@0", "I17": "58@3"}
    reach = reachable(CTX, position(tiles=tiles, tokens={"V": ["I19"]}), "V")
    assert ("J20", 0) in reach.nodes and ("I21", 0) in reach.nodes
    assert ("I17", 0) not in reach.nodes and ("J18", 0) not in reach.track_ends


def test_red_hexes_join_only_through_their_own_track() -> None:
    graph = track_graph(CTX, position())
    # A9 (Poland) has track towards B8 and B10 only; B8 is empty, so nothing crosses.
    a9 = [graph.end_ids[("A9", e)] for e in (4, 5)]
    assert all(graph.crossing[end] is None for end in a9)


@pytest.mark.parametrize("site", [False, True])
def test_city_is_unconnected(site: bool) -> None:
    """7.4, glossary: unconnected = "cannot trace a legal route to another city"; RN 4.3:
    on 18xx.games a town or an off-board connects it too."""
    ctx = Context(CTX.board, Rules.site() if site else Rules.rulebook(), CTX.title)
    empty = position()
    assert city_is_unconnected(ctx, empty, "E9", 0)  # no track at all
    assert city_is_unconnected(ctx, empty, "H8", 0)  # its track stops at empty H10
    assert not city_is_unconnected(ctx, empty, "H8", 1)  # through Tver (G5) to St Petersburg
    assert city_is_unconnected(ctx, empty, "Q3", 0)  # gray track into empty hexes
    laid = position(tiles={"H10": "58@1"})  # Tula, a town, joined to Moscow's first city
    assert city_is_unconnected(ctx, laid, "H8", 0) is not site


# Moscow's third city east to Voronezh (MV, I13) and on to Kharkov (KR, G15).
VORONEZH = {"H8": "637@0", "I9": "8@0", "I11": "9@0", "I13": "6@1", "H14": "9@1", "G15": "201@3"}


def test_minor_links_through_a_minor_in_the_merge() -> None:
    state = position(tiles=VORONEZH, tokens={"MNN": ["H8"], "MV": ["I13"], "KR": ["G15"]})
    assert MinorLinks(CTX, state).connected("MNN", "MV", {"MNN", "MV"})
    # MV's full city blocks the way unless MV is part of the merge (9.2).
    assert not MinorLinks(CTX, state).connected("MNN", "KR", {"MNN", "KR"})
    assert MinorLinks(CTX, state).connected("MNN", "KR", {"MNN", "KR", "MV"})


def test_minors_in_separate_cities_of_one_hex_are_not_connected() -> None:
    state = position(tokens={"N": ["H8"], "M-K": ["H8"], "SPW": ["E1"]})
    assert not MinorLinks(CTX, state).connected("N", "M-K", {"N", "M-K"})
    assert not MinorLinks(CTX, state).connected("N", "SPW", {"N", "SPW"})
    # One brown St Petersburg city: N reaches SPW's token.
    joined = position(tiles={"E1": "641@0"}, tokens={"N": ["H8"], "SPW": ["E1"]})
    assert MinorLinks(CTX, joined).connected("N", "SPW", {"N", "SPW"})


def test_track_graph_is_cached_per_layout() -> None:
    a = track_graph(CTX, position(tiles=EAST))
    b = track_graph(CTX, position(tiles=EAST, tokens={"MNN": ["H8"]}))
    assert a is b
    assert track_graph(CTX, position(tiles={"I7": "8@5"})) is not a


@pytest.mark.skipif(not TRACES, reason="shared game traces not present")
def test_reach_on_final_maps_is_fast() -> None:
    for state in final_positions():
        for sym, company in state.companies.items():
            if not company.placed_tokens:
                continue
            start = time.process_time()
            reach = reachable(CTX, state, sym)
            assert time.process_time() - start < 0.1
            assert all((t.hex, t.city) in reach.nodes for t in company.placed_tokens)


def test_a_walk_back_into_its_own_hex_is_no_route() -> None:
    """8.8.1 "One revenue center per hex": N alone in Moscow's city 1 (637), whose only
    track loops out through H6, I7 and I9 back into Moscow's city 2, has no route
    (as self-play under the site's rules met it, seed 10039: MVR with four 2-trains), so
    it is not asked to run, and the route search finds nothing rather than failing."""
    from engine.route_search import best_routes
    from engine.state import PlacedTile, Train

    game = replayed("1861-29683", 60, Rules.rulebook())
    ctx, state = game.ctx, game.state
    loop = {"H8": ("637", 1), "H10": ("87", 2), "H6": ("7", 5), "I7": ("17", 5), "I9": ("18", 1)}
    for hex_id, (tile, rotation) in loop.items():
        state.map.tiles[hex_id] = PlacedTile(tile, rotation, f"{tile}-9")
    minor = state.companies["N"]
    assert [(t.hex, t.city) for t in minor.placed_tokens] == [("H8", 1)]
    minor.trains = [Train(f"2-{i}", "2") for i in range(6, 10)]
    assert not graph.has_route(ctx, state, "N")
    assert best_routes(ctx, state, minor, remember=False) == []
    game.ctx.rules = game.ctx.rules.but(run_asked_for_any_walk=True)
    assert graph.has_route(game.ctx, state, "N")  # RN 7.2: the site asks N to run (S4003's KB enters none)


GRAPH_FIELDS = (
    "nodes", "node_ids", "defs", "ends", "end_ids", "crossing", "node_exits", "node_links",
    "onward_ends", "onward_nodes", "segments", "adjacent", "through", "cities",
)


def _same_graph(derived: graph.TrackGraph, fresh: graph.TrackGraph) -> None:
    for name in GRAPH_FIELDS:
        assert getattr(derived, name) == getattr(fresh, name), name
    assert list(derived.bit_hexes.items()) == list(fresh.bit_hexes.items())


@pytest.mark.parametrize("name", ["1861-29683", "1867-19792"])
def test_a_graph_derived_from_the_last_layout_equals_one_built_afresh(name: str) -> None:
    """A new layout a few tiles from the last is derived from its graph (track_graph);
    at every lay of a real game, that graph is the one a fresh build gives."""
    from engine.actions import LayTile
    from engine.replay import replay
    from tests.conftest import shared_game

    log, _ = shared_game(name)
    derived = 0

    def before(game: Game, action: Action) -> None:
        nonlocal derived
        if isinstance(action, LayTile):
            built = track_graph(game.ctx, game.state)  # the layout before this lay
            _same_graph(built, graph.TrackGraph(game.ctx.board, graph.tile_layout(game.ctx, game.state)))
            derived += 1

    assert replay(log, before=before).report.ok
    assert derived > 20  # the hook saw the lays


def test_a_tile_taken_away_leaves_the_graph_a_fresh_build_gives() -> None:
    """Taking a tile away (as a picture's preview or a test does) is a change like a lay."""
    from engine.state import PlacedTile

    state = position(tiles=EAST)
    before = track_graph(CTX, state)
    assert any("J8" in seg.hexes for seg in before.segments)  # Moscow to Nizhnii Novgorod
    state.map.tiles.pop("J8")
    state.map.tiles["I9"] = PlacedTile("9", 1, "9-7")
    after = track_graph(CTX, state)
    _same_graph(after, graph.TrackGraph(CTX.board, graph.tile_layout(CTX, state)))
    assert not any("J8" in seg.hexes for seg in after.segments)
    assert all(after.crossing[after.end_ids[("J8", edge)]] is None for edge in range(6))


def test_the_route_search_numbers_the_borders_as_their_first_track_end_comes() -> None:
    """The search's bits (TrackGraph.packed_masks) renumber the board's fixed ones as the
    track ends come, hex by hex in map order and in each tile's path order, then the
    paths between two nodes: the order the integer program's rows have always had, so
    HiGHS takes the same path. Every segment keeps its borders."""
    state = final_positions()[0] if TRACES else position(tiles=EAST)
    built = track_graph(CTX, state)
    masks, crossed = built.packed_masks()
    order: list[tuple[str, str]] = []
    for hex_id, (tile, rotation) in graph.tile_layout(CTX, state).items():
        for edge in tile.numbered_paths(rotation)[0]:
            cross = built.crossing[built.end_ids[(hex_id, edge)]]
            if cross is not None and (hexes := built.bit_hexes[cross[0].bit_length() - 1]) not in order:
                order.append(hexes)
    links = [h for h in crossed if h[0] == h[1]]
    assert crossed == order + links and len(set(crossed)) == len(crossed) == len(built.bit_hexes)
    for seg, packed in zip(built.segments, masks):
        fixed = [built.bit_hexes[b] for b in range(seg.mask.bit_length()) if seg.mask >> b & 1]
        assert sorted(crossed[b] for b in range(packed.bit_length()) if packed >> b & 1) == sorted(fixed)


def _reaches_as_a_friend(game: Game, a_sym: str, b_sym: str, merging: set[str]) -> bool:
    """9.2 read directly: a walk from ``a_sym``'s tokens with every company of the merge
    (``b_sym`` too) as a friend, stopping at ``b_sym``'s first city."""
    built = track_graph(game.ctx, game.state)
    targets = sum(1 << n for n in graph.token_nodes(game.state, built, b_sym))
    if not targets:
        return False
    friends = set(merging) | {a_sym, b_sym}
    passable = graph.passable_nodes(built, graph.blocked_nodes(game.state, built, friends))
    walk = graph._Walk(built, passable, goal=targets).run(graph.token_nodes(game.state, built, a_sym))
    return bool(walk.nodes & targets)


@pytest.mark.parametrize("name", ["1861-29683", "1861-bank-breaks"])
def test_minor_links_answers_as_the_walk_that_counts_the_target_a_friend(name: str) -> None:
    """MinorLinks.connected leaves the target minor out of the friends (one walk then serves
    every target): its own cities' passability cannot change whether a walk reaches
    one. At every merger-round action of a real game, for every pair of floated minors,
    it answers as the walk with the target as a friend does."""
    from engine.merger import MergerRound
    from engine.replay import replay
    from tests.conftest import shared_game

    log, _ = shared_game(name)
    pairs = connected = 0

    def before(game: Game, action: Action) -> None:
        nonlocal pairs, connected
        if not isinstance(game.state.round, MergerRound):
            return
        minors = [s for s, c in game.state.companies.items() if c.is_minor and c.floated and not c.closed]
        for a in minors:
            for b in minors:
                if a != b:
                    merging = {a, b, *game.state.round.merging}
                    found = MinorLinks(game.ctx, game.state).connected(a, b, merging)
                    assert found == _reaches_as_a_friend(game, a, b, merging), (action, a, b)
                    pairs += 1
                    connected += found

    assert replay(log, before=before).report.ok
    assert 0 < connected < pairs, (connected, pairs)  # both answers were met


def test_reached_nodes_are_the_nodes_every_walk_reaches() -> None:
    """reached_nodes (behind reached_with) finds the nodes the exhaustive walk over track
    ends finds: at every lay of a real game, for every company with a token, on the map
    before the lay and with the lay's tile put on its hex. Some positions have nodes the
    quick survey could not prove (reached only by crossing a border twice, as in
    TWICE_ACROSS), which the walk over whole segments decides; that walk alone, from the
    tokens with nothing proven, finds the same nodes too."""
    from engine.actions import LayTile
    from engine.replay import replay
    from tests.conftest import shared_game

    compared = undecided = 0

    def check(built: graph.TrackGraph, game: Game, sym: str) -> None:
        nonlocal compared, undecided
        starts = graph.token_nodes(game.state, built, sym)
        passable = graph.passable_nodes(built, graph.blocked_nodes(game.state, built, [sym]))
        survey = graph._Walk(built, passable)
        survey._survey(starts)
        undecided += survey.nodes != survey.full_nodes
        walked = graph._Walk(built, passable).run(starts).nodes
        assert graph.reached_nodes(built, passable, starts) == walked
        own = sum(1 << n for n in starts)  # the segment walk alone, proving every node but the tokens'
        assert graph._segment_walk(built, passable, starts, own, survey.full_nodes & ~own) == walked
        compared += 1

    def before(game: Game, action: Action) -> None:
        if not isinstance(action, LayTile):
            return
        laid = (game.ctx.board.tiles[action.tile], action.rotation)
        changed = track_graph(game.ctx, game.state).changed({action.hex: laid})
        for sym, company in game.state.companies.items():
            if company.placed_tokens and not company.closed:
                check(track_graph(game.ctx, game.state), game, sym)
                if changed is not None:
                    check(changed, game, sym)

    for name in ("1861-29683", "1861-bank-breaks", "1867-19792"):
        assert replay(shared_game(name)[0], before=before).report.ok
    assert compared > 300
    assert undecided > 0, "no position needed the segment walk"
