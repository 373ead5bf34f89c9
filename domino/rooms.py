"""Rooms kept in the store: created, joined and changed, stored before acknowledged.

No Flask here. `Rooms` keeps the store as the record and a cache of folded rooms (the fold and
what an action decides are in `domino.room`); its caller (`domino.web.tables`) makes one writer
per room, and the `(room, seq)` key is the backstop.
"""

from __future__ import annotations

import secrets
import threading

from .record import dumps, match_to_dict, to_record
from .room import (
    Room,
    RoomError,
    apply,
    deal_event,
    decide,
    empty,
    fold,
    level_event,
    move_events,
    rules_event,
    secret_hash,
)
from .rules import DEFAULT, Rules
from .store import Conflict, Store

IDLE_SECONDS = 7 * 24 * 3600
# Who sat where, as a round record names them (SPEC §7.1).
RECORD_NAMES = {"friend": ("player 1", "player 2"), "computer": ("player", "computer")}


def new_secret() -> str:
    """A seat secret: 256 random bits."""
    return secrets.token_urlsafe(32)


def new_room_id() -> str:
    """A room id: 128 random bits."""
    return secrets.token_urlsafe(16)


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

    def create(
        self, kind: str = "friend", level: str = "medium", rules: Rules = DEFAULT
    ) -> tuple[Room, str]:
        """A new room: its rules, its creator in seat 0 and the first deal; returns the secret."""
        room_id, secret = new_room_id(), new_secret()
        events = [rules_event(rules), ("seat", {"seat": 0, "hash": secret_hash(secret)})]
        if kind == "computer":
            events.append(level_event(level))
        events.append(deal_event(rules, self.rng))
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
        secret, seat = new_secret(), room.seats.index(None)
        seated = ("seat", {"seat": seat, "hash": secret_hash(secret)})
        room = self._commit(room, [seated, deal_event(room.rules, self.rng)])
        return room, seat, secret

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


def record_text(before: Room, after: Room) -> str:
    """The round record of the round a move finished (`before` it, `after` it), one JSON line."""
    match = None
    if after.match is not None:
        match = match_to_dict(after.matches, before.match, after.match)
    return dumps(to_record(after.round, RECORD_NAMES[after.kind], match))


def fold_finishing(room: Room, events) -> tuple[Room, list[tuple[int, str]]]:
    """`room` after the events `(seq, type, data)`, and the `(seq, record)` of each round
    they finish."""
    records = []
    for seq, kind, data in events:
        before = room
        room = apply(room, kind, data, seq)
        if room.round is not before.round and room.round.over:  # a move that ended the round
            records.append((seq, record_text(before, room)))
    return room, records


def finished_records(room: Room, events) -> list[tuple[int, str]]:
    """The `(seq, record)` of every round a room's stored `events` finish."""
    return fold_finishing(empty(room.id, room.kind), events)[1]
