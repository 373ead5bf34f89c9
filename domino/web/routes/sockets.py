"""The websocket of a seat: it sends the whole table on connect, then only pushes."""

from __future__ import annotations

import functools

from flask import Blueprint, abort, current_app, request
from flask_sock import Sock
from simple_websocket import ConnectionClosed

from ...room import RoomError
from ...server.green import in_background, under_gevent
from ..live.hub import Connection
from ..live.outbox import Outbox
from ..live.pinger import Pinger
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
    again, for good), and when it pings (it does not here: web/live/pinger.py does), a missed ping
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
    from simple-websocket: web/live/pinger.py's `Pinger` sends them (every PING_SECONDS)."""
    return {
        "max_message_size": MAX_MESSAGE_BYTES,
        "thread_class": reader_class(),
    }


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
