"""The analyses of finished rounds, made off the request path in the review pool.

The first request for a round's review queues one job (web/live/pools.py): the next free slot of the
review pool (web/live/pools.py `pool(role="review")`, processes of their own below the computer's
moves) takes the oldest job of the next client in turn, so one client's many reviews wait behind
each other and never in front of another's. The result is stored (`Store.save_review`) whenever
the pool finishes it, even if every page that asked has gone; later requests serve it. A job not
started is dropped once nobody has asked for it for ABANDONED_SECONDS (the page asks every
second), and each seat and each address may have only a few waiting. No request ever waits on
the pool; a restart forgets what was waiting and the next poll asks again. The pages are
web/routes/review.py.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from functools import partial

from ...bots.analysis import analyze
from .pools import FairQueue, Job, pool

PENDING_CAP = 64  # reviews waiting in all
PER_ADDRESS = 4  # reviews one address may have waiting
PER_SEAT = 2  # and one seat of a room
ABANDONED_SECONDS = 6.0  # a waiting review nobody asked for this long is dropped unstarted
REVIEW_SECONDS = 120  # a review running longer frees its slot (its result is stored when done)
log = logging.getLogger(__name__)


def seed_of(text: str) -> int:
    """The review's random seed: the low 64 bits of the record's SHA-256."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[-8:], "big")


class Reviews:
    """The reviews of one app: one job per round at most, queued fairly for the review pool."""

    def __init__(self, store, processes: int, clock=time.monotonic) -> None:
        self.store = store
        self.processes = max(processes, 1)
        self.clock = clock
        self.queue = FairQueue(self.processes, PER_ADDRESS, clock=clock)
        self._asked: dict[tuple[str, int], float] = {}  # when a page last asked, by round
        self._lock = threading.Lock()

    def stored(self, room_id: str, seq: int) -> dict | None:
        """The stored review of the round recorded at `seq`, if made."""
        text = self.store.review(room_id, seq)
        return None if text is None else json.loads(text)

    def request(self, room_id: str, seq: int, text: str, seat: int, owner: str):
        """Ask for the round's review: ("running", 0), ("waiting", how many start before
        it), or ("busy", None) when its seat, its address or everyone has enough waiting."""
        key = (room_id, seq)
        now = self.clock()
        with self._lock:
            self._asked[key] = now
            for old in [k for k, at in self._asked.items() if now - at > ABANDONED_SECONDS]:
                del self._asked[old]
        if self.queue.running(key) is not None:
            return "running", 0
        if self.queue.waiting(key) is None:
            waiting = self.queue.jobs()
            mine = sum(1 for job in waiting if job.tag == (room_id, seat))
            if len(waiting) >= PENDING_CAP or mine >= PER_SEAT:
                return "busy", None
            job = Job(
                key,
                owner,
                partial(self._run, key, text),
                wanted=partial(self._wanted, key),
                tag=(room_id, seat),
            )
            if not self.queue.offer(job):
                return "busy", None
        ahead = self.queue.ahead(key)
        return ("running", 0) if ahead is None else ("waiting", ahead)

    def idle(self) -> bool:
        """True when no review waits or runs (for tests)."""
        return not self.queue.busy()

    def _wanted(self, key: tuple[str, int]) -> bool:
        """True while a page has asked for the round lately."""
        asked = self._asked.get(key)
        return asked is not None and self.clock() - asked <= ABANDONED_SECONDS

    def _run(self, key: tuple[str, int], text: str) -> None:
        """Weigh the round in the review pool; its result is stored when the pool is done."""
        workers = pool(self.processes, role="review")
        try:
            future = workers.submit(analyze, text, seed_of(text))
        except BrokenProcessPool:
            workers = pool(self.processes, renew=workers, role="review")
            future = workers.submit(analyze, text, seed_of(text))
        try:
            result = future.result(REVIEW_SECONDS)
        except FutureTimeout:  # the slot goes to the next; this one is stored once it is done
            future.add_done_callback(partial(self._save, key))
            log.warning("the review of room %s round %s took too long; kept for later", *key)
            pool(self.processes, renew=workers, role="review")
            return
        except Exception as error:
            log.warning("the review of room %s round %s failed: %r", *key, error)
            pool(self.processes, renew=workers, role="review")
            return
        self._store(key, result)

    def _save(self, key: tuple[str, int], future) -> None:
        """Store a review that ended after its slot was given up (a failure: one line)."""
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.warning("the review of room %s round %s failed: %r", *key, error)
            return
        self._store(key, future.result())

    def _store(self, key: tuple[str, int], result: dict) -> None:
        try:
            self.store.save_review(*key, json.dumps(result))
        except Exception as problem:  # e.g. the store closed meanwhile
            log.warning("the review of room %s round %s was not stored: %r", *key, problem)


def reviews(app) -> Reviews:
    """The app's reviews, made on first use (a restart, or a test that drops them, starts anew)."""
    found = app.extensions.get("domino-reviews")
    if found is None:
        processes = app.config["REVIEW_PROCESSES"]
        store = app.extensions["domino"].rooms.store
        found = app.extensions.setdefault("domino-reviews", Reviews(store, processes))
    return found
