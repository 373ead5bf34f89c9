"""Rooms kept in the store: created, joined and changed, stored before acknowledged.

No Flask here. `Rooms` keeps the store as the record and a cache of folded rooms (the fold and
what an action decides are in `domino.room`); its caller (`domino.web.live.tables`) makes one writer
per room, and the `(room, seq)` key is the backstop.
"""

from __future__ import annotations

import secrets
import threading

from .. import dealing
from ..actions import (
    decide,
    fold_in,
    fresh_deal,
    granted,
    level_event,
    move_events,
    name_event,
    rules_event,
    seed_events,
    stand_in_event,
)
from ..dealing import FirstDeal
from ..records import finished_records, fold_finishing
from ..room import (
    IDLE_SECONDS,
    Room,
    RoomError,
    apply,
    empty,
    fold,
    new_room_id,
    new_secret,
    secret_hash,
)
from ..rules import DEFAULT, Rules
from . import Conflict, Store


class Rooms:
    """The rooms of one process, stored before acknowledged.

    It takes no room's lock: the caller serializes the changes of each room (one writer per
    room, `domino.web.live.tables`), and a change made from a stale fold is refused by the store's
    key. (`_guard` only keeps a late fold from replacing a newer cached room.)
    """

    def __init__(self, store: Store, rng=None, shard: str = "") -> None:
        self.store = store
        self.rng = rng or secrets.SystemRandom()
        self.shard = shard  # the name this process's room ids start with ("": one process)
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
        self,
        kind: str = "friend",
        level: str = "medium",
        rules: Rules = DEFAULT,
        counter: bool = False,
        first: FirstDeal | None = None,
    ) -> tuple[Room, str]:
        """A new room: its rules, its creator in seat 0 (in a computer room, the computer on
        every other seat, at `level`) and the first deal, of the seed the home page committed
        to (`first`; a nonce used before commits afresh and drops the creator's seed) and
        the creator's; returns the creator's secret."""
        room_id, secret = new_room_id(self.shard), new_secret()
        events = [rules_event(rules), ("seat", {"seat": 0, "hash": secret_hash(secret)})]
        if counter:
            events.append(("options", {"counter": True}))
        if kind == "computer":
            events += [level_event(seat, level) for seat in range(1, rules.seats)]
        try:
            self.store.create_room(
                room_id,
                kind,
                self._first_deal(room_id, kind, events, first),
                nonce=first.nonce if first else None,
            )
        except Conflict:  # the page's nonce was used: its commitment is spent
            self.store.create_room(room_id, kind, self._first_deal(room_id, kind, events, None))
        return self.get(room_id), secret

    def _first_deal(self, room_id: str, kind: str, events: list, first: FirstDeal | None):
        """`events`, then the commitment and seed of the first deal, and the deal."""
        if first is not None:
            events = [*events, dealing.commit_of(first.server_seed, first.nonce)]
            params = {"client_seed": first.client_seed or ""}
            room = fold_in(empty(room_id, kind), events)
            params["commitment"] = room.fair.next_commitment
            events += seed_events(room, 0, params)
        return [*events, *fresh_deal(fold_in(empty(room_id, kind), events), self.rng)]

    def join(
        self, room_id: str, secret: str | None, params: dict | None = None
    ) -> tuple[Room, int | None, str | None]:
        """Seat a browser: its own seat back, else the first free seat, else none.

        The seat that makes the table full gets a fresh deal, with the client seed in
        `params`: what was dealt while seats were free (and could be dealt again at will)
        was only a preview.
        """
        room = self.require(room_id)
        seat = room.seat_of(secret)
        if seat is not None or room.full:
            return room, seat, secret
        secret, seat = new_secret(), room.free[0]
        seated = [("seat", {"seat": seat, "hash": secret_hash(secret)})]
        seated += seed_events(fold_in(room, seated), seat, params or {})
        room = self._commit(room, [*seated, *self._fresh_if_full(room, seated)])
        return room, seat, secret

    def act(self, room_id: str, seat: int, action: str, params: dict, present, seq) -> Room:
        """Carry out one seat's action if it is legal and `seq` is the room's latest."""
        room = self.require(room_id)
        if seq != room.seq:
            raise RoomError("stale")
        return self._commit(room, decide(room, seat, action, params, present, self.rng))

    def set_level(self, room_id: str, level: str, seat: int | None = None) -> Room:
        """Switch the level of a seat the computer plays (by default, every such seat that
        nobody holds); hands and line stay as they are. The level of a seat it plays for an
        away player is not the others' to switch."""
        room = self.require(room_id)
        unheld = [s for s, (held, bot) in enumerate(room.taken) if bot and not held]
        seats = [seat] if seat is not None else unheld
        if not seats or any(room.bots[s] is None for s in seats):
            raise RoomError("not-computer")
        if any(room.handed(s) for s in seats):
            raise RoomError("stand-in-level")
        events = [level_event(s, level) for s in seats if room.bots[s] != level]
        return self._commit(room, events) if events else room

    def give(self, room_id: str, seat: int, level: str, by: int = 0, params=None) -> Room:
        """Give a free seat to the computer, at `level`; the table, if now full, is dealt
        (with the client seed of seat `by` in `params`)."""
        room = self.require(room_id)
        if seat not in room.free:
            raise RoomError("seat-taken")
        given = [level_event(seat, level)]
        given += seed_events(fold_in(room, given), by, params or {})
        return self._commit(room, [*given, *self._fresh_if_full(room, given)])

    def hand_over(self, room_id: str, seat: int) -> Room:
        """Let the computer stand in for the player of a held seat who is away (the caller
        checks how long), at the level `stand_in_event` gives it."""
        room = self.require(room_id)
        if seat not in room.humans:
            raise RoomError("not-away")
        handed = stand_in_event(room, seat)
        after = apply(room, *handed, room.seq + 1)
        if after.request is not None and set(after.voices) <= after.agreed:
            # Between rounds, the seat was the last whose word a request waited for: the
            # computer gives it ("Continue" goes on). Mid-round the stand-in gives no word
            # (`Room.voices`): the request waits for its player.
            return self._commit(room, [handed, *granted(after, after.request_kind, self.rng)])
        return self._commit(room, [handed])

    def take_back(self, room_id: str, seat: int) -> Room:
        """The seat's player plays it again."""
        room = self.require(room_id)
        if not room.handed(seat):
            raise RoomError("not-handed")
        return self._commit(room, [("back", {"seat": seat})])

    def name(self, room_id: str, seat: int, name: str) -> Room:
        """Set a seat's display name ("" for none)."""
        room = self.require(room_id)
        event = name_event(seat, name)
        if room.names[seat] == event[1]["name"]:
            return room
        return self._commit(room, [event])

    def _fresh_if_full(self, room: Room, events: list) -> list:
        """A fresh deal if `events` fill the last free seat, else nothing."""
        after = fold_in(room, events)
        return fresh_deal(after, self.rng) if after.full and not room.full else []

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
