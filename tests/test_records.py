"""``@record`` (engine.records) declares classes as ``@dataclass`` does: the same
``__init__``, equality, hash, repr and frozen guards. ``dataclasses`` is the oracle."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import typing
from typing import Any, ClassVar

import pytest

from engine import records
from engine.actions import Bid, Pass
from engine.merger import MergerRound
from engine.records import FrozenRecordError, field, record
from engine.state import Company, Train


def _twins(frozen: bool) -> tuple[type, type]:
    """One class body declared twice: as a record and as a dataclass."""

    def body(decorate: Any, make_field: Any) -> type:
        @decorate(frozen=frozen)
        class Sample:
            kind: ClassVar[str] = "sample"
            name: str
            count: int = 2
            seen: tuple[str, ...] = make_field(default_factory=tuple)
            note: str = make_field(default="", compare=False, repr=False)

        return Sample

    return body(record, field), body(dataclasses.dataclass, dataclasses.field)


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_is_built_compared_hashed_and_printed_as_a_dataclass_is(frozen: bool) -> None:
    mine, oracle = _twins(frozen)
    for args, kwargs in [(("a",), {}), (("a", 5), {"note": "x"}), ((), {"name": "b", "seen": ("q",)})]:
        a, b = mine(*args, **kwargs), oracle(*args, **kwargs)
        assert repr(a).replace("Sample", "S") == repr(b).replace("Sample", "S")
        assert vars(a) == vars(b)
        assert a == mine(*args, **kwargs) and a is not mine(*args, **kwargs)
        assert a == records.replace(a, note="other")  # not compared
        assert (a != records.replace(a, count=9)) == (b != dataclasses.replace(b, count=9))
        assert a != b  # only an object of the very same class is equal
        if frozen:
            assert hash(a) == hash(b)
        else:
            with pytest.raises(TypeError):
                hash(a)
    for args, kwargs in [((), {}), (("a", 1, (), "", "extra"), {}), (("a",), {"colour": 1}), (("a",), {"name": "b"})]:
        with pytest.raises(TypeError):
            oracle(*args, **kwargs)
        with pytest.raises(TypeError, match=r"Sample\(\) (missing|takes|got)"):
            mine(*args, **kwargs)
    assert [f.name for f in records.fields(mine)] == [f.name for f in dataclasses.fields(oracle)]
    assert not hasattr(mine, "seen") and mine.note == "" and mine.kind == "sample"


def test_assigning_a_field_of_a_frozen_record_is_refused_and_changes_nothing() -> None:
    mine, _ = _twins(frozen=True)
    a = mine("a")
    with pytest.raises(FrozenRecordError, match="cannot assign to field 'count'"):
        a.count = 3
    with pytest.raises(FrozenRecordError):
        del a.name
    assert (a.name, a.count) == ("a", 2)
    bid = Bid("a", "TSR", 25)  # a module's record pickles and copies, frozen or not
    assert pickle.loads(pickle.dumps(bid)) == bid and copy.deepcopy(bid) == bid


def test_a_subclass_adds_fields_after_keyword_only_ones_and_runs_post_init() -> None:
    @record
    class Base:
        first: int
        over: bool = field(default=False, kw_only=True)
        notes: list[str] = field(default_factory=list, kw_only=True)

    @record
    class Child(Base):
        second: str

        def __post_init__(self) -> None:
            self.second = self.second.upper()

    child = Child(1, "x", over=True)
    assert (child.first, child.second, child.over) == (1, "X", True)
    assert [f.name for f in records.fields(child)] == ["first", "over", "notes", "second"]
    assert records.asdict(child) == {"first": 1, "over": True, "notes": [], "second": "X"}
    assert child.notes is not Child(1, "y").notes  # a factory makes a fresh default
    with pytest.raises(TypeError):
        Child(1, True, "x")  # over is keyword-only
    with pytest.raises(TypeError, match="no field colour"):
        records.replace(child, colour="red")


def test_identity_records_keep_identity_equality_and_hash() -> None:
    @record(frozen=True, eq=False, repr=False)
    class Tile:
        name: str

    a = Tile("57")
    assert a != Tile("57") and a == a and len({a, Tile("57")}) == 2
    assert repr(a).startswith("<")


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
    saved = records.replace(shown, undo_point=b"a saved state")
    assert shown == saved  # undo_point has compare=False
    assert "undo_point" not in repr(saved)
    assert repr(shown).startswith("MergerRound(") and "order=['V']" in repr(shown)
    assert shown != records.replace(shown, order=["W"])


def test_a_frozen_value_hashes_by_its_fields_and_equals_only_its_own_class() -> None:
    assert hash(Bid("a", "TSR", 25)) == hash(Bid("a", "TSR", 25))
    assert Bid("a", "TSR", 25) != Bid("a", "TSR", 30)
    assert Pass("a") != Bid("a", "TSR", 25) and Pass("a") == Pass("a")
    assert len({Pass("a"), Pass("a"), Pass("b")}) == 2


def test_a_named_tuple_is_declared_as_typing_declares_one() -> None:
    def body(base: Any) -> type:
        class Cell(base):
            """A cell of a market."""

            price: int
            flags: str = ""

            @property
            def ledge(self) -> bool:
                return "l" in self.flags

            def moved(self, by: int) -> Cell:
                return self._replace(price=self.price + by)

        return Cell

    mine, oracle = body(records.NamedTuple), body(typing.NamedTuple)
    for cls in (mine, oracle):
        cell = cls(35, "l")
        assert cell == (35, "l") and cell.ledge and cell.moved(5) == cls(40, "l")
        assert cls(10).flags == "" and cls._fields == ("price", "flags") and cls.__doc__ == "A cell of a market."
        assert cell._asdict() == {"price": 35, "flags": "l"} and hash(cell) == hash((35, "l"))
    assert repr(mine(35)).replace("Cell", "C") == repr(oracle(35)).replace("Cell", "C")
    from engine.board import Border

    water = Border(2, "water", 40)  # a module's named tuple pickles by its name
    assert pickle.loads(pickle.dumps(water)) == water and type(pickle.loads(pickle.dumps(water))) is Border


def test_a_named_tuple_field_without_a_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Bad(records.NamedTuple):
            a: int = 0
            b: int


def test_a_once_attribute_is_worked_out_on_the_first_read_only() -> None:
    calls: list[int] = []

    @record(frozen=True)
    class Tile:
        name: str

        @records.once
        def exits(self) -> tuple[int, ...]:
            """The tile's exits."""
            calls.append(1)
            return (0, 3)

    tile = Tile("57")
    assert tile.exits == (0, 3) and tile.exits == (0, 3) and len(calls) == 1
    assert vars(tile)["exits"] == (0, 3) and Tile("9").exits == (0, 3) and len(calls) == 2
    assert Tile.exits.__doc__ == "The tile's exits."  # type: ignore[attr-defined]
