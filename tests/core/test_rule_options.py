"""The options of docs/contracts.md, the rules object one scenario at a time: openers, leads,
blocked scorings, Goat,
pairs, the rules object and the presets (docs/rules.md)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from domino import game, record
from domino.rules import DEFAULT, PRESETS, Rules, RulesError, named
from domino.tiles import Tile, tiles
from tests.support.scenario import line, play, round_of

BLOCK = Rules(boneyard=False)


def test_lowest_double_skips_the_double_blank():
    rules = replace(BLOCK, opener="lowest-double")
    state = round_of("0-0 4-4 1-2 1-3 1-4 1-5 1-6", "2-2 3-3 0-1 0-2 0-3 0-4 0-5", rules=rules)
    assert (state.turn, state.opening) == (1, Tile.parse("2-2"))


def test_lowest_double_without_one_the_lowest_tile_ties_to_the_lower_half():
    rules = replace(BLOCK, opener="lowest-double", hand_size=3)
    state = round_of("1-3 4-6 5-6", "0-4 2-6 3-6", rules=rules)  # 1-3 and 0-4: four pips each
    assert (state.turn, state.opening) == (1, Tile.parse("0-4"))
    state = round_of("0-0 4-6 5-6", "0-1 2-6 3-6", rules=rules)  # then the double blank
    assert (state.turn, state.opening) == (0, Tile.parse("0-0"))


def test_heaviest_tile_a_double_beats_a_single_of_its_weight():
    rules = replace(DEFAULT, opener="heaviest-tile", hand_size=3)
    state = round_of("5-5 0-1 0-2", "4-6 1-1 0-3", rules=rules)  # ten pips each
    assert (state.turn, state.opening) == (0, Tile.parse("5-5"))
    state = round_of("3-6 0-1 0-2", "4-5 1-1 0-3", rules=rules)  # 3-6 has the higher half
    assert (state.turn, state.opening) == (0, Tile.parse("3-6"))


def test_a_free_lead_lays_any_tile_and_refuses_a_draw():
    rules = replace(DEFAULT, lead="any")
    state = round_of("6-6 1-2 0-3 2-4 1-5 0-0 3-4", "5-5 1-6 4-4 0-2 3-5 2-3 1-1", rules=rules)
    assert state.turn == 0 and state.opening is None
    assert {play.tile for play in game.legal_actions(state, 0)} == set(state.hands[0])
    with pytest.raises(game.IllegalMove) as caught:
        play(state, "0: draw")
    assert caught.value.rule == "must-play"
    assert line(play(state, "0: 2-4 right")) == "2-4"


def test_blocked_scorings_give_the_lightest_hand_what_the_rule_says():
    hands = ("6-6 0-1 0-2 0-3 0-4 0-5 1-2", "1-1 1-3 1-4 1-5 2-2 2-3 2-4")
    points = {}
    for blocked in ("difference", "others", "all"):
        state = round_of(*hands, rules=replace(BLOCK, blocked=blocked))
        result = game.outcome(play(state, "0: 6-6 left", "1: pass", "0: pass"))
        assert (result.winner, result.winners, result.reason) == (0, (0,), "blocked")
        points[blocked] = (result.points, result.scores)
    # 18 pips against 32
    assert points == {"difference": (14, (14, 0)), "others": (32, (32, 0)), "all": (50, (50, 0))}


def test_goat_the_others_write_their_own_pips():
    goat = replace(BLOCK, scoring="goat")
    state = round_of("6-6 0-1 0-2 0-3 0-4 0-5 1-2", "1-1 1-3 1-4 1-5 2-2 2-3 2-4", rules=goat)
    result = game.outcome(play(state, "0: 6-6 left", "1: pass", "0: pass"))
    assert (result.winner, result.points, result.winners, result.scores) == (0, 0, (0,), (0, 32))


def ended(rules: Rules, *hands: str):
    """The outcome of a round that ended with these hands left (the rest played out)."""
    started = game.start(game.deal(rules, random.Random(1)), rules)
    return game.outcome(replace(started, hands=tuple(tiles(h) for h in hands), turn=None))


def test_pairs_a_blocked_round_goes_to_the_lighter_pair_and_its_lower_hand():
    pairs = PRESETS["pairs"]  # blocked: all
    hands = ("0-1", "5-6 4-4", "2-2", "3-3")  # pairs 0+2: 1 + 4 = 5; 1+3: 19 + 6 = 25
    result = ended(pairs, *hands)
    assert (result.winner, result.winners, result.points) == (0, (0, 2), 30)
    assert result.scores == (30, 0, 30, 0)
    assert ended(replace(pairs, blocked="difference"), *hands).points == 20
    goat = ended(replace(pairs, scoring="goat"), *hands)
    assert (goat.points, goat.scores) == (0, (0, 25, 0, 25))
    assert ended(pairs, "0-1", "2-2", "0-3", "0-0").winner is None  # 4 against 4: a draw


def test_pairs_going_out_scores_only_the_other_pairs_pips():
    result = ended(PRESETS["pairs"], "6-6", "5-6 4-4", "", "3-3")
    assert (result.winner, result.reason, result.winners) == (2, "domino", (0, 2))
    assert result.points == 25 and result.scores == (25, 0, 25, 0)  # not the partner's 12


def test_three_seats_each_for_themselves():
    three = PRESETS["three"]  # blocked: all
    result = ended(three, "0-1", "5-6", "2-2")
    assert (result.winner, result.winners, result.points) == (0, (0,), 1 + 11 + 4)
    assert result.scores == (16, 0, 0)
    assert ended(replace(three, blocked="difference"), "0-1", "5-6", "2-2").points == 10 + 3


def test_the_presets_are_those_of_the_spec():
    spec = {
        "classic": {},
        "match-100": {"blocked": "all", "target": 100},
        "block": {"boneyard": False, "opener": "lowest-double", "lead": "any",
                  "blocked": "others", "target": 100},
        "goat": {"boneyard": False, "opener": "lowest-double", "lead": "any",
                 "scoring": "goat", "target": 100},
        "international": {"opener": "heaviest-tile", "lead": "any",
                          "next_opener": "previous-winner", "blocked": "others", "target": 100},
        "pairs": {"seats": 4, "teams": True, "boneyard": False, "blocked": "all", "target": 100},
        "three": {"seats": 3, "blocked": "all", "target": 100},
    }  # fmt: skip
    assert {name: rules.to_json() for name, rules in PRESETS.items()} == {
        name: {**DEFAULT.to_json(), **fields} for name, fields in spec.items()
    }
    assert DEFAULT.to_json() == {
        "seats": 2, "teams": False, "hand_size": 7, "boneyard": True,
        "opener": "highest-double", "lead": "opening-tile", "next_opener": "rule",
        "blocked": "difference", "scoring": "winner", "target": None,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"seats": 4}, "teams"),
        ({"hand_size": 15}, "hand_size"),
        ({"seats": 4, "teams": True, "hand_size": 7, "boneyard": True}, "boneyard"),
        ({"target": "100"}, "target"),
        ({"boneyard": 1}, "boneyard"),
        ({"fives": True}, "fives"),
        ([], "rules"),
    ],
)
def test_a_rules_object_that_cannot_be_played_names_its_field(data, field):
    with pytest.raises(RulesError) as refused:
        Rules.from_json(data)
    assert refused.value.field == field


def test_rules_are_named_by_preset_or_written_as_json():
    assert named("goat") is PRESETS["goat"]
    assert named(json.dumps({"hand_size": 5, "target": 50})) == replace(
        DEFAULT, hand_size=5, target=50
    )
    with pytest.raises(RulesError):
        named("fives")


def test_a_record_carries_its_rules_and_the_default_game_stays_as_it_was():
    state = round_of("6-6 1-2 0-3 2-4 1-5 0-0 3-4", "5-5 1-6 4-4 0-2 3-5 2-3 1-1")
    state = replace(state, hands=((), state.hands[1]), turn=None)
    plain = record.to_record(state, ["a", "b"])
    assert list(plain) == ["seats", "deal", "events", "result"]
    assert list(plain["result"]) == ["winner", "reason", "points"]
    block = round_of("6-6 0-1 0-2 0-3 0-4 0-5 1-2", "1-1 1-3 1-4 1-5 2-2 2-3 2-4", rules=BLOCK)
    final = play(block, "0: 6-6 left", "1: pass", "0: pass")
    written = record.to_record(final, ["a", "b"])
    assert written["rules"] == BLOCK.to_json()
    assert written["result"] == {
        "winner": 0, "reason": "blocked", "points": 14, "winners": [0], "scores": [14, 0],
    }  # fmt: skip
    assert record.from_record(json.loads(record.dumps(written))) == final


def test_a_match_round_led_by_the_previous_winner_reads_back_from_its_record():
    rules = PRESETS["international"]
    rng = random.Random(5)
    started = game.deal(rules, rng)
    leader = 1 - game.opener(rules, started.hands)[0]  # not the seat the opener rule names
    state = game.start(started, rules, leader=leader)
    while not state.over:
        choice = rng.choice(game.legal_actions(state, state.turn))
        state = game.apply(state, game.resolve(state, state.turn, choice))
    written = record.to_record(state, ["a", "b"])
    with pytest.raises(record.RecordError):
        record.from_record(written)  # alone, nothing says who led
    match = {"number": 1, "round": 2, "before": [0, 0], "after": [0, 0], "over": False}
    assert record.from_record({**written, "match": {**match, "winners": []}}) == state
