"""The public tables' clocks: one timer per room, armed by the room's owner (`Tables`).

A clock's deadline is the room's (`domino.commands.deadline`), read from the times its events
stored, so a restarted process arms the same timers again (`Tables.resume_clocks`). `Clocks`
keeps one timer per room: arming it again (after every change, from `Tables.nudge`) replaces
the one before, and a room without a deadline has none. When a timer fires, `due(room_id,
seq)` is called: `Tables.time_out` decides under the room's lock whether the clock really ran
out at that position (a room that moved on meanwhile was armed anew by its change).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

EARLY = 0.005  # a timer wakes this much after its deadline: never before it


class Clocks:
    """One timer per room, each calling `due(room_id, seq)` at the room's deadline."""

    def __init__(self, due: Callable[[str, int], None], now: Callable[[], float] = time.time):
        self.due = due
        self.now = now  # the wall clock the stored event times are read against
        self._guard = threading.Lock()
        self._timers: dict[str, tuple[int, float, threading.Timer]] = {}
        self._closed = False

    def arm(self, room_id: str, seq: int, deadline: float | None) -> None:
        """Call `due(room_id, seq)` at `deadline` (None: the room's clock is not running),
        replacing the room's timer unless it is armed for the same position and moment."""
        with self._guard:
            armed = self._timers.get(room_id)
            if armed is not None and armed[:2] == (seq, deadline):
                return
            if armed is not None:
                armed[2].cancel()
                del self._timers[room_id]
            if deadline is None or self._closed:
                return
            timer = threading.Timer(max(0.0, deadline - self.now()) + EARLY, self._fired)
            timer.args = (room_id, seq, timer)
            timer.daemon = True
            self._timers[room_id] = (seq, deadline, timer)
        timer.start()

    def armed(self, room_id: str) -> float | None:
        """The deadline the room's timer is armed for (None: none)."""
        with self._guard:
            armed = self._timers.get(room_id)
        return None if armed is None else armed[1]

    def close(self) -> None:
        """Stop every timer, and arm no more (before the store closes)."""
        with self._guard:
            self._closed = True
            waiting, self._timers = [armed[2] for armed in self._timers.values()], {}
        for timer in waiting:
            timer.cancel()

    def _fired(self, room_id: str, seq: int, timer: threading.Timer) -> None:
        with self._guard:
            armed = self._timers.get(room_id)
            if self._closed or armed is None or armed[2] is not timer:
                return  # replaced or stopped meanwhile
            del self._timers[room_id]
        self.due(room_id, seq)
