"""A websocket's network socket whose writes never make the writer wait.

Pushes are sent under the room's lock, in commit order. If a page stops reading, its socket's
buffer fills and a plain send would wait, holding the lock and so the whole room. `Outbox`
writes at once what the socket takes; the rest waits in a queue that a writer of its own
drains. What comes later queues behind it, so the order holds, and a close waits for the
queue (the last table, the close frame) to go out. A page that falls too far behind, or whose
socket takes nothing for `seconds`, is given up.

simple-websocket also ignores how much a `send` wrote; here a send writes all or raises, so a
frame is never cut in two.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from collections import deque

MAX_QUEUED = 512 * 1024  # bytes a page may fall behind (some tens of tables) before it is let go


class Outbox:
    """Wraps a connected socket; `send` never waits on the network (everything else passes)."""

    def __init__(self, sock, spawn, cooperative: bool, seconds: float) -> None:
        sock.settimeout(None)  # blocking: MSG_DONTWAIT alone decides when a send may not wait
        self._sock = sock
        self._spawn = spawn  # runs a function in the background: a greenlet or a thread
        self._cooperative = cooperative  # gevent: a socket waits on its own unless timeout is 0
        self._seconds = seconds
        self._lock = threading.Lock()
        self._queue: deque[bytes] | None = None  # only while a writer is draining it
        self._queued = 0
        self._broken = False
        # Only while a writer drains (a socket holds few objects: a worker holds thousands):
        self._closing: list | None = None  # shutdown/close calls put off until the queue is out
        self._drained: threading.Event | None = None  # set when the writer is done

    def send(self, data: bytes) -> int:
        """Write `data` whole: now, or after what waits; raise if the socket was given up."""
        with self._lock:
            if self._broken:
                raise BrokenPipeError("this socket was given up")
            if self._queue is None:
                sent = self._send_now(data)
                if sent == len(data):
                    return sent
                self._queue = deque([data[sent:]])
                self._queued = len(data) - sent
                self._closing, self._drained = [], threading.Event()
                self._spawn(self._drain)
                return len(data)
            self._queue.append(data)
            self._queued += len(data)
            if self._queued > MAX_QUEUED:
                self._give_up()
                raise BrokenPipeError("the page fell too far behind")
        return len(data)

    def shutdown(self, how: int) -> None:
        """Shut the socket down, once what waits has gone out."""
        self._finally(self._sock.shutdown, how)

    def close(self) -> None:
        """Close the socket, once what waits has gone out."""
        self._finally(self._sock.close)

    def flush(self) -> bool:
        """Wait (at most `seconds`) until nothing waits to be written; True if nothing does."""
        drained = self._drained
        return drained is None or drained.wait(self._seconds)

    def __getattr__(self, name: str):
        if name in ("sendall", "sendmsg", "sendfile", "settimeout"):  # they would jump the queue
            raise AttributeError(f"an outbox has no {name}: use send")
        return getattr(self._sock, name)

    def _finally(self, call, *args) -> None:
        with self._lock:
            if self._closing is not None:
                self._closing.append((call, args))
                return
        with contextlib.suppress(OSError):
            call(*args)

    def _send_now(self, data: bytes) -> int:
        """As much of `data` as the socket takes without waiting."""
        try:
            if self._cooperative:
                return self._sock.send(data, timeout=0.0)  # gevent's: raise rather than wait
            return self._sock.send(data, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return 0

    def _drain(self) -> None:
        """Write the queue out in order; give up if the socket takes nothing for `seconds`."""
        try:
            while self._write_some():
                pass
        finally:
            with self._lock:
                closing, drained = self._closing, self._drained
                self._queue, self._queued, self._closing, self._drained = None, 0, None, None
            for call, args in closing:
                with contextlib.suppress(OSError):
                    call(*args)
            drained.set()

    def _write_some(self) -> bool:
        """One write of the head of the queue, after waiting for room; False when done."""
        with self._lock:
            if self._broken or not self._queue:
                return False
            piece = self._queue[0]
        try:
            _, writable, _ = select.select([], [self._sock], [], self._seconds)
            sent = self._send_now(piece) if writable else None
        except OSError:
            sent = None
        with self._lock:
            if sent is None:  # the socket took nothing for `seconds`, or failed
                self._give_up()
                return False
            if self._queue:
                self._queue[0] = piece[sent:]
                self._queued -= sent
                if not self._queue[0]:
                    self._queue.popleft()
        return True

    def _give_up(self) -> None:
        """Drop what waits and shut the socket down, which ends its reader (the lock is held)."""
        self._broken, self._queue, self._queued = True, deque(), 0
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
