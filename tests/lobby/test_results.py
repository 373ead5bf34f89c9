"""Results applied once (ARCHITECTURE.md), ratings and League rows (SPEC §12), in the lobby.

Public results are applied directly to the lobby's API here: no public room exists yet.
"""

from __future__ import annotations

import threading

import pytest

from domino.lobby.ratings import COMPUTER, NEW, rate
from domino.players import league
from domino.players.results import BadResult
from tests.support.results import MONDAY, result


@pytest.fixture
def people(lobby):
    return [lobby.take_name(name)[0].id for name in ("Ana", "Bob", "Cleo", "Dan")]


def test_a_public_result_is_applied_once_however_often_it_is_delivered(lobby, people):
    ana, bob = people[:2]
    sent = result("r1", 1, [(ana, 1), (bob, 2)])
    first = lobby.apply_result(sent)
    again = lobby.apply_result(dict(sent))
    assert (first.new, again.new) == (True, False)
    assert lobby.result_keys() == ["r1/1"]
    assert lobby.rating(ana, "duel").matches == 1  # moved once, not twice
    rows = lobby.standings(MONDAY)
    assert [(r.name, r.points, r.matches) for r in rows] == [("Ana", 3.0, 1), ("Bob", 0.0, 1)]


def test_deliveries_at_once_from_many_threads_apply_once(lobby, people):
    ana, bob = people[:2]
    sent = result("r1", 1, [(ana, 1), (bob, 2)])
    answers = []
    threads = [
        threading.Thread(target=lambda: answers.append(lobby.apply_result(sent).new))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [False] * 7 + [True]
    assert lobby.rating(ana, "duel").matches == 1
    assert [r.matches for r in lobby.standings(MONDAY)] == [1, 1]


def test_ratings_move_as_rate_says_and_accumulate(lobby, people):
    ana, bob = people[:2]
    lobby.apply_result(result("r1", 1, [(ana, 1), (bob, 2)]))
    (a1,), (b1,) = rate([[NEW], [NEW]], [1, 2])
    assert lobby.rating(ana, "duel") == a1 and lobby.rating(bob, "duel") == b1
    lobby.apply_result(result("r1", 2, [(ana, 2), (bob, 1)]))
    (a2,), (b2,) = rate([[a1], [b1]], [2, 1])
    assert lobby.rating(ana, "duel") == a2 and lobby.rating(bob, "duel") == b2
    assert lobby.rating(ana, "table") == NEW  # a two-seat match is a duel


def test_partners_are_rated_as_a_team_at_the_table_kind(lobby, people):
    ana, bob, cleo, dan = people
    seats = [(ana, 1), (bob, 2), (cleo, 1), (dan, 2)]  # 0 and 2 against 1 and 3
    lobby.apply_result(result("p", 1, seats, game="pairs", teams=True))
    (a, c), (b, d) = rate([[NEW, NEW], [NEW, NEW]], [1, 2])
    assert [lobby.rating(p, "table") for p in (ana, cleo, bob, dan)] == [a, c, b, d]
    assert lobby.rating(ana, "duel") == NEW
    points = {r.name: r.points for r in lobby.standings(MONDAY)}
    assert points == {"Ana": 3.0, "Cleo": 3.0, "Bob": 0.0, "Dan": 0.0}


def test_against_the_computer_half_as_far_and_half_the_points(lobby, people):
    ana = people[0]
    lobby.apply_result(result("c", 1, [(ana, 1), (None, 2, "hard")]))
    (alone,), (level,) = rate([[NEW], ["hard"]], [1, 2])
    assert level == COMPUTER["hard"]
    assert lobby.rating(ana, "duel") == alone
    (full,), _ = rate([[NEW], [NEW]], [1, 2])
    assert 0 < alone.mu - NEW.mu < full.mu - NEW.mu  # half as far as against a person
    assert [(r.name, r.points) for r in lobby.standings(MONDAY)] == [("Ana", 1.5)]


def test_an_abandoned_seat_is_placed_last(lobby, people):
    ana, bob, cleo = people[:3]
    # Ana's side scored best but she was gone at the end (the computer stood in for her).
    seats = [(ana, 1, None, True), (bob, 2), (cleo, 3)]
    lobby.apply_result(result("t", 1, seats, game="three"))
    (a,), (b,), (c,) = rate([[NEW], [NEW], [NEW]], [3, 1, 2])
    assert [lobby.rating(p, "table") for p in (ana, bob, cleo)] == [a, b, c]
    points = {r.name: r.points for r in lobby.standings(MONDAY)}
    assert points == {"Bob": 4.0, "Cleo": 2.0, "Ana": 0.0}


def test_friend_results_are_recorded_once_without_ratings_or_league(lobby, people):
    ana, bob = people[:2]
    sent = result("f", 1, [(ana, 1), (bob, 2)], kind="friend")
    assert lobby.apply_result(sent).new and not lobby.apply_result(sent).new
    assert lobby.result_keys() == ["f/1"]
    assert lobby.rating(ana, "duel") == NEW and lobby.rating(bob, "duel") == NEW
    assert lobby.standings(MONDAY) == []


def test_the_league_has_weeks_and_places(lobby, people):
    ana, bob, cleo = people[:3]
    last_week = MONDAY - 3600
    lobby.apply_result(result("old", 1, [(cleo, 1), (ana, 2)], at=last_week))
    lobby.apply_result(result("a", 1, [(ana, 1), (bob, 2)]))
    lobby.apply_result(result("a", 2, [(bob, 1), (ana, 1)]))  # a draw: 1 each
    lobby.apply_result(result("b", 1, [(cleo, 1), (None, 2, "easy")]))  # 1.5
    this = [(r.place, r.name, r.points, r.matches) for r in lobby.standings(MONDAY)]
    assert this == [(1, "Ana", 4.0, 2), (2, "Cleo", 1.5, 1), (3, "Bob", 1.0, 2)]
    before = [(r.place, r.name, r.points) for r in lobby.standings(MONDAY - league.WEEK)]
    assert before == [(1, "Cleo", 3.0), (2, "Ana", 0.0)]
    assert lobby.league_row(cleo, MONDAY).place == 2
    assert lobby.league_row(people[3], MONDAY) is None


def test_a_guest_seat_and_an_unknown_player_get_nothing(lobby, people):
    ana = people[0]
    lobby.apply_result(result("g", 1, [(ana, 1), (None, 2), ("nobody-here", 2)], game="three"))
    assert [r.name for r in lobby.standings(MONDAY)] == ["Ana"]
    assert lobby.rating("nobody-here", "table") == NEW


@pytest.mark.parametrize(
    "spoil",
    [
        lambda r: r.update(key="other/1"),
        lambda r: r.update(kind="secret"),
        lambda r: r.update(finished_at="soon"),
        lambda r: r.update(seats=r["seats"][:1]),
        lambda r: r["seats"][0].update(place=0),
        lambda r: r["seats"][1].update(computer="godlike"),
        lambda r: r.update(computer=True),  # no computer seat says so
        lambda r: r["seats"][0].update(player=7),
    ],
)
def test_a_bad_result_is_refused_and_changes_nothing(lobby, people, spoil):
    sent = result("r", 1, [(people[0], 1), (people[1], 2)])
    spoil(sent)
    with pytest.raises(BadResult):
        lobby.apply_result(sent)
    assert lobby.result_keys() == []
    assert lobby.rating(people[0], "duel") == NEW and lobby.standings(MONDAY) == []
