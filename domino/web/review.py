"""Round review pages: a finished round step by step, and its analysis made off the request path.

The first request for a round's review starts one job (a thread, a greenlet under gevent):
it sends the record to the review pool (web/computer.py `pool(role="review")`, processes of
their own below the computer's moves), waits there, and stores the result
(`Store.save_review`); no request ever waits on the pool. Later requests serve the stored
review. A restart forgets what was pending: the next poll asks again. At most PENDING_CAP
reviews run or wait at once; past that the page says to try again shortly.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from concurrent.futures.process import BrokenProcessPool

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import review
from ..record import from_record
from .computer import pool
from .naming import name_of
from .pages import seated, tables

bp = Blueprint("review", __name__)
PENDING_CAP = 64
REVIEW_SECONDS = 120  # a review that takes longer is given up (the next poll asks anew)
STOP_POLLING = 286  # htmx stops a poll that is answered with this status
log = logging.getLogger(__name__)
NO_STORE = {"Cache-Control": "no-store"}


def seed_of(text: str) -> int:
    """The review's random seed: the low 64 bits of the record's SHA-256."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[-8:], "big")


class Reviews:
    """The reviews of one app: one job per round at most, run in the review pool."""

    def __init__(self, store, processes: int) -> None:
        self.store = store
        self.processes = max(processes, 1)
        self._pending: set[tuple[str, int]] = set()
        self._lock = threading.Lock()

    def stored(self, room_id: str, seq: int) -> dict | None:
        """The stored review of the round recorded at `seq`, if made."""
        text = self.store.review(room_id, seq)
        return None if text is None else json.loads(text)

    def request(self, room_id: str, seq: int, text: str) -> str:
        """Start the round's review unless stored or under way: "pending", or "busy" if
        too many are."""
        key = (room_id, seq)
        with self._lock:
            if key in self._pending:
                return "pending"
            if len(self._pending) >= PENDING_CAP:
                return "busy"
            self._pending.add(key)
        threading.Thread(target=self._run, args=(key, text), daemon=True).start()
        return "pending"

    def idle(self) -> bool:
        """True when no review is under way (for tests)."""
        with self._lock:
            return not self._pending

    def _run(self, key: tuple[str, int], text: str) -> None:
        try:
            result = self._analyze(text)
            self.store.save_review(*key, json.dumps(result))
        except Exception:
            log.exception("the review of room %s round %s failed", *key)
        finally:
            with self._lock:
                self._pending.discard(key)

    def _analyze(self, text: str) -> dict:
        """The analysis, from a review process (the pool is renewed once if broken)."""
        workers = pool(self.processes, role="review")
        try:
            return workers.submit(review.analyze, text, seed_of(text)).result(REVIEW_SECONDS)
        except BrokenProcessPool:
            workers = pool(self.processes, renew=workers, role="review")
            return workers.submit(review.analyze, text, seed_of(text)).result(REVIEW_SECONDS)


def reviews() -> Reviews:
    """The app's reviews, made on first use."""
    app = current_app
    found = app.extensions.get("domino-reviews")
    if found is None:
        processes = app.config["REVIEW_PROCESSES"]
        store = tables().rooms.store
        found = app.extensions.setdefault("domino-reviews", Reviews(store, processes))
    return found


def _round(room_id: str, k: int):
    """The room, the viewer's seat and round `k`'s (seq, record text); 404 for the unseated
    or a round that is not recorded."""
    found, seat = seated(room_id)
    if found is None or seat is None:
        abort(404)
    rows = tables().rooms.store.record_rows(room_id)
    if not 0 <= k < len(rows):
        abort(404)
    return found, seat, rows[k]


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
    """Round `k` step by step, every hand shown, and the seat's analysis (or a spinner)."""
    room, seat, (seq, text) = _round(room_id, k)
    record = json.loads(text)
    final = from_record(record)
    step = _step(len(final.moves))
    tv = tables().view(room, seat, live=False)
    body = render_template(
        "review.html",
        k=k,
        room_id=room_id,
        state=review.position(record, final, step),
        step=step,
        steps=len(final.moves),
        final=final,
        seat_label=lambda other: name_of(tv, other).label,
        **_analysis(room, seat, seq, text),
    )
    return body, 200, NO_STORE


@bp.get("/r/<room_id>/review/<int:k>/analysis")
def analysis(room_id: str, k: int):
    """The analysis fragment (htmx polls it): 286 once ready, which stops the polling."""
    room, seat, (seq, text) = _round(room_id, k)
    context = _analysis(room, seat, seq, text)
    body = render_template("partials/review_analysis.html", k=k, room_id=room_id, **context)
    status = STOP_POLLING if context["ready"] else 200
    return body, status, NO_STORE


def _analysis(room, seat: int, seq: int, text: str) -> dict:
    """What the analysis area shows: the rows `seat` may see, or the state of the job."""
    made = reviews().stored(room.id, seq)
    if made is None:
        state = reviews().request(room.id, seq, text)
        return {"ready": False, "busy": state == "busy", "rows": [], "partial": False}
    tv = tables().view(room, seat, live=False)
    shown = [row for row in made["decisions"] if visible(room, seq, seat, row["seat"])]
    rows = [_row(row, tv) for row in shown]
    partial = len(shown) < len(made["decisions"])
    return {"ready": True, "busy": False, "rows": rows, "partial": partial}


def _step(steps: int) -> int:
    """The step asked for (`?step=n`), kept within the round; the end by default."""
    try:
        step = int(request.args.get("step", steps))
    except ValueError:
        step = steps
    return min(max(step, 0), steps)


def visible(room, seq: int, viewer: int, seat: int) -> bool:
    """May `viewer` see the analysis of `seat`'s moves in the round recorded at `seq`? Their
    own always; every seat's in a computer room, or once the room has dealt again."""
    return seat == viewer or room.kind == "computer" or room.dealt_at > seq


def _row(row: dict, tv) -> dict:
    """A decision as the page shows it: names and tiles in words, a sentence if costly."""
    return {
        **row,
        "who": name_of(tv, row["seat"]).label,
        "made": row["made"].split(":")[0],
        "best": row["best"].split(":")[0],
        "made_ev": f"{row['made_ev']:.1f}",
        "best_ev": f"{row['best_ev']:.1f}",
        "reason": row["reason"][0],
        "sentence": sentence(row, tv) if row["costly"] else "",
    }


def sentence(row: dict, tv) -> str:
    """Why a costly move cost what it did, in the page's language."""
    code, details = row["reason"]
    words = {
        "made": row["made"].split(":")[0],
        "best": row["best"].split(":")[0],
        "cost": max(1, round(row["cost"])),
    }
    if code == "leaves-void":
        words["number"] = details["number"]
        if details["seat"] == tv.seat:
            return gettext(
                "%(made)s here cost about %(cost)d points: %(best)s would have left the "
                "%(number)ss open, and you had shown you had none.",
                **words,
            )
        words["who"] = name_of(tv, details["seat"]).inline
        return gettext(
            "%(made)s here cost about %(cost)d points: %(best)s would have left the "
            "%(number)ss open, which %(who)s had shown they lacked.",
            **words,
        )
    if code == "double":
        return gettext(
            "%(made)s here cost about %(cost)d points: %(best)s would have got the double "
            "out while it still fitted.",
            **words,
        )
    if code == "kept-heavy":
        return gettext(
            "%(made)s here cost about %(cost)d points: %(best)s would have shed more pips.",
            **words,
        )
    return gettext(
        "%(made)s here cost about %(cost)d points: %(best)s was the better play.", **words
    )
