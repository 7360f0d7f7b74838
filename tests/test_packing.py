"""Set packing with HiGHS (engine/packing.py) against every packing of small random
problems: the bound, the items a goal lets in, and the best packing for a goal."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine import packing
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


@pytest.mark.parametrize("starting", [packing.STARTING_ITEMS, 1], ids=["all", "joining"])
@pytest.mark.parametrize("seed", range(40))
def test_the_best_packing_for_each_goal_is_every_packing_s_best(
    seed: int, starting: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "joining": the relaxation starts on each kind's best item; the others join by price.
    monkeypatch.setattr(packing, "STARTING_ITEMS", starting)
    items = _problem(seed)
    best = _best_total(items)
    problem = Packing(items, KINDS)
    assert problem.bound >= best
    assert _fits([items[i] for i in problem.found])  # the relaxation's packing is one
    sizes = []
    for goal in range(best - 40, best + 20, 10):
        sizes.append(problem.size(goal))
        found = [items[i] for i in problem.best(goal)]
        assert _fits(found)
        total = sum(item.value for item in found)
        assert total <= best
        if best >= goal:
            assert total == best
        else:
            assert total < goal
    assert sizes == sorted(sizes, reverse=True)  # a higher goal lets in no more items


@pytest.mark.parametrize("seed", range(40))
def test_groups_of_resources_keep_every_packing_s_best(seed: int) -> None:
    # Random groups, odd and even: the rows they add may cut the bound, never a packing.
    items = _problem(seed)
    best = _best_total(items)
    rng = random.Random(seed)
    groups = [sum(1 << bit for bit in rng.sample(range(16), rng.randint(2, 7))) for _ in range(6)]
    problem = Packing(items, KINDS, groups)
    assert problem.bound >= best
    for goal in range(best - 20, best + 20, 10):
        found = [items[i] for i in problem.best(goal)]
        assert _fits(found)
        assert sum(item.value for item in found) == best if best >= goal else sum(item.value for item in found) < goal


def test_an_odd_group_of_resources_takes_away_the_half_items() -> None:
    # Five items round a ring of five resources, each using two: any two neighbours
    # clash, so no three items clash two by two, but half of each fits every
    # resource's row. The group of all five holds two items.
    items = [Item(10, 1 << n | 1 << (n + 1) % 5, "4") for n in range(5)]
    limits = {"4": 5}
    assert Packing(items, limits).bound == pytest.approx(25)
    assert Packing(items, limits, [0b11111]).bound == pytest.approx(20)
