"""Each place where 18xx.games plays differently from the rulebook is a named switch
(engine/rules.py); these tests run both settings on the same position."""

from __future__ import annotations

from typing import get_type_hints

import pytest

from engine.actions import BuyPrivate, BuyTrain, Choose, Dividend, LayTile, Pass, PlaceToken, RunBest, RunRoutes
from engine.errors import IllegalAction, InvalidAction
from engine.game import Game
from engine.game_setup import parse_setup
from engine.lay import _check_max_exits
from engine.legal import legal_actions
from engine.replay import replay
from engine.route_search import best_routes
from engine.routes import to_route
from engine.rules import Rules
from tests.conftest import play, refused, replayed, shared_game


def _at(until: int, rules: Rules) -> Game:
    log, _ = shared_game("1861-29683")
    game = replay(log, None, until=until).game
    game.ctx.rules = rules
    return game


def test_every_switch_is_off_in_the_rulebook_and_on_for_18xx_games() -> None:
    switches = [name for name, kind in get_type_hints(Rules).items() if kind is bool]
    assert len(switches) >= 10
    assert not any(getattr(Rules.rulebook(), s) for s in switches)
    assert all(getattr(Rules.site(), s) for s in switches)
    assert Rules.from_dict(Rules.site(market="column").to_dict()) == Rules.site(market="column")
    with pytest.raises(InvalidAction, match="unknown game options"):
        Rules.from_dict({"colour": "red"})


@pytest.mark.parametrize("site", [False, True])
def test_private_window_before_loans(site: bool) -> None:
    """RN 7.2: a company without loans gets the window before loan operations only on
    18xx.games (where the site passes it automatically and logs the pass)."""
    game = _at(460, Rules.site() if site else Rules.rulebook())
    assert game.state.private_owner["TSR"] == "4138"  # a player's private: GRR may buy it
    play(game, Pass("GRR"))
    grr = game.state.companies["GRR"]
    assert grr.loans == 0
    routes = tuple(to_route(r) for r in best_routes(game.ctx, game.state, grr))
    play(game, RunRoutes("GRR", routes), Dividend("GRR", "payout"))
    assert game.actor() == "GRR"
    assert (game.state.round.step == "private_before_loans") is site


@pytest.mark.parametrize("site", [False, True])
def test_every_minor_gets_a_merger_turn_only_on_18xx_games(site: bool) -> None:
    log, _ = shared_game("1861-29683")
    game = replay(log, None, until=310).game  # the last action of operating round 3.1 comes next
    game.ctx.rules = Rules.site() if site else Rules.rulebook()
    log_actions = {a["id"]: a for a in log["actions"]}
    from engine.importer import convert

    game.apply(convert(game.state, log_actions[311]))
    assert game.round_name == "Merger"
    order = game.state.round.order
    asked = []
    for _ in range(len(order) * 3):
        if game.round_name != "Merger":
            break
        actor = game.actor()
        if actor in order:
            asked.append(actor)
        play(game, Pass(actor))
    if site:
        assert set(asked) == set(order)  # OK and SV cannot merge but are still asked
    else:
        assert "OK" not in asked and "SV" not in asked and "MB" in asked


@pytest.mark.parametrize("site", [False, True])
def test_national_route_runs_itself_by_the_rulebook(site: bool) -> None:
    log, _ = shared_game("1861-29683")
    rsr_run = next(a for a in log["actions"] if a["type"] == "run_routes" and a["entity"] == "RSR")
    game = replay(log, None, until=rsr_run["id"] - 1).game
    game.ctx.rules = Rules.site() if site else Rules.rulebook()
    rsr = game.state.companies["RSR"]
    game.state.round.step = "routes"
    from engine.operating import _advance

    _advance(game.ctx, game.state)
    if site:
        assert game.actor() == "RSR" and game.state.round.step == "routes"
    else:
        assert all(t.operated for t in rsr.trains)
        assert any("RSR runs for" in line for line in game.state.log[-5:])


@pytest.mark.parametrize("site", [False, True])
def test_a_green_city_upgraded_to_brown_must_use_the_most_track(site: bool) -> None:
    """8.6: 611 (five exits) is refused on Voronezh while 63 (six) fits; both rule sets
    apply it to green-to-brown (18xx.games to every city upgrade, RN 11.11)."""
    game = _at(460, Rules.site() if site else Rules.rulebook())
    game.state.phase = "5"
    assert game.state.map.tiles["I13"].tile == "15"
    board = game.ctx.board
    with pytest.raises(IllegalAction, match="as many segments"):
        _check_max_exits(game.ctx, game.state, "I13", board.tiles["611"], 1)
    _check_max_exits(game.ctx, game.state, "I13", board.tiles["63"], 0)


@pytest.mark.parametrize("site", [False, True])
def test_a_lay_away_from_the_route_only_when_the_site_skips_the_check(site: bool) -> None:
    """8.6: a lay must extend the company's route; RN 0.4: 18xx.games does not check it
    when it loads a log (S4011: KR, alone in Kharkov, lays a town in M9)."""
    game = replayed("1861-gen-P2-grid-S4011", 123, Rules.site() if site else Rules.rulebook())
    assert game.actor() == "KR" and game.state.round.step == "track"
    lay = LayTile("KR", hex="M9", tile="3", rotation=2)
    if site:
        play(game, lay)
        assert game.state.map.tiles["M9"].tile == "3"
    else:
        refused(game, lay, "KR cannot reach M9")


def test_a_live_game_by_the_site_rules_checks_lays_as_its_page_does() -> None:
    """RN 0.4: 18xx.games skips the lay's connection only while it loads a log; its page
    checks it when a player makes the move. `new 1861 site` plays live, so KR's lay in
    M9 (S4011, OR 1.1), away from its route, is refused there too; the game still
    plays, shows and stores as the site's rules."""
    rules = parse_setup(["1861", "site", "grid"]).rules()
    assert rules.is_site and rules.is_live_site and not rules.lay_connection_unchecked
    assert Rules.from_dict(rules.to_dict()) == rules
    assert rules.to_dict()["site"] == "live" and Rules.site().to_dict()["site"] is True
    assert Rules.site().is_site and not Rules.site().is_live_site
    game = replayed("1861-gen-P2-grid-S4011", 123, rules)
    refused(game, LayTile("KR", hex="M9", tile="3", rotation=2), "KR cannot reach M9")


@pytest.mark.parametrize("site", [False, True])
def test_who_is_offered_to_start_a_major(site: bool) -> None:
    """7.4: a major starts at 70 or more, paid twice (140); RN 4.1: 18xx.games offers it
    to anyone with twice its lowest start price, 50 (1861-29683, stock round 4: five
    majors unstarted, unconnected cities free)."""
    from engine.stock_round import may_start_a_major

    game = _at(408, Rules.site() if site else Rules.rulebook())
    state = game.state
    assert game.round_name == "Stock" and state.phase == "4"
    player = state.players[0]
    for cash, offered in ((99, False), (100, site), (139, site), (140, True)):
        player.cash = cash
        assert may_start_a_major(game.ctx, state, player) is offered, cash


@pytest.mark.parametrize("site", [False, True])
def test_an_upgrade_must_reach_its_new_track(site: bool) -> None:
    """8.6: "a company must have connectivity to at least one segment of new track":
    in 1861-29683's OR 3.1 RO reaches B6's curve 0-2 (tile 8); tile 17 adds the curve
    3-5, which RO cannot reach. Tile 23 adds a straight from RO's edge 2. RN 0.4:
    18xx.games does not check the connection when it loads a log."""
    game = _at(229, Rules.site() if site else Rules.rulebook())
    assert game.actor() == "RO" and game.state.map.tiles["B6"].tile == "8"
    if site:
        play(game, LayTile("RO", "B6", "17", 2))
        return
    refused(game, LayTile("RO", "B6", "17", 2), "cannot reach the new track of tile 17 on B6")
    play(game, LayTile("RO", "B6", "23", 2))
    assert game.state.map.tiles["B6"].tile == "23"


@pytest.mark.parametrize("site", [False, True])
def test_a_city_whose_track_reaches_only_an_off_board_is_unconnected(site: bool) -> None:
    """7.4, glossary: "cannot trace a legal route to another city". S4018, stock round 7:
    Kiev's city 2 (D14) has track only to Poland (A11), an off-board, so by the rulebook
    a major may start there. RN 4.3: on 18xx.games the off-board connects it (here each
    city judged by itself: the next test turns to the site's judging by hex)."""
    site_rules = Rules.site(market="column").but(unconnected_judged_per_hex=False)
    game = replayed("1861-gen-P4-column-S4018", 563, site_rules if site else Rules.rulebook(market="column"))
    homes = game.ctx.title.major_home_cities(game.ctx, game.state)
    assert ("D14", 1) in homes and (("D14", 2) in homes) is not site


@pytest.mark.parametrize("per_hex", [False, True])
def test_1861_homes_on_a_hex_whose_cities_are_all_unconnected(per_hex: bool) -> None:
    """7.4: each city judged by itself. RN 4.3: 18xx.games offers a new 1861 major only
    hexes none of whose cities has track to another stop. S4021 before id 390, SW's home:
    Kiev (D14), Moscow (H8) and St Petersburg (E1) each have an empty city with no
    track, beside cities with routes; the site refuses them ("the hex is not
    available") and lists the nine other hexes, among them M19, where SW went."""
    rules = Rules.site(market="grid", live=True).but(unconnected_judged_per_hex=per_hex)
    game = replayed("1861-gen-P2-grid-S4021", 387, rules)
    assert game.actor() == "SW"
    offered = {(a.hex, a.city) for a in legal_actions(game) if isinstance(a, PlaceToken)}
    elsewhere = {("K17", 0), ("L12", 0), ("P8", 0), ("P2", 0), ("M7", 0), ("B4", 0), ("M19", 0), ("Q3", 0), ("K7", 0)}
    assert offered == (elsewhere if per_hex else elsewhere | {("D14", 0), ("H8", 0), ("E1", 0)})
    if per_hex:
        refused(game, PlaceToken("SW", "D14", 0), "SW.s home may be: K17 city 0")


@pytest.mark.parametrize("site", [False, True])
def test_a_major_may_start_beside_a_token_in_an_unconnected_city(site: bool) -> None:
    """7.4: "a city spot that is unconnected", whoever else has a token there. S4013,
    stock round 8: MKN's home Nizhnii Novgorod (K7) and Riga (B4) have a free spot and no
    route to another city, so by the rulebook a new major may start there too. RN 4.3:
    18xx.games offers only cities with no token."""
    game = replayed("1861-gen-P4-grid-S4013", 739, (Rules.site if site else Rules.rulebook)(market="grid"))
    homes = sorted(game.ctx.title.major_home_cities(game.ctx, game.state))
    assert game.state.map.tokens[("K7", 0)][0] == "MKN"
    expected = [("M19", 0), ("M7", 0), ("N10", 0)]
    assert homes == (expected if site else sorted([*expected, ("B4", 0), ("K7", 0)]))


@pytest.mark.parametrize("site", [False, True])
def test_a_city_whose_track_loops_back_into_it_is_no_home_on_18xx_games(site: bool) -> None:
    """7.4 and the glossary: a city is unconnected when it "cannot trace a legal route to
    another city". S4013 at id 739 with tile 201 on Astrakhan (M19) whose two exits run
    round through L20 (tile 7) and M21 back into it: no route, so by the rulebook M19 is
    still open for a new major. The site's engine refuses it ("the hex is not available",
    self-play 1861 seed 93003; the oracle's home_token_locations here: M7 and N10): its
    walk from a city stops at any stop but the track it set out on."""
    from engine.state import PlacedTile

    game = replayed("1861-gen-P4-grid-S4013", 739, (Rules.site if site else Rules.rulebook)(market="grid"))
    home = ("M19", 0)
    assert home in game.ctx.title.major_home_cities(game.ctx, game.state)
    game.state.map.tiles["M19"] = PlacedTile("201", 0, "201-0")
    game.state.map.tiles["L20"] = PlacedTile("7", 4, "7-0")
    homes = game.ctx.title.major_home_cities(game.ctx, game.state)
    assert (home in homes) is not site and {("M7", 0), ("N10", 0)} <= set(homes)


@pytest.mark.parametrize("site", [False, True])
def test_1867_offers_an_unconnected_city_with_a_token_before_a_connected_one(site: bool) -> None:
    """7.4 (1867): a connected unoccupied city only "if no unconnected cities exist".
    S5008, stock round 7, before C&O starts: BO's home Sudbury (D8) has a free spot and
    no route to another city, and so has Montreal's third city: those two are offered.
    RN 4.3: 18xx.games looks only at hexes with no token, finds none unconnected and
    offers the connected ones (Peterborough, Kingston, Trois-Rivières)."""
    game = replayed("1867-gen-P4-grid-S5008", 586, (Rules.site if site else Rules.rulebook)(market="grid"))
    homes = sorted(game.ctx.title.major_home_cities(game.ctx, game.state))
    assert game.state.map.tokens[("D8", 0)][0] == "BO"
    assert homes == ([("G15", 0), ("I15", 0), ("M9", 0)] if site else [("D8", 0), ("L12", 2)])


@pytest.mark.parametrize("site", [False, True])
def test_1867_judges_each_city_of_a_hex_by_itself(site: bool) -> None:
    """7.4 (1867): "a city spot that is unconnected". S5006, stock round 7: Montreal's
    city 1 (L12) is unconnected, its other cities are not; by the rulebook it is
    offered with Trois-Rivières (M9). RN 4.3: 18xx.games judges the whole hex, so only M9."""
    rules = Rules.site(market="grid") if site else Rules.rulebook(market="grid").but(
        unconnected_unless_no_stop_reached=True
    )
    game = replayed("1867-gen-P2-grid-S5006", 335, rules)
    homes = sorted(game.ctx.title.major_home_cities(game.ctx, game.state))
    assert homes == ([("M9", 0)] if site else [("L12", 1), ("M9", 0)])


@pytest.mark.parametrize("site", [False, True])
def test_a_track_step_with_no_legal_lay_is_asked_only_on_18xx_games(site: bool) -> None:
    """RN 7.2: the site asks for track whenever a lay could be paid for, even with no
    legal lay (Moscow's N in operating round 1.2); the rulebook passes it over and says so."""
    log, _ = shared_game("1861-29683")
    game = _at(55, Rules.site() if site else Rules.rulebook())
    from engine.importer import convert

    game.apply(convert(game.state, {a["id"]: a for a in log["actions"]}[56]))
    assert game.actor() == "N"
    assert (game.state.round.step == "track") is site
    assert ("N passes its track action: no hex to lay track on" in game.state.log) is not site


@pytest.mark.parametrize("site", [False, True])
def test_the_private_window_comes_once_a_company_turn_by_the_rulebook(site: bool) -> None:
    """8.12 / RN 7.2: GRR, offered the privates with its trains, is not asked again at
    the end of its turn by the rulebook; the site opens the last window all the same."""
    game = _at(460, Rules.site() if site else Rules.rulebook())
    play(game, Pass("GRR"))
    grr = game.state.companies["GRR"]
    routes = tuple(to_route(r) for r in best_routes(game.ctx, game.state, grr))
    play(game, RunRoutes("GRR", routes), Dividend("GRR", "payout"))
    if site:
        play(game, Pass("GRR"))  # the window before loans
    assert game.state.round.step == "trains" and game.actor() == "GRR"
    play(game, Pass("GRR"))
    assert (game.actor() == "GRR" and game.state.round.step == "private_end") is site


@pytest.mark.parametrize("site", [False, True])
def test_a_train_bought_up_to_the_limit_leaves_the_private_purchase_open(site: bool) -> None:
    """8.4 note, 8.12: a private may be bought "at any point during a company's operating
    turn". GRR (1861-29683, OR 4, phase 4: two trains, limit 3, TSR in a player's hands)
    withholds, and its third train ends its train step; the new-user trial found the turn
    then over and the `private` typed next read as the next company's. The private window
    opens, by either rules: TSR is bought, then the turn ends."""
    game = _at(460, Rules.site() if site else Rules.rulebook())
    grr = game.state.companies["GRR"]
    play(game, Pass("GRR"), RunRoutes("GRR", tuple(to_route(r) for r in best_routes(game.ctx, game.state, grr))),
         Dividend("GRR", "withhold"))
    if site:
        play(game, Pass("GRR"))  # the window before loans
    assert game.state.round.step == "trains" and len(grr.trains) == 2
    play(game, BuyTrain("GRR", "3-1", 1))
    assert len(grr.trains) == 3 and game.actor() == "GRR" and game.state.round.step == "private_end"
    assert BuyPrivate("GRR", "TSR", 30) in legal_actions(game)
    play(game, BuyPrivate("GRR", "TSR", 30))
    assert "TSR" in grr.privates and game.actor() != "GRR"


@pytest.mark.parametrize("site", [False, True])
def test_who_has_the_first_priority_deal(site: bool) -> None:
    """Rulebook 2M draws the first player (from the seed); 18xx.games seats players at
    random when a game is made and the first seat starts, so its logs name no first player."""
    players = [(f"p{i}", f"P{i}") for i in range(4)]
    firsts = {Game.new(players, seed, Rules.site() if site else Rules.rulebook()).state.priority
              for seed in range(12)}
    assert firsts == {0} if site else len(firsts) > 1


@pytest.mark.parametrize("site", [False, True])
def test_a_train_that_sat_idle_has_run_once_its_company_has_operated(site: bool) -> None:
    """RN 7.8: on 18xx.games every train of a company whose earnings are settled has
    run this round, also one with no route. In S4019's OR 7.2 SW has a 4-train and no
    route; after its track pass it cannot pay its interest and is nationalized. With
    the RSR's own 4-train taken away, the site skips the RSR's run and the merger round
    begins (KB may convert); by the rulebook (8.8) the RSR runs SW's 4-train."""
    rules = Rules.site().but(idle_trains_count_as_run=site)
    game = replayed("1861-gen-P5-column-S4019", 716, rules)
    state = game.state
    rsr = state.companies["RSR"]
    assert [t.id for t in rsr.trains] == ["4-2"] and [t.id for t in state.companies["SW"].trains] == ["4-3"]
    state.depot.pool.append(rsr.trains.pop())
    play(game, Pass("SW"))
    assert state.companies["SW"].market is None and [t.id for t in rsr.trains] == ["4-3"]
    if site:
        assert state.round.kind == "Merger" and game.actor() == "KB"
        return
    assert state.round.kind == "Operating" and state.round.step == "routes" and game.actor() == "RSR"
    play(game, RunBest("RSR"))
    assert rsr.last_revenue > 0 and state.round.kind == "Merger"


def test_by_the_rulebook_the_national_runs_a_train_taken_from_a_company_that_ran_none() -> None:
    """8.8, 8.13: the RSR finds and runs its best routes itself, with SW's 4-train."""
    game = replayed("1861-gen-P5-column-S4019", 716, Rules.rulebook())
    state = game.state
    rsr = state.companies["RSR"]
    state.depot.pool.append(rsr.trains.pop())
    play(game, Pass("SW"))
    assert "RSR runs for 180: 4-3 E1-G5-H8-K7-M7" in state.log


@pytest.mark.parametrize("site", [False, True])
def test_a_company_is_asked_to_buy_a_train_when_only_the_national_has_trains_only_on_18xx_games(
    site: bool,
) -> None:
    """RN 7.2: with 19 left after its 4-train (1861-29683, OR 3.2), NW could buy only from
    another company; with every other train moved to the RSR, which never sells, the
    rulebook passes NW's train step over, and 18xx.games still asks it to buy or pass."""
    game = _at(380, Rules.site() if site else Rules.rulebook())
    state = game.state
    rsr = state.companies["RSR"]
    for company in state.companies.values():
        if company.sym not in ("NW", "RSR"):
            rsr.trains.extend(company.trains)
            company.trains = []
    play(game, BuyTrain("NW", "4-1", 350))
    assert state.companies["NW"].cash == 19
    assert (game.actor() == "NW" and state.round.step == "trains") is site
    if site:
        refused(game, BuyTrain("NW", rsr.trains[0].id, 1), "does not sell")
        play(game, Pass("NW"))
        assert state.round.step == "private_end"


@pytest.mark.parametrize("site", [False, True])
def test_phase_six_nationalizes_the_trainless_before_the_privates(site: bool) -> None:
    """11, phase 6: "3-Trains rust; Trainless Minor Companies ... are immediately
    nationalized; Trainless Major Companies ... may be nationalized; Private Companies are
    nationalized" (10: "if they have not done so already"). S4026: the RSR's 6-train
    leaves MK (owning MYR), MKV and MVR trainless; MK nationalized takes MYR to the RSR
    unpaid, and GRR is paid for TSR once the presidents have chosen. RN 7.9: 18xx.games
    nationalizes the privates first, so MK's 60 for MYR goes to the RSR with MK."""
    from engine.importer import convert

    log, _ = shared_game("1861-gen-P2-column-S4026")
    rules = Rules.site(market="column").but(privates_nationalized_before_trainless=site)
    game = replayed("1861-gen-P2-column-S4026", 543, rules)
    state = game.state
    game.apply(convert(state, {a["id"]: a for a in log["actions"]}[544]))  # the RSR runs, buys a 6
    assert state.phase == "6" and state.trainless_majors == ["MK", "MKV", "MVR"]
    assert state.private_owner["MYR"] == ("RSR" if site else "MK")
    assert state.private_owner["TSR"] == ("RSR" if site else "GRR")
    mk_cash = state.companies["MK"].cash
    play(game, Choose("MK", "nationalize"), Pass("MKV"), Choose("MVR", "nationalize"))
    assert set(state.private_owner.values()) == {"RSR"}
    assert state.companies["RSR"].cash == (250 if site else 190)
    assert mk_cash == (378 if site else 318)


@pytest.mark.parametrize("first_walk", [False, True])
def test_new_track_reached_only_by_a_route_the_sites_walk_does_not_take(first_walk: bool) -> None:
    """8.6, 8.1: 1861-29683 before id 350, SPW (St Petersburg) reaches Riga (B4) through
    B6's curve 0-2 and A5, and can leave Riga by its edge 0 into B6, where tile 30 turned
    2 adds the straight 3-2: SPW reaches that new track without reusing any, so by the
    rulebook the upgrade connects. 18xx.games's walk never runs onto a path by whose
    other edge it has already left the hex, so it refuses the lay ("Must use new track
    or change city value")."""
    rules = Rules.site(live=True).but(new_track_by_first_walk=first_walk)
    game = _at(349, rules)
    assert game.actor() == "SPW" and game.state.map.tiles["B6"].tile == "8"
    lay = LayTile("SPW", "B6", "30", 2)
    assert (lay in legal_actions(game)) is not first_walk
    if first_walk:
        refused(game, lay, "SPW cannot reach the new track of tile 30 on B6")
    else:
        play(game, lay)
