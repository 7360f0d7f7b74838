"""Standing orders in force, as ``status`` tells them (they are typed as ``auto ...``,
read and written by :mod:`engine.notation`; the engine keeps and carries them out,
:mod:`engine.orders`)."""

from __future__ import annotations

from engine import Game, describe_order


def orders_text(game: Game) -> str:
    """The standing orders in force, for ``status``: ``Anna: pass in stock rounds``."""
    names = {p.id: p.name for p in game.state.players}
    return " · ".join(f"{names[o.player]}: {describe_order(o)}" for o in game.state.orders)
