"""Set packing as an integer program, solved exactly with HiGHS.

Choose items, each with a value, a set of resources (bits of a mask) and a kind, so
that no resource is used twice and no kind is chosen more often than it may be, for
the greatest total value. :mod:`engine.routes` uses it to combine a company's trains:
an item is a route, its resources the track it uses, its kind the train type.

The linear relaxation (milliseconds) bounds every packing; asked for the best
packing that reaches a goal, :class:`Packing` rules out the items that cannot be part
of one and runs HiGHS's branch and bound on the rest. HiGHS is deterministic: the
same input gives the same answer.
"""

from __future__ import annotations

import bisect
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
    # Looking for parallel rows and columns is slow on thousands of columns over a
    # few dozen rows, and finds nothing: no two routes use the same track.
    "presolve_rule_off": 1 << 13,
}
"""HiGHS options that make its branch and bound quicker on route packings; the
answer is the same without them."""


CENTRAL_PRICES: dict[str, str] = {"solver": "ipm", "run_crossover": "off"}
"""HiGHS options for the relaxation: the interior point method without crossover
prices the rows from the middle of the optimal face, not a corner of it. The bound is
the same, but the prices spread over more rows, so that far fewer items can be part of
a packing near the bound (half as many on a national railway's seven trains)."""


@dataclass(frozen=True)
class Item:
    """Something to choose: its value, the resources it uses (a bit mask), its kind."""

    value: int
    mask: int
    kind: str


class Packing:
    """A packing problem: its bound, then its best packing for a goal."""

    def __init__(self, items: Sequence[Item], limits: dict[str, int]) -> None:
        self.items = items
        self.limits = limits
        if items:
            self.bound, self._shortfall = _Program(items, limits).relaxed()
        else:
            self.bound, self._shortfall = 0.0, []
        self._ascending = sorted(self._shortfall)

    def size(self, goal: int) -> int:
        """How many items can be part of a packing worth ``goal`` or more."""
        return bisect.bisect_right(self._ascending, self.bound - goal)

    def best(self, goal: int) -> list[int]:
        """The best packing among the items that can be part of one worth ``goal`` or
        more (their shortfall leaves the bound at the goal or above): if it is worth
        less than ``goal``, no packing is. Its items' positions."""
        if self.bound < goal:
            return []
        hopeful = [i for i, short in enumerate(self._shortfall) if self.bound - short >= goal]
        return [hopeful[j] for j in _Program([self.items[i] for i in hopeful], self.limits).integral()]


class _Program:
    """The items as an integer program: a 0/1 variable per item, one row per group of
    resources used by the same items (at most one of them), one per kind."""

    def __init__(self, items: Sequence[Item], limits: dict[str, int]) -> None:
        self.values = [item.value for item in items]
        users: dict[int, list[int]] = {}
        for i, item in enumerate(items):
            mask = item.mask
            while mask:
                low = mask & -mask
                users.setdefault(low, []).append(i)
                mask ^= low
        # a row's items -> how many of them may be chosen
        rows = {tuple(sharing): 1 for sharing in users.values() if len(sharing) > 1}
        for kind, limit in limits.items():
            of_kind = tuple(i for i, item in enumerate(items) if item.kind == kind)
            if limit < len(of_kind):
                rows[of_kind] = min(limit, rows.get(of_kind, limit))
        self.rows = rows
        self.highs = highspy._core._Highs()  # the public class prints a banner before any option
        self.highs.setOptionValue("output_flag", False)
        self.highs.setOptionValue("threads", 1)
        lp = highspy.HighsLp()
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.num_col_ = len(self.values)
        lp.num_row_ = len(rows)
        lp.col_cost_ = np.array(self.values, dtype=np.double)
        lp.col_lower_ = np.zeros(len(self.values))
        lp.col_upper_ = np.ones(len(self.values))
        lp.row_lower_ = np.full(len(rows), -highspy.kHighsInf)
        lp.row_upper_ = np.array(list(rows.values()), dtype=np.double)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.cumsum([0] + [len(r) for r in rows], dtype=np.int32)
        lp.a_matrix_.index_ = np.array([i for r in rows for i in r], dtype=np.int32)
        lp.a_matrix_.value_ = np.ones(sum(len(r) for r in rows))
        self.highs.passModel(lp)

    def relaxed(self) -> tuple[float, list[float]]:
        """A bound on every packing, from the linear relaxation's row prices, and for
        each item how much less a packing that chooses it can be worth.

        With any prices y >= 0 on the rows, an item's reduced value is its value less
        the prices of its rows; a packing is worth at most the priced row limits plus
        every positive reduced value, less the shortfall of each chosen item with a
        negative one. HiGHS's optimal prices make this the relaxation's optimum; the
        bound holds whatever their rounding, as it is computed here.
        """
        for option, value in CENTRAL_PRICES.items():
            self.highs.setOptionValue(option, value)
        self._run()
        prices = [abs(y) for y in self.highs.getSolution().row_dual]
        reduced = [float(v) for v in self.values]
        for (members, _limit), price in zip(self.rows.items(), prices):
            for i in members:
                reduced[i] -= price
        bound = sum(p * limit for p, limit in zip(prices, self.rows.values()))
        bound += sum(r for r in reduced if r > 0) + 1e-6
        return bound, [max(0.0, -r) for r in reduced]

    def integral(self) -> list[int]:
        """The best packing, by branch and bound until no better one can exist: every
        total is a multiple of the values' common divisor, so a bound less than that
        above the answer proves it."""
        if not self.values:
            return []
        self.highs.setOptionValue("mip_rel_gap", 0.0)
        self.highs.setOptionValue("mip_abs_gap", math.gcd(*self.values) - 0.5)
        for option, value in QUICK_MIP_OPTIONS.items():
            self.highs.setOptionValue(option, value)
        count = len(self.values)
        self.highs.changeColsIntegrality(
            count, np.arange(count, dtype=np.int32), np.full(count, highspy.HighsVarType.kInteger)
        )
        self._run()
        return [i for i, x in enumerate(self.highs.getSolution().col_value) if x > 0.5]

    def _run(self) -> None:
        self.highs.run()
        status = self.highs.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"packing not solved: {self.highs.modelStatusToString(status)}")
