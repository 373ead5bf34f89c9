"""SQLite storage: rooms and an append-only event log per room, `(room, seq)` keyed."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from sqlite_utils import Database, Migrations

migrations = Migrations("domino")


@migrations()
def m001_rooms_and_events(db: Database) -> None:
    """Rooms, and the events of each room in order."""
    db["rooms"].create({"id": str, "kind": str, "created_at": float, "touched_at": float}, pk="id")
    db["rooms"].create_index(["touched_at"])
    db["events"].create(
        {"room": str, "seq": int, "type": str, "data": str, "at": float},
        pk=("room", "seq"),
        foreign_keys=[("room", "rooms", "id")],
    )


@migrations()
def m002_round_records(db: Database) -> None:
    """Each finished round's record, written with the move that ends it (SPEC §7.1).

    Rooms from before this table get theirs on first download (`records_stored` 0).
    """
    db["records"].create(
        {"room": str, "seq": int, "record": str},
        pk=("room", "seq"),
        foreign_keys=[("room", "rooms", "id")],
    )
    db["rooms"].add_column("records_stored", int, not_null_default=0)


@migrations()
def m003_fair_nonces_and_reviews(db: Database) -> None:
    """The home page's single-use fair-deal nonces (SPEC §10), and each round's stored review."""
    db["fair_nonces"].create({"nonce": str, "at": float}, pk="nonce")
    db["fair_nonces"].create_index(["at"])
    db["reviews"].create(
        {"room": str, "seq": int, "review": str, "at": float},
        pk=("room", "seq"),
        foreign_keys=[("room", "rooms", "id")],
    )


NONCE_SECONDS = 3600  # how long a home page's fair-deal nonce may be used


class Conflict(Exception):
    """The event number is already taken: somebody else wrote first."""


class Store:
    """One SQLite file in WAL mode with full sync; every append is committed on return."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            path = Path(path)
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Owner-only: SQLite gives the -wal and -shm files the database file's mode.
            path.touch(mode=0o600)
            for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                if file.exists() and file.stat().st_mode & 0o077:
                    file.chmod(0o600)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self.db = Database(conn)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            migrations.apply(self.db)
            self._version = self._data_version()

    def _data_version(self) -> int:
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def changed_elsewhere(self) -> bool:
        """True if another connection (another process) wrote since the last call."""
        with self._lock:
            version = self._data_version()
            changed, self._version = version != self._version, version
        return changed

    def create_room(
        self, room: str, kind: str, events: list[tuple[str, dict]], nonce: str | None = None
    ) -> None:
        """Create a room with its first events, all in one transaction; `nonce` (a home
        page's fair-deal nonce) is spent with it: a second use raises Conflict."""
        now = time.time()
        with self._lock, self.db.atomic():
            if nonce is not None:
                self._spend(nonce, now)
            self.db["rooms"].insert(
                {
                    "id": room,
                    "kind": kind,
                    "created_at": now,
                    "touched_at": now,
                    "records_stored": 1,
                }
            )
            self._insert(room, 1, events, now)

    def append(self, room: str, seq: int, events: list[tuple[str, dict]], records=()) -> None:
        """Append events numbered from `seq`, and the `(seq, record)` of rounds they finish;
        raise Conflict if `seq` is taken."""
        now = time.time()
        try:
            with self._lock, self.db.atomic():
                self._insert(room, seq, events, now)
                self.db.execute("UPDATE rooms SET touched_at = ? WHERE id = ?", [now, room])
                self._insert_records(room, records)
        except sqlite3.IntegrityError as error:
            raise Conflict(f"room {room} already has event {seq}") from error

    def _spend(self, nonce: str, now: float) -> None:
        """Mark a fair-deal nonce used (purging expired ones); raise Conflict if it was."""
        self.db.execute("DELETE FROM fair_nonces WHERE at < ?", [now - NONCE_SECONDS])
        try:
            self.db.execute("INSERT INTO fair_nonces (nonce, at) VALUES (?, ?)", [nonce, now])
        except sqlite3.IntegrityError as error:
            raise Conflict(f"nonce {nonce} was used") from error

    def record_rows(self, room: str) -> list[tuple[int, str]]:
        """The stored round records of a room as (seq, record text), in order."""
        sql = "SELECT seq, record FROM records WHERE room = ? ORDER BY seq"
        with self._lock:
            return [(seq, text) for seq, text in self.db.execute(sql, [room])]

    def review(self, room: str, seq: int) -> str | None:
        """The stored review (JSON text) of the round recorded at `seq`, if made."""
        sql = "SELECT review FROM reviews WHERE room = ? AND seq = ?"
        with self._lock:
            row = self.db.execute(sql, [room, seq]).fetchone()
        return row[0] if row else None

    def save_review(self, room: str, seq: int, review: str) -> None:
        """Store a round's review once (a second save of the same round changes nothing)."""
        sql = "INSERT OR IGNORE INTO reviews (room, seq, review, at) VALUES (?, ?, ?, ?)"
        try:
            with self._lock, self.db.atomic():
                self.db.execute(sql, [room, seq, review, time.time()])
        except sqlite3.IntegrityError:
            pass  # the room was deleted meanwhile

    def _insert_records(self, room: str, records, verb: str = "INSERT") -> None:
        self.db.conn.executemany(
            f"{verb} INTO records (room, seq, record) VALUES (?, ?, ?)",
            [(room, seq, text) for seq, text in records],
        )

    def records(self, room: str) -> list[str] | None:
        """The stored round records of a room in order; None if they were never written."""
        with self._lock:
            flag = self.db.execute(
                "SELECT records_stored FROM rooms WHERE id = ?", [room]
            ).fetchone()
            if not flag or not flag[0]:
                return None
            sql = "SELECT record FROM records WHERE room = ? ORDER BY seq"
            return [row[0] for row in self.db.execute(sql, [room])]

    def backfill_records(self, room: str, records) -> None:
        """Store the records of a room that had none stored yet, and mark it done."""
        try:
            with self._lock, self.db.atomic():
                self._insert_records(room, records, "INSERT OR IGNORE")
                self.db.execute("UPDATE rooms SET records_stored = 1 WHERE id = ?", [room])
        except sqlite3.IntegrityError:
            pass  # the room was deleted meanwhile: there is nothing to keep

    def _insert(self, room: str, seq: int, events, now: float) -> None:
        rows = [
            (room, seq + i, kind, json.dumps(data), now) for i, (kind, data) in enumerate(events)
        ]
        # Plain SQL: this is every move's path, and insert_all inspects the table first.
        self.db.conn.executemany(
            "INSERT INTO events (room, seq, type, data, at) VALUES (?, ?, ?, ?, ?)", rows
        )

    def kind(self, room: str) -> str | None:
        """The room's kind, or None if there is no such room."""
        with self._lock:
            rows = list(self.db.query("SELECT kind FROM rooms WHERE id = ?", [room]))
        return rows[0]["kind"] if rows else None

    def load(self, room: str) -> list[tuple[int, str, dict]]:
        """Every event of the room in order, as (seq, type, data)."""
        sql = "SELECT seq, type, data FROM events WHERE room = ? ORDER BY seq"
        with self._lock:
            rows = list(self.db.query(sql, [room]))
        return [(r["seq"], r["type"], json.loads(r["data"])) for r in rows]

    def purge(self, idle_seconds: float, now: float | None = None) -> list[str]:
        """Delete rooms idle for longer than `idle_seconds`; return their ids."""
        cutoff = (time.time() if now is None else now) - idle_seconds
        with self._lock, self.db.atomic():
            idle = self.db.query("SELECT id FROM rooms WHERE touched_at < ?", [cutoff])
            ids = [row["id"] for row in idle]
            for room in ids:
                self.db.execute("DELETE FROM records WHERE room = ?", [room])
                self.db.execute("DELETE FROM reviews WHERE room = ?", [room])
                self.db.execute("DELETE FROM events WHERE room = ?", [room])
                self.db.execute("DELETE FROM rooms WHERE id = ?", [room])
        return ids

    def touch(self, room: str, when: float) -> None:
        """Set when a room was last active (for tests and imports)."""
        with self._lock, self.db.atomic():
            self.db.execute("UPDATE rooms SET touched_at = ? WHERE id = ?", [when, room])

    def close(self) -> None:
        """Close the database file."""
        with self._lock:
            self.db.conn.close()
