"""What the table shows of the game now: the round, the step, who acts and why.

The one public view of round state for the console, Discord posts and pictures, so
that none of them reads the rounds' internals (``state.round.step`` and the like).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import bundles
from .game import Game
from .trains import over_limit

STEP_NAMES = {
    "redeem": "may redeem shares",
    "track": "lays track",
    "token": "may place a station token",
    "routes": "runs its trains",
    "dividend": "decides its dividend",
    "private_before_loans": "may buy a private",
    "loans": "settles its loans",
    "trains": "buys trains",
    "private_end": "may buy a private",
}
"""The operating steps A–H (8.4) as a player reads them."""


@dataclass(frozen=True)
class TurnView:
    """The round and what the actor is doing now, in words and flags."""

    round_title: str  # "Stock round 3", "Operating round 3.1", "Game over"...
    round_kind: str  # "Auction", "Stock", "Operating", "Merger", "Finished"
    doing: str  # "lays track", "bids on TSR", ...
    actor: str | None  # player id or company symbol
    up_for_auction: str | None = None  # the private or minor being auctioned
    placing_token: bool = False  # a home token or an operating-round token
    laying_track: bool = False


def turn_view(game: Game) -> TurnView:
    """The view of ``game`` now."""
    state = game.state
    kind = game.round_name
    actor = game.actor()
    if state.finished:
        return TurnView("Game over", kind, "", None)
    title = round_title(game)
    if state.trainless_majors:
        return TurnView(title, kind, "has no train: nationalize or keep?", actor)
    rnd = state.round
    if kind == "Auction":
        return TurnView(title, kind, f"bids on {rnd.private}", actor, up_for_auction=rnd.private)
    if kind == "Bundles" and rnd.bundle is None:
        offered = " · ".join(bundles.describe(game.ctx, state, name) for name in rnd.unsold)
        return TurnView(title, kind, f"nominates a bundle (15.1): {offered}", actor)
    if kind == "Bundles":
        return TurnView(title, kind, f"bids on bundle {rnd.bundle}", actor, up_for_auction=rnd.bundle)
    if kind == "Stock":
        if rnd.home_token:
            return TurnView(title, kind, "places its home token", actor, placing_token=True)
        if rnd.auction:
            minor = rnd.auction.minor
            return TurnView(title, kind, f"bids on {minor}", actor, up_for_auction=minor)
        return TurnView(title, kind, "has a stock turn", actor)
    if kind == "Merger" and rnd.major is not None and actor == rnd.major and not rnd.buyers:
        from .merger import tokens_to_remove

        if tokens_to_remove(state, rnd):  # 9.2E comes before the discards (RN 8.1)
            return TurnView(title, kind, "removes station tokens", actor)
    if actor in over_limit(game.ctx, state):
        return TurnView(title, kind, "is over its train limit and discards", actor)
    if kind == "Operating":
        return TurnView(
            title,
            kind,
            STEP_NAMES.get(rnd.step, rnd.step),
            actor,
            placing_token=rnd.step == "token",
            laying_track=rnd.step == "track",
        )
    if rnd.buyers:
        return TurnView(title, kind, f"may buy shares of {rnd.major}", actor)
    if rnd.major is not None and actor == rnd.major:
        return TurnView(title, kind, "removes station tokens", actor)
    return TurnView(title, kind, "may convert, merge or pass", actor)


def round_title(game: Game) -> str:
    """``Private auction``, ``Stock round 3``, ``Operating round 3.1``, ``Merger round
    3.1`` (after operating round 3.1) or ``Game over``."""
    state = game.state
    if state.finished:
        return "Game over"
    kind = game.round_name
    if kind == "Operating":
        return f"Operating round {state.round_number}.{state.round.number}"
    if kind == "Stock":
        return f"Stock round {state.round_number}"
    if kind == "Merger":
        return f"Merger round {state.round_number}.{state.round.after_or}"
    if kind == "Bundles":
        return f"Stock round {state.round_number}: starting bundles"
    return "Private auction"
