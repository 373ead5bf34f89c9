"""Rewards paid from finished matches' results (SPEC §13, issue 32): in `apply_result`'s write,
by the result's key (domino/lobby/results.py), so a result applied twice pays once and a write
that fails pays nothing."""

from __future__ import annotations

import pytest

import domino.lobby.results as results_module
from domino.lobby.ledger import BANK
from tests.support.ledger import audited
from tests.support.results import MONDAY, result

GRANT = 1000


@pytest.fixture
def people(lobby):
    return [lobby.take_name(name, now=MONDAY)[0].id for name in ("Ana", "Bob", "Cleo", "Dan")]


def earned(lobby, players):
    """What each player holds above the new player's grant."""
    return [lobby.coins(player) - GRANT for player in players]


def rewards_of(lobby, player):
    return [(e.reason, e.amount, e.key) for e in lobby.statement(player) if e.reason == "reward"]


def test_a_public_duel_pays_40_and_10_once_however_often_it_is_applied(lobby, people, path):
    ana, bob = people[:2]
    sent = result("r1", 1, [(ana, 1), (bob, 2)])
    assert lobby.apply_result(sent).new
    assert not lobby.apply_result(dict(sent)).new
    assert earned(lobby, [ana, bob]) == [40, 10]
    assert rewards_of(lobby, ana) == [("reward", 40, f"reward:r1/1:{ana}")]
    assert [e.ref for e in lobby.statement(bob) if e.reason == "reward"] == ["r1/1"]
    assert lobby.balance(BANK) == -4 * GRANT - 50
    assert audited(path) == []


def test_three_seats_pay_60_30_10(lobby, people, path):
    ana, bob, cleo = people[:3]
    lobby.apply_result(result("r3", 1, [(ana, 2), (bob, 3), (cleo, 1)], game="three"))
    assert earned(lobby, [ana, bob, cleo]) == [30, 10, 60]
    assert audited(path) == []


def test_pairs_pay_50_to_each_winner_and_15_to_each_loser(lobby, people, path):
    seats = [(player, 1 if index % 2 == 0 else 2) for index, player in enumerate(people)]
    lobby.apply_result(result("p1", 1, seats, game="pairs", teams=True))
    assert earned(lobby, people) == [50, 15, 50, 15]
    assert audited(path) == []


def test_a_public_match_with_a_computer_pays_the_players_and_not_the_computer(lobby, people):
    ana, bob = people[:2]
    seats = [(ana, 1), (None, 2, "hard"), (bob, 3)]
    lobby.apply_result(result("r4", 1, seats, game="three"))
    assert earned(lobby, [ana, bob]) == [60, 10]


def test_a_friend_match_pays_the_winner_half_the_first_place(lobby, people, path):
    ana, bob = people[:2]
    sent = result("f1", 1, [(ana, 2), (bob, 1)], kind="friend", game=None)
    lobby.apply_result(sent)
    lobby.apply_result(sent)
    assert earned(lobby, [ana, bob]) == [0, 20]
    assert rewards_of(lobby, bob) == [("reward", 20, f"reward:f1/1:{bob}")]
    four = [(player, 2 if index % 2 else 1) for index, player in enumerate(people)]
    lobby.apply_result(result("f2", 1, four, kind="friend", game="pairs", teams=True))
    assert earned(lobby, people) == [25, 20, 25, 0]
    assert audited(path) == []


def test_a_friend_draw_and_a_friend_room_with_one_player_pay_nothing(lobby, people):
    ana, bob = people[:2]
    lobby.apply_result(result("f1", 1, [(ana, 1), (bob, 1)], kind="friend", game=None))
    lobby.apply_result(result("f2", 1, [(ana, 1), (None, 2)], kind="friend", game=None))
    lobby.apply_result(result("f3", 1, [(ana, 1), (None, 2, "easy")], kind="friend", game=None))
    assert earned(lobby, [ana, bob]) == [0, 0]
    assert lobby.result_keys() == ["f1/1", "f2/1", "f3/1"]  # recorded, paying nothing


def test_a_game_against_the_computer_pays_nothing(lobby, people):
    ana = people[0]
    lobby.apply_result(result("c1", 1, [(ana, 1), (None, 2, "hard")], kind="computer"))
    seats = [(ana, 1), (None, 2, "easy"), (None, 3, "medium")]
    lobby.apply_result(result("c2", 1, seats, kind="computer", game="three"))
    assert earned(lobby, [ana]) == [0]
    assert rewards_of(lobby, ana) == []


def test_an_abandoned_seat_earns_nothing_and_is_placed_last(lobby, people):
    ana, bob = people[:2]
    lobby.apply_result(result("r5", 1, [(ana, 1, None, True), (bob, 2)]))
    assert earned(lobby, [ana, bob]) == [0, 40]


def test_a_deleted_player_is_not_paid(lobby, people, path):
    ana, bob = people[:2]
    lobby.delete_player(bob)
    lobby.apply_result(result("r6", 1, [(ana, 2), (bob, 1)]))
    assert earned(lobby, [ana]) == [10]
    assert rewards_of(lobby, bob) == []  # its account keeps what it held, and no more
    assert lobby.coins(bob) == GRANT
    assert audited(path) == []


def test_a_write_that_fails_after_the_rewards_pays_nothing_and_records_nothing(
    lobby, people, path, monkeypatch
):
    ana, bob = people[:2]
    sent = result("r7", 1, [(ana, 1), (bob, 2)])
    real = results_module.post

    def post_then_fail(conn, transfers, now):
        applied = real(conn, transfers, now)
        assert applied == [True, True]  # the coins moved in this transaction ...
        raise RuntimeError("the process dies before the commit")

    monkeypatch.setattr(results_module, "post", post_then_fail)
    with pytest.raises(RuntimeError):
        lobby.apply_result(sent)
    assert earned(lobby, [ana, bob]) == [0, 0]  # ... and went with it
    assert lobby.result_keys() == []
    monkeypatch.setattr(results_module, "post", real)
    assert lobby.apply_result(sent).new  # delivered again: applied, and paid, once
    assert earned(lobby, [ana, bob]) == [40, 10]
    assert audited(path) == []
