"""One command on a stored room, as a test writes it: load the room from `Rooms`, decide with
`domino.commands`, commit with `Rooms.commit`. What the web layer does through
`domino.web.live.tables` (which also checks the tab, the seat's secret and presence), without it;
and rooms seated and rounds played with them.

    room, seat, secret = drive.join(rooms, room.id, None)
    room = drive.act(rooms, room.id, seat, "play", params, present, room.seq)

Each takes the random numbers it needs from `rooms.rng`, as the web layer's commands do.
"""

from __future__ import annotations

import random

from domino import bots, commands, game
from domino.room import Room, new_secret
from domino.rules import Rules
from domino.store.cache import Rooms
from domino.views import seat_view


def join(
    rooms: Rooms, room_id: str, secret: str | None, params: dict | None = None
) -> tuple[Room, int | None, str | None]:
    """Seat a browser (`commands.join`): the room, the seat and its secret."""
    decision, seat, secret = commands.join(
        rooms.require(room_id), secret, new_secret, params, rooms.rng
    )
    return rooms.commit(decision), seat, secret


def act(rooms: Rooms, room_id: str, seat: int, action: str, params: dict, present, seq) -> Room:
    """Carry out one seat's action (`commands.act`)."""
    room = rooms.require(room_id)
    return rooms.commit(commands.act(room, seat, action, params, present, seq, rooms.rng))


def set_level(rooms: Rooms, room_id: str, level: str, seat: int | None = None, by: int = 0) -> Room:
    """Seat `by` switches a computer seat's level (`commands.set_level`)."""
    return rooms.commit(commands.set_level(rooms.require(room_id), by, level, seat))


def give(rooms: Rooms, room_id: str, seat: int, level: str, by: int = 0, params=None) -> Room:
    """Give a free seat to the computer (`commands.give`)."""
    room = rooms.require(room_id)
    return rooms.commit(commands.give(room, by, seat, level, params, rooms.rng))


def hand_over(rooms: Rooms, room_id: str, seat: int) -> Room:
    """Hand a held seat to the computer (`commands.hand_over`) as another person at the table
    would, its player away long."""
    room = rooms.require(room_id)
    by = next((other for other in room.humans if other != seat), None)
    return rooms.commit(commands.hand_over(room, by, seat, room.humans, (seat,), rooms.rng))


def take_back(rooms: Rooms, room_id: str, seat: int) -> Room:
    """The seat's player plays it again (`commands.take_back`)."""
    return rooms.commit(commands.take_back(rooms.require(room_id), seat))


def name(rooms: Rooms, room_id: str, seat: int, name: str) -> Room:
    """Set a seat's display name (`commands.name`)."""
    return rooms.commit(commands.name(rooms.require(room_id), seat, name))


def commit_as(rooms: Rooms, room: Room, seat: int, action) -> Room:
    """Carry out an action chosen for `seat` by the computer in `room` as it stands."""
    return rooms.commit(commands.move(room, seat, action))


def move_params(room: Room, seat: int, rng: random.Random) -> tuple[str, dict]:
    """A bot's choice for `seat`, as the request parameters of its action (for `act`)."""
    action = bots.decide("easy", seat_view(room.round, seat), rng.getrandbits(32))
    if isinstance(action, game.Play):
        return "play", {"tile": str(action.tile), "end": action.end}
    return str(action).lower(), {}


def seated(rooms, rules: Rules, kind: str = "friend"):
    """A room under `rules` with every seat taken."""
    room, _secret = rooms.create(kind, "medium", rules)
    if kind == "friend":
        room, seat, _guest = join(rooms, room.id, None)
        assert seat == 1
    return room


def move(rooms, room, rng: random.Random):
    """The seat to move plays a random legal action."""
    seat = room.round.turn
    action = rng.choice(game.legal_actions(room.round, seat))
    return commit_as(rooms, room, seat, action)


def finish_round(rooms, room, rng):
    """Play the round in `room` to its end; returns the room and the round's outcome."""
    while not room.round.over:
        room = move(rooms, room, rng)
    return room, game.outcome(room.round)
