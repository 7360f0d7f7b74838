"""Records: the engine's plain data classes, declared as with ``@dataclass``.

``@record`` reads a class body as ``@dataclass`` does (annotated fields in order,
defaults, :func:`field` for factories and for fields left out of comparing or
printing) and gives the class the same ``__init__``, equality, hash, repr and frozen
guards. Type checkers treat it as a dataclass (PEP 681, ``dataclass_transform``).

It exists for start-up: every command and every ``troika replay`` is a fresh process.
Importing ``dataclasses`` loads ``inspect`` with ``ast``, ``dis`` and ``tokenize``, and
``@dataclass`` compiles four to six methods for every class from text (some 0.5 M
instructions each); over the engine's classes that was some 85 M instructions, an
eighth of a one-game replay. ``@record`` compiles nothing: ``__init__``, equality, hash,
repr and the frozen guards are written once, here.

Semantics, as ``@dataclass``'s:
- ``@record``: mutable, equal by the compared fields to an object of the very same
  class, unhashable.
- ``@record(frozen=True)``: assigning a field raises :class:`FrozenRecordError`; hashed
  by the compared fields.
- ``eq=False`` keeps identity equality and hashing; ``repr=False`` keeps the inherited
  repr. A method the class body defines itself is never replaced.
- A subclass without its own ``@record`` inherits its base's fields and ``__init__``.

The module's :class:`NamedTuple` is ``typing.NamedTuple`` without its start-up cost:
typing checks each field's annotation, and with postponed annotations each is text it
compiles as a ``ForwardRef``; its first ``compile()`` builds all of Python's AST node
types (10 M instructions). The engine's named tuples declare the same class body on
this base; type checkers see typing's. The engine's small immutable values that are
built often (the board's parts, the rules, the options, a laid tile) are named tuples:
a tuple is cheaper to build than a frozen record, and equal and hashed in C.

:func:`once` is ``functools.cached_property`` without the lock Python 3.11 takes at
every first read; type checkers see ``cached_property``.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable

TYPE_CHECKING = False
"""Read by the engine's modules in ``if TYPE_CHECKING:``, where they import ``typing``:
type checkers take the block as run, and at run time ``typing`` is never imported
(16 M instructions at every start)."""

if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object) -> Callable[[Any], Any]:
        """Marks :func:`record` for type checkers only."""
        return lambda function: function


class FrozenRecordError(AttributeError):
    """A field of a frozen record was assigned or deleted."""


class _Missing:
    """The marker of a field without a default."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """One declared field: its name, annotation, default and whether it is compared,
    printed and passed by keyword only."""

    __slots__ = ("name", "type", "default", "default_factory", "compare", "repr", "kw_only")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Callable[[], Any] | None = None,
        compare: bool = True,
        repr: bool = True,
        kw_only: bool = False,
    ) -> None:
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr
        self.kw_only = kw_only


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    compare: bool = True,
    repr: bool = True,
    kw_only: bool = False,
) -> Any:
    """Declare a field with a factory default, or left out of equality (``compare``) or
    of the repr (``repr``), or passed by keyword only (``kw_only``)."""
    return Field(default, default_factory, compare, repr, kw_only)


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: type | None = None, /, *, frozen: bool = False, eq: bool = True, repr: bool = True) -> Any:
    """Make ``cls`` a record (see the module's docstring), as ``@dataclass`` would.
    (Type checkers take a class decorator's class as it is declared: no return type
    to spell out.)"""

    def make(cls: type) -> type:
        _declare(cls, frozen, eq, repr)
        return cls

    return make if cls is None else make(cls)


def fields(item: object) -> tuple[Field, ...]:
    """The fields of a record or record class, in ``__init__``'s order of declaration."""
    found: tuple[Field, ...] | None = getattr(item, "__record_fields__", None)
    if found is None:
        raise TypeError(f"{item!r} is not a record")
    return found


def is_record(item: object) -> bool:
    """Whether ``item`` is a record or a record class."""
    return hasattr(item, "__record_fields__")


def replace(item: T, /, **changes: Any) -> T:
    """A copy of the record ``item`` with the given fields changed."""
    values = {f.name: getattr(item, f.name) for f in fields(item)}
    unknown = changes.keys() - values.keys()
    if unknown:
        raise TypeError(f"{type(item).__qualname__} has no field {', '.join(sorted(unknown))}")
    return type(item)(**(values | changes))


def asdict(item: object) -> dict[str, Any]:
    """The record ``item`` as a dict, records inside it (in lists, tuples and dicts)
    converted too; other values are taken as they are."""
    return {f.name: _plain(getattr(item, f.name)) for f in fields(item)}


def _plain(value: Any) -> Any:
    if is_record(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
        return type(value)(*(_plain(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def _declare(cls: type, frozen: bool, eq: bool, shown: bool) -> None:
    declared = _collect_fields(cls)
    cls.__record_fields__ = tuple(declared.values())  # type: ignore[attr-defined]
    cls.__record_compared__ = tuple(f.name for f in declared.values() if f.compare)  # type: ignore[attr-defined]
    cls.__record_shown__ = tuple(f.name for f in declared.values() if f.repr)  # type: ignore[attr-defined]
    own = cls.__dict__
    cls.__init__ = _init_method(cls, declared)  # type: ignore[misc]
    if eq and "__eq__" not in own:
        cls.__eq__ = _equal  # type: ignore[assignment,method-assign]
        cls.__hash__ = _hash if frozen else None  # type: ignore[assignment,method-assign]
    if shown and "__repr__" not in own:
        cls.__repr__ = _repr  # type: ignore[assignment,method-assign]
    if frozen:
        cls.__setattr__ = _refuse_assignment  # type: ignore[assignment,method-assign]
        cls.__delattr__ = _refuse_deletion  # type: ignore[assignment,method-assign]


def _collect_fields(cls: type) -> dict[str, Field]:
    """The base records' fields, then the class body's own annotated ones."""
    declared: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in base.__dict__.get("__record_fields__", ()):
            declared[inherited.name] = inherited
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, MISSING)
        declared_field = value if isinstance(value, Field) else Field(default=value)
        declared_field.name, declared_field.type = name, annotation
        if isinstance(value, Field):
            if value.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, value.default)
        declared[name] = declared_field
    return declared


def _is_class_var(annotation: object) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return repr(annotation).startswith("typing.ClassVar")


def _init_method(cls: type, declared: dict[str, Field]) -> Callable[..., None]:
    """``__init__``: each field from its argument, its default or its factory, in the
    order of declaration, then ``__post_init__`` if the class has one.

    The same function for every class, told the class's fields, rather than one
    compiled from text for each: a start of the program declares some forty records,
    and compiling costs more than all their ``__init__`` calls in a replay. The values
    go into the instance's dict in one update, in the order of declaration."""
    name = cls.__qualname__
    positional = tuple(f.name for f in declared.values() if not f.kw_only)
    defaults = {f.name: f.default for f in declared.values()}
    required = tuple(f.name for f in declared.values() if f.default is MISSING and f.default_factory is None)
    factories = tuple((f.name, f.default_factory) for f in declared.values() if f.default_factory is not None)
    post_init = hasattr(cls, "__post_init__")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(positional):
            raise TypeError(f"{name}() takes {len(positional)} positional arguments but {len(args)} were given")
        values = defaults.copy()
        values.update(zip(positional, args))
        if kwargs:
            _check_keywords(name, kwargs, defaults, positional[: len(args)])
            values.update(kwargs)
        for field_name in required:
            if values[field_name] is MISSING:
                raise TypeError(f"{name}() missing the argument {field_name!r}")
        for field_name, factory in factories:
            if values[field_name] is MISSING:
                values[field_name] = factory()
        self.__dict__.update(values)
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{name}.__init__"
    return __init__


def _check_keywords(name: str, given: dict[str, Any], declared: dict[str, Any], taken: tuple[str, ...]) -> None:
    unknown = given.keys() - declared.keys()
    if unknown:
        raise TypeError(f"{name}() got an unexpected keyword argument {min(unknown)!r}")
    twice = given.keys() & set(taken)
    if twice:
        raise TypeError(f"{name}() got multiple values for the argument {min(twice)!r}")


def _compared(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in self.__record_compared__)


def _equal(self: Any, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
    return f"{type(self).__qualname__}({shown})"


def _refuse_assignment(self: Any, name: str, value: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r} of a frozen {type(self).__qualname__}")


def _refuse_deletion(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r} of a frozen {type(self).__qualname__}")


class _Once:
    """A method read as an attribute: worked out on the first read, then kept in the
    instance's dict like any attribute (see the module's docstring; a replay has some
    400 first reads)."""

    def __init__(self, method: Callable[[Any], Any]) -> None:
        self.method = method
        self.name = method.__name__
        self.__doc__ = method.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.method(instance)
        return value


if TYPE_CHECKING:
    from functools import cached_property

    once = cached_property
else:
    once = _Once


class _NamedTupleType(type):
    """Builds a class declared on :class:`NamedTuple` as ``collections.namedtuple`` does,
    then gives it the class body's docstring, methods and properties, as typing does."""

    def __new__(mcs, name: str, bases: tuple[type, ...], space: dict[str, Any]) -> Any:
        if not bases:  # NamedTuple itself
            return super().__new__(mcs, name, bases, space)
        annotations: dict[str, Any] = space.get("__annotations__", {})
        names = list(annotations)
        defaults = [space[n] for n in names if n in space]
        if any(n not in space for n in names[len(names) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        made = namedtuple(name, names, defaults=defaults, module=space["__module__"])  # type: ignore[misc]
        made.__annotations__ = annotations
        for key, value in space.items():
            if key not in annotations and key not in _NAMED_TUPLE_OWN:
                setattr(made, key, value)
        return made


_NAMED_TUPLE_OWN = frozenset({"__module__", "__annotations__", "__slots__", "__new__", "__init__", "__getnewargs__"})


if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:

    class NamedTuple(metaclass=_NamedTupleType):
        """The base of the engine's named tuples (see the module's docstring)."""
