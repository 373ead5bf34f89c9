"""The public tables' clocks: one deadline per room, armed by the room's owner (`Tables`).

A clock's deadline is the room's (`domino.commands.deadline`), read from the times its events
stored, so a restarted process arms the same deadlines again (`Tables.resume_clocks`). Arming
a room again (after every change, from `Tables.nudge`) replaces its deadline, and a room
without one has none. One thread waits for the earliest deadline of every room (a heap, the
replaced entries skipped as they come up): thousands of public tables cost no thread each.
When a room's deadline comes, `due(room_id, seq)` is called on that thread: `Tables.time_out`
decides under the room's lock whether the clock really ran out at that position (a room that
moved on meanwhile was armed anew by its change). An arming from an older position than one
seen before is ignored (a nudge made outside the room's lock may come after a newer one's),
and a room whose time-out failed is tried again RETRY_SECONDS later.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)
RETRY_SECONDS = 1.0  # a room whose time-out failed is tried again this much later


class Clocks:
    """Each room's deadline, calling `due(room_id, seq)` when it comes."""

    def __init__(self, due: Callable[[str, int], None], now: Callable[[], float] = time.time):
        self.due = due
        self.now = now  # the wall clock the stored event times are read against
        self._changed = threading.Condition()
        self._armed: dict[str, tuple[int, float, int]] = {}  # room -> (seq, deadline, entry)
        self._seen: dict[str, int] = {}  # room -> the newest seq armed at (None too)
        self._heap: list[tuple[float, int, str]] = []  # (deadline, entry, room)
        self._entries = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False

    def arm(self, room_id: str, seq: int, deadline: float | None) -> None:
        """Call `due(room_id, seq)` at `deadline` (None: the room's clock is not running),
        in place of the room's deadline before; ignored if the room was armed at a newer
        `seq` already."""
        with self._changed:
            if seq < self._seen.get(room_id, seq):
                return  # a stale position: the newer one's deadline stands
            self._seen[room_id] = seq
            armed = self._armed.get(room_id)
            if armed is not None and armed[:2] == (seq, deadline):
                return
            if deadline is None or self._closed:
                self._armed.pop(room_id, None)
                return
            entry = next(self._entries)
            self._armed[room_id] = (seq, deadline, entry)
            heapq.heappush(self._heap, (deadline, entry, room_id))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="clocks", daemon=True)
                self._thread.start()
            self._changed.notify()

    def armed(self, room_id: str) -> float | None:
        """The deadline the room is armed for (None: none)."""
        with self._changed:
            armed = self._armed.get(room_id)
        return None if armed is None else armed[1]

    def forget(self, room_id: str) -> None:
        """Forget a deleted room's deadline and positions."""
        with self._changed:
            self._armed.pop(room_id, None)
            self._seen.pop(room_id, None)

    def close(self) -> None:
        """Forget every deadline, and arm no more (before the store closes)."""
        with self._changed:
            self._closed = True
            self._armed.clear()
            self._seen.clear()
            self._heap.clear()
            self._changed.notify()

    def _next(self) -> tuple[str, int] | None:
        """Wait for the earliest deadline; the room and seq it was armed at (None: closed)."""
        with self._changed:
            while not self._closed:
                while self._heap and self._stale(self._heap[0]):
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._changed.wait()
                    continue
                deadline, _entry, room_id = self._heap[0]
                wait = deadline - self.now()
                if wait > 0:
                    self._changed.wait(wait)
                    continue
                heapq.heappop(self._heap)
                seq = self._armed.pop(room_id)[0]
                return room_id, seq
        return None

    def _stale(self, top: tuple[float, int, str]) -> bool:
        armed = self._armed.get(top[2])
        return armed is None or armed[2] != top[1]

    def _run(self) -> None:
        while (fired := self._next()) is not None:
            try:
                self.due(*fired)
            except Exception:  # one room's failure never stops the others' clocks
                log.exception("the clock of room %s could not run out; tried again", fired[0])
                self._again(*fired)

    def _again(self, room_id: str, seq: int) -> None:
        """Arm a room whose time-out failed again, unless it was armed anew meanwhile."""
        with self._changed:
            if self._closed or room_id in self._armed or self._seen.get(room_id, seq) != seq:
                return  # armed anew, or moved on, meanwhile
        self.arm(room_id, seq, self.now() + RETRY_SECONDS)
