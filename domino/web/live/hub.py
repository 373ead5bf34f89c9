"""Live connections: which tab holds each seat's socket, and pushing to it."""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field

from ..view.render import Links


def new_tab() -> str:
    """A tab id: when the page was served, then randomness; later tabs sort higher."""
    return f"{time.time_ns()}.{secrets.token_hex(8)}"


def tab_time(tab: str) -> int:
    """When a tab id was issued (0 if it is malformed)."""
    head = tab.split(".", 1)[0]
    return int(head) if head.isascii() and head.isdigit() and len(head) < 25 else 0


@dataclass(eq=False)
class Connection:
    """One open socket of a seat's tab, with the language and links of the page that opened
    it; `send` is safe from any thread."""

    ws: object
    tab: str
    locale: str
    links: Links
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, text: str) -> bool:
        """Send one message; False if the socket is gone (a failed send releases it)."""
        try:
            with self.lock:
                self.ws.send(text)
            return True
        except Exception:  # e.g. the send timed out half-way: the stream is no use any more
            self.release()
            return False

    def close(self) -> None:
        """Close the socket normally, so the page does not reconnect, and let it go."""
        try:
            with self.lock:
                self.ws.close(reason=1000, message="replaced by another tab")
        except Exception:
            pass
        self.release()

    def release(self) -> None:
        """Wake the socket's handler and reader and free the descriptor, whatever the peer does.

        simple-websocket's reader only notices a close when its peer answers or a ping falls
        due (and then raises if the socket is already closed); a peer that is gone answers
        neither, so the socket is shut down here, which ends the reader's wait at once.
        """
        event, sock = getattr(self.ws, "event", None), getattr(self.ws, "sock", None)
        if event is not None:
            self.ws.connected = False
            event.set()
        if sock is not None:
            with contextlib.suppress(OSError):  # already shut down or closed
                sock.shutdown(socket.SHUT_RDWR)


class Superseded(Exception):
    """A newer tab already holds this seat."""


class Hub:
    """Per room and seat, the one live connection (the newest tab wins)."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock  # seconds, monotonic: how long seats are away is measured by it
        self._lock = threading.Lock()
        self._rooms: dict[str, dict[int, Connection]] = {}
        self._left: dict[tuple[str, int], float] = {}  # when a seat's last socket went

    def away_for(self, room: str, seat: int) -> float:
        """Seconds since the seat had a live socket (0 while it has one); a seat never seen
        live by this process counts from the first time it is asked about."""
        if seat in self._rooms.get(room, ()):
            return 0.0
        now = self.clock()
        with self._lock:
            return now - self._left.setdefault((room, seat), now)

    def forget(self, room: str) -> None:
        """Drop what is known of a deleted room's departures."""
        with self._lock:
            for key in [key for key in self._left if key[0] == room]:
                del self._left[key]

    def attach(self, room: str, seat: int, conn: Connection) -> Connection | None:
        """Make `conn` the seat's live connection; return the one it replaces."""
        with self._lock:
            seats = self._rooms.setdefault(room, {})
            current = seats.get(seat)
            if current is not None and tab_time(conn.tab) < tab_time(current.tab):
                raise Superseded(conn.tab)
            seats[seat] = conn
            self._left.pop((room, seat), None)
            return current if current is not None and current is not conn else None

    def detach(self, room: str, seat: int, conn: Connection) -> bool:
        """Forget `conn` if it is still the live one; True if it was."""
        with self._lock:
            seats = self._rooms.get(room)
            if seats is None or seats.get(seat) is not conn:
                return False
            del seats[seat]
            self._left[(room, seat)] = self.clock()
            if not seats:
                del self._rooms[room]
            return True

    def live(self, room: str, seat: int) -> Connection | None:
        """The seat's live connection, if any."""
        return self._rooms.get(room, {}).get(seat)

    def is_live(self, room: str, seat: int, tab: str | None) -> bool:
        """True when `tab` holds the seat's live connection."""
        conn = self.live(room, seat)
        return conn is not None and tab is not None and conn.tab == tab

    def present(self, room: str) -> frozenset[int]:
        """The seats of `room` with a live connection."""
        return frozenset(self._rooms.get(room, ()))

    def count(self) -> int:
        """How many live connections there are."""
        return sum(len(seats) for seats in self._rooms.values())
