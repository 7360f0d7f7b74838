"""1867: the rules the rulebook marks 🍁, on the Canadian map and on the real games."""

from __future__ import annotations

import pytest

from engine.actions import Bid, BuyTrain, Pass, PlaceToken
from engine.game import Game
from engine.importer import actions_of, read_log
from engine.legal import legal_actions
from engine.nationalization import nationalize
from engine.notation import command, parse
from engine.replay import replay
from engine.rules import Rules
from engine.stock_round import home_cities
from engine.track import border_crossings_paid
from engine.trains import export_train, trade_in_prices, yard_trains
from tests.conftest import DATA, PLAYERS3, before_first_trade_in, play, read_json, refused, shared_game
from tests.site_verdicts import load_log, positions

GREEN_SPOTS = [("D2", 0), ("L12", 2)]


def _new(site: bool = False) -> Game:
    rules = Rules.site(market="column") if site else Rules.rulebook(market="column")
    return Game.new(PLAYERS3, 7, rules, "1867", first_player=0)


def _before(action_id: int, name: str = "1867-21268") -> Game:
    log, _ = shared_game(name)
    return replay(log, None, until=action_id - 1).game


def test_the_cn_holds_its_reserved_toronto_spot_from_the_start() -> None:
    """2H: a CN token on F16's first city; the CN has no president and no share price."""
    state = _new().state
    assert state.map.tokens[("F16", 0)] == ["CN"]
    assert [t.hex for t in state.companies["CN"].tokens if t.hex] == ["F16"]
    assert state.companies["CN"].market is None and state.national_operator is None


@pytest.mark.parametrize("site", [False, True])
def test_green_spots_open_to_minors_only_from_phase_three(site: bool) -> None:
    """7.2.1: Timmins and Montreal's third city; 18xx.games fills them with neutral
    tokens until phase 3 (RN 11.25), the rulebook just keeps them closed."""
    game = _new(site)
    state = game.state
    assert (("D2", 0) in state.map.tokens) is site
    state.round = None
    from engine import stock_round

    stock_round.start(game.ctx, state)
    state.round.home_token, state.round.home_player = "BO", 0
    cities = home_cities(game.ctx, state)
    assert not set(GREEN_SPOTS) & set(cities) and ("F16", 0) not in cities and ("F16", 1) in cities
    state.events.add("green_minors_available")
    game.ctx.title.green_spots_open(game.ctx, state)
    assert set(GREEN_SPOTS) <= set(home_cities(game.ctx, state))


def test_a_nominated_minor_is_placed_by_its_nominator_before_bidding_goes_on() -> None:
    """7.2.1 (1867): CA is nominated in the real game; its token comes first."""
    game = _before(39)
    play(game, Bid("949", "CA", 100))
    assert game.actor() == "CA" and game.acting_player() == "949"
    refused(game, Bid("4440", "CA", 110), "must first place its home token")
    refused(game, PlaceToken("CA", "F16", 0), "home may be")
    play(game, PlaceToken("CA", "E15", 0))
    assert game.state.map.tokens[("E15", 0)] == ["CA"]
    assert game.actor() == "4440"


def test_nationalization_moves_two_spaces_per_loan_and_the_cash_goes_to_the_bank() -> None:
    """10.1C and 8.13 (1867): two extra spaces left per loan; the CN keeps no money,
    takes no trains, and privates close."""
    game = _before(500)
    state = game.state
    sym = next(s for s, c in state.companies.items() if c.is_major and c.floated and c.trains and c.market)
    company = state.companies[sym]
    company.cash, company.loans = 30, 2
    col = company.market[1]
    bank, cn_cash = state.bank, state.companies["CN"].cash
    held = {p.id: p.percent_of(sym) // 10 for p in state.players}
    nationalize(game.ctx, state, sym)
    price = game.ctx.board.market_cell("column", 0, col - 5).price
    paid = sum(units * price for units in held.values())
    assert state.companies["CN"].cash == cn_cash and not state.companies["CN"].trains
    assert state.bank == bank + 30 - paid


def test_the_cn_exports_the_next_train_at_the_end_of_an_operating_round() -> None:
    """8.13 (1867): the export leaves the game and starts the phase it would by purchase."""
    game = _before(500)
    state = game.state
    upcoming = [t.id for t in state.depot.upcoming]
    export_train(game.ctx, state)
    assert [t.id for t in state.depot.upcoming] == upcoming[1:]
    assert not state.companies["CN"].trains


def test_a_real_game_exports_in_phases_four_to_seven_only() -> None:
    log, _ = shared_game("1867-21268")
    game = replay(log, None).game
    exports = [line for line in game.state.log if "exports" in line]
    assert exports and all("8-train" not in line for line in exports[:-1])


def test_trade_ins_in_phase_eight_cost_half_the_handed_in_trains_face_value() -> None:
    """8.11 (1867): buying an 8 with a 5 handed in costs 1000 - 275."""
    game, trade = before_first_trade_in()
    buyer = game.state.companies[trade["entity"]]
    prices = {(t.id, own.id): price for t, own, price in trade_in_prices(game.ctx, game.state, buyer)}
    assert prices[(trade["train"], trade["exchange"])] == trade["price"]
    refused(game, BuyTrain(buyer.sym, trade["train"], trade["price"] + 1, trade["exchange"]), "costs")
    play(game, BuyTrain(buyer.sym, trade["train"], trade["price"], trade["exchange"]))
    assert any(t.id == trade["exchange"] for t in game.state.depot.pool)


@pytest.mark.parametrize("site", [False, True])
def test_a_trade_in_whose_discount_exceeds_the_price_is_no_move(site: bool) -> None:
    """8.11 🍁: half a 5+5E's face value (750) is more than a 2+2 costs (600), so it buys
    no 2+2. 1867-21268 just after CNR bought its 5+5E (id 915): 18xx.games refuses the
    trade-in at -150 ("Spender.spend(-150)", oracle) yet asks CNR, at its limit of two
    trains, to buy or pass; CNR passes (id 917)."""
    game = _before(916)
    game.ctx.rules = Rules.site(live=True) if site else Rules.rulebook()
    cnr = game.state.companies["CNR"]
    assert sorted(t.id for t in cnr.trains) == ["5+5E-0", "5-0"] and cnr.cash == 198
    assert "2+2-1" in [t.id for t in yard_trains(game.ctx, game.state)]
    assert legal_actions(game) == [Pass("CNR")]
    too_much = "half a 5\\+5E-train's price is more than a 2\\+2-train costs"
    refused(game, BuyTrain("CNR", "2+2-1", -150, "5+5E-0"), too_much)
    play(game, Pass("CNR"))


@pytest.mark.parametrize("rules", [Rules.rulebook(), Rules.site(live=True), Rules.site()])
def test_a_company_at_its_train_limit_buys_only_with_a_trade_in(rules: Rules) -> None:
    """8.11.2: "A company at the train limit may not make any train purchases." CNR holds
    two trains in phase 8 (1867-21268, id 915), its step open for a trade-in. The site's
    engine accepts its buying GTR's 7 for 1 (oracle: site_try.rb pos 651; it would then
    discard), but its page lists no train to buy at the limit (buy_trains: "Available
    Trains" only with room), only the exchanges: so no switch, and every mode refuses."""
    game = _before(916)
    game.ctx.rules = rules
    refused(game, BuyTrain("CNR", "7-1", 1), "CNR is at its train limit of 2")
    assert not [a for a in legal_actions(game) if isinstance(a, BuyTrain)]


def test_a_water_border_is_paid_once_by_the_lay_that_connects_across_it() -> None:
    """8.6.2: M9's south-east water border costs 80 when track meets across it."""
    game = _new()
    ctx, state = game.ctx, game.state
    six = ctx.board.tiles["9"]
    rotation = next(r for r in range(6) if 5 in six.exits(r))
    assert border_crossings_paid(ctx, state, "M9", ctx.board.tiles["6"], 0) == []
    from engine.state import PlacedTile

    back = next(r for r in range(6) if 2 in six.exits(r))
    state.map.tiles["N10"] = PlacedTile("9", back, "9-0")
    crossings = border_crossings_paid(ctx, state, "M9", six, rotation)
    assert crossings == [("M9", 5, 80)]


@pytest.mark.parametrize("site", [False, True])
def test_the_cn_collects_private_income_only_on_18xx_games(site: bool) -> None:
    """RN 11.23: the CN keeps no money by the rulebook (8.13)."""
    game = _new(site)
    state = game.state
    state.private_owner["C&SL"] = "CN"
    from engine.operating import _privates_pay

    _privates_pay(game.ctx, state)
    assert state.companies["CN"].cash == (10 if site else 0)


@pytest.mark.parametrize("site", [False, True])
def test_upgrades_follow_the_manifest_by_the_rulebook(site: bool) -> None:
    """19.2: tile 23 upgrades to 41, 43 or 45; 18xx.games checks only the track (RN 0.4)."""
    from engine.errors import IllegalAction
    from engine.state import PlacedTile
    from engine.track import check_upgrade

    game = _new(site)
    ctx, state = game.ctx, game.state
    state.map.tiles["E11"] = PlacedTile("23", 0, "23-0")
    fits = [r for r in range(6) if ctx.board.tiles["23"].exits(0) <= ctx.board.tiles["47"].exits(r)]
    assert fits
    if site:
        check_upgrade(ctx, state, "E11", ctx.board.tiles["47"], fits[0])
    else:
        with pytest.raises(IllegalAction, match="tile manifest"):
            check_upgrade(ctx, state, "E11", ctx.board.tiles["47"], fits[0])


def test_yellow_tiles_on_the_triangle_hexes_must_use_the_triangle() -> None:
    """8.6 (1867): G15's yellow triangle is on edge 1; a yellow city there must use it."""
    from engine.track import stubs_missed

    ctx = _new().ctx
    tile = ctx.board.tiles["57"]
    using = [r for r in range(6) if 1 in tile.exits(r)]
    missing = [r for r in range(6) if 1 not in tile.exits(r)]
    assert all(stubs_missed(ctx, "G15", tile, r) == "" for r in using)
    assert all("yellow triangle" in stubs_missed(ctx, "G15", tile, r) for r in missing)
    assert stubs_missed(ctx, "H14", tile, missing[0]) == ""


def test_merger_rounds_run_while_minors_and_majors_both_exist() -> None:
    """9: phases 3 to 7 on both maps, read from the phases' train limits (the title's
    sequence of rounds decides)."""
    for title in ("1861", "1867"):
        game = Game.new(PLAYERS3, 1, Rules.rulebook(), title)
        active = []
        for phase in game.ctx.board.phases:
            game.state.phase = phase.name
            if game.ctx.title.merger_round_follows(game.ctx, game.state):
                active.append(phase.name)
        assert active == ["3", "4", "5", "6", "7"]


def test_a_title_whose_data_names_an_unknown_event_does_not_load() -> None:
    """Data the rules do not implement is refused when the title loads, not ignored."""
    from engine.board import _check_known
    from engine.errors import DataError
    from engine.titles import title_named

    raw = title_named("1867").data("board.json")
    raw["trains"][0]["events"] = [{"type": "close_everything"}]
    with pytest.raises(DataError, match="close_everything"):
        _check_known(raw)
    raw = title_named("1867").data("board.json")
    raw["phases"][0]["status"] = ["free_tiles"]
    with pytest.raises(DataError, match="free_tiles"):
        _check_known(raw)


def test_a_new_game_of_1867_uses_the_column_market_unless_told() -> None:
    """4: either market may be used; 1867 comes with the column market."""
    assert Game.new(PLAYERS3, 1, title="1867").ctx.rules.market == "column"
    assert Game.new(PLAYERS3, 1, title="1861").ctx.rules.market == "grid"


def test_two_players_play_1867_as_18xx_games_sets_it_up() -> None:
    """RN 1.9 (16.1-16.2 applied to 1867 by an import): 420 each, fewer trains, three
    privates. The rulebook seats two only in 1861 (tests/test_options.py)."""
    game = Game.new([("a", "Anna"), ("b", "Boris")], 11, title="1867", rules=Rules.site(market="column"))
    state = game.state
    assert [p.cash for p in state.players] == [420, 420]
    assert sum(1 for t in state.depot.upcoming if t.name == "2") == 7
    assert len(state.private_owner) == 3


@pytest.mark.parametrize("site", [False, True])
def test_a_major_started_in_a_stock_round_prefers_an_unconnected_city(site: bool) -> None:
    """7.4 (1867): unconnected cities first; with none, a connected unoccupied one."""
    game = _before(500)
    game.ctx.rules = Rules.site(market="column") if site else Rules.rulebook(market="column")
    ctx, state = game.ctx, game.state
    from engine.graph import city_is_unconnected

    homes = ctx.title.major_home_cities(ctx, state)
    assert homes and all(city_is_unconnected(ctx, state, h, c) for h, c in homes)
    assert ("F16", 0) not in homes
    lone = set(homes)
    for hex_id, city in lone:
        state.map.tokens[(hex_id, city)] = ["X"]
    fallback = ctx.title.major_home_cities(ctx, state)
    assert fallback and not set(fallback) & lone


def test_ottawa_upgrades_as_a_y_city_until_its_gray_o_tile() -> None:
    """8.6 exception: Ottawa (J12) takes Y tiles, then only the gray O tile X8."""
    from engine.errors import IllegalAction
    from engine.state import PlacedTile
    from engine.track import check_upgrade

    game = _new(site=True)  # the label rule alone, without the manifest
    ctx, state = game.ctx, game.state
    y_tile = ctx.board.tiles["201"]
    check_upgrade(ctx, state, "J12", y_tile, next(r for r in range(6) if _fits(ctx, state, "J12", y_tile, r)))
    state.map.tiles["J12"] = PlacedTile("623", 0, "623-0")
    x8 = ctx.board.tiles["X8"]
    assert any(_fits(ctx, state, "J12", x8, r) for r in range(6))
    with pytest.raises(IllegalAction, match="labelled O"):
        check_upgrade(ctx, state, "J12", ctx.board.tiles["639"], 0)


def _fits(ctx, state, hex_id: str, tile, rotation: int) -> bool:  # type: ignore[no-untyped-def]
    from engine.errors import IllegalAction
    from engine.track import check_upgrade

    try:
        check_upgrade(ctx, state, hex_id, tile, rotation)
    except IllegalAction:
        return False
    return True


def test_gray_tiles_come_in_phase_seven_and_phase_six_off_boards_pay_brown() -> None:
    """11 (1867): no gray tiles in phase 6, whose off-board values stay brown."""
    board = _new().ctx.board
    assert "gray" not in board.phase("6").tiles and "gray" in board.phase("7").tiles
    buffalo = next(n for n in board.hexes["F18"].nodes if n.kind == "offboard")
    assert buffalo.value(board.phase("6").color) == 50 and buffalo.value(board.phase("7").color) == 60


def test_the_first_8_train_ends_the_game_after_this_set_a_stock_round_and_three_ors() -> None:
    """12.1 (1867): unlike 1861, even in the first operating round of a set."""
    game = _before(500)
    state = game.state
    state.round.number = 1
    game.ctx.title.final_phase_reached(game.ctx, state)
    assert state.game_ends_after == (state.round_number + 1, 3)


@pytest.mark.slow
def test_an_exported_first_8_train_ends_the_game_as_a_bought_one() -> None:
    """12.1 (1867), as Troika reads it: the CN's export starts phase 8 (8.13), and the
    first 8-train exported ends the game after this set, a stock round and three
    operating rounds, as one bought would (tobymao/18xx#3108). In 1867-21268, by the
    rulebook's rules, GTR's 7-train at the end of operating round 5.1 leaves the 8 to
    export."""
    from engine.importer import convert

    log, _ = shared_game("1867-21268")
    game = _before(815)
    game.ctx.rules = Rules.rulebook(market=game.ctx.rules.market)
    state = game.state
    game.apply(convert(state, {a["id"]: a for a in log["actions"]}[815]))
    assert "CN exports a 8-train" in state.log and state.phase == "8"
    assert (state.round_number, state.round.number) == (5, 2)
    assert state.game_ends_after == (6, 3)


@pytest.mark.parametrize("site", [False, True])
def test_a_bank_broken_by_the_export_ends_the_game_after_that_operating_round(site: bool) -> None:
    """12.1: "If the bank breaks during an Operating Round, complete that Operating
    Round, and then the game ends." In 1867-21268 the CN's 6-train at the end of
    operating round 4.2 starts phase 6; with the bank all but empty, nationalizing the
    minor CS (made trainless and penniless here) breaks it, so the game ends there,
    before any merger round."""
    from engine.importer import convert

    log, _ = shared_game("1867-21268")
    game = _before(698)
    game.ctx.rules = (Rules.site if site else Rules.rulebook)(market=game.ctx.rules.market)
    state = game.state
    cs = state.companies["CS"]
    state.players[0].cash += state.bank - 1 + cs.cash
    state.bank, cs.cash, cs.trains = 1, 0, []
    game.apply(convert(state, {a["id"]: a for a in log["actions"]}[698]))  # C&O's last pass
    assert "CN exports a 6-train" in state.log and state.bank_broken
    assert (state.round_number, state.round.number) == (4, 2)
    assert state.finished and state.end_reason == "bank"


@pytest.mark.parametrize("site", [False, True])
def test_the_cn_takes_its_montreal_spot_in_phase_8_or_with_gray_montreal(site: bool) -> None:
    """8.13 (1867): the CN's reserved Montreal token comes at phase 8 by the rulebook;
    18xx.games places it when the gray 639 is laid there (RN 11.21)."""
    from engine.trains import change_phase

    game = _new(site)
    state = game.state
    cn = state.companies["CN"]
    change_phase(game.ctx, state, "8")
    assert any(t.hex == "L12" for t in cn.tokens) is not site


def test_timmins_pays_double_on_a_route_with_toronto_montreal_or_quebec() -> None:
    """8.8.2 (1867): a logged run through Timmins (D2) and a capital earns 40 more
    (times a 2+2's multiplier) than its stops' values."""
    from engine.actions import Route
    from engine.routes import check_routes

    log, _ = shared_game("1867-21268")
    run, route = next(
        (a, r)
        for a in log["actions"]
        if a["type"] == "run_routes" and not a.get("skip")
        for r in a["routes"]
        if "D2" in r["hexes"] and set(r["hexes"]) & {"F16", "L12", "O7"} and r["train"].split("-")[0].isdigit()
    )
    game = _before(run["id"])
    ctx, state = game.ctx, game.state
    company = state.companies[run["entity"]]
    legs = tuple(tuple(leg) for leg in route["connections"])
    [result] = check_routes(ctx, state, company, [Route(route["train"], legs)])
    assert result.revenue == route["revenue"]
    values = sum(ctx.tile_at(state, h)[0].nodes[n].value(ctx.phase_color(state)) for h, n in result.counted)
    bonuses = [ctx.board.private(p) for p in company.privates]
    privates = sum(b.bonus for b in bonuses for h, _ in result.counted if h in b.bonus_hexes)
    assert result.revenue == values + privates + 40


@pytest.mark.parametrize("site", [False, True])
def test_a_trade_in_buys_a_pool_train_too(site: bool) -> None:
    """8.11 🍁: in phase 8 a major "may exchange a train to get a 50% discount of its
    face value on another train": S5011's GWR hands in its 6 (325 off) for a 5 in the
    pool (550). RN 11.20: 18xx.games allows it only for an 8, 2+2 or 5+5E."""
    from engine.state import Train

    game, _ = before_first_trade_in()
    game.ctx.rules = Rules.site() if site else Rules.rulebook()
    state = game.state
    state.depot.pool.append(Train("5-9", "5"))
    gwr = state.companies["GWR"]
    buy = BuyTrain("GWR", "5-9", 550 - 325, "6-0")
    if site:
        refused(game, buy, "a 5-train cannot be bought with a trade-in")
        return
    cash = gwr.cash
    play(game, buy)
    assert [t.id for t in gwr.trains] == ["5-9"] and gwr.cash == cash - 225
    assert [t.id for t in state.depot.pool] == ["6-0"]


VERDICT_K = read_json(DATA / "nationalized_trains_verdict.json")


def _after_cnr_is_nationalized(for_sale: bool) -> Game:
    """The generated 1867 game S5012 at position 580 (the verdict's): CNR, a major, was
    nationalized with a 5-train; C&O is to buy trains. Its log loads as an import does,
    then the site's live rules, with ``nationalized_major_trains_for_sale`` as given."""
    game, kept = read_log(load_log(VERDICT_K["log"]))
    game.ctx.rules = game.ctx.rules.but(nationalized_major_trains_for_sale=for_sale)
    for entry in kept[: VERDICT_K["position"]]:
        for action in actions_of(lambda: game.state, entry):
            game.apply(action, check=False)
    game.ctx.rules = Rules.site(market="column", live=True).but(nationalized_major_trains_for_sale=for_sale)
    return game


def test_a_nationalized_major_s_train_is_for_sale_on_18xx_games_only() -> None:
    """Cause K (issue 35): on 18xx.games a nationalized 1867 major keeps its trains on
    its old charter and any company may buy them (RN 37); the oracle accepted C&O's
    purchase of CNR's 5-train for 1 there. By the rulebook (8.13, 10.1E, 8.11) the
    CN takes them and never sells, so the purchase is refused with the reason."""
    from tests.site_verdicts import move_key

    site = _after_cnr_is_nationalized(True)
    assert site.actor() == "C&O" and site.ctx.rules == Rules.site(market="column", live=True)
    [train] = site.state.depot.left_behind
    assert {move_key(site.state, a) for a in legal_actions(site)} == set(VERDICT_K["accepted"])
    buy = BuyTrain("C&O", train.id, 1)
    typed = f"train {train.id} from nationalized 1"
    assert command(site, buy) == typed and parse(site, typed) == buy
    cash, bank = site.state.companies["C&O"].cash, site.state.bank
    site.apply(buy)
    assert train in site.state.companies["C&O"].trains and not site.state.depot.left_behind
    assert site.state.log[-1] == "C&O buys a 5-train for 1 from the old charter of a nationalized major"
    assert (site.state.companies["C&O"].cash, site.state.bank) == (cash - 1, bank + 1)

    book = _after_cnr_is_nationalized(False)
    assert book.actor() == "C&O" and not book.state.depot.left_behind
    assert buy not in legal_actions(book)
    refused(book, buy, f"train {train.id} is not for sale now")


VERDICT_OPERATING = read_json(DATA / "operating_major_nationalized_verdict.json")


def _cpr_first_and_trainless(not_nationalized: bool) -> Game:
    """The fresh export 1867-selfplay-61004 at position 979 (the verdict's): operating
    round 10.2 begins with CPR, which lost its last train with C&O at the end of 10.1;
    CPR's president chooses first. Played by the site's live rules, the switch as given."""
    log = read_json(DATA / VERDICT_OPERATING["log"])
    _, game = next(positions(log, {VERDICT_OPERATING["position"]}))
    game.ctx.rules = game.ctx.rules.but(operating_major_not_nationalized=not_nationalized)
    return game


def test_the_major_whose_turn_it_is_is_not_nationalized_on_18xx_games() -> None:
    """Issue 35 (fresh export 61004, stuck on the site at its action 982): the site's
    engine accepts nationalizing CPR while CPR is first in the new operating round
    (the oracle: both choices accepted), then resets it but leaves it the operating
    company, and refuses every other company's move. Under the site's rules Troika
    offers only the pass while C&O is still to choose, and refuses the choice with the
    reason, changing nothing. (Alone in the list, the site's round moves on past the
    major it closes, as the generated game S5006 shows at its action 454.)"""
    from engine.actions import Choose
    from engine.errors import IllegalAction
    from tests.site_verdicts import known_cause

    game = _cpr_first_and_trainless(True)
    assert game.ctx.rules == Rules.site(market="grid", live=True)
    assert game.state.trainless_majors == ["CPR", "C&O"] and game.round.order[game.round.index] == "CPR"
    assert legal_actions(game) == [Pass("CPR")]
    before = game.save()
    with pytest.raises(IllegalAction, match="CPR cannot be nationalized now: it is its turn to operate"):
        game.apply(Choose("CPR", "nationalize"))
    assert game.save() == before
    assert (known_cause(game, "choose CPR nationalize") or "").startswith("N:")
    game.apply(Pass("CPR"))
    assert legal_actions(game) == [Choose("C&O", "nationalize"), Pass("C&O")]  # C&O's turn is later


def test_the_major_whose_turn_it_is_may_be_nationalized_by_the_rulebook() -> None:
    """Rulebook 10: the choice is open in any round; a nationalized company does not
    operate, so the next company in the order takes its turn (what the site's verdict
    accepts, the rulebook plays through)."""
    from engine.actions import Choose
    from tests.site_verdicts import move_key

    game = _cpr_first_and_trainless(False)
    offered = legal_actions(game)
    assert {move_key(game.state, a) for a in offered} == set(VERDICT_OPERATING["accepted"])
    game.apply(Choose("CPR", "nationalize"))
    game.apply(Pass("C&O"))
    assert not game.state.companies["CPR"].floated and game.actor() == "NYC"


PHASE_EIGHT = read_json(DATA / "phase_eight_turn_ends.json")


def _gwr_buys_the_first_8_train(ends_turn: bool) -> Game:
    """The fresh export 1867-selfplay-61010 at position 920, then GWR's purchase of the
    first 8-train (its action 921), with ``buyer_turn_ends_when_minors_nationalized`` as given."""
    log = read_json(DATA / PHASE_EIGHT["log"])
    _, game = next(positions(log, {PHASE_EIGHT["position"]}))
    game.ctx.rules = game.ctx.rules.but(buyer_turn_ends_when_minors_nationalized=ends_turn)
    assert game.actor() == "GWR" and any(c.trains for c in game.state.companies.values() if c.is_minor)
    [eight] = [a for a in legal_actions(game) if isinstance(a, BuyTrain) and a.train.startswith("8-")]
    game.apply(eight)
    assert game.state.phase == "8" and all(c.closed for c in game.state.companies.values() if c.is_minor)
    return game


def test_the_first_8_train_ends_its_buyer_s_turn_on_18xx_games() -> None:
    """Issue 35 (fresh export 61010, refused live at its action 923): on the site, the
    8-train that nationalizes the minors while QLS still holds a train ends GWR's turn
    (the oracle: its round moves to CPR, which is asked whether to nationalize). Under
    the site's rules Troika does the same: CPR, first now and the only trainless major,
    chooses (the site's verdict: both), then operates; GWR buys no second train."""
    from engine.actions import Choose

    game = _gwr_buys_the_first_8_train(True)
    after = PHASE_EIGHT["site_after"]
    assert game.state.trainless_majors == after["trainless"]
    assert game.round.order[game.round.index] == after["operating"]
    assert legal_actions(game) == [Choose("CPR", "nationalize"), Pass("CPR")]
    game.apply(Pass("CPR"))
    assert game.actor() == "CPR" and len(game.state.companies["GWR"].trains) == 1


def test_the_first_8_train_s_buyer_goes_on_by_the_rulebook() -> None:
    """Rulebook 10, 8.11: nationalizing the minors does not end the buyer's turn; once
    CPR's president has chosen, GWR goes on buying trains."""
    from engine.actions import Choose

    game = _gwr_buys_the_first_8_train(False)
    assert game.round.order[game.round.index] == "GWR"
    assert legal_actions(game) == [Choose("CPR", "nationalize"), Pass("CPR")]
    game.apply(Pass("CPR"))
    assert game.actor() == "GWR"
