"""Operating rounds (rulebook 8), phases (11), nationalization (10) and the end (12)
on positions from a real game of 1861."""

from __future__ import annotations

import pickle

import pytest

from engine import market
from engine.actions import BuyPrivate, BuyTrain, Choose, DiscardTrain, Dividend, Pass, PlaceToken, RunBest, RunRoutes
from engine.dividends import distribute
from engine.game import Game
from engine.game_end import check_bank
from engine.importer import convert
from engine.legal import legal_actions
from engine.loans import pay_interest, repay_loans
from engine.nationalization import nationalize
from engine.replay import replay
from engine.route_search import best_routes
from engine.routes import to_route
from engine.rules import Rules
from tests.conftest import play, refused, replayed, shared_game


def _at(until: int) -> Game:
    log, _ = shared_game("1861-29683")
    return replay(log, None, until=until).game


def test_a_token_costs_its_price_per_hex_from_the_nearest_own_token() -> None:
    game = _at(460)  # GRR (Q3, H8) may token; its next token is the 40/hex one
    cash = game.state.companies["GRR"].cash
    refused(game, PlaceToken("GRR", "B4", 0), "the token costs")  # 6 hexes from H8: 240
    play(game, PlaceToken("GRR", "K7", 0))  # 3 hexes from H8
    assert game.state.companies["GRR"].cash == cash - 3 * 40
    assert "GRR" in game.state.map.tokens[("K7", 0)]


def test_routes_are_checked_and_the_best_ones_accepted() -> None:
    game = _at(280)  # SPW about to run its 2-train
    spw = game.state.companies["SPW"]
    best = best_routes(game.ctx, game.state, spw)
    total = sum(r.revenue for r in best)
    refused(game, RunRoutes("SPW", tuple(to_route(r) for r in best), total + 10), f"earn {total}")
    cash = game.state.player("3058").cash
    play(game, RunRoutes("SPW", tuple(to_route(r) for r in best), total))
    assert game.state.player("3058").cash == cash + total - total // 2  # a minor always half pays


def test_the_run_offered_is_solved_only_when_applied_and_earns_the_best() -> None:
    game = _at(280)  # SPW about to run its 2-train
    spw = game.state.companies["SPW"]
    offered = legal_actions(game)
    assert offered[0] == RunBest("SPW")  # offered without a route search
    assert all(isinstance(a, BuyPrivate) for a in offered[1:])  # 8.12: at any time
    total = sum(r.revenue for r in best_routes(game.ctx, game.state, spw, remember=False))
    play(game, RunBest("SPW"))
    assert game.state.round.revenue == total == spw.last_revenue
    assert all(t.operated for t in spw.trains)


def test_a_position_is_solved_once() -> None:
    game = _at(280)
    spw = game.state.companies["SPW"]
    first = best_routes(game.ctx, game.state, spw)
    assert first and best_routes(game.ctx, game.state, spw) == first
    assert best_routes(game.ctx, pickle.loads(pickle.dumps(game.state)), spw) == first  # an equal state
    spw.trains.pop()  # another position: solved afresh
    assert best_routes(game.ctx, game.state, spw) == []


def test_half_pay_keeps_half_rounded_down_to_ten() -> None:
    # Rulebook 8.9 example: 230 earned, 110 kept, 12 a share paid.
    game = _at(460)
    mkn = game.state.companies["MKN"]
    holders = {p.id: p.percent_of("MKN") for p in game.state.players}
    cash = {p.id: p.cash for p in game.state.players}
    before = mkn.cash
    treasury_units = sum(c.percent for c in mkn.treasury) // 10
    distribute(game.ctx, game.state, mkn, 230, "half")
    assert mkn.cash == before + 110 + 12 * treasury_units
    for player in game.state.players:
        assert player.cash == cash[player.id] + 12 * holders[player.id] // 10


def test_dividends_move_the_price_right_only_when_at_least_the_price() -> None:
    # 8.9.2: the total paid out is compared with the share price.
    game = _at(460)
    mkn = game.state.companies["MKN"]
    price = market.price(game.ctx, game.state, "MKN")
    distribute(game.ctx, game.state, mkn, price - 5 - (price - 5) % 10, "payout")
    assert market.price(game.ctx, game.state, "MKN") == price
    distribute(game.ctx, game.state, mkn, price + 10 - price % 10, "payout")
    assert market.price(game.ctx, game.state, "MKN") > price
    before = market.price(game.ctx, game.state, "MKN")
    distribute(game.ctx, game.state, mkn, 100, "withhold")
    assert market.price(game.ctx, game.state, "MKN") < before


def test_loans_interest_and_repayment() -> None:
    game = _at(460)
    state = game.state
    kb = state.companies["KB"]  # one loan
    kb.cash, kb.loans_due = 2, 1
    bank = state.bank
    assert pay_interest(state, kb)  # must borrow: +45, then pays 5 for the old loan
    assert (kb.loans, kb.cash) == (2, 42)
    kb.loans_due = 2
    kb.cash = 0
    assert not pay_interest(state, kb)  # at the minors' limit of two loans: cannot pay
    kb.cash = 42
    kb.cash = 120
    repay_loans(state, kb)
    assert kb.loans == 0 and kb.cash == 20
    assert state.bank == bank - 45 + 5 + 100


def test_interest_that_cannot_be_paid_means_nationalization() -> None:
    game = _at(460)
    kb = game.state.companies["KB"]
    kb.cash, kb.loans, kb.loans_due = 0, 2, 2
    assert not pay_interest(game.state, kb)


def test_nationalizing_a_minor_pays_its_owner_two_shares_at_the_lowered_price() -> None:
    game = _at(460)
    state = game.state
    kk = state.companies["KK"]
    owner = state.president("KK")
    cash = owner.cash
    row, col = kk.market
    cell = (row, col - 1)  # one space left for being nationalized, no loans
    rsr = state.companies["RSR"]
    rsr_cash, trains = rsr.cash, len(rsr.trains)
    nationalize(game.ctx, state, "KK")
    left = game.ctx.board.market_cell("grid", *cell).price
    assert owner.cash == cash + 2 * left
    assert kk.closed and not any(c.company == "KK" for c in owner.certs)
    assert rsr.cash == rsr_cash + 25 and len(rsr.trains) == trains + 1
    assert any(t.hex == "D14" for t in rsr.tokens)


def test_only_the_lowest_rank_is_for_sale_and_limits_hold() -> None:
    game = _at(190)  # phase 2, KB without a train
    play(game, Pass("KB"))
    while game.actor() == "KB" and game.state.round.step != "trains":
        play(game, Pass("KB"))
    refused(game, BuyTrain("KB", "3-1", 225), "not for sale")


def test_the_first_8_train_in_the_first_operating_round_ends_the_game_after_three() -> None:
    game = _at(460)
    state = game.state
    state.round.number = 1
    game.ctx.title.final_phase_reached(game.ctx, state)
    assert state.game_ends_after == (state.round_number, 3) and state.operating_rounds == 3
    state.game_ends_after = None
    state.round.number = 2
    game.ctx.title.final_phase_reached(game.ctx, state)
    assert state.game_ends_after == (state.round_number + 1, 3)


@pytest.mark.parametrize("site,bank,broken", [(True, 0, False), (True, -1, True), (False, 0, True)])
def test_when_the_bank_breaks(site: bool, bank: int, broken: bool) -> None:
    game = _at(460)
    game.ctx.rules = Rules.site() if site else Rules.rulebook()
    game.state.bank = bank
    check_bank(game.ctx, game.state)
    assert game.state.bank_broken is broken
    if broken:
        assert game.state.game_ends_after == (game.state.round_number, game.state.round.number)


def test_a_major_must_choose_a_dividend() -> None:
    game = _at(460)
    play(game, Pass("GRR"))
    assert game.state.round.step == "routes"
    grr = game.state.companies["GRR"]
    best = best_routes(game.ctx, game.state, grr)
    play(game, RunRoutes("GRR", tuple(to_route(r) for r in best)))
    refused(game, Dividend("GRR", "all"), "payout, half or withhold")
    play(game, Dividend("GRR", "half"))
    assert game.state.round.step != "dividend"


def test_a_route_between_two_own_token_cities_must_be_run() -> None:
    """8.8: a route needs two revenue centres and one token city; both may be the
    company's own tokens (S4006: MKV, tokened in K7 and M7, joined through L8)."""
    game = replayed("1861-gen-P2-column-S4006", 338)
    rnd = game.state.round
    assert sorted(t.hex for t in game.state.companies["MKV"].placed_tokens) == ["K7", "M7"]
    assert rnd.step == "routes" and game.actor() == "MKV"
    assert market.price(game.ctx, game.state, "MKV") == 165  # no withhold has moved it


def test_the_rsr_buys_on_with_the_cash_of_majors_its_purchase_nationalized() -> None:
    """8.13: the RSR buys as many trains as it can afford. In S4026 its 6-train left
    MK, MKV and MVR trainless; once MVR is nationalized, its cash buys the RSR a 7."""
    game = replayed("1861-gen-P2-column-S4026", 546)
    state = game.state
    assert state.phase == "6" and state.trainless_majors == ["MVR"]
    rsr = state.companies["RSR"]
    assert rsr.cash < 800
    play(game, Choose("MVR", "nationalize"))
    assert state.phase == "7"
    assert "7" in [t.name for t in rsr.trains]


@pytest.mark.parametrize("site", [False, True])
def test_a_major_trainless_at_two_phase_changes_of_one_turn_is_asked_once(site: bool) -> None:
    """10: in 1861-29683's OR 5.1 an RSR given 6000 buys from phase 5 into 8 after its
    run; GRR, its 4-train taken away, is trainless at the 6 and still at the 8: its
    president chooses once (18xx.games makes the list anew at each phase change)."""
    log, _ = shared_game("1861-29683")
    game = replayed("1861-29683", 594, Rules.site() if site else Rules.rulebook())
    state = game.state
    grr = state.companies["GRR"]
    four = next(t for t in grr.trains if t.name == "4")
    grr.trains.remove(four)
    state.depot.pool.append(four)
    state.companies["RSR"].cash += 6000
    state.bank -= 6000
    game.apply(convert(state, next(a for a in log["actions"] if a["id"] == 595)))  # the RSR's run
    assert state.phase == "8" and state.trainless_majors == ["GRR"]
    play(game, Pass("GRR"))
    assert state.trainless_majors == [] and game.actor() != "GRR"


@pytest.mark.parametrize("site", [False, True])
def test_the_rsr_buys_on_only_once_the_discards_of_its_phase_change_are_made(site: bool) -> None:
    """8.11.1, 8.13: every effect of a phase change is resolved before the company that
    caused it goes on. In 1861-29683's OR 5.1 (trains moved so that GRR holds only
    3-trains and SE a 5 and two 4s) the RSR's 6-train leaves GRR trainless and SE over
    its limit of 2; GRR's nationalization brings the RSR the cash for the first 8, which
    would rust SE's 4s: SE discards first, as on 18xx.games, then the RSR buys on."""
    log, _ = shared_game("1861-29683")
    game = replayed("1861-29683", 594, Rules.site() if site else Rules.rulebook())
    state = game.state
    companies = state.companies
    for owner in ("GRR", "NW"):
        four = next(t for t in companies[owner].trains if t.name == "4")
        companies[owner].trains.remove(four)
        companies["SE"].trains.append(four)
    state.bank += companies["RSR"].cash - 700
    companies["RSR"].cash = 700  # enough for one 6-train
    companies["GRR"].cash += 3000
    state.bank -= 3000
    game.apply(convert(state, next(a for a in log["actions"] if a["id"] == 595)))  # the RSR's run
    assert state.phase == "6" and state.trainless_majors == ["GRR"] and len(companies["SE"].trains) == 3
    play(game, Choose("GRR", "nationalize"))
    assert state.phase == "6" and game.actor() == "SE"
    play(game, DiscardTrain("SE", companies["SE"].trains[0].id))
    assert state.phase == "8" and "8" in [t.name for t in companies["RSR"].trains]


@pytest.mark.parametrize("site", [False, True])
def test_the_rsr_stops_buying_at_the_start_of_phase_eight(site: bool) -> None:
    """3.4, 8.13: "At the start of Phase 8, the National Railways will cease operation":
    in 1861-29683's OR 5.2 a rich RSR buys the 7 and the first 8, then stops. RN 7.12:
    18xx.games goes on buying 8-trains while its cash lasts."""
    log, _ = shared_game("1861-29683")
    buy = next(a for a in log["actions"] if a["type"] == "buy_train" and a["entity"] == "SE" and a["train"] == "4-1")
    game = replayed("1861-29683", buy["id"] - 1, Rules.rulebook().but(national_buys_into_phase_eight=site))
    state = game.state
    state.companies["RSR"].cash += 4000
    state.bank -= 4000
    start = len(state.log)
    play(game, BuyTrain("SE", "4-1", 25))
    bought = [line.split(" for ")[0] for line in state.log[start:] if line.startswith("RSR buys")]
    assert state.phase == "8"
    assert bought[:2] == ["RSR buys a 7-train", "RSR buys a 8-train"]
    assert (len(bought) > 2) is site


@pytest.mark.parametrize("site", [False, True])
def test_the_earlier_of_two_game_ends_wins(site: bool) -> None:
    """12.1: each trigger ends the game "and then", so the earlier end wins. In
    1861-29683 the first 8-train came in OR 6.1 (the game ends after OR 6.3); the bank
    breaking in OR 6.2 ends it after OR 6.2. And a bank broken in OR 6.1 before the
    8-train ends the game after OR 6.1. RN 11.35: 18xx.games keeps the 8-train's end."""
    rules = Rules.site() if site else Rules.rulebook()
    log, _ = shared_game("1861-29683")
    lay = next(a for a in log["actions"] if a["type"] == "lay_tile" and a["entity"] == "NW" and a["hex"] == "J6")
    game = replayed("1861-29683", lay["id"] - 1, rules)
    state = game.state
    assert (state.round_number, state.round.number, state.game_ends_after) == (6, 2, (6, 3))
    state.players[0].cash += state.bank + 1
    state.bank = -1  # broken by both readings
    check_bank(game.ctx, state)
    assert state.game_ends_after == ((6, 3) if site else (6, 2))

    game = replayed("1861-29683", 676, rules)  # OR 6.1, before the first 8-train
    state = game.state
    state.players[0].cash += state.bank + 1
    state.bank = -1  # broken by both readings
    check_bank(game.ctx, state)
    assert state.game_ends_after == (6, 1) and state.operating_rounds == 2
    game.ctx.title.final_phase_reached(game.ctx, state)
    assert state.game_ends_after == ((6, 3) if site else (6, 1))
    assert state.operating_rounds == (3 if site else 2)


@pytest.mark.parametrize("until", [280, 228, 378])
def test_a_private_may_be_bought_while_the_company_must_run_pay_or_buy_a_train(until: int) -> None:
    """8.12: "at any time" of the turn: the privates are offered, and bought, also in the
    run step (SPW, 280), while a trainless company must buy a train (E, 228) and in
    the dividend step (NW, 378)."""
    game = _at(until)
    company = game.actor() or ""
    assert game.state.round.step in ("routes", "trains", "dividend")
    offered = legal_actions(game)
    privates = [a for a in offered if isinstance(a, BuyPrivate)]
    assert privates and len(offered) > len(privates) and Pass(company) not in offered
    play(game, privates[0])
    assert game.state.private_owner[privates[0].private] == company
