"""The duplicate rematch in rooms: the same deal, each seat taking the next seat's hand."""

from __future__ import annotations

import json
import random

import pytest

from domino.room import RoomError
from domino.rules import PRESETS
from domino.store import Store
from domino.store.cache import Rooms
from domino.views import table_view
from tests.support import drive
from tests.support.drive import finish_round, move, seated

EVERYONE = frozenset({0, 1, 2, 3})


@pytest.fixture
def rooms(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield Rooms(store, random.Random(11))
    store.close()


def rematch(rooms, room):
    """Every person asks in turn; the last one's word deals the rematch."""
    for seat in room.humans:
        action = "rematch" if room.request is None else "accept-rematch"
        room = drive.act(rooms, room.id, seat, action, {}, EVERYONE, room.seq)
    return room


@pytest.mark.parametrize("name", ["classic", "block", "goat", "match-100", "three", "pairs"])
def test_a_rematch_deals_the_same_tiles_each_seat_taking_the_next_hand(rooms, name):
    room = seated(rooms, PRESETS[name])
    for seat in room.free:
        room = drive.give(rooms, room.id, seat, "easy")
    room, _outcome = finish_round(rooms, room, random.Random(2))
    first, match = room.round, room.match
    room = rematch(rooms, room)
    hands, seats = first.start.hands, len(first.start.hands)
    assert room.round.start.hands == tuple(hands[(s + 1) % seats] for s in range(seats))
    assert room.round.start.boneyard == first.start.boneyard and room.round.moves == ()
    assert room.duplicate is first and room.request is None
    room, _outcome = finish_round(rooms, room, random.Random(3))
    assert room.match == match  # a rematch counts in no match
    view = table_view(room, 0, EVERYONE)
    assert view.duplicate is not None and view.rematch
    record = json.loads(rooms.records(room.id)[-1])
    assert "fairness" not in record and "match" not in record  # its deal was proven before
    assert record["deal"]["hands"] == [[str(t) for t in hand] for hand in room.round.start.hands]


def test_a_person_alone_against_the_computer_gets_the_rematch_at_once(rooms):
    room = seated(rooms, PRESETS["classic"], kind="computer")
    room, _outcome = finish_round(rooms, room, random.Random(4))
    first = room.round
    room = drive.act(rooms, room.id, 0, "rematch", {}, EVERYONE, room.seq)
    assert room.duplicate is first and room.round.start.hands[0] == first.start.hands[1]


def test_a_rematch_waits_for_every_person_and_may_be_declined(rooms):
    room = seated(rooms, PRESETS["classic"])
    room, _outcome = finish_round(rooms, room, random.Random(5))
    first = room.round
    room = drive.act(rooms, room.id, 1, "rematch", {}, EVERYONE, room.seq)
    assert room.request == 1 and room.request_kind == "rematch" and room.round is first
    assert table_view(room, 0, EVERYONE).request_kind == "rematch"
    with pytest.raises(RoomError) as refused:
        drive.act(rooms, room.id, 0, "accept-new-round", {}, EVERYONE, room.seq)
    assert refused.value.code == "other-request"
    with pytest.raises(RoomError) as refused:
        drive.act(rooms, room.id, 0, "new-round", {}, EVERYONE, room.seq)
    assert refused.value.code == "other-request"
    room = drive.act(rooms, room.id, 0, "decline-new-round", {}, EVERYONE, room.seq)
    assert room.request is None and room.request_kind is None and room.round is first


def test_a_rematch_is_refused_mid_round_of_a_rematch_and_before_the_table_is_full(rooms):
    room, _secret = rooms.create("friend")
    with pytest.raises(RoomError) as refused:  # a preview: the guest is not there yet
        drive.act(rooms, room.id, 0, "rematch", {}, EVERYONE, room.seq)
    assert refused.value.code == "no-rematch"
    room = seated(rooms, PRESETS["classic"])
    with pytest.raises(RoomError) as refused:  # mid-round
        drive.act(rooms, room.id, 0, "rematch", {}, EVERYONE, room.seq)
    assert refused.value.code == "no-rematch"
    room, _outcome = finish_round(rooms, room, random.Random(6))
    room = rematch(rooms, room)
    room = move(rooms, room, random.Random(1))
    room, _outcome = finish_round(rooms, room, random.Random(7))
    with pytest.raises(RoomError) as refused:  # never a rematch of a rematch
        drive.act(rooms, room.id, 0, "rematch", {}, EVERYONE, room.seq)
    assert refused.value.code == "no-rematch"
    room = drive.act(rooms, room.id, 0, "new-round", {}, EVERYONE, room.seq)
    room = drive.act(rooms, room.id, 1, "accept-new-round", {}, EVERYONE, room.seq)
    assert room.duplicate is None and room.fair.current["round"] == 3  # the preview, then two
