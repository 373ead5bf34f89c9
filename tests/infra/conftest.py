"""The infra tier's shared fixture: a cluster of two shards behind nginx, one per module that
asks for it (tests/support/cluster_rooms.py plays rooms on it; test_cluster_limits.py and
test_restore.py start clusters of their own)."""

from __future__ import annotations

import pytest

from tests.support.shards import HIGH_LIMITS, Processes, cluster_in, nginx_missing


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    env = {**HIGH_LIMITS, "DOMINO_PING_SECONDS": "60"}
    processes = Processes(cluster_in(tmp_path_factory.mktemp("cluster"), 2, env))
    try:
        processes.start_all()
        yield processes
    finally:
        processes.stop_all()
