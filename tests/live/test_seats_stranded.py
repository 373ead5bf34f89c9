"""No one stranded, nothing played behind a person's back (issue 15, docs/rules.md, tables of three
and four): a hand-over
that completes a new-round request deals, the computer never plays a preview nor while a
person is away, a seat comes back between rounds, and only the creator sets levels."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest

from domino.rules import PRESETS
from domino.store import Store
from domino.store.cache import Rooms
from tests.support import drive
from tests.support.drive import move_params
from tests.support.webkit import Table, friends, make_app

AWAY = 1.0  # seconds a seat must be away before it may be handed over, in these tests


@pytest.fixture
def rooms(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield Rooms(store, random.Random(7))
    store.close()


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=3, AWAY_SECONDS=AWAY)


def finish(rooms, room, rng: random.Random, here=frozenset({0, 1})):
    """Play the round of a room of people to its end with a bot's choices."""
    while not room.round.over:
        seat = room.round.turn
        name, params = move_params(room, seat, rng)
        room = drive.act(rooms, room.id, seat, name, params, here, room.seq)
    return room


def test_handing_over_the_last_seat_a_new_round_waits_for_deals(rooms):
    room, _creator = rooms.create()
    room, _seat, _guest = drive.join(rooms, room.id, None)
    room = finish(rooms, room, random.Random(1))
    room = drive.act(rooms, room.id, 0, "new-round", {}, frozenset({0, 1}), room.seq)
    assert room.agreed == {0} and room.round.over  # the guest left without a word
    room = drive.hand_over(rooms, room.id, 1)
    assert room.handed(1) and not room.round.over and room.rounds == 2
    assert room.request is None


def test_the_computer_never_plays_a_preview(rooms):
    for _ in range(50):  # a preview that opens on a seat other than the free one
        room, _creator = rooms.create("friend", rules=PRESETS["three"])
        room = drive.give(rooms, room.id, 1, "easy")
        turn = room.round.turn
        if turn != 2:
            break
    assert turn != 2, "no preview in 50 opened on a taken seat"
    bots = tuple("easy" if seat in (1, turn) else None for seat in range(3))
    waiting = replace(room, bots=bots)  # the computer's seat to move, seat 2 still free
    assert not waiting.full and not waiting.computer_to_move
    assert replace(waiting, bots=(*bots[:2], "easy")).computer_to_move


def test_the_computer_waits_while_a_person_is_away(tmp_path, decider):
    app = make_app(tmp_path / "d.sqlite3", seed=2, BOT_DELAY_MS=400, BOT_DECIDE=decider)
    services = app.extensions["domino"]
    host = Table(app)
    host.create_room(preset="pairs")
    host.connect()
    host.fragment()
    for seat in (1, 3):
        assert host.post("computer", seat=seat, level="easy", seq=None).status_code == 200
    guest = Table(app, host.room)
    guest.open()
    guest.join()
    guest.connect("100.b")
    with app.test_request_context():
        services.connect(host.room, 2, guest.conn)  # as its socket does: play may begin
    rng, people = random.Random(3), {0: host, 2: guest}
    for _ in range(40):  # until a person's move hands the turn to the computer
        assert services.computer.wait_idle()
        room = services.rooms.get(host.room)
        if room.round.turn in people:
            person = people[room.round.turn]
            person.fragment()
            name, params = move_params(room, room.round.turn, rng)
            release = (
                decider.hold()
            )  # whatever the machine's speed, the computer waits for the test
            assert person.post(name, **params).status_code == 200
            room = services.rooms.get(host.room)
            if room.computer_to_move:
                break
            release.set()
    else:
        raise AssertionError("no person's move handed the turn to the computer")
    guest.disconnect()  # while the computer decides
    release.set()
    assert services.computer.wait_idle()
    after = services.rooms.get(host.room)
    assert after.seq == room.seq, "the computer played while a person was away"
    with app.test_request_context():
        services.connect(host.room, 2, guest.conn)  # back: play goes on
    deadline = time.monotonic() + 10
    while services.rooms.get(host.room).seq == room.seq and time.monotonic() < deadline:
        services.computer.wait_idle()
    assert services.rooms.get(host.room).seq > room.seq


def test_a_handed_seat_comes_back_at_once_between_rounds(app):
    services = app.extensions["domino"]
    host, guest = friends(app)
    guest.disconnect()
    time.sleep(AWAY)
    host.fragment()
    assert host.post("computer", seat=1, level="easy", seq=None).status_code == 200
    rng = random.Random(4)
    for _ in range(200):
        assert services.computer.wait_idle()
        room = services.rooms.get(host.room)
        if room.round.over:
            break
        if room.round.turn == 0:
            name, params = move_params(room, 0, rng)
            assert host.post(name, **params).status_code == 200
    assert room.round.over and room.handed(1)
    with app.test_request_context():
        services.connect(host.room, 1, guest.conn)
    assert not services.rooms.get(host.room).handed(1)


def test_only_the_creator_sets_the_computers_levels(app):
    host = Table(app)
    host.create_room(preset="three")
    host.connect()
    host.fragment()
    assert host.post("computer", seat=2, level="easy", seq=None).status_code == 200
    guest = Table(app, host.room)
    guest.open()
    guest.join()
    guest.connect("100.b")
    guest.fragment()
    assert guest.post("level", seat=2, level="hard", seq=None).status_code == 403
    assert app.extensions["domino"].rooms.get(host.room).bots[2] == "easy"
    host.fragment()
    assert host.post("level", seat=2, level="hard", seq=None).status_code == 200
    assert app.extensions["domino"].rooms.get(host.room).bots[2] == "hard"
