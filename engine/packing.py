"""Set packing as an integer program, solved exactly with HiGHS.

Choose items, each with a value, a set of resources (bits of a mask) and a kind, so
that no resource is used twice and no kind is chosen more often than it may be, for
the greatest total value. :mod:`engine.routes` uses it to combine a company's trains:
an item is a route, its resources the track it uses, its kind the train type.

The linear relaxation (milliseconds) bounds every packing; asked for the best
packing that reaches a goal, :class:`Packing` rules out the items that cannot be part
of one and runs HiGHS's branch and bound on the rest. HiGHS is deterministic: the
same input gives the same answer.

The caller may name groups of resources that items tend to use two at a time (the
border crossings around a hex, for routes). Since no resource is used twice, the
items' uses of a group's resources add up to at most its size; halved and rounded
down (a Chvátal-Gomory cut), each item counts ⌊uses / 2⌋ of ⌊size / 2⌋. That changes
no packing, but where the size is odd it takes away the relaxation's half items: on
the heaviest national run met in play (five trains, 6,500 routes) the bound falls from
1305 to the optimum, 1210, which the relaxation's own answer reaches.

The relaxation is solved on a few items first; the others join while their reduced
value at its prices is positive, so that it never holds most of the thousands of
routes a national railway can run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import highspy
import numpy as np

QUICK_MIP_OPTIONS: dict[str, bool | int] = {
    # The caller knows a good packing and asks only for better ones: HiGHS's own
    # searches for a first packing cost more than they save.
    "mip_heuristic_run_feasibility_jump": False,
    "mip_heuristic_run_rins": False,
    "mip_heuristic_run_rens": False,
    "mip_heuristic_run_root_reduced_cost": False,
}
"""HiGHS options that make its branch and bound quicker on route packings; the
answer is the same without them."""

CENTRAL_PRICES: dict[str, str] = {"solver": "ipm", "run_crossover": "off"}
"""HiGHS options for the relaxation's last solve: the interior point method without
crossover prices the rows from the middle of the optimal face, not a corner of it. The
bound is the same, but the prices spread over more rows, so that far fewer items can
be part of a packing near the bound (half as many on a national railway's seven trains)."""

STARTING_ITEMS = 200
"""How many of each kind's most valuable items the relaxation starts with; the others
join only if their prices show they could add to it."""

JOINING_ITEMS = 200
"""How many items, the highest reduced values first, join the relaxation at a time."""


@dataclass(frozen=True)
class Item:
    """Something to choose: its value, the resources it uses (a bit mask), its kind."""

    value: int
    mask: int
    kind: str


class Packing:
    """A packing problem: its bound, a good packing, then its best packing for a goal."""

    def __init__(self, items: Sequence[Item], limits: dict[str, int], groups: Sequence[int] = ()) -> None:
        self.items = items
        self.limits = limits
        self.found: list[int] = []
        """A packing read off the relaxation's answer (its items' positions)."""
        self.bound = 0.0
        self._most = np.zeros(0)  # for each item, the most a packing that chooses it can be worth
        if items:
            self._program = _Program(items, limits, groups)
            self.bound, self._most, self.found = self._program.relaxed()
        self._ascending = np.sort(self._most)

    def size(self, goal: int) -> int:
        """How many items can be part of a packing worth ``goal`` or more."""
        return len(self._ascending) - int(np.searchsorted(self._ascending, goal, side="left"))

    def best(self, goal: int) -> list[int]:
        """The best packing among the items that can be part of one worth ``goal`` or
        more: if it is worth less than ``goal``, no packing is. Its items' positions."""
        if self.bound < goal:
            return []
        hopeful = np.flatnonzero(self._most >= goal)
        return [int(hopeful[j]) for j in self._program.integral(hopeful)]


class _Program:
    """The items as a linear program: a 0/1 variable per item, one row per group of
    resources used by the same items (at most one of them), one per kind, one per odd
    group of resources the caller names (see the module's docstring). Rows are kept dense, one count per item."""

    def __init__(self, items: Sequence[Item], limits: dict[str, int], groups: Sequence[int]) -> None:
        self.values = np.array([item.value for item in items], dtype=np.double)
        used = 0
        for item in items:
            used |= item.mask
        self.uses = _bit_matrix([item.mask for item in items], used)  # item x resource
        kinds = sorted(limits)
        kind_of = np.array([kinds.index(item.kind) for item in items])
        self.of_kind = kind_of[:, None] == np.arange(len(kinds))[None, :]  # item x kind
        shared = self.uses[:, self.uses.sum(axis=0) > 1].T  # resource x item, for resources items share
        distinct: dict[bytes, int] = {}  # resources used by the same items need one row
        for n, users in enumerate(np.packbits(shared.astype(np.uint8), axis=1)):
            distinct.setdefault(users.tobytes(), n)
        rows = [shared[list(distinct.values())]]
        row_limits = [np.ones(len(rows[0]))]
        crowded = [n for n, k in enumerate(kinds) if limits[k] < self.of_kind[:, n].sum()]
        rows.append(self.of_kind[:, crowded].T.astype(np.float32))
        row_limits.append(np.array([limits[kinds[n]] for n in crowded], dtype=np.double))
        odd = [g for g in dict.fromkeys(g & used for g in groups) if g.bit_count() % 2]
        if odd:
            rows.append(np.floor((self.uses @ _bit_matrix(odd, used).T) / 2).T)
            row_limits.append(np.array([g.bit_count() // 2 for g in odd], dtype=np.double))
        self.matrix = np.vstack(rows).astype(np.double)  # row x item
        self.limits = np.concatenate(row_limits)

    def relaxed(self) -> tuple[float, np.ndarray, list[int]]:
        """A bound on every packing, from the linear relaxation's row prices; for each
        item the most a packing that chooses it can be worth; and a packing: the best
        of the items in the relaxation's answers (a few dozen, a hundred or so).

        With any prices y >= 0 on the rows, an item's reduced value is its value less
        the prices of its rows (times its counts); a packing is worth at most the priced
        row limits plus every positive reduced value, less the shortfall of each chosen
        item with a negative one. HiGHS's optimal prices make this the relaxation's
        optimum; the bound holds whatever their rounding, as it is computed here.

        The relaxation starts on each kind's best items; items whose reduced value is
        positive at its prices join it until none is left (the prices are then optimal
        for all items). Unless the best packing of its answer's items proves itself the
        best, it is solved again by :data:`CENTRAL_PRICES` for a second set of prices:
        each set bounds every packing, so an item takes the lesser of the two.
        """
        in_program = self._starting_items()
        highs = _highs()
        highs.passModel(self._lp(in_program, integral=False, every_row=True))
        while True:
            _run(highs)
            bound, reduced = self._priced(highs)
            joining = np.flatnonzero(reduced > 1e-7)
            joining = joining[~np.isin(joining, in_program)]
            if not len(joining):
                break
            joining = joining[np.argsort(-reduced[joining], kind="stable")[:JOINING_ITEMS]]
            self._add_columns(highs, joining)
            in_program = np.concatenate([in_program, joining])
        most = bound + np.minimum(reduced, 0)
        found = self._best_of(in_program[np.array(highs.getSolution().col_value) > 1e-6])
        step = math.gcd(*self.values.astype(int).tolist())
        if self.values[found].sum() + step > bound:
            return bound, most, found  # no packing is worth more: nothing left to prune
        for option, value in CENTRAL_PRICES.items():
            highs.setOptionValue(option, value)
        _run(highs)
        central_bound, central_reduced = self._priced(highs)
        central = self._best_of(in_program[np.array(highs.getSolution().col_value) > 1e-6])
        if self.values[central].sum() > self.values[found].sum():
            found = central
        most = np.minimum(most, central_bound + np.minimum(central_reduced, 0))
        return min(bound, central_bound), most, found

    def _best_of(self, items: np.ndarray) -> list[int]:
        """The best packing of ``items`` (positions among all items)."""
        return [int(items[i]) for i in self.integral(items)]

    def _priced(self, highs: highspy._core._Highs) -> tuple[float, np.ndarray]:
        """The bound from the relaxation's row prices, and each item's reduced value."""
        prices = np.abs(np.array(highs.getSolution().row_dual))
        reduced = self.values - prices @ self.matrix
        return float(prices @ self.limits + reduced[reduced > 0].sum()) + 1e-6, reduced

    def _starting_items(self) -> np.ndarray:
        """Each kind's :data:`STARTING_ITEMS` most valuable items."""
        start = []
        for n in range(self.of_kind.shape[1]):
            of_kind = np.flatnonzero(self.of_kind[:, n])
            start.append(of_kind[np.argsort(-self.values[of_kind], kind="stable")[:STARTING_ITEMS]])
        return np.sort(np.concatenate(start))

    def _add_columns(self, highs: highspy._core._Highs, items: np.ndarray) -> None:
        """Put ``items`` into the relaxation, with their counts in every row."""
        block = self.matrix[:, items]
        cols, rows = np.nonzero(block.T)
        starts = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=len(items)))[:-1]])
        highs.addCols(len(items), self.values[items], np.zeros(len(items)), np.ones(len(items)), len(rows),
                      starts.astype(np.int32), rows.astype(np.int32), block[rows, cols].astype(np.double))

    def integral(self, columns: np.ndarray) -> list[int]:
        """The best packing of the items at ``columns``, by branch and bound until no
        better one can exist: every total is a multiple of the values' common divisor,
        so a bound less than that above the answer proves it. Positions in ``columns``."""
        if not len(columns):
            return []
        highs = _highs()
        highs.setOptionValue("mip_rel_gap", 0.0)
        highs.setOptionValue("mip_abs_gap", math.gcd(*self.values[columns].astype(int).tolist()) - 0.5)
        for option, value in QUICK_MIP_OPTIONS.items():
            highs.setOptionValue(option, value)
        highs.passModel(self._lp(columns, integral=True))
        _run(highs)
        return [i for i, x in enumerate(highs.getSolution().col_value) if x > 0.5]

    def _lp(self, columns: np.ndarray, *, integral: bool, every_row: bool = False) -> highspy.HighsLp:
        """The program over the items at ``columns``: every row, or the rows that can
        bind on them."""
        matrix, limits = self.matrix[:, columns], self.limits
        if not every_row:
            binding = matrix.sum(axis=1) > limits
            matrix, limits = matrix[binding], limits[binding]
        lp = highspy.HighsLp()
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.num_col_ = len(columns)
        lp.num_row_ = len(limits)
        lp.col_cost_ = self.values[columns]
        lp.col_lower_ = np.zeros(len(columns))
        lp.col_upper_ = np.ones(len(columns))
        lp.row_lower_ = np.full(len(limits), -highspy.kHighsInf)
        lp.row_upper_ = limits
        rows, cols = np.nonzero(matrix)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        starts = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(limits)))])
        lp.a_matrix_.start_ = starts.astype(np.int32)
        lp.a_matrix_.index_ = cols.astype(np.int32)
        lp.a_matrix_.value_ = matrix[rows, cols].astype(np.double)
        if integral:
            lp.integrality_ = [highspy.HighsVarType.kInteger] * len(columns)
        return lp


def _highs() -> highspy._core._Highs:
    highs = highspy._core._Highs()  # the public class prints a banner before any option
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    return highs


def _run(highs: highspy._core._Highs) -> None:
    highs.run()
    status = highs.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"packing not solved: {highs.modelStatusToString(status)}")


def _bit_matrix(masks: Sequence[int], used: int) -> np.ndarray:
    """One row per mask, one 0/1 column per bit set in ``used``, lowest first (the
    other bits, which no mask sets, would be columns of zeros)."""
    size = (used.bit_length() + 7) // 8
    raw = np.frombuffer(b"".join(m.to_bytes(size, "little") for m in (*masks, used)), dtype=np.uint8)
    bits = np.unpackbits(raw.reshape(len(masks) + 1, size), axis=1, bitorder="little")
    return bits[:-1, np.flatnonzero(bits[-1])].astype(np.float32)
