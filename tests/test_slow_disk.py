"""A slow disk stalls no one: while one room's sync is in flight, other rooms' pages, sockets and
pushes are still served, since the store's writer commits on a thread of its own
(domino/writer.py), and the move itself is answered only once its sync is done.

The production server runs as `make serve` does, with DOMINO_SYNC_DELAY_MS making every sync
take SYNC seconds longer. The times asserted are bounds on correctness (served while the sync
was still in flight), never claims about speed.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from faults import Server, free_port, new_room, next_action, position  # noqa: E402

SYNC = 1.5  # seconds every sync of the writer takes


@pytest.fixture(scope="module")
def slow(tmp_path_factory):
    db = tmp_path_factory.mktemp("slowdisk") / "domino.sqlite3"
    env = {"DOMINO_SYNC_DELAY_MS": str(SYNC * 1000), "DOMINO_PING_SECONDS": "60"}
    server = Server(db, free_port(), env=env)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def move_of(server: Server, seats) -> tuple:
    """The seat to move in a room, and a legal action of its: (seat, action, fields)."""
    return next_action(position(server.db, seats[0].room), seats)[:3]


def test_other_rooms_are_served_while_a_sync_is_slow(slow):
    first, other = new_room(slow), new_room(slow)
    for seat in [*first, *other]:
        assert seat.load() == 200
    for seat in [*first, other[0]]:
        seat.connect()
    seat, action, fields = move_of(slow, first)
    answer: dict = {}

    def move() -> None:
        start = time.monotonic()
        answer["status"] = seat.post(action, fields)
        answer["seconds"] = time.monotonic() - start

    mover = threading.Thread(target=move)
    mover.start()
    time.sleep(0.2)  # the move's batch is committed and syncing now
    assert mover.is_alive()
    start = time.monotonic()
    status, page, _url = other[0].request(f"/r/{other[0].room}")  # a page of another room
    assert status == 200 and 'id="table"' in page
    assert other[0].request("/healthz")[0] == 200
    other[1].connect()  # its socket opens and gets its table ...
    pushed = other[0].ws.recv()  # ... and the seat already there is pushed the news
    assert 'id="table"' in pushed and 'data-opponent-connected="true"' in pushed
    served = time.monotonic() - start
    assert mover.is_alive(), "the slow sync ended before the other room was served"
    assert served < SYNC
    mover.join()
    assert answer["status"] == 200
    assert answer["seconds"] >= SYNC  # answered only once its batch was durable
    for seated in [*first, *other]:
        seated.close()
