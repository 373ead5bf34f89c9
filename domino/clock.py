"""The clock of a public table (SPEC §12): 20 s a move, then a bank of 60 s a match.

Pure, and a fold like the room (`domino.room` folds a public room's "clock" and "timeout"
events into it): `Clock.start` at a match's first deal, `moved(at, seat)` each time the turn
passes, with the moments the room stored in those events, so a restart keeps every deadline.

- Each move has `move` seconds (`DOMINO_MOVE_SECONDS`). Once they are spent, the seat's bank
  (`bank` seconds a match, `DOMINO_BANK_SECONDS`) drains; a move within the first `move`
  seconds leaves the bank as it was. A seat's draws are part of its move: the clock runs on.
- When both are spent (`deadline`), the computer makes the move for the seat: `timed_out()`
  spends the seat's whole bank, counts a timeout and marks the clock `overdue` until the turn
  passes. A seat with TIMEOUTS timeouts in a match is handed to the computer (`handed`).
- Between rounds nobody is on move (`seat` None): the clock waits `move` seconds for the next
  round (`domino.commands.deadline`); the banks run on through the match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

MOVE_SECONDS = 20.0
BANK_SECONDS = 60.0
TIMEOUTS = 3  # timeouts in a match that hand the seat to the computer
ABANDON_SECONDS = 60.0  # away this long, a seat is the computer's and its match lost


@dataclass(frozen=True, slots=True)
class Timing:
    """A public table's clock settings: seconds a move, and the bank a match."""

    move: float = MOVE_SECONDS
    bank: float = BANK_SECONDS


@dataclass(frozen=True, slots=True)
class Clock:
    seat: int | None  # whose move the clock runs for (None: between rounds)
    since: float  # when that move's time began
    banks: tuple[float, ...]  # each seat's bank left
    timeouts: tuple[int, ...]  # each seat's timeouts in this match
    move: float = MOVE_SECONDS
    overdue: bool = False  # the seat's time ran out: the computer moves for it

    @classmethod
    def start(
        cls,
        seats: int,
        seat: int | None,
        at: float,
        move: float = MOVE_SECONDS,
        bank: float = BANK_SECONDS,
    ) -> Clock:
        """A match's clock, its first move `seat`'s from `at`."""
        return cls(seat, at, (float(bank),) * seats, (0,) * seats, float(move))

    def spent(self, now: float) -> float:
        """How long the seat on move has taken so far."""
        return max(0.0, now - self.since)

    def move_left(self, now: float) -> float:
        return max(0.0, self.move - self.spent(now))

    def bank_left(self, now: float) -> float:
        """The bank of the seat on move, as it stands at `now` (its whole bank between rounds)."""
        if self.seat is None:
            return 0.0
        drained = max(0.0, self.spent(now) - self.move)
        return max(0.0, self.banks[self.seat] - drained)

    @property
    def deadline(self) -> float:
        """When the seat on move has spent its move and its bank (between rounds: its move
        time), the computer moves for it then."""
        if self.seat is None:
            return self.since + self.move
        return self.since + self.move + self.banks[self.seat]

    def moved(self, at: float, seat: int | None) -> Clock:
        """The clock once the turn passed at `at` to `seat` (None: the round is over): the
        seat that was on move keeps the bank it had left (none after a timeout)."""
        banks = self.banks
        if self.seat is not None and not self.overdue:
            banks = _put(banks, self.seat, self.bank_left(at))
        return replace(self, seat=seat, since=at, banks=banks, overdue=False)

    def timed_out(self) -> Clock:
        """The seat on move ran out of time: its bank is spent, a timeout counted, and the
        computer moves for it until the turn passes."""
        if self.seat is None:
            raise ValueError("nobody is on move")
        timeouts = _put(self.timeouts, self.seat, self.timeouts[self.seat] + 1)
        banks = _put(self.banks, self.seat, 0.0)
        return replace(self, banks=banks, timeouts=timeouts, overdue=True)

    def handed(self, seat: int) -> bool:
        """True once the seat has timed out TIMEOUTS times this match."""
        return self.timeouts[seat] >= TIMEOUTS


def whole(seconds: float) -> int:
    """Seconds left as the table shows them: whole seconds, rounded up (0 only when none)."""
    return max(0, math.ceil(seconds - 1e-9))


def _put(values: tuple, index: int, value) -> tuple:
    return (*values[:index], value, *values[index + 1 :])
