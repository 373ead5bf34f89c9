"""Rate-limit counters: fixed windows that expire when read, swept now and then."""

from __future__ import annotations

from limits import RateLimitItemPerMinute
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from domino.web.guard import ratestore
from domino.web.guard.ratestore import LazyMemoryStorage
from tests.support.webkit import make_app


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


def test_a_window_counts_hits_until_it_expires_then_starts_again(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(ratestore.time, "time", clock.time)
    store = LazyMemoryStorage()
    assert [store.incr("a", 60) for _ in range(3)] == [1, 2, 3]
    assert store.get("a") == 3 and store.get("b") == 0
    assert store.get_expiry("a") == clock.now + 60
    clock.now += 59.9
    assert store.incr("a", 60) == 4  # the same window
    clock.now += 0.2
    assert store.get("a") == 0
    assert store.incr("a", 60) == 1  # a new window
    assert store.get_expiry("a") == clock.now + 60


def test_stale_counters_are_swept_at_most_once_a_minute(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(ratestore.time, "time", clock.time)
    store = LazyMemoryStorage()
    for n in range(1000):
        store.incr(f"player-{n}", 10)
    clock.now += 30  # all stale, but the last sweep was under a minute ago
    store.incr("late", 10)
    assert len(store.counters) == 1001
    clock.now += 31
    store.incr("later", 10)
    assert set(store.counters) == {"later"}


def test_the_app_limits_with_it_and_a_limiter_hits_it(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", RATELIMIT_ENABLED=True)
    assert app.config["RATELIMIT_STORAGE_URI"] == "domino-memory://"
    app_limiter = app.extensions["limiter"]
    assert isinstance(app_limiter.storage, LazyMemoryStorage)
    assert isinstance(app_limiter.limiter, FixedWindowRateLimiter)
    store = storage_from_string("domino-memory://")
    assert isinstance(store, LazyMemoryStorage)
    limiter = FixedWindowRateLimiter(store)
    two = RateLimitItemPerMinute(2)
    assert [limiter.hit(two, "10.0.0.1") for _ in range(3)] == [True, True, False]
    assert limiter.hit(two, "10.0.0.2")
    assert store.clear("nothing") is None and store.reset() == 2 and store.check()
