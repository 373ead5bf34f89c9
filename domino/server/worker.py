"""The gunicorn worker: gevent's, but slow clients are cut off and one address's connections capped.

gunicorn's gevent worker waits for a request body as long as the client cares to drip it, and
lets one address open as many connections as the worker takes. This one (`gunicorn.conf.py`
names it) adds two limits, read from the environment:

- `DOMINO_REQUEST_TIMEOUT` (seconds, default 10): a request's headers and its whole body must
  arrive within this time of its first byte (on a new connection: of the accept), whether the
  parser or the app is reading them. Past it the worker answers a bare 408 and closes. Between
  keep-alive requests a connection may idle for gunicorn's `keepalive` seconds.
- `DOMINO_MAX_CONNECTIONS_PER_ADDRESS` (default 256, 0 for none): a connection from an address
  (an IPv6 /64) that already holds that many is answered a bare 503 and closed at once. Behind
  a reverse proxy (`DOMINO_PROXIES` > 0) every connection comes from the proxy, so there is no
  cap here: the proxy's own limit (nginx `limit_conn`) does it.

It also keeps the long-lived heap out of the garbage collector's full scans
(`keep_heap_frozen`, started by `gunicorn.conf.py`).

Only the request parser's reads are timed. The app, and so a websocket that runs for hours,
gets the plain socket with the timeout it had (none); reading the body through `wsgi.input`
goes through the parser, so it is timed.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import time
from collections import Counter
from dataclasses import dataclass

from gunicorn.workers.ggevent import GeventWorker

from ..addresses import subscriber

REQUEST_TIMEOUT = 10.0
# A school or office of 30 players behind one address: a socket and up to six HTTP
# connections each (a browser's most per host) make 210.
MAX_CONNECTIONS_PER_ADDRESS = 256
# What the app left unread of a body is read and dropped before the next request on the
# connection, as gunicorn does; past this much the connection is closed instead.
DRAIN_MAX_BYTES = 64 * 1024
TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"


class RequestTimeout(BaseException):
    """A request did not arrive in time.

    Not an Exception, so that the app's error handlers let it through to the worker (which
    closes the connection) instead of answering it with a 500 page.
    """


@dataclass(frozen=True)
class Limits:
    """What one client may hold: seconds per request, and connections per address (0: any)."""

    request_timeout: float = REQUEST_TIMEOUT
    per_address: int = MAX_CONNECTIONS_PER_ADDRESS


def read_limits(environ=os.environ) -> Limits:
    """The limits set in the environment; ValueError with a clear message for a bad value."""
    seconds = _setting(environ, "DOMINO_REQUEST_TIMEOUT", float, REQUEST_TIMEOUT)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"DOMINO_REQUEST_TIMEOUT must be a number of seconds above 0: {seconds}")
    cap = _setting(environ, "DOMINO_MAX_CONNECTIONS_PER_ADDRESS", int, MAX_CONNECTIONS_PER_ADDRESS)
    if cap < 0:
        raise ValueError(f"DOMINO_MAX_CONNECTIONS_PER_ADDRESS must be 0 or more: {cap}")
    if _setting(environ, "DOMINO_PROXIES", int, 0) > 0:
        cap = 0  # every connection comes from the proxy, which limits them itself
    return Limits(seconds, cap)


def _setting(environ, name: str, kind, default):
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return kind(raw)
    except ValueError:
        noun = "a whole number" if kind is int else "a number"
        raise ValueError(f"{name} must be {noun}, not {raw!r}") from None


def address_group(addr) -> str | None:
    """The key a client's connections are counted under: its IPv4 address or its IPv6 /64."""
    if not isinstance(addr, tuple) or not addr:
        return None  # a unix socket
    return subscriber(str(addr[0]))


class TimedReads:
    """A client socket as the request parser sees it: every read ends by the request's deadline.

    Anything else is the plain socket's. The deadline runs from the accept for the first
    request; `next_request` starts the next one's at its first byte, after an idle wait of at
    most `idle` seconds (longer reads as if the client had closed).
    """

    def __init__(self, sock, seconds: float, idle: float) -> None:
        self.raw = sock
        self.seconds = seconds
        self.idle = idle
        self.deadline: float | None = time.monotonic() + seconds
        self.begun = False  # whether any of the current request has arrived

    def __getattr__(self, name):
        return getattr(self.raw, name)

    def recv(self, size: int) -> bytes:
        if self.deadline is None:
            return self._first_byte(size)
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RequestTimeout
        try:
            data = self._recv(size, left)
        except TimeoutError:
            raise RequestTimeout from None
        self.begun = self.begun or bool(data)
        return data

    def next_request(self, buffered: bool) -> None:
        """The request is in: the next one's time runs from its first byte (now if buffered)."""
        self.deadline = time.monotonic() + self.seconds if buffered else None
        self.begun = buffered

    def _first_byte(self, size: int) -> bytes:
        try:
            data = self._recv(size, self.idle)
        except TimeoutError:
            return b""
        self.deadline = time.monotonic() + self.seconds
        self.begun = bool(data)
        return data

    def _recv(self, size: int, seconds: float) -> bytes:
        """One read that waits at most `seconds`; the socket keeps its own timeout after."""
        before = self.raw.gettimeout()
        self.raw.settimeout(seconds)
        try:
            return self.raw.recv(size)
        finally:
            self.raw.settimeout(before)


class Worker(GeventWorker):
    """gunicorn's gevent worker with a time limit per request and a cap per client address."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.limits = read_limits()
        self.open_by_group: Counter[str] = Counter()

    def timeout_ctx(self):
        """No timer around parsing: `TimedReads` bounds both the idle wait and the request."""
        return contextlib.nullcontext()

    def handle(self, listener, client, addr) -> None:
        group = address_group(addr) if self.limits.per_address else None
        if group is not None and self.open_by_group[group] >= self.limits.per_address:
            self.log.debug(
                "Refused a connection from %s: %s are open", group, self.limits.per_address
            )
            _send_and_close(client, BUSY)
            return
        if group is not None:
            self.open_by_group[group] += 1
        try:
            timed = TimedReads(client, self.limits.request_timeout, self.cfg.keepalive)
            super().handle(listener, timed, addr)
        finally:
            if group is not None:
                self.open_by_group[group] -= 1
                if not self.open_by_group[group]:
                    del self.open_by_group[group]

    def handle_request(self, listener_name, req, sock, addr):
        """Serve one request on the plain socket, then finish reading it before the next one."""
        super().handle_request(listener_name, req, sock.raw, addr)
        if not finish_body(req):
            raise StopIteration  # where the next request starts is unknown: close
        sock.next_request(buffered=bool(req.unreader.buf.getvalue()))

    def handle_error(self, req, client, addr, exc) -> None:
        if isinstance(exc, RequestTimeout):
            self.log.debug("Closed a request from %s that took too long to arrive", addr)
            if getattr(client, "begun", False):  # one that never sent a byte is just closed
                _send_and_close(client.raw, TIMED_OUT)
            return
        super().handle_error(req, client, addr, exc)


def finish_body(req) -> bool:
    """Read and drop what the app left of the body, in the request's time; False if it can't."""
    left = DRAIN_MAX_BYTES
    try:
        while data := req.body.read(8192):
            left -= len(data)
            if left < 0:
                return False
    except (Exception, RequestTimeout):
        return False
    return True


def _send_and_close(sock, message: bytes) -> None:
    """Send a short answer if the socket takes it without waiting, then close."""
    try:
        sock.setblocking(False)
        sock.send(message)
    except OSError:
        pass
    finally:
        sock.close()


# The long-lived heap (every live room's objects and sockets, ~300 objects a room) is frozen
# out of the collector's scans (gc.freeze) every FREEZE_SECONDS, after the young generations
# are collected: Python's own full collections then scan only what was made since, instead of
# pausing every room for a scan of thousands of rooms (0.3-0.5 s at 1,000 rooms on a slow
# core, the move -> push p99 going from ~50 ms to ~500 ms). Cyclic garbage that reached the
# old generation is freed by a real full collection every FULL_SECONDS.
FREEZE_SECONDS = 30.0
FULL_SECONDS = 3600.0


def settle_heap(last_full: float, now: float, full_seconds: float = FULL_SECONDS) -> float:
    """One step of `keep_heap_frozen`: collect (fully once `full_seconds` have passed since
    `last_full`, else only the young generations), then freeze; when the last full one was."""
    if now - last_full >= full_seconds:
        gc.unfreeze()
        gc.collect()
        last_full = now
    else:
        gc.collect(1)
    gc.freeze()
    return last_full


def keep_heap_frozen(every: float = FREEZE_SECONDS, full_seconds: float = FULL_SECONDS) -> None:
    """Settle the heap every `every` seconds, for ever (run it as a greenlet)."""
    last_full = time.monotonic()
    while True:
        time.sleep(every)
        last_full = settle_heap(last_full, time.monotonic(), full_seconds)
