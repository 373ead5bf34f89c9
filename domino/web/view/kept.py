"""The one way the web's views keep what they drew or looked up: a cachetools cache.

Every cache is made here (`kept`: first in, first out once it holds `most`; `lru`: least
recently used out, for `memo` alone) and is written under one lock, since every thread that
draws a table shares them: `recall` and `remember` for a cache looked up by hand (a part that
may not be kept, a slot checked against what it was drawn from), `memo` for a function whose
result depends on its arguments alone. The lock is never held while something is drawn.
"""

from __future__ import annotations

import math
import threading

from cachetools import Cache, FIFOCache, LRUCache, cached, keys

KEPT = 4096  # entries a cache of parts of tables keeps: far more than are drawn between two uses
EVER = math.inf  # a cache of words per language, or of a finite set of parts: never trimmed
LOCK = threading.Lock()


def kept(most: float = KEPT) -> FIFOCache:
    """A cache that forgets its oldest entry once it holds `most`."""
    return FIFOCache(most)


def lru(most: int) -> LRUCache:
    """A cache that forgets its least recently used entry once it holds `most`."""
    return LRUCache(most)


def recall(cache: Cache, key):
    """What `cache` keeps under `key`, or None. Reading a `kept` cache changes nothing in it,
    so it takes no lock (one dictionary look-up: an entry is there or not)."""
    try:
        return cache[key]
    except KeyError:
        return None


def remember(cache: Cache, key, value) -> None:
    """Keep `value` under `key` (the cache forgets what its bound says it must)."""
    with LOCK:
        cache[key] = value


def memo(cache: Cache, key=keys.hashkey):
    """A function's results kept in `cache`, by `key(*args, **kwargs)`."""
    return cached(cache, key=key, lock=LOCK)
