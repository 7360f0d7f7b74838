"""Stock price movement on both markets (rulebook 4.3, 4.4) and operating order (4.2)."""

from __future__ import annotations

import pytest

from engine import market
from engine.board import load_board
from engine.game import Game
from engine.rules import Rules
from tests.conftest import PLAYERS3


def _game(kind: str) -> Game:
    return Game.new(PLAYERS3, seed=1, rules=Rules.rulebook(market=kind), first_player=0)


def _at(game: Game, sym: str, row: int, col: int) -> None:
    market.place(game.state, sym, game.ctx.board.market_cell(game.ctx.rules.market, row, col))


def _pos(game: Game, sym: str) -> tuple[int, int, int]:
    row, col = game.state.companies[sym].market or (-1, -1)
    return row, col, market.price(game.ctx, game.state, sym)


GRID_CASES = [
    # (company, start row, start col, move, expected row, col, price)
    ("NW", 4, 5, market.move_right, 4, 6, 110),  # plain right
    ("NW", 4, 9, market.move_right, 3, 9, 165),  # end of row: up instead
    ("N", 4, 6, market.move_right, 3, 6, 120),  # minor at the thick border: up
    ("N", 0, 6, market.move_right, 0, 6, 165),  # minor at the top of the border: stays
    ("NW", 3, 5, market.move_up, 2, 5, 120),  # sold out: up
    ("NW", 0, 8, market.move_up, 1, 9, 200),  # top row: down and right, same price
    ("NW", 0, 18, market.move_up, 0, 18, 540),  # the top corner: nowhere to go
    ("NW", 4, 5, market.move_left, 4, 4, 90),  # no dividend: left
    ("NW", 4, 0, market.move_left, 5, 0, 55),  # left edge: down instead
    ("NW", 3, 5, market.move_down, 4, 5, 100),  # president sells: down
    ("NW", 8, 3, market.move_down, 8, 3, 55),  # bottom of the column: stays
    ("NW", 9, 0, market.move_left, 9, 0, 35),  # the floor
]


@pytest.mark.parametrize("sym,row,col,move,erow,ecol,eprice", GRID_CASES)
def test_grid_market_moves(sym, row, col, move, erow, ecol, eprice) -> None:
    game = _game("grid")
    _at(game, sym, row, col)
    move(game.ctx, game.state, sym)
    assert _pos(game, sym) == (erow, ecol, eprice)


COLUMN_CASES = [
    ("NW", 10, market.move_right, 11, 110),
    ("N", 15, market.move_right, 15, 165),  # minors stop at 165 (thick border)
    ("NW", 15, market.move_right, 16, 180),
    ("NW", 27, market.move_right, 27, 540),
    ("NW", 10, market.move_left, 9, 90),
    ("NW", 0, market.move_left, 0, 35),
    ("NW", 10, market.move_up, 11, 110),  # sold out: right
    ("NW", 10, market.move_down, 9, 90),  # president sells: left
]


@pytest.mark.parametrize("sym,col,move,ecol,eprice", COLUMN_CASES)
def test_column_market_moves(sym, col, move, ecol, eprice) -> None:
    game = _game("column")
    _at(game, sym, 0, col)
    move(game.ctx, game.state, sym)
    assert _pos(game, sym) == (0, ecol, eprice)


def test_a_token_entering_a_space_goes_under_the_others() -> None:
    game = _game("grid")
    _at(game, "NW", 4, 6)
    _at(game, "SW", 4, 5)
    market.move_right(game.ctx, game.state, "SW")
    assert game.state.market[(4, 6)] == ["NW", "SW"]
    assert market.in_price_order(game.ctx, game.state, ["SW", "NW"]) == ["NW", "SW"]


def test_equal_prices_farther_right_operate_first_on_the_grid() -> None:
    game = _game("grid")
    _at(game, "NW", 2, 6)  # 135
    _at(game, "SW", 4, 8)  # 135, farther right
    _at(game, "SE", 3, 7)  # 135
    assert market.in_price_order(game.ctx, game.state, ["NW", "SW", "SE"]) == ["SW", "SE", "NW"]


def test_minor_start_price_is_half_the_bid_rounded_down_to_a_start_space() -> None:
    board = load_board("1861")
    from engine.state import Context
    from engine.titles import title_named

    ctx = Context(board, Rules.rulebook(market="grid"), title_named(board.title))
    assert market.minor_start_cell(ctx, 110).price == 55
    assert market.minor_start_cell(ctx, 150).price == 70  # 75 is no start space
    assert market.minor_start_cell(ctx, 400).price == 135  # minors start at 135 at most
