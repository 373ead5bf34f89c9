"""A slow disk stalls no one: while one room's sync is in flight, other rooms' pages, sockets and
pushes are still served, since the store's writer commits on a thread of its own
(domino/store/writer.py), and the move itself is answered only once its sync is done.

The production server runs as `make serve` does. The rooms are made on a fast disk; then it is
restarted on the same database with DOMINO_SYNC_DELAY_MS making every sync take SYNC seconds
longer, so that only the move waits on a slow sync. What is asserted is an order of events
(served while the move's sync was still in flight), never a claim about speed.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.support.faults import Server, free_port, new_room, next_action, position

ROOT = Path(__file__).resolve().parents[2]


SYNC = 5.0  # seconds every sync of the writer takes: room to spare on a slow machine


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    """The server on a slow disk, and two friend rooms it made before the disk slowed down."""
    db = tmp_path_factory.mktemp("slowdisk") / "domino.sqlite3"
    server = Server(db, free_port(), env={"DOMINO_PING_SECONDS": "60"})
    server.start()
    try:
        rooms = new_room(server), new_room(server)
        server.kill()
        server.env["DOMINO_SYNC_DELAY_MS"] = str(SYNC * 1000)
        server.start()
        yield server, rooms
    finally:
        server.kill()


def move_of(server: Server, seats) -> tuple:
    """The seat to move in a room, and a legal action of its: (seat, action, fields)."""
    return next_action(position(server.db, seats[0].room), seats)[:3]


def wait_stored_after(server: Server, room: str, seq: int, seconds: float = 10.0) -> None:
    """Wait until the room's stored log goes past `seq`: the batch holding it is committed."""
    deadline = time.monotonic() + seconds
    while position(server.db, room).seq <= seq:
        assert time.monotonic() < deadline, f"nothing stored after {seq} within {seconds} s"
        time.sleep(0.02)


def test_other_rooms_are_served_while_a_sync_is_slow(slow):
    server, (first, other) = slow
    for seat in [*first, *other]:
        assert seat.load() == 200
    for seat in [*first, other[0]]:
        seat.connect()
    seat, action, fields = move_of(server, first)
    seat.timeout = 3 * SYNC  # the move's answer waits out its sync
    answer: dict = {}

    def move() -> None:
        start = time.monotonic()
        answer["status"] = seat.post(action, fields)
        answer["seconds"] = time.monotonic() - start

    mover = threading.Thread(target=move)
    mover.start()
    wait_stored_after(server, seat.room, fields["seq"])  # committed: its sync has begun
    status, page, _url = other[0].request(f"/r/{other[0].room}")  # a page of another room
    assert status == 200 and 'id="table"' in page
    assert other[0].request("/healthz")[0] == 200
    other[1].connect()  # its socket opens and gets its table ...
    pushed = other[0].ws.recv()  # ... and the seat already there is pushed the news
    assert 'id="table"' in pushed and 'data-opponent-connected="true"' in pushed
    assert mover.is_alive(), "the slow sync ended before the other room was served"
    mover.join()
    assert answer["status"] == 200
    assert answer["seconds"] >= SYNC  # answered only once its batch was durable
    for seated in [*first, *other]:
        seated.close()
