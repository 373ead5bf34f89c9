"""A player's passkeys as stored: credential id, public key, sign count, name (SPEC §11).

The ceremonies (challenges, verifying assertions) are not here: this is what they read and write.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from dataclasses import dataclass


class KnownCredential(Exception):
    """This credential id is registered already."""


class LastPasskey(Exception):
    """The player's last passkey, with no recovery code left: removing it would lock them out."""


@dataclass(frozen=True, slots=True)
class Passkey:
    credential_id: bytes
    player: str
    public_key: bytes
    sign_count: int
    name: str
    created_at: float
    used_at: float | None


class Keys:
    """The passkeys' part of the lobby (a `LobbyDatabase` mixin)."""

    def add_passkey(
        self,
        player_id: str,
        credential_id: bytes,
        public_key: bytes,
        sign_count: int,
        name: str,
        now: float | None = None,
    ) -> Passkey:
        """Register a verified credential for the player; raise KnownCredential if it is."""
        now = time.time() if now is None else now
        key = Passkey(credential_id, player_id, public_key, sign_count, name, now, None)
        sql = (
            "INSERT INTO passkeys (credential_id, player, public_key, sign_count, name,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?)"
        )
        params = [credential_id, player_id, public_key, sign_count, name, now]
        try:
            self._write(lambda conn: conn.execute(sql, params))
        except sqlite3.IntegrityError as error:
            raise KnownCredential(credential_id.hex()) from error
        return key

    def passkey(self, credential_id: bytes) -> Passkey | None:
        """The passkey with this credential id, if registered."""
        row = self._row("SELECT * FROM passkeys WHERE credential_id = ?", [credential_id])
        return Passkey(**row) if row else None

    def passkeys(self, player_id: str) -> list[Passkey]:
        """A player's passkeys, oldest first."""
        sql = "SELECT * FROM passkeys WHERE player = ? ORDER BY created_at, credential_id"
        return [Passkey(**row) for row in self._rows(sql, [player_id])]

    def use_passkey(self, credential_id: bytes, sign_count: int, now: float | None = None) -> bool:
        """Record a verified sign-in's counter; False (nothing written) if the counter did not
        grow, as a cloned authenticator's would not (both zero: a device that counts nothing)."""
        now = time.time() if now is None else now
        sql = (
            "UPDATE passkeys SET sign_count = ?, used_at = ? WHERE credential_id = ?"
            " AND (sign_count < ? OR (sign_count = 0 AND ? = 0))"
        )
        params = [sign_count, now, credential_id, sign_count, sign_count]
        return self._write(lambda conn: conn.execute(sql, params).rowcount) > 0

    def rename_passkey(self, player_id: str, credential_id: bytes, name: str) -> bool:
        """Rename one of the player's passkeys; False if they have none such."""
        sql = "UPDATE passkeys SET name = ? WHERE player = ? AND credential_id = ?"
        params = [name, player_id, credential_id]
        return self._write(lambda conn: conn.execute(sql, params).rowcount) > 0

    def remove_passkey(self, player_id: str, credential_id: bytes) -> bool:
        """Remove one of the player's passkeys; False if none such. Raise LastPasskey (and keep
        it) if it is their last and no recovery code is left."""

        def remove(conn: sqlite3.Connection) -> bool:
            keys = conn.execute("SELECT count(*) FROM passkeys WHERE player = ?", [player_id])
            codes = conn.execute(
                "SELECT count(*) FROM recovery_codes WHERE player = ? AND spent_at IS NULL",
                [player_id],
            )
            last = keys.fetchone()[0] == 1 and codes.fetchone()[0] == 0
            sql = "DELETE FROM passkeys WHERE player = ? AND credential_id = ?"
            removed = conn.execute(sql, [player_id, credential_id]).rowcount > 0
            if removed and last:
                raise LastPasskey(credential_id.hex())  # the job's savepoint undoes the delete
            return removed

        return self._write(remove)


CHALLENGE_SECONDS = 5 * 60  # a ceremony's challenge is refused this long after it was made
PURPOSES = ("register", "sign-in")


@dataclass(frozen=True, slots=True)
class Challenge:
    id: str  # names the challenge in the browser's signed session cookie
    purpose: str  # "register" or "sign-in"
    player: str | None  # whose passkey is being registered; None for a sign-in
    challenge: bytes
    created_at: float


class Challenges:
    """WebAuthn challenges as stored: made for one ceremony, taken once (a `LobbyDatabase`
    mixin). Expired ones are deleted whenever a new one is stored."""

    def store_challenge(
        self, purpose: str, challenge: bytes, player: str | None = None, now: float | None = None
    ) -> Challenge:
        """Keep a challenge just sent to a browser; the id to remember it by comes back."""
        if purpose not in PURPOSES:
            raise ValueError(f"a challenge is for one of {PURPOSES}: {purpose!r}")
        now = time.time() if now is None else now
        made = Challenge(secrets.token_urlsafe(16), purpose, player, bytes(challenge), now)

        def store(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM challenges WHERE created_at < ?", [now - CHALLENGE_SECONDS])
            conn.execute(
                "INSERT INTO challenges (id, purpose, player, challenge, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [made.id, purpose, player, made.challenge, now],
            )

        self._write(store)
        return made

    def take_challenge(
        self, challenge_id: str, purpose: str, now: float | None = None
    ) -> Challenge | None:
        """The challenge with this id, deleted in the same write: a second take finds nothing.
        None for an unknown, spent or expired one, or one made for another purpose (which is
        spent all the same)."""
        now = time.time() if now is None else now

        def take(conn: sqlite3.Connection):
            row = conn.execute(
                "SELECT id, purpose, player, challenge, created_at FROM challenges WHERE id = ?",
                [challenge_id],
            ).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM challenges WHERE id = ?", [challenge_id])
            return Challenge(*row)

        found = self._write(take)
        if found is None or found.purpose != purpose:
            return None
        if not now - CHALLENGE_SECONDS <= found.created_at <= now:
            return None
        return found
