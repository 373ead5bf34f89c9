"""A seat whose browser vanishes is shown "away" to the other seat within a few seconds.

A vanished browser (its network lost, the machine asleep) sends no close frame and answers
nothing, so only the server's pings can tell: at the default interval (app.py
DEFAULT_PING_SECONDS) a ping that goes unanswered lets the socket go at the next one. The live
server (tests/support/live.py) runs with that default; the seats' sockets are test_sockets.py's
websocket-client connections, which answer pings while they read. The guest goes silent by
no longer reading, as a vanished peer does; nothing is closed on its side.
"""

from __future__ import annotations

import contextlib
import select
import threading
import time

import pytest

from app import DEFAULT_PING_SECONDS
from domino.web.live.pinger import PING_FRAME, Pinger
from tests.live.test_socket_release import ended_by_server
from tests.live.test_sockets import SEED, opened, table  # noqa: F401 (fixtures, on this module's server)
from tests.support.live import live_server

PING = DEFAULT_PING_SECONDS
FEW_SECONDS = 5.0  # the server lets the seat go within this of the drop (a ping falls due, then
# another: 2 pings, and time for the pinger's drift); its table is pushed at once
PUSH_WAIT = 15.0  # seconds the host may wait for a push on a slow machine


@pytest.fixture
def server(tmp_path):
    with live_server(tmp_path / "domino.sqlite3", seed=SEED, PING_SECONDS=PING) as live:
        yield live


def read_all(sockets, seconds: float) -> None:
    """Read every socket (answering the server's pings) for `seconds`; keep what comes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for sock in sockets:
            try:
                frame = sock.next_frame(min(deadline, time.monotonic() + 0.05))
            except TimeoutError:
                continue
            assert frame is not None, f"the server closed a socket that answers ({sock.close_code})"


def last_read(sock) -> float:
    """Read `sock` until nothing of it waits unread; when that was (time.monotonic): every ping
    the server sent before then was answered (on loopback a sent frame is at once readable)."""
    while True:
        now = time.monotonic()
        if not select.select([sock.ws.sock], [], [], 0)[0]:
            return now
        with contextlib.suppress(TimeoutError):
            assert sock.next_frame(time.monotonic() + 0.05) is not None, "the socket was closed"


def test_the_default_ping_sees_a_vanished_peer_within_a_few_seconds():
    assert 2 * PING <= FEW_SECONDS - 1, "two pings' time, and a second to spare for the drift"


def test_a_seat_that_vanishes_is_shown_away_within_a_few_seconds(table):  # noqa: F811
    host, guest = table.players
    hub = table.server.services.hub
    seen = len(host.ws.frames)
    read_all([host.ws, guest.ws], 1.5 * PING)  # both answer: at least one ping has come
    assert all(frame.connected != "false" for frame in host.ws.since(seen)), "a live seat left"
    assert hub.live(table.room_id, 1) is not None

    silent = last_read(guest.ws)  # the guest's browser is gone: it reads and answers nothing
    host.ws.wait(lambda f: f.connected == "false", "saying the guest is away", PUSH_WAIT)
    took = time.monotonic() - hub.away_for(table.room_id, 1) - silent  # when it let go
    assert took >= 0.9 * PING, f"away after {took:.2f} s: not the missed ping that told"
    assert took <= FEW_SECONDS, f"away after {took:.2f} s"
    assert hub.live(table.room_id, 1) is None
    assert ended_by_server(guest.ws.ws, within=10), "the guest's socket was not let go"

    # When its network is back, the same page reconnects and the host sees it at once.
    guest.connect()
    host.ws.wait(lambda f: f.connected == "true", "saying the guest is back", PUSH_WAIT)


class Peer:
    """A socket's far end for the pinger alone: it answers each ping at once, or never."""

    def __init__(self, answers: bool) -> None:
        self.answers = answers
        self.connected = True
        self.pong_received = True
        self.pings = 0
        self.first_ping = 0.0  # when (time.monotonic)
        self.released = threading.Event()
        self.ws = self.sock = self  # a Connection's ws, and that ws's socket

    def send(self, data: bytes) -> int:
        assert data == PING_FRAME
        self.pings += 1
        self.first_ping = self.first_ping or time.monotonic()
        self.pong_received = self.answers
        return len(data)

    def release(self) -> None:
        self.connected = False
        self.released.set()


def wait_until(condition, what: str, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not {what} within {seconds} s"
        time.sleep(0.01)


def test_one_loop_pings_every_socket_and_lets_go_of_the_one_that_does_not_answer():
    interval = 0.2
    pinger = Pinger(interval)
    alive, gone = Peer(answers=True), Peer(answers=False)
    watched = time.monotonic()
    pinger.watch(alive)
    pinger.watch(gone)
    assert gone.released.wait(5), "a socket that did not answer was kept"
    assert alive.first_ping - watched >= 0.9 * interval, "pinged before an interval was up"
    assert gone.pings == 1  # let go at its second round, in place of a second ping
    wait_until(lambda: alive.pings >= 4, "pinged again and again")
    assert not alive.released.is_set()
    pinger.forget(alive)
    pinger.forget(gone)
    wait_until(lambda: not pinger.running, "stopped once no socket is left")
