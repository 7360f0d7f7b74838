"""The stock round (rulebook 7): restrictions, minor auctions, selling, presidency."""

from __future__ import annotations

import pytest

from engine import market
from engine.actions import Bid, BuyShare, Par, Pass, PlaceToken, SellShares
from engine.game import Game
from engine.legal import legal_actions
from engine.replay import replay
from engine.rules import Rules
from engine.tokens import put_token
from tests.conftest import new_game, play, refused, replayed, shared_game


def _after_auction(**options) -> Game:
    game = new_game(**options)
    play(game, Bid("a", "TSR", 20), Pass("b"), Pass("c"))
    play(game, Bid("b", "BSS", 30), Pass("c"), Pass("a"))
    play(game, Bid("c", "MYR", 40), Pass("a"), Pass("b"))
    play(game, Bid("a", "MRR", 50), Pass("b"), Pass("c"))
    play(game, Bid("b", "WVR", 60), Pass("c"), Pass("a"))
    assert game.round_name == "Stock" and game.actor() == "c"
    return game


def _real_stock_round(rules: Rules | None = None) -> Game:
    """1861-29683 at the start of stock round 4 (phase 4): NW and GRR have operated,
    MKN has not; Player 1 (id 5522) is first with 1 in cash."""
    log, _ = shared_game("1861-29683")
    game = replay(log, None, until=408).game
    if rules is not None:
        game.ctx.rules = rules
    assert game.round_name == "Stock" and game.actor() == "5522"
    return game


def test_the_nikolaev_must_be_auctioned_first() -> None:
    game = _after_auction()
    refused(game, Bid("c", "KB", 100), "Nikolaev")
    play(game, Bid("c", "N", 100))
    assert game.actor() == "a"


@pytest.mark.parametrize("rules", ["rulebook", "live", "log"])
def test_any_minor_may_be_auctioned_first_only_in_a_log_of_18xx_games(rules: str) -> None:
    """7.2.1: the Nikolaev first. RN 4.2: the site's engine accepts any minor first (its
    page alone asks for the Nikolaev), so an imported log plays by that, while a game
    played live by the site's rules (`new ... site`) keeps the page's check."""
    game = _after_auction()
    game.ctx.rules = {"rulebook": Rules.rulebook(), "live": Rules.site(live=True), "log": Rules.site()}[rules]
    offered = {a.target for a in legal_actions(game) if isinstance(a, Bid)}
    if rules == "log":
        assert {"N", "KB", "RO"} <= offered
        play(game, Bid("c", "KB", 100))
        assert game.state.round.auction is not None
    else:
        assert offered == {"N"}
        refused(game, Bid("c", "KB", 100), "must be the first minor")


def test_minor_auction_winner_pays_the_treasury_and_gets_half_the_bid_as_price() -> None:
    game = _after_auction()
    play(game, Bid("c", "N", 100), Bid("a", "N", 115), Pass("b"), Pass("c"))
    n = game.state.companies["N"]
    assert game.state.president("N").id == "a"
    assert n.cash == 115
    assert market.price(game.ctx, game.state, "N") == 55
    assert game.state.map.tokens[("H8", 1)] == ["N"]  # its reserved Moscow city
    assert game.actor() == "b"  # left of the winner, not of the nominator


def test_minor_bids_start_at_100_in_fives() -> None:
    game = _after_auction()
    refused(game, Bid("c", "N", 95), "lowest bid is 100")
    refused(game, Bid("c", "N", 102), "multiples of 5")
    refused(game, Bid("c", "MB", 100), "must be the first minor")  # 7.2.1: the Nikolaev before any other


def test_players_who_cannot_act_pass_automatically_and_all_passing_ends_the_round() -> None:
    game = _after_auction()
    log = game.apply(Pass("c")) + game.apply(Pass("a")) + game.apply(Pass("b"))
    assert "Operating round 1.1" in log  # no company yet: the operating rounds are empty
    assert game.round_name == "Stock" and game.state.round_number == 2
    assert game.state.priority == 2  # nobody acted: priority stays


def test_shares_of_a_major_that_has_not_operated_cannot_be_sold() -> None:
    game = _real_stock_round()
    refused(game, SellShares("5522", "MKN", 1), "has not operated")


def test_no_player_may_own_more_than_60_percent() -> None:
    game = _real_stock_round()
    play(game, Pass("5522"))
    play(game, BuyShare("4138", "GRR", "treasury"))  # Player 2: 30% -> 40%
    play(game, Pass("3058"))
    refused(game, BuyShare("5522", "MKN", "treasury"), "more than 60%")


def test_a_player_may_not_buy_back_what_they_sold_this_round() -> None:
    game = _real_stock_round()
    play(game, SellShares("5522", "GRR", 1))
    refused(game, BuyShare("5522", "GRR", "pool"), "may not buy it back")


def test_selling_puts_shares_in_the_pool_at_the_current_price() -> None:
    game = _real_stock_round()
    before = game.state.player("5522").cash
    play(game, SellShares("5522", "GRR", 1))
    assert game.state.player("5522").cash == before + 150
    assert game.state.pool_percent("GRR") == 10
    assert market.price(game.ctx, game.state, "GRR") == 150  # not the president: no drop


def _president_with_50_percent(game: Game) -> None:
    """Player 2 buys two more GRR shares (50%) so two separate sales are legal."""
    grr = game.state.companies["GRR"]
    game.state.player("4138").certs += [grr.treasury.pop(), grr.treasury.pop()]


def test_a_presidents_sale_drops_the_price_once_per_turn_by_the_rulebook() -> None:
    game = _real_stock_round(Rules.rulebook())
    _president_with_50_percent(game)
    play(game, Pass("5522"))
    play(game, SellShares("4138", "GRR", 1), SellShares("4138", "GRR", 1))
    assert market.price(game.ctx, game.state, "GRR") == 135  # one space down only


def test_a_presidents_sale_drops_the_price_per_sale_on_18xx_games() -> None:
    game = _real_stock_round(Rules.site())
    _president_with_50_percent(game)
    play(game, Pass("5522"))
    play(game, SellShares("4138", "GRR", 1), SellShares("4138", "GRR", 1))
    assert market.price(game.ctx, game.state, "GRR") == 120  # two spaces down


def test_the_presidency_passes_to_a_bigger_holder() -> None:
    game = _real_stock_round()
    play(game, Pass("5522"))
    play(game, SellShares("4138", "GRR", 1))  # Player 2 20%, Player 1 10%
    assert game.state.president("GRR").id == "4138"
    assert game.state.pool_percent("GRR") == 10


def test_the_presidents_certificate_cannot_go_to_the_pool() -> None:
    game = _real_stock_round()
    play(game, Pass("5522"))
    refused(game, SellShares("4138", "GRR", 3), "another player holds 20%")


def test_majors_start_from_phase_four_with_a_home_in_an_unconnected_city() -> None:
    game = _real_stock_round()
    play(game, Pass("5522"))
    refused(game, Par("4138", "SE", 75), "not a starting price")
    refused(game, Par("4138", "NW", 100), "already started")
    play(game, Par("4138", "SE", 150))
    assert game.actor() == "SE"
    assert game.state.companies["SE"].cash == 300
    refused(game, PlaceToken("SE", "H8", 2), "home may be")


@pytest.mark.parametrize("kind", ["grid", "column"])
def test_sold_out_majors_rise_at_the_end_of_the_round(kind: str) -> None:
    game = _after_auction(market=kind)
    state = game.state
    state.phase = "3"
    company = state.companies["NW"]
    company.floated = True
    start = game.ctx.board.market_cell(kind, 3, 5) if kind == "grid" else game.ctx.board.market_cell(kind, 0, 11)
    market.place(state, "NW", start)
    state.player("a").certs += company.treasury[:5]
    state.player("b").certs += company.treasury[5:]
    company.treasury = []
    put_token(game.ctx, state, "NW", "L12", 0)  # so NW has a turn to wait for
    play(game, Pass("c"), Pass("a"), Pass("b"))
    assert game.round_name == "Operating" and game.actor() == "NW"
    assert market.price(game.ctx, state, "NW") == 120


def test_a_player_over_the_certificate_limit_must_sell_before_anything_else() -> None:
    game = _real_stock_round()
    player = game.state.player("5522")
    limit = game.ctx.board.cert_limit[3]
    player.certs += [game.state.companies["MKN"].treasury.pop() for _ in range(2)]
    player.privates += [f"X{i}" for i in range(limit - len(player.certs) - len(player.privates) + 1)]
    refused(game, Pass("5522"), "over the certificate limit of 21 and must sell")
    refused(game, BuyShare("5522", "GRR", "treasury"), "must sell")
    play(game, SellShares("5522", "GRR", 1))
    # Back at the limit with nothing else to sell, the turn ends by itself (7.1).
    assert game.actor() != "5522"


def test_a_minors_home_token_follows_its_reservation_after_an_upgrade() -> None:
    """RN 1.4, 2.2: KK's spot in Kiev is D14 city 2 on the printed map; green 635
    renumbers the cities, KK's reservation moves to city 1, and SE holds city 2 (S4002)."""
    game = replayed("1861-gen-P3-grid-S4002", 397)
    state = game.state
    assert state.map.reservations[("D14", 1)] == "KK"
    assert state.map.tokens[("D14", 2)] == ["SE"]
    play(game, Bid(game.actor(), "KK", 100))
    kk = state.companies["KK"]
    assert [(t.hex, t.city) for t in kk.placed_tokens] == [("D14", 1)]
    assert ("D14", 1) not in state.map.reservations


def test_a_turn_ends_after_a_sale_when_nothing_else_is_possible() -> None:
    """7.1: sell, then buy one certificate or pass. In S4005 (stock round 8) Player 4
    sells one GRR share with the bank pool then full (50%, 7.3.3); 71 in hand buys
    nothing else and no minor or major can start, so the turn ends by itself."""
    game = replayed("1861-gen-P6-grid-S4005", 890)
    state = game.state
    seller = state.player(game.actor())
    assert seller.name == "Player 4" and seller.cash == 11
    for player in state.players[:3]:  # their GRR shares go to the pool: it holds 40%
        cert = next(c for c in player.certs if c.company == "GRR")
        player.certs.remove(cert)
        state.pool.append(cert)
    grr = state.companies["GRR"]
    state.pool.append(grr.treasury.pop())
    assert state.pool_percent("GRR") == 40
    play(game, SellShares(seller.id, "GRR", 1))
    assert seller.cash == 71 and state.pool_percent("GRR") == 50
    assert game.actor() != seller.id


@pytest.mark.parametrize("name", ["1861-gen-P3-grid-S4002", "1867-gen-P4-grid-S5008"])
@pytest.mark.parametrize("rules", ["rulebook", "live", "log"])
def test_no_major_starts_while_no_city_is_open_for_its_home(name: str, rules: str) -> None:
    """7.4: a new major needs a city for its home. The site's engine accepts the par and
    then cannot go on (its home-token step has no city); its page refuses it, and so does
    Troika in every mode (the site's verdicts record it as such, README's Rules)."""
    game = replayed(name, {"1861-gen-P3-grid-S4002": 730, "1867-gen-P4-grid-S5008": 717}[name])
    market_name = game.ctx.rules.market
    game.ctx.rules = {"rulebook": Rules.rulebook(market=market_name), "live": Rules.site(market=market_name, live=True),
                      "log": Rules.site(market=market_name)}[rules]
    homes = game.ctx.title.major_home_cities(game.ctx, game.state)
    assert any(isinstance(a, Par) for a in legal_actions(game)) is bool(homes)
    if homes:  # 1867 by the rulebook: a connected city when no unconnected one is free (7.4)
        assert rules == "rulebook" and name.startswith("1867")
        return
    unstarted = next(s for s, c in game.state.companies.items() if c.is_major and not c.floated)
    refused(game, Par(game.actor() or "", unstarted, 100), "no city is open for a new major's home")
