"""The clock of a public table (SPEC §12, issue 31): domino/clock.py."""

from __future__ import annotations

import pytest

from domino.clock import BANK_SECONDS, MOVE_SECONDS, TIMEOUTS, Clock, whole


def test_a_move_has_twenty_seconds_then_the_bank_drains():
    clock = Clock.start(2, seat=0, at=100.0)
    assert clock.move_left(110.0) == 10 and clock.bank_left(110.0) == BANK_SECONDS
    assert clock.move_left(125.0) == 0 and clock.bank_left(125.0) == BANK_SECONDS - 5
    assert clock.deadline == 100 + MOVE_SECONDS + BANK_SECONDS


def test_a_quick_move_keeps_the_bank_and_a_slow_one_spends_it():
    clock = Clock.start(2, seat=0, at=0.0).moved(15.0, 1)
    assert clock.banks == (60.0, 60.0) and clock.seat == 1 and clock.since == 15.0
    clock = clock.moved(15.0 + 50.0, 0)  # 30 s over its move time
    assert clock.banks == (60.0, 30.0)
    assert clock.deadline == 65.0 + 20.0 + 60.0


def test_between_rounds_nobody_is_on_move_and_the_banks_run_on():
    clock = Clock.start(3, seat=2, at=0.0).moved(70.0, None)
    assert clock.seat is None and clock.bank_left(80.0) == 0
    assert clock.deadline == 70.0 + MOVE_SECONDS  # the next round comes then
    clock = clock.moved(75.0, 2)  # the next round's first move: seat 2 again
    assert clock.banks[2] == 10.0 and clock.deadline == 75 + 20 + 10


def test_a_timeout_spends_the_bank_and_three_hand_the_seat_over():
    clock = Clock.start(2, seat=0, at=0.0)
    for n in range(TIMEOUTS):
        assert not clock.handed(0)
        clock = clock.timed_out()
        assert clock.overdue and clock.banks[0] == 0.0 and clock.timeouts[0] == n + 1
        clock = clock.moved(clock.deadline + 2, 1)  # the computer's move, a little later
        assert not clock.overdue and clock.banks[0] == 0.0  # not drained below nothing
        clock = clock.moved(clock.since + 1, 0)
        assert clock.deadline == clock.since + MOVE_SECONDS  # no bank left: the move alone
    assert clock.handed(0) and not clock.handed(1)


def test_nobody_times_out_between_rounds():
    with pytest.raises(ValueError):
        Clock.start(2, seat=None, at=0.0).timed_out()


def test_a_restart_reads_the_same_clock_from_the_same_times():
    moves = [(12.0, 1), (40.0, 0), (95.0, 1)]
    clock = again = Clock.start(2, seat=0, at=0.0)
    for at, seat in moves:
        clock = clock.moved(at, seat)
    for at, seat in moves:
        again = again.moved(at, seat)
    assert clock == again and clock.banks == (60.0 - 35.0, 60.0 - 8.0)


@pytest.mark.parametrize(("left", "shown"), [(0.0, 0), (0.2, 1), (4.0, 4), (4.01, 5), (-3, 0)])
def test_the_table_shows_whole_seconds_rounded_up(left, shown):
    assert whole(left) == shown
