"""The result a finished match leaves in the outbox (domino/players/results.py `finished`,
stored by `Rooms.commit` with the move): one per match, none for a preview or a rematch,
places by the match's score, partners sharing theirs, and only with a signed-in seat."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from domino.players.results import finished, parse
from domino.rules import PRESETS
from domino.store import Store
from domino.store.cache import Rooms
from tests.support import drive
from tests.support.drive import finish_round, seated

EVERYONE = frozenset({0, 1, 2, 3})


@pytest.fixture
def rooms(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield Rooms(store, random.Random(11))
    store.close()


def fill(rooms, room):
    for seat in room.free:
        room = drive.give(rooms, room.id, seat, "easy")
    return room


def outbox(rooms) -> list[dict]:
    return [json.loads(row["result"]) for row in rooms.store.outbox()]


def play_match(rooms, room, rng):
    """Rounds until the match is over, each next one dealt with everyone's word."""
    while True:
        room, _ = finish_round(rooms, room, rng)
        if room.match is None or room.match.over:
            return room
        for seat in room.humans:
            action = "new-round" if room.request is None else "accept-new-round"
            room = drive.act(rooms, room.id, seat, action, {}, EVERYONE, room.seq)


@pytest.mark.parametrize("name", ["classic", "match-100", "goat", "three", "pairs"])
def test_each_match_leaves_one_result_with_its_places(rooms, name):
    room = fill(rooms, seated(rooms, PRESETS[name]))
    rooms.store.seat_player(room.id, 0, "ana")
    room = play_match(rooms, room, random.Random(2))
    (result,) = outbox(rooms)
    parsed = parse(result)  # what the lobby reads: it takes it
    assert parsed.key == f"{room.id}/1" and parsed.game == name
    assert [seat.player for seat in parsed.seats] == ["ana"] + [None] * (room.rules.seats - 1)
    assert parsed.computer == (room.rules.seats > 2) and parsed.kind == "friend"  # given seats
    places = [seat.place for seat in parsed.seats]
    winners = room.match.winners if room.match else set()
    if room.match is None:
        from domino import game

        winners = game.outcome(room.round).winners
    for seat in range(room.rules.seats):
        if winners:
            assert (places[seat] == 1) == (seat in winners), (places, winners)
        else:
            assert places[seat] == 1
    if room.rules.teams:
        assert places[0] == places[2] and places[1] == places[3]
    if room.match is not None and not room.rules.teams:  # ranked by the match's score
        sign = 1 if room.rules.scoring == "goat" else -1
        order = sorted(range(room.rules.seats), key=lambda s: sign * room.match.scores[s])
        assert [places[s] for s in order] == sorted(places)


def test_rounds_without_a_target_are_matches_numbered_on(rooms):
    room = fill(rooms, seated(rooms, PRESETS["classic"]))
    rooms.store.seat_player(room.id, 1, "bob")
    rng = random.Random(3)
    for _ in range(2):
        room = play_match(rooms, room, rng)
        for seat in room.humans:
            action = "new-round" if room.request is None else "accept-new-round"
            room = drive.act(rooms, room.id, seat, action, {}, EVERYONE, room.seq)
    assert [r["key"] for r in outbox(rooms)] == [f"{room.id}/1", f"{room.id}/2"]


def test_a_rematch_and_a_preview_leave_no_result(rooms):
    room = fill(rooms, seated(rooms, PRESETS["classic"]))
    rooms.store.seat_player(room.id, 0, "ana")
    room, _ = finish_round(rooms, room, random.Random(4))
    assert len(outbox(rooms)) == 1
    for seat in room.humans:
        action = "rematch" if room.request is None else "accept-rematch"
        room = drive.act(rooms, room.id, seat, action, {}, EVERYONE, room.seq)
    assert room.duplicate is not None
    room, _ = finish_round(rooms, room, random.Random(5))
    assert len(outbox(rooms)) == 1  # the rematch counted for nothing
    assert finished(replace(room, round=None), room) is None  # its end reports nothing


def test_the_move_that_ends_a_match_is_the_one_that_reports_it(rooms):
    room = fill(rooms, seated(rooms, PRESETS["classic"]))
    room, _ = finish_round(rooms, room, random.Random(4))
    assert finished(room, room) is None  # nothing changed: no new end
    assert finished(room, replace(room, rounds=0)) is None  # a preview (seats were free)
    assert finished(room, replace(room, round=replace(room.round))) is not None


def test_a_seat_the_computer_stands_in_for_is_abandoned(rooms):
    room = seated(rooms, PRESETS["classic"])
    rooms.store.seat_player(room.id, 0, "ana")
    room = drive.hand_over(rooms, room.id, 1)
    room, _ = finish_round(rooms, room, random.Random(6))
    (result,) = outbox(rooms)
    assert [s["abandoned"] for s in result["seats"]] == [False, True]
    assert [s["computer"] for s in result["seats"]] == [None, None]
    assert result["computer"] is False  # a stand-in is not a computer seat


def test_no_signed_in_seat_no_result(rooms):
    room = fill(rooms, seated(rooms, PRESETS["classic"]))
    finish_round(rooms, room, random.Random(7))
    assert outbox(rooms) == []
