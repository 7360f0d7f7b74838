"""A title of the tests' own, built on 1867 in this folder alone: its operating turn has
no redeem step (8.5), and a roll call follows every stock round, in which each player in
seat order answers ``pass`` before the set's operating rounds begin. Its data files are
1867's (a title keeps only the files it changes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine import operating
from engine.actions import Action, Pass
from engine.errors import IllegalAction
from engine.operating_steps import STEPS
from engine.rounds import Round, TurnView
from engine.state import Context, GameState
from engine.titles.t1867 import Canada


@dataclass
class RollCall(Round):
    """Each player in seat order says ``pass``."""

    kind: ClassVar[str] = "Roll call"
    answered: int = 0

    def actor(self, ctx: Context, state: GameState) -> str:
        return state.players[self.answered].id

    def moves(self, ctx: Context, state: GameState) -> list[Action]:
        return [Pass(self.actor(ctx, state))]

    def apply(self, ctx: Context, state: GameState, action: Action) -> None:
        actor = self.actor(ctx, state)
        if not isinstance(action, Pass) or action.entity != actor:
            raise IllegalAction(f"the roll call waits for {state.player(actor).name} to say pass")
        state.log.append(f"{state.player(actor).name} is present")
        self.answered += 1
        self.over = self.answered == len(state.players)

    def heading(self, state: GameState) -> str:
        return f"Roll call {state.round_number}"

    def view(self, ctx: Context, state: GameState, actor: str) -> TurnView:
        return TurnView(self.heading(state), self.kind, "answers the roll call", actor)


class Quick(Canada):
    """1867 less the redeem step, with a roll call after each stock round."""

    operating_steps = tuple(step for step in STEPS if step.name != "redeem")

    def next_round(self, ctx: Context, state: GameState, done: Round) -> None:
        if isinstance(done, RollCall):
            operating.start_set(ctx, state)
        elif done.opens_operating_rounds:
            state.round = RollCall()
        else:
            super().next_round(ctx, state, done)


TITLE = Quick()
