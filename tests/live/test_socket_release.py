"""Sockets the server lets go of: replaced tabs, silent peers and oversized messages.

A live server with a short ping interval. A peer that stops reading also stops answering
pings (websocket-client answers them while it reads), which is what a vanished browser does.
The server's side of a socket is released when it closes the TCP connection: the client's
raw socket then reads the end of the stream.
"""

from __future__ import annotations

import time

import pytest
import websocket

from tests.support.live import live_server
from tests.support.sockets import SEED, ended_by_server

PING = 1.5  # seconds between the server's pings: a reading peer answers in far less
WAIT = 10.0  # seconds to wait for what must come, on a slow machine


@pytest.fixture
def server(tmp_path):
    with live_server(tmp_path / "domino.sqlite3", seed=SEED, PING_SECONDS=PING) as live:
        yield live


def first_ping(ws, within: float) -> bool:
    """Read the server's frames raw (answering nothing) until a ping comes; True if one did."""
    raw = ws.sock
    deadline = time.monotonic() + within
    buffer = b""

    def take(n: int) -> bytes | None:
        nonlocal buffer
        while len(buffer) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            raw.settimeout(left)
            try:
                more = raw.recv(65536)
            except TimeoutError:
                return None
            if not more:
                return None
            buffer += more
        taken, buffer = buffer[:n], buffer[n:]
        return taken

    while (head := take(2)) is not None:
        length = head[1] & 0x7F  # frames from the server are not masked
        if length >= 126:
            extended = take(2 if length == 126 else 8)
            if extended is None:
                return False
            length = int.from_bytes(extended, "big")
        if take(length) is None:
            return False
        if head[0] & 0x0F == 0x9:  # a ping
            return True
    return False


def answer_pings(ws, count: int, within: float) -> bool:
    """Read `ws` (websocket-client answers each ping as it reads it) until `count` pings came;
    True if they did."""
    deadline, pings = time.monotonic() + within, 0
    while pings < count and time.monotonic() < deadline:
        ws.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            opcode, _ = ws.recv_data_frame(control_frame=True)
        except (websocket.WebSocketException, OSError):  # no frame in time, or let go
            break
        pings += opcode == websocket.ABNF.OPCODE_PING
    return pings == count


def test_a_replaced_tab_that_missed_a_ping_is_let_go(table):
    mover = table.players[0]
    old = mover.ws
    assert first_ping(old.ws, within=PING + WAIT), "no ping came"  # and it is left unanswered
    mover.load()
    mover.connect()
    assert ended_by_server(old.ws, within=WAIT)
    assert table.server.services.hub.live(table.room_id, 0).tab == mover.tab


def test_a_silent_peer_is_let_go_within_two_pings(table):
    host, guest = table.players
    hub = table.server.services.hub
    silent = time.monotonic()  # the guest has read nothing since its first table
    # the host reads (and so answers pings) while the guest is silent
    host.ws.wait(lambda f: f.connected == "false", "saying the guest left", 2 * PING + WAIT)
    took = time.monotonic() - hub.away_for(table.room_id, 1) - silent  # when it let go
    assert took <= 2 * PING + 1, f"let go after {took:.2f} s"  # a second for the pinger's drift
    assert ended_by_server(guest.ws.ws, within=WAIT)
    assert hub.live(table.room_id, 1) is None


def test_a_message_over_4_kb_closes_the_socket(table):
    host, guest = table.players
    guest.ws.ws.send("x" * 4096)  # as much as a page could ever send: kept open
    guest.ws.ws.send("y" * 5000)
    assert guest.ws.wait_closed(WAIT) == 1009  # message too big
    host.ws.wait(lambda f: f.connected == "false", "saying the guest left", WAIT)


def test_an_answered_socket_stays(table):
    host = table.players[0]
    # Each ping is sent only if the one before was answered (else the socket is let go in its
    # place): the third proves the server took the host's first two answers and kept it.
    assert answer_pings(host.ws.ws, 3, within=3 * PING + WAIT), "the server stopped pinging"
    assert table.server.services.hub.live(table.room_id, 0).tab == host.tab
