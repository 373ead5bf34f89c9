"""Round review pages: a finished round step by step, and its analysis (or its place in the queue).

The analysis is made off the request path by web/live/analyses.py (one job per round, queued
fairly for the review pool, stored when done); these pages ask for it and poll until it is ready.

While a round may still be replayed as a rematch, or its rematch is in play, a seat sees the
analysis of its own moves only: the others' show how to play the hand it may hold next.
"""

from __future__ import annotations

import json

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for

from ...bots.analysis import position
from ...record import from_record
from ...room import form_number
from ..guard.limits import client_address
from ..live.analyses import reviews as app_reviews
from ..seats import seated, tables
from ..view.advice import decision, move_sentence
from ..view.faces import Speaker
from ..view.names import name_of

bp = Blueprint("review", __name__)
STOP_POLLING = 286  # htmx stops a poll that is answered with this status
NO_STORE = {"Cache-Control": "no-store"}


def reviews():
    """The app's reviews (web/live/analyses.py)."""
    return app_reviews(current_app)


def _round(room_id: str, k: int):
    """The room, the viewer's seat, round `k`'s (seq, record text) and every recorded round's;
    404 for the unseated or a round that is not recorded."""
    found, seat = seated(room_id)
    if found is None or seat is None:
        abort(404)
    rows = tables().rooms.store.record_rows(room_id)
    if not 0 <= k < len(rows):
        abort(404)
    return found, seat, rows[k], rows


@bp.get("/r/<room_id>/review")
def latest(room_id: str):
    """The review of the room's latest finished round."""
    found, seat = seated(room_id)
    if found is None or seat is None:
        abort(404)
    count = len(tables().rooms.store.record_rows(room_id))
    if not count:
        abort(404)
    return redirect(url_for("review.page", room_id=room_id, k=count - 1), 303)


@bp.get("/r/<room_id>/review/<int:k>")
def page(room_id: str, k: int):
    """Round `k` step by step on the felt, every hand shown, and the seat's analysis (or a
    spinner). It opens at the first costly move the seat may see, else at the first move.
    Asked by htmx (a step link, an arrow key: static/review.js), it answers the stepping
    region only."""
    room, seat, (seq, text), rows = _round(room_id, k)
    record = json.loads(text)
    final = from_record(record)
    steps = len(final.moves)
    tv = tables().view(room, seat, live=False)
    analysed = _analysis(room, seat, seq, text, rows, tv)
    costly = [row["move"] for row in analysed["rows"] if row["costly"]]
    shown = step(steps, min(costly) if costly else min(1, steps))
    state = position(record, final, shown)
    context = {
        "k": k,
        "room_id": room_id,
        "state": state,
        "step": shown,
        "steps": steps,
        "final": final,
        "seat": seat,
        "first_costly": min(costly) if costly else None,
        "seat_label": lambda other: name_of(tv, other).label,
        "moves": [move_sentence(move, tv) for move in final.moves],
        "decided": {row["move"]: row for row in analysed["rows"]},
        "laid": _laid_items(state, final, shown),
        "spoken_tile": Speaker.current().tile,
        **analysed,
    }
    if request.headers.get("HX-Request") and not request.headers.get("HX-History-Restore-Request"):
        body = render_template("partials/review_step.html", oob=True, **context)
    else:
        body = render_template("review.html", **context)
    return body, 200, {**NO_STORE, "Vary": "HX-Request"}


def _laid_items(state, final, shown: int):
    """The line at this step as the table draws it (web/view/faces.py), the tile the step laid
    marked as the newest."""
    speak = Speaker.current()
    last = None
    if shown and getattr(final.moves[shown - 1], "end", None) is not None:
        last = 0 if final.moves[shown - 1].end == "left" else len(state.line) - 1
    return [speak.laid_item(laid, i == last) for i, laid in enumerate(state.line)]


@bp.get("/r/<room_id>/review/<int:k>/analysis")
def analysis(room_id: str, k: int):
    """The analysis fragment (htmx polls it): 286 once ready, which stops the polling."""
    room, seat, (seq, text), rows = _round(room_id, k)
    tv = tables().view(room, seat, live=False)
    context = _analysis(room, seat, seq, text, rows, tv)
    costly = [row["move"] for row in context["rows"] if row["costly"]]
    body = render_template(
        "partials/review_analysis.html",
        k=k,
        room_id=room_id,
        first_costly=min(costly) if costly else None,
        spoken_tile=Speaker.current().tile,
        **context,
    )
    status = STOP_POLLING if context["ready"] else 200
    return body, status, NO_STORE


def _analysis(room, seat: int, seq: int, text: str, rounds, tv) -> dict:
    """What the analysis area shows: the rows `seat` may see, or the state of the job."""
    made = reviews().stored(room.id, seq)
    if made is None:
        state, ahead = reviews().request(room.id, seq, text, seat, client_address())
        place = None if ahead is None or state == "running" else ahead + 1
        return {"ready": False, "job": state, "place": place, "rows": [], "partial": None}
    hidden = held_back(room, seq, rounds)
    shown = [row for row in made["decisions"] if row["seat"] == seat or hidden is None]
    rows = [decision(row, tv) for row in shown]
    partial = hidden if len(shown) < len(made["decisions"]) else None
    return {"ready": True, "job": "ready", "place": None, "rows": rows, "partial": partial}


def held_back(room, seq: int, rounds) -> str | None:
    """Why the other seats' analysis of the round recorded at `seq` is not shown yet: "deal"
    until the room has dealt again (till then the round may be replayed as a rematch, the
    hands moved on), "rematch" while its rematch is in play; None once it may be shown.

    Their moves, weighed, would show how to play the very hand a seat holds in the rematch.
    """
    if room.dealt_at < seq:
        return "deal"
    if room.duplicate is not None and not room.round.over:
        replayed = max((at for at, _text in rounds if at < room.dealt_at), default=None)
        if replayed == seq:
            return "rematch"
    return None


def step(steps: int, opening: int | None = None) -> int:
    """The step asked for (`?step=n`, ASCII digits), kept within the round; else `opening`
    (the end of the round when none is given)."""
    asked = form_number(request.args.get("step"))
    if asked is None:
        return steps if opening is None else opening
    return min(asked, steps)
