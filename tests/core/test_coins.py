"""Coins' rules (SPEC §13, issue 32): domino/players/coins.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domino.players import coins
from domino.players.coins import Payout, place_rewards, pot_split, refunds, rewards, settle
from domino.players.results import Seat, parse
from tests.support.results import result


def test_the_grant_top_up_and_stakes_are_spec_13s():
    assert (coins.GRANT, coins.TOP_UP, coins.STAKES) == (1000, 200, (100, 250, 500, 1000))
    assert coins.REASONS == ("grant", "top-up", "reward", "stake", "refund", "pot", "forfeit")


@pytest.mark.parametrize(("balance", "paid"), [(0, 200), (150, 50), (199, 1), (200, 0), (900, 0)])
def test_a_top_up_brings_a_balance_up_to_200(balance, paid):
    assert coins.top_up(balance) == paid


@pytest.mark.parametrize(
    ("places", "teams", "expected"),
    [
        ((1, 2), False, [40, 10]),
        ((2, 1), False, [10, 40]),
        ((1, 1), False, [25, 25]),  # a draw: the mean of 40 and 10
        ((1, 2, 3), False, [60, 30, 10]),
        ((3, 1, 2), False, [10, 60, 30]),
        ((1, 1, 3), False, [45, 45, 10]),  # two first share 60 and 30
        ((1, 2, 2), False, [60, 20, 20]),  # two second share 30 and 10
        ((1, 1, 1), False, [33, 33, 33]),  # 100 / 3, to the nearest coin
        ((1, 2, 1, 2), True, [50, 15, 50, 15]),  # pairs: seats 0 and 2 won
        ((2, 1, 2, 1), True, [15, 50, 15, 50]),
        ((1, 1, 1, 1), True, [33, 33, 33, 33]),  # 32.5, a half up
    ],
)
def test_a_public_match_pays_every_place(places, teams, expected):
    assert place_rewards(places, teams) == expected


def seats_of(places, players=None, levels=(), gone=(), teams=False, kind="public"):
    """A parsed result: seat i at `places[i]`, player `players[i]` (default p0, p1, ...),
    the computer at the seats in `levels`, abandoned at the seats in `gone`."""
    players = players or [f"p{i}" for i in range(len(places))]
    rows = [
        (None, place, "hard", False)
        if seat in levels
        else (players[seat], place, None, seat in gone)
        for seat, place in enumerate(places)
    ]
    return parse(result("r", 1, rows, kind=kind, teams=teams))


def test_public_rewards_go_to_players_only():
    assert rewards(seats_of((1, 2))) == [40, 10]
    assert rewards(seats_of((2, 1, 3))) == [30, 60, 10]
    assert rewards(seats_of((1, 2, 3), levels={2})) == [60, 30, 0]  # no coins to the computer
    assert rewards(seats_of((1, 2, 3), players=["p0", None, "p2"])) == [60, 0, 10]  # nor a guest


def test_against_the_computer_alone_nothing_is_paid():
    assert rewards(seats_of((1, 2), levels={1}, kind="computer")) == [0, 0]
    assert rewards(seats_of((1, 2), levels={1})) == [0, 0]  # a public table the computer filled
    assert rewards(seats_of((1, 2, 1, 2), levels={1, 2, 3}, teams=True)) == [0] * 4
    assert rewards(seats_of((1, 2), players=["p0", "p0"])) == [0, 0]  # one player, two seats


def test_an_abandoned_seat_is_placed_last_and_paid_nothing():
    assert rewards(seats_of((1, 2), gone={0})) == [0, 40]
    assert rewards(seats_of((1, 2, 3), gone={0})) == [0, 60, 30]
    # pairs: side 0 (seats 0, 2) led but seat 2 left; its partner is paid as the last side
    assert rewards(seats_of((1, 2, 1, 2), gone={2}, teams=True)) == [15, 50, 0, 50]


def test_a_friend_room_pays_the_winners_half_the_first_place():
    assert rewards(seats_of((1, 2), kind="friend")) == [20, 0]
    assert rewards(seats_of((2, 1, 3), kind="friend")) == [0, 30, 0]
    assert rewards(seats_of((1, 1, 3), kind="friend")) == [30, 30, 0]
    assert rewards(seats_of((2, 1, 2, 1), kind="friend", teams=True)) == [0, 25, 0, 25]
    assert rewards(seats_of((1, 1), kind="friend")) == [0, 0]  # a draw has no winner
    # two players and the computer: the players count
    assert rewards(seats_of((1, 2, 3), levels={1}, kind="friend")) == [30, 0, 0]
    # one player and a guest: fewer than two seats are players
    assert rewards(seats_of((1, 2), players=["p0", None], kind="friend")) == [0, 0]


def test_a_pot_splits_equally_the_odd_coins_to_the_earlier_seats():
    assert pot_split(200, [0]) == coins.Split(((0, 200),), ())
    assert pot_split(400, [2, 0]) == coins.Split(((0, 200), (2, 200)), ())
    split = pot_split(301, [3, 1])
    assert split.shares == ((1, 151), (3, 150)) and split.odd == (1,)
    assert pot_split(5, [0, 1, 2]).shares == ((0, 2), (1, 2), (2, 1))
    with pytest.raises(ValueError):
        pot_split(100, [])


@given(st.integers(0, 10**6), st.sets(st.integers(0, 3), min_size=1))
def test_a_split_sums_to_the_pot_and_is_even_within_a_coin(pot, winners):
    split = pot_split(pot, winners)
    amounts = [amount for _, amount in split.shares]
    assert sum(amounts) == pot
    assert max(amounts) - min(amounts) <= 1
    assert [seat for seat, _ in split.shares] == sorted(winners)
    assert split.odd == tuple(seat for seat, amount in split.shares if amount > min(amounts))


def seat(number, place, gone=False, side=None):
    return Seat(number, number if side is None else side, place, f"p{number}", None, gone)


def test_the_whole_pot_goes_to_the_winner():
    assert settle(100, [seat(0, 2), seat(1, 1)]) == [Payout(1, "p1", 200, "pot")]


def test_a_pairs_pot_is_split_between_the_winning_partners():
    seats = [seat(0, 1, side=0), seat(1, 2, side=1), seat(2, 1, side=0), seat(3, 2, side=1)]
    assert settle(250, seats) == [Payout(0, "p0", 500, "pot"), Payout(2, "p2", 500, "pot")]


def test_a_draw_returns_every_stake():
    assert settle(500, [seat(0, 1), seat(1, 1)]) == [
        Payout(0, "p0", 500, "refund"),
        Payout(1, "p1", 500, "refund"),
    ]


def test_an_abandoned_seat_forfeits_its_stake_to_the_winner():
    # seat 0 led on points but left: its side is last, and its stake is written as forfeit
    assert settle(100, [seat(0, 1, gone=True), seat(1, 2)]) == [
        Payout(1, "p1", 100, "pot"),
        Payout(1, "p1", 100, "forfeit"),
    ]
    # a draw with a seat gone is no draw: the one who stayed takes the pot
    assert sum(p.amount for p in settle(100, [seat(0, 1), seat(1, 1, gone=True)])) == 200


def test_a_pairs_partner_who_stays_does_not_win_by_the_partner_leaving():
    seats = [seat(0, 1, side=0), seat(1, 2, side=1), seat(2, 1, True, 0), seat(3, 2, side=1)]
    paid = settle(100, seats)
    assert {(p.player, p.reason): p.amount for p in paid} == {
        ("p1", "pot"): 150,
        ("p1", "forfeit"): 50,
        ("p3", "pot"): 150,
        ("p3", "forfeit"): 50,
    }


def test_when_everybody_left_the_pot_is_forfeit_to_the_bank():
    assert settle(100, [seat(0, 1, True), seat(1, 2, True)]) == [Payout(None, None, 200, "forfeit")]


def test_refunds_return_what_each_holds():
    assert refunds({"a": 100, "b": 0, "c": 250}) == [
        Payout(None, "a", 100, "refund"),
        Payout(None, "c", 250, "refund"),
    ]


table_seats = st.integers(0, 1).flatmap(
    lambda pairs: st.lists(st.tuples(st.integers(1, 2), st.booleans()), min_size=2, max_size=2).map(
        lambda rows: (pairs, rows)
    )
)


@given(table_seats, st.sampled_from(coins.STAKES))
def test_a_settlement_pays_out_the_whole_pot_evenly(table, stake):
    """Two seats or pairs, any places and abandonments: the payouts are the pot, and the
    people paid as winners are within a coin of each other."""
    pairs, rows = table
    seats = [
        Seat(n, n % 2, rows[n % 2][0], f"p{n}", None, rows[n % 2][1] and n < 2)
        for n in range(4 if pairs else 2)
    ]
    paid = settle(stake, seats)
    assert sum(p.amount for p in paid) == stake * len(seats)
    assert all(p.amount > 0 for p in paid)
    won: dict[str | None, int] = {}
    for p in paid:
        won[p.player] = won.get(p.player, 0) + p.amount
    assert max(won.values()) - min(won.values()) <= 1
    assert not any(p.player == s.player for p in paid for s in seats if s.abandoned)
