"""Each command is decided once (issue 28): a play is applied to the round exactly once, by
`domino.commands`, whether a person sends it over HTTP or the computer makes it; the store
keeps the room that decision folded to."""

from __future__ import annotations

import random
import threading

import pytest

from domino import commands, game
from domino.room import RoomError
from tests.support import drive
from tests.support.webkit import Table, friends, make_app, seat_on_turn


@pytest.fixture
def applies(monkeypatch):
    """The rounds `domino.game.apply` was called on in this thread, counted from now."""
    calls: list[game.State] = []
    original, here = game.apply, threading.get_ident()

    def counted(state, event):
        if threading.get_ident() == here:
            calls.append(state)
        return original(state, event)

    monkeypatch.setattr(game, "apply", counted)
    return calls


def test_a_play_sent_over_http_is_applied_once(app, applies):
    tables = friends(app)
    player = seat_on_turn(tables)
    state, seat = player.state, player.seat
    action = random.Random(1).choice(game.legal_actions(state, seat))
    applies.clear()
    assert player.send(action).status_code == 200
    assert len(applies) == 1
    room = app.extensions["domino"].rooms
    stored = room.get(player.room)
    room.evict(player.room)  # the room cached is the room the stored events fold to
    assert room.get(player.room) == stored and stored.seq == len(player.log)


def test_a_move_the_computer_makes_is_applied_once(tmp_path, decider, applies):
    app = make_app(tmp_path / "domino.sqlite3", seed=3, BOT_DECIDE=decider)
    decider.hold()  # the computer's own decisions wait: the move below is the one made
    player = Table(app)
    player.home()
    response = player.client.post("/computer", data={"csrf_token": player.csrf})
    player.room = response.headers["Location"].rsplit("/", 1)[-1]
    tables = app.extensions["domino"]
    room = tables.get(player.room)
    if not room.computer_to_move:  # the player opens: one move, and the computer is to move
        action = game.legal_actions(room.round, 0)[0]
        room = drive.commit_as(tables.rooms, room, 0, action)
    assert room.computer_to_move
    seat = room.round.turn
    action = game.legal_actions(room.round, seat)[0]
    applies.clear()
    after = tables.computer_moves(room.id, room.seq, action)
    assert after is not None and after.seq > room.seq
    assert len(applies) == 1
    assert tables.computer_moves(room.id, room.seq, action) is None  # the room moved on


def test_a_decision_holds_the_events_and_the_room_they_fold_to(app):
    tables = friends(app)
    player = seat_on_turn(tables)
    rooms = app.extensions["domino"].rooms
    room = rooms.get(player.room)
    action = game.legal_actions(room.round, player.seat)[0]
    decision = commands.move(room, player.seat, action)
    assert decision.before is room and len(decision.events) == 1
    assert decision.room.seq == room.seq + 1 and decision.room.round != room.round
    assert rooms.get(player.room) is room  # deciding stores nothing
    assert rooms.commit(decision) is decision.room
    with pytest.raises(RoomError) as stale:  # the store's key is the backstop
        rooms.commit(decision)
    assert stale.value.code == "stale"


def test_the_web_layer_decides_nothing_a_command_does_not(app):
    """The seat checks the web layer used to make are the pure commands' refusals."""
    tables = friends(app)
    room = app.extensions["domino"].rooms.get(tables[0].room)
    rng = random.Random(1)
    with pytest.raises(RoomError) as creator:
        commands.give(room, 1, 1, "easy", {}, rng)
    assert creator.value.code == "not-creator"
    with pytest.raises(RoomError) as seated:
        commands.hand_over(room, 0, 1, present=(), away_long={1}, rng=rng)
    assert seated.value.code == "not-seated"
    with pytest.raises(RoomError) as away:
        commands.hand_over(room, 0, 1, present={0}, away_long=(), rng=rng)
    assert away.value.code == "not-away"
    with pytest.raises(RoomError) as level:
        commands.set_level(room, 0, "easy")
    assert level.value.code == "not-computer"
    assert not commands.everyone_here(room, {0}) and commands.everyone_here(room, {0, 1})
