"""Rooms of two to four seats (issue 15, docs/rules.md, tables of three and four): one link fills
the seats in order, the
computer takes the seats it is given, every person's word deals again, and a seat whose
player is away for long is handed to the computer and taken back at its turn."""

from __future__ import annotations

import json
import random
import time

import pytest

from domino.commands import decide
from domino.room import RoomError, fold, secret_hash
from domino.room_records import record_names
from domino.rules import PRESETS
from domino.store import Store
from domino.store.cache import Rooms
from tests.support import drive
from tests.support.checker import check_record
from tests.support.doubles import Clock
from tests.support.webkit import Table, friends, make_app

AWAY = 1.0  # seconds a seat must be away before it may be handed over, in these tests
LONG_AWAY = 3600.0  # an AWAY no test waits out: the time a seat left is backdated instead


@pytest.fixture
def rooms(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield Rooms(store, random.Random(7))
    store.close()


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=3, AWAY_SECONDS=AWAY)


# -- seating -------------------------------------------------------------------------------


def test_one_link_fills_the_seats_in_order_and_the_last_one_deals_afresh(rooms):
    room, creator = rooms.create("friend", rules=PRESETS["pairs"])
    preview = room.round
    secrets = []
    for seat in (1, 2, 3):
        assert not room.full and room.rounds == 0
        room, taken, secret = drive.join(rooms, room.id, None)
        assert taken == seat
        secrets.append(secret)
    assert room.full and room.rounds == 1 and room.round is not preview
    assert [room.seat_of(s) for s in secrets] == [1, 2, 3]
    assert drive.join(rooms, room.id, creator)[1] == 0  # the creator's browser gets its seat back
    assert drive.join(rooms, room.id, secrets[1])[1] == 2
    room, seat, secret = drive.join(rooms, room.id, None)  # a fifth browser: the table is full
    assert seat is None and secret is None and room.full


def test_a_computer_room_of_four_seats_the_computer_everywhere_but_the_creator(rooms):
    room, _secret = rooms.create("computer", "hard", PRESETS["pairs"])
    assert room.bots == (None, "hard", "hard", "hard") and room.full
    assert room.humans == (0,) and room.rounds == 1
    assert record_names(room) == ("player", "computer", "computer", "computer")


def test_the_creator_gives_free_seats_to_the_computer(rooms):
    room, _creator = rooms.create("friend", rules=PRESETS["three"])
    room = drive.give(rooms, room.id, 2, "easy")
    assert room.bots == (None, None, "easy") and room.free == (1,) and room.rounds == 0
    with pytest.raises(RoomError) as taken:
        drive.give(rooms, room.id, 2, "hard")
    assert taken.value.code == "seat-taken"
    with pytest.raises(RoomError) as level:
        drive.give(rooms, room.id, 1, "genius")
    assert level.value.code == "bad-level"
    room, seat, _guest = drive.join(rooms, room.id, None)
    assert seat == 1 and room.full and room.rounds == 1
    assert record_names(room) == ("player 1", "player 2", "computer")
    room = drive.set_level(rooms, room.id, "hard", 2)
    assert room.bots == (None, None, "hard")
    with pytest.raises(RoomError) as person:
        drive.set_level(rooms, room.id, "hard", 1)
    assert person.value.code == "not-computer"


def test_giving_the_last_free_seat_deals_afresh(rooms):
    room, _creator = rooms.create("friend", rules=PRESETS["three"])
    room, _seat, _guest = drive.join(rooms, room.id, None)
    preview = room.round
    room = drive.give(rooms, room.id, 2, "medium")
    assert room.full and room.rounds == 1 and room.round is not preview
    kinds = [kind for _seq, kind, _data in rooms.store.load(room.id)][-3:]
    assert kinds == ["level", "deal", "commit"]


def test_old_computer_rooms_keep_their_computer_on_seat_one():
    hash_ = secret_hash("s")
    events = [(1, "seat", {"seat": 0, "hash": hash_}), (2, "level", {"level": "hard"})]
    room = fold("old", "computer", events)
    assert room.bots == (None, "hard") and room.level == "hard" and room.full
    assert fold("older", "computer", events[:1]).bots == (None, "medium")


# -- play and agreement ----------------------------------------------------------------------


def three_people(rooms):
    room, creator = rooms.create("friend", rules=PRESETS["three"])
    secrets = [creator]
    for _ in (1, 2):
        room, _seat, secret = drive.join(rooms, room.id, None)
        secrets.append(secret)
    return room, secrets


def test_play_goes_on_only_while_every_person_is_there(rooms):
    room, _secrets = three_people(rooms)
    seat = room.round.turn
    name, params = drive.move_params(room, seat, random.Random(1))
    absent = (seat + 1) % 3
    everyone_else = frozenset(range(3)) - {absent}
    with pytest.raises(RoomError) as away:
        decide(room, seat, name, params, everyone_else, random.Random(1))
    assert away.value.code == "opponent-away"
    assert decide(room, seat, name, params, frozenset(range(3)), random.Random(1)).events


def test_turns_go_round_in_seat_order(rooms):
    room, _secrets = three_people(rooms)
    rng, here = random.Random(2), frozenset(range(3))
    while not room.round.over:
        seat = room.round.turn
        name, params = drive.move_params(room, seat, rng)
        room = drive.act(rooms, room.id, seat, name, params, here, room.seq)
        if name != "draw" and not room.round.over:
            assert room.round.turn == (seat + 1) % 3


def test_a_new_round_needs_every_persons_word_and_a_move_cancels_the_request(rooms):
    room, _secrets = three_people(rooms)
    here, first = frozenset(range(3)), room.round
    room = drive.act(rooms, room.id, 0, "new-round", {}, here, room.seq)
    assert room.request == 0 and room.agreed == {0} and room.round is first
    with pytest.raises(RoomError) as again:
        drive.act(rooms, room.id, 0, "new-round", {}, here, room.seq)
    assert again.value.code == "already-asked"
    room = drive.act(rooms, room.id, 1, "accept-new-round", {}, here, room.seq)
    assert room.agreed == {0, 1} and room.round is first  # one person still to agree
    room = drive.act(rooms, room.id, 2, "decline-new-round", {}, here, room.seq)
    assert room.request is None and room.agreed == frozenset()
    room = drive.act(rooms, room.id, 2, "new-round", {}, here, room.seq)
    seat = room.round.turn
    name, params = drive.move_params(room, seat, random.Random(3))
    room = drive.act(rooms, room.id, seat, name, params, here, room.seq)
    assert room.request is None and room.agreed == frozenset()  # the move cancelled it
    before = room.round
    for seat in (0, 1):
        room = drive.act(rooms, room.id, seat, "new-round", {}, here, room.seq)
    assert room.round is before and room.agreed == {0, 1}
    room = drive.act(rooms, room.id, 2, "new-round", {}, here, room.seq)
    assert room.round is not before and room.round.line == () and room.request is None


def test_the_computers_word_is_always_given(rooms):
    room, _creator = rooms.create("friend", rules=PRESETS["three"])
    room = drive.give(rooms, room.id, 2, "easy")
    room, _seat, _guest = drive.join(rooms, room.id, None)
    dealt = room.round
    room = drive.act(rooms, room.id, 0, "new-round", {}, frozenset({0, 1}), room.seq)
    assert room.round is dealt and room.agreed == {0}
    room = drive.act(rooms, room.id, 1, "new-round", {}, frozenset({0, 1}), room.seq)
    assert room.round is not dealt


# -- through the web: the computer on many seats, hand-over and names ---------------------------


def play_out(app, player: Table, rng: random.Random, moves: int = 200) -> None:
    """Play seat `player.seat`'s turns with a bot's choice until the round ends; the
    computer plays the other seats."""
    services = app.extensions["domino"]
    for _ in range(moves):
        assert services.computer.wait_idle(), "the computer did not move"
        room = services.rooms.get(player.room)
        if room.round.over:
            return
        if room.round.turn == player.seat:
            player.fragment()
            name, params = drive.move_params(room, player.seat, rng)
            response = player.post(name, **params)
            assert response.status_code == 200, response.get_data(as_text=True)
    raise AssertionError("the round did not end")


@pytest.mark.parametrize("preset", ["pairs", "three"])
def test_a_person_plays_the_computer_on_every_other_seat(app, preset):
    player = Table(app)
    player.create_room("/computer", preset=preset, level="easy")
    player.connect()
    play_out(app, player, random.Random(4))
    room = app.extensions["domino"].rooms.get(player.room)
    seats = PRESETS[preset].seats
    movers = {data["seat"] for _seq, kind, data in player.log if kind in ("play", "draw", "pass")}
    assert movers == set(range(seats)) and room.round.over
    (record,) = [json.loads(line) for line in app.extensions["domino"].rooms.records(player.room)]
    assert check_record(record) == []
    assert record["seats"] == ["player", *["computer"] * (seats - 1)]


def test_a_seat_away_for_long_is_handed_to_the_computer_and_taken_back(tmp_path):
    clock = Clock()
    app = make_app(tmp_path / "domino.sqlite3", seed=3, AWAY_SECONDS=LONG_AWAY, AWAY_CLOCK=clock)
    services = app.extensions["domino"]
    host, guest = friends(app)
    room = services.rooms.get(host.room)
    if room.round.turn == 1:  # the guest opens: let them, so the host is to move
        guest.fragment()
        name, params = drive.move_params(room, 1, random.Random(5))
        guest.post(name, **params)
    guest.disconnect()
    host.fragment()
    assert host.post("computer", seat=1, level="easy", seq=None).status_code == 409  # too soon
    clock.advance(LONG_AWAY)  # as if the guest left an hour ago (the host is connected)
    response = host.post("computer", seat=1, level="easy", seq=None)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert services.rooms.get(host.room).handed(1)
    # The computer plays the guest's seat while the host plays on.
    rng = random.Random(6)
    for _ in range(3):
        assert services.computer.wait_idle()
        room = services.rooms.get(host.room)
        if room.round.over or room.round.turn != 0:
            break
        name, params = drive.move_params(room, 0, rng)
        assert host.post(name, **params).status_code == 200
    assert services.computer.wait_idle()
    room = services.rooms.get(host.room)
    assert any(data.get("seat") == 1 for _s, kind, data in host.log[-6:] if kind != "level")
    # The guest comes back: the seat is theirs again at their turn (or once the round is over).
    guest.fragment()
    with app.test_request_context():  # as the socket handler does
        services.connect(host.room, 1, guest.conn)
    assert services.computer.wait_idle()
    room = services.rooms.get(host.room)
    assert not room.round.over, "this seed's round lasts longer: pick another seed"
    assert room.round.turn == 0 and room.handed(1)  # not its turn: the computer keeps it
    while room.round.turn == 0:
        name, params = drive.move_params(room, 0, rng)
        assert host.post(name, **params).status_code == 200
        assert services.computer.wait_idle()
        room = services.rooms.get(host.room)
    assert not room.round.over, "this seed's round lasts longer: pick another seed"
    assert room.round.turn == 1 and not room.handed(1)  # its turn: the guest plays it
    assert host.log[-1][1] == "back"


def test_a_handed_seat_is_not_played_by_its_browser_until_taken_back(rooms):
    room, _creator = rooms.create()
    room, _seat, _guest = drive.join(rooms, room.id, None)
    room = drive.hand_over(rooms, room.id, 1)
    with pytest.raises(RoomError) as refused:
        decide(room, 1, "new-round", {}, frozenset({0, 1}), random.Random(1))
    assert refused.value.code == "computer-plays"
    assert room.humans == (0,) and room.full
    room = drive.take_back(rooms, room.id, 1)
    assert room.humans == (0, 1) and not room.handed(1)
    with pytest.raises(RoomError) as again:
        drive.take_back(rooms, room.id, 1)
    assert again.value.code == "not-handed"


def test_only_the_creator_gives_a_seat_and_only_an_away_seat_is_handed_over(app):
    host = Table(app)
    host.create_room(preset="three")
    guest = Table(app, host.room)
    guest.open()
    guest.join()
    host.connect()
    guest.connect("100.b")
    guest.fragment()
    refused = guest.post("computer", seat=2, level="easy", seq=None)
    assert refused.status_code == 403
    host.fragment()
    assert host.post("computer", seat=1, level="easy", seq=None).status_code == 409  # here
    assert host.post("computer", seat=7, level="easy", seq=None).status_code == 400
    assert host.post("computer", seat=2, level="easy", seq=None).status_code == 200
    assert app.extensions["domino"].rooms.get(host.room).full


def test_a_display_name_is_short_one_line_and_changes_nothing_else(app):
    host = Table(app)
    host.create_room()
    host.connect()
    host.fragment()
    before = app.extensions["domino"].rooms.get(host.room)
    assert host.post("name", name="  Ann \t Lee ", seq=None).status_code == 200
    after = app.extensions["domino"].rooms.get(host.room)
    assert after.names[0] == "Ann Lee" and after.round is before.round
    for bad in ("x" * 21, "bell\x07"):
        assert host.post("name", name=bad, seq=None).status_code == 400
    assert app.extensions["domino"].rooms.get(host.room).names[0] == "Ann Lee"
    assert host.post("name", name="", seq=None).status_code == 200
    assert app.extensions["domino"].rooms.get(host.room).names[0] == ""


def test_a_seat_taken_but_never_connected_is_offered_to_the_computer_in_time(app):
    host = Table(app)
    host.create_room()
    host.connect()
    guest = Table(app, host.room)
    guest.open()
    guest.join()  # the guest's browser closes before its socket ever opens
    frames = len(host.ws.frames)
    assert frames and 'data-hand-over="1"' not in host.ws.frames[-1]
    deadline = time.monotonic() + AWAY + 5
    while time.monotonic() < deadline and len(host.ws.frames) == frames:
        time.sleep(0.05)
    assert len(host.ws.frames) > frames, "nothing told the host the guest is away for long"
    assert 'data-hand-over="1"' in host.ws.frames[-1]


def test_a_socket_that_closes_while_the_server_stops_is_let_go_without_the_store(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=3)
    services = app.extensions["domino"]
    _, guest = friends(app)
    room, seat = guest.room, guest.seat
    services.close()  # the server stops: its timers first, then its store
    services.rooms.store.close()
    services.disconnect(room, seat, guest.conn)  # reads nothing from the store
    assert seat not in services.hub.present(room)
