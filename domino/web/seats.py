"""The request's room and seat, shared by the routes and the rate limits: which seat this browser
holds (its cookie), whether it acts from its live tab, the seat a form names, and a refusal that
sends the seat's table back. Routes import these, never each other."""

from __future__ import annotations

import re

from flask import current_app, g, render_template, request

from ..room import seat_number
from .view.messages import refusal, status_of
from .view.render import links, render_superseded, render_table

ROOM_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
COOKIE = "seat"


def tables():
    """The app's one owner of room changes (web/live/tables.py)."""
    return current_app.extensions["domino"]


def acting_seat(room_id: str):
    """The room and seat of a browser acting from its live tab, or a refusal to send back."""
    found, seat = seated(room_id)
    if found is None:
        return None, None, (render_template("missing.html"), 404)
    if seat is None:
        return found, None, refuse(None, "not-seated")
    hub = tables().hub
    tab = request.headers.get("X-Tab") or request.form.get("tab")
    if not hub.is_live(room_id, seat, tab):
        if hub.live(room_id, seat) is not None:
            return found, seat, (render_superseded(refusal("superseded")), 409)
        return found, seat, refuse(found, "not-connected", seat)
    return found, seat, None


def seated(room_id: str):
    """The room (None if unknown) and the seat this browser holds in it (or None), as the
    request found them first (the rate limit's key and the view ask alike)."""
    known = g.get("seated")
    if known is not None and known[0] == room_id:
        return known[1]
    found = _seated(room_id)
    g.seated = (room_id, found)
    return found


def _seated(room_id: str):
    if not ROOM_ID.fullmatch(room_id):
        return None, None
    found = tables().get(room_id)
    if found is None:
        return None, None
    return found, found.seat_of(request.cookies.get(COOKIE))


def form_seat(room) -> int | None:
    """The seat a form names (None if it names none); RoomError("bad-seat") for anything but
    a seat of the table in ASCII digits."""
    text = request.form.get("seat")
    if text is None:
        return None
    return seat_number(text, room.rules.seats)


def refuse(found, code: str, seat: int | None = None):
    """A refusal: the message, and the seat's current table so the page is right again."""
    message, status = refusal(code), status_of(code)
    if found is None or seat is None:
        return render_template("partials/notice.html", notice=message, alone=True), status
    return reply(found, seat, message), status


def reply(room, seat: int, notice: str | None = None, **options) -> str:
    """The seat's table of `room` as a route answers with it: its view now, the room's links,
    and `notice` (worded) if any."""
    return render_table(tables().view(room, seat), links(room), notice=notice, **options)
