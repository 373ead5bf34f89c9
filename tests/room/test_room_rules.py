"""Rooms under their own rules: stored as the first event, matches, Continue and New match."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from itertools import pairwise

import pytest

from domino import game
from domino.match import add, new_match
from domino.room import RoomError, fold
from domino.rules import DEFAULT, PRESETS, Rules
from domino.store import Store
from domino.store.cache import Rooms
from tests.support import drive
from tests.support.drive import finish_round, move, seated

TWO_SEATS = [name for name, rules in PRESETS.items() if rules.seats == 2]


@pytest.fixture
def rooms(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield Rooms(store, random.Random(7))
    store.close()


def both_continue(rooms, room):
    """Seat 0 asks for the next deal, seat 1 agrees."""
    room = drive.act(rooms, room.id, 0, "new-round", {}, {0, 1}, room.seq)
    assert room.request == 0 and room.round.over  # one "Continue" deals nothing
    return drive.act(rooms, room.id, 1, "new-round", {}, {0, 1}, room.seq)


@pytest.mark.parametrize("name", TWO_SEATS)
def test_the_rules_are_the_rooms_first_event(rooms, name):
    room, _secret = rooms.create("friend", "medium", PRESETS[name])
    first = rooms.store.load(room.id)[0]
    assert first[:2] == (1, "rules") and Rules.from_json(first[2]) == PRESETS[name]
    assert room.rules == PRESETS[name]
    assert len(room.round.hands[0]) == PRESETS[name].hand_size
    assert len(room.round.boneyard) == 28 - 2 * PRESETS[name].hand_size


def test_rooms_seat_two_to_four_and_play_double_six(rooms):
    with pytest.raises(RoomError) as refused:
        rooms.create("friend", "medium", Rules(max_pip=9, hand_size=7))
    assert refused.value.code == "bad-rules"
    assert rooms.store.db["rooms"].count == 0
    for name, seats in (("three", 3), ("pairs", 4)):
        room, _secret = rooms.create("friend", "medium", PRESETS[name])
        assert room.seats[1:] == (None,) * (seats - 1) and room.free == tuple(range(1, seats))
        assert len(room.round.hands) == seats and not room.full


def test_a_room_without_a_rules_event_plays_the_default_game():
    room = fold("old", "friend", [(1, "seat", {"seat": 0, "hash": "ab" * 32})])
    assert room.rules == DEFAULT and room.match is None and room.seats == ("ab" * 32, None)


def test_a_match_adds_every_round_and_needs_both_to_continue(rooms):
    rules = replace(PRESETS["block"], target=30)
    room, rng, expected = seated(rooms, rules), random.Random(3), new_match(rules)
    while True:
        room, outcome = finish_round(rooms, room, rng)
        expected = add(expected, outcome)
        assert room.match == expected and room.matches == 1
        if room.match.over:
            break
        room = both_continue(rooms, room)
        assert room.match == expected and not room.round.over
    assert max(room.match.scores) >= 30 and room.match.rounds == expected.rounds
    # the match is over: the next deal is a new match, on both seats' word
    room = both_continue(rooms, room)
    assert room.matches == 2 and room.match == new_match(rules) and not room.round.over


def test_a_new_match_asked_mid_round_starts_from_nothing(rooms):
    rules = replace(PRESETS["match-100"], target=50)
    room, rng = seated(rooms, rules), random.Random(11)
    room, _outcome = finish_round(rooms, room, rng)
    room = both_continue(rooms, room)
    room = move(rooms, room, rng)
    assert room.match.rounds == 1 and not room.round.over
    room = drive.act(rooms, room.id, 1, "new-round", {}, {0, 1}, room.seq)
    room = drive.act(rooms, room.id, 0, "accept-new-round", {}, {0, 1}, room.seq)
    assert room.matches == 2 and room.match.rounds == 0 and room.round.moves == ()


def test_the_previous_winner_leads_the_next_round_with_any_tile(rooms):
    rules = PRESETS["international"]
    room, rng = seated(rooms, rules, "computer"), random.Random(5)
    for _ in range(4):
        room, outcome = finish_round(rooms, room, rng)
        if room.match.over:
            break
        room = drive.act(rooms, room.id, 0, "new-round", {}, {0}, room.seq)  # the computer agrees
        if outcome.winner is None:
            assert room.round.turn == game.opener(rules, room.round.start.hands)[0]
        else:
            assert room.round.turn == outcome.winner and room.round.opening is None


def test_preview_rounds_before_the_guest_count_for_nothing(rooms):
    room, _secret = rooms.create("friend", "medium", PRESETS["goat"])
    for _ in range(2):
        room = drive.act(rooms, room.id, 0, "new-round", {}, {0}, room.seq)
    assert room.matches == 1 and room.rounds == 0
    joined, _seat, _guest = drive.join(rooms, room.id, None)
    assert joined.rounds == 1 and joined.match == new_match(PRESETS["goat"])


def test_a_reload_folds_the_same_match(rooms, tmp_path):
    rules = replace(PRESETS["goat"], target=40)
    room, rng = seated(rooms, rules), random.Random(2)
    for _ in range(3):
        room, _outcome = finish_round(rooms, room, rng)
        if room.match.over:
            break
        room = both_continue(rooms, room)
    again = Rooms(Store(tmp_path / "rooms.sqlite3"))
    assert again.get(room.id) == room


def test_match_records_chain_their_scores(rooms):
    rules = replace(PRESETS["block"], target=25)
    room, rng = seated(rooms, rules), random.Random(8)
    while True:
        room, _outcome = finish_round(rooms, room, rng)
        if room.match.over:
            break
        room = both_continue(rooms, room)
    records = [json.loads(line) for line in rooms.records(room.id)]
    assert [r["match"]["round"] for r in records] == list(range(1, len(records) + 1))
    assert records[0]["match"]["before"] == [0, 0]
    for earlier, later in pairwise(records):
        assert later["match"]["before"] == earlier["match"]["after"]
    assert [r["match"]["over"] for r in records] == [False] * (len(records) - 1) + [True]
    assert records[-1]["match"]["after"] == list(room.match.scores)
    assert records[-1]["match"]["winners"] == list(room.match.winners)
    assert all(Rules.from_json(r["rules"]) == rules for r in records)
