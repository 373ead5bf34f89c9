"""The simulator under rules (docs/contracts.md, the simulator): `--rules`, matches in the records,
rotations."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from domino.game import opener
from domino.record import deal_from_dict, from_record
from domino.rules import PRESETS, Rules
from tests.support.checker import check_file
from tests.support.simulator import records, refused, simulate, summary

SMALL_MATCH = json.dumps({"blocked": "all", "target": 30})


def run_rules(capsys, out: Path, rules: str, seats: str, rounds: int, *more: str) -> str:
    """Run the simulator under `rules`, writing records to `out`; return what it printed."""
    args = ["--rounds", str(rounds), "--seed", "4", "--rules", rules, "--seats", seats]
    return simulate(capsys, *args, "--out", str(out), *more)


# -- --rules ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "match-100", "block", "goat", "international"])
def test_every_two_seat_preset_runs_and_its_records_pass_the_checker(tmp_path, capsys, name):
    out = tmp_path / f"{name}.jsonl"
    printed = run_rules(capsys, out, name, "greedy,random", 6)
    assert check_file(str(out)) == (6, [])
    rules = PRESETS[name]
    for rec in records(out):
        assert Rules.from_json(rec.get("rules", {})) == rules
        assert ("match" in rec) == (rules.target is not None)
    assert set(summary(printed)) == {"greedy", "random"}


def test_rules_as_json_are_played(tmp_path, capsys):
    out = tmp_path / "five.jsonl"
    rules = {"hand_size": 5, "boneyard": False, "opener": "heaviest-tile"}
    run_rules(capsys, out, json.dumps(rules), "medium,easy", 4)
    for rec in records(out):
        assert rec["rules"] == {**Rules().to_json(), **rules}
        assert [len(hand) for hand in rec["deal"]["hands"]] == [5, 5]
        assert not any(event["action"] == "draw" for event in rec["events"])
    assert check_file(str(out)) == (4, [])


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        ("blok", ["--rules", "not a preset", "classic", "goat"]),
        ('{"hand_size": 15}', ["--rules", "hands of 15 do not fit"]),
        ('{"colour": "red"}', ["--rules", "unknown rules field 'colour'"]),
        ('{"target": "100"}', ["--rules", "target cannot be '100'"]),
        ("[1, 2]", ["--rules", "the rules are an object"]),
    ],
)
def test_bad_rules_are_refused_clearly_and_write_nothing(tmp_path, capsys, rules, words):
    out = tmp_path / "bad.jsonl"
    args = ["--rounds", "2", "--seed", "1", "--seats", "random,random", "--out", str(out)]
    err = refused(capsys, *args, "--rules", rules)
    for word in words:
        assert word in err
    assert not out.exists()


def test_the_seats_follow_the_rules(capsys):
    err = refused(capsys, "--rounds", "4", "--seed", "1", "--rules", "pairs", "--seats", "a,b")
    assert "4 bots" in err
    err = refused(
        capsys,
        "--rounds",
        "4",
        "--seed",
        "1",
        "--rules",
        "three",
        "--seats",
        "random,random,random",
        "--duplicate",
    )
    assert "multiple of 3" in err


# -- matches ------------------------------------------------------------------------------


def expected_winners(after: list[int], scoring: str) -> list[int]:
    """The seats of the side that won a two-seat match, none for a draw."""
    best = min(after) if scoring == "goat" else max(after)
    seats = [seat for seat, score in enumerate(after) if score == best]
    return seats if len(seats) == 1 else []


@pytest.mark.parametrize("scoring", ["winner", "goat"])
def test_match_records_chain_from_zero_to_the_target(tmp_path, capsys, scoring):
    out = tmp_path / "matches.jsonl"
    rules = json.dumps({"blocked": "all", "target": 30, "scoring": scoring})
    run_rules(capsys, out, rules, "greedy,random", 30)
    recs = records(out)
    previous = None
    for rec in recs:
        match = rec["match"]
        if previous is None or previous["over"]:
            number = previous["number"] + 1 if previous else 1
            assert (match["number"], match["round"], match["before"]) == (number, 1, [0, 0])
        else:
            assert match["number"] == previous["number"]
            assert match["round"] == previous["round"] + 1
            assert match["before"] == previous["after"]
        scores = rec["result"]["scores"]
        assert match["after"] == [a + b for a, b in zip(match["before"], scores, strict=True)]
        assert match["over"] == (max(match["after"]) >= 30)
        assert match["winners"] == (
            expected_winners(match["after"], scoring) if match["over"] else []
        )
        from_record(rec)  # the record replays
        previous = match
    assert sum(rec["match"]["over"] for rec in recs) >= 3
    assert check_file(str(out)) == (30, [])


def test_the_previous_winner_leads_the_next_round_of_a_match(tmp_path, capsys):
    out = tmp_path / "international.jsonl"
    rules = PRESETS["international"]
    run_rules(capsys, out, json.dumps({**rules.to_json(), "target": 40}), "medium,greedy", 30)
    recs = records(out)
    led_by_winner = 0
    for previous, rec in zip([None, *recs], recs, strict=False):
        first = rec["events"][0]["seat"]
        hands = deal_from_dict(rec["deal"]).hands
        winner = previous["result"]["winner"] if previous else None
        if rec["match"]["round"] > 1 and winner is not None:
            assert first == winner
            led_by_winner += first != opener(rules, hands)[0]
        else:
            assert first == opener(rules, hands)[0]
    assert led_by_winner > 0  # some rounds were led by a winner the rules would not pick
    assert check_file(str(out)) == (30, [])


def test_goat_net_points_count_penalties_against(tmp_path, capsys):
    out = tmp_path / "goat.jsonl"
    printed = run_rules(capsys, out, "goat", "medium,random", 20)
    recs = records(out)
    rows = summary(printed)
    for seat, bot in enumerate(["medium", "random"]):
        nets = [rec["result"]["scores"][1 - seat] - rec["result"]["scores"][seat] for rec in recs]
        assert float(rows[bot]["net"]) == pytest.approx(statistics.fmean(nets), abs=0.0051)
        wins = sum(seat in rec["result"]["winners"] for rec in recs)
        assert float(rows[bot]["win"]) == pytest.approx(100 * wins / 20, abs=0.051)
    assert all(rec["result"]["points"] == 0 for rec in recs)
    assert "matches:" in printed or not any(rec["match"]["over"] for rec in recs)


# -- duplicate deals ----------------------------------------------------------------------


@pytest.mark.slow  # simulates many whole rounds
def test_duplicate_rotates_three_seats_deal_by_deal_without_a_target(tmp_path, capsys):
    out = tmp_path / "three.jsonl"
    rules = json.dumps({"seats": 3, "blocked": "all"})
    printed = run_rules(capsys, out, rules, "hard,medium,random", 9, "--duplicate")
    recs = records(out)
    names = ["hard", "medium", "random"]
    for k in range(3):
        group = recs[3 * k : 3 * k + 3]
        assert all(rec["deal"] == group[0]["deal"] for rec in group)
        for r, rec in enumerate(group):
            assert rec["seats"] == names[r:] + names[:r]
    assert len({json.dumps(rec["deal"]) for rec in recs}) == 3
    assert set(summary(printed)) == set(names)
    assert check_file(str(out)) == (9, [])


def test_duplicate_matches_replay_the_same_deals_once_per_rotation(tmp_path, capsys):
    out = tmp_path / "dup.jsonl"
    run_rules(capsys, out, SMALL_MATCH, "medium,random", 24, "--duplicate")
    recs = records(out)
    first, second = recs[:12], recs[12:]
    assert all(rec["seats"] == ["medium", "random"] for rec in first)
    assert all(rec["seats"] == ["random", "medium"] for rec in second)
    assert [rec["deal"] for rec in first] == [rec["deal"] for rec in second]
    assert len({json.dumps(rec["deal"]) for rec in first}) == 12
    numbers = [rec["match"]["number"] for rec in recs]
    assert numbers == sorted(numbers) and numbers[12] == numbers[11] + 1  # a new match each
    assert second[0]["match"]["round"] == 1
    assert check_file(str(out)) == (24, [])


def test_duplicate_intervals_group_the_rounds_of_a_deal(tmp_path, capsys):
    out = tmp_path / "dup.jsonl"
    printed = run_rules(capsys, out, SMALL_MATCH, "medium,random", 24, "--duplicate")
    recs = records(out)
    per_deal = []
    for k in range(12):
        rounds = (recs[k], recs[12 + k])  # medium in seat 0, then in seat 1
        nets = [
            rec["result"]["scores"][s] - rec["result"]["scores"][1 - s]
            for s, rec in enumerate(rounds)
        ]
        per_deal.append(statistics.fmean(nets))
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / len(per_deal) ** 0.5
    row = summary(printed)["medium"]
    assert (float(row["net"]), float(row["net_ci"])) == pytest.approx((mean, half), abs=0.0051)
