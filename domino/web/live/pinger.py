"""One loop that pings every seat's socket and lets go of those whose peer stopped answering."""

from __future__ import annotations

import threading
import time

from ...server.green import in_background

PING_FRAME = b"\x89\x00"  # a ping without payload, as a server sends it (not masked)
STEP_SECONDS = 0.05  # a round of pings is sent in steps this far apart, a share at each


class Pinger:
    """Pings every seat's socket each `interval` seconds, and lets go of one whose peer left
    the previous ping unanswered: a peer that vanished without a word (its network lost) is
    let go, and so shown away, one to two intervals after.

    simple-websocket's own pings cost each socket a timed select per ping, more than twice
    the CPU of this (idle sockets, docs/benchmarks.md): here one loop sends them all, a share every
    STEP_SECONDS so that no step holds the event loop long (nor brings all the pongs back at
    once), and the readers just read (they note each pong in `pong_received`).
    """

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._steps = max(1, round(interval / STEP_SECONDS))
        self._slices: list[set] = [set() for _ in range(self._steps)]
        self._where: dict = {}  # connection -> its slice
        self._step = 0  # the slice the loop pings next
        self._running = False

    def watch(self, conn) -> None:
        """Ping `conn` from now on, first one interval from now (it joins the slice whose
        turn just came)."""
        with self._lock:
            at = (self._step - 1) % self._steps
            self._where[conn] = at
            self._slices[at].add(conn)
            if self._running:
                return
            self._running = True
        in_background(self._run)

    @property
    def running(self) -> bool:
        """Whether its loop runs (it ends when no socket is left to ping)."""
        return self._running

    def forget(self, conn) -> None:
        """Ping `conn` no more."""
        with self._lock:
            at = self._where.pop(conn, None)
            if at is not None:
                self._slices[at].discard(conn)

    def _run(self) -> None:
        while True:
            time.sleep(self.interval / self._steps)
            with self._lock:
                if not self._where:  # nobody to ping: the next watch starts a new loop
                    self._running = False
                    return
                due = list(self._slices[self._step])
                self._step = (self._step + 1) % self._steps
            for conn in due:
                ping(conn)


def ping(conn) -> None:
    """Ping the socket, or let it go if its peer has not answered the last ping."""
    ws = conn.ws
    if not ws.connected:
        return
    if not ws.pong_received:
        conn.release()
        return
    ws.pong_received = False
    try:
        ws.sock.send(PING_FRAME)
    except Exception:  # given up, or the peer is gone
        conn.release()
