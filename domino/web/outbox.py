"""A websocket's network socket whose writes never make the writer wait.

Pushes are sent under the room's lock, in commit order. If a page stops reading, its socket's
buffer fills and a plain send would wait, holding the lock and so the whole room. `Outbox`
writes at once what the socket takes; the rest waits in a queue that a writer of its own
drains, with the socket's timeout. What comes later queues behind it, so the order holds. A
reader that falls too far behind, or a write that times out, gives the socket up.

simple-websocket also ignores how much a `send` wrote; here a send writes all or raises, so a
frame is never cut in two.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import deque

MAX_QUEUED = 512 * 1024  # bytes a page may fall behind (some tens of tables) before it is let go


class Outbox:
    """Wraps a connected socket; `send` never waits on the network (everything else passes)."""

    def __init__(self, sock, spawn, cooperative: bool) -> None:
        self._sock = sock
        self._spawn = spawn  # runs a function in the background: a greenlet or a thread
        self._cooperative = cooperative  # under gevent: no other greenlet runs meanwhile
        self._lock = threading.Lock()
        self._queue: deque[bytes] | None = None  # only while a writer is draining it
        self._queued = 0
        self._broken = False

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
                self._spawn(self._drain)
                return len(data)
            self._queue.append(data)
            self._queued += len(data)
            if self._queued > MAX_QUEUED:
                self._give_up()
                raise BrokenPipeError("the page fell too far behind")
        return len(data)

    def __getattr__(self, name: str):
        return getattr(self._sock, name)

    def _send_now(self, data: bytes) -> int:
        """As much of `data` as the socket takes without waiting (the caller holds the lock)."""
        try:
            if self._cooperative:  # a gevent socket waits unless its timeout is 0
                timeout = self._sock.gettimeout()
                self._sock.settimeout(0.0)
                try:
                    return self._sock.send(data)
                finally:
                    self._sock.settimeout(timeout)
            return self._sock.send(data, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return 0

    def _drain(self) -> None:
        """Write the queue out in order, each piece within the socket's timeout."""
        while True:
            with self._lock:
                if self._broken or not self._queue:
                    self._queue, self._queued = None, 0
                    return
                piece = self._queue[0]
            try:
                self._sock.sendall(piece)
            except OSError:
                with self._lock:
                    self._give_up()
                return
            with self._lock:
                if self._queue:
                    self._queue.popleft()
                    self._queued -= len(piece)

    def _give_up(self) -> None:
        """Drop what waits and shut the socket down, which ends its reader (the lock is held)."""
        self._broken, self._queue, self._queued = True, None, 0
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
