"""Computer players for any seat: pure and deterministic, on the engine's public face.

``agent_named(NAME, seed)`` gives one of :data:`AGENTS`: ``computer`` (the computer
player, :mod:`engine.computer.player`), ``greedy`` (a baseline that takes what pays now,
:mod:`engine.computer.greedy`) and ``random`` (the self-play player). ``decide(game)``
is the computer player's move for whoever is to act, with its one-line reason: what the
table's hand-over (a computer seat, an absent player, a hint) calls. ``answer_deal`` is
its answer to a deal another player asks of a seat it plays (:mod:`.deals`).
"""

from __future__ import annotations

from ..errors import EngineError
from ..game import Game
from .agents import Agent, Decision, RandomAgent
from .deals import Answer, answer_deal
from .greedy import GreedyAgent
from .player import DECISION_STEPS, SEARCH_STEPS, ComputerAgent
from .value import Work

AGENTS: dict[str, type[Agent]] = {cls.name: cls for cls in (ComputerAgent, GreedyAgent, RandomAgent)}


def agent_named(name: str, seed: int = 0) -> Agent:
    """The agent called ``name`` (one of :data:`AGENTS`), seeded."""
    cls = AGENTS.get(name)
    if cls is None:
        raise EngineError(f"no computer player called {name!r}: {', '.join(AGENTS)}")
    return cls(seed)


def decide(game: Game, seed: int = 0) -> Decision:
    """The computer player's move for whoever is to act in ``game`` now, with its reason."""
    return ComputerAgent(seed).decide(game)


def decide_counted(game: Game, seed: int = 0) -> tuple[Decision, int]:
    """:func:`decide`, and the route-search steps the decision spent (its work, counted)."""
    work = Work(DECISION_STEPS, SEARCH_STEPS)
    return ComputerAgent(seed).decide_within(game, work), work.spent


__all__ = ["AGENTS", "Agent", "Answer", "ComputerAgent", "Decision", "GreedyAgent", "RandomAgent", "agent_named",
           "answer_deal", "decide", "decide_counted"]
