"""The computer's moves: decided in a process pool, off the event loop and outside the lock.

Each position the computer must answer (a room at a given `seq`) starts one decision. Its
seat view (never the state) goes to a worker process; the answer is played through
`Tables.computer_moves`, which commits it only if the room has not moved meanwhile. The move
comes a fixed pause after the position was committed (when the decision starts), however
long the decision took, so its timing tells the other player nothing (a decision slower than
the pause lands on a later multiple of it).
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import os
import select
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from .. import bots
from ..views import seat_view

log = logging.getLogger(__name__)
NICENESS = 10  # the pool yields the processor to the server that holds every socket
REVIEW_NICENESS = 15  # and a round's review yields it to the computer's moves
NICE = {"decide": NICENESS, "review": REVIEW_NICENESS}
DECIDE_SECONDS = 60  # a decision that takes longer is given up (the next nudge asks anew)

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


class Computer:
    """The seats the computer plays, in every room of one app."""

    def __init__(self, app, tables, delay_ms: int, processes: int, rng) -> None:
        self.app = app
        self.tables = tables
        self.delay = max(delay_ms, 0) / 1000
        self.processes = max(processes, 1)
        self.rng = rng
        self._pending: set[tuple[str, int]] = set()
        self._idle = threading.Condition()

    def nudge(self, room) -> None:
        """If a seat the computer plays is to move in `room`, decide (once per position) and
        move."""
        if room is None or room.round is None or not room.computer_to_move:
            return
        key = (room.id, room.seq)
        with self._idle:
            if key in self._pending:
                return
            self._pending.add(key)
        seat = room.round.turn
        view = seat_view(room.round, seat)
        job = (key, room.bots[seat], view, self.rng.getrandbits(64), time.monotonic())
        threading.Thread(target=self._move, args=job, daemon=True).start()

    def start(self) -> None:
        """Start the deciders now (starting one blocks for a moment: better before serving)."""
        pool(self.processes).submit(os.getpid).result()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no computer move is pending (for tests)."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def _move(self, key, level, view, seed, since) -> None:
        room_id, seq = key
        try:
            action = self._decide(level, view, seed)
            time.sleep(self._pause(time.monotonic() - since))
            with self.app.app_context():
                self.tables.computer_moves(room_id, seq, action)
        except Exception:
            log.exception("the computer could not move in room %s", room_id)
        finally:
            with self._idle:
                self._pending.discard(key)
                self._idle.notify_all()

    def _decide(self, level: str, view, seed: int):
        """The bot's decision, from a worker process (the pool is renewed once if broken)."""
        deciders = pool(self.processes)
        try:
            return deciders.submit(bots.decide, level, view, seed).result(DECIDE_SECONDS)
        except BrokenProcessPool:
            deciders = pool(self.processes, renew=deciders)
            return deciders.submit(bots.decide, level, view, seed).result(DECIDE_SECONDS)

    def _pause(self, thought: float) -> float:
        """How much longer to wait so the move lands on a multiple of the pause."""
        if self.delay <= 0:
            return 0.0
        return max(1, math.ceil(thought / self.delay)) * self.delay - thought
