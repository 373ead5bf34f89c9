"""The one way the web's views keep what they drew or looked up by a key of their own.

Every cache in the repository is built on the standard library. A function whose result
depends on its arguments alone is memoised by `functools` (the pure core's tables, the
guard's policies, a tile's face, the reserved words, a catalog's plain words). What the views
draw from more than their key names (the current language, a seat's view, the app) is kept
here, in a `Kept`: a dictionary that forgets its oldest entry once it holds `most`, looked up
by hand (`recall`, `remember`) under a key that holds everything the value is drawn from: a
part that may not be kept (a player's own name) is never remembered, and a slot may be checked
against what it was drawn from before it is used (a room's line, a seat's move list).

Why not `functools` for these too: an `lru_cache` keys on all of a function's arguments and
shows nothing of what it holds. These are keyed on a part of what they are drawn from, some
are slots replaced or carried on as a room moves, and tests read what every cache holds (no
player's own name in any) and empty them for a while (`every`).

Every `Kept` is written under one lock, since every thread that draws a table shares them;
a read takes none (one dictionary look-up: an entry is there or not), and the lock is never
held while something is drawn.
"""

from __future__ import annotations

import itertools
import math
import threading
import weakref

KEPT = 4096  # entries a cache of parts of tables keeps: far more than are drawn between two uses
EVER = math.inf  # a cache of words per language, or of a finite set of parts: never trimmed
LOCK = threading.Lock()
_MADE: weakref.WeakValueDictionary[int, Kept] = weakref.WeakValueDictionary()  # by serial
_SERIAL = itertools.count()


class Kept(dict):
    """A dictionary that forgets its oldest entry (first in, first out) once it holds `most`;
    an entry written again counts as new. Written through `remember` alone."""

    def __init__(self, most: float = KEPT) -> None:
        super().__init__()
        self.most = most

    def __repr__(self) -> str:
        return f"Kept({dict.__repr__(self)}, most={self.most})"


def kept(most: float = KEPT) -> Kept:
    """A cache that forgets its oldest entry once it holds `most`."""
    cache = Kept(most)
    _MADE[next(_SERIAL)] = cache
    return cache


def every() -> list[Kept]:
    """Every `Kept` cache alive now (the views' module caches and those of each language's
    speaker and teller): for tests that read or empty them all."""
    return list(_MADE.values())


def recall(cache: Kept, key):
    """What `cache` keeps under `key`, or None. Reading changes nothing in it, so it takes no
    lock."""
    return cache.get(key)


def remember(cache: Kept, key, value) -> None:
    """Keep `value` under `key`, as the newest entry (the oldest is forgotten past `most`)."""
    with LOCK:
        cache.pop(key, None)
        cache[key] = value
        if len(cache) > cache.most:
            del cache[next(iter(cache))]
