"""The computer standing in for an away player is decided by nobody at the table (issue 27).

A player left with the stand-in of an away player could throw the round or the match away
(the stand-in "agreed" to every new deal), deal again until a good hand came up, and pick how
well the stand-in plays. Now, while a round is in play, a new round or match waits for the word
of every person holding a seat, the away one included; between rounds "Continue" still goes
on, the stand-in giving its word; its level is the room's (medium, or what it played that seat
at before), not the others' to pick or to switch."""

from __future__ import annotations

import random

import pytest

from domino import bots
from domino.actions import level_event
from domino.commands import Decision
from domino.room import RoomError, fold
from domino.rules import PRESETS
from domino.store import Store
from domino.store.cache import Rooms
from domino.views import seat_view
from domino.web.view.messages import refusal
from tests.support import drive
from tests.support.doubles import Clock
from tests.support.webkit import Table, friends, make_app, notice, parse

LONG_AWAY = 3600.0  # no test waits it out: the time a seat left is backdated instead


@pytest.fixture
def rooms(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield Rooms(store, random.Random(11))
    store.close()


def seated(rooms, preset: str = "classic", given: dict | None = None):
    """A friend room of `preset` whose free seats are taken by people, but those in `given`
    (seat: level), which the creator gives to the computer."""
    room, _creator = rooms.create("friend", rules=PRESETS[preset])
    for seat, level in (given or {}).items():
        room = drive.give(rooms, room.id, seat, level)
    while not room.full:
        room, _seat, _secret = drive.join(rooms, room.id, None)
    return room


def play(rooms, room, moves: int, rng: random.Random):
    """Up to `moves` moves of the round (fewer if it ends): the people's and the computer's,
    each chosen by the easy bot."""
    for _ in range(moves):
        if room.round.over:
            break
        seat = room.round.turn
        action = bots.decide("easy", seat_view(room.round, seat), rng.getrandbits(32))
        room = drive.commit_as(rooms, room, seat, action)
    return room


def finish(rooms, room, rng: random.Random):
    room = play(rooms, room, 500, rng)
    assert room.round.over
    return room


def here(room) -> frozenset[int]:
    return frozenset(room.humans)


# -- no match or round thrown away through the stand-in ------------------------------------------


def test_a_new_round_mid_round_waits_for_the_away_player(rooms):
    room = seated(rooms)
    room = drive.hand_over(rooms, room.id, 1)
    dealt = room.round
    assert room.humans == (0,) and not dealt.over
    room = drive.act(rooms, room.id, 0, "new-round", {}, here(room), room.seq)
    assert room.round is dealt and room.rounds == 1  # nothing dealt: the guest's word is missing
    assert room.request == 0 and room.agreed == {0}
    with pytest.raises(RoomError) as again:
        drive.act(rooms, room.id, 0, "new-round", {}, here(room), room.seq)
    assert again.value.code == "already-asked"
    assert rooms.get(room.id).round is dealt


def test_a_new_match_mid_match_waits_for_the_away_player(rooms):
    room = seated(rooms, "three")
    room = play(rooms, room, 3, random.Random(2))
    room = drive.hand_over(rooms, room.id, 2)
    match, round_ = room.match, room.round
    assert not round_.over and match is not None
    for seat in (0, 1):  # both people at the table want a new match
        room = drive.act(rooms, room.id, seat, "new-round", {}, here(room), room.seq)
    assert room.round is round_ and room.match is match and room.matches == 1
    assert room.agreed == {0, 1} and room.request == 0


def test_a_request_open_when_the_seat_is_handed_over_is_not_granted_mid_round(rooms):
    room = seated(rooms)
    room = drive.act(rooms, room.id, 0, "new-round", {}, frozenset({0, 1}), room.seq)
    dealt = room.round
    room = drive.hand_over(rooms, room.id, 1)  # the guest left without a word
    assert room.handed(1) and room.round is dealt and room.rounds == 1
    assert room.request == 0 and room.agreed == {0}


def test_a_word_the_away_player_gave_before_leaving_still_counts(rooms):
    room = seated(rooms, "three")
    room = drive.act(rooms, room.id, 2, "new-round", {}, frozenset({0, 1, 2}), room.seq)
    room = drive.hand_over(rooms, room.id, 2)
    room = drive.act(rooms, room.id, 0, "new-round", {}, here(room), room.seq)
    dealt = room.round
    room = drive.act(rooms, room.id, 1, "new-round", {}, here(room), room.seq)
    assert room.round is not dealt and room.matches == 2  # every holder's word: a new match


def test_continue_between_rounds_goes_on_with_the_stand_ins_word(rooms):
    room = seated(rooms, "match-100")
    room = drive.hand_over(rooms, room.id, 1)
    room = finish(rooms, room, random.Random(3))
    assert room.between_rounds and not room.match.over
    scores = room.match.scores
    room = drive.act(rooms, room.id, 0, "new-round", {}, here(room), room.seq)  # "Continue"
    assert not room.round.over and room.rounds == 2
    assert room.matches == 1 and room.match.scores == scores  # the same match goes on


def test_continue_waits_no_longer_once_the_last_person_is_handed_over(rooms):
    room = seated(rooms, "three")
    room = finish(rooms, room, random.Random(4))
    for seat in (0, 1):
        room = drive.act(rooms, room.id, seat, "new-round", {}, frozenset({0, 1, 2}), room.seq)
    assert room.round.over and room.agreed == {0, 1}
    room = drive.hand_over(rooms, room.id, 2)  # between rounds: the stand-in is ready
    assert not room.round.over and room.rounds == 2 and room.request is None


# -- the stand-in's level ------------------------------------------------------------------------


def test_the_stand_in_plays_at_medium_whatever_the_other_computers_play(rooms):
    room = seated(rooms, "three", given={2: "hard"})
    room = drive.hand_over(rooms, room.id, 1)
    assert room.bots == (None, "medium", "hard")
    with pytest.raises(RoomError) as switched:
        drive.set_level(rooms, room.id, "easy", 1)
    assert switched.value.code == "stand-in-level"
    room = drive.set_level(rooms, room.id, "easy")  # the seats nobody holds: seat 2 only
    assert room.bots == (None, "medium", "easy")


def test_a_seat_handed_over_again_gets_the_level_it_had_then(rooms):
    room = seated(rooms)
    # A stand-in from before issue 27, whose level the player present chose.
    room = rooms.commit(Decision.of(room).then([level_event(1, "hard")]))
    assert room.handed(1) and room.stand_ins == (None, "hard")
    room = drive.take_back(rooms, room.id, 1)
    assert not room.handed(1)
    room = drive.hand_over(rooms, room.id, 1)
    assert room.bots == (None, "hard")
    refolded = fold(room.id, room.kind, rooms.store.load(room.id))
    assert refolded.stand_ins == (None, "hard") and refolded.bots == (None, "hard")


# -- through the web -----------------------------------------------------------------------------


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=3, AWAY_SECONDS=LONG_AWAY, AWAY_CLOCK=Clock())


def away(app, table: Table) -> None:
    """`table`'s browser leaves, as if an hour ago (the hub's clock moves on an hour: a seat
    still connected is not away at all)."""
    table.disconnect()
    app.config["AWAY_CLOCK"].advance(LONG_AWAY)


def test_the_hand_over_offers_no_level_and_takes_none(app):
    host, guest = friends(app)
    away(app, guest)
    host.fragment()
    form = host.doc.one("data-hand-over", "1")
    assert form.find(tag="select") is None and form.find("name", "level") is None
    assert "a level of its own, which nobody here chooses" in form.text
    response = host.post("computer", seat=1, level="easy", seq=None)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert app.extensions["domino"].rooms.get(host.room).bots == (None, "medium")


def three_with_the_guest_away(app, level: str) -> Table:
    """A table of three: the host (seat 0, connected), the guest in seat 1 away for an hour,
    seat 2 given to the computer at `level`; the host's table is fresh."""
    host = Table(app)
    host.create_room(preset="three")
    host.connect()
    host.fragment()
    assert host.post("computer", seat=2, level=level, seq=None).status_code == 200
    guest = Table(app, host.room)
    guest.open()
    guest.join()
    guest.connect("100.b")
    away(app, guest)
    host.fragment()
    return host


def test_the_others_cannot_switch_the_stand_ins_level(app):
    host = three_with_the_guest_away(app, "hard")
    assert host.post("computer", seat=1, level="easy", seq=None).status_code == 200
    before = host.log
    response = host.post("level", seat=1, level="easy", seq=None)
    assert response.status_code == 403
    with app.test_request_context():
        assert notice(parse(response.get_data(as_text=True))) == refusal("stand-in-level")
    assert host.log == before
    assert app.extensions["domino"].rooms.get(host.room).bots == (None, "medium", "hard")
    assert not any(n.get("id") == "level-seat-1" for n in host.doc.find_all("data-level"))


def test_a_press_mid_round_asks_the_away_player_and_deals_nothing(app):
    host = three_with_the_guest_away(app, "easy")
    assert host.post("computer", seat=1, seq=None).status_code == 200
    services = app.extensions["domino"]
    assert services.computer.wait_idle()
    host.fragment()
    room = services.rooms.get(host.room)
    assert not room.round.over and room.handed(1)
    press = host.doc.one("id", "new-round")
    assert press.text == "Ask for a new match"  # it asks: nothing is thrown away at once
    assert press.get("hx-confirm") is None
    dealt = room.round
    assert host.post("new-round").status_code == 200
    room = services.rooms.get(host.room)
    assert room.round is dealt and room.matches == 1 and room.agreed == {0}


def test_an_away_player_back_while_a_request_waits_gets_the_seat_at_once_to_answer(app):
    host, guest = friends(app)
    services = app.extensions["domino"]
    room = services.rooms.get(host.room)
    if room.round.turn == 0:  # the host opens: let them, so the guest's seat is to move
        host.fragment()
        assert host.post("play", tile=str(room.round.opening), end="left").status_code == 200
    away(app, guest)
    host.fragment()
    assert host.post("computer", seat=1, seq=None).status_code == 200
    assert services.computer.wait_idle()
    room = services.rooms.get(host.room)
    assert room.handed(1) and not room.round.over and room.round.turn == 0
    host.fragment()
    assert host.post("new-round").status_code == 200  # waits for the guest's word
    dealt = services.rooms.get(host.room).round
    guest.fragment()
    with app.test_request_context():  # the guest's socket comes back, as its handler does
        services.connect(guest.room, 1, guest.conn)
    room = services.rooms.get(host.room)
    assert not room.handed(1) and room.round is dealt  # theirs again, though not their turn
    guest.fragment()
    assert guest.post("accept-new-round").status_code == 200
    assert services.rooms.get(host.room).round is not dealt
