"""``troika arena``: computer players against each other over whole games.

Each game seats the agents named (rotated one seat per game, so every agent sits in
every place), plays to the end with self-play's invariants checked after every action
(:func:`engine.selfplay.check_invariants`), and ranks the seats by the final score
(12.2; a tie shares the rank, and a win shared by a tie counts for each winner). Per
agent: seats, wins, mean rank, score share, moves and decision times (wall-clock and CPU, with
the slowest decision's game and action to replay it); and a rating
(openskill's Plackett-Luce, every seat of one agent playing as that agent).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine import (
    MAX_ACTIONS,
    Agent,
    Before,
    EngineError,
    Game,
    InvariantError,
    Rules,
    agent_named,
    check_invariants,
    load_board,
)


@dataclass(frozen=True)
class Decided:
    """One decision's cost: wall-clock and CPU milliseconds, and where to replay it (the
    game's seed and the number of actions played before it)."""

    ms: float
    cpu_ms: float
    game: int
    action: int


@dataclass
class Played:
    """One game: the final score by seat (empty if it did not finish), each seat's
    decisions, and the failures."""

    scores: dict[int, int]
    decisions: list[list[Decided]]
    failures: list[str] = field(default_factory=list)


def play_game(title: str, agents: list[Agent], seed: int, rules: Rules) -> Played:
    """Play one game to its end, checking self-play's invariants after every action."""
    players = [(f"p{i}", f"{agent.name.title()} {i + 1}") for i, agent in enumerate(agents)]
    game = Game.new(players, seed, rules, title)
    seat_of = {pid: i for i, (pid, _) in enumerate(players)}
    played = Played({}, [[] for _ in agents])
    for number in range(MAX_ACTIONS):
        if game.state.finished:
            break
        seat = seat_of[game.acting_player() or ""]
        before = Before.of(game)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            decision = agents[seat].decide(game)
        except EngineError as exc:
            played.failures.append(f"game {seed}: {agents[seat].name} in seat {seat + 1} could not move: {exc}")
            break
        played.decisions[seat].append(
            Decided((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, seed, number))
        try:
            game.apply(decision.action)
            check_invariants(game, decision.action, before)
        except (EngineError, InvariantError) as exc:
            played.failures.append(f"game {seed}: {agents[seat].name} in seat {seat + 1}: {decision.action}: {exc}")
            break
    else:
        played.failures.append(f"game {seed}: not finished after {MAX_ACTIONS} actions")
    if game.state.finished:
        played.scores = {seat_of[pid]: value for pid, value in game.result().items()}
    return played


def ranks(scores: dict[int, int]) -> dict[int, int]:
    """Each seat's rank by score, 1 the best; equal scores share the better rank."""
    return {seat: 1 + sum(other > score for other in scores.values()) for seat, score in scores.items()}


def arena(title: str, names: list[str], games: int, seed: int, options: frozenset[str] = frozenset(),
          site: bool = False, jobs: int = 1) -> dict[str, Any]:
    """Play ``games`` games of ``title`` with the agents ``names`` seated; the summary.
    With ``jobs`` above 1 the games are shared among that many processes: each game
    depends only on its own seed, so the summary is the same as with one."""
    rules = (Rules.site if site else Rules.rulebook)(market=load_board(title).default_market, options=options)
    stats: dict[str, dict[str, Any]] = {
        name: {"seats": 0, "wins": 0, "ranks": [], "share": [], "decisions": []} for name in names
    }
    rating = Rating(sorted(set(names)))
    failures: list[str] = []
    seatings = [names[i % len(names):] + names[:i % len(names)] for i in range(games)]
    tasks = [(title, seated, seed + i, rules) for i, seated in enumerate(seatings)]
    if jobs > 1 and games > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            played = list(pool.map(_play_seated, tasks))
    else:
        played = [_play_seated(task) for task in tasks]
    for seated, game in zip(seatings, played):
        failures += game.failures
        scores = game.scores
        for seat, name in enumerate(seated):
            stats[name]["decisions"] += game.decisions[seat]
        if not scores:
            continue
        placed = ranks(scores)
        total = sum(scores.values()) or 1
        for seat, name in enumerate(seated):
            entry = stats[name]
            entry["seats"] += 1
            entry["wins"] += placed[seat] == 1
            entry["ranks"].append(placed[seat])
            entry["share"].append(scores[seat] / total)
        rating.update(seated, placed)
    agents_out = {name: _summary(entry) | {"rating": rating.of(name)} for name, entry in stats.items()}
    return {"games": games, "title": title, "seed": seed, "agents": agents_out, "failures": failures,
            "rating": rating.kind}


def _play_seated(task: tuple[str, list[str], int, Rules]) -> Played:
    """One game of :func:`arena` (a picklable task for a worker process): the agents
    named, seeded with the game's seed."""
    title, seated, seed, rules = task
    return play_game(title, [agent_named(name, seed) for name in seated], seed, rules)


def _summary(entry: dict[str, Any]) -> dict[str, Any]:
    decisions: list[Decided] = entry["decisions"]
    slowest = max(decisions, key=lambda d: d.ms, default=Decided(0.0, 0.0, 0, 0))
    return {
        "seats": entry["seats"],
        "wins": entry["wins"],
        "mean_rank": round(statistics.fmean(entry["ranks"]), 3) if entry["ranks"] else None,
        "score_share": round(statistics.fmean(entry["share"]), 4) if entry["share"] else None,
        "moves": len(decisions),
        "decision_ms": _spread(d.ms for d in decisions),
        "decision_cpu_ms": _spread(d.cpu_ms for d in decisions),
        "slowest": {"ms": round(slowest.ms, 2), "cpu_ms": round(slowest.cpu_ms, 2), "game": slowest.game,
                    "action": slowest.action},
    }


def _spread(values: Iterable[float]) -> dict[str, float]:
    """The median, 95th percentile and maximum of ``values``, rounded to 0.01."""
    ordered = sorted(values)
    return {"p50": round(_percentile(ordered, 0.50), 2), "p95": round(_percentile(ordered, 0.95), 2),
            "max": round(ordered[-1], 2) if ordered else 0.0}


def _percentile(ordered: list[float], q: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Rating:
    """openskill's Plackett-Luce rating per agent (every seat of one agent rated as it,
    the agent taking the mean of its seats' new ratings); without openskill installed,
    a simple Elo: each pair of seats is a game won by the better rank, K = 16."""

    def __init__(self, names: list[str]) -> None:
        try:
            from openskill.models import PlackettLuce
        except ImportError:
            self.model = None
            self.kind = "elo"
            self.elo = {name: 1500.0 for name in names}
        else:
            self.model = PlackettLuce()
            self.kind = "openskill"
            self.skill = {name: self.model.rating(name=name) for name in names}

    def update(self, seated: list[str], placed: dict[int, int]) -> None:
        if self.model is None:
            self._elo(seated, placed)
            return
        teams = [[self.model.rating(mu=self.skill[n].mu, sigma=self.skill[n].sigma)] for n in seated]
        rated = self.model.rate(teams, ranks=[placed[s] for s in range(len(seated))])
        for name in set(seated):
            mine = [rated[s][0] for s, n in enumerate(seated) if n == name]
            self.skill[name] = self.model.rating(mu=statistics.fmean(r.mu for r in mine),
                                                 sigma=statistics.fmean(r.sigma for r in mine), name=name)

    def _elo(self, seated: list[str], placed: dict[int, int]) -> None:
        change = {name: 0.0 for name in seated}
        for a, name_a in enumerate(seated):
            for b, name_b in enumerate(seated):
                if a == b or name_a == name_b:
                    continue
                expected = 1 / (1 + 10 ** ((self.elo[name_b] - self.elo[name_a]) / 400))
                actual = 1.0 if placed[a] < placed[b] else 0.5 if placed[a] == placed[b] else 0.0
                change[name_a] += 16 * (actual - expected)
        for name, delta in change.items():
            self.elo[name] += delta / seated.count(name)

    def of(self, name: str) -> dict[str, float]:
        if self.model is None:
            return {"elo": round(self.elo[name], 1)}
        skill = self.skill[name]
        return {"mu": round(skill.mu, 2), "sigma": round(skill.sigma, 2), "ordinal": round(skill.ordinal(), 2)}
