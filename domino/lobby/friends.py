"""Invitations by name to a table, and blocks (SPEC §11)."""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass

OPEN, ACCEPTED, DECLINED = "open", "accepted", "declined"


@dataclass(frozen=True, slots=True)
class Invitation:
    id: str
    host: str
    guest: str
    room: str
    state: str
    created_at: float
    answered_at: float | None


class Friends:
    """The invitations' and blocks' part of the lobby (a `LobbyDatabase` mixin)."""

    def invite(self, host: str, guest: str, room: str, now: float | None = None) -> Invitation:
        """Invite `guest` to the host's room; the same invitation again returns the first one.
        A player cannot invite themselves (ValueError)."""
        if host == guest:
            raise ValueError("a player cannot invite themselves")
        now = time.time() if now is None else now
        new = secrets.token_urlsafe(12)

        def invite(conn: sqlite3.Connection) -> dict:
            conn.execute(
                "INSERT OR IGNORE INTO invitations (id, host, guest, room, state, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [new, host, guest, room, OPEN, now],
            )
            sql = "SELECT * FROM invitations WHERE host = ? AND guest = ? AND room = ?"
            cursor = conn.execute(sql, [host, guest, room])
            names = [column[0] for column in cursor.description]
            return dict(zip(names, cursor.fetchone(), strict=True))

        return Invitation(**self._write(invite))

    def invitations_for(self, guest: str) -> list[Invitation]:
        """The guest's open invitations, newest first, without those of players they block."""
        sql = (
            "SELECT * FROM invitations WHERE guest = ? AND state = ? AND host NOT IN"
            " (SELECT blocked FROM blocks WHERE blocker = ?) ORDER BY created_at DESC, id"
        )
        return [Invitation(**row) for row in self._rows(sql, [guest, OPEN, guest])]

    def invitations_from(self, host: str, room: str) -> list[Invitation]:
        """The host's invitations to a room, answered or not (a decline tells the host)."""
        sql = "SELECT * FROM invitations WHERE host = ? AND room = ? ORDER BY created_at, id"
        return [Invitation(**row) for row in self._rows(sql, [host, room])]

    def answer(
        self, guest: str, invitation_id: str, accept: bool, now: float | None = None
    ) -> Invitation | None:
        """Accept or decline an open invitation to `guest`; None if there is none such."""
        now = time.time() if now is None else now
        state = ACCEPTED if accept else DECLINED
        sql = (
            "UPDATE invitations SET state = ?, answered_at = ?"
            " WHERE id = ? AND guest = ? AND state = ?"
        )
        params = [state, now, invitation_id, guest, OPEN]
        if self._write(lambda conn: conn.execute(sql, params).rowcount) == 0:
            return None
        return Invitation(**self._row("SELECT * FROM invitations WHERE id = ?", [invitation_id]))

    def block(self, blocker: str, blocked: str, now: float | None = None) -> None:
        """Block a player (again: nothing changes). A player cannot block themselves."""
        if blocker == blocked:
            raise ValueError("a player cannot block themselves")
        now = time.time() if now is None else now
        sql = "INSERT OR IGNORE INTO blocks (blocker, blocked, created_at) VALUES (?, ?, ?)"
        self._write(lambda conn: conn.execute(sql, [blocker, blocked, now]))

    def unblock(self, blocker: str, blocked: str) -> bool:
        """Lift a block; False if there was none."""
        sql = "DELETE FROM blocks WHERE blocker = ? AND blocked = ?"
        return self._write(lambda conn: conn.execute(sql, [blocker, blocked]).rowcount) > 0

    def blocked_by(self, blocker: str) -> list[str]:
        """The ids of the players `blocker` blocks, in the order blocked."""
        sql = "SELECT blocked FROM blocks WHERE blocker = ? ORDER BY created_at, blocked"
        return [row["blocked"] for row in self._rows(sql, [blocker])]

    def either_blocks(self, a: str, b: str) -> bool:
        """True if one of the two blocks the other (they are never seated together)."""
        sql = (
            "SELECT 1 FROM blocks WHERE (blocker = ? AND blocked = ?)"
            " OR (blocker = ? AND blocked = ?)"
        )
        return self._row(sql, [a, b, b, a]) is not None

    def friends(self, player: str) -> list[tuple[str, str]]:
        """The player's friends as (id, name), by name: the players with an accepted invitation
        from or to them, without any player one of the two blocks."""
        sql = (
            "SELECT DISTINCT p.id, p.name FROM invitations i JOIN players p"
            " ON p.id = CASE WHEN i.host = ? THEN i.guest ELSE i.host END"
            " WHERE (i.host = ? OR i.guest = ?) AND i.state = ? AND p.id NOT IN"
            " (SELECT blocked FROM blocks WHERE blocker = ?"
            " UNION SELECT blocker FROM blocks WHERE blocked = ?)"
            " ORDER BY p.canonical, p.id"
        )
        rows = self._rows(sql, [player, player, player, ACCEPTED, player, player])
        return [(row["id"], row["name"]) for row in rows]


class LastSeen:
    """When the lobby last heard from each player (their polls of the player bar and of
    their invitations), in this process's memory only: who is online is "seen in the last
    `online` seconds", and a restart forgets it, as it forgets open sockets (SPEC §11, friend
    lists). Bounded: the oldest entries go once it holds `most`."""

    def __init__(self, online: float = 120.0, most: int = 100_000, clock=time.monotonic):
        self.online, self.most, self.clock = online, most, clock
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def saw(self, player: str) -> None:
        now = self.clock()
        with self._lock:
            self._seen.pop(player, None)
            self._seen[player] = now  # the newest last: the oldest are first to go
            while len(self._seen) > self.most:
                del self._seen[next(iter(self._seen))]

    def is_online(self, player: str) -> bool:
        seen = self._seen.get(player)
        return seen is not None and self.clock() - seen <= self.online
