"""Rooms: seats, rounds and the new-round protocol, as a fold of stored room events.

No Flask here. `Rooms` keeps the store as the record and a cache of folded rooms; its caller
(`domino.web.tables`) makes one writer per room, and the `(room, seq)` key is the backstop. A
room event is `(type, data)`: "seat", "deal", "play", "draw", "pass", "ask" (a new round
requested), "decline" and "level" (the computer's level).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from dataclasses import dataclass, replace

from . import game
from .events import DRAW, PASS, Play
from .record import deal_from_dict, deal_to_dict, dumps, move_from_dict, move_to_dict, to_record
from .rules import DEFAULT
from .store import Conflict, Store
from .tiles import Tile
from .views import SeatView, seat_view

IDLE_SECONDS = 7 * 24 * 3600
MOVES = ("play", "draw", "pass")
ROOM_ACTIONS = (*MOVES, "new-round", "accept-new-round", "decline-new-round")
LEVELS = ("easy", "medium", "hard")
COMPUTER = 1  # the computer's seat in a computer room
# Who sat where, as a round record names them (SPEC §7.1).
RECORD_NAMES = {"friend": ("player 1", "player 2"), "computer": ("player", "computer")}


class RoomError(Exception):
    """An action the room refuses, named by a stable `code` (the web layer words it)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


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
        rounds = room.rounds + 1 if room.full else 0  # round 0: a preview, until the guest
        return replace(room, round=state, rounds=rounds, request=None, seq=seq)
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
    if action in MOVES:
        if not room.full:
            raise RoomError("no-guest")
        if room.kind != "computer" and any(s not in present for s in others(room, seat)):
            raise RoomError("opponent-away")
        return move_events(room, seat, _game_action(action, params))
    asked_by_other = room.request is not None and room.request != seat
    if action == "new-round":
        if not room.full or room.kind == "computer" or asked_by_other:
            return [deal_event(rng)]
        if room.request == seat:
            raise RoomError("already-asked")
        return [("ask", {"seat": seat})]
    if action in ("accept-new-round", "decline-new-round"):
        if not asked_by_other:
            raise RoomError("no-request")
        if action == "accept-new-round":
            return [deal_event(rng)]
        return [("decline", {"seat": seat})]
    raise RoomError("unknown-action")


def others(room: Room, seat: int) -> list[int]:
    """Every seat of the room but `seat`."""
    return [other for other in range(len(room.seats)) if other != seat]


def move_events(room: Room, seat: int, action) -> list:
    """The stored event of a seat's play, draw or pass; an illegal one raises IllegalMove."""
    event = game.resolve(room.round, seat, action)
    game.apply(room.round, event)
    data = move_to_dict(event)
    return [(data["action"], data)]


def level_event(level: str) -> tuple[str, dict]:
    """The computer's level, checked."""
    if level not in LEVELS:
        raise RoomError("bad-level")
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
        raise RoomError("bad-tile") from error
    end = params.get("end")
    if end not in ("left", "right"):
        raise RoomError("bad-end")
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
        guest_joined=room.full,
        opponent_connected=connected,
        request=request,
        live=live,
        active=connected and live and view.my_turn,
        level=room.level,
    )


class Rooms:
    """The rooms of one process, stored before acknowledged.

    It takes no room's lock: the caller serializes the changes of each room (one writer per
    room, `domino.web.tables`), and a change made from a stale fold is refused by the store's
    key. (`_guard` only keeps a late fold from replacing a newer cached room.)
    """

    def __init__(self, store: Store, rng=None) -> None:
        self.store = store
        self.rng = rng or secrets.SystemRandom()
        self._cache: dict[str, Room] = {}
        self._guard = threading.Lock()

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
        room = fold(room_id, kind, self.store.load(room_id))
        with self._guard:  # a fold never replaces a newer commit
            cached = self._cache.get(room_id)
            if cached is None or cached.seq < room.seq:
                self._cache[room_id] = cached = room
        return cached

    def require(self, room_id: str) -> Room:
        """The room, or RoomError("no-room")."""
        room = self.get(room_id)
        if room is None:
            raise RoomError("no-room")
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
        """Seat a browser: its own seat back, else the free guest seat, else none.

        A guest taking the seat gets a fresh deal: what the creator saw while waiting (and
        could deal again at will) was only a preview.
        """
        room = self.require(room_id)
        seat = room.seat_of(secret)
        if seat is not None or room.full:
            return room, seat, secret
        secret = new_secret()
        seated = ("seat", {"seat": 1, "hash": secret_hash(secret)})
        room = self._commit(room, [seated, deal_event(self.rng)])
        return room, 1, secret

    def act(self, room_id: str, seat: int, action: str, params: dict, present, seq) -> Room:
        """Carry out one seat's action if it is legal and `seq` is the room's latest."""
        room = self.require(room_id)
        if seq != room.seq:
            raise RoomError("stale")
        return self._commit(room, decide(room, seat, action, params, present, self.rng))

    def set_level(self, room_id: str, level: str) -> Room:
        """Switch the computer's level; hands and line stay as they are."""
        room = self.require(room_id)
        if room.kind != "computer":
            raise RoomError("not-computer")
        if room.level == level:
            return room
        return self._commit(room, [level_event(level)])

    def commit_as(self, room: Room, seat: int, action) -> Room:
        """Carry out an action chosen for `seat` by the computer in `room` as it stands."""
        return self._commit(room, move_events(room, seat, action))

    def evict(self, room_id: str) -> None:
        """Forget the cached fold of a room (it is rebuilt from the store on demand)."""
        self._cache.pop(room_id, None)

    def purge(self, idle_seconds: float = IDLE_SECONDS, now: float | None = None) -> list[str]:
        """Delete rooms idle for longer than `idle_seconds`."""
        removed = self.store.purge(idle_seconds, now)
        for room_id in removed:
            self.evict(room_id)
        return removed

    def records(self, room_id: str) -> list[str]:
        """The round records of the room's finished rounds, oldest first, as JSON lines."""
        room = self.require(room_id)
        stored = self.store.records(room.id)
        if stored is None:  # a room from before records were stored: written once, now
            found = finished_records(room, self.store.load(room.id))
            self.store.backfill_records(room.id, found)
            stored = [text for _seq, text in found]
        return stored

    def _commit(self, room: Room, events: list) -> Room:
        """Store the events (and the record of a round they finish), then fold them in."""
        numbered = [(room.seq + 1 + i, kind, data) for i, (kind, data) in enumerate(events)]
        after, records = fold_finishing(room, numbered)
        try:
            self.store.append(room.id, room.seq + 1, events, records)
        except Conflict as error:
            self.evict(room.id)
            raise RoomError("stale") from error
        self._cache[room.id] = after
        return after


def record_text(room: Room) -> str:
    """The round record of the room's finished round, as one line of JSON."""
    return dumps(to_record(room.round, RECORD_NAMES[room.kind]))


def fold_finishing(room: Room, events) -> tuple[Room, list[tuple[int, str]]]:
    """`room` after the events `(seq, type, data)`, and the `(seq, record)` of each round
    they finish."""
    records = []
    for seq, kind, data in events:
        before = room.round
        room = apply(room, kind, data, seq)
        if room.round is not before and room.round.over:  # a move that ended the round
            records.append((seq, record_text(room)))
    return room, records


def finished_records(room: Room, events) -> list[tuple[int, str]]:
    """The `(seq, record)` of every round a room's stored `events` finish."""
    return fold_finishing(Room(room.id, room.kind, (None, None), None, 0, None, 0), events)[1]
