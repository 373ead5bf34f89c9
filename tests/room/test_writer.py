"""The store's writer: grouped commits, each job undone alone, nothing answered before it is
durable (domino/store/writer.py), and the store telling its own writes from another process's."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from domino.store import Conflict, Store
from domino.store.writer import Writer


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


class Gate(threading.Event):
    """The slow disk's wait, passed to a writer as its sleep: it lasts until the test sets it."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[float] = []  # the wait of each sync

    def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        self.wait(30)


def held(path) -> tuple[Writer, Gate]:
    """A writer whose batches, once committed, stay in their sync until the gate is set."""
    gate = Gate()
    return Writer(connector(path), sync_delay=1.0, sleep=gate), gate  # any delay: each sync waits


def wait_until(condition, what: str, seconds: float = 10.0) -> None:
    """Wait until `condition()` holds; fail if it does not within `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not {what} within {seconds} s"
        time.sleep(0.005)


def started(target, *args) -> threading.Thread:
    """`target(*args)` running on a thread of its own."""
    thread = threading.Thread(target=target, args=args)
    thread.start()
    return thread


def test_jobs_that_wait_together_are_committed_in_one_batch(table):
    writer, gate = held(table)
    first = started(writer.write, insert(0))
    wait_until(lambda: writer.begun == 1, "the first batch begun")  # it is held in its sync
    others = [started(writer.write, insert(n)) for n in range(1, 9)]
    wait_until(lambda: writer.waiting == 8, "all eight waiting")
    gate.set()
    for thread in [first, *others]:
        thread.join()
    assert numbers(table) == list(range(9))
    assert writer.begun == writer.ended == 2  # 0; the eight others together
    writer.close()


def test_a_job_that_fails_is_undone_alone_and_raises_in_its_caller(table):
    writer, gate = held(table)
    errors = {}

    def write(name, job) -> None:
        try:
            writer.write(job)
        except sqlite3.IntegrityError as error:
            errors[name] = error

    def twice(conn):
        conn.execute("INSERT INTO numbers VALUES (7)")
        conn.execute("INSERT INTO numbers VALUES (5)")  # taken: 7 goes too

    threads = [started(write, 1, insert(1))]
    wait_until(lambda: writer.begun == 1, "the first batch begun")  # it is held in its sync
    threads += [started(write, n, insert(n)) for n in (5, 6)]
    wait_until(lambda: writer.waiting == 2, "5 and 6 waiting")
    threads.append(started(write, "twice", twice))
    wait_until(lambda: writer.waiting == 3, "twice waiting after them")
    gate.set()
    for thread in threads:
        thread.join()
    assert list(errors) == ["twice"] and numbers(table) == [1, 5, 6]
    assert writer.begun == writer.ended == 2  # twice failed in the batch of 5 and 6
    writer.close()


def test_a_write_is_answered_only_after_its_commit(table):
    writer, gate = held(table)
    answered = threading.Event()

    def write() -> None:
        writer.write(insert(42))
        answered.set()

    started(write)
    wait_until(lambda: numbers(table) == [42], "committed")  # another connection reads it ...
    assert not answered.is_set()  # ... and while its sync lasts, it is not answered
    gate.set()
    assert answered.wait(10)
    assert gate.asked == [1.0]  # the sync waited on the sleep it was given, its delay long
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
