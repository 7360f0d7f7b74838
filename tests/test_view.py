"""The public view of a game's round and step, read by the console, posts and pictures."""

from __future__ import annotations

from engine.actions import Bid
from engine.game import Game
from engine.view import turn_view
from tests.conftest import PLAYERS3, play, shared_game


def test_the_view_follows_a_real_game_from_auction_to_operating_rounds() -> None:
    from engine.replay import replay

    log, _ = shared_game("1861-29683")
    seen = set()
    for until in (1, 45, 58, 200, 460):
        view = turn_view(replay(log, None, until=until).game)
        seen.add(view.round_kind)
        assert view.round_title and view.doing and view.actor
    assert {"Auction", "Stock", "Operating"} <= seen


def test_a_minor_nominated_in_1867_places_its_home_token_first() -> None:
    game = Game.new(PLAYERS3, 1, title="1867", first_player=0)
    view = turn_view(game)
    assert view.round_title == "Private auction" and view.up_for_auction == "C&SL"
    game.state.round = None
    from engine import stock_round

    stock_round.start(game.ctx, game.state)
    actor = game.actor()
    play(game, Bid(actor, "BO", 100))
    view = turn_view(game)
    assert view.placing_token and view.actor == "BO" and view.round_title.startswith("Stock round")


def test_a_finished_game_reads_game_over() -> None:
    log, _ = shared_game("1861-29683")
    from engine.replay import replay

    view = turn_view(replay(log, None).game)
    assert view.round_title == "Game over" and view.actor is None
