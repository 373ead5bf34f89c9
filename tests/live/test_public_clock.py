"""A public table's clock in a running app (SPEC §12, issue 31): one timer per room, armed by
its owner at the deadline the stored events give (web/live/clocks.py, Tables.nudge); a seat
whose time runs out has the computer move for it, marked `data-timeout`; the third timeout,
or a player away for ABANDON_SECONDS, hands the seat to the computer and loses the match; a
restarted app arms the same deadline again; friend rooms have no clock."""

from __future__ import annotations

import time

import pytest

from domino import commands
from tests.support.players import follow, named_browser, open_public, player_id
from tests.support.webkit import Table, make_app

QUICK = {"MOVE_SECONDS": 0.3, "BANK_SECONDS": 0.2, "ABANDON_SECONDS": 3600.0}


def wait_until(check, seconds: float = 20.0, what: str = "the clock"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"waited {seconds} s for {what}")


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=5, **QUICK)
    yield app
    app.extensions["domino"].close()


def seated(app, game="match-100"):
    """Ana and Bob at a public table of `game`, each seated by their grant."""
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    opened = open_public(app, game, ana, bob)
    for browser in (ana, bob):
        assert follow(browser, opened.grants[player_id(browser)]).status_code == 303
    return app.extensions["domino"], opened.room, ana, bob


def test_the_room_owner_arms_one_timer_at_the_stored_deadline(app):
    tables, room_id, _ana, _bob = seated(app)
    room = tables.get(room_id)
    assert room.clock is not None and tables.clocks.armed(room_id) == commands.deadline(room)
    assert commands.deadline(room) == room.clock.since + 0.3 + 0.2


def test_a_seat_whose_time_runs_out_has_the_computer_move_for_it_marked(app):
    tables, room_id, ana, bob = seated(app)
    # Whose time began when the room was opened (its first "clock" event): on a busy
    # machine it may have run out already while the grants were followed.
    seat = next(
        data["seat"] for _seq, kind, data in tables.rooms.store.load(room_id) if kind == "clock"
    )

    def moved_for():  # the timeout is stored, then the computer's move
        room = tables.get(room_id)
        return room.timed_out and len(room.round.history) > min(room.timed_out) and room

    room = wait_until(moved_for, what="the computer's move on a timeout")
    assert min(room.timed_out) == 0 and room.round.history[0].seat == seat
    mover = (ana, bob)[seat]
    mover.open()
    timed = mover.doc.find_all("data-timeout")
    assert timed and all(item.has("data-move") for item in timed)
    assert timed[0].get("data-seat") == str(seat)
    assert "time ran out" in timed[0].text


def test_the_third_timeout_abandons_the_seat_and_its_player_loses_the_match(app):
    tables, room_id, ana, bob = seated(app)
    room = wait_until(lambda: (r := tables.get(room_id)).lost and r, 60.0, "an abandoned seat")
    (seat,) = room.lost
    assert room.clock.timeouts[seat] == 3 and room.bots[seat] == "hard"
    loser = (ana, bob)[seat]
    loser.open()
    loser.connect()  # a move is taken from a page whose socket is open
    assert loser.doc.find("data-lost") is not None
    for _ in range(50):  # the table plays on meanwhile (the other seat times out too)
        response = loser.post("pass", seq=tables.get(room_id).seq)
        if response.status_code != 409:
            break
    assert response.status_code == 403, response.get_data(as_text=True)[-3000:]
    assert "counts as lost" in response.get_data(as_text=True)


def test_a_player_away_for_the_abandon_time_loses_the_match(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=5, MOVE_SECONDS=60.0, ABANDON_SECONDS=2.0)
    try:
        tables, room_id, ana, _bob = seated(app)
        socket = ana.connect()  # Ana is here; Bob never opened a socket: away from the start
        room = wait_until(lambda: (r := tables.get(room_id)).lost and r, what="an abandon")
        assert room.lost == {1} and room.humans == (0,)
        assert ana.doc.find("data-lost") is None
        assert any("left the match" in frame for frame in socket.frames)  # Ana was told
    finally:
        app.extensions["domino"].close()


def test_a_restarted_app_arms_the_same_deadline_from_the_stored_times(tmp_path):
    slow = {"MOVE_SECONDS": 120.0, "BANK_SECONDS": 60.0}
    first = make_app(tmp_path / "domino.sqlite3", seed=5, **slow)
    tables, room_id, _ana, _bob = seated(first)
    due = commands.deadline(tables.get(room_id))
    tables.close()
    tables.rooms.store.close()
    time.sleep(0.05)
    again = make_app(tmp_path / "domino.sqlite3", seed=5, **slow)
    try:
        services = again.extensions["domino"]
        assert services.clocks.armed(room_id) is None
        assert services.resume_clocks() == 1
        assert services.clocks.armed(room_id) == due
    finally:
        again.extensions["domino"].close()


def test_friend_rooms_have_no_clock(app):
    host = Table(app)
    host.create_room()
    guest = Table(app, host.room)
    guest.join()
    room = app.extensions["domino"].get(host.room)
    assert room.clock is None and commands.deadline(room) is None
    assert app.extensions["domino"].clocks.armed(host.room) is None
    assert host.doc.find("data-clock") is None
