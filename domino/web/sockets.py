"""The websocket of a seat: it sends the whole table on connect, then only pushes."""

from __future__ import annotations

import sys

from flask import Blueprint, abort, current_app, request
from flask_sock import Sock

from ..rooms import table_view
from .hub import Connection, Superseded
from .i18n import chosen_language
from .pages import seated
from .render import render_superseded, render_table

bp = Blueprint("sockets", __name__)
sock = Sock()
PING_SECONDS = 25


class BareGreenlet:
    """simple-websocket's reader "thread" as a bare gevent greenlet (no Thread object).

    Under gevent a thread is a greenlet wrapped in a Thread with its locks and events; a
    server holding thousands of sockets keeps one per socket, so the bare one saves memory.
    """

    def __init__(self, target) -> None:
        self.target = target
        self.name = "websocket reader"

    def start(self) -> None:
        from gevent import spawn_raw

        spawn_raw(self.target)


def server_options() -> dict:
    """flask-sock's options: pings, and bare greenlets when running under gevent."""
    options = {"ping_interval": PING_SECONDS}
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("threading"):
        options["thread_class"] = BareGreenlet
    return options


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
    services = current_app.extensions["domino"]
    _room, seat = seated(room_id)
    conn = Connection(ws, request.args.get("tab", ""), chosen_language())
    try:
        replaced = services.hub.attach(room_id, seat, conn)
    except Superseded:
        conn.send(render_superseded())
        return
    if replaced is not None:
        replaced.send(render_superseded())
        replaced.close()
    with services.rooms.lock(room_id):
        room = services.rooms.get(room_id)
        present = services.hub.present(room_id)
        conn.send(render_table(table_view(room, seat, (1 - seat) in present)))
        services.push_others(room, seat)
    services.autoplayer.nudge(room, request.host_url)
    try:
        while ws.connected:
            ws.receive()  # the page sends nothing: this returns (or raises) when it closes
    finally:
        if services.hub.detach(room_id, seat, conn):
            with services.rooms.lock(room_id):
                services.push_others(services.rooms.get(room_id), seat)
