"""The websocket of a seat: it sends the whole table on connect, then only pushes."""

from __future__ import annotations

import functools
import threading
import time

from flask import Blueprint, abort, current_app, request
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from ...room import RoomError
from ...server.green import in_background, under_gevent
from ..live.hub import Connection
from ..live.outbox import Outbox
from ..seats import seated
from ..view.i18n import chosen_language
from ..view.render import links

bp = Blueprint("sockets", __name__)
sock = Sock()
MAX_MESSAGE_BYTES = 4096  # the page sends nothing; anything bigger closes the socket
SEND_SECONDS = 10  # a socket that takes nothing for this long while pushes wait is given up


def reader_class():
    """simple-websocket's reader "thread", made to wake the socket's handler when it ends.

    The library's reader can stop without waking the handler blocked in `receive()`: on an
    oversized message it wakes it before marking the socket closed (so the handler may sleep
    again, for good), and when it pings (it does not here: `Pinger` does), a missed ping
    after a close kills it with ConnectionClosed. Here the end of the reader always marks the
    socket closed and wakes the handler. Under gevent it is a bare greenlet: a Thread object
    per socket costs memory on a server holding thousands.
    """

    def run(target) -> None:
        try:
            target()
        except ConnectionClosed:  # the end of the socket anyway
            pass
        finally:
            ws = target.__self__  # the reader is the websocket's bound method
            ws.connected = False
            ws.event.set()

    class Reader:
        def __init__(self, target) -> None:
            self.target = target
            self.name = "websocket reader"

        def start(self) -> None:
            in_background(functools.partial(run, self.target))

    return Reader


def server_options() -> dict:
    """flask-sock's options: a small message size and a reader that always wakes. No pings
    from simple-websocket: `Pinger` sends them (every PING_SECONDS)."""
    return {
        "max_message_size": MAX_MESSAGE_BYTES,
        "thread_class": reader_class(),
    }


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


def pinger() -> Pinger:
    """The app's pinger."""
    found = current_app.extensions.get("domino-pinger")
    if found is None:
        found = Pinger(current_app.config["PING_SECONDS"])
        current_app.extensions["domino-pinger"] = found
    return found


@bp.before_request
def check_origin_and_seat():
    """Refuse the handshake from a foreign page (403) or a browser without a seat."""
    origin = request.headers.get("Origin")
    if origin is None or origin.rstrip("/") != request.host_url.rstrip("/"):
        abort(403)
    room_id = request.view_args.get("room_id", "")
    found, seat = seated(room_id)
    if found is None or seat is None:
        abort(403)
    # No permessage-deflate: its zlib state costs ~120 KB per socket for the life of the
    # socket, to save a few KB per push. Without the client's offer, none is accepted.
    request.environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)


@sock.route("/r/<room_id>/ws", bp=bp)
def table(ws, room_id: str):
    """Hold the seat's live connection until it closes or a newer tab takes over."""
    tables = current_app.extensions["domino"]
    room, seat = seated(room_id)
    ws.sock = Outbox(ws.sock, in_background, under_gevent(), SEND_SECONDS)
    conn = Connection(ws, request.args.get("tab", ""), chosen_language(), links(room))
    pings = pinger()
    try:
        if tables.connect(room_id, seat, conn):
            pings.watch(conn)
            while ws.connected:
                ws.receive()  # the page sends nothing: this returns (or raises) when it closes
    except RoomError:
        pass  # the room was deleted meanwhile
    finally:
        pings.forget(conn)
        conn.release()
        tables.disconnect(room_id, seat, conn)
        ws.sock.flush()  # the last table and the close frame go out before the server closes
