"""The public tables' deadlines (web/live/clocks.py): one per room, the latest arming wins,
None disarms, each fires once with the seq it was armed at, and one thread serves them all."""

from __future__ import annotations

import threading
import time

from domino.web.live.clocks import Clocks


class Fired:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, float]] = []

    def __call__(self, room_id: str, seq: int) -> None:
        self.calls.append((room_id, seq, time.time()))

    def wait(self, count: int, seconds: float = 5.0) -> None:
        deadline = time.monotonic() + seconds
        while len(self.calls) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(self.calls) >= count, self.calls


def test_each_room_fires_once_at_its_deadline_with_its_seq():
    fired = Fired()
    clocks = Clocks(fired)
    start = time.time()
    clocks.arm("b", 7, start + 0.2)
    clocks.arm("a", 3, start + 0.1)
    fired.wait(2)
    time.sleep(0.2)  # nothing more comes
    assert [(room, seq) for room, seq, _ in fired.calls] == [("a", 3), ("b", 7)]
    assert all(at >= start + 0.1 for _room, _seq, at in fired.calls)
    assert clocks.armed("a") is None and clocks.armed("b") is None
    clocks.close()


def test_arming_again_replaces_the_deadline_and_none_disarms():
    fired = Fired()
    clocks = Clocks(fired)
    now = time.time()
    clocks.arm("a", 1, now + 0.1)
    clocks.arm("a", 2, now + 0.3)  # the room moved on: its new deadline
    clocks.arm("b", 1, now + 0.1)
    clocks.arm("b", 2, None)  # its clock stopped
    assert clocks.armed("a") == now + 0.3 and clocks.armed("b") is None
    fired.wait(1)
    time.sleep(0.2)
    assert [(room, seq) for room, seq, _ in fired.calls] == [("a", 2)]
    clocks.close()


def test_a_closed_clock_fires_nothing_and_arms_nothing():
    fired = Fired()
    clocks = Clocks(fired)
    clocks.arm("a", 1, time.time() + 0.1)
    clocks.close()
    clocks.arm("b", 1, time.time() + 0.1)
    time.sleep(0.3)
    assert fired.calls == [] and clocks.armed("b") is None


def test_a_failing_room_does_not_stop_the_others():
    calls = []

    def due(room_id: str, seq: int) -> None:
        calls.append(room_id)
        if room_id == "bad":
            raise RuntimeError("a broken room")

    clocks = Clocks(due)
    now = time.time()
    clocks.arm("bad", 1, now + 0.05)
    clocks.arm("good", 1, now + 0.15)
    deadline = time.monotonic() + 5
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == ["bad", "good"]
    clocks.close()


def test_thousands_of_rooms_share_one_thread():
    clocks = Clocks(lambda room_id, seq: None)
    before = threading.active_count()
    far = time.time() + 3600
    for n in range(2000):
        clocks.arm(f"room{n}", n, far + n)
    assert threading.active_count() <= before + 1
    clocks.close()


def test_an_older_position_never_replaces_a_newer_one():
    fired = Fired()
    clocks = Clocks(fired)
    now = time.time()
    clocks.arm("a", 12, now + 0.1)
    clocks.arm("a", 10, None)  # a nudge that read the room before seq 12, come late
    clocks.arm("a", 11, now + 60)
    assert clocks.armed("a") == now + 0.1
    fired.wait(1)
    assert [(room, seq) for room, seq, _ in fired.calls] == [("a", 12)]
    clocks.close()


def test_a_room_whose_time_out_failed_is_tried_again(monkeypatch):
    from domino.web.live import clocks as module

    monkeypatch.setattr(module, "RETRY_SECONDS", 0.1)
    calls = []

    def due(room_id: str, seq: int) -> None:
        calls.append(seq)
        if len(calls) == 1:
            raise RuntimeError("the store was busy")

    clocks = Clocks(due)
    clocks.arm("a", 5, time.time() + 0.05)
    deadline = time.monotonic() + 5
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == [5, 5]
    clocks.close()
