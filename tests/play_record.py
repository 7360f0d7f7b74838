"""Record the moves computer players choose over whole arena games, to show that a
speed-up leaves their play unchanged: every move, its reason and (for the computer
player) the route-search steps it spent, with each game's CPU seconds and decision times.

    python tests/play_record.py record OUT.json [--games 1861:computer,random,random,random:1-3 ...]
    python tests/play_record.py compare BEFORE.json AFTER.json [--moves-only]

``--moves-only`` leaves the reasons out of the comparison: the moves and route-search
steps must be the same, the words written for them may differ.

Each game is played in a process of its own (no cache carried from one game to the next),
one at a time, so its CPU seconds are its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engine import MAX_ACTIONS, Game, Rules, agent_named, load_board
from engine.computer.player import DECISION_STEPS, SEARCH_STEPS, ComputerAgent
from engine.computer.value import Work

DEFAULT_GAMES = [f"{title}:computer,{other},{other},{other}:1-3"
                 for other in ("random", "greedy") for title in ("1861", "1867")]


def play(task: tuple[str, list[str], int]) -> dict[str, Any]:
    """One game as :func:`bot.arena.play_game` plays it, every decision recorded."""
    title, seated, seed = task
    rules = Rules.rulebook(market=load_board(title).default_market)
    agents = [agent_named(name, seed) for name in seated]
    players = [(f"p{i}", f"{agent.name.title()} {i + 1}") for i, agent in enumerate(agents)]
    game = Game.new(players, seed, rules, title)
    seat_of = {pid: i for i, (pid, _) in enumerate(players)}
    moves: list[list[Any]] = []
    times: dict[str, list[float]] = {name: [] for name in seated}
    cpu = time.process_time()
    for _ in range(MAX_ACTIONS):
        if game.state.finished:
            break
        agent = agents[seat_of[game.acting_player() or ""]]
        started = time.perf_counter()
        spent = None
        if isinstance(agent, ComputerAgent):
            work = Work(DECISION_STEPS, SEARCH_STEPS)
            decision = agent.decide_within(game, work)
            spent = work.spent
        else:
            decision = agent.decide(game)
        times[agent.name].append((time.perf_counter() - started) * 1000)
        moves.append([agent.name, decision.action.to_dict(), decision.reason, spent])
        game.apply(decision.action)
    return {"title": title, "seats": seated, "seed": seed, "cpu_s": round(time.process_time() - cpu, 2),
            "finished": game.state.finished, "result": game.result() if game.state.finished else {},
            "moves": moves, "times": times}


def _tasks(specs: list[str]) -> list[tuple[str, list[str], int]]:
    tasks = []
    for spec in specs:
        title, seats, seeds = spec.split(":")
        first, _, last = seeds.partition("-")
        tasks += [(title, seats.split(","), seed) for seed in range(int(first), int(last or first) + 1)]
    return tasks


def record(out: str, specs: list[str]) -> None:
    games = []
    for task in _tasks(specs):
        with ProcessPoolExecutor(max_workers=1) as pool:
            game = pool.submit(play, task).result()
        games.append(game)
        print(f"{task[0]} {','.join(task[1])} seed {task[2]}: {game['cpu_s']} s CPU, "
              f"{len(game['moves'])} moves", file=sys.stderr, flush=True)
        with open(out, "w", encoding="utf-8") as f:  # after every game: a long run is read as it goes
            json.dump(games, f)


def _summary(games: list[dict[str, Any]]) -> None:
    by_title: dict[str, list[dict[str, Any]]] = {}
    for game in games:
        by_title.setdefault(game["title"], []).append(game)
    for title, found in by_title.items():
        computer = sorted(t for g in found for t in g["times"].get("computer", []))
        greedy = sorted(t for g in found for t in g["times"].get("greedy", []))
        print(f"  {title}: CPU s/game {statistics.fmean(g['cpu_s'] for g in found):.1f} "
              f"({' '.join(str(g['cpu_s']) for g in found)})")
        for name, times in (("computer", computer), ("greedy", greedy)):
            if times:
                print(f"    {name} ms p50 {times[len(times) // 2]:.1f} p95 {times[int(0.95 * len(times))]:.1f} "
                      f"max {times[-1]:.1f} ({len(times)} decisions)")


def compare(before_path: str, after_path: str, moves_only: bool = False) -> int:
    with open(before_path, encoding="utf-8") as f:
        before = json.load(f)
    with open(after_path, encoding="utf-8") as f:
        after = json.load(f)
    differ = 0
    for old, new in zip(before, after):
        label = f"{old['title']} {','.join(old['seats'])} seed {old['seed']}"
        if (old["title"], old["seats"], old["seed"]) != (new["title"], new["seats"], new["seed"]):
            print(f"{label}: not the same game in both")
            return 2
        first = next((i for i, (a, b) in enumerate(zip(old["moves"], new["moves"]))
                      if _played(a, moves_only) != _played(b, moves_only)), None)
        if first is None and len(old["moves"]) == len(new["moves"]) and old["result"] == new["result"]:
            reworded = sum(a[2] != b[2] for a, b in zip(old["moves"], new["moves"]))
            print(f"{label}: the same {len(old['moves'])} moves and steps, " +
                  (f"{reworded} reasons reworded" if moves_only else "and reasons"))
            continue
        differ += 1
        print(f"{label}: differs at action {first}: {old['moves'][first] if first is not None else ''} "
              f"-> {new['moves'][first] if first is not None else ''}")
    print("before:")
    _summary(before)
    print("after:")
    _summary(after)
    return 1 if differ else 0


def _played(move: list[Any], moves_only: bool) -> list[Any]:
    """A recorded move ([agent, action, reason, steps]) as compared: without its reason if ``moves_only``."""
    return [move[0], move[1], move[3]] if moves_only else move


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("out")
    rec.add_argument("--games", nargs="+", default=DEFAULT_GAMES)
    cmp = sub.add_parser("compare")
    cmp.add_argument("before")
    cmp.add_argument("after")
    cmp.add_argument("--moves-only", action="store_true", help="compare moves and steps, not the reasons")
    args = parser.parse_args()
    if args.command == "record":
        record(args.out, args.games)
        return 0
    return compare(args.before, args.after, args.moves_only)


if __name__ == "__main__":
    sys.exit(main())
