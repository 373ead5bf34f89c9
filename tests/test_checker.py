"""Tests of the independent round-record checker (tests/checker.py) with hand-built records."""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import checker

ALL = sorted(checker.ALL_TILES)


def tiles(text: str) -> list[str]:
    """Split a hand written as "6-6 1-2 ..." into a list of tiles."""
    return text.split()


def play(seat: int, tile: str, end: str = "right") -> dict:
    return {"seat": seat, "action": "play", "tile": tile, "end": end}


def draw(seat: int, tile: str) -> dict:
    return {"seat": seat, "action": "draw", "tile": tile}


def pass_(seat: int) -> dict:
    return {"seat": seat, "action": "pass"}


def record(hand0: str, hand1: str, events: list, result: dict | None = None, boneyard=None):
    """Build a record; the boneyard defaults to the 14 remaining tiles in sorted order."""
    hands = [tiles(hand0), tiles(hand1)]
    if boneyard is None:
        boneyard = [t for t in ALL if t not in hands[0] + hands[1]]
    result = result or {"winner": 0, "reason": "domino", "points": 0}
    deal = {"hands": hands, "boneyard": boneyard}
    return {"seats": ["a", "b"], "deal": deal, "events": events, "result": result}


# Seat 0 holds 6-6 (highest double) and a chain down to 0 on the right; seat 1 answers on the
# left: line ends (L, R) go 6,6 -> 0,6 -> 0,5 -> 0,5 -> 0,4 -> 2,4 -> 2,3 -> 2,3 -> 2,2
# -> 4,2 -> 4,1 -> 4,1 -> 4,0, when seat 0 lays its last tile. Seat 1 keeps 3-3: 6 points.
HAND0 = "6-6 5-6 4-5 3-4 2-3 1-2 0-1"
HAND1 = "0-6 0-0 0-2 2-2 2-4 4-4 3-3"
DOMINO_EVENTS = [
    play(0, "6-6", "left"),
    play(1, "0-6", "left"),
    play(0, "5-6"),
    play(1, "0-0", "left"),
    play(0, "4-5"),
    play(1, "0-2", "left"),
    play(0, "3-4"),
    play(1, "2-2", "left"),
    play(0, "2-3"),
    play(1, "2-4", "left"),
    play(0, "1-2"),
    play(1, "4-4", "left"),
    play(0, "0-1"),
]
DOMINO_RESULT = {"winner": 0, "reason": "domino", "points": 6}

# Seat 1 holds no 6: after 6-6 it must draw. Boneyard order starts 1-5, 3-6.
NO_SIX = "0-0 0-2 0-3 0-4 0-5 1-1 1-3"
NO_SIX_BONEYARD = ["1-5", "3-6"] + [
    t for t in ALL if t not in tiles(HAND0) + tiles(NO_SIX) + ["1-5", "3-6"]
]


def domino_record(**changes) -> dict:
    rec = record(HAND0, HAND1, copy.deepcopy(DOMINO_EVENTS), dict(DOMINO_RESULT))
    rec.update(changes)
    return rec


def no_six_record(events: list) -> dict:
    return record(HAND0, NO_SIX, events, boneyard=list(NO_SIX_BONEYARD))


def only(problems: list[str], *parts: str) -> None:
    """Assert exactly one violation, containing every one of ``parts``."""
    assert len(problems) == 1, problems
    for part in parts:
        assert part in problems[0], problems


def test_valid_domino_round():
    assert checker.check_record(domino_record()) == []


def test_valid_draws_then_play_until_the_events_stop():
    events = [play(0, "6-6"), draw(1, "1-5"), draw(1, "3-6"), play(1, "3-6", "left")]
    only(checker.check_record(no_six_record(events)), "result:", "before the round is over")


def simulate(rng: random.Random) -> dict:
    """Play one random legal round (a tiny independent engine) and return its record."""
    deck = ALL[:]
    rng.shuffle(deck)
    hands, boneyard = [deck[:7], deck[7:14]], deck[14:]
    deal = {"hands": copy.deepcopy(hands), "boneyard": boneyard[:]}
    seat, first = checker.opening(hands)
    hands[seat].remove(first)
    ends, events, passes = list(checker.halves(first)), [play(seat, first, "left")], 0
    seat = 1 - seat
    while hands[0] and hands[1] and passes < 2:
        options = [(t, e) for t in hands[seat] for e in (0, 1) if ends[e] in checker.halves(t)]
        if options:
            tile, e = rng.choice(options)
            a, b = checker.halves(tile)
            ends[e] = b if a == ends[e] else a
            hands[seat].remove(tile)
            events.append(play(seat, tile, ("left", "right")[e]))
            seat, passes = 1 - seat, 0
        elif boneyard:
            hands[seat].append(boneyard.pop(0))
            events.append(draw(seat, hands[seat][-1]))
        else:
            events.append(pass_(seat))
            seat, passes = 1 - seat, passes + 1
    if passes == 2:
        result = checker.blocked_result(hands)
    else:
        winner = 0 if not hands[0] else 1
        result = {
            "winner": winner,
            "reason": "domino",
            "points": checker.pip_total(hands[1 - winner]),
        }
    return {"seats": ["r0", "r1"], "deal": deal, "events": events, "result": result}


def test_valid_blocked_round_and_random_rounds():
    rng = random.Random(7)
    records = [simulate(rng) for _ in range(300)]
    blocked = [r for r in records if r["result"]["reason"] == "blocked"]
    assert blocked and len(blocked) < len(records)
    assert all([e["action"] for e in r["events"][-2:]] == ["pass", "pass"] for r in blocked)
    for rec in records:
        assert checker.check_record(rec) == [], rec


def test_blocked_scoring():
    low, high = tiles("0-0 0-1 0-2"), tiles("1-1 2-3")
    assert checker.blocked_result([low, high]) == {"winner": 0, "reason": "blocked", "points": 4}
    assert checker.blocked_result([high, low])["winner"] == 1
    tie = checker.blocked_result([tiles("1-2 0-0"), tiles("0-3")])
    assert tie == {"winner": None, "reason": "blocked", "points": 0}


def test_opening_without_doubles():
    hands = [tiles("0-1 0-2 0-3 4-5 1-2 1-3 1-4"), tiles("3-6 0-4 0-5 0-6 1-5 1-6 2-4")]
    assert checker.opening(hands) == (1, "3-6")  # 3-6 beats 4-5: same sum, higher half
    hands[0][0] = "5-5"
    assert checker.opening(hands) == (0, "5-5")


def test_wrong_opener():
    rec = domino_record(events=[play(1, "0-6"), *DOMINO_EVENTS])
    only(checker.check_record(rec), "event 0:", "seat 0 playing 6-6")


def test_wrong_opening_tile():
    rec = domino_record(events=[play(0, "5-6"), *DOMINO_EVENTS[1:]])
    only(checker.check_record(rec), "event 0:", "seat 0 playing 6-6")


def test_play_out_of_turn():
    rec = domino_record(events=[DOMINO_EVENTS[0], play(0, "5-6")])
    only(checker.check_record(rec), "event 1:", "out of turn")


def test_tile_not_held():
    rec = domino_record(events=[DOMINO_EVENTS[0], play(1, "5-6", "left")])
    only(checker.check_record(rec), "event 1:", "does not hold 5-6")


def test_tile_does_not_fit_the_end():
    events = copy.deepcopy(DOMINO_EVENTS)
    events[3]["end"] = "right"  # 0-0 fits the left end (0), not the right end (5)
    only(checker.check_record(domino_record(events=events)), "event 3:", "does not fit the right")


def test_draw_while_holding_a_playable_tile():
    rec = domino_record(events=[DOMINO_EVENTS[0]])
    rec["events"].append(draw(1, rec["deal"]["boneyard"][0]))  # seat 1 holds 0-6
    only(checker.check_record(rec), "event 1:", "draws while holding a playable tile")


def test_draw_of_a_tile_other_than_the_next_one():
    events = [play(0, "6-6"), draw(1, "3-6")]
    only(checker.check_record(no_six_record(events)), "event 1:", "next boneyard tile is 1-5")


def test_pass_while_the_boneyard_has_tiles():
    events = [play(0, "6-6"), pass_(1)]
    only(checker.check_record(no_six_record(events)), "event 1:", "boneyard has 14 tiles")


def test_tile_written_high_low():
    rec = domino_record()
    rec["deal"]["hands"][0][1] = "6-5"
    problems = checker.check_record(rec)
    assert any("deal: hand 0" in p and "high-low" in p for p in problems), problems
    rec = domino_record()
    rec["events"][2]["tile"] = "6-5"
    assert any("event 2:" in p and "high-low" in p for p in checker.check_record(rec))


def test_duplicated_tile_in_the_deal():
    rec = domino_record()
    rec["deal"]["hands"][1][6] = "0-0"  # instead of 3-3
    problems = checker.check_record(rec)
    assert "deal: duplicated tiles 0-0" in problems
    assert "deal: missing tiles 3-3" in problems


def test_events_after_the_round_ended():
    rec = domino_record(events=[*DOMINO_EVENTS, pass_(1)])
    only(checker.check_record(rec), "event 13:", "after the round ended (domino)")


def test_round_that_does_not_reach_its_end():
    rec = domino_record(events=DOMINO_EVENTS[:-1])
    only(checker.check_record(rec), "result:", "before the round is over")


@pytest.mark.parametrize(
    "result",
    [
        {"winner": 0, "reason": "domino", "points": 7},
        {"winner": 1, "reason": "domino", "points": 6},
        {"winner": 0, "reason": "blocked", "points": 6},
    ],
)
def test_wrong_result(result):
    only(checker.check_record(domino_record(result=result)), "result:", "the replay gives")


def test_malformed_structure():
    rec = domino_record(seats=["a"])
    rec["events"][4] = {"seat": 2, "action": "play", "tile": "4-5"}
    rec["result"] = {"winner": 0}
    problems = checker.check_record(rec)
    assert problems[0].startswith("seats:")
    assert any(p.startswith("event 4:") and "exactly the keys" in p for p in problems)
    assert any(p.startswith("event 4:") and "seat must be 0 or 1" in p for p in problems)
    assert problems[-1].startswith("result:")


def test_check_file_and_cli(tmp_path, capsys):
    path = tmp_path / "rounds.jsonl"
    bad = domino_record(result={"winner": 1, "reason": "domino", "points": 6})
    lines = [json.dumps(domino_record()), "{not json", json.dumps(bad)]
    path.write_text("\n".join(lines) + "\n")
    count, problems = checker.check_file(str(path))
    assert count == 3
    assert problems[0].startswith("line 2: invalid JSON")
    assert problems[1].startswith("line 3: result:")
    assert checker.main([str(path)]) == 1
    assert capsys.readouterr().out.startswith("3 records, 2 violations")
    path.write_text(json.dumps(domino_record()) + "\n")
    assert checker.main([str(path)]) == 0
