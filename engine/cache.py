"""A bounded memory of recent answers, for searches whose keys are built by hand
(``functools.lru_cache`` keys a function's arguments: a game state is not hashable,
and the route search keys only what it reads of the position)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most ``kept`` values by key; past that, the least recently used (read or
    stored) is forgotten first. Safe to share between threads: each call holds a lock."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for ``key``, now the most recently used; None if not kept."""
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key`` as the most recently used, forgetting the least
        recently used past the bound."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.kept:
                self._entries.popitem(last=False)

    def items(self) -> list[tuple[K, V]]:
        """The keys and values kept, least recently used first."""
        with self._lock:
            return list(self._entries.items())

    def clear(self) -> None:
        """Forget every value."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
