"""Merger rounds (rulebook 9) on a real position: 1861-29683 after operating round 3.1."""

from __future__ import annotations

import pytest

from engine import graph, market
from engine.actions import BuyShare, Convert, DiscardTrain, Merge, Pass, RemoveToken
from engine.errors import IllegalAction
from engine.game import Game
from engine.legal import legal_actions
from engine.merger import one_connected_to_all
from engine.replay import replay
from engine.rules import Rules
from tests.conftest import DATA, play, read_json, refused, replayed, shared_game
from tests.site_verdicts import known_cause, positions


def _merger_round(rules: Rules | None = None) -> Game:
    log, _ = shared_game("1861-29683")
    game = replay(log, None, until=311).game
    if rules is not None:
        game.ctx.rules = rules
    assert game.round_name == "Merger" and game.actor() == "MB"
    return game


def test_two_minors_of_one_owner_merge_and_the_owner_is_president() -> None:
    game = _merger_round()
    state = game.state
    cash = state.companies["MB"].cash + state.companies["N"].cash
    loans = state.companies["MB"].loans + state.companies["N"].loans
    play(game, Merge("MB", "N"), Merge("MB", "NW"))
    nw = state.companies["NW"]
    assert market.price(game.ctx, state, "NW") == 165  # 100 + 70 = 170, down to a start price
    assert state.president("NW").name == "Player 3" and state.player("3058").percent_of("NW") == 20
    assert nw.cash == cash and nw.loans == loans
    assert sorted(t.hex for t in nw.placed_tokens) == ["E9", "H8"]
    assert state.companies["MB"].closed and state.companies["N"].closed
    assert game.actor() == "3058"  # the new president may buy shares first


def test_a_minor_may_only_merge_with_a_connected_minor() -> None:
    game = _merger_round()
    refused(game, Merge("MB", "OK"), "not connected")
    refused(game, Merge("MB", "NW"), "a merge needs two minors")


def test_shares_after_a_merge_go_to_the_treasury() -> None:
    game = _merger_round()
    play(game, Merge("MB", "N"), Merge("MB", "NW"))
    nw = game.state.companies["NW"]
    cash = nw.cash
    play(game, BuyShare("3058", "NW", "treasury"))
    assert nw.cash == cash + 165
    assert game.state.player("3058").percent_of("NW") == 30


def test_a_merge_without_a_president_is_reversed() -> None:
    game = _merger_round(Rules.rulebook())
    state = game.state
    rnd = state.round
    rnd.index = rnd.order.index("V")
    rnd.merging = ["V"]
    before = {s: (c.cash, c.closed, c.market) for s, c in state.companies.items()}
    play(game, Merge("V", "Y"))
    assert game.apply(Merge("V", "SE")) == ["V and Y form SE at 110"]
    assert state.companies["SE"].floated
    posted: list[str] = []  # what the table reads: the lines each action gives
    while game.round_name == "Merger" and game.actor() in ("5522", "3058"):
        posted += game.apply(Pass(game.actor()))
    assert not game.state.companies["SE"].floated
    assert {s: (c.cash, c.closed, c.market) for s, c in game.state.companies.items()} == before
    assert posted == ["Nobody can be president of SE: the merge is reversed, and V and Y stay minors (9.2)"]
    assert game.state.log[-2:] == ["V and Y form SE at 110", posted[0]]


def _kk_and_n_may_merge(rules: Rules) -> Game:
    """S4007 merger round: KK (Player 2) and N (Player 1), both at 165, KK above N in
    its market cell; N is given the turn."""
    game = replayed("1861-gen-P3-column-S4007", 397, rules)
    rnd = game.state.round
    assert rnd.order[:2] == ["KK", "N"] and game.actor() == "KK"
    rnd.index, rnd.merging = 1, ["N"]
    return game


@pytest.mark.parametrize("site", [False, True])
def test_after_a_merge_the_active_minors_owner_buys_first(site: bool) -> None:
    """9.2C: the owner of the active minor buys first; RN 11.28: 18xx.games starts with
    the owner of the highest-priced minor (KK, first in its cell)."""
    game = _kk_and_n_may_merge(Rules.site() if site else Rules.rulebook())
    play(game, Merge("N", "KK"), Merge("N", "MKN"))
    assert game.state.player(game.actor()).name == ("Player 2" if site else "Player 1")


def test_phase_two_skips_only_a_player_whose_pass_ended_phase_one() -> None:
    """RN 8.3: in S4029 Player 2 passes, then Player 3 and Player 1 buy and end phase 1;
    Player 2, the president, is still offered a share in phase 2."""
    game = replayed("1861-gen-P5-column-S4029", 263, Rules.site())
    rnd = game.state.round
    assert rnd.buy_phase == 2
    assert game.state.player(game.actor()).name == "Player 2"


@pytest.mark.parametrize("site", [False, True])
def test_after_a_token_reduction_the_major_keeps_three_tokens(site: bool) -> None:
    """9.2E: MNN and N (both in Moscow) form SE, which keeps one token there; the
    tokens left go on the 20/hex and 40/hex spots. RN 8.3: 18xx.games keeps the
    cheapest spare tokens, so removing the free home token makes the next one free."""
    game = replayed("1861-gen-P6-grid-S4015", 283, Rules.site() if site else Rules.rulebook())
    play(game, Merge("MNN", "SE"))
    if not site:  # by the rulebook the share purchases come first
        play(game, BuyShare("2", "SE", "treasury"))
        while game.actor() != "SE":
            play(game, Pass(game.actor()))
    se = game.state.companies["SE"]
    assert [(t.hex, t.price) for t in se.tokens] == [("H8", 0), ("H8", 20), (None, 40)]
    play(game, RemoveToken("SE", "H8", 0))
    assert [(t.hex, t.city) for t in se.placed_tokens] == [("H8", 1)]
    assert [t.price for t in se.tokens if t.hex is None] == ([0, 40] if site else [20, 40])


@pytest.mark.parametrize("site", [False, True])
def test_the_token_reduction_is_decided_by_a_seated_player(site: bool) -> None:
    """9.2E: "The President now chooses", after the share purchases (C, D). RN 8.1:
    18xx.games reduces first, when nobody may hold two shares of SE yet (Player 1 has
    N, Player 2 MNN): then the active player, MNN's owner, chooses."""
    game = replayed("1861-gen-P6-grid-S4015", 283, Rules.site() if site else Rules.rulebook())
    state = game.state
    play(game, Merge("MNN", "SE"))
    if site:
        assert game.actor() == "SE" and state.president("SE") is None
        assert game.acting_player() == "2"
        return
    assert game.actor() == "2" and game.acting_player() == "2"  # Player 2 buys first
    play(game, BuyShare("2", "SE", "treasury"))  # then has too little cash for more
    while game.actor() != "SE":
        play(game, Pass(game.actor()))
    assert state.president("SE").name == "Player 2" and game.acting_player() == "2"


def test_by_the_rulebook_the_active_player_exchanges_first() -> None:
    """9.2C: "Starting with the active player, exchange every Minor Certificate": V
    and KR of Player 1 (70, 65) merge with MB and OK of Player 3 (100, 90); V is the
    active minor, so Player 1 holds two shares first and is NW's president. RN 11.27:
    18xx.games exchanges in price order (MB, OK first: Player 3)."""
    for rules, president in ((Rules.rulebook(), "Player 1"), (Rules.site(), "Player 3")):
        game = _merger_round(rules)
        state = game.state
        rnd = state.round
        rnd.index = rnd.order.index("V")
        rnd.merging, rnd.adding_done = ["V", "KR", "MB", "OK"], True
        play(game, Merge("V", "NW"))
        assert state.president("NW").name == president
        assert state.player(state.president("NW").id).percent_of("NW") == 20


def test_a_merged_major_starts_on_the_blue_or_teal_section() -> None:
    """9.2A: KK (55) and Y (45) form SE at 100, "on the blue or teal section": the blue
    100 on the grid (row 5, column 6). RN 11.32: 18xx.games puts it on the pink 100
    (row 4, column 5), a major start space as for a conversion (9.1A)."""
    for rules, cell in ((Rules.rulebook(), (5, 6)), (Rules.site(), (4, 5))):
        game = replayed("1861-29683", 311, rules)
        state = game.state
        rnd = state.round
        rnd.index = rnd.order.index("KK")
        rnd.merging, rnd.adding_done = ["KK", "Y"], True
        play(game, Merge("KK", "SE"))
        assert market.price(game.ctx, state, "SE") == 100
        assert state.companies["SE"].market == cell


def test_buying_more_than_the_president_after_a_merge_takes_the_presidency() -> None:
    """7.3.2: in S4029 Player 4 is GRR's president with 20%; Player 3 buys a third
    share after the merge and, holding more, becomes president."""
    game = replayed("1861-gen-P5-column-S4029", 310)
    state = game.state
    assert state.president("GRR").name == "Player 4"
    buyer = state.player(game.actor())
    assert buyer.name == "Player 3" and buyer.percent_of("GRR") == 20
    play(game, BuyShare(buyer.id, "GRR", "treasury"))
    assert state.president("GRR").name == "Player 3"
    assert buyer.percent_of("GRR") == 30 and state.player(state.players[3].id).percent_of("GRR") == 20


def test_the_merger_round_waits_for_a_company_over_its_train_limit() -> None:
    """RN 8.1: discards are a step of the merger round, so it does not end while a
    company is over its limit. 1867 S5006, by the rulebook: C&O is given a 5 and a 7
    (three trains, its phase-5 limit); the CN's export at the end of the operating
    round starts phase 6 (limit 2), and no minor can merge or convert."""
    game = replayed("1867-gen-P2-grid-S5006", 415, Rules.rulebook(market="grid"))
    state = game.state
    co, nyc = state.companies["C&O"], state.companies["NYC"]
    co.trains += [nyc.trains.pop(), state.depot.upcoming.pop(1)]
    play(game, Pass("C&O"))
    assert state.phase == "6" and game.round_name == "Merger"
    while state.trainless_majors:
        play(game, Pass(game.actor()))  # each trainless major is kept
    assert game.round_name == "Merger" and game.actor() == "C&O"
    play(game, DiscardTrain("C&O", "4-0"))
    assert game.round_name == "Stock"
    assert [t.name for t in co.trains] == ["5", "7"]


@pytest.mark.parametrize("site", [False, True])
def test_a_minor_joins_a_merge_through_one_connected_to_all(site: bool) -> None:
    """9.2: "One of the Minor Companies involved must be connected to all other Minor
    Companies". S4017: SPW and MV merge; M-K reaches MV but not SPW, and MV reaches
    both, so M-K may join. RN 11.30: 18xx.games asks only for a link to any member."""
    rules = Rules.site(market="column") if site else Rules.rulebook(market="column")
    game = replayed("1861-gen-P3-column-S4017", 365, rules)
    rnd = game.state.round
    assert rnd.merging == ["SPW", "MV"]
    assert not graph.MinorLinks(game.ctx, game.state).connected("SPW", "M-K", {"SPW", "MV", "M-K"})
    play(game, Merge("SPW", "M-K"))
    assert rnd.merging == ["SPW", "MV", "M-K"]


def test_a_chain_of_minors_needs_a_hub() -> None:
    """9.2: A-B, B-C and C-D linked only in a chain have no member connected to all."""
    links = {("A", "B"), ("B", "C"), ("C", "D")}

    def connected(a: str, b: str) -> bool:
        return (a, b) in links or (b, a) in links

    assert one_connected_to_all(["A", "B", "C"], connected)  # B is the hub
    assert not one_connected_to_all(["A", "B", "C", "D"], connected)


def _by_the_rulebook_unless(site: bool, game: Game) -> Game:
    """The replayed game on the site's rules, or on the rulebook's with the same market."""
    if not site:
        game.ctx.rules = Rules.rulebook(market=game.ctx.rules.market)
    return game


@pytest.mark.parametrize("site", [False, True])
def test_a_merge_names_its_major_once_the_adding_is_done_on_18xx_games(site: bool) -> None:
    """9.2A: by the rulebook, once two minors are in the active player may name the
    major (ending the adding) or add more; RN 8.3: 18xx.games offers only more minors
    and a pass that finishes the adding (1867-19792: AE has CV, CA could join)."""
    game = _by_the_rulebook_unless(site, replayed("1867-19792", 278))
    assert game.state.round.merging == ["AE", "CV"]
    offered = legal_actions(game)
    assert Merge("AE", "CA") in offered and Pass("AE") in offered
    assert (Merge("AE", "CNR") in offered) is not site
    if site:
        refused(game, Merge("AE", "CNR"), "AE is still adding minors: add another \\(CA\\) or pass")
        play(game, Pass("AE"))
        assert game.state.round.adding_done and Merge("AE", "CNR") in legal_actions(game)
    else:
        play(game, Merge("AE", "CNR"))
        assert game.state.companies["CNR"].floated


@pytest.mark.parametrize("site", [False, True])
def test_a_merge_whose_adding_is_done_cannot_be_given_up_on_18xx_games(site: bool) -> None:
    """By the rulebook a merge may be given up until its major is named: nothing has
    changed hands and every owner must agree (9.2). RN 8.3: 18xx.games then offers only
    the majors (1861-29683: MB has added N, the last minor it could)."""
    game = _merger_round(Rules.site() if site else Rules.rulebook())
    play(game, Merge("MB", "N"))
    assert game.state.round.adding_done
    offered = legal_actions(game)
    assert Merge("MB", "NW") in offered
    assert (Pass("MB") in offered) is not site
    if site:
        refused(game, Pass("MB"), "MB must now name the major to form")
    else:
        play(game, Pass("MB"))
        assert "MB gives up the merge" in game.state.log


@pytest.mark.parametrize("site", [False, True])
def test_a_conversion_cannot_be_given_up_on_18xx_games(site: bool) -> None:
    """9.1A: the converting player names the major; RN 8.3: 18xx.games offers nothing
    else once the conversion is begun (1861-bank-breaks: MNN converts)."""
    game = _by_the_rulebook_unless(site, replayed("1861-bank-breaks", 315))
    assert game.actor() == "MNN"
    play(game, Convert("MNN"))
    offered = legal_actions(game)
    assert Merge("MNN", "NW") in offered
    assert (Pass("MNN") in offered) is not site
    if site:
        refused(game, Pass("MNN"), "MNN must now name the major to form")


@pytest.mark.parametrize("value,space", [(150, (2, 7)), (165, (1, 7)), (155, (2, 7)), (100, (5, 6))])
def test_a_merge_worth_150_or_165_takes_the_teal_space_a_conversion_at_that_price_takes(
        value: int, space: tuple[int, int]) -> None:
    """N5 (decided), 9.2A "placed on the blue or teal section": the grid has a blue and a
    teal space at 150 and at 165. The merge takes the teal one: the space a conversion at
    that price takes (9.1A "the pink or teal space of the same value"), so every major
    formed at one price shares one space and 4.2's order among them is the stack's; the
    blue column is where the minors stand (4.1). Where there is only a blue space (100),
    the blue one."""
    from engine.merger import _merge_section_cell

    game = Game.new([("a", "Anna"), ("b", "Boris"), ("c", "Clara")], seed=1, rules=Rules.rulebook(market="grid"))
    ctx = game.ctx
    cell = _merge_section_cell(ctx, value)
    assert (cell.row, cell.col) == space
    if value in (150, 165):
        blue = [c for c in ctx.board.market_cells("grid") if c.convert_zone and c.price == value]
        assert blue and cell.teal and cell == market.major_start_cell(ctx, value, exact=False)


def test_on_18xx_games_no_minor_joins_a_merge_that_nobody_could_then_preside() -> None:
    """RN 8.3 (checker of issue 35): on 18xx.games the last minor to join a merge ends the
    adding and a major must be named; in 1861-selfplay-97009 at position 518, Y joining
    M-K would leave nobody able to preside, and the site's engine accepted no move after
    it. Troika under the site's rules neither offers nor takes that join; a refused join
    changes nothing."""
    log = read_json(DATA / "1861-selfplay-97009.json.gz")
    _, game = next(positions(log, {518}))  # the log goes on with the join, refused now
    assert game.ctx.rules.merger_major_named_after_adding and game.round_name == "Merger"
    join = Merge("M-K", "Y")
    assert join not in legal_actions(game)
    before = game.save()
    with pytest.raises(IllegalAction, match="nobody in the merge could then become the major's president"):
        game.apply(join)
    assert game.save() == before


def test_on_18xx_games_the_adding_does_not_end_while_nobody_could_preside() -> None:
    """RN 8.3 (issue 35, 1867-selfplay-98010, a fresh export refused live at its action
    405): THB and LPS in a merge, SLA still able to join, nobody able to preside. The
    site's engine accepts THB's pass (it ends the adding) and can then neither name a
    major nor give the merge up; Troika under the site's rules offers only SLA's join
    (the oracle accepted it there: ``at 403`` gave ``merge THB SLA`` and ``pass THB``),
    and refuses the pass, naming why; the comparator counts the pass as cause L."""
    log = read_json(DATA / "1867-selfplay-98010.json.gz")
    _, game = next(positions(log, {403}))  # the log goes on with the pass, refused now
    assert game.round.merging == ["THB", "LPS"] and not game.round.adding_done
    assert legal_actions(game) == [Merge("THB", "SLA")]
    before = game.save()
    with pytest.raises(IllegalAction, match="THB cannot stop adding: nobody in the merge could then become"):
        game.apply(Pass("THB"))
    assert game.save() == before
    assert (known_cause(game, "pass THB") or "").startswith("L:")
