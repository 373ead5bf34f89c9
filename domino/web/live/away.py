"""The away watch: one timer per seat whose player is away, until they have been away long.

A table offers to hand a seat over once its player has been away for AWAY_SECONDS (at a public
table, ABANDON_SECONDS abandon the match: `Tables._still_away`), so that moment has to reach
the others' pages though nothing else happens then. `Away` arms one timer
per away seat; when it fires, and the player is still away (not back meanwhile, and away long
enough: a timer that woke a little early looks again), it calls `due(room_id, seat)`, with
which `Tables` pushes the others their tables under the room's lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .hub import Hub


class Away:
    """The timers of away seats, by (room, seat), that call `due` once a seat is away long."""

    def __init__(self, hub: Hub, wait: Callable[[str], float], due: Callable[[str, int], None]):
        self.hub = hub
        self.wait = wait  # room id -> its away seconds, as the app is configured now
        self.due = due
        self._guard = threading.Lock()
        self._timers: dict[tuple[str, int], threading.Timer] = {}
        self._closed = False

    def watch(self, room_id: str, seats) -> None:
        """Once any of `seats` (people away now) has been away for the room's wait, call
        `due` for it (one timer per seat; none for a seat away long already)."""
        wait = self.wait(room_id)
        for seat in seats:
            left = wait - self.hub.away_for(room_id, seat)
            if left < 0:
                continue  # away long already: the tables say so
            with self._guard:
                if self._closed or (room_id, seat) in self._timers:
                    continue
                later = threading.Timer(left + 0.01, self._fired, (room_id, seat))
                later.daemon = True
                self._timers[(room_id, seat)] = later
            later.start()

    def close(self) -> None:
        """Stop the timers still waiting, and arm no more."""
        with self._guard:
            self._closed = True  # a push during teardown arms no new timer
            waiting, self._timers = list(self._timers.values()), {}
        for timer in waiting:
            timer.cancel()

    def _fired(self, room_id: str, seat: int) -> None:
        with self._guard:
            self._timers.pop((room_id, seat), None)
            if self._closed:
                return
        if self.hub.live(room_id, seat) is not None:
            return  # back meanwhile
        if self.hub.away_for(room_id, seat) < self.wait(room_id):
            self.watch(room_id, (seat,))
            return
        self.due(room_id, seat)
