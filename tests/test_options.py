"""The rulebook's optional rules (§14, §16) chosen when a game starts: declared by the
titles, stored with the game, apart from the 18xx.games switches, each rule on a position."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.console import CHANNEL, Console
from bot.service import TroikaService, option_suggestions
from engine import nationalization, trains
from engine.actions import Bid, BuyTrain, Pass
from engine.errors import EngineError, InvalidAction
from engine.game import Game
from engine.game_setup import Setup, check_options, parse_setup
from engine.legal import legal_actions
from engine.options import LEFT_OF_AUCTIONEER, LIMITED_SPECIAL_TRAINS, LONG_GAME, NO_FLOOR
from engine.rules import SWITCHES, Rules
from engine.titles import TITLES, title_named
from engine.titles.t1861.options import BUNDLES, EXPORTS, RSR_EXPORTS, SIX_TRAIN_END
from storage import SqliteEventStore
from tests.conftest import PLAYERS3, play, refused


def _game(*options: str, title: str = "1861", players: list[tuple[str, str]] = PLAYERS3, seed: int = 1) -> Game:
    market = "grid" if title == "1861" else "column"
    return Game.new(players, seed=seed, rules=Rules.rulebook(market=market, options=options), title=title,
                    first_player=0)


def _play_until(game: Game, done: Callable[[Game], bool], seed: int = 1, limit: int = 4000) -> None:
    """Random legal moves, a pass first a quarter of the time (as self-play makes them),
    until ``done`` holds."""
    rng = random.Random(seed)
    for _ in range(limit):
        if done(game):
            return
        moves = legal_actions(game)
        passes = [m for m in moves if isinstance(m, Pass)]
        others = [m for m in moves if not isinstance(m, Pass)]
        rng.shuffle(others)
        order = passes + others if passes and rng.random() < 0.25 else others + passes
        assert game.apply_first(order) is not None, f"stuck: {game.choices()}"
    pytest.fail("the position never came")


# --- options as data, stored with the game -------------------------------------------


def test_every_title_declares_the_section_14_options_in_the_rulebooks_words() -> None:
    for name in TITLES:
        options = {o.sym: o for o in title_named(name).options}
        assert {LIMITED_SPECIAL_TRAINS, NO_FLOOR, LONG_GAME, LEFT_OF_AUCTIONEER} <= set(options)
        assert all(options[sym].section == "§14" for sym in (LIMITED_SPECIAL_TRAINS, NO_FLOOR, LONG_GAME))
        assert all(o.rule and not o.default for o in options.values())
    russian = {o.sym: o.section for o in title_named("1861").options}
    assert russian[EXPORTS] == "§14" and russian[RSR_EXPORTS] == "§15.2" and russian[SIX_TRAIN_END] == "§15.3"
    assert not {EXPORTS, RSR_EXPORTS, SIX_TRAIN_END} & {o.sym for o in title_named("1867").options}


def test_site_rules_turn_on_every_switch_but_no_option() -> None:
    site = Rules.site(market="column")
    assert site.options == frozenset() and site.is_site
    assert all(getattr(site, name) for name in SWITCHES)
    assert "options" not in SWITCHES and "market" not in SWITCHES
    assert Rules.site(options=[NO_FLOOR]).options == {NO_FLOOR}


@pytest.mark.parametrize("rules", [
    Rules.rulebook(market="column", options=[LONG_GAME, NO_FLOOR]),
    Rules.site(market="grid"),
    Rules.rulebook().but(price_drop_per_sell_action=True),
])
def test_the_stored_form_reads_back_the_same_rules(rules: Rules) -> None:
    assert Rules.from_dict(rules.to_dict()) == rules


def test_games_stored_in_the_old_flat_form_still_load() -> None:
    old_rulebook = {"market": "grid", **{name: False for name in SWITCHES if name != "two_player_variant_every_title"}}
    assert Rules.from_dict(old_rulebook) == Rules.rulebook().but(two_player_variant_every_title=True)
    two = [("a", "Anna"), ("b", "Boris")]  # a two-player 1867 game set up before §16 was 1861's only
    assert len(Game.new(two, 11, Rules.from_dict({**old_rulebook, "market": "column"}), "1867").state.players) == 2
    old_import = {"market": "column", **{name: True for name in SWITCHES if name != "two_player_variant_every_title"}}
    assert Rules.from_dict(old_import) == Rules.site(market="column")  # switches added since are on too
    with pytest.raises(InvalidAction, match="unknown game options: speed"):
        Rules.from_dict({"market": "grid", "speed": True})
    with pytest.raises(InvalidAction, match="list of option words"):
        Rules.from_dict({"market": "grid", "options": "long-game"})


def test_setup_words_come_in_any_order_and_refusals_say_why() -> None:
    assert parse_setup(["no-floor", "1867", "Left_of_Auctioneer"]) == Setup(
        "1867", "column", frozenset({NO_FLOOR, LEFT_OF_AUCTIONEER}))
    assert parse_setup([]) == Setup("1861", "grid")
    with pytest.raises(InvalidAction, match="exports is an option of 1861, not of 1867"):
        parse_setup(["1867", "exports"])
    with pytest.raises(InvalidAction, match="short is an option of 1861, not of 1867"):
        parse_setup(["1867", "short"])
    with pytest.raises(InvalidAction, match="neither a game"):
        parse_setup(["speedy"])
    with pytest.raises(InvalidAction, match="has no option 'fast'"):
        check_options("1861", ["fast"])
    with pytest.raises(InvalidAction, match="option of 1861"):
        Game.new(PLAYERS3, seed=1, rules=Rules.rulebook(options=[EXPORTS]), title="1867")


# --- §14 special trains ---------------------------------------------------------------


def test_limited_special_trains_puts_two_of_each_in_the_yard_and_no_more() -> None:
    game = _game(LIMITED_SPECIAL_TRAINS)
    ctx, state = game.ctx, game.state
    for name in ("2+2", "5+5E"):
        copies = [t for t in state.depot.upcoming if t.name == name]
        assert len(copies) == 2
        for train in copies:
            trains._take_from_yard(ctx, state, train)
        assert not [t for t in state.depot.upcoming if t.name == name]
    unlimited = _game()
    special = next(t for t in unlimited.state.depot.upcoming if t.name == "2+2")
    trains._take_from_yard(unlimited.ctx, unlimited.state, special)
    assert [t.id for t in unlimited.state.depot.upcoming if t.name == "2+2"] == ["2+2-1"]  # the next copy


# --- §14 no stock price floor ---------------------------------------------------------


@pytest.mark.parametrize(("title", "floor", "no_floor"), [("1861", 35, 30), ("1867", 35, 25)])
def test_nationalized_below_35_a_share_pays_5_less_per_space(title: str, floor: int, no_floor: int) -> None:
    """§14 with 10.1C: one space left, and one (1861) or two (1867) per loan left."""
    paid = {}
    for options in ((), (NO_FLOOR,)):
        game = _game(*options, title=title)
        _play_until(game, lambda g: any(c.is_minor and c.floated for c in g.state.companies.values()))
        ctx, state = game.ctx, game.state
        sym = next(s for s, c in state.companies.items() if c.is_minor and c.floated)
        forty = next(c for c in ctx.board.market_cells(ctx.rules.market) if c.price == 40)
        company = state.companies[sym]
        company.market = None
        from engine import market

        market.place(state, sym, forty)
        state.bank += company.cash
        company.cash, company.loans = 0, 1
        owner = state.president(sym)
        assert owner is not None
        before = owner.cash
        nationalization.nationalize(ctx, state, sym)
        paid[options] = (owner.cash - before) // 2  # a minor's certificate is two shares
    assert paid == {(): floor, (NO_FLOOR,): no_floor}


def test_the_payout_never_falls_below_zero() -> None:
    game = _game(NO_FLOOR, title="1867")
    _play_until(game, lambda g: any(c.is_minor and c.floated for c in g.state.companies.values()))
    ctx, state = game.ctx, game.state
    sym = next(s for s, c in state.companies.items() if c.is_minor and c.floated)
    state.bank += state.companies[sym].cash
    state.companies[sym].cash, state.companies[sym].loans = 0, 10  # 21 spaces left
    owner = state.president(sym)
    assert owner is not None
    before = owner.cash
    nationalization.nationalize(ctx, state, sym)
    assert owner.cash == before


# --- §14 left of auctioneer ------------------------------------------------------------


@pytest.mark.parametrize(("options", "opens_next"), [((), "c"), ((LEFT_OF_AUCTIONEER,), "b")])
def test_after_a_private_auction_the_next_opens_left_of_the_proposer(options: tuple[str, ...],
                                                                    opens_next: str) -> None:
    game = _game(*options)
    play(game, Bid("a", "TSR", 20), Bid("b", "TSR", 25), Pass("c"), Pass("a"))  # Anna proposed, Boris won
    assert game.state.private_owner["TSR"] == "b"
    assert game.actor() == opens_next


@pytest.mark.parametrize(("options", "next_turn"), [((), "b"), ((LEFT_OF_AUCTIONEER,), "a")])
def test_after_a_minor_auction_the_next_stock_turn_is_left_of_the_proposer(options: tuple[str, ...],
                                                                          next_turn: str) -> None:
    game = _game(*options)
    for opener, private, price in (("a", "TSR", 20), ("b", "BSS", 30), ("c", "MYR", 40), ("a", "MRR", 50),
                                   ("b", "WVR", 60)):
        seat = "abc".index(opener)
        others = ["abc"[(seat + i) % 3] for i in (1, 2)]
        play(game, Bid(opener, private, price), *(Pass(p) for p in others))
    assert game.actor() == "c"
    play(game, Bid("c", "N", 100), Bid("a", "N", 115), Pass("b"), Pass("c"))  # Clara proposed, Anna won
    assert game.state.player("a").certs[0].company == "N"
    assert game.actor() == next_turn


# --- §14 long game ----------------------------------------------------------------------


def test_long_game_ignores_the_first_8_train_and_ends_when_the_bank_breaks() -> None:
    for options, ends in (((), True), ((LONG_GAME,), False)):
        game = _game(*options)
        _play_until(game, lambda g: g.round_name == "Operating")
        trains.change_phase(game.ctx, game.state, "8")
        assert (game.state.game_ends_after is not None) == ends
    assert game.ctx.board.bank_cash == 15000
    game.state.bank = 0
    from engine.game_end import check_bank

    check_bank(game.ctx, game.state)
    assert game.state.game_ends_after == (game.state.round_number, game.state.round.number)


# --- §14 1861 train exports -------------------------------------------------------------


@pytest.mark.slow
def test_1861_exports_the_rsr_does_not_run_and_exports_before_the_sets_second_merger_round() -> None:
    game = _game(EXPORTS)
    assert game.ctx.board.national_operates  # it still takes nationalized companies' assets (10.1E)
    _play_until(game, lambda g: g.state.phase == "4" and g.round_name == "Operating" and g.state.round.number == 1)
    number, start = game.state.round_number, len(game.state.log)
    _play_until(game, lambda g: g.state.round_number > number)
    log = game.state.log[start:]
    second_or = log.index(f"Operating round {number}.2")
    second_merger = log.index(f"Merger round after operating round {number}.2")
    exports = [i for i, line in enumerate(log) if line.startswith("RSR exports a ")]
    assert len(exports) == 1 and second_or < exports[0] < second_merger
    assert not [line for line in log if line.startswith("RSR runs")]
    assert game.state.phase in ("4", "5")


# --- §15 1861 short -------------------------------------------------------------------------


@pytest.mark.slow
def test_1861_short_rsr_has_no_treasury_and_exports_at_the_end_of_each_set() -> None:
    game = _game(RSR_EXPORTS)
    _play_until(game, lambda g: g.state.phase == "4" and g.round_name == "Operating" and g.state.round.number == 1)
    number, start = game.state.round_number, len(game.state.log)
    _play_until(game, lambda g: g.state.round_number > number)
    log = game.state.log[start:]
    exports = [i for i, line in enumerate(log) if line.startswith("RSR exports a ")]
    assert len(exports) == 1 and log.index(f"Operating round {number}.2") < exports[0]
    _play_until(game, lambda g: g.state.companies["RSR"].trains != [] or g.state.finished)
    rsr = game.state.companies["RSR"]
    assert rsr.cash == 0 and rsr.loans == 0
    assert not [line for line in game.state.log if line.startswith("RSR runs")]


@pytest.mark.slow
def test_1861_short_the_first_6_train_bought_ends_the_game_two_operating_rounds_later() -> None:
    game = _game(SIX_TRAIN_END)
    _play_until(game, lambda g: any("The first 6-train" in line for line in g.state.log[-20:]) or g.state.finished)
    log = game.state.log
    trigger = next(i for i, line in enumerate(log) if "The first 6-train" in line)
    bought = next(i for i, line in enumerate(log) if "buys a 6-train" in line and line.endswith("from the yard"))
    round_start = max(i for i, line in enumerate(log[:trigger]) if line.startswith("Operating round "))
    assert round_start < bought < trigger
    _play_until(game, lambda g: g.state.finished)
    after = game.state.log[trigger:]
    assert len([line for line in after if line.startswith("Operating round ")]) == 2
    assert game.state.end_reason == "first_6_train"
    assert game.state.phase == "8"  # the RSR bought up to the 8-train meanwhile: that ends nothing more
    stock_rounds = [line for line in after if line.startswith("Stock round ")]
    assert len(stock_rounds) <= 1


@pytest.mark.parametrize("options,seed", [((BUNDLES, RSR_EXPORTS, SIX_TRAIN_END), 11), ((EXPORTS, SIX_TRAIN_END), 1)],
                         ids=["short", "exports-six-train-end"])
@pytest.mark.slow
def test_an_exported_first_6_train_ends_the_short_game_as_a_bought_one(options: tuple[str, ...], seed: int) -> None:
    """§15.3 with §15.2 or §14's exports: the RSR's export of the first 6-train at the end
    of a set starts phase 6 as a purchase would, and ends the game after two more
    operating rounds with a stock round between (as 1867's exported first 8-train ends
    its game, 12.1). Here the 5-trains left the yard before the set's last round."""
    game = _game(*options, seed=seed)
    state = game.state
    _play_until(game, lambda g: g.state.phase == "5" and g.round_name == "Operating" and g.state.round.number == 2,
                seed=seed)
    number = state.round_number
    state.depot.upcoming = [t for t in state.depot.upcoming if t.name != "5"]
    start = len(state.log)
    while state.round_number == number and not state.finished:  # nobody buys what it need not
        moves = legal_actions(game)
        bought = [m for m in moves if isinstance(m, BuyTrain)]  # a trainless company: the cheapest
        cheapest = min(bought, key=lambda m: m.price, default=moves[0])
        game.apply(next((m for m in moves if isinstance(m, Pass)), cheapest))
    log = state.log[start:]
    export = log.index("RSR exports a 6-train")
    assert log[export + 1].startswith("Phase 6 begins")
    assert "The first 6-train: two more operating rounds after this one, then the game ends (§15.3)" in log
    assert state.game_ends_after == (number + 1, 2)
    _play_until(game, lambda g: g.state.finished)
    after = state.log[start + export:]
    rounds = [line for line in after if line.startswith(("Operating round ", "Stock round "))]
    full = [f"Stock round {number + 1}", f"Operating round {number + 1}.1", f"Operating round {number + 1}.2"]
    if state.end_reason == "bank":  # the bank broke first: the game ended no later (12.1)
        assert rounds == full[: len(rounds)] and "The bank has broken" in after
    else:
        assert rounds == full and state.end_reason == "first_6_train"
    assert state.round_number == number + 1


def test_the_short_game_end_cannot_be_played_with_the_long_game() -> None:
    """N6 (decided): §14's long game "Ignore the game end triggers based on the 8-train's
    purchase and continue until the bank breaks" and §15.3's first 6-train end say when the
    game ends two ways; §15's "any combination" is of its own three rules. So
    `six-train-end`, and `short` with it, is refused with `long-game`."""
    for words in (["long-game", "six-train-end"], ["short", "long-game"]):
        with pytest.raises(InvalidAction, match=r"Long game \(§14\) cannot be played with 1861 short: game end"):
            parse_setup(words)
    parse_setup(["long-game", "bundles", "rsr-exports"])  # the other two §15 rules go with it
    with pytest.raises(InvalidAction, match="cannot be played with"):
        Game.new(PLAYERS3, seed=1, rules=Rules.rulebook(options=[EXPORTS, RSR_EXPORTS]))


def _through_a_phase_4_operating_round(game: Game) -> None:
    """From the first operating round: phase 4 begins (2-trains rust), and the round is
    played to its end with every company passing what it may."""
    _play_until(game, lambda g: g.round_name == "Operating")
    trains.change_phase(game.ctx, game.state, "4")
    number = game.state.round.number
    while game.round_name == "Operating" and game.state.round.number == number:
        moves = legal_actions(game)
        game.apply(next((m for m in moves if isinstance(m, Pass)), moves[0]))


@pytest.mark.parametrize("options,after_phase_4", [((), {"E1"}), ((EXPORTS,), set()), ((RSR_EXPORTS,), set())])
def test_the_rsr_tokens_st_petersburg_when_it_first_operates_or_at_phase_8(
        options: tuple[str, ...], after_phase_4: set[str]) -> None:
    """N3 (decided): 8.13 places the RSR's St Petersburg token "During its first
    operation"; under §14's or §15.2's exports the RSR never operates ("Instead of running
    the Russian State Railway ... export"), so E1 stays reserved for it through phases 4–7.
    At phase 8 the RSR "places any reserved station tokens" (phase table, 11): Moscow, and
    St Petersburg if it is still reserved."""
    game = _game(*options)
    state = game.state
    _through_a_phase_4_operating_round(game)
    rsr = state.companies["RSR"]
    assert {t.hex for t in rsr.tokens if t.hex} == after_phase_4
    assert (state.map.reservations.get(("E1", 1)) == "RSR") == (not after_phase_4)
    trains.change_phase(game.ctx, state, "8")
    assert {"E1", "H8"} <= {t.hex for t in rsr.tokens if t.hex}
    assert "RSR" not in state.map.reservations.values()


@pytest.mark.parametrize("options,rsr_keeps", [((EXPORTS,), True), ((RSR_EXPORTS,), False)])
def test_the_exporting_rsr_keeps_a_treasury_only_under_the_1861_train_exports(
        options: tuple[str, ...], rsr_keeps: bool) -> None:
    """N4 (decided): §14's train exports change only how the RSR advances the game; its
    charter still takes a nationalized company's money (10.1E) and its privates' income
    (8.12), which it never spends. Only §15.2 says "The Russian State Railway has no
    treasury and no loans"."""
    game = _game(*options)
    state = game.state
    _play_until(game, lambda g: g.round_name == "Operating")
    minor = next(s for s, c in state.companies.items() if c.is_minor and c.floated and c.cash)
    cash = state.companies[minor].cash
    nationalization.nationalize(game.ctx, state, minor)
    assert state.companies["RSR"].cash == (cash if rsr_keeps else 0)
    assert (f"RSR has no treasury: {cash} goes to the bank (§15.2)" in state.log) == (not rsr_keeps)
    assert game.ctx.title.national_keeps_money(game.ctx) == rsr_keeps


def test_starting_bundles_sell_one_to_each_player_in_the_first_stock_round() -> None:
    game = _game(BUNDLES)
    state = game.state
    assert game.round_name == "Bundles" and game.actor() == "a"  # the priority deal nominates
    refused(game, Pass("a"), "must nominate one")
    refused(game, Bid("a", "1", 390), "lowest bid is 395")
    refused(game, Bid("a", "4", 395), "no bundle 4")
    play(game, Bid("a", "1", 395), Bid("b", "1", 400), Pass("c"), Pass("a"))  # Boris buys bundle 1
    boris = state.player("b")
    assert boris.cash == 420 - 400 + 10 and boris.privates == ["TSR", "WVR"]  # bonus cash 10
    assert {c.company for c in boris.certs} == {"N", "KB"}
    cells = {c.price for c in game.ctx.board.market_cells("grid") if c.can_start_minor}
    for sym, treasury in (("N", 165), ("KB", 100)):
        assert state.companies[sym].cash == treasury and state.companies[sym].floated
        assert game.ctx.board.market_cell("grid", *state.companies[sym].market).price == max(
            p for p in cells if p <= treasury // 2)
    assert game.actor() == "c"  # left of the winner; Boris takes no further part
    refused(game, Bid("b", "2", 395), "Clara's turn")
    play(game, Bid("c", "3", 395), Pass("a"))
    assert game.actor() == "a"
    play(game, Bid("a", "2", 395))  # the last one without a bundle buys the last bundle
    assert game.round_name == "Operating" and state.round_number == 1
    assert state.priority == 1  # left of the last winner (Anna)
    assert all(owner is not None for owner in state.private_owner.values())
    assert state.bank + sum(p.cash for p in state.players) + sum(c.cash for c in state.companies.values()) == 15000


PLAYERS4 = [("a", "Anna"), ("b", "Boris"), ("c", "Clara"), ("d", "Dmitri")]


def _bundles_sold(*options: str) -> Game:
    """A 4-player game whose starting bundles went one to each player at the minimum bid
    (15.1.2), Anna's the first."""
    game = _game(*options, players=PLAYERS4)
    play(game, Bid("a", "1", 275), Pass("b"), Pass("c"), Pass("d"), Bid("b", "2", 275), Pass("c"), Pass("d"),
         Bid("c", "3", 275), Pass("d"), Bid("d", "4", 275))
    return game


def test_bundle_minors_take_their_home_cities_and_run_from_them() -> None:
    """15.1 replaces only the auction: each bundle minor takes its reserved city (7.2.1)
    as a minor won at auction does, so N runs Moscow–St Petersburg for 80 in OR 1.2
    (the Dutch walkthrough's first run)."""
    game = _bundles_sold(BUNDLES)
    ctx, state = game.ctx, game.state
    assert game.round_name == "Operating"
    for sym in ("N", "SPW", "RO", "M-K", "KR", "MNN"):
        corp = ctx.board.corporations[sym]
        assert [(t.hex, t.city) for t in state.companies[sym].tokens] == [(corp.home, corp.home_city)]
        assert sym in state.map.tokens[(corp.home, corp.home_city)]
        assert sym not in state.map.reservations.values()
    play(game, BuyTrain("N", "2-0", 100))
    while not (state.round.number == 2 and game.actor() == "N"):  # the others buy a 2-train each
        moves = legal_actions(game)
        game.apply(next((m for m in moves if isinstance(m, Pass)), moves[0]))
    start = len(state.log)
    play(game, *legal_actions(game))  # the run: the best route
    assert state.log[start:] == ["N runs for 80", "N earns 80: 40 to its owner, 40 kept", "N share price 70 → 80"]


def test_the_table_shows_the_bundles_privates_and_no_minor_auction_while_they_sell() -> None:
    """15.1 on the table: a private of an unsold bundle reads "in bundle 1", marked while
    that bundle is up for auction; the bundles' minors are not open to auction then."""
    from engine.view import turn_view
    from render.table import _privates, _status

    game = _game(BUNDLES)
    ctx, state = game.ctx, game.state
    owners = {row.cells[0].text: row.cells[-1].text for row in _privates(ctx, state, turn_view(game))[1]}
    assert owners["TSR"] == "in bundle 1"
    assert _status(ctx, state, "N", turn_view(game).minor_auctions_open) == "unstarted"
    play(game, Bid("a", "1", 395))
    owners = {row.cells[0].text: row.cells[-1].text for row in _privates(ctx, state, turn_view(game))[1]}
    assert owners["TSR"] == "in bundle 1 (up for auction)"


def test_two_player_short_game_auctions_the_3_player_bundles_and_drops_the_unbought_privates() -> None:
    """16.3: 1861S two-player short: bundles of the 3-player game, the RSR exports and the
    first 6-train ends the game ("short" chooses all three)."""
    two = [("a", "Anna"), ("b", "Boris")]
    game = Game.new(two, seed=1, rules=parse_setup(["1861", "short"]).rules(), first_player=0)
    assert game.ctx.rules.options == {BUNDLES, RSR_EXPORTS, SIX_TRAIN_END}
    state = game.state
    assert len(state.private_owner) == 5  # no random removal: the bundles decide (16.3)
    play(game, Bid("a", "3", 395), Pass("b"), Bid("b", "1", 395))
    assert game.round_name == "Operating"
    assert set(state.private_owner) == {"TSR", "WVR", "BSS"}  # bundle 2's MYR and MRR are out of play
    assert not state.companies["MNN"].floated and not state.companies["SPW"].floated  # for later stock rounds
    assert sum(1 for t in state.depot.upcoming if t.name == "2") == 7  # 16.1.1 still applies


def test_bundles_are_for_three_to_five_players_or_two() -> None:
    six = [(f"p{i}", f"P{i}") for i in range(6)]
    with pytest.raises(EngineError, match="3 to 5 players, or two in 1861S"):
        Game.new(six, seed=1, rules=Rules.rulebook(options=[BUNDLES]))


# --- §16 two players --------------------------------------------------------------------


def test_two_players_set_up_1861s_in_1861_and_1867_only_for_an_import() -> None:
    two = [("a", "Anna"), ("b", "Boris")]
    russia = Game.new(two, seed=11, title="1861")
    assert [p.cash for p in russia.state.players] == [420, 420] and len(russia.state.private_owner) == 3
    with pytest.raises(EngineError, match="two-player game .* is 1861's"):
        Game.new(two, seed=11, title="1867")
    imported = Game.new(two, seed=11, title="1867", rules=Rules.site(market="column"))
    assert len(imported.state.private_owner) == 3


# --- at the table ------------------------------------------------------------------------


async def test_new_with_options_at_the_console_is_stored_shown_and_listed(store: SqliteEventStore) -> None:
    out: list[str] = []
    console = Console(TroikaService(store, pictures=False), Path("unused"), out.append)
    await console.line("new Anna Boris Clara 1867 no-floor left-of-auctioneer")
    assert "(column market; No stock price floor (§14); Left of auctioneer (§14))" in out[0]
    record = await store.active_game_in_channel(CHANNEL)
    assert record is not None
    assert Rules.from_dict(record.options).options == {NO_FLOOR, LEFT_OF_AUCTIONEER}
    out.clear()
    await console.line("status")
    assert "Options: No stock price floor (§14) · Left of auctioneer (§14)" in "\n".join(out)
    out.clear()
    await console.line("options")
    listed = "\n".join(out)
    assert "`no-floor`" in listed and "✓ (this game)" in listed and "exports" not in listed
    out.clear()
    await console.line("options 1861")
    assert "Instead of running the Russian State Railway" in "\n".join(out)


async def test_a_refused_setup_says_why(store: SqliteEventStore) -> None:
    out: list[str] = []
    console = Console(TroikaService(store, pictures=False), Path("unused"), out.append)
    await console.line("new Anna Boris Clara 1867 exports")
    assert "exports is an option of 1861, not of 1867" in out[-1]
    await console.line("new Anna Boris 1867")
    assert "two-player game (16) is 1861's" in out[-1]
    assert await store.active_game_in_channel(CHANNEL) is None


def test_slash_new_suggests_the_titles_options_after_what_is_typed() -> None:
    assert "long-game" in option_suggestions("1867", "")
    assert option_suggestions("1867", "no-floor lo") == ["no-floor long-game"]
    assert option_suggestions("1867", "no-floor ") == [
        "no-floor limited-special-trains", "no-floor long-game", "no-floor left-of-auctioneer"]
    assert "exports" not in " ".join(option_suggestions("1867", ""))
    assert "exports" in option_suggestions("1861", "")
