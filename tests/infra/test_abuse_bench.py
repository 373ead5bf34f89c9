"""The abuse bench in small: issues 12's and 27's attacks against the production server
(bench/abuse.py).

Only what must hold on any machine is checked: timings (the other room's latencies, the
honest computer replies and reviews, the pools' idle times) are figures of the bench, not
assertions here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# The bench's attacks, in its order (bench/abuse.py, ATTACKS): the tests do not import the bench.
ATTACKS = (
    "supersede",
    "big_message",
    "slow_bodies",
    "record_downloads",
    "record_downloads_unlimited",
    "computer_rooms",
    "fuzz",
    "decision_flood",
    "review_flood",
    "stand_in_redeal",
)


@pytest.fixture(scope="module")
def result():
    command = [sys.executable, "-m", "bench.abuse", "--small", "--json-only"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout
    return json.loads(lines[0])


@pytest.mark.slow
def test_every_attack_reports_its_verdict_and_the_other_rooms_latency(result):
    assert list(result) == list(ATTACKS)
    for name, found in result.items():
        assert isinstance(found["ok"], bool), name
        assert {"healthz_p50_ms", "healthz_p99_ms", "push_p50_ms", "push_p99_ms"} <= set(found)
        assert found["healthz_p50_ms"] is not None, name  # /healthz answered during the attack


@pytest.mark.slow
def test_replaced_tabs_that_missed_a_ping_give_their_descriptors_back(result):
    found = result["supersede"]
    assert found["supersedes"] == 20 and found["pings_seen"] == 20, found
    assert found["seconds_to_baseline"] is not None, found
    assert found["fds_after"] <= found["fds_before"] + 10, found


@pytest.mark.slow
def test_a_huge_socket_message_is_refused_without_growing_the_worker(result):
    found = result["big_message"]
    assert found["closed"], found
    assert found["sent_mb"] < 16, found  # the server let go before the whole message
    assert found["rss_growth_mb"] < 10, found


@pytest.mark.slow
def test_dripping_connections_are_capped_per_address_and_cut_off_in_time(result):
    found = result["slow_bodies"]
    # --small: 200 bodies with a cap of 50 per address and a 3 s request timeout
    assert found["accepted"] <= 50 and found["refused"] >= 150, found
    assert found["still_open"] == 0 and found["closed_within_s"] <= 3 + 5, found
    headers = found["headers"]
    assert headers["accepted"] <= 50 and headers["refused"] > 0, headers
    assert headers["still_open"] == 0 and headers["closed_within_s"] <= 3 + 5, headers


@pytest.mark.slow
def test_round_records_are_served_whole(result):
    found = result["record_downloads"]
    assert found["first_status"] == 200, found
    assert found["records_served"] == found["rounds"] == 100, found
    assert found["downloads"] > 0 and found["status_429"] > 0, found  # under a limit
    unlimited = result["record_downloads_unlimited"]
    assert unlimited["records_served"] == 100 and unlimited["status_429"] == 0, unlimited
    assert unlimited["downloads"] > found["downloads"], unlimited


@pytest.mark.slow
def test_computer_rooms_keep_moving(result):
    found = result["computer_rooms"]
    assert found["rooms"] == 4 and found["computer_moves"] > 0, found


@pytest.mark.slow
def test_malformed_requests_never_get_a_500(result):
    found = result["fuzz"]
    assert found["requests"] > 250, found
    assert found["status_500"] == 0, found["examples_500"]
    assert {"lang_crlf", "host_label", "ws_handshake", "random"} <= set(found["by_kind"])


@pytest.mark.slow
def test_a_flood_of_level_switches_leaves_no_table_waiting_on_the_computer(result):
    found = result["decision_flood"]
    # --small: 3 rooms spending their seats' budgets at once (120 actions a minute each)
    assert found["rooms"] == 3 and found["level_requests"] > 30, found
    assert found["honest_replies"] > 0 and found["honest_unanswered"] == 0, found
    assert found["stuck"] == 0, found


@pytest.mark.slow
def test_a_flood_of_reviews_lets_the_honest_review_through_and_the_pool_rest(result):
    found = result["review_flood"]
    assert "error" not in found, found
    assert found["reviews"] == 4 and found["abandoned"] == 1, found
    assert found["attacker_pages"] == {"200": 5}, found  # every review was asked for
    assert sum(found["attacker_polls"].values()) > 0, found
    assert not found["honest_flood_cached"], found  # the same round was weighed again
    assert found["honest_alone_s"] > 0 and found["honest_flood_s"] is not None, found
    assert found["review_processes_seen"] > 0, found  # the pool's processes were found
    assert found["pool_idle_after_s"] is not None, found


@pytest.mark.slow
def test_a_seat_handed_to_the_computer_neither_redeals_nor_changes_level_for_the_host(result):
    found = result["stand_in_redeal"]
    assert "error" not in found, found
    assert found["redeals_tried"] == 3 and found["levels_tried"] == 2, found
    assert found["redeals_granted"] == 0 and found["levels_granted"] == 0, found
    # each was refused, or left waiting for the away player's word (which deals nothing)
    assert found["redeals_refused"] + found["redeals_other"] == 3, found
    assert found["requests_waiting"] <= found["redeals_other"], found
    assert found["levels_refused"] == 2, found
