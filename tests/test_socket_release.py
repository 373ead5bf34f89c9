"""Sockets the server lets go of: replaced tabs, silent peers and oversized messages.

A live server with a short ping interval. A peer that stops reading also stops answering
pings (websocket-client answers them while it reads), which is what a vanished browser does.
The server's side of a socket is released when it closes the TCP connection: the client's
raw socket then reads the end of the stream.
"""

from __future__ import annotations

import time

import pytest
from live import live_server
from test_sockets import SEED, opened, table  # noqa: F401 (fixtures, on this module's server)

PING = 0.4  # seconds between the server's pings in these tests


@pytest.fixture
def server(tmp_path):
    with live_server(tmp_path / "domino.sqlite3", seed=SEED, PING_SECONDS=PING) as live:
        yield live


def ended_by_server(ws, within: float) -> bool:
    """True once the server has closed the connection (read past any frames it sent)."""
    raw = ws.sock
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        raw.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if raw.recv(65536) == b"":
                return True
        except TimeoutError:
            return False
        except OSError:  # reset by the server: closed too
            return True
    return False


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


def test_a_replaced_tab_that_missed_a_ping_is_let_go(table):
    mover = table.players[0]
    old = mover.ws
    assert first_ping(old.ws, within=2 * PING), "no ping came"  # and it is left unanswered
    mover.load()
    mover.connect()
    assert ended_by_server(old.ws, within=2 * PING + 2)
    assert table.server.services.hub.live(table.room_id, 0).tab == mover.tab


def test_a_silent_peer_is_let_go_within_two_pings(table):
    host, guest = table.players
    # the host reads (and so answers pings) while the guest is silent
    host.ws.wait(lambda f: f.connected == "false", "saying the guest left", 2 * PING + 2)
    assert ended_by_server(guest.ws.ws, within=1)
    assert table.server.services.hub.live(table.room_id, 1) is None


def test_a_message_over_4_kb_closes_the_socket(table):
    host, guest = table.players
    guest.ws.ws.send("x" * 4096)  # as much as a page could ever send: kept open
    guest.ws.ws.send("y" * 5000)
    assert guest.ws.wait_closed() == 1009  # message too big
    host.ws.wait(lambda f: f.connected == "false", "saying the guest left")


def test_an_answered_socket_stays(table):
    host = table.players[0]
    deadline = time.monotonic() + 4 * PING
    while time.monotonic() < deadline:  # reading answers the pings
        host.ws.ws.settimeout(0.1)
        try:
            host.ws.ws.recv()
        except (TimeoutError, Exception) as error:
            assert "timed out" in str(error).lower() or isinstance(error, TimeoutError), error
    assert table.server.services.hub.live(table.room_id, 0) is not None
