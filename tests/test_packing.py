"""Set packing with HiGHS (engine/packing.py) against every packing of small random
problems: the bound, the items a goal lets in, and the best packing for a goal."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine.packing import Item, Packing

KINDS = {"4": 2, "5": 1, "6": 2}


def _problem(seed: int) -> list[Item]:
    """Routes-like items: values in tens, a few of 16 resources each, three kinds."""
    rng = random.Random(seed)
    items = []
    for _ in range(rng.randint(8, 16)):
        mask = 0
        for bit in rng.sample(range(16), rng.randint(1, 4)):
            mask |= 1 << bit
        items.append(Item(10 * rng.randint(3, 30), mask, rng.choice(sorted(KINDS))))
    return items


def _fits(chosen: list[Item] | tuple[Item, ...]) -> bool:
    """No resource used twice, no kind chosen more often than it may be."""
    used = 0
    for item in chosen:
        if used & item.mask:
            return False
        used |= item.mask
    return all(sum(1 for item in chosen if item.kind == kind) <= limit for kind, limit in KINDS.items())


def _best_total(items: list[Item]) -> int:
    """The best packing's worth, by trying every set of items."""
    best = 0
    for size in range(1, sum(KINDS.values()) + 1):
        for chosen in combinations(items, size):
            if _fits(chosen):
                best = max(best, sum(item.value for item in chosen))
    return best


@pytest.mark.parametrize("seed", range(40))
def test_the_best_packing_for_each_goal_is_every_packing_s_best(seed: int) -> None:
    items = _problem(seed)
    best = _best_total(items)
    packing = Packing(items, KINDS)
    assert packing.bound >= best
    sizes = []
    for goal in range(best - 40, best + 20, 10):
        sizes.append(packing.size(goal))
        found = [items[i] for i in packing.best(goal)]
        assert _fits(found)
        total = sum(item.value for item in found)
        assert total <= best
        if best >= goal:
            assert total == best
        else:
            assert total < goal
    assert sizes == sorted(sizes, reverse=True)  # a higher goal lets in no more items
