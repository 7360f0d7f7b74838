"""What every computer player shares: a decision with its reason, a seeded random
source per move, and a look one move ahead on a copy of the game."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

from ..actions import Action
from ..errors import EngineError
from ..game import Game
from ..legal import consent_needed, legal_actions
from ..notation import command
from ..selfplay import random_order


@dataclass(frozen=True)
class Decision:
    """The move an agent chose for whoever is to act, and why, in one line."""

    action: Action
    reason: str

    def words(self, game: Game) -> str:
        """The move in command words, as a player would type it (before it is applied)."""
        return command(game, self.action)


class Agent(ABC):
    """A player that chooses a move whenever its seat is to act. Deterministic: the
    same game and seed give the same move. Pure: it never changes the game it is shown."""

    name: str = ""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def rng(self, game: Game) -> random.Random:
        """A random source for this move alone: the agent's seed and how far the game has come."""
        return random.Random(f"{self.name}:{self.seed}:{game.state.round_number}:{len(game.state.log)}")

    @abstractmethod
    def decide(self, game: Game) -> Decision:
        """The move for whoever is to act in ``game`` now (:meth:`Game.acting_player` decides)."""


class RandomAgent(Agent):
    """The self-play player: any legal move, a pass now and then (:mod:`engine.selfplay`)."""

    name = "random"

    def decide(self, game: Game) -> Decision:
        order = random_order(game, self.rng(game))
        order = [a for a in order if consent_needed(game, a) is None] or order
        if not order:
            raise EngineError(f"{game.actor()} has no legal move")
        return Decision(order[0], "a random legal move")


def moves(game: Game) -> list[Action]:
    """The legal moves a program plays now: none that waits for another player's
    consent (a train, private or minor of theirs, 8.11, 8.12, 9.2), as a program
    cannot ask; refused if there are none (the game is over)."""
    legal = legal_actions(game)
    found = [action for action in legal if consent_needed(game, action) is None] or legal
    if not found:
        raise EngineError("there is nothing to do: the game is over" if game.state.finished
                          else f"{game.actor()} has no legal move")
    return found


def after(game: Game, action: Action) -> Game | None:
    """The game after ``action``, on a copy (``game`` itself is untouched); None if refused.

    The copy stops at the first step that could ask anything, as the site's rules do
    (a step asks even when nothing is left to do): whether a company could lay track is
    a walk over the whole map, up to seconds late in a game, and what the step after a
    move would ask changes no one's worth."""
    ctx = replace(game.ctx, rules=game.ctx.rules._replace(pass_asked_without_choice=True))
    copy = Game(ctx, game.state.copy())
    try:
        copy.apply(action, check=False)
    except EngineError:
        return None
    return copy


def company_acting(game: Game) -> str | None:
    """The company that is to act, if a company is (else a player is)."""
    actor = game.actor()
    return actor if actor in game.state.companies else None
