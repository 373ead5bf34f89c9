"""Players, their sessions and recovery codes, and deleting an account (SPEC §11)."""

from __future__ import annotations

import hmac
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

from . import ledger
from .stakes import leave_in

SESSION_SECONDS = 400 * 24 * 3600  # a session lasts 400 days from its last use
TOUCH_SECONDS = 3600  # a session's last use is written at most this often
CODES = 10  # recovery codes given at a time
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud, typed back
CODE_LENGTH = 12  # about 59 bits each
PLAYER_TABLES = (  # (table, column naming the player), emptied of a deleted player's rows
    ("sessions", "player"),
    ("passkeys", "player"),
    ("recovery_codes", "player"),
    ("invitations", "host"),
    ("invitations", "guest"),
    ("blocks", "blocker"),
    ("blocks", "blocked"),
    ("challenges", "player"),  # a passkey being added (m002)
    ("queue", "player"),  # quick match (m003)
    ("queue_seated", "player"),
    ("ratings", "player"),  # results (m004): a result itself names only ids, now nobody's
    ("league", "player"),
    ("top_up_days", "player"),  # the ledger (m005): its journal keeps the ids, now nobody's
    ("stake_notices", "player"),  # stake tables (m006): a held stake stays held, then refunded
)


class NameTaken(Exception):
    """Another player holds this name (in its canonical form)."""


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str  # as shown
    canonical: str
    created_at: float


@dataclass(frozen=True, slots=True)
class Session:
    id: str  # public: names the session in a list, never signs anybody in
    player: str
    label: str
    created_at: float
    used_at: float


def new_code() -> str:
    """A fresh recovery code, as shown: `abcd-efgh-jkmn`."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return "-".join(raw[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def normal_code(code: str) -> str:
    """A typed recovery code without case, spaces or dashes."""
    return "".join(ch for ch in code.lower() if ch not in " -\t")


class Accounts:
    """The players' part of the lobby: names, sessions, recovery codes (a `LobbyDatabase` mixin).

    `canonical` maps a name to its unique form (`domino.players.names` will give it).
    """

    canonical: Callable[[str], str]

    def take_name(self, name: str, label: str = "", now: float | None = None):
        """Create a player named `name`, their grant of coins and a session for them, in one
        transaction; return (player, session secret, session). Raise NameTaken if the
        canonical form is held."""
        now = time.time() if now is None else now
        player = Player(secrets.token_urlsafe(12), name, self.canonical(name), now)

        def take(conn: sqlite3.Connection):
            try:
                conn.execute(
                    "INSERT INTO players (id, name, canonical, created_at) VALUES (?, ?, ?, ?)",
                    [player.id, player.name, player.canonical, now],
                )
            except sqlite3.IntegrityError as error:
                raise NameTaken(name) from error
            ledger.post(conn, [ledger.grant_transfer(player.id)], now)  # SPEC §13: 1,000 coins
            return _insert_session(conn, self.hash, player.id, label, now)

        secret, session = self._write(take)
        return player, secret, session

    def player(self, player_id: str) -> Player | None:
        """The player with this id, if any."""
        row = self._row("SELECT * FROM players WHERE id = ?", [player_id])
        return Player(**row) if row else None

    def player_named(self, name: str) -> Player | None:
        """The player holding this name (compared in canonical form), if any."""
        row = self._row("SELECT * FROM players WHERE canonical = ?", [self.canonical(name)])
        return Player(**row) if row else None

    def new_session(self, player_id: str, label: str = "", now: float | None = None):
        """Sign a browser in: return (secret for its cookie, session). Only the hash is kept."""
        now = time.time() if now is None else now
        return self._write(lambda conn: _insert_session(conn, self.hash, player_id, label, now))

    def session(self, secret: str, now: float | None = None) -> Session | None:
        """The live session whose cookie holds `secret`; None if unknown, ended or expired.

        Its last use is written (at most once in TOUCH_SECONDS), which keeps it alive.
        """
        now = time.time() if now is None else now
        row = self._row("SELECT * FROM sessions WHERE hash = ?", [self.hash(secret)])
        if row is None or row["used_at"] < now - SESSION_SECONDS:
            return None
        if row["used_at"] < now - TOUCH_SECONDS:
            sql = "UPDATE sessions SET used_at = ? WHERE id = ?"
            if self._write(lambda conn: conn.execute(sql, [now, row["id"]]).rowcount) == 0:
                return None  # ended meanwhile
            row["used_at"] = now
        del row["hash"]
        return Session(**row)

    def sessions(self, player_id: str) -> list[Session]:
        """A player's sessions, the most recently used first (expired ones included)."""
        sql = (
            "SELECT id, player, label, created_at, used_at FROM sessions"
            " WHERE player = ? ORDER BY used_at DESC, id"
        )
        return [Session(**row) for row in self._rows(sql, [player_id])]

    def end_session(self, player_id: str, session_id: str) -> bool:
        """End one of the player's sessions (signing out); False if there was none such."""
        sql = "DELETE FROM sessions WHERE player = ? AND id = ?"
        return self._write(lambda conn: conn.execute(sql, [player_id, session_id]).rowcount) > 0

    def end_other_sessions(self, player_id: str, keep: str) -> int:
        """End every session of the player but `keep` (this browser's); how many ended."""
        sql = "DELETE FROM sessions WHERE player = ? AND id != ?"
        return self._write(lambda conn: conn.execute(sql, [player_id, keep]).rowcount)

    def new_recovery_codes(self, player_id: str, now: float | None = None) -> list[str]:
        """Ten fresh recovery codes for the player, replacing any left; shown once, kept
        hashed."""
        now = time.time() if now is None else now
        codes = [new_code() for _ in range(CODES)]
        rows = [(player_id, self.hash(normal_code(code)), now) for code in codes]

        def replace(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM recovery_codes WHERE player = ?", [player_id])
            conn.executemany(
                "INSERT INTO recovery_codes (player, hash, created_at) VALUES (?, ?, ?)", rows
            )

        self._write(replace)
        return codes

    def recovery_codes_left(self, player_id: str) -> int:
        """How many of the player's recovery codes are not spent."""
        sql = "SELECT count(*) AS n FROM recovery_codes WHERE player = ? AND spent_at IS NULL"
        return self._row(sql, [player_id])["n"]

    def spend_recovery_code(self, player_id: str, code: str, now: float | None = None) -> bool:
        """Spend one of the player's codes: True once; False for a spent or wrong code."""
        now = time.time() if now is None else now
        typed = self.hash(normal_code(code))

        def spend(conn: sqlite3.Connection) -> bool:
            sql = "SELECT hash FROM recovery_codes WHERE player = ? AND spent_at IS NULL"
            found = None
            for (stored,) in conn.execute(sql, [player_id]).fetchall():
                if hmac.compare_digest(stored, typed):  # look at every code, found or not
                    found = stored
            if found is None:
                return False
            sql = "UPDATE recovery_codes SET spent_at = ? WHERE player = ? AND hash = ?"
            conn.execute(sql, [now, player_id, found])
            return True

        return self._write(spend)

    def spend_any_recovery_code(self, code: str, now: float | None = None) -> str | None:
        """Sign in with a recovery code alone (no name typed): the id of the player whose
        unspent code it is, the code spent in the same write; None for a wrong or spent one."""
        now = time.time() if now is None else now
        typed = self.hash(normal_code(code))

        def spend(conn: sqlite3.Connection) -> str | None:
            sql = "SELECT player, hash FROM recovery_codes WHERE hash = ? AND spent_at IS NULL"
            found = None
            for player_id, stored in conn.execute(sql, [typed]).fetchall():
                if hmac.compare_digest(stored, typed) and found is None:
                    found = player_id
            if found is None:
                return None
            sql = (
                "UPDATE recovery_codes SET spent_at = ?"
                " WHERE player = ? AND hash = ? AND spent_at IS NULL"
            )
            conn.execute(sql, [now, found, typed])
            return found

        return self._write(spend)

    def delete_player(self, player_id: str) -> bool:
        """Delete an account: its name, sessions, passkeys, recovery codes, invitations (sent
        and received) and blocks (either way) are gone, and a stake held at a table still
        forming is returned first (`stakes.leave_in`: the table no longer counts them). False
        if there was no such player."""

        def delete(conn: sqlite3.Connection) -> bool:
            leave_in(conn, player_id, time.time())
            for table, column in PLAYER_TABLES:
                conn.execute(f"DELETE FROM {table} WHERE {column} = ?", [player_id])
            return conn.execute("DELETE FROM players WHERE id = ?", [player_id]).rowcount > 0

        return self._write(delete)


def _insert_session(conn: sqlite3.Connection, hash_, player_id: str, label: str, now: float):
    """Insert a session with a fresh secret; return (secret, session)."""
    secret = secrets.token_urlsafe(32)
    session = Session(secrets.token_urlsafe(12), player_id, label, now, now)
    conn.execute(
        "INSERT INTO sessions (id, player, hash, label, created_at, used_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [session.id, player_id, hash_(secret), label, now, now],
    )
    return secret, session
