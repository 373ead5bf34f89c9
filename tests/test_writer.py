"""The store's writer: grouped commits, each job undone alone, nothing answered before it is
durable (domino/writer.py), and the store telling its own writes from another process's."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from domino.store import Conflict, Store
from domino.writer import Writer


def connector(path):
    return lambda: sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)


@pytest.fixture
def table(tmp_path):
    """A database with one table of unique numbers, and a writer over it."""
    path = tmp_path / "w.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE numbers (n INTEGER PRIMARY KEY)")
    return path


def numbers(path) -> list[int]:
    with sqlite3.connect(path) as conn:
        return [n for (n,) in conn.execute("SELECT n FROM numbers ORDER BY n")]


def insert(n: int):
    return lambda conn: conn.execute("INSERT INTO numbers VALUES (?)", [n])


def test_jobs_that_wait_together_are_committed_in_one_batch(table):
    writer = Writer(connector(table), sync_delay=0.5)
    writer.write(insert(0))  # the first batch; the others queue up while it syncs
    threads = [threading.Thread(target=writer.write, args=(insert(n),)) for n in range(1, 9)]
    first = threading.Thread(target=writer.write, args=(insert(100),))
    first.start()
    time.sleep(0.05)  # the batch of 100 is syncing: the eight below wait for the next one
    for thread in threads:
        thread.start()
    first.join()
    for thread in threads:
        thread.join()
    assert numbers(table) == [0, *range(1, 9), 100]
    assert writer.begun == writer.ended == 3  # 0; 100; the eight others together
    writer.close()


def test_a_job_that_fails_is_undone_alone_and_raises_in_its_caller(table):
    writer = Writer(connector(table), sync_delay=0.5)
    errors = []

    def write(n: int) -> None:
        try:
            writer.write(insert(n))
        except sqlite3.IntegrityError as error:
            errors.append((n, error))

    def twice(conn):
        conn.execute("INSERT INTO numbers VALUES (7)")
        conn.execute("INSERT INTO numbers VALUES (5)")  # taken: 7 goes too

    blocker = threading.Thread(target=write, args=(1,))
    blocker.start()
    time.sleep(0.05)
    jobs = [threading.Thread(target=write, args=(n,)) for n in (5, 6)]
    for job in jobs:
        job.start()
    time.sleep(0.05)
    with pytest.raises(sqlite3.IntegrityError):
        writer.write(twice)
    blocker.join()
    for job in jobs:
        job.join()
    assert errors == [] and numbers(table) == [1, 5, 6]
    writer.close()


def test_a_write_is_answered_only_after_its_commit(table):
    writer = Writer(connector(table), sync_delay=0.5)
    answered = threading.Event()

    def write() -> None:
        writer.write(insert(42))
        answered.set()

    threading.Thread(target=write).start()
    deadline = time.monotonic() + 5
    while not numbers(table) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert numbers(table) == [42]  # committed (another connection reads it) ...
    assert not answered.is_set()  # ... and still syncing: not yet answered
    assert answered.wait(5)
    writer.close()


def test_a_closed_writer_refuses_new_jobs(table):
    writer = Writer(connector(table))
    writer.write(insert(1))
    writer.close()
    with pytest.raises(RuntimeError):
        writer.write(insert(2))
    assert numbers(table) == [1]


def test_the_store_keeps_its_contract_through_the_writer(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    store.create_room("r", "friend", [("rules", {}), ("seat", {"seat": 0})])
    store.append("r", 3, [("seat", {"seat": 1})])
    with pytest.raises(Conflict):
        store.append("r", 3, [("name", {"seat": 1, "name": "x"})])
    assert [seq for seq, _type, _data in store.load("r")] == [1, 2, 3]
    store.close()


def test_its_own_writes_are_not_taken_for_another_process(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    store.changed_elsewhere()
    store.create_room("r", "friend", [("rules", {})])
    for seq in range(2, 12):
        store.append("r", seq, [("seat", {"seat": 0})])
    assert not store.changed_elsewhere()
    other = Store(tmp_path / "s.sqlite3")
    other.touch("r", 1.0)
    other.close()
    assert store.changed_elsewhere()
    assert not store.changed_elsewhere()
    store.close()


def test_another_process_write_that_meets_a_batch_is_seen_at_the_next_batch(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    store.create_room("r", "friend", [("rules", {})])
    store.changed_elsewhere()
    store.writer.begun += 1  # as if a batch of the writer were under way from here on
    other = Store(tmp_path / "s.sqlite3")
    other.touch("r", 1.0)
    other.close()
    assert not store.changed_elsewhere()  # it could be the batch's own change
    store.writer.begun -= 1
    store.append("r", 2, [("seat", {"seat": 0})])  # the writer sees the other's commit
    assert store.changed_elsewhere()
    store.close()
