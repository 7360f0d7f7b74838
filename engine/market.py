"""The stock markets (rulebook 4): token placement, movement, stacking and order."""

from __future__ import annotations

from .board import MarketCell
from .errors import IllegalAction
from .state import Context, GameState


def cell_of(ctx: Context, state: GameState, sym: str) -> MarketCell:
    pos = state.companies[sym].market
    if pos is None:
        raise IllegalAction(f"{sym} has no share price")
    return ctx.board.market_cell(ctx.rules.market, *pos)


def price(ctx: Context, state: GameState, sym: str) -> int:
    """The current share price of a minor or major."""
    return cell_of(ctx, state, sym).price


def place(state: GameState, sym: str, cell: MarketCell) -> None:
    """Put a company's token on ``cell``, below any tokens already there (4.4)."""
    remove(state, sym)
    state.companies[sym].market = (cell.row, cell.col)
    state.market.setdefault((cell.row, cell.col), []).append(sym)


def remove(state: GameState, sym: str) -> None:
    """Take a company's token off the market."""
    pos = state.companies[sym].market
    if pos is None:
        return
    stack = state.market.get(pos, [])
    if sym in stack:
        stack.remove(sym)
    if not stack:
        state.market.pop(pos, None)
    state.companies[sym].market = None


def _exists(ctx: Context, row: int, col: int) -> MarketCell | None:
    grid = ctx.board.markets[ctx.rules.market]
    if 0 <= row < len(grid) and 0 <= col < len(grid[row]):
        return grid[row][col]
    return None


def _move_to(ctx: Context, state: GameState, sym: str, row: int, col: int) -> None:
    cell = _exists(ctx, row, col)
    if cell is not None:
        old = price(ctx, state, sym)
        place(state, sym, cell)
        if cell.price != old:
            state.log.append(f"{sym} share price {old} → {cell.price}")


def move_right(ctx: Context, state: GameState, sym: str) -> None:
    """A dividend was paid (8.9.2): one space right, with the minors' thick border."""
    cell = cell_of(ctx, state, sym)
    minor = state.companies[sym].is_minor
    if ctx.rules.market == "column":
        if minor and cell.minor_ceiling:
            return
        _move_to(ctx, state, sym, cell.row, cell.col + 1)
        return
    if (minor and cell.minor_ceiling) or _exists(ctx, cell.row, cell.col + 1) is None:
        move_up(ctx, state, sym)
    else:
        _move_to(ctx, state, sym, cell.row, cell.col + 1)


def move_left(ctx: Context, state: GameState, sym: str) -> None:
    """No dividend, or nationalization (4.3): one space left; on the grid's left
    edge one space down instead."""
    cell = cell_of(ctx, state, sym)
    if _exists(ctx, cell.row, cell.col - 1) is not None:
        _move_to(ctx, state, sym, cell.row, cell.col - 1)
    elif ctx.rules.market == "grid":
        move_down(ctx, state, sym)


def move_up(ctx: Context, state: GameState, sym: str) -> None:
    """Sold out at the end of a stock round (7.6). Column: right. Grid: up; a major
    already on the top row moves down and right at the same price."""
    if ctx.rules.market == "column":
        move_right(ctx, state, sym)
        return
    cell = cell_of(ctx, state, sym)
    if _exists(ctx, cell.row - 1, cell.col) is not None:
        _move_to(ctx, state, sym, cell.row - 1, cell.col)
    elif not state.companies[sym].is_minor:
        _move_to(ctx, state, sym, cell.row + 1, cell.col + 1)


def move_down(ctx: Context, state: GameState, sym: str) -> None:
    """A president sold (7.3.1). Column: left. Grid: down, if there is a space below."""
    if ctx.rules.market == "column":
        move_left(ctx, state, sym)
        return
    cell = cell_of(ctx, state, sym)
    _move_to(ctx, state, sym, cell.row + 1, cell.col)


def order_key(ctx: Context, state: GameState, sym: str) -> tuple[int, int, int, int, str]:
    """Sort key for stock price order (4.2): price, then farther right, then higher
    row, then top of the stack first."""
    row, col = state.companies[sym].market or (0, 0)
    cell = ctx.board.market_cell(ctx.rules.market, row, col)
    stack = state.market.get((row, col), [])
    pos = stack.index(sym) if sym in stack else 0
    return (-cell.price, -col, row, pos, sym)


def in_price_order(ctx: Context, state: GameState, syms: list[str]) -> list[str]:
    """Companies in the order they act: highest price first, ties by 4.2."""
    return sorted(syms, key=lambda s: order_key(ctx, state, s))


def minor_start_cell(ctx: Context, bid: int) -> MarketCell:
    """Half the winning bid, rounded down to a minor start price (7.2)."""
    target = min(bid // 2, 135)
    cells = [c for c in ctx.board.market_cells(ctx.rules.market) if c.can_start_minor and c.price <= target]
    if not cells:
        raise IllegalAction(f"no minor start price at or below {target}")
    return max(cells, key=lambda c: c.price)


def major_start_cell(ctx: Context, price_value: int, *, exact: bool) -> MarketCell:
    """The major/anyone start space of a price (par), or the highest one at or below it
    (merger and conversion prices, 9.1A/9.2A)."""
    cells = [
        c
        for c in ctx.board.market_cells(ctx.rules.market)
        if c.can_start_major and (c.price == price_value if exact else c.price <= price_value)
    ]
    if not cells:
        allowed = sorted({c.price for c in ctx.board.market_cells(ctx.rules.market) if c.can_start_major})
        raise IllegalAction(
            f"{price_value} is not a starting price for a major; choose one of "
            + ", ".join(map(str, allowed))
        )
    return max(cells, key=lambda c: c.price)
