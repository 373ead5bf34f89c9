"""Rate limits: per seat at a table, per client address for creating rooms and joining.

Flask-Limiter with counters in memory (ratestore.py; one process: the limits are per worker).
Configured by

- ``RATELIMIT_ENABLED``: on by default, off for an app in testing mode unless set;
- ``RATELIMIT_CREATE``: creating rooms, with a friend or against the computer, together, per
  client address;
- ``RATELIMIT_JOIN``: taking a seat from an invitation, per client address (the joiner has no
  seat yet);
- ``RATELIMIT_ACT``: moves, new-round answers, level switches, seats given or handed to the
  computer and display names, together, per seat (a press of "Draw until I can play" is one
  request, however many tiles it draws);
- ``RATELIMIT_RECORD``: round-record downloads, per seat;
- ``RATELIMIT_REVIEW``: round-review pages and their analysis polls (one a second while a
  review is made), together, per seat.

A seat is known by its cookie, so players behind one NAT, school or mobile carrier each keep
their own budget, and a seat keeps its budget when its address changes. Only a cookie that
holds a seat of the room asked for counts as one (a made-up cookie would be a fresh budget);
anything else is counted by its address. A client address is ``request.remote_addr`` (already
corrected by ProxyFix behind a proxy); IPv6 addresses count by their /64, the block one
subscriber usually gets.

A refused request gets 429, a ``Retry-After`` header and the translated message: an error
page, or for htmx the ``#notice`` fragment, like the other refusals. A refused join instead
shows the message and a button that posts the join again.
"""

from __future__ import annotations

import math
import time

from flask import Flask, g, render_template, request
from flask_limiter import Limiter
from flask_limiter.errors import RateLimitExceeded
from flask_limiter.util import get_remote_address

from ..addresses import subscriber
from . import ratestore  # noqa: F401 (registers the domino-memory:// storage)
from .messages import error_message
from .pages import seated

CREATE_LIMIT = "20 per minute; 200 per day"
JOIN_LIMIT = "60 per minute"
ACT_LIMIT = "120 per minute"
RECORD_LIMIT = "30 per minute"
REVIEW_LIMIT = "150 per minute"
JOIN = "pages.join"


def client_address() -> str:
    """The client's address as a budget key: IPv4 as is, IPv6 by its /64 network."""
    address = get_remote_address()
    return subscriber(address) or address


def seat_key() -> str:
    """The budget key of the seat this request's cookie holds in its room, else the address's.

    Worked out once per request (Flask-Limiter asks for it twice). The key names the room and
    the seat, and nothing of the secret that holds it.
    """
    key = g.get("rate_key")
    if key is None:
        key = g.rate_key = _seat_key() or client_address()
    return key


def _seat_key() -> str | None:
    """The seat's key, or None when the request holds no seat of the room in its URL."""
    room_id = (request.view_args or {}).get("room_id")
    if not room_id:
        return None
    seat = seated(room_id)[1]
    return None if seat is None else f"seat:{room_id}:{seat}"


# scope: (setting, budget key, the endpoints that share the budget)
LIMITED = {
    "create": ("RATELIMIT_CREATE", client_address, ("pages.create_room", "pages.play_computer")),
    "join": ("RATELIMIT_JOIN", client_address, (JOIN,)),
    "act": (
        "RATELIMIT_ACT",
        seat_key,
        ("pages.act", "pages.level", "seating.computer", "seating.name"),
    ),
    "record": ("RATELIMIT_RECORD", seat_key, ("pages.record",)),
    "review": ("RATELIMIT_REVIEW", seat_key, ("review.latest", "review.page", "review.analysis")),
}
DEFAULTS = {
    "RATELIMIT_CREATE": CREATE_LIMIT,
    "RATELIMIT_JOIN": JOIN_LIMIT,
    "RATELIMIT_ACT": ACT_LIMIT,
    "RATELIMIT_RECORD": RECORD_LIMIT,
    "RATELIMIT_REVIEW": REVIEW_LIMIT,
}


def init_app(app: Flask) -> Limiter | None:
    """Apply the limits to the app's views (after the pages are registered)."""
    config = app.config
    config.setdefault("RATELIMIT_ENABLED", not app.testing)
    config.setdefault("RATELIMIT_STORAGE_URI", "domino-memory://")
    for setting, value in DEFAULTS.items():
        config.setdefault(setting, value)
    if not config["RATELIMIT_ENABLED"]:
        return None
    limiter = Limiter(client_address)
    limiter.init_app(app)
    for scope, (setting, key, endpoints) in LIMITED.items():
        shared = limiter.shared_limit(config[setting], scope=scope, key_func=key)
        for endpoint in endpoints:
            app.view_functions[endpoint] = shared(app.view_functions[endpoint])

    @app.errorhandler(RateLimitExceeded)
    def too_many(_error):
        headers = {}
        current = limiter.current_limit
        if current is not None:
            headers["Retry-After"] = str(max(1, math.ceil(current.reset_at - time.time())))
        return _refusal(error_message(429)), 429, headers

    return limiter


def _refusal(message: str) -> str:
    """The refusal's page or fragment; a refused join offers to try again."""
    htmx = bool(request.headers.get("HX-Request"))
    if request.endpoint == JOIN:
        room_id = request.view_args["room_id"]
        if htmx:  # swapped into the join form, in place of its content
            return render_template("partials/join_refused.html", room_id=room_id, refused=message)
        return render_template("join.html", room_id=room_id, refused=message)
    if htmx:
        return render_template("partials/notice.html", notice=message, alone=True)
    return render_template("error.html", message=message)
