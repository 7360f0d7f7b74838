"""The computer players (engine/computer) and ``troika arena`` (bot/arena.py): every
kind of move decided, deterministic and pure, whole games sound, and the arena's report."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.arena import Rating, arena, play_game, ranks
from bot.cli import main
from engine.board import load_board
from engine.computer import AGENTS, ComputerAgent, GreedyAgent, agent_named, decide
from engine.errors import EngineError
from engine.game import Game
from engine.legal import legal_actions
from engine.rules import Rules
from engine.selfplay import table_move


def _game(title: str, players: int = 4, seed: int = 7, moves: int = 0) -> Game:
    """A new game, then ``moves`` self-played moves into it."""
    rules = Rules.rulebook(market=load_board(title).default_market)
    game = Game.new([(f"p{i}", f"P{i}") for i in range(players)], seed, rules, title)
    import random

    rng = random.Random(seed)
    for _ in range(moves):
        table_move(game, rng)
    return game


@pytest.mark.slow
@pytest.mark.parametrize("title", ["1861", "1867"])
@pytest.mark.parametrize("moves", [0, 40, 250, 600])
def test_a_decision_is_legal_deterministic_and_changes_nothing(title: str, moves: int) -> None:
    game = _game(title, moves=moves)
    before = game.dump()
    first = decide(game, seed=3)
    assert game.dump() == before
    assert decide(game, seed=3) == first
    assert first.action in legal_actions(game) or first.action.kind == "buy_private"
    assert first.reason
    game.apply(first.action)


@pytest.mark.slow  # a whole game each: 20-60 s
@pytest.mark.parametrize("title", ["1861", "1867"])
def test_the_computer_plays_whole_games_deciding_every_kind_of_move(title: str) -> None:
    rules = Rules.rulebook(market=load_board(title).default_market)
    kinds: set[str] = set()

    class Watched(ComputerAgent):
        def decide(self, game: Game):  # type: ignore[no-untyped-def]
            decision = super().decide(game)
            kinds.add(decision.action.kind)
            return decision

    for seed in (1,):
        played = play_game(title, [Watched(seed), *(agent_named("random", seed) for _ in range(3))], seed, rules)
        assert played.failures == []
        assert played.scores and all(played.decisions)
        numbers = sorted(d.action for seat in played.decisions for d in seat)
        assert numbers == list(range(len(numbers)))  # every action was decided by one seat, in turn
    assert {"bid", "lay_tile", "run_best", "buy_train", "pass"} <= kinds


SOUGHT = {"par", "buy_share", "sell_shares", "merge", "convert", "dividend", "choose", "place_token", "buy_private",
          "redeem_shares", "remove_token", "discard_train", "bid"}
"""The moves a game between computer players may never offer it: sought in random games."""


@pytest.mark.slow  # a whole random game each, with decisions along it: a minute or two
@pytest.mark.parametrize(("title", "seed"), [("1861", 23), ("1867", 21)])
def test_every_kind_of_move_gets_a_legal_decision(title: str, seed: int) -> None:
    """Wherever a self-played game (one that reaches the last phase) offers one of :data:`SOUGHT`,
    the computer decides (twice alike, changing nothing) and its move applies."""
    import random

    game, rng, seen = _game(title, seed=seed), random.Random(seed), dict.fromkeys(SOUGHT, 0)
    while not game.state.finished:
        offered = {a.kind for a in legal_actions(game)} & SOUGHT
        if any(seen[k] < 2 for k in offered):
            before = game.dump()
            decision = decide(game, seed=1)
            assert game.dump() == before and decide(game, seed=1) == decision
            Game(game.ctx, game.state.copy()).apply(decision.action)
            for kind in offered:
                seen[kind] += 1
        table_move(game, rng)
    assert {k for k, n in seen.items() if n} >= SOUGHT - {"remove_token", "discard_train"}


@pytest.mark.slow  # a whole game: some 30 s
def test_a_greedy_player_runs_pays_out_and_finishes_games() -> None:
    rules = Rules.rulebook(market=load_board("1867").default_market)
    played = play_game("1867", [GreedyAgent(0), GreedyAgent(1), GreedyAgent(2)], 5, rules)
    assert played.failures == [] and len(played.scores) == 3


def test_ties_share_the_better_rank() -> None:
    assert ranks({0: 900, 1: 1200, 2: 1200, 3: 100}) == {0: 3, 1: 1, 2: 1, 3: 4}


def test_without_openskill_the_rating_is_a_simple_elo(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_openskill(name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name.startswith("openskill"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_openskill)
    rating = Rating(["computer", "random"])
    rating.update(["computer", "random", "random"], {0: 1, 1: 2, 2: 3})
    assert rating.kind == "elo"
    assert rating.of("computer")["elo"] > 1500 > rating.of("random")["elo"]


@pytest.mark.slow
def test_arena_prints_one_object_per_the_issue(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--title", "1867", "--seats", "computer,random,random", "--games", "2", "--seed", "4",
                 "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["games"] == 2 and report["failures"] == []
    computer, random_ = report["agents"]["computer"], report["agents"]["random"]
    assert computer["seats"] == 2 and random_["seats"] == 4
    assert computer["wins"] + random_["wins"] >= 2
    assert set(computer["decision_ms"]) == {"p50", "p95", "max"}
    assert computer["slowest"]["ms"] == computer["decision_ms"]["max"] and computer["slowest"]["game"] in (4, 5)
    assert 0 < computer["decision_cpu_ms"]["p50"] <= computer["decision_cpu_ms"]["max"]
    assert 1 <= computer["mean_rank"] <= 3 and "ordinal" in computer["rating"]


def test_arena_refuses_unknown_agents_and_player_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--seats", "computer,nobody,random"]) == 2
    assert "no computer player called nobody" in capsys.readouterr().err
    assert main(["arena", "--title", "1867", "--seats", "computer"]) == 2
    assert "players, not 1" in capsys.readouterr().err
    with pytest.raises(EngineError, match="no computer player"):
        agent_named("deep blue")
    assert set(AGENTS) == {"computer", "greedy", "random"}


@pytest.mark.slow
def test_arena_is_deterministic() -> None:
    one = arena("1861", ["greedy", "random", "random"], 1, 11)
    two = arena("1861", ["greedy", "random", "random"], 1, 11)
    assert _untimed(one) == _untimed(two)


def _untimed(report: dict[str, Any]) -> dict[str, Any]:
    """An arena's report without the times it measured (they differ from run to run)."""
    for entry in report["agents"].values():
        for timed in ("decision_ms", "decision_cpu_ms", "slowest"):
            entry.pop(timed)
    return report


def _laying(title: str, seed: int, fewest: int) -> Game:
    """A self-played game up to a company's track step with more than ``fewest`` lays."""
    import random

    from engine.actions import LayTile

    game, rng = _game(title, seed=seed), random.Random(seed)
    while sum(isinstance(m, LayTile) for m in legal_actions(game)) <= fewest:
        assert not game.state.finished, f"no track step with over {fewest} lays"
        table_move(game, rng)
    return game


@pytest.mark.parametrize("title", ["1861", "1867"])
def test_a_decision_tries_a_bounded_number_of_moves_and_route_steps(title: str) -> None:
    """The work per decision is counted, never timed: at most MOST_LAYS lays and MOST_TRIED
    moves tried, at most DECISION_STEPS route-search steps, and a map met twice in one
    decision is searched once. With no route search left the decision is still legal."""
    from engine.actions import LayTile
    from engine.computer.player import DECISION_STEPS, MOST_LAYS, MOST_TRIED, SEARCH_STEPS, candidates
    from engine.computer.value import Work

    game = _laying(title, 5, MOST_LAYS)
    tried = candidates(game, legal_actions(game))
    assert sum(isinstance(m, LayTile) for m in tried) == MOST_LAYS and len(tried) <= MOST_TRIED
    work = Work(DECISION_STEPS, SEARCH_STEPS)
    chosen = ComputerAgent(1).decide_within(game, work)
    assert 0 < work.spent <= DECISION_STEPS and len(work.known) <= len(tried) + 1
    assert chosen == ComputerAgent(1).decide(game)
    starved = Work(0, SEARCH_STEPS)
    assert ComputerAgent(1).decide_within(game, starved).action in legal_actions(game)
    assert starved.spent == 0 and set(starved.known.values()) <= {None, 0}


def test_a_bounded_route_search_is_exact_or_says_it_ran_out() -> None:
    from engine.computer.agents import company_acting
    from engine.computer.value import Work, bounded_route_income, route_income

    game = _laying("1867", 5, 20)
    company = company_acting(game)
    assert company is not None
    exact = route_income(game, company)
    assert exact > 0 and bounded_route_income(game, company, Work(10**9, 10**9)) == exact
    assert bounded_route_income(game, company, Work(10**9, 1)) is None


@pytest.mark.slow
def test_arena_in_processes_gives_the_same_figures() -> None:
    """Games shared among processes (``--jobs``) depend only on their seeds."""
    alone = _untimed(arena("1861", ["random", "random", "random"], 3, 21))
    shared = _untimed(arena("1861", ["random", "random", "random"], 3, 21, jobs=2))
    assert alone == shared and alone["agents"]["random"]["seats"] == 9


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_computer_does_not_bid_a_private_past_its_worth(seed: int) -> None:
    """A bid changes nobody's worth until it wins: judged by worth alone every bid looked
    as good as a pass, and in arena game 201 the computer paid 285 for a private worth far
    less. Now it bids while the private is worth the price and passes once it is not."""
    from engine.actions import Bid, Pass
    from engine.computer.value import private_worth

    game = _game("1861", seed=seed)
    opener = game.actor() or ""
    game.apply(Bid(opener, "TSR", 20))
    assert private_worth(game, "TSR") > 20 + 10  # worth raising
    assert isinstance(decide(game, seed).action, Bid)
    raiser = game.actor() or ""
    game.apply(Bid(raiser, "TSR", 250))
    assert private_worth(game, "TSR") < 250
    assert isinstance(decide(game, seed).action, Pass)
