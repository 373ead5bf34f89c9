"""The clock of a public table (SPEC §12): 20 s a move, then a bank of 60 s a match.

Pure, and a fold like the room: `Clock.start` at a match's first deal, `after(...)` at each
move, with the moments the room's events were stored, so a restart keeps every deadline.

- Each move has MOVE seconds (`DOMINO_MOVE_SECONDS`). Once they are spent, the seat's bank
  (BANK seconds a match, `DOMINO_BANK_SECONDS`) drains; a move within the first MOVE
  seconds leaves the bank as it was.
- When both are spent, the move is the computer's for the seat: `deadline` says when, and the
  room marks that move a timeout (`after(..., timeout=True)`); a timed-out move spends the
  whole bank. A seat with TIMEOUTS timeouts in a match is handed to the computer (`handed`).
- A new round gives the turn afresh (`turn`), the banks run on through the match.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MOVE_SECONDS = 20.0
BANK_SECONDS = 60.0
TIMEOUTS = 3  # timeouts in a match that hand the seat to the computer
ABANDON_SECONDS = 60.0  # away this long, a seat is the computer's and its match lost


@dataclass(frozen=True, slots=True)
class Clock:
    seat: int  # whose move the clock is running for
    since: float  # when that move's time began
    banks: tuple[float, ...]  # each seat's bank left
    timeouts: tuple[int, ...]  # each seat's timeouts in this match
    move: float = MOVE_SECONDS

    @classmethod
    def start(
        cls,
        seats: int,
        seat: int,
        at: float,
        move: float = MOVE_SECONDS,
        bank: float = BANK_SECONDS,
    ) -> Clock:
        """A match's clock, its first move `seat`'s from `at`."""
        return cls(seat, at, (bank,) * seats, (0,) * seats, move)

    def spent(self, now: float) -> float:
        """How long the seat on move has taken so far."""
        return max(0.0, now - self.since)

    def move_left(self, now: float) -> float:
        return max(0.0, self.move - self.spent(now))

    def bank_left(self, now: float) -> float:
        """The bank of the seat on move, as it stands at `now`."""
        drained = max(0.0, self.spent(now) - self.move)
        return max(0.0, self.banks[self.seat] - drained)

    @property
    def deadline(self) -> float:
        """When the seat on move has spent its move and its bank: the computer moves then."""
        return self.since + self.move + self.banks[self.seat]

    def after(self, seat: int, at: float, next_seat: int, timeout: bool = False) -> Clock:
        """The clock once `seat` moved at `at` (the computer for it, with `timeout`), the
        next move being `next_seat`'s."""
        if seat != self.seat:
            raise ValueError(f"seat {seat} moved on seat {self.seat}'s clock")
        banks = list(self.banks)
        timeouts = list(self.timeouts)
        if timeout:
            banks[seat] = 0.0
            timeouts[seat] += 1
        else:
            banks[seat] = self.bank_left(at)
        return replace(self, seat=next_seat, since=at, banks=tuple(banks), timeouts=tuple(timeouts))

    def turn(self, seat: int, at: float) -> Clock:
        """The move is `seat`'s from `at` (a new round's first move), banks unchanged."""
        return replace(self, seat=seat, since=at)

    def handed(self, seat: int) -> bool:
        """True once the seat has timed out TIMEOUTS times this match."""
        return self.timeouts[seat] >= TIMEOUTS
