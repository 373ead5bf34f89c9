"""Slow clients cannot hold the worker: the production server (gunicorn.conf.py) cuts requests
that drip in, caps one address's connections, and leaves websockets alone (domino/server/worker.py).

Each server runs as `make serve` does, on a free loopback port with a temporary database. The
timings asserted are bounds on correctness (cut after the deadline, within a few seconds of
it), never claims about speed.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import time
from pathlib import Path

import pytest
import websocket

from domino.server.worker import TimedReads, address_group, read_limits
from tests.support.faults import Server, free_port, new_room

ROOT = Path(__file__).resolve().parents[2]


DEADLINE = 1.5  # DOMINO_REQUEST_TIMEOUT of the servers that time requests
CAP = 20  # DOMINO_MAX_CONNECTIONS_PER_ADDRESS
MARGIN = 3.0  # how late after the deadline a cut may come on a busy machine
OTHER = "127.0.0.2"  # another client address (all of 127.0.0.0/8 is loopback)
HEAD = b"Host: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"


@contextlib.contextmanager
def server(tmp_path_factory, **env):
    """The production server with these environment settings, stopped at the end."""
    db = tmp_path_factory.mktemp("slow") / "domino.sqlite3"
    running = Server(db, free_port(), env={key: str(value) for key, value in env.items()})
    running.start()
    try:
        yield running
    finally:
        running.kill()


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    """A server that gives each request 1.5 s (and pings sockets seldom: a test socket that
    sleeps answers no ping)."""
    with server(
        tmp_path_factory,
        DOMINO_REQUEST_TIMEOUT=DEADLINE,
        DOMINO_MAX_CONNECTIONS_PER_ADDRESS=CAP,
        DOMINO_PING_SECONDS=60,
    ) as running:
        yield running


@pytest.fixture(scope="module")
def capped(tmp_path_factory):
    """A server with the small cap and time enough to hold idle connections during a test."""
    with server(
        tmp_path_factory, DOMINO_REQUEST_TIMEOUT=60, DOMINO_MAX_CONNECTIONS_PER_ADDRESS=CAP
    ) as running:
        yield running


def connect(srv: Server, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", srv.port))
    return sock


def drip(
    sock: socket.socket, data: bytes, gap: float, limit: float, start: float
) -> tuple[float, bytes]:
    """Send `data` a byte every `gap` seconds until the server answers or closes.

    Returns the seconds from `start` (taken before the connect: the server's deadline runs
    from its accept) until the connection was closed, and what the server sent."""
    received = b""
    sock.settimeout(gap)
    for byte in data:
        if time.monotonic() - start > limit:
            break  # still open: the caller's bound fails
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            break  # the server has closed it
        try:
            received += read_to_end(sock, start + limit)
            break
        except TimeoutError:
            continue  # nothing yet: the next byte
    return time.monotonic() - start, received


def read_to_end(sock: socket.socket, until: float) -> bytes:
    """Everything the server sends until it closes; TimeoutError if it sends nothing for now."""
    received = b""
    while True:
        try:
            data = sock.recv(4096)
        except ConnectionResetError:
            return received
        if not data:
            return received
        received += data
        sock.settimeout(max(0.1, until - time.monotonic()))


def refused(sock: socket.socket) -> bool:
    """Whether the server closed this connection instead of answering a request on it."""
    sock.settimeout(10)
    try:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n" + HEAD + b"Connection: close\r\n\r\n")
        answer = read_to_end(sock, time.monotonic() + 10)
    except (BrokenPipeError, ConnectionResetError):
        return True
    if answer.startswith(b"HTTP/1.1 200"):
        return False
    assert answer == b"" or answer.startswith(b"HTTP/1.1 503"), answer[:100]
    return True


def healthz(srv: Server, source: str = OTHER) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10, source_address=(source, 0))
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status
    finally:
        conn.close()


def clean_log(srv: Server) -> str:
    """The server's log, which a cut request must leave without a traceback."""
    text = srv.db.with_suffix(".log").read_text()
    assert "Traceback" not in text and "Error handling request" not in text, text[-3000:]
    return text


@pytest.mark.slow
def test_headers_sent_slowly_are_cut_after_the_deadline(timed):
    start = time.monotonic()
    with connect(timed) as sock:
        head = b"GET /healthz HTTP/1.1\r\n" + HEAD + b"X-Slow: " + b"a" * 200
        seconds, answer = drip(sock, head, gap=0.3, limit=DEADLINE + MARGIN, start=start)
    assert DEADLINE - 0.1 <= seconds <= DEADLINE + MARGIN, seconds
    assert answer in (
        b"",
        b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    ), answer
    clean_log(timed)


@pytest.mark.slow
@pytest.mark.parametrize("path", ["/rooms", "/nowhere"])
def test_a_body_sent_slowly_is_cut_after_the_deadline(timed, path):
    """Whether the app is reading the body (/rooms) or the worker drains it after a 404."""
    start = time.monotonic()
    with connect(timed) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\n".encode() + HEAD + b"Content-Length: 1000\r\n\r\n")
        seconds, answer = drip(sock, b"a" * 1000, gap=0.5, limit=DEADLINE + MARGIN, start=start)
    assert DEADLINE - 0.1 <= seconds <= DEADLINE + MARGIN, seconds
    if path == "/rooms":
        assert answer in (
            b"",
            b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        ), answer
    else:
        assert answer.startswith(b"HTTP/1.1 404"), answer[:100]
    clean_log(timed)


@pytest.mark.slow
def test_fast_requests_work_and_keep_alive_may_idle_past_the_deadline(timed):
    new_room(timed)  # the home page, a POST with a form body, the invitation and a join
    conn = http.client.HTTPConnection("127.0.0.1", timed.port, timeout=10)
    try:
        for _ in range(2):
            conn.request("GET", "/healthz")
            reply = conn.getresponse()
            assert reply.status == 200
            reply.read()
            sock = conn.sock
            time.sleep(DEADLINE + 0.5)  # idle between requests: the keep-alive bound applies
        conn.request("POST", "/healthz", body=b"x" * 100_000)  # unread by the app: drained
        reply = conn.getresponse()
        reply.read()
        assert reply.status == 405
        assert conn.sock is sock  # one connection all along
    finally:
        conn.close()


@pytest.mark.slow
def test_a_websocket_stays_open_past_the_deadline(timed):
    host, _guest = new_room(timed)
    host.load()
    host.connect()
    try:
        time.sleep(2 * DEADLINE + 0.5)
        host.ws.ping(b"still there?")
        host.ws.settimeout(5)
        opcode, frame = host.ws.recv_data_frame(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_PONG and frame.data == b"still there?"
    finally:
        host.close()


@pytest.mark.slow
def test_one_address_is_capped_while_others_are_served(capped):
    held = [connect(capped) for _ in range(CAP)]
    try:
        over = [connect(capped) for _ in range(3)]
        assert all(refused(sock) for sock in over)
        for sock in over:
            sock.close()
        assert healthz(capped, OTHER) == 200  # another address is served meanwhile
        others = [connect(capped, OTHER) for _ in range(CAP)]  # and has its own count
        assert all(not refused(sock) for sock in others[-2:])
        for sock in others:
            sock.close()
    finally:
        for sock in held:
            sock.close()
    end = time.monotonic() + 10  # the worker counts a connection until it sees it close
    while time.monotonic() < end and not served(capped):
        time.sleep(0.2)
    assert served(capped)
    clean_log(capped)


def served(srv: Server) -> bool:
    try:
        return healthz(srv, "127.0.0.1") == 200
    except (ConnectionError, http.client.HTTPException):
        return False


@pytest.mark.slow
def test_behind_a_proxy_the_worker_does_not_cap(tmp_path_factory):
    with server(
        tmp_path_factory,
        DOMINO_REQUEST_TIMEOUT=60,
        DOMINO_MAX_CONNECTIONS_PER_ADDRESS=CAP,
        DOMINO_PROXIES=1,
    ) as proxied:
        held = [connect(proxied) for _ in range(CAP + 10)]
        try:
            assert not any(refused(sock) for sock in held[-3:])
        finally:
            for sock in held:
                sock.close()


def test_reads_keep_the_socket_timeout_they_found():
    left, right = socket.socketpair()
    with left, right:
        timed = TimedReads(left, seconds=5, idle=5)
        right.sendall(b"GET")
        assert timed.recv(10) == b"GET"
        assert left.gettimeout() is None


def test_limits_are_read_from_the_environment_and_bad_values_are_refused():
    assert read_limits({}) == read_limits({"DOMINO_REQUEST_TIMEOUT": " "})
    limits = read_limits(
        {"DOMINO_REQUEST_TIMEOUT": "2.5", "DOMINO_MAX_CONNECTIONS_PER_ADDRESS": "7"}
    )
    assert (limits.request_timeout, limits.per_address) == (2.5, 7)
    assert read_limits({"DOMINO_MAX_CONNECTIONS_PER_ADDRESS": "7", "DOMINO_PROXIES": "1"}) == (
        read_limits({"DOMINO_MAX_CONNECTIONS_PER_ADDRESS": "0"})
    )
    for name, value in [
        ("DOMINO_REQUEST_TIMEOUT", "soon"),
        ("DOMINO_REQUEST_TIMEOUT", "0"),
        ("DOMINO_REQUEST_TIMEOUT", "nan"),
        ("DOMINO_MAX_CONNECTIONS_PER_ADDRESS", "-1"),
        ("DOMINO_MAX_CONNECTIONS_PER_ADDRESS", "2.5"),
    ]:
        with pytest.raises(ValueError, match=name):
            read_limits({name: value})


def test_ipv6_addresses_are_grouped_by_their_64():
    assert address_group(("2001:db8:1:2:aaaa::1", 5000, 0, 0)) == "2001:db8:1:2::/64"
    assert address_group(("2001:db8:1:2:bbbb::9", 5001, 0, 0)) == "2001:db8:1:2::/64"
    assert address_group(("2001:db8:1:3::1", 5000, 0, 0)) == "2001:db8:1:3::/64"
    assert address_group(("::ffff:192.0.2.7", 5000, 0, 0)) == "192.0.2.7"
    assert address_group(("192.0.2.7", 5000)) == "192.0.2.7"
    assert address_group("/run/domino.sock") is None
