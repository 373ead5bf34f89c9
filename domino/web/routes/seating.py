"""Who sits where: a seat given to the computer, handed to it while away, and display names."""

from __future__ import annotations

from flask import Blueprint, request

from ...room import RoomError
from ..seats import acting_seat, form_seat, refuse, reply, tables
from ..view.messages import notice
from ..view.names import reserved_words

bp = Blueprint("seating", __name__)


@bp.post("/r/<room_id>/computer")
def computer(room_id: str):
    """Let the computer play the form's `seat`: a free seat, given by the table's creator at
    the form's `level`, or the seat of a player away for long, handed over by one present
    (at the level the room gives a stand-in: the form's is not asked for)."""
    found, seat, refused = acting_seat(room_id)
    if refused is not None:
        return refused
    level = request.form.get("level", "")
    try:
        other = form_seat(found)
        if other is None:
            raise RoomError("bad-seat")
        news = None
        if other in found.free:
            after = tables().give(room_id, seat, other, level, request.form)
        else:
            after = tables().hand_over(room_id, seat, other)
            news = notice("handed-over")
    except RoomError as error:
        return refuse(tables().get(room_id), error.code, seat)
    return reply(after, seat, news)


@bp.post("/r/<room_id>/name")
def name(room_id: str):
    """Set this seat's display name (up to 20 characters; empty for none; none of the words
    the table calls a seat by, in any language)."""
    _found, seat, refused = acting_seat(room_id)
    if refused is not None:
        return refused
    text = request.form.get("name", "")
    try:
        after = tables().name(room_id, seat, text, reserved_words())
    except RoomError as error:
        return refuse(tables().get(room_id), error.code, seat)
    return reply(after, seat)
