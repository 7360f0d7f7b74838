"""A bare `pass` meant for a step that has already gone (issue 25, point 2).

When a company's turn ends by itself (its last train bought, nothing left to do), the
same player's next company is called at once, and a `pass` typed for the turn that
ended would pass the new one. Such a `pass` is questioned once: the reply says what
happened and that `pass` again (or `pass COMPANY`) passes the company now called.
Hot-seat play flows: a player handing over to another is never questioned.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Game, cheapest_bank_price, train_limit, turn_view


@dataclass(frozen=True)
class LastMove:
    """The move in effect last: its action type, acting entity and the player who made it."""

    kind: str
    entity: str
    player: str | None


def questioned_pass(game: Game, last: LastMove | None, typist: str | None) -> str | None:
    """What to ask ``typist`` before a bare `pass`, or None if it can go ahead: asked
    in an operating round when their own last move, for a company, ended that
    company's turn (by itself or by a pass) and another of theirs is called now."""
    if last is None or typist is None or game.state.finished or not turn_view(game).operating:
        return None
    actor = game.actor()
    if actor is None or actor not in game.state.companies or last.entity == actor:
        return None
    if last.entity not in game.state.companies or last.player != typist or game.acting_player() != typist:
        return None
    return (f"{last.entity}'s turn ended{_why_ended(game, last)}. Now {actor} {turn_view(game).doing} — "
            f"`pass` again to pass {actor} (or `pass {actor}`).")


def _why_ended(game: Game, last: LastMove) -> str:
    """Why the company's turn ended: ``: no money left for a train``..."""
    if last.kind == "pass":
        return " with its pass"
    company = game.state.companies[last.entity]
    if company.closed:
        return ""
    if len(company.trains) >= train_limit(game.ctx, game.state, company):
        return f": {last.entity} is at its train limit"
    cheapest = cheapest_bank_price(game.ctx, game.state)
    if cheapest is not None and company.cash < cheapest:
        return f": no money left for a train ({company.cash})"
    return ": nothing more it could do"
