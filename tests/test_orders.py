"""Standing orders (engine/orders.py): each order set, carried out when its player is
called, cancelled or run out as the issue says, on a 1867 game played by a fixed policy."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine import notation, orders, trains
from engine.actions import (
    Action,
    Bid,
    BuyTrain,
    Convert,
    DiscardTrain,
    Dividend,
    LayTile,
    Merge,
    Pass,
    PlaceToken,
    RunBest,
    RunRoutes,
    StandingOrder,
    action_from_dict,
)
from engine.errors import EngineError, IllegalAction
from engine.game import Game
from engine.legal import legal_actions
from engine.rules import Rules
from engine.trains import change_phase

PLAYERS = [("a", "Anna"), ("b", "Boris"), ("c", "Clara"), ("d", "Dmitri")]


def _rank(game: Game, action: Action) -> int:
    """A plain player: run, pay out, buy yard trains, lay, bid; pass in merger rounds."""
    if isinstance(action, (RunRoutes, DiscardTrain)) or (isinstance(action, Dividend) and action.choice == "payout"):
        return 0
    if isinstance(action, BuyTrain):
        return 1 if trains.find_train(game.ctx, game.state, action.train)[0] in ("yard", "pool") else 99
    if isinstance(action, (LayTile, PlaceToken)):
        return 2
    if isinstance(action, Bid):
        return 3
    return 5 if isinstance(action, Pass) else 99


def _move(game: Game) -> Action:
    options = legal_actions(game)
    if game.round_name == "Merger" and any(isinstance(a, Pass) for a in options):
        return next(a for a in options if isinstance(a, Pass))
    plain = [a for a in options if _rank(game, a) < 99]
    return min(plain, key=lambda a: _rank(game, a)) if plain else options[0]


def _no_auctions(game: Game) -> Action:
    """The plain player, who starts no minor and bids on none."""
    move = _move(game)
    return Pass(move.entity) if isinstance(move, Bid) and game.round_name == "Stock" else move


def _play_until(game: Game, done: Callable[[Game], bool], *, watch: Callable[[Game], None] = lambda g: None,
                move: Callable[[Game], Action] = _move) -> None:
    for _ in range(2000):
        if done(game):
            return
        game.apply(move(game))
        watch(game)
    raise AssertionError("the game never got there")


@pytest.fixture
def game() -> Game:
    """A 4-player 1867 game at the start of operating round 1.1."""
    game = Game.new(PLAYERS, 7, Rules.rulebook(market="column"), "1867", first_player=0)
    _play_until(game, lambda g: g.round_name == "Operating")
    return game


@pytest.fixture
def with_major(game: Game) -> tuple[Game, str]:
    """The game once a minor has converted into a major (a merger round)."""
    _play_until(game, lambda g: g.round_name == "Merger" and any(isinstance(a, Convert) for a in legal_actions(g)))
    game.apply(Convert(game.actor() or ""))
    major = next(a.target for a in legal_actions(game) if isinstance(a, Merge))
    game.apply(Merge(game.actor() or "", major))
    return game, major


def _anna_not_called_in(kind: str, player: str = "a") -> Callable[[Game], None]:
    def watch(game: Game) -> None:
        assert not (game.round_name == kind and game.acting_player() == player), game.state.log[-3:]
    return watch


def test_pass_stock_passes_for_the_player_whenever_called(game: Game) -> None:
    richest = max(game.state.players, key=lambda p: p.cash)
    game.apply(StandingOrder(richest.id, "pass_stock"))
    assert game.state.log[-1].startswith(f"{richest.name}'s standing order: pass in stock rounds (ends with ")
    _play_until(game, lambda g: g.state.round_number == 4, watch=_anna_not_called_in("Stock", richest.id))
    assert game.state.log.count(f"{richest.name}'s standing order: passes") >= 2
    assert [o.order for o in game.state.orders] == ["pass_stock"]  # until cancelled


def test_an_order_for_this_round_lasts_one_round_of_its_kind(game: Game) -> None:
    game.apply(StandingOrder("a", "pass_stock", until="round"))  # set in an OR: the next stock round
    _play_until(game, lambda g: g.round_name == "Stock", watch=_anna_not_called_in("Stock"))
    assert game.state.orders[0].round == "Stock 2"
    _play_until(game, lambda g: g.round_name != "Stock", watch=_anna_not_called_in("Stock"))
    assert game.state.orders == []
    assert "Anna's standing order to pass in stock rounds (Stock 2) is over with the round" in game.state.log
    _play_until(game, lambda g: g.round_name == "Stock" and g.acting_player() == "a")  # asked again


def test_pass_merger_until_a_phase_runs_out_when_it_begins(game: Game) -> None:
    with pytest.raises(IllegalAction, match="phase 2 is under way: name a later phase"):
        game.apply(StandingOrder("a", "pass_merger", until="phase 2"))
    game.apply(StandingOrder("a", "pass_merger", until="phase 4"))
    assert game.state.log[-1].startswith("Anna's standing order: pass in merger rounds until phase 4 (ends")
    change_phase(game.ctx, game.state, "4")
    game.apply(_move(game))
    assert game.state.orders == [] and "Anna's standing order to pass in merger rounds until phase 4 is over: " \
        "phase 4" in game.state.log


def test_pass_merger_passes_the_players_minors_and_ends_when_another_player_converts(game: Game) -> None:
    game.apply(StandingOrder("a", "pass_merger"))
    _play_until(game, lambda g: g.round_name == "Merger" and any(
        isinstance(a, Convert) for a in legal_actions(g)), watch=_anna_not_called_in("Merger"))
    game.apply(Convert(game.actor() or ""))
    assert game.state.orders == []
    assert "Anna's standing order to pass in merger rounds is cancelled: another player converts" in game.state.log


def test_a_players_own_move_cancels_their_order_for_that_round(with_major: tuple[Game, str]) -> None:
    game, major = with_major
    _play_until(game, lambda g: g.round_name == "Stock" and g.state.round.auction is not None
                and g.state.round.home_token is None)
    bidder = game.state.player(game.acting_player() or "")
    game.apply(StandingOrder(bidder.id, "buy", company=major, percent=50))  # buys on stock turns, not in auctions
    assert game.acting_player() == bidder.id  # still asked about the auction
    game.apply(Pass(bidder.id))
    assert not any(o.player == bidder.id and o.order == "buy" for o in game.state.orders)
    assert f"{bidder.name}'s standing order to buy {major} until 50% is cancelled by their own move" \
        in game.state.log


def test_auto_buy_buys_each_turn_until_the_holding_then_is_done(with_major: tuple[Game, str]) -> None:
    game, major = with_major
    with pytest.raises(IllegalAction, match="BO is not a major company"):
        game.apply(StandingOrder("d", "buy", company="BO", percent=30))
    rich = max(game.state.players, key=lambda p: p.cash)
    held = rich.percent_of(major)
    game.apply(StandingOrder(rich.id, "buy", company=major, percent=held + 20))
    assert game.state.log[-1].startswith(f"{rich.name}'s standing order: buy {major} until {held + 20}% (ends")
    _play_until(game, lambda g: not any(o.player == rich.id for o in g.state.orders), move=_no_auctions)
    assert game.state.player(rich.id).percent_of(major) == held + 20
    assert game.state.log.count(f"{rich.name}'s standing order: buys {major}") == 2
    assert f"{rich.name}'s standing order to buy {major} until {held + 20}% is done ({held + 20}% of {major})" \
        in game.state.log


def test_auto_off_cancels_and_refused_orders_change_nothing(game: Game) -> None:
    before = game.dump()
    for bad, said in [(StandingOrder("a", "off"), "Anna has no standing order"),
                      (StandingOrder("a", "sell_all"), "there is no standing order 'sell_all'"),
                      (StandingOrder("a", "pass_stock", until="phase 9"), "there is no phase 9"),
                      (StandingOrder("a", "buy", company="GTR", percent=45), "in tens of percent")]:
        with pytest.raises(IllegalAction, match=said):
            game.apply(bad)
        assert game.dump() == before
    game.apply(StandingOrder("a", "pass_stock"))
    game.apply(StandingOrder("a", "pass_merger", until="phase 5"))
    game.apply(StandingOrder("a", "off"))
    assert game.state.orders == []
    assert game.state.log[-2:] == ["Anna's standing order to pass in stock rounds is cancelled",
                                   "Anna's standing order to pass in merger rounds until phase 5 is cancelled"]


def test_a_standing_order_has_a_stable_json_form() -> None:
    order = StandingOrder("a", "buy", company="GTR", percent=40)
    assert order.to_dict() == {"type": "standing_order", "entity": "a", "order": "buy", "company": "GTR",
                               "percent": 40, "until": "", "choice": ""}
    assert action_from_dict(order.to_dict()) == order


# --- operating-round orders (issue 38; 18xx.games #9910) and position stops (#10710) ---


def _not_called_at(step: str, player: str) -> Callable[[Game], None]:
    def watch(game: Game) -> None:
        rnd = game.state.round
        called = game.round_name == "Operating" and rnd.step == step and game.acting_player() == player \
            and not trains.over_limit(game.ctx, game.state)
        assert not called, game.state.log[-3:]
    return watch


def _operating_set_over(game: Game) -> bool:
    return game.round_name != "Operating"


def _first_president(game: Game) -> str:
    """The player whose company operates first in this operating round."""
    return game.controller(game.state.round.order[0]) or ""


def test_auto_run_runs_the_best_routes_for_each_of_the_players_companies(game: Game) -> None:
    player = _first_president(game)
    name = game.state.player(player).name
    game.apply(StandingOrder(player, "run"))
    assert game.state.log[-1].startswith(f"{name}'s standing order: run the best routes (ends with their own run, "
                                         "another's move changing the companies they preside over (")
    _play_until(game, _operating_set_over, watch=_not_called_at("routes", player))
    runs = [line for line in game.state.log if line.startswith(f"{name}'s standing order: ")
            and line.endswith("runs its best routes")]
    theirs = {c for c in game.state.companies if game.controller(c) == player}
    assert runs and {line.split()[3] for line in runs} <= theirs
    assert [o.order for o in game.state.orders] == ["run"]  # until cancelled


def test_auto_run_moves_as_run_best_would(game: Game) -> None:
    """The order's run is the engine's proven-best run: the state `run best` typed gives."""
    _play_until(game, lambda g: g.round_name == "Operating" and g.state.round.step == "routes")
    player, company = game.acting_player() or "", game.actor() or ""
    typed = Game(game.ctx, game.state.copy())
    typed.apply(RunBest(company))
    game.apply(StandingOrder(player, "run"))
    assert game.carried_out == [RunBest(company)]
    assert game.state.companies[company].last_revenue == typed.state.companies[company].last_revenue
    assert game.state.log[-1] == typed.state.log[-1] and game.actor() == typed.actor()


def test_auto_pay_decides_the_dividend_of_the_players_majors(with_major: tuple[Game, str]) -> None:
    game, major = with_major
    president = game.controller(major) or ""
    with pytest.raises(IllegalAction, match="payout, half or withhold, not 'all'"):
        game.apply(StandingOrder(president, "pay", choice="all"))
    game.apply(StandingOrder(president, "pay", choice="withhold"))
    assert game.state.log[-1].startswith(f"{game.state.player(president).name}'s standing order: withhold (ends "
                                         "with their own dividend")
    name = game.state.player(president).name
    _play_until(game, lambda g: f"{name}'s standing order: {major} withholds" in g.state.log,
                watch=_not_called_at("dividend", president), move=_no_auctions)
    assert any(o.order == "pay" for o in game.state.orders)


def test_auto_pass_track_passes_the_track_step(game: Game) -> None:
    game.apply(StandingOrder("b", "pass_track"))
    _play_until(game, _operating_set_over, watch=_not_called_at("track", "b"))
    assert any(line.startswith("Boris's standing order: ") and line.endswith("passes its track step")
               for line in game.state.log)


def test_a_players_own_move_in_the_step_cancels_their_operating_order(game: Game) -> None:
    """Set without being carried out (as the exporter replays), then the player lays
    track themselves: their own move in the track step ends `auto pass track`; their
    `auto run` is for another step and stays."""
    _play_until(game, lambda g: g.round_name == "Operating" and g.state.round.step == "track"
                and any(isinstance(a, LayTile) for a in legal_actions(g)))
    player = game.acting_player() or ""
    game.apply(StandingOrder(player, "pass_track"), orders=False)
    game.apply(StandingOrder(player, "run"), orders=False)
    game.apply(next(a for a in legal_actions(game) if isinstance(a, LayTile)))
    assert [o.order for o in game.state.orders] == ["run"]
    assert f"{game.state.player(player).name}'s standing order to pass the track step is cancelled by their " \
           "own move" in game.state.log


def test_a_players_own_move_that_changes_their_companies_ends_none_of_their_orders(game: Game) -> None:
    """They are at the table (another's move that does ends them: the dump test below).
    Every player leaves `auto run`; over three sets, whoever's own move changes the
    companies they preside over keeps the order, now watching the new position."""
    for player in game.state.players:
        game.apply(StandingOrder(player.id, "run"))
    changed = 0
    while game.state.round_number < 3:
        mover = game.acting_player() or ""
        before = orders.presidencies(game.state, mover)
        game.apply(_move(game))
        if orders.presidencies(game.state, mover) != before:
            changed += 1
            [order] = [o for o in game.state.orders if o.player == mover]
            assert order.presiding == orders.presidencies(game.state, mover)
    assert changed and len(game.state.orders) == len(game.state.players)


def test_operating_orders_are_written_and_read_back() -> None:
    for typed, order in [("run", StandingOrder("a", "run")), ("pass track", StandingOrder("a", "pass_track")),
                         ("pay half", StandingOrder("a", "pay", choice="half"))]:
        assert notation.parse_order("a", typed) == order
        assert notation.order_command(order) == f"auto {typed}"
        assert action_from_dict(order.to_dict()) == order
    old = {"type": "standing_order", "entity": "a", "order": "pass_stock", "company": "", "percent": 0, "until": ""}
    assert action_from_dict(old) == StandingOrder("a", "pass_stock")  # stored before `choice` existed
    with pytest.raises(EngineError, match="Write a standing order as"):
        notation.parse_order("a", "pay everything")


def test_auto_run_runs_the_national_for_the_player_operating_it() -> None:
    """18xx.games #9910 names 1861's national: under the site's rules its operator enters
    its routes (1861-29683, action 435: RSR to run). The operator's `auto run` runs it."""
    from engine.importer import import_log
    from tests.conftest import shared_game

    imported = import_log(shared_game("1861-29683")[0])
    game = Game.new(imported.players, imported.seed, imported.rules, imported.title, first_player=0)
    for action in imported.actions[:435]:
        game.apply(action)
    assert game.actor() == "RSR" and game.state.round.step == "routes"
    operator = game.acting_player() or ""
    assert "RSR" not in orders.presidencies(game.state, operator)  # the national is no one's position
    game.apply(StandingOrder(operator, "run"))
    assert game.carried_out[0] == RunBest("RSR")
    assert f"{game.state.player(operator).name}'s standing order: RSR runs its best routes" in game.state.log


def _site_game_before(name: str, index: int) -> tuple[Game, list[Action]]:
    """A shared game played up to (not including) action ``index``, and its actions."""
    from engine.importer import import_log
    from tests.conftest import shared_game

    imported = import_log(shared_game(name)[0])
    game = Game.new(imported.players, imported.seed, imported.rules, imported.title, first_player=0)
    for action in imported.actions[:index]:
        game.apply(action)
    return game, imported.actions


def test_a_standing_pass_ends_when_a_dump_makes_its_player_president() -> None:
    """18xx.games #10710: an autopass kept passing for a player a dump had made president.
    Generated game S4021 at action 277: Player 2 sells MK and Player 1 gets its
    president's certificate; Player 1's `auto pass stock` ends, saying why."""
    game, actions = _site_game_before("1861-gen-P2-grid-S4021", 277)
    game.apply(StandingOrder("1", "pass_stock"))
    assert game.state.log[-1].endswith("a president's sale that could land on them, another player selling a "
                                       "company they hold or `auto off`)")
    game.apply(actions[277])
    assert game.state.orders == []
    assert "Player 1's standing order to pass in stock rounds is over: they now preside over MK" in game.state.log


def test_a_standing_pass_ends_when_another_player_sells_a_company_its_player_holds() -> None:
    """18xx.games #7619: a programme ignored shares being sold. Generated game S4027 at
    action 809: Player 2 sells 20% of MK, which Player 1 holds (and a sale by MK's
    president would now land on Player 1) and Player 3 presides over: both orders end."""
    game, actions = _site_game_before("1861-gen-P3-column-S4027", 809)
    assert "MK" not in orders.dump_targets(game.state, "1")
    game.apply(StandingOrder("1", "pass_stock"))
    game.apply(StandingOrder("3", "pass_stock"))
    game.apply(actions[809])
    assert "MK" in orders.dump_targets(game.state, "1")
    assert game.state.orders == []
    for name in ("Player 1", "Player 3"):
        assert f"{name}'s standing order to pass in stock rounds is cancelled: Player 2 sells MK, which they hold" \
            in game.state.log


def test_what_a_players_own_buy_order_does_to_their_position_ends_none_of_their_orders(
        with_major: tuple[Game, str]) -> None:
    game, major = with_major
    rich = max(game.state.players, key=lambda p: p.cash)
    held = rich.percent_of(major)
    game.apply(StandingOrder(rich.id, "run"))
    game.apply(StandingOrder(rich.id, "buy", company=major, percent=held + 20))
    _play_until(game, lambda g: not any(o.order == "buy" for o in g.state.orders), move=_no_auctions)
    assert [o.order for o in game.state.orders if o.player == rich.id] == ["run"]
    assert game.state.orders[0].presiding == orders.presidencies(game.state, rich.id)
