"""Standing orders as players type them: ``auto pass merger``, ``auto pass stock``,
``auto buy GTR until 40%``, ``auto off`` (the engine keeps and carries them out,
:mod:`engine.orders`). Any seated player may set one at any time."""

from __future__ import annotations

from engine.actions import StandingOrder
from engine.game import Game
from engine.orders import describe

from .errors import Refusal

USAGE = ("`auto pass merger [this round | until phase N]`, `auto pass stock [this round]`, "
         "`auto buy MAJOR until 40%` or `auto off`")


def parse_order(player: str, rest: str) -> StandingOrder:
    """The standing order ``auto REST`` typed by ``player``; raises :class:`Refusal`."""
    words = rest.lower().replace("%", "").split()
    if words == ["off"]:
        return StandingOrder(player, "off")
    if words[:2] in (["pass", "merger"], ["pass", "mergers"]):
        return StandingOrder(player, "pass_merger", until=_until(words[2:], phases=True))
    if words[:2] == ["pass", "stock"]:
        return StandingOrder(player, "pass_stock", until=_until(words[2:], phases=False))
    if len(words) == 4 and words[0] == "buy" and words[2] == "until" and words[3].isdigit():
        return StandingOrder(player, "buy", company=words[1].upper(), percent=int(words[3]))
    raise Refusal(f"Write a standing order as {USAGE}.")


def _until(words: list[str], *, phases: bool) -> str:
    if not words:
        return ""
    if words == ["this", "round"]:
        return "round"
    if phases and len(words) == 3 and words[:2] == ["until", "phase"]:
        return f"phase {words[2]}"
    raise Refusal(f"Write a standing order as {USAGE}.")


def orders_text(game: Game) -> str:
    """The standing orders in force, for ``status``: ``Anna: pass in stock rounds``."""
    names = {p.id: p.name for p in game.state.players}
    return " · ".join(f"{names[o.player]}: {describe(o)}" for o in game.state.orders)


def order_command(action: StandingOrder) -> str:
    """A stored standing order as the command that sets it."""
    if action.order == "off":
        return "auto off"
    if action.order == "buy":
        return f"auto buy {action.company} until {action.percent}%"
    what = "pass merger" if action.order == "pass_merger" else "pass stock"
    until = {"": "", "round": " this round"}.get(action.until, f" until {action.until}")
    return f"auto {what}{until}"
