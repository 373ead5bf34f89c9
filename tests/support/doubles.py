"""What tests pass to the app instead of the real thing (ARCHITECTURE.md, principle 10: a
dependency is passed in, not patched): a clock they move on, the computer's decider.

    clock = Clock()
    app = make_app(db, AWAY_CLOCK=clock)       # the hub measures away times by it
    clock.advance(3600)                        # every seat without a socket: away an hour more

    decider = Decider()
    app = make_app(db, BOT_DECIDE=decider)     # the computer asks it instead of its pool
    release = decider.hold()                   # decisions asked from now on wait for release
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout

from domino import bots

HELD_SECONDS = 60  # a held decision never released fails the test after this long


class Clock:
    """A monotonic clock a test moves on: time.monotonic() and what the test added."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds


class Decider:
    """The computer's decisions: the bots' own (`bots.decide`, the function its pool runs), in
    the asking thread, each one kept in `asked` as (level, view).

    `hold()` makes every decision asked from then on wait until the event it returns is set;
    `fail(count)` makes the next `count` decisions take too long (FutureTimeout), as a pool
    past its deadline does; `release_all()` lets every held one go."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, object]] = []
        self.failed: list[str] = []
        self._releases: list[threading.Event] = []
        self._failing = 0

    def __call__(self, level: str, view, seed: int):
        self.asked.append((level, view))
        if self._failing:
            self._failing -= 1
            self.failed.append(level)
            raise FutureTimeout()
        for release in list(self._releases):
            assert release.wait(HELD_SECONDS), "a held decision was never released"
        return bots.decide(level, view, seed)

    @property
    def levels(self) -> list[str]:
        """The level of each decision asked, in order."""
        return [level for level, _view in self.asked]

    def hold(self) -> threading.Event:
        release = threading.Event()
        self._releases.append(release)
        return release

    def fail(self, count: int) -> None:
        self._failing = count

    def release_all(self) -> None:
        for release in self._releases:
            release.set()
