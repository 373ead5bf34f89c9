"""The fair queue in front of the process pools (domino/web/live/pools.py): one job per key, the
owners in turn, caps, and jobs no longer wanted dropped unstarted.

The queue starts jobs through a `spawn` the tests hold: a started job runs only when the test
says so (`finish`), so every order below is the queue's, not the machine's."""

from __future__ import annotations

import time

import pytest

from domino.web.live.pools import FairQueue, Job


class Slots:
    """The queue's spawn: remembers what was started, runs it on `finish`."""

    def __init__(self) -> None:
        self.started: list[Job] = []
        self._calls: dict[object, tuple] = {}

    def __call__(self, target, job) -> None:
        self.started.append(job)
        self._calls[job.key] = (target, job)

    def finish(self, key) -> None:
        target, job = self._calls.pop(key)
        target(job)

    @property
    def keys(self) -> list:
        return [job.key for job in self.started]


@pytest.fixture
def slots():
    return Slots()


def queue(slots, size=1, per_owner=8, owner_slots=None, now=None):
    clock = (lambda: now[0]) if now is not None else (lambda: 0.0)
    return FairQueue(size, per_owner, owner_slots, clock=clock, spawn=slots)


def job(key, owner="a", tag=None, **kw) -> Job:
    return Job(key, owner, lambda: None, tag=tag, **kw)


def test_owners_take_turns_whatever_the_order_they_asked_in(slots):
    q = queue(slots)
    for key in ("a1", "a2", "a3"):
        q.offer(job(key, "a"))
    q.offer(job("b1", "b"))
    q.offer(job("c1", "c"))
    assert slots.keys == ["a1"]
    assert [q.ahead(k) for k in ("b1", "c1", "a2", "a3")] == [0, 1, 2, 3]
    for key in ("a1", "b1", "c1", "a2"):
        slots.finish(key)
    assert slots.keys == ["a1", "b1", "c1", "a2", "a3"]


def test_a_newer_job_replaces_a_waiting_one_in_its_place(slots):
    q = queue(slots)
    q.offer(job("busy", "x"))
    q.offer(job(("room", 1), "a", tag=5))
    q.offer(job("b1", "b"))
    q.offer(job(("room", 1), "a", tag=6))  # the room moved on before its decision started
    assert [j.tag for j in q.jobs() if j.key == ("room", 1)] == [6]
    assert q.ahead(("room", 1)) == 0
    slots.finish("busy")
    assert slots.started[-1].tag == 6


def test_one_job_per_key_runs_at_a_time(slots):
    q = queue(slots, size=2)
    q.offer(job("k", tag=1))
    q.offer(job("k", tag=2))  # waits for the first, though a slot is free
    assert [j.tag for j in slots.started] == [1]
    slots.finish("k")
    assert [j.tag for j in slots.started] == [1, 2]


def test_an_owner_may_have_only_so_many_waiting(slots):
    q = queue(slots, per_owner=2)
    q.offer(job("running"))
    assert q.offer(job("w1")) and q.offer(job("w2"))
    assert not q.offer(job("w3"))
    assert q.offer(job("w1", tag="newer"))  # a replacement takes no new place
    assert q.offer(job("other", "b"))
    assert sorted(str(j.key) for j in q.jobs()) == ["other", "w1", "w2"]


def test_an_owner_holds_at_most_its_slots_while_others_wait(slots):
    q = queue(slots, size=2, owner_slots=1)
    q.offer(job("a1"))
    q.offer(job("a2"))
    assert slots.keys == ["a1"]  # the second slot stays free for someone else
    q.offer(job("b1", "b"))
    assert slots.keys == ["a1", "b1"]


def test_unwanted_jobs_are_dropped_unstarted(slots):
    q = queue(slots)
    wanted = {"stale": True}
    q.offer(job("busy", "x"))
    q.offer(job("stale", "a", wanted=lambda: wanted["stale"]))
    q.offer(job("fresh", "b"))
    wanted["stale"] = False
    assert q.ahead("fresh") == 0  # the unwanted one is not counted ahead
    slots.finish("busy")
    assert slots.keys == ["busy", "fresh"]
    assert q.waiting("stale") is None


def test_a_job_waits_for_its_time_and_others_go_first(slots):
    now = [10.0]
    q = queue(slots, now=now)
    q.offer(job("later", "a", not_before=10.5))
    q.offer(job("now", "b"))
    assert slots.keys == ["now"]
    slots.finish("now")
    assert slots.keys == ["now"] and q.waiting("later") is not None
    now[0] = 10.6  # the queue's timer, armed for half a second, finds it due when it fires
    deadline = time.monotonic() + 10
    while len(slots.keys) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert slots.keys == ["now", "later"]


def test_cancel_drops_only_a_waiting_job(slots):
    q = queue(slots)
    q.offer(job("run"))
    q.offer(job("wait"))
    assert q.cancel("wait") and not q.cancel("run")
    assert q.busy() and q.running("run") is not None
    slots.finish("run")
    assert not q.busy() and q.wait_idle(0.01)


def test_a_failing_job_frees_its_slot(slots):
    def boom():
        raise RuntimeError("planted")

    q = queue(slots)
    q.offer(Job("bad", "a", boom))
    q.offer(job("next", "b"))
    slots.finish("bad")
    assert slots.keys == ["bad", "next"]
