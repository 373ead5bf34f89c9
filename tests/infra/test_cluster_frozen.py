"""A shard that hangs (SIGSTOP: alive, silent) gets nginx's "temporarily unavailable" page
once its 20 s read timeout passes, not a page that never comes; woken, it serves again.
A separate cluster from test_cluster.py's, so that a stopped shard cannot slow its tests."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.support.cluster_rooms import ALIVE, SHARDS, connect, create, fetch, step
from tests.support.webkit import parse

pytestmark = pytest.mark.slow

FROZEN_CUT = 20.0  # nginx's proxy_read_timeout for requests (its template)
FROZEN = SHARDS[0]


def family(pid: int) -> list[int]:
    """The process and its children (gunicorn's master and its worker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [pid, *map(int, children)]


def test_a_frozen_shard_is_said_unavailable_within_nginxs_read_timeout(cluster):
    frozen, alive = create(cluster, FROZEN, False), create(cluster, ALIVE, False)
    for room in (frozen, alive):
        connect(room)
    seat, wait = frozen.seats[0], 3 * FROZEN_CUT
    assert fetch(seat, {}, timeout=wait)[0] == 200
    stopped = family(cluster.pid(f"shard-{FROZEN}"))
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        status, _headers, page, seconds = fetch(seat, {}, timeout=wait)
        assert status == 503, status
        assert parse(page).find("data-unavailable") is not None
        assert seconds < FROZEN_CUT + 10, f"{seconds:.1f} s for the unavailable page"
        step(alive, {})  # the other shard plays on meanwhile
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    assert fetch(seat, {}, timeout=wait)[0] == 200
    step(frozen, {})  # and the woken shard too
