"""Stake tables under SIGKILL, in small (bench/stakes_drill.py): named players join stake
tables, leave them, stay away from them or play them, while the lobby and two shards are
killed at random moments; after each restart the ledger audit passes and no entry a page
showed is missing, and at the end every table is settled or expired with its escrow empty.

Run as the bench runs (a subprocess: the tests do not import the bench); only what must hold
on any machine is checked, never a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.faults import ROOT
from tests.support.shards import nginx_missing

KILLS = 3
AUDIT_LINES = (
    "ok    the sum of all accounts is zero",
    "ok    no balance but the bank's is negative, now or ever",
    "ok    every settled or expired escrow is zero",
    "ok    each key is applied once",
    "ok    each balance equals the sum of its entries and its statement",
    "ok    every entry is well formed",
)


@pytest.mark.slow
def test_the_lobby_and_two_shards_killed_around_stakes_keep_every_coin():
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    command = [
        sys.executable,
        "-m",
        "bench.stakes_drill",
        "--quiet",
        "--kills",
        str(KILLS),
        "--players",
        "8",
        "--seed",
        "3",
        "--deadline",
        "100",
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-2000:]
    figures = json.loads(lines[-1])
    assert figures["kills"] == KILLS
    assert figures["violations"] == [] and figures["player_failures"] == []
    # An audit after every restart and one at the end, each passing.
    assert figures["audits"] == KILLS + 1 and figures["audits_ok"] == KILLS + 1
    assert figures["entries_shown"] > 0 and figures["missing_entries"] == 0
    assert figures["statements_checked"] > 0
    assert figures["joins"] > 0 and figures["expiries"] + figures["settlements"] > 0
    assert figures["tables"] == figures["expiries"] + figures["settlements"]
    # The audit's own command on the drill's lobby database: every invariant ok.
    audit = lines[-1 - len(AUDIT_LINES) : -1]
    assert tuple(audit) == AUDIT_LINES
    assert lines[-2 - len(AUDIT_LINES)].startswith("ledger audit of ")
    assert figures["audit_exit"] == 0
    assert figures["ok"] is True and done.returncode == 0
