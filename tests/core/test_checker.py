"""Tests of the independent round-record checker (tests/support/checker.py) with hand-built
records."""

from __future__ import annotations

import copy
import dataclasses
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domino import game
from domino.match import add, new_match
from domino.record import dumps, match_to_dict, to_record
from tests.support import checker
from tests.support.strategies import SEEDS, any_rules

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


# -- records with rules (docs/contracts.md, the round record; docs/contracts.md, the rules object)
# ------------------------------------------------


def rules_of(**changes) -> dict:
    """A full rules object (docs/contracts.md): the default game's with `changes`."""
    return {**checker.DEFAULT_RULES, **changes}


# Three seats, block game, two tiles each: seat 1 holds the lowest double (1-1; 0-0 would not
# count) and leads. Nobody else holds a 1, so every seat passes: blocked with hands of
# 14, 2 and 15 pips.
BLOCK3 = rules_of(seats=3, hand_size=2, boneyard=False, opener="lowest-double", lead="any")
BLOCKED_HANDS = ["2-3 4-5", "1-1 0-2", "3-6 2-4"]
BLOCKED_EVENTS = [play(1, "1-1"), pass_(2), pass_(0), pass_(1)]
# Seat 1 leads 1-1, seat 2 plays 1-3, seat 0 plays 3-4, seat 1 goes out with 1-5 on the left:
# seat 0 keeps 2-2 (4), seat 2 keeps 4-6 (10).
DOMINO_HANDS = ["3-4 2-2", "1-1 1-5", "1-3 4-6"]
DOMINO3_EVENTS = [play(1, "1-1"), play(2, "1-3"), play(0, "3-4"), play(1, "1-5", "left")]


def outcome(winner, reason, points, winners, scores) -> dict:
    return {
        "winner": winner,
        "reason": reason,
        "points": points,
        "winners": winners,
        "scores": scores,
    }


def rules_record(rules: dict, hands: list[str], events: list, result: dict, match=None) -> dict:
    """A record under `rules`; the boneyard (or the sleeping tiles) is the rest, sorted."""
    top = rules.get("max_pip", 6)
    held = [tiles(hand) for hand in hands]
    every = sorted(f"{a}-{b}" for a in range(top + 1) for b in range(a, top + 1))
    deal = {"hands": held, "boneyard": [t for t in every if not any(t in h for h in held)]}
    names = [f"seat{seat}" for seat in range(rules["seats"])]
    rec = {"seats": names, "rules": rules, "deal": deal, "events": events, "result": result}
    if match is not None:
        rec["match"] = match
    return rec


DOMINO3 = outcome(1, "domino", 14, [1], [0, 14, 0])


def test_a_three_seat_block_game_domino_is_valid():
    assert checker.check_record(rules_record(BLOCK3, DOMINO_HANDS, DOMINO3_EVENTS, DOMINO3)) == []
    wrong = outcome(1, "domino", 10, [1], [0, 10, 0])  # only the next seat's pips
    rec = rules_record(BLOCK3, DOMINO_HANDS, DOMINO3_EVENTS, wrong)
    only(checker.check_record(rec), "result:", "the replay gives")


def test_turns_go_round_in_seat_order():
    events = [play(1, "1-1"), play(0, "1-3")]  # seat 0 holds no 1-3 anyway: the turn is 2's
    rec = rules_record(BLOCK3, DOMINO_HANDS, events, DOMINO3)
    only(checker.check_record(rec), "event 1:", "out of turn", "seat 2's turn")


@pytest.mark.parametrize(
    ("blocked", "points"),
    [("difference", (14 - 2) + (15 - 2)), ("others", 14 + 15), ("all", 14 + 2 + 15)],
)
def test_blocked_scorings(blocked, points):
    rules = {**BLOCK3, "blocked": blocked}
    for claimed in (25, 29, 31):
        result = outcome(1, "blocked", claimed, [1], [0, claimed, 0])
        problems = checker.check_record(rules_record(rules, BLOCKED_HANDS, BLOCKED_EVENTS, result))
        assert (problems == []) == (claimed == points), (blocked, claimed, problems)


def test_a_round_of_three_is_blocked_only_when_all_three_have_passed():
    result = outcome(1, "blocked", 29, [1], [0, 29, 0])
    rec = rules_record({**BLOCK3, "blocked": "others"}, BLOCKED_HANDS, BLOCKED_EVENTS[:3], result)
    only(checker.check_record(rec), "result:", "before the round is over")


def test_a_tie_for_the_lightest_hands_is_a_draw():
    hands = ["0-2 0-4", "1-1 2-4", "3-6 5-6"]  # 6, 6 and 20 pips left
    draw_result = outcome(None, "blocked", 0, [], [0, 0, 0])
    assert checker.check_record(rules_record(BLOCK3, hands, BLOCKED_EVENTS, draw_result)) == []
    won = outcome(0, "blocked", 14, [0], [14, 0, 0])
    only(checker.check_record(rules_record(BLOCK3, hands, BLOCKED_EVENTS, won)), "result:")


def test_goat_scoring_the_others_write_their_own_pips():
    goat = {**BLOCK3, "scoring": "goat"}
    result = outcome(1, "domino", 0, [1], [4, 0, 10])
    assert checker.check_record(rules_record(goat, DOMINO_HANDS, DOMINO3_EVENTS, result)) == []
    rec = rules_record(goat, DOMINO_HANDS, DOMINO3_EVENTS, DOMINO3)  # winner scoring's result
    only(checker.check_record(rec), "result:", "the replay gives")
    blocked = outcome(1, "blocked", 0, [1], [14, 0, 15])
    assert checker.check_record(rules_record(goat, BLOCKED_HANDS, BLOCKED_EVENTS, blocked)) == []


def test_the_block_game_has_no_drawing_and_passes_with_sleeping_tiles():
    sleeping = rules_record(BLOCK3, BLOCKED_HANDS, BLOCKED_EVENTS[:1], DOMINO3)["deal"]["boneyard"]
    events = [play(1, "1-1"), draw(2, sleeping[0])]
    only(checker.check_record(rules_record(BLOCK3, BLOCKED_HANDS, events, DOMINO3)), "block game")
    draw_game = {**BLOCK3, "boneyard": True}
    rec = rules_record(draw_game, BLOCKED_HANDS, BLOCKED_EVENTS, DOMINO3)
    only(checker.check_record(rec), "event 1:", "boneyard has 22 tiles")


@pytest.mark.parametrize(
    ("opener", "hands", "expected"),
    [
        ("lowest-double", ["0-0 5-5", "3-3 1-2"], (1, "3-3")),  # the double blank does not count
        ("lowest-double", ["0-0 2-5", "0-3 1-2"], (0, "0-0")),  # ...unless no other double
        ("lowest-double", ["1-2 2-5", "0-3 4-6"], (1, "0-3")),  # lowest sum, then lower half
        ("heaviest-tile", ["4-6 1-2", "5-5 0-1"], (1, "5-5")),  # a double beats its sum
        ("heaviest-tile", ["4-5 1-2", "3-6 0-1"], (1, "3-6")),  # then the higher half
        ("heaviest-tile", ["5-6 0-0", "4-4 1-1"], (0, "5-6")),  # the heaviest, double or not
        ("highest-double", ["5-6 0-0", "4-4 1-1"], (1, "4-4")),
        ("highest-double", ["4-5 1-2", "3-6 0-1"], (1, "3-6")),
    ],
)
def test_the_openers(opener, hands, expected):
    assert checker.opening([tiles(hand) for hand in hands], opener) == expected
    rules = rules_of(hand_size=2, boneyard=False, opener=opener)
    seat, tile = expected
    other = next(t for t in tiles(hands[seat]) if t != tile)
    assert checker.check_record(rules_record(rules, hands, [play(seat, other)], DOMINO3))[0] == (
        f"event 0: the round must open with seat {seat} playing {tile}"
    )
    rec = rules_record(rules, hands, [play(1 - seat, tiles(hands[1 - seat])[0])], DOMINO3)
    only(checker.check_record(rec), "event 0:", f"seat {seat} playing {tile}")
    rec = rules_record(rules, hands, [play(seat, tile)], DOMINO3)
    only(checker.check_record(rec), "result:", "before the round is over")


def test_a_free_lead_is_any_tile_of_the_opener():
    rules = {**BLOCK3, "lead": "any"}
    rec = rules_record(rules, DOMINO_HANDS, [play(1, "1-5", "left")], DOMINO3)
    only(checker.check_record(rec), "result:", "before the round is over")
    rec = rules_record(rules, DOMINO_HANDS, [play(2, "1-3")], DOMINO3)
    only(checker.check_record(rec), "event 0:", "seat 1 playing any tile")
    forced = {**BLOCK3, "lead": "opening-tile"}
    rec = rules_record(forced, DOMINO_HANDS, [play(1, "1-5")], DOMINO3)
    only(checker.check_record(rec), "event 0:", "seat 1 playing 1-1")


# Four seats in pairs (0 and 2 against 1 and 3), block game, two tiles each. Seat 0 leads 6-6;
# seat 3 goes out: side 0 keeps 0-1 and 2-5 (8 pips).
PAIRS = rules_of(seats=4, teams=True, hand_size=2, boneyard=False, blocked="all")
PAIR_HANDS = ["6-6 0-1", "2-3 4-5", "1-6 2-5", "1-2 3-5"]
PAIR_EVENTS = [
    play(0, "6-6"),
    pass_(1),
    play(2, "1-6"),
    play(3, "1-2"),
    pass_(0),
    play(1, "2-3"),
    pass_(2),
    play(3, "3-5"),
]


def test_partners_win_and_write_together():
    result = outcome(3, "domino", 8, [1, 3], [0, 8, 0, 8])
    assert checker.check_record(rules_record(PAIRS, PAIR_HANDS, PAIR_EVENTS, result)) == []
    alone = outcome(3, "domino", 8, [3], [0, 0, 0, 8])
    only(checker.check_record(rules_record(PAIRS, PAIR_HANDS, PAIR_EVENTS, alone)), "result:")
    goat = outcome(3, "domino", 0, [1, 3], [8, 0, 8, 0])  # side 1 holds 4-5: it wrote nothing
    assert (
        checker.check_record(
            rules_record({**PAIRS, "scoring": "goat"}, PAIR_HANDS, PAIR_EVENTS, goat)
        )
        == []
    )


def test_a_blocked_round_of_pairs_goes_to_the_lightest_side_by_its_lowest_hand():
    hands = ["6-6 1-2", "2-3 4-5", "0-1 0-2", "3-4 1-5"]  # sides: 3 + 3 = 6 against 14 + 13
    events = [play(0, "6-6"), pass_(1), pass_(2), pass_(3), pass_(0)]
    for winner in (0, 2):  # seats 0 and 2 both hold 3 pips: either is the lowest hand
        result = outcome(winner, "blocked", 33, [0, 2], [33, 0, 33, 0])
        assert checker.check_record(rules_record(PAIRS, hands, events, result)) == []
    result = outcome(1, "blocked", 33, [0, 2], [33, 0, 33, 0])
    only(checker.check_record(rules_record(PAIRS, hands, events, result)), "result:")
    hands[2] = "0-1 0-0"  # now seat 2 alone holds the lowest hand
    result = outcome(2, "blocked", 31, [0, 2], [31, 0, 31, 0])
    assert checker.check_record(rules_record(PAIRS, hands, events, result)) == []
    result["winner"] = 0
    only(checker.check_record(rules_record(PAIRS, hands, events, result)), "result:")


def test_hand_sizes_and_seat_counts_follow_the_rules():
    rec = rules_record(BLOCK3, DOMINO_HANDS, DOMINO3_EVENTS, DOMINO3)
    rec["deal"]["hands"][0].append(rec["deal"]["boneyard"].pop())
    assert "deal: hand 0 must be a list of 2 tiles" in checker.check_record(rec)
    rec = rules_record(BLOCK3, DOMINO_HANDS, DOMINO3_EVENTS, DOMINO3)
    rec["seats"].pop()
    only(checker.check_record(rec), "seats: expected a list of 3 strings")
    rec = rules_record(BLOCK3, DOMINO_HANDS, [*DOMINO3_EVENTS[:1], pass_(3)], DOMINO3)
    assert "seat must be 0, 1 or 2, got 3" in checker.check_record(rec)[0]


def test_a_set_other_than_double_six():
    rules = rules_of(hand_size=3, max_pip=3)  # ten tiles: 3 + 3 dealt, 4 to draw
    hands = ["3-3 0-1 1-2", "0-3 1-3 2-2"]
    events = [play(0, "3-3"), play(1, "0-3"), play(0, "0-1"), play(1, "1-3")]
    events += [draw(0, "0-0"), draw(0, "0-2"), pass_(0)]  # ends 3 and 3: seat 0 draws
    rec = rules_record(rules, hands, events, DOMINO3)
    only(checker.check_record(rec), "event 6:", "passes while the boneyard has 2 tiles")
    rec["deal"]["hands"][0][0] = "4-4"
    assert any("not a tile 'a-b' with 0 <= a, b <= 3" in p for p in checker.check_record(rec))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seats": 5}, "seats"),
        ({"teams": True}, "teams"),
        ({"hand_size": 15}, "do not fit"),
        ({"hand_size": 1}, "at least 2 tiles"),
        ({"seats": 4, "teams": True}, "draw game needs a tile"),
        ({"opener": "random"}, "opener"),
        ({"lead": "free"}, "lead"),
        ({"next_opener": "loser"}, "next_opener"),
        ({"blocked": "none"}, "blocked"),
        ({"scoring": "muggins"}, "scoring"),
        ({"target": 0}, "target"),
        ({"target": True}, "target"),
        ({"boneyard": 1}, "boneyard"),
        ({"colour": "red"}, "unknown field 'colour'"),
    ],
)
def test_a_rules_object_must_be_playable(change, field):
    problems = checker.check_record(rules_record(rules_of(**change), [HAND0, HAND1], [], {}))
    assert problems and all(p.startswith("rules:") for p in problems), problems
    assert any(field in p for p in problems), problems
    rules = rules_of()
    del rules["lead"]
    only(checker.check_record(rules_record(rules, [HAND0, HAND1], [], {})), "missing field")


def test_a_record_with_rules_has_winners_and_scores_and_one_without_does_not():
    rec = domino_record()
    rec["result"] = {**DOMINO_RESULT, "winners": [0], "scores": [6, 0]}
    only(checker.check_record(rec), "result: expected exactly the keys")
    rec["rules"] = rules_of()
    assert checker.check_record(rec) == []
    rec["result"] = dict(DOMINO_RESULT)
    only(checker.check_record(rec), "result: expected exactly the keys")


# -- matches (docs/contracts.md: the round record's `match`, the rules object's `target`) ------

MATCH3 = {**BLOCK3, "target": 20}


def match_of(number=1, round_=1, before=(0, 0, 0), after=(0, 14, 0), over=False, winners=()):
    return {
        "number": number,
        "round": round_,
        "before": list(before),
        "after": list(after),
        "over": over,
        "winners": list(winners),
    }


def domino3(rules=MATCH3, **match) -> dict:
    """The three-seat domino round (seat 1 writes 14) as a round of a match."""
    return rules_record(rules, DOMINO_HANDS, DOMINO3_EVENTS, DOMINO3, match_of(**match))


def test_a_round_of_a_match_adds_its_scores():
    assert checker.check_record(domino3()) == []
    last = domino3(round_=2, before=(0, 14, 0), after=(0, 28, 0), over=True, winners=[1])
    assert checker.check_record(last) == []


@pytest.mark.parametrize(
    ("match", "message"),
    [
        ({"after": (0, 15, 0)}, "after must be before + the round's scores"),
        ({"round_": 2, "before": (0, 6, 0), "after": (0, 20, 0), "winners": [1]}, "over must"),
        ({"round_": 2, "before": (0, 6, 0), "after": (0, 20, 0), "over": True}, "winners must"),
        ({"winners": [1]}, "winners must be []"),
        ({"before": (1, 0, 0), "after": (1, 14, 0)}, "round 1 starts from nothing"),
        (
            {"round_": 3, "before": (20, 0, 0), "after": (20, 14, 0), "over": True, "winners": [0]},
            "had reached the target",
        ),
        ({"round_": 0}, "round counts from 1"),
        ({"number": "one"}, "number is a whole number"),
    ],
)
def test_the_arithmetic_of_a_match(match, message):
    only(checker.check_record(domino3(**match)), "match:", message)


def test_only_rules_with_a_target_have_a_match():
    only(checker.check_record(domino3(rules=BLOCK3)), "match:", "with a target")
    rec = domino_record(match=match_of(before=(0, 0), after=(6, 0)))
    only(checker.check_record(rec), "match:", "with a target")


def test_who_wins_a_match():
    goat = {**MATCH3, "scoring": "goat", "target": 10}  # seat 1 writes 0, the others 4 and 10
    result = outcome(1, "domino", 0, [1], [4, 0, 10])
    match = match_of(after=(4, 0, 10), over=True, winners=[1])  # the fewest penalty points win
    rec = rules_record(goat, DOMINO_HANDS, DOMINO3_EVENTS, result, match)
    assert checker.check_record(rec) == []
    rec["match"]["winners"] = [2]
    only(checker.check_record(rec), "match: winners must be [1]")
    rec["match"] = match_of(round_=2, before=(0, 4, 0), after=(4, 4, 10), over=True, winners=[])
    assert checker.check_record(rec) == []  # equal fewest: a draw


def test_partners_show_the_same_running_score():
    rules = {**PAIRS, "target": 50}
    result = outcome(3, "domino", 8, [1, 3], [0, 8, 0, 8])
    match = {**match_of(before=(0, 0, 0, 0), after=(0, 8, 0, 8))}
    assert checker.check_record(rules_record(rules, PAIR_HANDS, PAIR_EVENTS, result, match)) == []
    match = match_of(round_=2, before=(0, 8, 0, 0), after=(0, 16, 0, 8))
    rec = rules_record(rules, PAIR_HANDS, PAIR_EVENTS, result, match)
    assert "match: before: partners 1 and 3 must show the same score" in checker.check_record(rec)


def check_lines(tmp_path, records: list[dict]) -> list[str]:
    """The checker's violations for these records written as one file."""
    path = tmp_path / "match.jsonl"
    path.write_text("".join(json.dumps(rec) + "\n" for rec in records))
    count, problems = checker.check_file(str(path))
    assert count == len(records)
    return problems


def test_the_rounds_of_a_match_follow_each_other_in_a_file(tmp_path):
    first = domino3()
    second = domino3(round_=2, before=(0, 14, 0), after=(0, 28, 0), over=True, winners=[1])
    other = domino3(number=2)
    assert check_lines(tmp_path, [first, other, second]) == []
    wrong = domino3(round_=2, before=(0, 13, 0), after=(0, 27, 0), over=True, winners=[1])
    only(check_lines(tmp_path, [first, wrong]), "line 2: match:", "previous round's after")
    gap = domino3(round_=3, before=(0, 14, 0), after=(0, 28, 0), over=True, winners=[1])
    only(check_lines(tmp_path, [first, gap]), "line 2: match:", "round 3 of match 1 follows")
    again = domino3(round_=3, before=(0, 28, 0), after=(0, 42, 0), over=True, winners=[1])
    problems = check_lines(tmp_path, [first, second, again])
    assert any("line 3: match:" in p and "went on after it ended" in p for p in problems)
    changed = domino3(
        {**MATCH3, "blocked": "all"},
        round_=2,
        before=(0, 14, 0),
        after=(0, 28, 0),
        over=True,
        winners=[1],
    )
    only(check_lines(tmp_path, [first, changed]), "line 2: match:", "rules changed")


# Under previous-winner: a second deal where the rules' opener (lowest double) is seat 2.
PW = {**BLOCK3, "next_opener": "previous-winner", "target": 50}
SECOND_HANDS = ["3-4 2-2", "1-3 4-6", "1-1 1-5"]
LED_BY_1 = [play(1, "1-3"), play(2, "1-1", "left"), play(0, "3-4"), play(1, "4-6")]
LED_BY_2 = [play(2, "1-1"), pass_(0), play(1, "1-3"), play(2, "1-5", "left")]


def second_round(events, before, winner, points) -> dict:
    scores = [points if seat == winner else 0 for seat in range(3)]
    after = [a + b for a, b in zip(before, scores, strict=True)]
    result = outcome(winner, "domino", points, [winner], scores)
    return rules_record(PW, SECOND_HANDS, events, result, match_of(2, 2, before, after))


def test_the_previous_winner_leads_the_next_round_with_any_tile(tmp_path):
    first = rules_record(PW, DOMINO_HANDS, DOMINO3_EVENTS, DOMINO3, match_of(2))  # seat 1 won
    led_by_winner = second_round(LED_BY_1, [0, 14, 0], 1, 10)
    assert check_lines(tmp_path, [first, led_by_winner]) == []
    led_by_opener = second_round(LED_BY_2, [0, 14, 0], 2, 21)
    only(check_lines(tmp_path, [first, led_by_opener]), "line 2: event 0:", "seat 1 playing any")
    assert check_lines(tmp_path, [led_by_opener]) == []  # its first round is not in the file
    rule = {**PW, "next_opener": "rule"}
    first["rules"] = rule
    led_by_opener["rules"] = rule
    assert check_lines(tmp_path, [first, led_by_opener]) == []


def test_after_a_drawn_round_the_rules_opener_leads(tmp_path):
    drawn = outcome(None, "blocked", 0, [], [0, 0, 0])
    hands = ["0-2 0-4", "1-1 2-4", "3-6 5-6"]
    first = rules_record(PW, hands, BLOCKED_EVENTS, drawn, match_of(2, after=(0, 0, 0)))
    assert check_lines(tmp_path, [first, second_round(LED_BY_2, [0, 0, 0], 2, 21)]) == []
    led_by_1 = second_round(LED_BY_1, [0, 0, 0], 1, 10)
    only(check_lines(tmp_path, [first, led_by_1]), "line 2: event 0:", "seat 2 playing any")


# -- the checker agrees with domino under any rules ---------------------------------------


def random_round(rules, rng: random.Random, leader=None):
    """A round of domino dealt and played at random under `rules`."""
    state = game.start(game.deal(rules, rng), rules, leader)
    while state.turn is not None:
        state, _ = game.step(state, state.turn, rng.choice(game.legal_actions(state, state.turn)))
    return state


@given(any_rules(), SEEDS)
def test_domino_records_under_any_rules_pass(rules, seed):
    state = random_round(rules, random.Random(seed))
    rec = json.loads(dumps(to_record(state, ["a"] * rules.seats)))
    assert checker.check_record(rec) == []


@given(any_rules(), st.sampled_from([1, 10, 30]), SEEDS)
def test_domino_matches_under_any_rules_pass(tmp_path_factory, rules, target, seed):
    rules, rng, lines = dataclasses.replace(rules, target=target), random.Random(seed), []
    for number in (1, 2):
        current = new_match(rules)
        while not current.over and current.rounds < 100:
            state = random_round(rules, rng, current.leader)
            before, current = current, add(current, game.outcome(state))
            written = match_to_dict(number, before, current)
            lines.append(to_record(state, ["a"] * rules.seats, written))
    assert check_lines(tmp_path_factory.mktemp("match"), lines) == []
