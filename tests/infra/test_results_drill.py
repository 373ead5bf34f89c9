"""Results exactly once under SIGKILL, in small (bench/results_drill.py): named players play
public tables got through quick match while the servers are killed around match ends; every
finished match is applied in the lobby once, and the League is what the matches give.

Run as the bench runs (a subprocess: the tests do not import the bench); only what must hold
on any machine is checked, never a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.faults import GUNICORN, ROOT
from tests.support.shards import nginx_missing

VIOLATIONS = (
    "outbox_not_drained",
    "finished_without_result",
    "result_without_finished_match",
    "missing",
    "applied_unknown",
    "applied_twice",
    "league_rows_missing",
    "league_rows_extra",
    "league_points_wrong",
    "standings_differ",
    "rating_counts_wrong",
)


def drill(*args: str) -> tuple[int, dict]:
    command = [sys.executable, "-m", "bench.results_drill", "--quiet", "--deadline", "80", *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-2000:]
    return done.returncode, json.loads(lines[-1])


def assert_exactly_once(code: int, figures: dict, kills: int) -> None:
    assert figures["kills"] == kills
    assert figures["matches_finished"] > 0
    assert {name: figures[name] for name in VIOLATIONS if figures[name] != 0} == {}
    assert figures["results_applied"] == figures["matches_finished"]
    assert figures["league_rows"] > 0 and figures["player_failures"] == []
    assert figures["ok"] is True and code == 0


@pytest.mark.slow
def test_one_process_killed_around_match_ends_applies_each_result_once():
    if not GUNICORN.exists():
        pytest.fail(f"gunicorn is not installed at {GUNICORN}")
    code, figures = drill("--phase", "1", "--kills", "5", "--players", "6", "--seed", "3")
    assert figures["phase"] == 1
    assert_exactly_once(code, figures, 5)


@pytest.mark.slow
def test_the_lobby_and_a_shard_killed_in_turn_apply_each_result_once():
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    code, figures = drill("--phase", "2", "--kills", "5", "--players", "6", "--seed", "4")
    assert figures["phase"] == 2
    assert_exactly_once(code, figures, 5)
