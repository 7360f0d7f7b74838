"""The bounded cache behind the route search's memories (engine.cache.BoundedCache)."""

from __future__ import annotations

import sys
import threading

from engine import graph, route_search
from engine.cache import BoundedCache


def test_the_least_recently_used_is_forgotten_first() -> None:
    """Past its bound the cache forgets the value least recently read or stored: a read
    keeps a value, a value stored again counts as new, and the bound is never passed."""
    cache: BoundedCache[str, int] = BoundedCache(3)
    for n, key in enumerate("abc"):
        cache.put(key, n)
    assert cache.get("a") == 0  # read: now the most recently used
    cache.put("d", 3)  # forgets b, the least recently used
    assert (len(cache), cache.get("b")) == (3, None)
    cache.put("c", 20)  # stored again: now the most recently used, still one entry
    cache.put("e", 4)  # forgets a (read before c and d were stored)
    assert cache.items() == [("d", 3), ("c", 20), ("e", 4)]
    assert [cache.get(key) for key in "abcde"] == [None, None, 20, 3, 4]
    cache.clear()
    assert (len(cache), cache.get("c")) == (0, None)


def test_the_engine_memories_keep_their_bounds() -> None:
    """The engine's memories are bounded as before: 32 track graphs, and in the route
    search 16 solved positions, 1024 bounded searches and 1024 incomes."""
    kept = (graph._CACHE.kept, route_search._SOLVED.kept, route_search._SEARCHED.kept, route_search._INCOMES.kept)
    assert kept == (32, 16, 1024, 1024)


def test_threads_sharing_a_cache_keep_it_bounded_and_consistent() -> None:
    """Threads reading and storing overlapping keys at once (the bot decides and draws in threads:
    they share the route search's memories) never fail and never pass the bound; every value
    read is the one stored for its key."""
    cache: BoundedCache[int, int] = BoundedCache(8)
    failures: list[Exception] = []
    start = threading.Barrier(4)

    def churn(offset: int) -> None:
        start.wait()
        try:
            for n in range(100_000):
                key = (n * 7 + offset) % 13
                cache.put(key, key * 10)
                found = cache.get((key + 5) % 13)
                assert found in (None, (key + 5) % 13 * 10)
                assert len(cache) <= 8
        except Exception as error:  # reported by the main thread
            failures.append(error)

    threads = [threading.Thread(target=churn, args=(offset,)) for offset in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often, so an unlocked read meets an eviction
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    assert len(cache) == 8
