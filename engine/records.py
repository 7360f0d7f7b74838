"""Equality, hash and repr of dataclasses by their fields, written once.

``@dataclass`` compiles these methods afresh for every class, at every start of the
program (about 0.6 M instructions a method, some 60 ms a command over the engine's
classes). A class decorated with ``eq=False, repr=False`` that derives from one of
these gets the same behaviour from a single implementation: fields with
``compare=False`` are left out of equality and hash, fields with ``repr=False`` out
of the repr, and only an object of the very same class is ever equal.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar


class ByFields:
    """Equal by the compared fields, printed by the shown ones; unhashable, as a
    mutable dataclass is."""

    __slots__ = ()
    __hash__: ClassVar[None] = None  # type: ignore[assignment]

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _names(type(self))[0])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ByFields)
        return self._compared() == other._compared()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _names(type(self))[1])
        return f"{type(self).__qualname__}({shown})"


class HashedByFields(ByFields):
    """:class:`ByFields` for frozen dataclasses: hashed by the compared fields too."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._compared())


_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _names(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of ``cls``'s compared fields and of its shown ones."""
    found = _NAMES.get(cls)
    if found is None:
        all_fields = fields(cls)
        found = _NAMES[cls] = (
            tuple(f.name for f in all_fields if f.compare),
            tuple(f.name for f in all_fields if f.repr),
        )
    return found
