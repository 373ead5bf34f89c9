"""The computer's moves: decided in a process pool, off the event loop and outside the lock.

Each position the computer must answer (a room at a given `seq`, a seat to move) waits as one
job in a fair queue (web/live/pools.py), keyed by the room and seat and owned by the client address
whose request led to it: a newer position replaces an older one that has not started, and one
client's rooms wait behind each other, never in front of another client's. A started decision
whose room has moved on is ignored when it returns (`Tables.computer_moves` commits only at the
`seq` it was asked for). A level switch lets the position settle before deciding (`SETTLE`). A
decision that fails or takes longer than DECIDE_SECONDS is asked again, with back-off, for as
long as the room stays at that position, so no table waits for a decision nobody will make.

The seat view (never the state) goes to a worker process; the move comes a fixed pause after
the position was committed, however long the decision took, so its timing tells the other
player nothing (a decision slower than the pause lands on a later multiple of it).
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool

from ... import bots
from ...views import seat_view
from .pools import FairQueue, Job, pool

log = logging.getLogger(__name__)
DECIDE_SECONDS = 30  # a decision that runs longer is given up, its worker renewed, and asked again
SETTLE = 0.4  # seconds a level switch waits for the next before deciding
WAITING_PER_ADDRESS = 64  # decisions one address may have waiting (past that: asked again later)
RETRY_SECONDS = (0.5, 1, 2, 4, 8, 15, 30)  # the back-off of a decision asked again
HOUSE = ""  # the owner of positions no request led to (a restart, a timer)


class Computer:
    """The seats the computer plays, in every room of one app."""

    def __init__(
        self,
        app,
        tables,
        delay_ms: int,
        processes: int,
        rng,
        clock=time.monotonic,
        decide=None,
        asker=None,
    ):
        self.app = app
        self.tables = tables
        self.delay = max(delay_ms, 0) / 1000
        self.processes = max(processes, 1)
        self.rng = rng
        self.clock = clock
        # (level, view, seed) -> action: in the process pool unless another decider is passed in
        self.decide = decide or self._decide
        # With several processes, one address never holds them all while others wait.
        self.queue = FairQueue(
            self.processes, WAITING_PER_ADDRESS, max(self.processes - 1, 1), clock
        )
        self._later = 0  # decisions to be asked again after a back-off (their timers)
        self._idle = threading.Condition()
        # () -> the client address of the request being served, None outside a request
        self.asker = asker or (lambda: None)
        self._playing = threading.local()  # the owner of the decision this thread plays

    def nudge(self, room, settle: bool = False) -> None:
        """If a seat the computer plays is to move in `room`, decide (once per position) and
        move; `settle`: the position came from a level switch, which may be followed by more."""
        if room is None or room.round is None or not room.computer_to_move:
            return
        seat = room.round.turn
        key = (room.id, seat)
        for job in (self.queue.running(key), self.queue.waiting(key)):
            if job is not None and job.tag[0] == room.seq:
                return  # this position is being decided, or waits to be
        self._offer(room, self._owner(), settle)

    def _owner(self) -> str:
        """Whose decision this is: the requesting client's address (an IPv6 /64), or the
        owner of the decision whose move led to it."""
        return self.asker() or getattr(self._playing, "owner", HOUSE)

    def _offer(self, room, owner: str, settle: bool = False, attempt: int = 0) -> None:
        seat = room.round.turn
        since = self.clock()
        seq, level, view = room.seq, room.level_of(seat), seat_view(room.round, seat)
        position = (room.id, seq, level, view, self.rng.getrandbits(64), since, owner, attempt)
        job = Job(
            key=(room.id, seat),
            owner=owner,
            run=lambda: self._move(*position),
            not_before=since + SETTLE if settle else 0.0,
            wanted=lambda: self._still_at(room.id, seq),
            tag=(seq, attempt),
        )
        if not self.queue.offer(job):  # this address has enough waiting: its turn comes later
            self._again_later(room.id, seat, seq, owner, attempt)

    def _still_at(self, room_id: str, seq: int) -> bool:
        """True while the room is where the decision was asked (else it is not wanted)."""
        room = self.tables.get(room_id)
        return room is not None and room.seq == seq and room.computer_to_move

    def start(self) -> None:
        """Start the deciders now (starting one blocks for a moment: better before serving)."""
        pool(self.processes).submit(os.getpid).result()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no computer move is pending (for tests)."""
        deadline = time.monotonic() + timeout
        while True:
            busy = self.queue.busy()  # first: a job that fails counts `later` before it ends
            with self._idle:
                later = self._later > 0
            if not later and not busy:
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if later:
                with self._idle:
                    self._idle.wait(min(left, 0.05))
            else:
                self.queue.wait_idle(min(left, 0.05))

    def _move(self, room_id, seq, level, view, seed, since, owner, attempt) -> None:
        self._playing.owner = owner  # the moves this one leads to are this owner's too
        try:
            action = self.decide(level, view, seed)
        except (FutureTimeout, BrokenProcessPool) as error:
            what = "took too long" if isinstance(error, FutureTimeout) else "lost its worker"
            log.warning("the computer's decision in room %s %s; asked again", room_id, what)
            self._again_later(room_id, view.seat, seq, owner, attempt)
            return
        except Exception:
            log.exception("the computer could not decide in room %s; asked again", room_id)
            self._again_later(room_id, view.seat, seq, owner, attempt)
            return
        time.sleep(pause_after(self.delay, self.clock() - since))
        with self.app.app_context():
            self.tables.computer_moves(room_id, seq, action)

    def _again_later(self, room_id: str, seat: int, seq: int, owner: str, attempt: int) -> None:
        """Ask the decision again after a back-off, if the room is still at `seq` then."""
        key = (room_id, seat)
        wait = RETRY_SECONDS[min(attempt, len(RETRY_SECONDS) - 1)]
        with self._idle:
            self._later += 1
        timer = threading.Timer(wait, self._again, (key, seq, owner, attempt + 1))
        timer.daemon = True
        timer.start()

    def _again(self, key: tuple[str, int], seq: int, owner: str, attempt: int) -> None:
        try:
            room = self.tables.get(key[0])
            due = room is not None and room.seq == seq and room.computer_to_move
            if due and self.tables.everyone_here(room):  # else their return nudges anew
                self._offer(room, owner, attempt=attempt)
        finally:  # after the offer: it is counted as queued before it stops counting here
            with self._idle:
                self._later -= 1
                self._idle.notify_all()

    def _decide(self, level: str, view, seed: int):
        """The bot's decision, from a worker process. A broken pool is renewed and asked once
        more; one that takes too long is renewed (its worker ends when done) for the next."""
        deciders = pool(self.processes)
        try:
            future = deciders.submit(bots.decide, level, view, seed)
        except BrokenProcessPool:
            deciders = pool(self.processes, renew=deciders)
            future = deciders.submit(bots.decide, level, view, seed)
        try:
            return future.result(DECIDE_SECONDS)
        except (FutureTimeout, BrokenProcessPool):
            pool(self.processes, renew=deciders)
            raise


def pause_after(delay: float, thought: float) -> float:
    """How much longer to wait, once a decision took `thought` seconds, so the move lands on
    a multiple of the pause `delay` (none without a pause)."""
    if delay <= 0:
        return 0.0
    return max(1, math.ceil(thought / delay)) * delay - thought
