"""The titles Troika plays, each a package with its :class:`engine.title.Title` and its
data files: 1861 and 1867 here. A third title is one more package and one line in
:data:`TITLES` (a package may live anywhere importable, as the tests' own title does).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from ..errors import DataError

if TYPE_CHECKING:
    from ..title import Title

TITLES = {"1861": "engine.titles.t1861", "1867": "engine.titles.t1867"}
"""Title name -> the package that holds it (its ``TITLE``, its data files beside it)."""

DEFAULT_TITLE = "1861"
"""The title a game is unless told otherwise (and a log that names none)."""


_LOADED: dict[str, Title] = {}


def title_named(name: str) -> Title:
    """The title called ``name`` in :data:`TITLES` ("1861" or "1867")."""
    if name not in _LOADED:
        package = TITLES.get(name)
        if package is None:
            raise DataError(f"unknown title {name!r}; Troika plays {', '.join(TITLES)}")
        title: Title = import_module(package).TITLE
        title.name = name
        _LOADED[name] = title
    return _LOADED[name]
