"""The weekly League (SPEC §12, issue 31): domino/players/league.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domino.players.league import Result, Row, points, standings, week_of


def stamp(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("moment", "monday"),
    [
        ("2026-12-02T04:00", "2026-11-30T00:00"),  # a Wednesday
        ("2026-11-30T00:00", "2026-11-30T00:00"),  # Monday midnight starts its own week
        ("2026-11-29T23:59:59", "2026-11-23T00:00"),  # Sunday night is the week before
        ("1970-01-01T00:00", "1969-12-29T00:00"),
    ],
)
def test_a_week_starts_on_monday_at_midnight_utc(moment, monday):
    assert week_of(stamp(moment)) == stamp(monday)


@pytest.mark.parametrize(
    ("places", "teams", "computer", "expected"),
    [
        ((1, 2), False, False, [3, 0]),
        ((2, 1), False, False, [0, 3]),
        ((1, 1), False, False, [1, 1]),  # a draw
        ((1, 2, 3), False, False, [4, 2, 0]),
        ((3, 1, 2), False, False, [0, 4, 2]),
        ((1, 1, 3), False, False, [3, 3, 0]),  # two first share 4 + 2
        ((1, 2, 2), False, False, [4, 1, 1]),  # two second share 2 + 0
        ((1, 1, 1), False, False, [2, 2, 2]),
        ((1, 2, 1, 2), True, False, [3, 0, 3, 0]),  # pairs: seats 0 and 2 won
        ((1, 1, 1, 1), True, False, [1, 1, 1, 1]),
        ((1, 2), False, True, [1.5, 0]),  # a computer seat halves it
        ((1, 2, 3), False, True, [2, 1, 0]),
    ],
)
def test_points_by_place_as_spec_12_gives_them(places, teams, computer, expected):
    assert points(places, teams, computer) == expected


def test_the_standings_rank_by_points_then_share_a_place():
    week = stamp("2026-11-30T00:00")
    day = 24 * 3600
    results = [
        Result("a", "Ana", 3, week + day),
        Result("b", "Bea", 3, week + 2 * day),
        Result("a", "Ana", 0, week + 3 * day),
        Result("c", "Cyd", 1.5, week + 3 * day),
        Result("c", "Cyd", 1.5, week + 4 * day),
        Result("d", "Dan", 4, week - 1),  # last week's
        Result("e", "Eve", 0.5, week + 6 * day),
    ]
    assert standings(results, week) == [
        Row(1, "b", "Bea", 3, 1),  # as many points as Ana and Cyd, in fewer matches
        Row(1, "a", "Ana", 3, 2),
        Row(1, "c", "Cyd", 3, 2),
        Row(4, "e", "Eve", 0.5, 1),
    ]
    assert standings(results, week - 7 * day) == [Row(1, "d", "Dan", 4, 1)]
