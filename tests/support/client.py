"""The one browser that speaks real HTTP to a running server (a live server in a thread, a
gunicorn worker, a cluster behind nginx): its own cookie jar, and what a room page tells it.

The web tests' browser is `webkit.Table`, on Flask's test client; this one is for servers on
a port (tests/live/, tests/infra/, bench/faults.py).
"""

from __future__ import annotations

import html
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from typing import NamedTuple


class Reply(NamedTuple):
    """An HTTP answer: `reply.status`, or `status, text, url = reply`."""

    status: int
    text: str
    url: str


class Browser:
    """One browser: its own cookie jar, speaking HTTP to the server at `base`."""

    def __init__(self, base: str, timeout: float = 10.0) -> None:
        self.base = base
        self.timeout = timeout
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, path: str, form: dict | None = None, headers: dict | None = None) -> Reply:
        """GET `path`, or POST `form` to it; an HTTP error is an answer like any other."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        req = urllib.request.Request(self.base + path, data=data, headers=headers or {})
        try:
            with self.opener.open(req, timeout=self.timeout) as response:
                return Reply(response.status, response.read().decode(), response.url)
        except urllib.error.HTTPError as error:
            with error:
                return Reply(error.code, error.read().decode(), error.url)

    def cookie(self, name: str) -> str:
        values = [c.value for c in self.jar if c.name == name]
        assert len(values) == 1, f"expected one {name!r} cookie, have {len(values)}"
        return values[0]


def csrf_field(page: str) -> str:
    """The CSRF token of the page's first form."""
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, "no csrf_token field on the page"
    return match.group(1)


def page_headers(page: str) -> tuple[str, str]:
    """A room page's tab and CSRF token, as htmx sends them (`hx-headers` on <body>)."""
    match = re.search(r"hx-headers='([^']*)'", page)
    assert match, "the room page has no hx-headers on <body>"
    headers = json.loads(html.unescape(match.group(1)))
    return headers["X-Tab"], headers["X-CSRFToken"]
