"""Reading the board's data: hex names and stock market cells, as the JSON writes them."""

from __future__ import annotations

import pytest

from engine.board import _parse_market, load_board, parse_hex
from engine.errors import DataError


@pytest.mark.parametrize(("name", "place"), [("A1", (0, 1)), ("H8", (7, 8)), ("Z26", (25, 26)), ("AA3", (26, 3))])
def test_a_hex_name_is_its_column_letters_and_row_number(name: str, place: tuple[int, int]) -> None:
    assert parse_hex(name) == place


@pytest.mark.parametrize("name", ["", "8", "H", "h8", "H8a", "8H", "H-8", "Ä8", "H 8", "H8\n"])
def test_a_name_that_is_not_a_hex_name_is_refused(name: str) -> None:
    with pytest.raises(DataError, match="is not a hex name like H8"):
        parse_hex(name)


def test_a_market_cell_is_its_price_and_its_flags() -> None:
    (row,) = _parse_market([["100", "35y", "", "0cE"]])
    assert [(c.price, c.flags) if c else None for c in row] == [(100, ""), (35, "y"), None, (0, "cE")]


@pytest.mark.parametrize("text", ["y35", "35-", "3 5", "x", "35é"])
def test_a_market_cell_that_is_not_a_price_and_flags_is_refused(text: str) -> None:
    with pytest.raises(DataError, match="bad market cell"):
        _parse_market([[text]])


def test_every_hex_of_both_boards_has_a_hex_name() -> None:
    for title in ("1861", "1867"):
        board = load_board(title)
        assert board.hexes and all(parse_hex(h) for h in board.hexes)
