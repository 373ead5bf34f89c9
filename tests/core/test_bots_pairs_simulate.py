"""The simulator at tables of four in pairs and of three: records that check out, per side."""

from __future__ import annotations

import statistics

import pytest

from domino.bots import search
from domino.rules import PRESETS
from tests.support.checker import check_file
from tests.support.simulator import records, simulate, summary


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    """Fewer playouts: the records and the sums do not depend on how many."""
    monkeypatch.setattr(search, "PLAYOUTS", 60)
    monkeypatch.setattr(search, "BLOCK_PLAYOUTS", 60)
    monkeypatch.setattr(search, "WIDE_PLAYOUTS", 60)
    monkeypatch.setattr(search, "MIN_WORLDS", 3)


def run(capsys, tmp_path, rules: str, seats: str, rounds: int):
    """A duplicate run: what it printed and its records (which must pass the checker)."""
    out = tmp_path / f"{rules}.jsonl"
    args = ["--rounds", str(rounds), "--seed", "3", "--rules", rules, "--seats", seats]
    printed = simulate(capsys, *args, "--duplicate", "--out", str(out))
    assert check_file(str(out)) == (rounds, [])
    return printed, records(out)


NAMES = ["hard", "medium", "hard", "medium"]


def test_pairs_rotate_the_sides_and_partners_write_together(tmp_path, capsys):
    printed, recs = run(capsys, tmp_path, "pairs", ",".join(NAMES), 8)
    assert all(rec["rules"] == PRESETS["pairs"].to_json() for rec in recs)
    for r in range(4):  # with a target, rotation r plays deals 0 and 1 as its own match
        for k in range(2):
            rec = recs[2 * r + k]
            assert rec["seats"] == NAMES[r:] + NAMES[:r]
            assert rec["deal"] == recs[k]["deal"]
    hard_nets = []
    for rec in recs:
        result, hard = rec["result"], rec["seats"].index("hard")
        scores = result["scores"]
        assert scores[0] == scores[2] and scores[1] == scores[3]
        assert result["winners"] in ([0, 2], [1, 3], [])
        hard_nets.append(scores[hard] - scores[hard + 1])
    rows = summary(printed)
    assert set(rows) == {f"{bot} (seat {seat})" for seat, bot in enumerate(NAMES)}
    same = ("rounds", "win", "win_ci", "net", "net_ci")
    assert [rows["hard (seat 0)"][key] for key in same] == [
        rows["hard (seat 2)"][key] for key in same
    ]
    net = float(rows["hard (seat 0)"]["net"])
    assert net == pytest.approx(statistics.fmean(hard_nets), abs=0.0051)
    assert float(rows["medium (seat 1)"]["net"]) == pytest.approx(-net, abs=0.0051)


def test_three_rotate_every_seat_and_net_is_against_the_others_mean(tmp_path, capsys):
    names = ["hard", "medium", "medium"]
    printed, recs = run(capsys, tmp_path, "three", ",".join(names), 6)
    for r in range(3):
        for k in range(2):
            assert recs[2 * r + k]["seats"] == names[r:] + names[:r]
            assert recs[2 * r + k]["deal"] == recs[k]["deal"]
    hard_nets = []
    for rec in recs:
        scores, hard = rec["result"]["scores"], rec["seats"].index("hard")
        assert rec["result"]["winners"] in ([0], [1], [2], [])
        others = [score for seat, score in enumerate(scores) if seat != hard]
        hard_nets.append(scores[hard] - statistics.fmean(others))
    rows = summary(printed)
    net = float(rows["hard (seat 0)"]["net"])
    assert net == pytest.approx(statistics.fmean(hard_nets), abs=0.0051)
