"""Engine dataclasses compare and print by their fields with methods written once
(engine.records), exactly as the ones ``@dataclass`` would generate."""

from __future__ import annotations

import dataclasses

import pytest

from engine.actions import Bid, Pass
from engine.merger import MergerRound
from engine.state import Company, Train


def test_a_mutable_record_equals_the_same_class_with_the_same_fields_and_is_unhashable() -> None:
    a, b = Train("2-0", "2"), Train("2-0", "2")
    assert a == b and a is not b
    assert a != Train("2-1", "2")
    company = Company("N", "minor", trains=[Train("2-1", "2"), a])
    company.trains.remove(b)  # list removal finds the equal train, as before
    assert [t.id for t in company.trains] == ["2-1"]
    with pytest.raises(TypeError):
        hash(a)


def test_fields_left_out_of_comparing_or_printing_are_left_out() -> None:
    shown = MergerRound(order=["V"])
    saved = dataclasses.replace(shown, undo_point=b"a saved state")
    assert shown == saved  # undo_point has compare=False
    assert "undo_point" not in repr(saved)
    assert repr(shown).startswith("MergerRound(") and "order=['V']" in repr(shown)
    assert shown != dataclasses.replace(shown, order=["W"])


def test_a_frozen_value_hashes_by_its_fields_and_equals_only_its_own_class() -> None:
    assert hash(Bid("a", "TSR", 25)) == hash(Bid("a", "TSR", 25))
    assert Bid("a", "TSR", 25) != Bid("a", "TSR", 30)
    assert Pass("a") != Bid("a", "TSR", 25) and Pass("a") == Pass("a")
    assert len({Pass("a"), Pass("a"), Pass("b")}) == 2
