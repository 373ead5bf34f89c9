"""Rate limits: per seat at a table, per client address for creating rooms and joining.

The `limits` package, used directly: each limit string is parsed once when the app starts, and
one fixed-window limiter counts in this process's memory (ratestore.py; one process: the limits
are per worker). A limited request is checked once, before its view, by one ``before_request``
hook that looks its endpoint up in a table; other requests pay one dictionary lookup.
Configured by

- ``RATELIMIT_ENABLED``: on by default, off for an app in testing mode unless set;
- ``RATELIMIT_CREATE``: creating rooms, with a friend or against the computer, together, per
  client address;
- ``RATELIMIT_DEAL``: fresh hands a player could look at and throw away, to fish for a better
  one: rooms created against the computer, a free seat given to the computer that fills the
  table, and a new round or match that deals at once in place of a round in play (the one
  person against the computer, or the last word asked for: `domino.actions.redeals`),
  together, per client address (a new room has no seat yet, and a seat is easily had anew).
  These requests also count against their own scope above. A new round after a round is over
  is not counted: nothing is thrown away;
- ``RATELIMIT_JOIN``: taking a seat from an invitation, per client address (the joiner has no
  seat yet);
- ``RATELIMIT_ACT``: moves, new-round answers, level switches, seats given or handed to the
  computer and display names, together, per seat (a press of "Draw until I can play" is one
  request, however many tiles it draws);
- ``RATELIMIT_RECORD``: round-record downloads, per seat;
- ``RATELIMIT_REVIEW``: round-review pages and their analysis polls (one a second while a
  review is made), together, per seat;
- ``RATELIMIT_NAME``: taking a player's name, per client address (SPEC §11: one form, no
  account yet, so nothing else to count by);
- ``RATELIMIT_INVITE``: invitations by name sent from a table (SPEC §11), per signed-in
  player (their signed cookie), else per client address;
- ``RATELIMIT_SIGN_IN``: signing in, with a passkey (its options and its answer) or with a
  recovery code, together, per client address (nobody is signed in yet: recovery codes are
  not guessed faster than this);
- ``RATELIMIT_STORAGE_URI``: where the counters live (``domino-memory://``);
- ``RATELIMIT_HEADERS_ENABLED``: off by default; on, a limited answer carries
  ``X-RateLimit-Limit``, ``X-RateLimit-Remaining``, ``X-RateLimit-Reset`` and ``Retry-After``.

A limit is a `limits` string such as ``"20 per minute; 200 per day"``. One of these not set
in the app's config is read from the environment, as ``DOMINO_`` and its name
(``DOMINO_RATELIMIT_ACT="100000 per minute"``: a bench keeps the limits on, too high to
refuse), else it is the default below. Every limit of a string is checked, the shortest
window first, and the first one exceeded refuses the request, as Flask-Limiter did: a request
counts against each limit up to the one that refused it (a fixed window counts refusals too)
and not against the longer ones after it.

A seat is known by its cookie, so players behind one NAT, school or mobile carrier each keep
their own budget, and a seat keeps its budget when its address changes. Only a cookie that
holds a seat of the room asked for counts as one (a made-up cookie would be a fresh budget);
anything else is counted by its address. A client address is ``request.remote_addr`` (already
corrected by ProxyFix behind a proxy); IPv6 addresses count by their /64, the block one
subscriber usually gets.

A refused request gets 429, a ``Retry-After`` header and the translated message: an error
page, or for htmx the ``#notice`` fragment, like the other refusals (a refused deal says why).
A refused join instead shows the message and a button that posts the join again.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, g, has_request_context, render_template, request
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from ...actions import fills, redeals
from ...addresses import subscriber
from ...room import RoomError, seat_number
from ..seats import seated
from ..signin import player
from ..view.messages import error_message, refusal
from . import ratestore  # noqa: F401 (registers the domino-memory:// storage)

CREATE_LIMIT = "20 per minute; 200 per day"
JOIN_LIMIT = "60 per minute"
ACT_LIMIT = "120 per minute"
RECORD_LIMIT = "30 per minute"
REVIEW_LIMIT = "150 per minute"
# A few fresh hands a minute, and not many more an hour: picking the best of them is not worth
# the wait (a round over is followed by a new one outside this budget).
DEAL_LIMIT = "3 per minute; 20 per hour"
NAME_LIMIT = "10 per minute; 30 per day"  # a person takes a name or two, a script many
INVITE_LIMIT = "20 per minute; 200 per day"  # invitations by name, sent or refused
SIGN_IN_LIMIT = "10 per minute; 100 per day"  # a person signs in now and then; a guesser more
RECOVER = "passkeys.recover"
SIGN_IN = ("passkeys.sign_in_options", "passkeys.sign_in", RECOVER)
JOIN = "pages.join"
TAKE_NAME = "players.take_name"
ENVIRONMENT_PREFIX = "DOMINO_"


def client_address() -> str:
    """The client's address as a budget key: IPv4 as is, IPv6 by its /64 network."""
    address = request.remote_addr or "127.0.0.1"
    return subscriber(address) or address


def requester() -> str | None:
    """The client address of the request being served (as `client_address`), None outside
    one: whose the computer's decisions are (web/live/computer.py)."""
    return client_address() if has_request_context() else None


def seat_key() -> str:
    """The budget key of the seat this request's cookie holds in its room, else the address's.

    The key names the room and the seat, and nothing of the secret that holds it.
    """
    return _seat_key() or client_address()


def _seat_key() -> str | None:
    """The seat's key, or None when the request holds no seat of the room in its URL."""
    room_id = (request.view_args or {}).get("room_id")
    if not room_id:
        return None
    seat = seated(room_id)[1]
    return None if seat is None else f"seat:{room_id}:{seat}"


def player_key() -> str:
    """The budget key of the signed-in player (their signed cookie's id), else the address's."""
    who = player()
    return f"player:{who.id}" if who is not None else client_address()


def deals_afresh() -> bool:
    """True when this request would deal a fresh hand that its player could throw away to
    fish for a better one (RATELIMIT_DEAL): a room against the computer, the last free seat
    given to the computer, a new round or match dealt at once mid-round."""
    if request.endpoint == "pages.play_computer":
        return True
    room_id = (request.view_args or {}).get("room_id")
    room, seat = seated(room_id) if room_id else (None, None)
    if room is None or seat is None:
        return False
    if request.endpoint == "pages.act":
        return redeals(room, seat, request.view_args.get("action", ""))
    try:
        given = seat_number(request.form.get("seat"), room.rules.seats)
    except RoomError:
        return False  # refused by the view
    return seat == 0 and fills(room, given)


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
    "name": ("RATELIMIT_NAME", client_address, (TAKE_NAME,)),
    "invite": ("RATELIMIT_INVITE", player_key, ("friends.invite",)),
    "sign-in": ("RATELIMIT_SIGN_IN", client_address, SIGN_IN),
}
# scope: (setting, budget key, the endpoints it may count, which of their requests it counts,
# the refusal's message); checked after the endpoint's own scope in LIMITED
SOMETIMES = {
    "deal": (
        "RATELIMIT_DEAL",
        client_address,
        ("pages.play_computer", "pages.act", "seating.computer"),
        deals_afresh,
        lambda: refusal("too-many-deals"),
    ),
}
DEFAULTS = {
    "RATELIMIT_CREATE": CREATE_LIMIT,
    "RATELIMIT_JOIN": JOIN_LIMIT,
    "RATELIMIT_ACT": ACT_LIMIT,
    "RATELIMIT_RECORD": RECORD_LIMIT,
    "RATELIMIT_REVIEW": REVIEW_LIMIT,
    "RATELIMIT_DEAL": DEAL_LIMIT,
    "RATELIMIT_NAME": NAME_LIMIT,
    "RATELIMIT_INVITE": INVITE_LIMIT,
    "RATELIMIT_SIGN_IN": SIGN_IN_LIMIT,
}


@dataclass(frozen=True)
class Scope:
    """A budget shared by some endpoints: its name, its limits (shortest window first), its key;
    `counts` picks the requests it counts (all by default), `message` words its refusal."""

    name: str
    items: tuple[RateLimitItem, ...]
    key: Callable[[], str]
    counts: Callable[[], bool] = lambda: True
    message: Callable[[], str] = lambda: error_message(429)


class Limiter:
    """The app's limits: the scope of each limited endpoint and one limiter over the counters."""

    def __init__(self, config) -> None:
        self.storage = storage_from_string(config["RATELIMIT_STORAGE_URI"])
        self.limiter = FixedWindowRateLimiter(self.storage)
        self.headers = bool(config.get("RATELIMIT_HEADERS_ENABLED"))
        self.scopes: dict[str, Scope] = {}  # each limited endpoint's own scope
        self.sometimes: dict[str, list[Scope]] = {}  # scopes that count some of its requests
        for name, (setting, key, endpoints) in LIMITED.items():
            scope = Scope(name, tuple(sorted(parse_many(config[setting]))), key)
            self.scopes.update(dict.fromkeys(endpoints, scope))
        for name, (setting, key, endpoints, counts, message) in SOMETIMES.items():
            scope = Scope(name, tuple(sorted(parse_many(config[setting]))), key, counts, message)
            for endpoint in endpoints:
                self.sometimes.setdefault(endpoint, []).append(scope)

    def check(self):
        """Count this request against its scopes' limits: None, or the refusal if one is spent."""
        scope = self.scopes.get(request.endpoint)
        if scope is None:
            return None
        key = scope.key()
        refused = self.spend(scope, key)
        if refused is None and self.headers:
            g.rate_limit = (scope.items[0], key, scope.name)
        for other in self.sometimes.get(request.endpoint, ()):
            if refused is None and other.counts():
                refused = self.spend(other, other.key())
        return refused

    def spend(self, scope: Scope, key: str):
        """Count this request against `scope`'s limits: None, or the refusal if one is spent."""
        for item in scope.items:
            if not self.limiter.hit(item, key, scope.name):
                return self.refuse(item, key, scope)
        return None

    def refuse(self, item: RateLimitItem, key: str, scope: Scope):
        """The 429 answer, with the seconds until the spent limit's window ends."""
        if self.headers:
            g.rate_limit = (item, key, scope.name)
        wait = max(1, math.ceil(self.reset_at(item, key, scope.name) - time.time()))
        return _refusal(scope.message()), 429, {"Retry-After": str(wait)}

    def reset_at(self, item: RateLimitItem, *identifiers: str) -> int:
        """When the limit's window ends, in whole seconds since the epoch (as Flask-Limiter)."""
        return int(self.limiter.get_window_stats(item, *identifiers).reset_time + 1)

    def add_headers(self, response):
        """The X-RateLimit-* headers of the request's limit (with RATELIMIT_HEADERS_ENABLED)."""
        limit = g.get("rate_limit")
        if limit is not None:
            item, *identifiers = limit
            remaining = self.limiter.get_window_stats(item, *identifiers).remaining
            reset = self.reset_at(item, *identifiers)
            response.headers["X-RateLimit-Limit"] = str(item.amount)
            response.headers["X-RateLimit-Remaining"] = str(remaining)
            response.headers["X-RateLimit-Reset"] = str(reset)
            response.headers.setdefault("Retry-After", str(max(0, int(reset - time.time()))))
        return response


def init_app(app: Flask) -> Limiter | None:
    """Check the limited views' requests before them (after the pages are registered)."""
    config = app.config
    config.setdefault("RATELIMIT_ENABLED", not app.testing)
    config.setdefault("RATELIMIT_STORAGE_URI", "domino-memory://")
    for setting, value in DEFAULTS.items():
        config.setdefault(setting, os.environ.get(ENVIRONMENT_PREFIX + setting) or value)
    if not config["RATELIMIT_ENABLED"]:
        return None
    limiter = Limiter(config)
    app.extensions["limiter"] = limiter
    app.before_request(limiter.check)  # after CSRF's check, as the decorators were
    if limiter.headers:
        app.after_request(limiter.add_headers)
    return limiter


def _refusal(message: str) -> str:
    """The refusal's page or fragment; a refused join offers to try again."""
    htmx = bool(request.headers.get("HX-Request"))
    if request.endpoint == JOIN:
        room_id = request.view_args["room_id"]
        if htmx:  # swapped into the join form, in place of its content
            return render_template("partials/join_refused.html", room_id=room_id, refused=message)
        return render_template("join.html", room_id=room_id, refused=message)
    if request.endpoint == TAKE_NAME:  # the form again, saying why (htmx swaps the form)
        typed = request.form.get("name", "")[:60]
        page = "partials/name_form.html" if htmx else "name.html"
        return render_template(page, typed=typed, error=message)
    if request.endpoint == RECOVER:  # the recovery form again, saying why
        page = "partials/recovery_form.html" if htmx else "sign_in.html"
        return render_template(page, recover_error=message)
    if request.is_json:  # a passkey's ceremony (static/passkeys.js shows the sentence)
        return {"error": message}
    if htmx:
        return render_template("partials/notice.html", notice=message, alone=True)
    return render_template("error.html", message=message)
