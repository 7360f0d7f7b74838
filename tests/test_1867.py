"""1867: the rules the rulebook marks 🍁, on the Canadian map and on the real games."""

from __future__ import annotations

import pytest

from engine.actions import Bid, BuyTrain, PlaceToken
from engine.game import Game
from engine.nationalization import nationalize
from engine.replay import replay
from engine.rules import Rules
from engine.stock_round import home_cities
from engine.track import border_crossings_paid
from engine.trains import export_train, trade_in_prices
from tests.conftest import GAMES, PLAYERS3, play, refused, shared_game

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
    from bot.gamefiles import read_log

    path = GAMES / "generated" / "1867-gen-P2-column-S5011.json.gz"
    if not path.exists():
        pytest.skip("generated games not found")
    log = read_log(path)
    trade = next(a for a in log["actions"] if a["type"] == "buy_train" and a.get("exchange") and not a.get("skip"))
    game = replay(log, None, until=trade["id"] - 1).game
    buyer = game.state.companies[trade["entity"]]
    prices = {(t.id, own.id): price for t, own, price in trade_in_prices(game.ctx, game.state, buyer)}
    assert prices[(trade["train"], trade["exchange"])] == trade["price"]
    refused(game, BuyTrain(buyer.sym, trade["train"], trade["price"] + 1, trade["exchange"]), "costs")
    play(game, BuyTrain(buyer.sym, trade["train"], trade["price"], trade["exchange"]))
    assert any(t.id == trade["exchange"] for t in game.state.depot.pool)


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
