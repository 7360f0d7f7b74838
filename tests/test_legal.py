"""Candidate actions (engine/legal.py): the quick list of lays is exactly the list
check_lay gives tile by tile, at track steps of real games of both titles."""

from __future__ import annotations

import pytest

from engine import graph
from engine.actions import Action, LayTile
from engine.errors import IllegalAction
from engine.game import Game
from engine.lay import check_lay
from engine.legal import legal_lays
from engine.replay import replay
from engine.state import Company
from engine.track import next_color
from tests.conftest import shared_game


def _every_lay_judged_alone(game: Game, company: Company) -> list[LayTile]:
    """Every tile of the next colour, at every rotation, on every hex the company
    reaches or borders, kept if check_lay accepts it: the list legal_lays must equal."""
    ctx, state = game.ctx, game.state
    reach = graph.reachable(ctx, state, company.sym)
    hexes = set(reach.hexes) | {t.hex for t in company.tokens if t.hex}
    for hex_id, edge in reach.track_ends:
        neighbour = ctx.board.neighbours.get(hex_id, {}).get(edge)
        if neighbour:
            hexes.add(neighbour)
    found = []
    for hex_id in sorted(hexes):
        current, _ = ctx.tile_at(state, hex_id)
        if current.color not in ("white", "yellow", "green", "brown"):
            continue
        for tile in ctx.board.tiles.values():
            if tile.color != next_color(current.color):
                continue
            for rotation in range(6):
                action = LayTile(company.sym, hex_id, tile.name, rotation)
                try:
                    check_lay(ctx, state, state.round, company, action)
                except IllegalAction:
                    continue
                found.append(action)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("name", ["1861-29683", "1867-21268"])
def test_legal_lays_are_every_lay_check_lay_accepts(name: str) -> None:
    log, _ = shared_game(name)
    compared: list[str] = []

    def compare(game: Game, action: Action) -> None:
        rnd = game.state.round
        if game.round_name != "Operating" or rnd.step != "track" or not isinstance(action, LayTile):
            return
        compared.append(action.hex)
        company = game.state.companies[action.entity]
        lays = legal_lays(game, company)
        assert lays == _every_lay_judged_alone(game, company)
        assert (action.hex, action.tile, action.rotation % 6) in {(a.hex, a.tile, a.rotation) for a in lays}

    replay(log, None, before=compare)
    assert len(compared) > 10
