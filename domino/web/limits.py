"""Rate limits per client address: creating rooms, and acting at a table.

Flask-Limiter with counters in memory (ratestore.py; one process: the limits are per worker).
Configured by

- ``RATELIMIT_ENABLED``: on by default, off for an app in testing mode unless set;
- ``RATELIMIT_CREATE``: creating rooms, with a friend or against the computer, together;
- ``RATELIMIT_ACT``: moves, new-round answers, level switches and joins, together.

A refused request gets 429 with the translated message: an error page, or for htmx the
``#notice`` fragment, like the other refusals.
"""

from __future__ import annotations

import math
import time

from flask import Flask, render_template, request
from flask_limiter import Limiter
from flask_limiter.errors import RateLimitExceeded
from flask_limiter.util import get_remote_address

from . import ratestore  # noqa: F401 (registers the domino-memory:// storage)
from .messages import error_message

CREATE_LIMIT = "20 per minute; 200 per day"
ACT_LIMIT = "120 per minute"
LIMITED = {
    "create": ("RATELIMIT_CREATE", ("pages.create_room", "pages.play_computer")),
    "act": ("RATELIMIT_ACT", ("pages.act", "pages.level", "pages.join")),
}


def init_app(app: Flask) -> Limiter | None:
    """Apply the limits to the app's views (after the pages are registered)."""
    config = app.config
    config.setdefault("RATELIMIT_ENABLED", not app.testing)
    config.setdefault("RATELIMIT_STORAGE_URI", "domino-memory://")
    config.setdefault("RATELIMIT_CREATE", CREATE_LIMIT)
    config.setdefault("RATELIMIT_ACT", ACT_LIMIT)
    if not config["RATELIMIT_ENABLED"]:
        return None
    limiter = Limiter(get_remote_address)
    limiter.init_app(app)
    for scope, (key, endpoints) in LIMITED.items():
        shared = limiter.shared_limit(config[key], scope=scope)
        for endpoint in endpoints:
            app.view_functions[endpoint] = shared(app.view_functions[endpoint])

    @app.errorhandler(RateLimitExceeded)
    def too_many(_error):
        headers = {}
        current = limiter.current_limit
        if current is not None:
            headers["Retry-After"] = str(max(1, math.ceil(current.reset_at - time.time())))
        message = error_message(429)
        if request.headers.get("HX-Request"):
            html = render_template("partials/notice.html", notice=message, alone=True)
        else:
            html = render_template("error.html", message=message)
        return html, 429, headers

    return limiter
