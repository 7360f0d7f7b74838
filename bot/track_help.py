"""Track help: where the company acting may lay or upgrade track now (``tiles``).

For each hex the company may build on, the tiles that fit, each with its distinct
rotations (a straight at 0 and at 3 is one lay) and what the lay costs, so a player
can copy a ``lay HEX TILE ROTATION`` without knowing the tile manifest.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import Game
from engine.legal import legal_lays
from engine.loans import borrowing_power
from engine.operating import OperatingRound
from engine.state import Company
from engine.track import lay_cost
from engine.trains import cheapest_bank_price

from .commands import distinct_rotations, shown
from .errors import Refusal


@dataclass(frozen=True)
class TileOption:
    """One tile that fits a hex: its distinct rotations and what laying it costs."""

    tile: str
    rotations: tuple[int, ...]
    cost: int


def track_options(game: Game) -> dict[str, list[TileOption]]:
    """For the company laying track now, each hex it may lay on and the tiles that fit."""
    state = game.state
    company = state.companies.get(game.actor() or "")
    if company is None or game.round_name != "Operating" or state.round.step != "track":
        return {}
    found: dict[tuple[str, str], list[int]] = {}
    for lay in legal_lays(game, company):
        found.setdefault((lay.hex, lay.tile), []).append(lay.rotation)
    options: dict[str, list[TileOption]] = {}
    for (hex_id, name), rotations in found.items():
        tile = game.ctx.board.tiles[name]
        distinct = distinct_rotations(tile, rotations)
        cost = lay_cost(game.ctx, state, hex_id, tile, second=bool(state.round.lays))
        options.setdefault(hex_id, []).append(TileOption(name, tuple(distinct), cost))
    return options


def tiles_text(game: Game, rest: str = "") -> str:
    """The ``tiles`` reply: every hex, or one (``tiles H6``), with tiles, rotations, costs."""
    state = game.state
    if game.round_name != "Operating" or state.round.step != "track":
        from .posts import doing, who_acts

        raise Refusal(f"Nobody is laying track now: {who_acts(game)} {doing(game)}.")
    sym = game.actor() or ""
    company = state.companies[sym]
    options = track_options(game)
    focus = rest.strip().upper()
    if focus:
        if focus not in game.ctx.board.hexes:
            raise Refusal(f"There is no hex {shown(focus)} on the map.")
        if focus not in options:
            return f"{sym} may lay nothing on {focus} now. `tiles` lists where it may build."
        options = {focus: options[focus]}
    if not options:
        return f"{sym} has nowhere to lay track now: `pass`."
    extra = _second_action(state.round)
    spare = _spare_for_track(game, company)
    cur = game.ctx.title.currency
    lines = [f"**{sym}** ({cur}{company.cash}) may lay{extra}:"]
    for hex_id in sorted(options, key=_hex_order):
        parts = []
        for option in sorted(options[hex_id], key=lambda o: _tile_order(o.tile)):
            cost = f" {cur}{option.cost}" if option.cost else ""
            loan = " (loan)" if option.cost > company.cash else ""
            stranded = " (then no train money)" if option.cost > spare else ""
            parts.append(f"{option.tile} ({', '.join(map(str, option.rotations))}){cost}{loan}{stranded}")
        lines.append(f"{hex_id}: " + " · ".join(parts))
    first_hex = min(options, key=_hex_order)
    first = min(options[first_hex], key=lambda o: _tile_order(o.tile))
    lines.append(f"Tile (rotations) cost; rotation 0 is the tile as printed, each step turns it 60° clockwise. "
                 f"E.g. `lay {first_hex} {first.tile} {first.rotations[0]}`; `tiles {first_hex}` shows the hex; "
                 "`pass` lays nothing.")
    return "\n".join(lines)


def _second_action(rnd: OperatingRound) -> str:
    """8.6: after an upgrade the extra action only lays yellow; after a yellow lay it may
    also upgrade. Either way it costs 20 more."""
    if not rnd.lays:
        return ""
    return " (its second action, 20 more: yellow only)" if rnd.upgraded else " (its second action, 20 more)"


def _spare_for_track(game: Game, company: Company) -> float:
    """What a trainless company may spend on track and still buy the train it must buy
    (8.11.3: else it is nationalized); any amount for a company with a train."""
    cheapest = cheapest_bank_price(game.ctx, game.state)
    power = borrowing_power(company)
    if company.trains or cheapest is None or power < cheapest:
        return float("inf")
    return power - cheapest


def _hex_order(hex_id: str) -> tuple[str, int]:
    return hex_id[0], int(hex_id[1:]) if hex_id[1:].isdigit() else 0


def _tile_order(name: str) -> tuple[int, str]:
    return (int(name), name) if name.isdigit() else (10**6, name)
