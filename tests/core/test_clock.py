"""The clock of a public table (SPEC §12, issue 31): domino/clock.py."""

from __future__ import annotations

import pytest

from domino.clock import BANK_SECONDS, MOVE_SECONDS, TIMEOUTS, Clock


def test_a_move_has_twenty_seconds_then_the_bank_drains():
    clock = Clock.start(2, seat=0, at=100.0)
    assert clock.move_left(110.0) == 10 and clock.bank_left(110.0) == BANK_SECONDS
    assert clock.move_left(125.0) == 0 and clock.bank_left(125.0) == BANK_SECONDS - 5
    assert clock.deadline == 100 + MOVE_SECONDS + BANK_SECONDS


def test_a_quick_move_keeps_the_bank_and_a_slow_one_spends_it():
    clock = Clock.start(2, seat=0, at=0.0).after(0, at=15.0, next_seat=1)
    assert clock.banks == (60.0, 60.0) and clock.seat == 1 and clock.since == 15.0
    clock = clock.after(1, at=15.0 + 50.0, next_seat=0)  # 30 s over its move time
    assert clock.banks == (60.0, 30.0)
    assert clock.deadline == 65.0 + 20.0 + 60.0


def test_the_deadline_follows_the_bank_left():
    clock = Clock.start(3, seat=2, at=0.0).after(2, at=70.0, next_seat=0).turn(2, at=100.0)
    assert clock.banks[2] == 10.0 and clock.deadline == 100 + 20 + 10


def test_a_timeout_spends_the_bank_and_three_hand_the_seat_over():
    clock = Clock.start(2, seat=0, at=0.0)
    for n in range(TIMEOUTS):
        assert not clock.handed(0)
        clock = clock.after(0, at=clock.deadline, next_seat=1, timeout=True)
        assert clock.banks[0] == 0.0 and clock.timeouts[0] == n + 1
        clock = clock.after(1, at=clock.since + 1, next_seat=0)
        assert clock.deadline == clock.since + MOVE_SECONDS  # no bank left: the move alone
    assert clock.handed(0) and not clock.handed(1)


def test_a_restart_reads_the_same_clock_from_the_same_times():
    moves = [(0, 12.0, 1), (1, 40.0, 0), (0, 95.0, 1)]
    clock = Clock.start(2, seat=0, at=0.0)
    for seat, at, after in moves:
        clock = clock.after(seat, at, after)
    again = Clock.start(2, seat=0, at=0.0)
    for seat, at, after in moves:
        again = again.after(seat, at, after)
    assert clock == again and clock.banks == (60.0 - 35.0, 60.0 - 8.0)


def test_only_the_seat_on_move_moves():
    with pytest.raises(ValueError):
        Clock.start(2, seat=0, at=0.0).after(1, at=1.0, next_seat=0)
