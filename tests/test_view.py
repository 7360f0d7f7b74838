"""The public view of a game's round and step, read by the console, posts and pictures."""

from __future__ import annotations

import pytest

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


def test_the_view_tells_the_auction_the_track_lays_and_the_operating_round_at_every_move() -> None:
    """At every position of a real game of each title the view agrees with the round
    (read here, where the tests may look inside): the auction's item, high bid, bidder
    and lowest bid, the company's lays this turn, whether companies operate."""
    from engine.auction import AuctionRound
    from engine.operating import OperatingRound
    from engine.replay import replay
    from engine.stock_round import StockRound

    seen: set[str] = set()

    def check(game: Game, _action: object) -> None:
        view, rnd = turn_view(game), game.state.round
        assert view.operating == isinstance(rnd, OperatingRound)
        if isinstance(rnd, OperatingRound) and rnd.step == "track" and view.doing == "lays track":
            assert view.track == (tuple(rnd.lays), rnd.upgraded, game.ctx.board.lay_costs[len(rnd.lays)])
            assert view.track.next_lay_cost == (20 if rnd.lays else 0)  # 8.6: the second lay costs 20
            seen.add("second lay" if rnd.lays else "track")
        else:
            assert view.track is None
        if isinstance(rnd, AuctionRound):
            bidder = None if rnd.high_bidder is None else game.state.players[rnd.high_bidder].id
            assert view.auction == ("private", rnd.private, rnd.high_bid, bidder, rnd.lowest_bid())
            seen.add("private bid" if bidder else "private")
        elif isinstance(rnd, StockRound) and rnd.auction and not rnd.home_token:
            a = rnd.auction
            assert view.auction == ("minor", a.minor, a.high_bid, game.state.players[a.high_bidder].id, a.high_bid + 5)
            seen.add("minor")
        else:
            assert view.auction is None

    for name in ("1861-29683", "1867-21268"):
        log, _ = shared_game(name)
        replay(log, None, before=check)
    assert seen == {"track", "second lay", "private", "private bid", "minor"}


def test_the_short_game_s_bundles_note_the_privates_they_hold() -> None:
    from engine.rules import Rules

    game = Game.new(PLAYERS3, 3, Rules.rulebook(options=frozenset({"bundles"})), first_player=0)
    view = turn_view(game)
    assert view.round_kind == "Bundles" and not view.minor_auctions_open
    notes = dict(view.private_notes)
    assert set(notes) == {"TSR", "WVR", "MYR", "MRR", "BSS"} and all("bundle" in n for n in notes.values())


def test_check_refuses_as_apply_would_and_changes_nothing() -> None:
    from engine.errors import EngineError

    game = Game.new(PLAYERS3, 1, first_player=0)
    before = game.dump()
    with pytest.raises(EngineError, match="Boris's turn|Anna's turn"):
        game.check(Bid("b", "TSR", 20))  # not Boris's turn
    game.check(Bid("a", "TSR", 20))  # would be accepted
    assert game.dump() == before


def test_bot_and_render_read_rounds_only_through_the_view() -> None:
    """The console, Discord and pictures never look inside the round in progress."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    peeks = re.compile(r"state\.round\b|round_name\s*[!=]=")
    found = [f"{path.relative_to(root)}:{n}" for folder in ("bot", "render") for path in (root / folder).rglob("*.py")
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if peeks.search(line)]
    assert found == []
