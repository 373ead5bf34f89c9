"""Ratings (SPEC §12, issue 31): domino/lobby/ratings.py over openskill's Plackett–Luce."""

from __future__ import annotations

import pytest

from domino.lobby.ratings import COMPUTER, NEW, PROVISIONAL, Rating, kind_of, rate


def test_a_new_player_shows_about_1500_and_is_provisional():
    assert NEW.shown == 1500 and NEW.provisional


def test_the_winner_rises_the_loser_falls_and_both_grow_surer():
    (winner,), (loser,) = rate([[NEW], [NEW]], [1, 2])
    assert winner.mu > NEW.mu > loser.mu
    assert winner.sigma < NEW.sigma and loser.sigma < NEW.sigma
    assert winner.shown > NEW.shown and winner.matches == loser.matches == 1


def test_a_draw_moves_neither_mean_between_equals():
    (a,), (b,) = rate([[NEW], [NEW]], [1, 1])
    assert a.mu == pytest.approx(NEW.mu) and b.mu == pytest.approx(NEW.mu)


def test_against_the_computer_a_rating_moves_half_as_far():
    (person,), _ = rate([[NEW], [NEW]], [1, 2])
    (against,), (level,) = rate([[NEW], ["medium"]], [1, 2])
    alone = rate([[NEW], [COMPUTER["medium"]]], [1, 2])[0][0]  # as if it were a person
    assert level == COMPUTER["medium"]  # the computer's rating never moves
    assert against.mu - NEW.mu == pytest.approx((alone.mu - NEW.mu) / 2)
    assert against.matches == 1 and person.mu != against.mu


def test_partners_are_rated_as_a_team():
    strong, weak = Rating(30, 2, 20), Rating(20, 2, 20)
    (a, b), (c, d) = rate([[strong, weak], [NEW, NEW]], [2, 1])
    assert a.mu < strong.mu and b.mu < weak.mu  # both partners lose
    assert c.mu > NEW.mu and d.mu > NEW.mu


def test_three_places_order_three_ratings():
    (first,), (second,), (third,) = rate([[NEW], [NEW], [NEW]], [1, 2, 3])
    assert first.mu > second.mu > third.mu


def test_provisional_for_the_first_ten_matches():
    rating = NEW
    for _ in range(PROVISIONAL - 1):
        rating = rate([[rating], [NEW]], [1, 2])[0][0]
    assert rating.provisional
    assert not rate([[rating], [NEW]], [1, 2])[0][0].provisional


def test_two_ratings_one_for_two_seats_one_for_three_or_four():
    assert (kind_of(2), kind_of(3), kind_of(4)) == ("duel", "table", "table")


def test_a_match_needs_two_sides_each_with_a_place():
    with pytest.raises(ValueError):
        rate([[NEW]], [1])
    with pytest.raises(ValueError):
        rate([[NEW], [NEW]], [1])
