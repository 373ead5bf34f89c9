"""Round review pages: a finished round step by step, and its analysis made off the request path.

The first request for a round's review queues one job (web/live/pools.py): the next free slot of the
review pool (web/live/computer.py `pool(role="review")`, processes of their own below the computer's
moves) takes the oldest job of the next client in turn, so one client's many reviews wait behind
each other and never in front of another's. The result is stored (`Store.save_review`) whenever
the pool finishes it, even if every page that asked has gone; later requests serve it. A job not
started is dropped once nobody has asked for it for ABANDONED_SECONDS (the page asks every
second), and each seat and each address may have only a few waiting; the page shows the round's
place in the queue. No request ever waits on the pool; a restart forgets what was waiting and
the next poll asks again.

While a round may still be replayed as a rematch, or its rematch is in play, a seat sees the
analysis of its own moves only: the others' show how to play the hand it may hold next.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from functools import partial

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext

from ...bots.analysis import analyze, position
from ...record import from_record
from ...room import form_number
from ..guard.limits import client_address
from ..live.computer import pool
from ..live.pools import FairQueue, Job
from ..seats import seated, tables
from ..view.names import name_of

bp = Blueprint("review", __name__)
PENDING_CAP = 64  # reviews waiting in all
PER_ADDRESS = 4  # reviews one address may have waiting
PER_SEAT = 2  # and one seat of a room
ABANDONED_SECONDS = 6.0  # a waiting review nobody asked for this long is dropped unstarted
REVIEW_SECONDS = 120  # a review running longer frees its slot (its result is stored when done)
STOP_POLLING = 286  # htmx stops a poll that is answered with this status
log = logging.getLogger(__name__)
NO_STORE = {"Cache-Control": "no-store"}


def seed_of(text: str) -> int:
    """The review's random seed: the low 64 bits of the record's SHA-256."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[-8:], "big")


class Reviews:
    """The reviews of one app: one job per round at most, queued fairly for the review pool."""

    def __init__(self, store, processes: int, clock=time.monotonic) -> None:
        self.store = store
        self.processes = max(processes, 1)
        self.clock = clock
        self.queue = FairQueue(self.processes, PER_ADDRESS, clock=clock)
        self._asked: dict[tuple[str, int], float] = {}  # when a page last asked, by round
        self._lock = threading.Lock()

    def stored(self, room_id: str, seq: int) -> dict | None:
        """The stored review of the round recorded at `seq`, if made."""
        text = self.store.review(room_id, seq)
        return None if text is None else json.loads(text)

    def request(self, room_id: str, seq: int, text: str, seat: int, owner: str):
        """Ask for the round's review: ("running", 0), ("waiting", how many start before
        it), or ("busy", None) when its seat, its address or everyone has enough waiting."""
        key = (room_id, seq)
        now = self.clock()
        with self._lock:
            self._asked[key] = now
            for old in [k for k, at in self._asked.items() if now - at > ABANDONED_SECONDS]:
                del self._asked[old]
        if self.queue.running(key) is not None:
            return "running", 0
        if self.queue.waiting(key) is None:
            waiting = self.queue.jobs()
            mine = sum(1 for job in waiting if job.tag == (room_id, seat))
            if len(waiting) >= PENDING_CAP or mine >= PER_SEAT:
                return "busy", None
            job = Job(
                key,
                owner,
                partial(self._run, key, text),
                wanted=partial(self._wanted, key),
                tag=(room_id, seat),
            )
            if not self.queue.offer(job):
                return "busy", None
        ahead = self.queue.ahead(key)
        return ("running", 0) if ahead is None else ("waiting", ahead)

    def idle(self) -> bool:
        """True when no review waits or runs (for tests)."""
        return not self.queue.busy()

    def _wanted(self, key: tuple[str, int]) -> bool:
        """True while a page has asked for the round lately."""
        asked = self._asked.get(key)
        return asked is not None and self.clock() - asked <= ABANDONED_SECONDS

    def _run(self, key: tuple[str, int], text: str) -> None:
        """Weigh the round in the review pool; its result is stored when the pool is done."""
        workers = pool(self.processes, role="review")
        try:
            future = workers.submit(analyze, text, seed_of(text))
        except BrokenProcessPool:
            workers = pool(self.processes, renew=workers, role="review")
            future = workers.submit(analyze, text, seed_of(text))
        try:
            result = future.result(REVIEW_SECONDS)
        except FutureTimeout:  # the slot goes to the next; this one is stored once it is done
            future.add_done_callback(partial(self._save, key))
            log.warning("the review of room %s round %s took too long; kept for later", *key)
            pool(self.processes, renew=workers, role="review")
            return
        except Exception as error:
            log.warning("the review of room %s round %s failed: %r", *key, error)
            pool(self.processes, renew=workers, role="review")
            return
        self._store(key, result)

    def _save(self, key: tuple[str, int], future) -> None:
        """Store a review that ended after its slot was given up (a failure: one line)."""
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.warning("the review of room %s round %s failed: %r", *key, error)
            return
        self._store(key, future.result())

    def _store(self, key: tuple[str, int], result: dict) -> None:
        try:
            self.store.save_review(*key, json.dumps(result))
        except Exception as problem:  # e.g. the store closed meanwhile
            log.warning("the review of room %s round %s was not stored: %r", *key, problem)


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
    """Round `k` step by step, every hand shown, and the seat's analysis (or a spinner)."""
    room, seat, (seq, text), rows = _round(room_id, k)
    record = json.loads(text)
    final = from_record(record)
    shown = step(len(final.moves))
    tv = tables().view(room, seat, live=False)
    body = render_template(
        "review.html",
        k=k,
        room_id=room_id,
        state=position(record, final, shown),
        step=shown,
        steps=len(final.moves),
        final=final,
        seat_label=lambda other: name_of(tv, other).label,
        **_analysis(room, seat, seq, text, rows),
    )
    return body, 200, NO_STORE


@bp.get("/r/<room_id>/review/<int:k>/analysis")
def analysis(room_id: str, k: int):
    """The analysis fragment (htmx polls it): 286 once ready, which stops the polling."""
    room, seat, (seq, text), rows = _round(room_id, k)
    context = _analysis(room, seat, seq, text, rows)
    body = render_template("partials/review_analysis.html", k=k, room_id=room_id, **context)
    status = STOP_POLLING if context["ready"] else 200
    return body, status, NO_STORE


def _analysis(room, seat: int, seq: int, text: str, rounds) -> dict:
    """What the analysis area shows: the rows `seat` may see, or the state of the job."""
    made = reviews().stored(room.id, seq)
    if made is None:
        state, ahead = reviews().request(room.id, seq, text, seat, client_address())
        place = None if ahead is None or state == "running" else ahead + 1
        return {"ready": False, "job": state, "place": place, "rows": [], "partial": None}
    tv = tables().view(room, seat, live=False)
    hidden = held_back(room, seq, rounds)
    shown = [row for row in made["decisions"] if row["seat"] == seat or hidden is None]
    rows = [_row(row, tv) for row in shown]
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


def step(steps: int) -> int:
    """The step asked for (`?step=n`, ASCII digits), kept within the round; else the end."""
    asked = form_number(request.args.get("step"))
    return steps if asked is None else min(asked, steps)


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
