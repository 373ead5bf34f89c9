"""Group commit: every write of the store, from every room, committed together off the event loop.

A caller hands `Writer.write` a job (a function of the writer's connection) and waits until the
job is durable. Jobs that arrive while a batch is being written wait for the next one; the next
batch takes every job waiting, runs each in a savepoint of one transaction (a job that raises is
undone alone, and raises in its caller), commits, and syncs once. Only then does any caller of
the batch get its answer, so nothing is acknowledged before it is on disk.

Whoever finds no batch in progress leads the next one. Its statements run in the leader's
thread, in SQLite's memory; the commit, which writes the log and syncs it, runs on one real OS
thread: under gevent a thread pool of one, while the greenlets that wait yield to the event
loop, which never waits on the disk. (One SQLite call off the loop per batch: each call there
takes the GIL back from the loop, which a batch of many calls paid for dearly.) With plain
threads, the leader's own thread commits.

`sync_delay` (seconds; the `DOMINO_SYNC_DELAY_MS` setting) adds a fixed wait after each commit,
on the writer's thread: a slow disk, for benches and tests.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..server.green import real_sleep, under_gevent

Job = Callable[[sqlite3.Connection], Any]


@dataclass(eq=False, slots=True)
class Pending:
    """A job waiting for its batch: then its result, or the error it raised."""

    job: Job
    done: bool = False
    result: Any = None
    error: BaseException | None = None


class Writer:
    """Runs jobs on one connection in grouped transactions, one commit and sync per batch."""

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection],
        sync_delay: float = 0.0,
        sleep: Callable[[float], Any] | None = None,
    ):
        self._connect = connect  # opens the writer's own connection, on the writer's thread
        self._conn: sqlite3.Connection | None = None
        self.sync_delay = sync_delay
        self._sleep = sleep or real_sleep()  # the slow disk's wait (a test passes its own)
        self._cond = threading.Condition()  # a greenlet condition under gevent
        self._waiting: list[Pending] = []
        self._busy = False
        self._closed = False
        self._pool = None  # gevent's thread pool of one, made on first use
        # Counted on the writer's thread, read by the store to tell its own commits from
        # another process's: batches begun and ended, and other processes' commits seen.
        self.begun = self.ended = self.foreign = 0
        self._version: int | None = None  # the connection's data_version at the last batch

    @property
    def waiting(self) -> int:
        """How many jobs wait for the next batch (while one is being written)."""
        return len(self._waiting)

    def write(self, job: Job) -> Any:
        """Run `job(conn)` in the next batch; return its result once the batch is durable."""
        entry = Pending(job)
        with self._cond:
            if self._closed:
                raise RuntimeError("the store is closed")
            self._waiting.append(entry)
            while not entry.done:
                if self._busy:
                    self._cond.wait()
                    continue
                self._busy = True
                batch, self._waiting = self._waiting, []
                self._cond.release()
                try:
                    self._commit(batch)
                finally:
                    for other in batch:  # only if the leader was interrupted
                        if not other.done:
                            other.error = RuntimeError("the write was interrupted")
                            other.done = True
                    self._cond.acquire()
                    self._busy = False
                    self._cond.notify_all()
        if entry.error is not None:
            raise entry.error
        return entry.result

    def close(self) -> None:
        """Refuse new jobs, wait for the batch in progress, and close the connection."""
        with self._cond:
            self._closed = True
            while self._busy or self._waiting:
                self._cond.wait()
        if self._conn is not None:
            self._off_loop(self._conn.close)
            self._conn = None
        if self._pool is not None:
            self._pool.kill()
            self._pool = None

    def _off_loop(self, function, *args) -> None:
        """Run `function(*args)` on the writer's OS thread (under gevent, the greenlet waits)."""
        if not under_gevent():
            function(*args)
            return
        if self._pool is None:
            from gevent.threadpool import ThreadPool

            self._pool = ThreadPool(1)
        running = self._pool.spawn(function, *args)
        try:
            running.get()
        except BaseException:
            # This greenlet was interrupted (killed at shutdown): the batch still runs on the
            # writer's thread, and no other batch may start on the connection before it ends.
            with contextlib.suppress(BaseException):
                running.wait()
            raise

    def _commit(self, batch: list[Pending]) -> None:
        """One transaction: each job in its savepoint, then commit (and sync) once.

        The statements run here, in memory (SQLite writes the log at the commit); the commit,
        which writes and syncs the log, runs on the writer's thread.
        """
        conn = self._conn = self._conn or self._connect()
        self.begun += 1
        try:
            self._note_foreign(conn)
            _begin(conn)
            for entry in batch:
                _run(conn, entry)
            self._off_loop(self._sync, conn)
        except BaseException as error:  # nothing of the batch is kept
            if conn.in_transaction:  # interrupted before its commit
                conn.execute("ROLLBACK")
            for entry in batch:
                entry.result, entry.error = None, error
        finally:
            self.ended += 1
        for entry in batch:
            entry.done = True

    def _sync(self, conn: sqlite3.Connection) -> None:
        """Commit the open transaction (or roll it back if that fails), then wait as a slow
        disk would (on the writer's thread)."""
        try:
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if self.sync_delay > 0:
            self._sleep(self.sync_delay)

    def _note_foreign(self, conn: sqlite3.Connection) -> None:
        """Count a commit by another connection since the last batch (this one's own commits
        leave its data_version alone)."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if self._version is not None and version != self._version:
            self.foreign += 1
        self._version = version


def _begin(conn: sqlite3.Connection, patience: float = 10.0) -> None:
    """Open a write transaction; while another process holds the write lock, wait for it
    without holding the event loop (the connection's own busy wait would)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
        time.sleep(0.005)  # gevent's sleep under gevent: others run meanwhile


def _run(conn: sqlite3.Connection, entry: Pending) -> None:
    """Run one job in a savepoint: kept if it returns, undone alone if it raises."""
    conn.execute("SAVEPOINT job")
    try:
        entry.result = entry.job(conn)
    except Exception as error:
        conn.execute("ROLLBACK TO job")
        entry.error = error
    conn.execute("RELEASE job")
