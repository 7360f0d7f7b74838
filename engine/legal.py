"""What the actor may do now: the one answer for refusals, hints, menus and self-play.

``legal_actions`` lists every action the engine accepts now, built from the same
rule predicates the rounds judge with (``tests/test_legal_moves.py`` checks that
every offered action applies and no refused one is offered): a trainless major's
choice first (10), else the round's own moves (:meth:`engine.rounds.Round.moves`).
Amounts (bids, prices) are offered at their lowest; ``engine.notation.hints`` folds
them into command words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import trains
from .actions import Action, BuyPrivate, BuyTrain, Choose, LayTile, Merge, Pass
from .errors import IllegalAction
from .lay import possible_lays
from .operating import OperatingRound

if TYPE_CHECKING:
    from .game import Game
    from .state import Company


def legal_actions(game: Game) -> list[Action]:
    """Every action the actor may take now, each one the engine accepts (bids and
    prices at the lowest amount allowed; a run as the best routes). The one answer to
    "what may this player do": refusals, menus, hints and self-play all read it."""
    if game.state.finished:
        return []
    if game.state.trainless_majors:  # first in every round (10)
        actor = game.actor() or ""
        rnd = game.round
        if isinstance(rnd, OperatingRound) and rnd.nationalizing_refused(game.ctx, game.state):
            return [Pass(actor)]
        return [Choose(actor, "nationalize"), Pass(actor)]
    return game.round.moves(game.ctx, game.state)


def legal_lays(game: Game, company: Company, *, first_only: bool = False) -> list[LayTile]:
    """Every tile, hex and rotation the company may lay now (8.6; :func:`engine.lay.possible_lays`)."""
    rnd = game.round
    if not isinstance(rnd, OperatingRound):
        return []
    return possible_lays(game.ctx, game.state, rnd, company, first_only=first_only)


def consent_needed(game: Game, action: Action) -> str | None:
    """The player who must agree before ``action`` happens, if it is not the actor's
    own decision: selling a train of their company, a private they own, or a minor
    they own into a merge (rulebook 8.11, 8.12, 9.2)."""
    state = game.state
    buyer = game.controller(action.entity)
    owner: str | None = None
    if isinstance(action, BuyTrain):
        try:
            source, _ = trains.find_train(game.ctx, state, action.train)
        except IllegalAction:
            return None
        owner = game.controller(source) if source in state.companies else None
    elif isinstance(action, BuyPrivate):
        holder = state.private_owner.get(action.private)
        owner = holder if holder is not None and holder not in state.companies else None
    elif isinstance(action, Merge):
        target = state.companies.get(action.target)
        owner = game.controller(action.target) if target is not None and target.is_minor else None
    return owner if owner is not None and owner != buyer else None
