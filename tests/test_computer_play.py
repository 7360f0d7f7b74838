"""The computer player at real positions (the shared games): lays toward revenue, and
reasons an 18xx player recognises, naming the tile, hex, company or train of each move."""

from __future__ import annotations

import pytest

from engine.actions import LayTile
from engine.computer import decide
from engine.computer.agents import after, company_acting
from engine.computer.value import route_income
from tests.conftest import replayed

RAISING = [("1867-21268", 280), ("1867-21268", 502), ("1861-29683", 383)]
"""Lay steps after these log ids where some lay raises the company's best run: before the
lays were ranked by what they reach, the computer laid 57 on E15 (no gain) at the first
and passed at the second (the raising lay, 23 on L8, was cut among 164)."""


@pytest.mark.parametrize(("name", "until"), RAISING)
def test_where_a_lay_raises_the_best_run_the_computer_lays_one(name: str, until: int) -> None:
    game = replayed(name, until)
    company = company_acting(game)
    assert company is not None
    before = route_income(game, company)
    decision = decide(game)
    assert isinstance(decision.action, LayTile)
    later = after(game, decision.action)
    assert later is not None and route_income(later, company) > before
