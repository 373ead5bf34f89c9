"""The lobby's SQLite file: WAL, full sync, migrations, and the rooms' group-commit writer."""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
import threading
from pathlib import Path

from sqlite_utils import Database

from ..store.writer import Writer
from .schema import migrations


class LobbyDatabase:
    """One SQLite file in WAL mode; every write is committed (and synced) before it returns.

    Reads use this connection, under a lock; writes go to a `domino.store.writer.Writer` on a
    connection of its own, in group commits, as the rooms' store does. `key` (bytes), if given,
    makes the stored hashes of secrets HMAC-SHA-256 under it; without it they are SHA-256.
    """

    def __init__(self, path: str | Path, key: bytes | None = None, sync_delay: float = 0.0):
        path = Path(path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        path.touch(mode=0o600)  # owner-only: SQLite gives the -wal and -shm files its mode
        for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            if file.exists() and file.stat().st_mode & 0o077:
                file.chmod(0o600)
        self.path = path
        self._key = key
        self._lock = threading.Lock()
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.db = Database(conn)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            migrations.apply(self.db)  # before the writer exists: nothing else writes yet
        self.writer = Writer(self._writer_connection, sync_delay)

    def _writer_connection(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA secure_delete=ON")  # a deleted account's rows are overwritten
        conn.execute("PRAGMA busy_timeout=0")  # the writer waits for other processes itself
        return conn

    def hash(self, secret: str) -> str:
        """The stored form of a secret (a session's, a recovery code's): hex SHA-256 or HMAC."""
        data = secret.encode()
        if self._key is None:
            return hashlib.sha256(data).hexdigest()
        return hmac.new(self._key, data, hashlib.sha256).hexdigest()

    def _write(self, job):
        """Run `job(conn)` in the writer's next batch; its result once the batch is durable."""
        return self.writer.write(job)

    def _rows(self, sql: str, params=()) -> list[dict]:
        with self._lock:
            return list(self.db.query(sql, params))

    def _row(self, sql: str, params=()) -> dict | None:
        rows = self._rows(sql, params)
        return rows[0] if rows else None

    def close(self) -> None:
        """Finish the writes under way, and close the database file."""
        self.writer.close()
        with self._lock:
            self.db.conn.close()
