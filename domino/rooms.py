"""Rooms: seats, rounds and the new-round protocol, as a fold of stored room events.

No Flask here. `Rooms` keeps one writer per room (a lock), the store as the record, and a
cache of folded rooms. A room event is `(type, data)`: "seat", "deal", "play", "draw",
"pass", "ask" (a new round requested), "decline" and "level" (the computer's level).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import dataclass, replace

from . import game
from .events import DRAW, PASS, Play
from .record import deal_from_dict, deal_to_dict, move_from_dict, move_to_dict
from .rules import DEFAULT
from .store import Conflict, Store
from .tiles import Tile
from .views import SeatView, seat_view

IDLE_SECONDS = 7 * 24 * 3600
MOVES = ("play", "draw", "pass")
ROOM_ACTIONS = (*MOVES, "new-round", "accept-new-round", "decline-new-round")
LEVELS = ("easy", "medium", "hard")
COMPUTER = 1  # the computer's seat in a computer room


class RoomError(Exception):
    """An action the room refuses; `code` is stable, `status` the HTTP status to answer."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


@dataclass(frozen=True, slots=True)
class Room:
    """A room as folded from its events. Seat 0 is the creator, seat 1 the guest."""

    id: str
    kind: str
    seats: tuple[str | None, str | None]
    round: game.State | None
    rounds: int
    request: int | None
    seq: int
    level: str | None = None

    @property
    def computer_to_move(self) -> bool:
        """True when the round waits for the computer's move."""
        return self.kind == "computer" and self.round.turn == COMPUTER

    @property
    def full(self) -> bool:
        """True once both seats are taken (a computer room always is)."""
        return self.kind == "computer" or self.seats[1] is not None

    def seat_of(self, secret: str | None) -> int | None:
        """The seat a browser's secret holds, if any."""
        if not secret:
            return None
        digest = secret_hash(secret)
        for seat, held in enumerate(self.seats):
            if held is not None and secrets.compare_digest(held, digest):
                return seat
        return None


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one seat's table shows: its seat view plus the room's public facts."""

    room: str
    kind: str
    seat: int
    game: SeatView
    seq: int
    round_number: int
    guest_joined: bool
    opponent_connected: bool
    request: str | None
    live: bool
    active: bool
    level: str | None = None

    @property
    def waiting(self) -> bool:
        """True when play is held up because the other seat is missing."""
        return not (self.guest_joined and self.opponent_connected) and not self.game.over


def secret_hash(secret: str) -> str:
    """What is stored of a seat's secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A seat secret: 256 random bits."""
    return secrets.token_urlsafe(32)


def new_room_id() -> str:
    """A room id: 128 random bits."""
    return secrets.token_urlsafe(16)


def fold(room_id: str, kind: str, events) -> Room:
    """The room after its stored events `(seq, type, data)`."""
    room = Room(room_id, kind, (None, None), None, 0, None, 0)
    for seq, kind_, data in events:
        room = apply(room, kind_, data, seq)
    return room


def apply(room: Room, kind: str, data: dict, seq: int) -> Room:
    """The room after one stored event."""
    if kind == "seat":
        seats = list(room.seats)
        seats[data["seat"]] = data["hash"]
        return replace(room, seats=tuple(seats), seq=seq)
    if kind == "deal":
        state = game.start(deal_from_dict(data), DEFAULT)
        return replace(room, round=state, rounds=room.rounds + 1, request=None, seq=seq)
    if kind in MOVES:
        state = game.apply(room.round, move_from_dict(data))
        return replace(room, round=state, request=None, seq=seq)
    if kind == "ask":
        return replace(room, request=data["seat"], seq=seq)
    if kind == "decline":
        return replace(room, request=None, seq=seq)
    if kind == "level":
        return replace(room, level=data["level"], seq=seq)
    raise ValueError(f"unknown room event {kind!r}")


def decide(room: Room, seat: int, action: str, params: dict, present, rng) -> list:
    """The events a seat's action leads to; refused actions raise RoomError/IllegalMove."""
    other = 1 - seat
    if action in MOVES:
        if not room.full:
            raise RoomError("no-guest", "Your friend has not joined yet.")
        if other not in present and room.kind != "computer":
            raise RoomError("opponent-away", "Wait for the other player to come back.")
        return move_events(room, seat, _game_action(action, params))
    if action == "new-round":
        if not room.full or room.kind == "computer" or room.request == other:
            return [deal_event(rng)]
        if room.request == seat:
            raise RoomError("already-asked", "You have already asked for a new round.")
        return [("ask", {"seat": seat})]
    if action in ("accept-new-round", "decline-new-round"):
        if room.request != other:
            raise RoomError("no-request", "There is no new-round request to answer.")
        if action == "accept-new-round":
            return [deal_event(rng)]
        return [("decline", {"seat": seat})]
    raise RoomError("unknown-action", f"Unknown action {action!r}.", 400)


def move_events(room: Room, seat: int, action) -> list:
    """The stored event of a seat's play, draw or pass; an illegal one raises IllegalMove."""
    event = game.resolve(room.round, seat, action)
    game.apply(room.round, event)
    data = move_to_dict(event)
    return [(data["action"], data)]


def level_event(level: str) -> tuple[str, dict]:
    """The computer's level, checked."""
    if level not in LEVELS:
        raise RoomError("bad-level", f"Unknown level {level!r}.", 400)
    return ("level", {"level": level})


def deal_event(rng) -> tuple[str, dict]:
    """A fresh deal, shuffled once and recorded."""
    return ("deal", deal_to_dict(game.deal(DEFAULT, rng)))


def _game_action(action: str, params: dict):
    """Read a play, draw or pass from request parameters."""
    if action == "draw":
        return DRAW
    if action == "pass":
        return PASS
    try:
        tile = Tile.parse(params.get("tile", ""))
    except ValueError as error:
        raise RoomError("bad-tile", str(error), 400) from error
    end = params.get("end")
    if end not in ("left", "right"):
        raise RoomError("bad-end", "Choose the left or the right end.", 400)
    return Play(tile, end)


def table_view(room: Room, seat: int, opponent_connected: bool, live: bool = True) -> TableView:
    """What `seat` sees of `room`; `live` is False until the page's own socket is open."""
    view = seat_view(room.round, seat)
    request = None
    if room.request is not None:
        request = "mine" if room.request == seat else "theirs"
    connected = room.kind == "computer" or (room.full and opponent_connected)
    return TableView(
        room=room.id,
        kind=room.kind,
        seat=seat,
        game=view,
        seq=room.seq,
        round_number=room.rounds,
        guest_joined=room.full,
        opponent_connected=connected,
        request=request,
        live=live,
        active=connected and live and view.my_turn,
        level=room.level,
    )


class Rooms:
    """The rooms of one process: one writer per room, stored before acknowledged."""

    def __init__(self, store: Store, rng=None) -> None:
        self.store = store
        self.rng = rng or secrets.SystemRandom()
        self._cache: dict[str, Room] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    def lock(self, room_id: str) -> threading.RLock:
        """The lock that makes one writer per room (re-entrant, so pushes can hold it)."""
        with self._guard:
            lock = self._locks.get(room_id)
            if lock is None:
                lock = self._locks[room_id] = threading.RLock()
            return lock

    def get(self, room_id: str) -> Room | None:
        """The room, from the cache or folded from the store; None if unknown."""
        if self.store.changed_elsewhere():  # e.g. `flask purge-rooms` in another process
            self._cache.clear()
        room = self._cache.get(room_id)
        if room is not None:
            return room
        kind = self.store.kind(room_id)
        if kind is None:
            return None  # nothing is kept for made-up ids
        with self.lock(room_id):  # a fold must not overwrite a newer commit
            room = self._cache.get(room_id)
            if room is None:
                room = self._cache[room_id] = fold(room_id, kind, self.store.load(room_id))
            return room

    def create(self, kind: str = "friend", level: str = "medium") -> tuple[Room, str]:
        """A new room with its creator in seat 0 and the first deal; returns the secret."""
        room_id, secret = new_room_id(), new_secret()
        events = [("seat", {"seat": 0, "hash": secret_hash(secret)})]
        if kind == "computer":
            events.append(level_event(level))
        events.append(deal_event(self.rng))
        self.store.create_room(room_id, kind, events)
        return self.get(room_id), secret

    def join(self, room_id: str, secret: str | None) -> tuple[Room, int | None, str | None]:
        """Seat a browser: its own seat back, else the free guest seat, else none."""
        self._require(room_id)  # no lock is made for a made-up id
        with self.lock(room_id):
            room = self._require(room_id)
            seat = room.seat_of(secret)
            if seat is not None or room.full:
                return room, seat, secret
            secret = new_secret()
            room = self._commit(room, [("seat", {"seat": 1, "hash": secret_hash(secret)})])
            return room, 1, secret

    def act(self, room_id: str, seat: int, action: str, params: dict, present, seq) -> Room:
        """Carry out one seat's action if it is legal and `seq` is the room's latest."""
        self._require(room_id)
        with self.lock(room_id):
            room = self._require(room_id)
            if seq != room.seq:
                raise RoomError("stale", "The table changed meanwhile; here it is again.")
            events = decide(room, seat, action, params, present, self.rng)
            return self._commit(room, events)

    def set_level(self, room_id: str, level: str) -> Room:
        """Switch the computer's level; hands and line stay as they are."""
        self._require(room_id)
        with self.lock(room_id):
            room = self._require(room_id)
            if room.kind != "computer":
                raise RoomError("not-computer", "Only a computer table has a level.", 400)
            if room.level == level:
                return room
            return self._commit(room, [level_event(level)])

    def commit_as(self, room: Room, seat: int, action) -> Room:
        """Carry out an action chosen for `seat` by the computer (the caller holds the lock)."""
        return self._commit(room, move_events(room, seat, action))

    def evict(self, room_id: str) -> None:
        """Forget the cached fold of a room (it is rebuilt from the store on demand)."""
        self._cache.pop(room_id, None)

    def purge(self, idle_seconds: float = IDLE_SECONDS, now: float | None = None) -> list[str]:
        """Delete rooms idle for longer than `idle_seconds`."""
        removed = self.store.purge(idle_seconds, now)
        for room_id in removed:
            self.evict(room_id)
            with self._guard:
                self._locks.pop(room_id, None)
        return removed

    def finished_rounds(self, room_id: str) -> list[game.State]:
        """Every round of the room that reached its end, oldest first."""
        room = self._require(room_id)
        finished, state = [], None
        for _seq, kind, data in self.store.load(room.id):
            if kind == "deal":
                state = game.start(deal_from_dict(data), DEFAULT)
            elif kind in MOVES:
                state = game.apply(state, move_from_dict(data))
                if state.over:
                    finished.append(state)
        return finished

    def _require(self, room_id: str) -> Room:
        room = self.get(room_id)
        if room is None:
            raise RoomError("no-room", "This room does not exist or has expired.", 404)
        return room

    def _commit(self, room: Room, events: list) -> Room:
        """Store the events, then fold them into the cached room."""
        try:
            self.store.append(room.id, room.seq + 1, events)
        except Conflict as error:
            self.evict(room.id)
            raise RoomError("stale", "The table changed meanwhile; here it is again.") from error
        for kind, data in events:
            room = apply(room, kind, data, room.seq + 1)
        self._cache[room.id] = room
        return room
