"""Rooms kept in the store: created, joined and changed, stored before acknowledged.

No Flask here. `Rooms` loads and commits: the store is the record, with a cache of folded rooms;
what a command decides, and the room it folds to, is `domino.commands`'; its caller
(`domino.web.live.tables`) makes one writer per room, and the `(room, seq)` key is the backstop.
"""

from __future__ import annotations

import secrets
import threading

from .. import commands
from ..commands import Decision
from ..dealing import FirstDeal
from ..players.results import finished
from ..room import IDLE_SECONDS, Room, RoomError, fold, new_room_id, new_secret, secret_hash
from ..room_records import finished_records
from ..rules import DEFAULT, Rules
from . import Conflict, Spent, Store


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

    @property
    def cached(self) -> int:
        """How many rooms' folds this process keeps in memory."""
        return len(self._cache)

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
        """A new room (`commands.create`), stored; returns it and the creator's secret. A
        home page's nonce used before commits afresh and drops the creator's seed."""
        room_id, secret = new_room_id(self.shard), new_secret()
        decision = commands.create(room_id, kind, secret, self.rng, level, rules, counter, first)
        try:
            self.store.create_room(
                room_id, kind, list(decision.events), nonce=first.nonce if first else None
            )
        except Conflict:  # the page's nonce was used: its commitment is spent
            decision = commands.create(room_id, kind, secret, self.rng, level, rules, counter)
            self.store.create_room(room_id, kind, list(decision.events))
        self._cache[room_id] = decision.room
        return decision.room, secret

    def create_public(
        self, rules: Rules, seats, players=None, timing=None, now=0.0, stake: int = 0
    ) -> Room:
        """A public room (`commands.create_public`), stored: `seats` gives by seat a person's
        name or None for the computer, `players` (seat: player id) whose seat it is, written
        with the room (its finished matches' results name them), `timing` its clock's
        (`domino.clock.Timing`, from `now`), `stake` a stake table's coins each (SPEC §13).
        Each person's seat is held by a secret nobody is
        given (a grant replaces it: `commands.reseat`); returns the room and nothing else
        secret."""
        room_id = new_room_id(self.shard)
        held = [None if name is None else (secret_hash(new_secret()), name) for name in seats]
        decision = commands.create_public(room_id, rules, held, self.rng, timing, now, stake)
        self.store.create_room(room_id, "public", list(decision.events), players=players)
        self._cache[room_id] = decision.room
        return decision.room

    def commit(self, decision: Decision, grant: str | None = None) -> Room:
        """Store a decision's events and the records of the rounds they finish, and cache the
        room they fold to; RoomError("stale") if the room moved on meanwhile (the `(room,
        seq)` key). A decision of no events changes nothing."""
        if not decision.events:
            return decision.room
        before = decision.before
        ended = finished(before, decision.room)  # a match's result: into the outbox
        try:
            self.store.append(
                before.id,
                before.seq + 1,
                list(decision.events),
                list(decision.records),
                grant,
                [ended] if ended else [],
            )
        except Spent as error:
            raise RoomError("grant-used") from error
        except Conflict as error:
            self.evict(before.id)
            raise RoomError("stale") from error
        self._cache[before.id] = decision.room
        return decision.room

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
