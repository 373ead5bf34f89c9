"""The weekly League (SPEC §12): League points by place, the week a match counts in, and a
week's standings. Results are computed from the matches, never stored as totals.

- **Weeks** run from Monday 00:00 UTC to the next (`week_of`).
- **Points by place**, for the people at a finished public match (`points`): two seats 3 to
  the winner, 0 to the loser, 1 each for a draw; three seats 4 / 2 / 0, tied places sharing
  the points of the places they cover ((4 + 2) / 2 = 3 each for two first); pairs 3 to each
  winner, 0 to each loser, 1 each for a draw. Halved when the table had a computer seat. The
  computer's seats get nothing: they are no player.
- **Standings** (`standings`): each player's points and matches of the week, the most
  points first; players with equal points share a place (1, 1, 3), and are listed by fewer
  matches, then by name.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WEEK = 7 * 24 * 3600
MONDAY = 4 * 24 * 3600  # 1970-01-01 was a Thursday: the first Monday 00:00 UTC is day 4
PLACES = {2: (3.0, 0.0), 3: (4.0, 2.0, 0.0)}
DRAW = 1.0


def week_of(stamp: float) -> float:
    """The start (Monday 00:00 UTC, in seconds since the epoch) of the week holding `stamp`."""
    return MONDAY + ((stamp - MONDAY) // WEEK) * WEEK


def points(places: Sequence[int], teams: bool = False, computer: bool = False) -> list[float]:
    """Each seat's League points for a match its seats finished at `places` (1 = first; equal
    numbers for a tie; at a pairs table partners share a place)."""
    seats = len(places)
    if teams or seats == 2:
        winners = min(places)
        if all(place == winners for place in places):
            earned = [DRAW] * seats
        else:
            earned = [3.0 if place == winners else 0.0 for place in places]
    else:
        table = PLACES[seats]
        order = sorted(places)
        earned = []
        for place in places:
            first = order.index(place)  # the places this tie covers: first .. first + n - 1
            covered = table[first : first + order.count(place)]
            earned.append(sum(covered) / len(covered))
    if computer:
        earned = [value / 2 for value in earned]
    return earned


@dataclass(frozen=True, slots=True)
class Result:
    """One player's share of one finished public match: when, who, the points earned."""

    player: str
    name: str
    points: float
    finished_at: float


@dataclass(frozen=True, slots=True)
class Row:
    place: int
    player: str
    name: str
    points: float
    matches: int


def standings(results: Iterable[Result], week: float | None = None) -> list[Row]:
    """The standings of the week starting at `week` (this week by default)."""
    week = week_of(time.time()) if week is None else week
    totals: dict[str, list] = {}
    for result in results:
        if week_of(result.finished_at) != week:
            continue
        entry = totals.setdefault(result.player, [result.name, 0.0, 0])
        entry[0] = result.name
        entry[1] += result.points
        entry[2] += 1
    ranked = sorted(totals.items(), key=lambda item: (-item[1][1], item[1][2], item[1][0]))
    rows: list[Row] = []
    for index, (player, (name, total, matches)) in enumerate(ranked):
        tied = rows and rows[-1].points == total
        place = rows[-1].place if tied else index + 1
        rows.append(Row(place, player, name, total, matches))
    return rows
