"""Reading commands: verbs, the actions they stand for, routes by their stops."""

from __future__ import annotations

from itertools import islice

import pytest

from bot.commands import parse_action, split
from bot.errors import Refusal
from bot.posts import help_text
from engine import consent_needed
from engine.actions import BuyPrivate, BuyTrain, Dividend, LayTile, Merge, PlaceToken, RunRoutes
from engine.errors import EngineError
from engine.game import Game
from engine.importer import actions_of, read_log
from engine.notation import command
from tests.conftest import shared_game


def position(before: int) -> Game:
    """1861-29683 just before its action number ``before`` (counting auto actions)."""
    log, _ = shared_game("1861-29683")
    game, logged = read_log(log)
    actions = (a for entry in logged for a in actions_of(lambda: game.state, entry))
    for action in islice(actions, before):
        game.apply(action, check=False)
    return game


def test_verbs_aliases_and_typos() -> None:
    assert split("BID tsr 25") == ("bid", "tsr 25")
    assert split("!pay") == ("payout", "")
    assert split("dividend half") == ("half", "")
    assert split("choose nationalize") == ("nationalize", "")
    with pytest.raises(Refusal, match=r"I don't know `trian`\. Did you mean `train`\?"):
        split("trian 3")
    with pytest.raises(Refusal, match="payout"):
        split("dividend")


def test_help_lists_every_command_and_explains_one() -> None:
    assert "**Your move**: `bid`, `auction`, `pass`" in help_text("")
    assert help_text("run").startswith("`run [TRAIN: HEX-HEX-...; ...] [= REVENUE]`")
    assert "I don't know" in help_text("frobnicate")


def test_runs_are_written_by_their_stops() -> None:
    game = position(82)  # N runs its 2-train
    parsed = parse_action(game, "run", "2-0: H8-G5-E1")
    assert isinstance(parsed.action, RunRoutes) and parsed.action.revenue is None
    assert parsed.detail == "2-0 H8-(G5)-E1 (H8 40 + E1 40 = 80) — stops in brackets are passed but not counted"
    assert parse_action(game, "run", "H8-G5-E1 = 80").action.revenue == 80  # train left out
    assert parse_action(game, "run", "").detail.startswith("2-0 E1-(G5)-H8 (E1 40 + H8 40 = 80)")  # the best
    with pytest.raises(Refusal, match="no track runs from H8 to E1 without passing another stop"):
        parse_action(game, "run", "2-0: H8-E1")
    with pytest.raises(Refusal, match="these routes earn 80, not 90"):
        parse_action(game, "run", "2-0: H8-G5-E1 = 90")
    with pytest.raises(Refusal, match="N has no train 3"):
        parse_action(game, "run", "3: H8-G5-E1")


def test_what_a_player_leaves_out_is_filled_in() -> None:
    game = position(421)  # GRR may place a token (it goes to I13, a one-city hex)
    assert game.state.round.step == "token"
    assert parse_action(game, "token", "I13").action == PlaceToken("GRR", "I13", 0)
    moscow = parse_action(game, "token", "H8").action  # no open city there: the engine says why
    with pytest.raises(EngineError, match=r"GRR cannot token H8 city 0: .*; it may token .*I13 city 0 \(₽\d+\)"):
        game.apply(moscow)
    tracks = position(63)  # SPW lays tile 4 on B8
    action = tracks.actor()
    assert parse_action(tracks, "lay", "b8 4 1").action == LayTile(action or "", "B8", "4", 1)
    try:
        assert parse_action(tracks, "lay", "B8 4").action == LayTile(action or "", "B8", "4", 1)
    except Refusal as exc:  # several rotations fit: they are listed
        assert "rotations" in str(exc) and "1" in str(exc)
    with pytest.raises(Refusal, match="There is no tile 99"):
        parse_action(tracks, "lay", "B8 99 1")
    with pytest.raises(Refusal, match="A rotation is 0 to 5, not 7"):  # not taken as 1
        parse_action(tracks, "lay", "B8 4 7")


def test_train_purchases_and_the_consent_they_need() -> None:
    game = position(57)  # M-K (Player 2) buys trains; N (Player 3) owns 2-0
    assert parse_action(game, "train", "2").action == BuyTrain("M-K", "2-1", 100)
    assert parse_action(game, "train", "2-0 from n 60").action == BuyTrain("M-K", "2-0", 60)
    with pytest.raises(Refusal, match="Say the price"):
        parse_action(game, "train", "2 from N")
    assert consent_needed(game, BuyTrain("M-K", "2-0", 60)) == "3058"
    assert consent_needed(game, BuyTrain("M-K", "2-1", 100)) is None
    assert command(game, BuyTrain("M-K", "2-1", 100)) == "train 2"


def test_deals_with_another_players_private_or_minor_need_their_consent() -> None:
    game = position(254)  # SPW (Player 3) buys WVR from its own president
    assert consent_needed(game, BuyPrivate("SPW", "WVR", 90)) is None
    assert game.state.private_owner["TSR"] == "4138"
    assert consent_needed(game, BuyPrivate("SPW", "TSR", 30)) == "4138"  # Player 2's private
    merger = position(285)  # MB (Player 3) merges with N, also Player 3's
    assert consent_needed(merger, Merge("MB", "N")) is None
    assert consent_needed(merger, Merge("MB", "KR")) == "5522"  # Player 1's minor
    assert consent_needed(merger, Merge("MB", "NW")) is None  # choosing the major


def test_actions_read_back_from_their_text() -> None:
    game = position(82)
    run = parse_action(game, "run", "2-0: H8-G5-E1").action
    assert command(None, run) == "run 2-0: H8-G5-E1"
    assert parse_action(game, "run", command(None, run)[4:]).action == run
    assert command(None, Dividend("NW", "half")) == "half"


def test_a_trade_in_is_typed_as_train_8_trade_and_read_back() -> None:
    """8.11 (1867): the command for a logged trade-in buys the same train, same price."""
    from engine.actions import BuyTrain
    from tests.conftest import before_first_trade_in

    game, trade = before_first_trade_in()
    action = BuyTrain(trade["entity"], trade["train"], trade["price"], trade["exchange"])
    text = command(game, action)
    assert text.startswith("train 8 trade ")
    verb, _, rest = text.partition(" ")
    assert game.actor() == trade["entity"]
    assert parse_action(game, verb, rest).action == action


def test_a_typed_run_is_priced_once_while_read_and_once_when_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.posts
    import engine.route_notation
    import engine.routes

    game = position(82)  # a minor's 2-train, one way from H8 to E1
    priced: list[int] = []
    check = engine.routes.check_routes

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        priced.append(1)
        return check(*args, **kwargs)

    for module in (engine.route_notation, bot.posts, engine.routes):
        monkeypatch.setattr(module, "check_routes", counted)
    parsed = parse_action(game, "run", "2-0: H8-G5-E1")
    payload = bot.posts.routes_payload(game, parsed.action, parsed.routes)
    assert len(priced) == 1 and payload is not None
    assert payload["trains"][0]["revenue"] == parsed.routes[0].revenue
    game.apply(parsed.action)
    assert len(priced) == 2  # the engine checks what it applies


def test_tiles_says_what_the_second_track_action_may_be() -> None:
    """8.6: after a yellow lay the extra action may upgrade (green tiles listed); after
    an upgrade it lays yellow only (1861-29683, RO in OR 3.1)."""
    from bot.track_help import tiles_text
    from engine.rules import Rules
    from tests.conftest import replayed

    game = replayed("1861-29683", 229, Rules.rulebook())
    game.apply(LayTile("RO", "D6", "9", 2))
    text = tiles_text(game)
    assert "(its second action, 20 more):" in text and "B6: 23" in text
    game = replayed("1861-29683", 229, Rules.rulebook())
    game.apply(LayTile("RO", "B6", "23", 2))
    text = tiles_text(game)
    assert "yellow only" in text and "B8" not in text and "D6: 7" in text


def test_the_run_offered_is_written_run_best_and_reads_back_as_the_best_routes() -> None:
    from engine.actions import RunBest
    from engine.legal import legal_actions
    from engine.route_search import best_routes
    from engine.routes import to_route

    game = position(82)
    offered = legal_actions(game)
    assert offered == [RunBest(game.actor() or "")]
    assert command(game, offered[0]) == command(None, offered[0]) == "run best"
    best = best_routes(game.ctx, game.state, game.state.companies[game.actor() or ""])
    assert parse_action(game, "run", "best").action == RunRoutes(game.actor() or "", tuple(to_route(r) for r in best))
