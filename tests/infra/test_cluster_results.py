"""Finished matches' results in a real cluster (ARCHITECTURE.md "Growing the house"): two
shards, the lobby and nginx, as `make cluster` runs them (tests/support/shards.py). A result
waiting in a shard's outbox is delivered by that shard's own sender to the lobby's address
(DOMINO_LOBBY_URL, signed with the shared key), applied once and marked sent; nginx answers
404 to /internal/ from outside, and the lobby refuses a delivery signed with another key."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from domino.lobby import Lobby
from domino.players import names
from domino.web.live.results_sender import PATH, signer
from tests.support.results import result
from tests.support.shards import HIGH_LIMITS, Processes, cluster_in, nginx_missing, post_status

WAIT = 20.0  # seconds for a shard's sender to deliver (it looks every second)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    with Processes(cluster_in(tmp_path_factory.mktemp("results"), 2, HIGH_LIMITS)) as running:
        yield running


def lobby_keys(cluster) -> list[str]:
    lobby = Lobby(cluster.cluster.db(cluster.cluster.lobby), names.canonical)
    try:
        return lobby.result_keys()
    finally:
        lobby.close()


@pytest.mark.slow
def test_a_shards_sender_delivers_its_outbox_to_the_lobby(cluster):
    db = cluster.cluster.db(cluster.cluster.shard("s2"))
    sent = result("s2-room", 1, [(None, 1), (None, 2)], kind="friend", at=time.time())
    with sqlite3.connect(db) as conn:  # as the move that ended the match would have
        conn.execute(
            "INSERT INTO outbox (key, room, result, created_at, attempts, next_at)"
            " VALUES (?, ?, ?, ?, 0, ?)",
            [sent["key"], sent["room"], json.dumps(sent), time.time(), time.time()],
        )
    end = time.monotonic() + WAIT
    while True:
        with sqlite3.connect(db) as conn:
            (sent_at,) = conn.execute(
                "SELECT sent_at FROM outbox WHERE key = ?", [sent["key"]]
            ).fetchone()
        if sent_at is not None:
            break
        assert time.monotonic() < end, "the shard never delivered its result"
        time.sleep(0.2)
    assert lobby_keys(cluster) == [sent["key"]]


@pytest.mark.slow
def test_the_internal_path_is_refused_from_outside_and_with_another_key(cluster):
    sent = result("s1-room", 1, [(None, 1), (None, 2)], kind="friend", at=time.time())
    good = signer("cluster-test").dumps(sent)  # the cluster's shared key (cluster_in)
    assert post_status(cluster.url + PATH, good) == 404  # through nginx: no route
    lobby = f"http://{cluster.cluster.lobby.address}"
    assert post_status(lobby + PATH, signer("another key").dumps(sent)) == 403
    assert sent["key"] not in lobby_keys(cluster)
    assert post_status(lobby + PATH, good) == 200  # a shard's way: straight to the lobby
    assert sent["key"] in lobby_keys(cluster)
