"""tools/ledger_audit.py (issue 32): a lobby database's ledger invariants, and exit 1 on a
violation planted behind the ledger's back."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from domino.lobby import Lobby
from domino.players.coins import Payout
from tests.support.lobby import fold

ROOT = Path(__file__).resolve().parents[2]


def run_audit(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tools.ledger_audit", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def played(path):
    """A lobby database after grants, a top-up, an expired table, a settled one and an open
    one; closed again. Returns (path, ana's id, bob's id)."""
    lobby = Lobby(path, fold)
    ana = lobby.take_name("Ana")[0].id
    bob = lobby.take_name("Bob")[0].id
    lobby.hold("h1", ana, "t1", 1000)
    lobby.settle("t1", "t1/1", [Payout(None, None, 1000, "forfeit")])  # lost, to the bank
    lobby.top_up(ana)
    lobby.hold("h5", bob, "t4", 500)
    lobby.expire("t4")
    lobby.hold("h2", ana, "t2", 100)
    lobby.hold("h3", bob, "t2", 100)
    lobby.settle("t2", "t2/1", [Payout(0, ana, 200, "pot")])
    lobby.hold("h4", bob, "t3", 250)
    lobby.reward("r/1", {ana: 40, bob: 10})
    lobby.close()
    return path, ana, bob


def test_a_sound_ledger_passes_every_check(played):
    path, _, _ = played
    done = run_audit(path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"ledger audit of {path}: 7 accounts, 13 transfers"
    assert [line[:4] for line in lines[1:]] == ["ok  "] * 6
    assert "every settled or expired escrow is zero" in done.stdout


def plant(path: Path, sql: str, params=()) -> None:
    """Write behind the ledger's back, with plain sqlite3 (no foreign keys, no writer)."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(sql, params)
    conn.close()


@pytest.mark.parametrize(
    ("sql", "failing"),
    [
        (  # a player's coins taken without their balance knowing: below zero in its history
            "INSERT INTO transfers (key, debit, credit, amount, reason, at)"
            " VALUES ('planted', :ana, 'bank', 5000, 'refund', 0)",
            {
                "no balance but the bank's is negative, now or ever",
                "each balance equals the sum of its entries and its statement",
                "every entry is well formed",
            },
        ),
        (  # a coin made from nothing
            "UPDATE ledger_accounts SET balance = balance + 7 WHERE name = 'bank'",
            {
                "the sum of all accounts is zero",
                "each balance equals the sum of its entries and its statement",
            },
        ),
        (  # a stake into a settled table's escrow, its cached balance untouched
            "INSERT INTO transfers (key, debit, credit, amount, reason, at)"
            " VALUES ('late', :bob, 'escrow:t2', 50, 'stake', 0)",
            {
                "every settled or expired escrow is zero",
                "each balance equals the sum of its entries and its statement",
            },
        ),
        (  # entries naming an account the ledger never opened
            "INSERT INTO transfers (key, debit, credit, amount, reason, at)"
            " VALUES ('ghost', 'bank', 'player:ghost', 5, 'grant', 0)",
            {
                "the sum of all accounts is zero",
                "each balance equals the sum of its entries and its statement",
            },
        ),
    ],
)
def test_a_planted_violation_fails_its_invariants(played, sql, failing):
    path, ana, bob = played
    plant(path, sql, {"ana": f"player:{ana}", "bob": f"player:{bob}"})
    done = run_audit(path)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = {line[6:] for line in done.stdout.splitlines() if line.startswith("FAIL")}
    assert failed == failing, done.stdout


def test_a_file_that_is_no_lobby_database_exits_2(tmp_path):
    assert run_audit(tmp_path / "missing.sqlite3").returncode == 2
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).close()
    done = run_audit(other)
    assert done.returncode == 2 and "cannot read" in done.stderr
    assert run_audit().returncode == 2
