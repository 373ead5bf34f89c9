"""Ratings (SPEC §12): openskill's Plackett–Luce model, partners rated as a team.

A player has two ratings, `duel` (two seats) and `table` (three or four). A new rating is
openskill's (μ 25, σ 25/3). What a page shows is conservative: μ − 3σ, scaled so that a new
player shows 1500 (`shown`), and marked provisional for the first PROVISIONAL matches. A
computer seat has a fixed rating per level, never updated; a match with a computer seat moves
each person's rating half as far as it would have moved (`rate`). A match lost by abandonment
is a loss: the caller places that seat last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PROVISIONAL = 10  # matches
SCALE = 60.0  # shown points per point of μ − 3σ
SHOWN_NEW = 1500
KINDS = ("duel", "table")


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    matches: int = 0

    @property
    def shown(self) -> int:
        """The number a page shows: conservative, about 1500 for a new player."""
        return round(SHOWN_NEW + SCALE * (self.mu - 3 * self.sigma))

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL


NEW = Rating()
# The computer's levels, fixed (their σ small: they are what they are).
COMPUTER = {
    "easy": Rating(18.0, 1.0, PROVISIONAL),
    "medium": Rating(24.0, 1.0, PROVISIONAL),
    "hard": Rating(30.0, 1.0, PROVISIONAL),
}


def kind_of(seats: int) -> str:
    """Which of a player's two ratings a table of `seats` counts for."""
    return "duel" if seats == 2 else "table"


def rate(sides: Sequence[Sequence[Rating | str]], places: Sequence[int]) -> list[list[Rating]]:
    """The ratings after a match: `sides` lists each side's seats (a person's Rating, or a
    computer level's name), `places` each side's place (1 first; equal for a tie). A
    computer's entry comes back unchanged; with one at the table, people move half as far."""
    if len(sides) != len(places) or len(sides) < 2:
        raise ValueError("a match has two sides or more, each with its place")
    computer = any(isinstance(seat, str) for side in sides for seat in side)
    teams = [
        [MODEL.rating(mu=r.mu, sigma=r.sigma) for r in (_as_rating(seat) for seat in side)]
        for side in sides
    ]
    moved = MODEL.rate(teams, ranks=list(places))
    after: list[list[Rating]] = []
    for side, new_side in zip(sides, moved, strict=True):
        row = []
        for seat, new in zip(side, new_side, strict=True):
            if isinstance(seat, str):
                row.append(COMPUTER[seat])
                continue
            share = 0.5 if computer else 1.0
            row.append(
                replace(
                    seat,
                    mu=seat.mu + share * (new.mu - seat.mu),
                    sigma=seat.sigma + share * (new.sigma - seat.sigma),
                    matches=seat.matches + 1,
                )
            )
        after.append(row)
    return after


def _as_rating(seat: Rating | str) -> Rating:
    return COMPUTER[seat] if isinstance(seat, str) else seat
