"""Rate-limit counters in this process's memory, expired lazily.

The `limits` package's own memory storage (5.x) starts a timer at a hit, unless one is
pending, that 10 ms later walks every counter it holds: under load that is a thread and a walk
every 10 ms, and with thousands of players the walk costs more than the moves themselves. Here
a counter is checked when it is read, and the stale ones are dropped in one pass at most once
a minute. Fixed windows only (the strategy limits.py uses).
"""

from __future__ import annotations

import threading
import time
from typing import ClassVar

from limits.storage import Storage

SWEEP_SECONDS = 60.0


class LazyMemoryStorage(Storage):
    """Counters as `key -> (count, expires at)`; use it as ``domino-memory://``."""

    STORAGE_SCHEME: ClassVar[list[str]] = ["domino-memory"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options):
        self.counters: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()
        self._next_sweep = 0.0
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self):
        return ValueError

    def _live(self, key: str, now: float) -> tuple[int, float] | None:
        entry = self.counters.get(key)
        return entry if entry is not None and entry[1] > now else None

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        """Add `amount` to the key's count, starting a window of `expiry` seconds if none."""
        now = time.time()
        with self._lock:
            if now >= self._next_sweep:
                self._sweep(now)
            count, expires = self._live(key, now) or (0, now + expiry)
            self.counters[key] = (count + amount, expires)
            return count + amount

    def get(self, key: str) -> int:
        entry = self._live(key, time.time())
        return 0 if entry is None else entry[0]

    def get_expiry(self, key: str) -> float:
        now = time.time()
        entry = self._live(key, now)
        return now if entry is None else entry[1]

    def clear(self, key: str) -> None:
        with self._lock:
            self.counters.pop(key, None)

    def reset(self) -> int:
        with self._lock:
            count = len(self.counters)
            self.counters.clear()
            return count

    def check(self) -> bool:
        return True

    def _sweep(self, now: float) -> None:
        """Drop every counter whose window has passed (the caller holds the lock)."""
        self.counters = {k: v for k, v in self.counters.items() if v[1] > now}
        self._next_sweep = now + SWEEP_SECONDS
