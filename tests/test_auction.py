"""The private auction (rulebook 5) under the rulebook and the 18xx.games switches."""

from __future__ import annotations

from engine.actions import Bid, Pass
from engine.game import Game
from engine.rules import Rules
from tests.conftest import PLAYERS3, new_game, play, refused


def test_highest_bidder_wins_and_the_next_private_opens_left_of_the_winner() -> None:
    game = new_game()
    play(game, Bid("a", "TSR", 20), Bid("b", "TSR", 25), Pass("c"), Pass("a"))
    state = game.state
    assert state.private_owner["TSR"] == "b"
    assert state.player("b").cash == 420 - 25
    assert state.bank == 15000 - 3 * 420 + 25
    assert game.actor() == "c"  # left of Boris opens BSS
    assert state.round.private == "BSS"


def test_bids_must_rise_by_multiples_of_five_within_the_bidders_cash() -> None:
    game = new_game()
    refused(game, Bid("a", "TSR", 15), "lowest bid on TSR is 20")
    refused(game, Bid("a", "TSR", 22), "multiples of 5")
    refused(game, Bid("a", "TSR", 425), "has only 420")
    refused(game, Bid("b", "TSR", 20), "Anna's turn")
    refused(game, Bid("a", "BSS", 30), "TSR is up for auction")
    play(game, Bid("a", "TSR", 20))
    refused(game, Bid("b", "TSR", 20), "lowest bid on TSR is 25")


def test_rulebook_a_decline_is_final_and_all_declining_lowers_the_minimum() -> None:
    game = new_game()
    play(game, Pass("a"), Bid("b", "TSR", 20))
    play(game, Pass("c"))  # only Boris is left in: he wins
    assert game.state.private_owner["TSR"] == "b"


def test_site_a_decliner_may_bid_after_someone_opens() -> None:
    game = Game.new(PLAYERS3, seed=1, rules=Rules.site(), first_player=0)
    play(game, Pass("a"), Bid("b", "TSR", 20), Pass("c"))
    assert game.actor() == "a"  # Anna declined to open but may still bid
    play(game, Bid("a", "TSR", 25), Pass("b"))
    assert game.state.private_owner["TSR"] == "a"


def test_rulebook_reduced_private_is_auctioned_normally() -> None:
    game = new_game()
    play(game, Pass("a"), Pass("b"), Pass("c"))
    assert game.state.round.minimum == 15
    play(game, Bid("a", "TSR", 15))
    assert game.actor() == "b"  # others may still raise
    play(game, Bid("b", "TSR", 20), Pass("c"), Pass("a"))
    assert game.state.private_owner["TSR"] == "b"


def test_site_reduced_private_goes_to_the_first_taker() -> None:
    game = Game.new(PLAYERS3, seed=1, rules=Rules.site(), first_player=0)
    play(game, Pass("a"), Pass("b"), Pass("c"))
    play(game, Pass("a"), Bid("b", "TSR", 15))
    assert game.state.private_owner["TSR"] == "b"
    assert game.state.player("b").cash == 405


def test_a_private_nobody_wants_goes_free_to_the_first_player_at_zero() -> None:
    game = new_game()
    for _ in range(4):  # 20 -> 15 -> 10 -> 5 -> 0
        play(game, Pass("a"), Pass("b"), Pass("c"))
    assert game.state.private_owner["TSR"] == "a"
    assert game.state.player("a").cash == 420


def test_after_the_last_private_the_player_left_of_the_last_winner_has_priority() -> None:
    game = new_game()
    play(game, Bid("a", "TSR", 20), Pass("b"), Pass("c"))  # Anna; Boris opens next
    play(game, Bid("b", "BSS", 30), Pass("c"), Pass("a"))  # Boris; Clara opens
    play(game, Bid("c", "MYR", 40), Pass("a"), Pass("b"))  # Clara; Anna opens
    play(game, Bid("a", "MRR", 50), Pass("b"), Pass("c"))  # Anna; Boris opens
    play(game, Bid("b", "WVR", 60), Pass("c"), Pass("a"))  # Boris wins the last
    assert game.round_name == "Stock"
    assert game.state.priority == 2
    assert game.actor() == "c"
