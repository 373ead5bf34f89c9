"""SQLite storage: rooms and an append-only event log per room, `(room, seq)` keyed."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from pathlib import Path

from sqlite_utils import Database, Migrations

from .writer import Writer

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
    """Each finished round's record, written with the move that ends it (docs/contracts.md, the
    round record).

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
    """The home page's single-use fair-deal nonces (docs/fair-deals.md), and each round's stored
    review."""
    db["fair_nonces"].create({"nonce": str, "at": float}, pk="nonce")
    db["fair_nonces"].create_index(["at"])
    db["reviews"].create(
        {"room": str, "seq": int, "review": str, "at": float},
        pk=("room", "seq"),
        foreign_keys=[("room", "rooms", "id")],
    )


GRANT_KEPT_SECONDS = 3600  # a spent grant is kept well past the last moment its token verifies


@migrations()
def m004_seat_grants(db: Database) -> None:
    """The public rooms' single-use seat grants that were used (web/live/grants.py): a grant's
    id is spent in the same transaction as the seat it gives."""
    db["seat_grants"].create({"grant": str, "room": str, "at": float}, pk="grant")
    db["seat_grants"].create_index(["at"])


@migrations()
def m005_seat_players_and_outbox(db: Database) -> None:
    """Which signed-in player took which seat (written once, kept with the room), and the
    outbox of finished matches' results (ARCHITECTURE.md "Growing the house"): each written in
    the transaction of the move that ended its match, sent to the lobby until it answers,
    then marked sent. The outbox has no link to its room: a purged room's unsent results
    stay until they are sent."""
    db["seat_players"].create(
        {"room": str, "seat": int, "player": str, "at": float},
        pk=("room", "seat"),
        not_null={"player", "at"},
        foreign_keys=[("room", "rooms", "id")],
    )
    db["outbox"].create(
        {
            "key": str,
            "room": str,
            "result": str,
            "created_at": float,
            "attempts": int,
            "next_at": float,
            "sent_at": float,
        },
        pk="key",
        not_null={"room", "result", "created_at", "attempts", "next_at"},
    )
    db["outbox"].create_index(["sent_at", "next_at"])


NONCE_SECONDS = 3600  # how long a home page's fair-deal token verifies (its max_age)
# How long a spent nonce is kept: well past the last moment its token could still verify.
# itsdangerous compares whole seconds (a token signed at 10.9 s verifies until 3611 s), and a
# nonce purged while its token verifies could be spent again, its server seed with it.
NONCE_KEPT_SECONDS = 2 * NONCE_SECONDS


class Conflict(Exception):
    """The event number is already taken: somebody else wrote first."""


class Spent(Exception):
    """A single-use seat grant was used before."""


class Store:
    """One SQLite file in WAL mode with full sync; every write is committed before it returns.

    Reads use this connection, on the caller's thread. Writes go to the store's writer
    (`domino.store.writer`), on a connection of their own, in batches whose commit and sync run on
    one OS thread; a write returns (and its caller may acknowledge it) once its batch is
    durable.
    `sync_delay` (seconds) slows each sync down on purpose: a slow disk, for tests and benches.
    """

    def __init__(self, path: str | Path, sync_delay: float = 0.0) -> None:
        path = Path(path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Owner-only: SQLite gives the -wal and -shm files the database file's mode.
        path.touch(mode=0o600)
        for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            if file.exists() and file.stat().st_mode & 0o077:
                file.chmod(0o600)
        self.path = path
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self.db = Database(conn)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            migrations.apply(self.db)  # before the writer exists: nothing else writes yet
            self._version = self._data_version()
        self.writer = Writer(self._writer_connection, sync_delay)
        self._seen = (0, 0, 0)  # the writer's (begun, ended, foreign) at the last look

    def _writer_connection(self) -> sqlite3.Connection:
        """The writer's own connection (used by one batch at a time: its leader's statements,
        then its commit on the writer's thread)."""
        conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        # No busy wait inside SQLite, which would hold the event loop: the writer waits for
        # another process's write (e.g. a purge) in steps of its own.
        conn.execute("PRAGMA busy_timeout=0")
        return conn

    def _data_version(self) -> int:
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def changed_elsewhere(self) -> bool:
        """True if another process wrote since the last call.

        This connection sees the writer's commits as changes too. A change is another
        process's if the writer saw one (at its last batch), or if no batch of the writer's
        began or was under way since the last look (each write looks again once it is done);
        a change that came together with a batch of the writer's is seen at its next batch.
        """
        with self._lock:
            version, now, before = self._data_version(), self._counts(), self._seen
            quiet = now[:2] == before[:2] and before[0] == before[1]
            changed = now[2] != before[2] or (version != self._version and quiet)
            self._version, self._seen = version, now
        return changed

    def _counts(self) -> tuple[int, int, int]:
        writer = self.writer
        return writer.begun, writer.ended, writer.foreign

    def _write(self, job):
        """Run a write in the writer's next batch; then take its change as this process's."""
        result = self.writer.write(job)
        with self._lock:
            now = self._counts()
            if now[0] == now[1] and now[2] == self._seen[2]:  # no batch under way
                self._version, self._seen = self._data_version(), now
        return result

    def create_room(
        self,
        room: str,
        kind: str,
        events: list[tuple[str, dict]],
        nonce: str | None = None,
        players=None,
    ) -> None:
        """Create a room with its first events, all in one transaction; `nonce` (a home
        page's fair-deal nonce) is spent with it: a second use raises Conflict. `players`
        (seat: player id) are the seats' players, noted with it (a public room's)."""
        now = time.time()

        def create(conn: sqlite3.Connection) -> None:
            if nonce is not None:
                _spend(conn, nonce, now)
            conn.execute(
                "INSERT INTO rooms (id, kind, created_at, touched_at, records_stored)"
                " VALUES (?, ?, ?, ?, 1)",
                [room, kind, now, now],
            )
            _insert(conn, room, 1, events, now)
            conn.executemany(
                "INSERT INTO seat_players (room, seat, player, at) VALUES (?, ?, ?, ?)",
                [(room, seat, player, now) for seat, player in (players or {}).items()],
            )

        self._write(create)

    def append(
        self,
        room: str,
        seq: int,
        events: list[tuple[str, dict]],
        records=(),
        grant: str | None = None,
        results=(),
    ) -> None:
        """Append events numbered from `seq`, the `(seq, record)` of rounds they finish and
        the results of the matches they finish (`domino.players.results.finished`: into the
        outbox, with the seats' players, if any seat has one), all in one transaction; raise
        Conflict if `seq` is taken. `grant` (a seat grant's id) is spent with them, in the
        same transaction: Spent if it was before, and then nothing is written."""
        now = time.time()

        def append(conn: sqlite3.Connection) -> None:
            if grant is not None:
                _spend_grant(conn, grant, room, now)
            _insert(conn, room, seq, events, now)
            conn.execute("UPDATE rooms SET touched_at = ? WHERE id = ?", [now, room])
            _insert_records(conn, room, records)
            _insert_results(conn, room, results, now)

        try:
            self._write(append)
        except sqlite3.IntegrityError as error:
            raise Conflict(f"room {room} already has event {seq}") from error

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
        with contextlib.suppress(sqlite3.IntegrityError):  # the room was deleted meanwhile
            self._write(lambda conn: conn.execute(sql, [room, seq, review, time.time()]))

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

        def backfill(conn: sqlite3.Connection) -> None:
            _insert_records(conn, room, records, "INSERT OR IGNORE")
            conn.execute("UPDATE rooms SET records_stored = 1 WHERE id = ?", [room])

        with contextlib.suppress(sqlite3.IntegrityError):  # the room was deleted meanwhile
            self._write(backfill)

    def seat_player(self, room: str, seat: int, player: str) -> bool:
        """Note that the signed-in `player` took `seat` of `room` (once: a seat keeps its first
        player); False if the seat had one already or the room is gone."""
        sql = "INSERT OR IGNORE INTO seat_players (room, seat, player, at) VALUES (?, ?, ?, ?)"
        try:
            return self._write(
                lambda conn: conn.execute(sql, [room, seat, player, time.time()]).rowcount > 0
            )
        except sqlite3.IntegrityError:  # the room was deleted meanwhile
            return False

    def seat_players(self, room: str) -> dict[int, str]:
        """The seats of `room` a signed-in player took, and whose."""
        sql = "SELECT seat, player FROM seat_players WHERE room = ?"
        with self._lock:
            return dict(self.db.execute(sql, [room]).fetchall())

    def unsent(self, now: float | None = None, limit: int = 50) -> list[tuple[str, dict, int]]:
        """The outbox's results due to be sent (`next_at` passed), oldest first: (key,
        result, attempts so far)."""
        now = time.time() if now is None else now
        sql = (
            "SELECT key, result, attempts FROM outbox WHERE sent_at IS NULL AND next_at <= ?"
            " ORDER BY created_at, key LIMIT ?"
        )
        with self._lock:
            rows = self.db.execute(sql, [now, limit]).fetchall()
        return [(key, json.loads(text), attempts) for key, text, attempts in rows]

    def outbox(self) -> list[dict]:
        """Every outbox row (for tests and operations), oldest first."""
        with self._lock:
            return list(self.db.query("SELECT * FROM outbox ORDER BY created_at, key"))

    def mark_sent(self, key: str, now: float | None = None) -> None:
        """The lobby acknowledged the result `key`."""
        now = time.time() if now is None else now
        sql = "UPDATE outbox SET sent_at = ? WHERE key = ? AND sent_at IS NULL"
        self._write(lambda conn: conn.execute(sql, [now, key]))

    def retry_later(self, key: str, next_at: float) -> None:
        """A delivery of `key` failed: count it, and try again at `next_at`."""
        sql = (
            "UPDATE outbox SET attempts = attempts + 1, next_at = ?"
            " WHERE key = ? AND sent_at IS NULL"
        )
        self._write(lambda conn: conn.execute(sql, [next_at, key]))

    def kind(self, room: str) -> str | None:
        """The room's kind, or None if there is no such room."""
        with self._lock:
            rows = list(self.db.query("SELECT kind FROM rooms WHERE id = ?", [room]))
        return rows[0]["kind"] if rows else None

    def rooms_of_kind(self, kind: str, touched_since: float = 0.0) -> list[str]:
        """The ids of the rooms of `kind` changed at or after `touched_since` (e.g. the
        public rooms whose clocks a restarted process arms again)."""
        sql = "SELECT id FROM rooms WHERE kind = ? AND touched_at >= ? ORDER BY touched_at"
        with self._lock:
            return [row["id"] for row in self.db.query(sql, [kind, touched_since])]

    def load(self, room: str) -> list[tuple[int, str, dict]]:
        """Every event of the room in order, as (seq, type, data)."""
        sql = "SELECT seq, type, data FROM events WHERE room = ? ORDER BY seq"
        with self._lock:
            rows = list(self.db.query(sql, [room]))
        return [(r["seq"], r["type"], json.loads(r["data"])) for r in rows]

    def purge(self, idle_seconds: float, now: float | None = None) -> list[str]:
        """Delete rooms idle for longer than `idle_seconds`; return their ids."""
        cutoff = (time.time() if now is None else now) - idle_seconds
        return self._write(lambda conn: _purge(conn, cutoff))

    def purge_nonces(self, now: float | None = None) -> None:
        """Forget the spent fair-deal nonces whose tokens can no longer verify (each spend
        does this too)."""
        now = time.time() if now is None else now
        self._write(lambda conn: _purge_nonces(conn, now))

    def touch(self, room: str, when: float) -> None:
        """Set when a room was last active (for tests and imports)."""
        sql = "UPDATE rooms SET touched_at = ? WHERE id = ?"
        self._write(lambda conn: conn.execute(sql, [when, room]))

    def close(self) -> None:
        """Finish the writes under way, and close the database file."""
        self.writer.close()
        with self._lock:
            self.db.conn.close()


def _spend(conn: sqlite3.Connection, nonce: str, now: float) -> None:
    """Mark a fair-deal nonce used (purging those no token can use); raise Conflict if it was."""
    _purge_nonces(conn, now)
    try:
        conn.execute("INSERT INTO fair_nonces (nonce, at) VALUES (?, ?)", [nonce, now])
    except sqlite3.IntegrityError as error:
        raise Conflict(f"nonce {nonce} was used") from error


def _spend_grant(conn: sqlite3.Connection, grant: str, room: str, now: float) -> None:
    """Mark a seat grant used (forgetting those no token can use any more); Spent if it was."""
    conn.execute("DELETE FROM seat_grants WHERE at < ?", [now - GRANT_KEPT_SECONDS])
    try:
        conn.execute(
            "INSERT INTO seat_grants (grant, room, at) VALUES (?, ?, ?)", [grant, room, now]
        )
    except sqlite3.IntegrityError as error:
        raise Spent(f"seat grant {grant} was used") from error


def _purge_nonces(conn: sqlite3.Connection, now: float) -> None:
    """Delete the nonces spent longer ago than NONCE_KEPT_SECONDS: no token of theirs verifies."""
    conn.execute("DELETE FROM fair_nonces WHERE at < ?", [now - NONCE_KEPT_SECONDS])


def _insert(conn: sqlite3.Connection, room: str, seq: int, events, now: float) -> None:
    rows = [(room, seq + i, kind, json.dumps(data), now) for i, (kind, data) in enumerate(events)]
    conn.executemany("INSERT INTO events (room, seq, type, data, at) VALUES (?, ?, ?, ?, ?)", rows)


def _insert_records(conn: sqlite3.Connection, room: str, records, verb: str = "INSERT") -> None:
    conn.executemany(
        f"{verb} INTO records (room, seq, record) VALUES (?, ?, ?)",
        [(room, seq, text) for seq, text in records],
    )


def _insert_results(conn: sqlite3.Connection, room: str, results, now: float) -> None:
    """Write each finished match's result into the outbox, with the players the seats' table
    names (read in this transaction), if at least one seat has one; a result already there
    (the same key) is kept as it was."""
    if not results:
        return
    players = dict(
        conn.execute("SELECT seat, player FROM seat_players WHERE room = ?", [room]).fetchall()
    )
    if not players:
        return
    for result in results:
        seats = [{**seat, "player": players.get(seat["seat"])} for seat in result["seats"]]
        full = {**result, "seats": seats, "finished_at": now}
        conn.execute(
            "INSERT OR IGNORE INTO outbox (key, room, result, created_at, attempts, next_at)"
            " VALUES (?, ?, ?, ?, 0, ?)",
            [full["key"], room, json.dumps(full, sort_keys=True), now, now],
        )


def _purge(conn: sqlite3.Connection, cutoff: float) -> list[str]:
    """Delete the rooms last touched before `cutoff`, with all they hold; their ids."""
    ids = [row[0] for row in conn.execute("SELECT id FROM rooms WHERE touched_at < ?", [cutoff])]
    for room in ids:
        for table in ("records", "reviews", "seat_players", "events", "seat_grants"):
            conn.execute(f"DELETE FROM {table} WHERE room = ?", [room])
        conn.execute("DELETE FROM outbox WHERE room = ? AND sent_at IS NOT NULL", [room])
        conn.execute("DELETE FROM rooms WHERE id = ?", [room])
    return ids
