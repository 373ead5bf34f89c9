"""Work waiting for a process pool, served fairly: one job per key, owners in turn.

The computer's decisions and the rounds' reviews (web/live/computer.py, web/live/analyses.py)
run in pools of a few processes. Handing every request straight to a pool let one client's stale or
abandoned work queue up inside it, in front of everyone else's, where nothing could replace or
drop it. Here work waits instead, where it still can be:

- A job has a key (a seat to move in a room, a round to review). A newer job for a key whose
  job has not started replaces it, in its place; one job per key runs at a time.
- A job has an owner (the client address that asked). The next free slot takes the oldest job
  of the owner with the fewest jobs running, the one served longest ago among equals, so one
  client's jobs queue behind each other, never in front of another client's. An owner has at
  most `per_owner` jobs waiting (`offer` says no past that) and at most `owner_slots` running.
- A job may wait until a time (`not_before`: a debounced or retried decision), and may say it is
  no longer wanted (`wanted`: a stale position, a review nobody asks for any more): it is then
  dropped without starting.

At most `slots` jobs run at once (the pool's size), each on a thread of its own that waits on
the pool; so nothing ever queues inside the pool itself.

The pools themselves (`pool`): one per role, of processes started by a fork server, below the
server's priority, each ending with the server.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import select
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

log = logging.getLogger(__name__)
NICENESS = 10  # the pool yields the processor to the server that holds every socket
REVIEW_NICENESS = 15  # and a round's review yields it to the computer's moves
NICE = {"decide": NICENESS, "review": REVIEW_NICENESS}


def _always() -> bool:
    return True


@dataclass(eq=False)
class Job:
    """One piece of work: `run` is called on a thread of its own once a slot is free."""

    key: Hashable
    owner: str
    run: Callable[[], None]
    not_before: float = 0.0
    wanted: Callable[[], bool] = field(default=_always)
    tag: object = None  # what the caller needs to know of it (a decision's position)


def _spawn(target: Callable, *args) -> None:
    threading.Thread(target=target, args=args, daemon=True).start()


class FairQueue:
    """Jobs waiting for `slots` workers, taken one owner after another."""

    def __init__(
        self,
        slots: int,
        per_owner: int,
        owner_slots: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        spawn: Callable = _spawn,
    ) -> None:
        self.slots = max(slots, 1)
        self.per_owner = per_owner
        self.owner_slots = owner_slots or self.slots
        self.clock = clock
        self._spawn = spawn
        self._waiting: dict[str, dict[Hashable, Job]] = {}  # by owner, each's oldest first
        self._owner_of: dict[Hashable, str] = {}  # the owner of each waiting job, by key
        self._running: dict[Hashable, Job] = {}
        self._served: dict[str, int] = {}  # when each owner last had a job started (a serial)
        self._serial = 0
        self._changed = threading.Condition()
        self._wake_at = math.inf  # when the armed timer fires (a job waiting for its time)

    def offer(self, job: Job) -> bool:
        """Queue `job`, in the place of a waiting job with its key; False if its owner has
        `per_owner` jobs waiting already (nothing changes then)."""
        with self._changed:
            owner = self._owner_of.get(job.key)
            if owner is not None and owner != job.owner:
                self._drop(job.key)
                owner = None
            jobs = self._waiting.get(job.owner, {})
            if owner is None and len(jobs) >= self.per_owner:
                return False
            jobs[job.key] = job  # a waiting job of the same key and owner: replaced in place
            self._waiting[job.owner] = jobs
            self._owner_of[job.key] = job.owner
            self._dispatch()
        return True

    def cancel(self, key: Hashable) -> bool:
        """Drop the waiting job of `key`; False if none waits (a running one runs on)."""
        with self._changed:
            found = self._drop(key)
            self._changed.notify_all()
            return found is not None

    def waiting(self, key: Hashable) -> Job | None:
        """The job waiting under `key`, if any."""
        with self._changed:
            owner = self._owner_of.get(key)
            return None if owner is None else self._waiting[owner][key]

    def running(self, key: Hashable) -> Job | None:
        """The job running under `key`, if any."""
        with self._changed:
            return self._running.get(key)

    def jobs(self) -> list[Job]:
        """Every waiting job, in no particular order."""
        with self._changed:
            return [job for jobs in self._waiting.values() for job in jobs.values()]

    def ahead(self, key: Hashable) -> int | None:
        """How many waiting jobs would start before the one of `key` (None: none waits), if
        no running job ended meanwhile."""
        with self._changed:
            if key not in self._owner_of:
                return None
            queues = {
                owner: [job.key for job in jobs.values() if job.wanted()]
                for owner, jobs in self._waiting.items()
            }
            counts, served, serial = self._running_per_owner(), dict(self._served), self._serial
        count = 0
        while True:
            owner = min(
                (o for o in queues if queues[o]), key=lambda o: self._rank(o, counts, served)
            )
            if queues[owner].pop(0) == key:
                return count
            count += 1
            counts[owner] = counts.get(owner, 0) + 1
            served[owner], serial = serial, serial + 1

    def busy(self) -> bool:
        """True while any job waits or runs."""
        with self._changed:
            return bool(self._running or self._owner_of)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no job waits or runs; False if still busy after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._running or self._owner_of:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.5))
        return True

    # -- inside (the lock held)

    def _drop(self, key: Hashable) -> Job | None:
        owner = self._owner_of.pop(key, None)
        if owner is None:
            return None
        jobs = self._waiting[owner]
        job = jobs.pop(key)
        if not jobs:
            del self._waiting[owner]
        return job

    def _dispatch(self) -> None:
        """Start waiting jobs while slots are free; arm a timer for one waiting for its time."""
        now = self.clock()
        while len(self._running) < self.slots:
            job, soonest = self._next(now)
            if job is None:
                self._arm(soonest, now)
                break
            self._running[job.key] = job
            self._spawn(self._run, job)
        self._changed.notify_all()

    def _next(self, now: float) -> tuple[Job | None, float]:
        """Take the oldest startable job of the owner with the fewest running, the one served
        longest ago among equals, dropping the unwanted ones met on the way; else None, and
        when a waiting one may start."""
        soonest = math.inf
        counts = self._running_per_owner()
        for owner in sorted(self._waiting, key=lambda o: self._rank(o, counts, self._served)):
            if counts.get(owner, 0) >= self.owner_slots:
                continue
            for key, job in list(self._waiting[owner].items()):
                if not job.wanted():
                    self._drop(key)
                    continue
                if key in self._running:
                    continue  # its older job ends first
                if job.not_before > now:
                    soonest = min(soonest, job.not_before)
                    continue
                self._drop(key)
                self._served[owner], self._serial = self._serial, self._serial + 1
                return job, soonest
        return None, soonest

    @staticmethod
    def _rank(owner: str, counts: dict[str, int], served: dict[str, int]) -> tuple[int, int]:
        """Who goes first: fewer jobs running, then served longer ago (or never)."""
        return counts.get(owner, 0), served.get(owner, -1)

    def _running_per_owner(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for job in self._running.values():
            counts[job.owner] = counts.get(job.owner, 0) + 1
        return counts

    def _forget(self) -> None:
        """Forget when owners with nothing waiting or running were served last."""
        active = set(self._waiting) | {job.owner for job in self._running.values()}
        for owner in [o for o in self._served if o not in active]:
            del self._served[owner]

    def _arm(self, soonest: float, now: float) -> None:
        if soonest == math.inf or soonest >= self._wake_at:
            return
        self._wake_at = soonest
        timer = threading.Timer(max(soonest - now, 0) + 0.001, self._woken)
        timer.daemon = True
        timer.start()

    def _woken(self) -> None:
        with self._changed:
            self._wake_at = math.inf
            self._dispatch()

    def _run(self, job: Job) -> None:
        try:
            job.run()
        except Exception:  # the job's own handling failed: say so, and go on with the rest
            log.exception("a pool job failed: %r", job.key)
        finally:
            with self._changed:
                if self._running.get(job.key) is job:
                    del self._running[job.key]
                self._dispatch()
                self._forget()


_pools: dict[tuple[str, int], ProcessPoolExecutor] = {}
_pools_lock = threading.Lock()


def pool(
    processes: int, renew: ProcessPoolExecutor | None = None, role: str = "decide"
) -> ProcessPoolExecutor:
    """This process's pool of `processes` workers for `role`, started on first use (or anew
    if broken): "decide" makes the computer's moves, "review" weighs finished rounds (its
    own processes, at a lower priority, so a review never holds up a move).

    Its processes come from a fork server, never from a fork of this (gevent) process.
    """
    with _pools_lock:
        key = (role, processes)
        current = _pools.get(key)
        if current is None or current is renew:
            if current is not None:  # what it was given still ends, in its own time, and is
                current.shutdown(wait=False)  # answered; then its processes end
            context = multiprocessing.get_context("forkserver")
            current = _pools[key] = ProcessPoolExecutor(
                processes,
                mp_context=context,
                initializer=_decider,
                initargs=(os.getpid(), NICE[role]),
            )
        return current


def _decider(server: int, niceness: int = NICENESS) -> None:
    """Start a worker process: below the server's priority, and gone when the server is.

    A server killed outright (SIGKILL, out of memory) never shuts its pool down, and a worker
    waits for work for ever; so each one watches the server's process and ends with it.
    """
    os.nice(niceness)
    threading.Thread(target=_end_with, args=(server,), daemon=True).start()


def _end_with(pid: int) -> None:
    try:
        handle = os.pidfd_open(pid)
    except OSError:  # already gone
        os._exit(0)
    except AttributeError:  # no pidfd (not Linux): look every few seconds
        while _alive(pid):
            time.sleep(2)
        os._exit(0)
    select.select([handle], [], [])  # readable once the process has ended
    os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
