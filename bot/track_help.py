"""Track help: where the company acting may lay or upgrade track now (``tiles``).

For each hex the company may build on, the tiles that fit, each with its distinct
rotations (a straight at 0 and at 3 is one lay) and what the lay costs, so a player
can copy a ``lay HEX TILE ROTATION`` without knowing the tile manifest.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import (
    Company,
    Game,
    TrackView,
    borrowing_power,
    cheapest_bank_price,
    distinct_rotations,
    lay_cost,
    legal_lays,
    shown,
    turn_view,
)
from render.svg import money
from render.tiles import Candidate, exits_towards

from .errors import Refusal


@dataclass(frozen=True)
class TileOption:
    """One tile that fits a hex: its distinct rotations and what laying it costs."""

    tile: str
    rotations: tuple[int, ...]
    cost: int


def track_options(game: Game) -> dict[str, list[TileOption]]:
    """For the company laying track now, each hex it may lay on and the tiles that fit."""
    state, track = game.state, turn_view(game).track
    company = state.companies.get(game.actor() or "")
    if company is None or track is None:
        return {}
    found: dict[tuple[str, str], list[int]] = {}
    for lay in legal_lays(game, company):
        found.setdefault((lay.hex, lay.tile), []).append(lay.rotation)
    options: dict[str, list[TileOption]] = {}
    for (hex_id, name), rotations in found.items():
        tile = game.ctx.board.tiles[name]
        distinct = distinct_rotations(tile, rotations)
        cost = lay_cost(game.ctx, state, hex_id, tile, second=bool(track.lays))
        options.setdefault(hex_id, []).append(TileOption(name, tuple(distinct), cost))
    return options


def tiles_text(game: Game, rest: str = "") -> str:
    """The ``tiles`` reply: every hex, or one (``tiles H6``), with tiles, rotations, costs."""
    state, track = game.state, turn_view(game).track
    if track is None:
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
    extra = _second_action(track)
    spare = _spare_for_track(game, company)
    lines = [f"**{sym}** ({money(game.ctx, company.cash)}) may lay{extra}:"]
    if focus:
        lines.extend(_exit_lines(game, focus, options[focus], company, spare))
    for hex_id in sorted(options, key=_hex_order) if not focus else ():
        parts = []
        for option in sorted(options[hex_id], key=lambda o: _tile_order(o.tile)):
            cost = f" {money(game.ctx, option.cost)}" if option.cost else ""
            parts.append(f"{option.tile} ({', '.join(map(str, option.rotations))}){cost}"
                         f"{_cost_note(option.cost, company, spare, brackets=True)}")
        lines.append(f"{hex_id}: " + " · ".join(parts))
    first_hex = min(options, key=_hex_order)
    first = min(options[first_hex], key=lambda o: _tile_order(o.tile))
    if focus:
        lines.append("Each lay, then the hexes its track leads to; the picture draws them on the map. "
                     "`pass` lays nothing.")
        return "\n".join(lines)
    lines.append(f"Tile (rotations) cost; rotation 0 is the tile as printed, each step turns it 60° clockwise. "
                 f"E.g. `lay {first_hex} {first.tile} {first.rotations[0]}`; `tiles {first_hex}` draws each "
                 "of them on the hex; `pass` lays nothing.")
    return "\n".join(lines)


def sheet_candidates(game: Game, hex_id: str) -> list[Candidate]:
    """The lays on ``hex_id`` for its tile sheet (``tiles HEX``), in the order the
    text lists them: tile by tile, each distinct rotation, with its cost and note."""
    company = game.state.companies[game.actor() or ""]
    spare = _spare_for_track(game, company)
    return [
        Candidate(option.tile, rotation, option.cost, _cost_note(option.cost, company, spare))
        for option in sorted(track_options(game).get(hex_id, []), key=lambda o: _tile_order(o.tile))
        for rotation in option.rotations
    ]


def _exit_lines(
    game: Game, hex_id: str, options: list[TileOption], company: Company, spare: float
) -> list[str]:
    """One line per lay on ``hex_id``: "201 r4 → F16, F18 ₽20"."""
    lines = []
    for option in sorted(options, key=lambda o: _tile_order(o.tile)):
        for rotation in option.rotations:
            towards = ", ".join(exits_towards(game.ctx, hex_id, option.tile, rotation)) or "no hex"
            cost = f" {money(game.ctx, option.cost)}" if option.cost else ""
            note = _cost_note(option.cost, company, spare, brackets=True)
            lines.append(f"`lay {hex_id} {option.tile} {rotation}` → {towards}{cost}{note}")
    return lines


def _cost_note(cost: int, company: Company, spare: float, *, brackets: bool = False) -> str:
    """"loan" where the company must borrow for the lay, "then no train money" where
    it would leave too little for the train it must buy."""
    notes = [n for n, due in (("loan", cost > company.cash), ("then no train money", cost > spare)) if due]
    if brackets:
        return "".join(f" ({n})" for n in notes)
    return ", ".join(notes)


def _second_action(track: TrackView) -> str:
    """8.6: after an upgrade the extra action only lays yellow; after a yellow lay it may
    also upgrade. Either way it costs 20 more."""
    if not track.lays:
        return ""
    return " (its second action, 20 more: yellow only)" if track.upgraded else " (its second action, 20 more)"


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
