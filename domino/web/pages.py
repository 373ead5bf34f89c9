"""Pages and actions: home, the room (full page or fragment), joining, moves, records."""

from __future__ import annotations

import re

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from ..game import IllegalMove
from ..record import dumps, to_record
from ..rooms import IDLE_SECONDS, ROOM_ACTIONS, RoomError, table_view
from ..tiles import Tile
from .hub import new_tab
from .i18n import chosen_language
from .messages import refusal
from .render import render_superseded, render_table

bp = Blueprint("pages", __name__)
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
COOKIE = "seat"


def services():
    """The app's rooms, hub and pusher."""
    return current_app.extensions["domino"]


@bp.get("/")
def home():
    """The home page."""
    return render_template("home.html")


@bp.get("/help")
def help_page():
    """The rules, the controls and some tips, in the page's language."""
    return render_template(f"help/{chosen_language()}.html")


@bp.get("/healthz")
def healthz():
    """A liveness probe."""
    return "ok", 200, {"Content-Type": "text/plain; charset=utf-8"}


@bp.post("/rooms")
def create_room():
    """Create a room, seat its creator and go to it."""
    room, secret = services().rooms.create("friend")
    response = redirect(url_for("pages.room", room_id=room.id), 303)
    _set_seat_cookie(response, room.id, secret)
    return response


@bp.post("/computer")
def play_computer():
    """Create a room against the computer and go to it."""
    level = request.form.get("level", "medium")
    try:
        room, secret = services().rooms.create("computer", level)
    except RoomError as error:
        return render_template("home.html", notice=refusal(error.code)), error.status
    response = redirect(url_for("pages.room", room_id=room.id), 303)
    _set_seat_cookie(response, room.id, secret)
    services().autoplayer.nudge(room, request.host_url)
    return response


@bp.get("/r/<room_id>")
def room(room_id: str):
    """The table for a seated browser; a join, full or missing page for the others."""
    found, seat = seated(room_id)
    if found is None:
        return render_template("missing.html"), 404
    if seat is None:
        if found.full:
            return render_template("full.html"), 403
        return render_template("join.html", room_id=room_id)
    here = _opponent_here(found.id, seat)
    if request.headers.get("HX-Request"):
        return render_table(table_view(found, seat, here), selected=_selected())
    services().autoplayer.nudge(found, request.host_url)  # e.g. after a restart
    tv = table_view(found, seat, here, live=False)  # inert until its socket is open
    tab = new_tab()
    return render_template("room.html", tv=tv, tab=tab, table=render_table(tv, oob=False))


@bp.post("/r/<room_id>/join")
def join(room_id: str):
    """Take the guest seat if it is free (or get one's own seat back)."""
    if not ROOM_ID.fullmatch(room_id):
        return render_template("missing.html"), 404
    try:
        found, seat, secret = services().rooms.join(room_id, request.cookies.get(COOKIE))
    except RoomError:
        return render_template("missing.html"), 404
    if seat is None:
        return render_template("full.html"), 403
    target = url_for("pages.room", room_id=room_id)
    response = redirect(target, 303)
    if request.headers.get("HX-Request"):
        response = make_response("", 200, {"HX-Redirect": target})
    _set_seat_cookie(response, room_id, secret)
    with services().rooms.lock(room_id):
        services().push_others(found, seat)
    return response


@bp.post("/r/<room_id>/level")
def level(room_id: str):
    """Switch the computer's level at any moment; hands and line stay."""
    _room, seat, refused = _acting_seat(room_id)
    if refused is not None:
        return refused
    rooms = services().rooms
    with rooms.lock(room_id):
        try:
            after = rooms.set_level(room_id, request.form.get("level", ""))
        except RoomError as error:
            return _refuse(rooms.get(room_id), error.code, error.status, seat)
    services().autoplayer.nudge(after, request.host_url)
    return render_table(table_view(after, seat, _opponent_here(room_id, seat)))


@bp.post("/r/<room_id>/<action>")
def act(room_id: str, action: str):
    """A seat's move or new-round answer: refused with a clear message, or done and pushed."""
    if action not in ROOM_ACTIONS:
        abort(404)
    found, seat, refused = _acting_seat(room_id)
    if refused is not None:
        return refused
    try:
        seq = int(request.form.get("seq", ""))
    except ValueError:
        return _refuse(found, "bad-seq", 400, seat)
    rooms, hub = services().rooms, services().hub
    with rooms.lock(room_id):  # pushes leave in the order the moves were made
        try:
            after = rooms.act(room_id, seat, action, request.form, hub.present(room_id), seq)
        except RoomError as error:
            return _refuse(rooms.get(room_id), error.code, error.status, seat)
        except IllegalMove as error:
            return _refuse(found, error.rule, 409, seat)
        services().push_others(after, seat)
    services().autoplayer.nudge(after, request.host_url)
    return render_table(table_view(after, seat, _opponent_here(room_id, seat)))


def _acting_seat(room_id: str):
    """The room and seat of a browser acting from its live tab, or a refusal to send back."""
    found, seat = seated(room_id)
    if found is None:
        return None, None, (render_template("missing.html"), 404)
    if seat is None:
        return found, None, _refuse(None, "not-seated", 403)
    hub = services().hub
    tab = request.headers.get("X-Tab") or request.form.get("tab")
    if not hub.is_live(room_id, seat, tab):
        if hub.live(room_id, seat) is not None:
            return found, seat, (render_superseded(refusal("superseded")), 409)
        return found, seat, _refuse(found, "not-connected", 409, seat)
    return found, seat, None


@bp.get("/r/<room_id>/record.jsonl")
def record(room_id: str):
    """The finished rounds of the room, one record per line, for its seated players."""
    found, seat = seated(room_id)
    if found is None or seat is None:
        abort(404)
    finished = services().rooms.finished_rounds(room_id)
    if not finished:
        return Response(refusal("no-finished-round") + "\n", 404, mimetype="text/plain")
    names = ["player 1", "player 2"] if found.kind == "friend" else ["player", "computer"]
    body = "".join(dumps(to_record(state, names)) + "\n" for state in finished)
    headers = {"Content-Disposition": f'attachment; filename="domino-{room_id[:8]}.jsonl"'}
    return Response(body, mimetype="application/jsonl", headers=headers)


def seated(room_id: str):
    """The room (None if unknown) and the seat this browser holds in it (or None)."""
    if not ROOM_ID.fullmatch(room_id):
        return None, None
    found = services().rooms.get(room_id)
    if found is None:
        return None, None
    return found, found.seat_of(request.cookies.get(COOKIE))


def _opponent_here(room_id: str, seat: int) -> bool:
    return (1 - seat) in services().hub.present(room_id)


def _selected() -> Tile | None:
    try:
        return Tile.parse(request.args.get("select", ""))
    except ValueError:
        return None


def _refuse(found, code: str, status: int, seat: int | None = None):
    """A refusal: the message, and the seat's current table so the page is right again."""
    message = refusal(code)
    if found is None or seat is None:
        return render_template("partials/notice.html", notice=message, alone=True), status
    tv = table_view(found, seat, _opponent_here(found.id, seat))
    return render_table(tv, notice=message), status


def _set_seat_cookie(response, room_id: str, secret: str) -> None:
    """The seat's secret, for this room's pages only, never readable by scripts."""
    response.set_cookie(
        COOKIE,
        secret,
        max_age=IDLE_SECONDS * 4,
        path=f"/r/{room_id}",
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
    )
