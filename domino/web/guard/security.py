"""What a careful site does: refuse malformed requests early, send protective headers.

- A Host header no URL can be built for (an empty or over-long label, an over-long name, or
  characters no host name has, which Werkzeug reads as no host at all) and
  a websocket handshake without a valid key or version get a 400 page, never a 500.
- Every response carries a Content-Security-Policy (scripts and styles from this site only),
  `Referrer-Policy` and `X-Content-Type-Options`; whatever lies under /r/ (a seat's hand, its
  actions, its records) is never stored by a cache.
- The session cookie (the CSRF token) is `SameSite=Lax`, and `Secure` when the request came
  over HTTPS.
- The error page renders even when the request's host made URL building fail.
"""

from __future__ import annotations

import binascii
import functools
from base64 import b64decode

from flask import Flask, abort, current_app, render_template, request
from flask.globals import request_ctx
from flask.sessions import SecureCookieSessionInterface

from ..view.markup import fallback_page

MAX_HOST = 253  # DNS: a name of at most 253 characters
MAX_LABEL = 63  # made of labels of 1 to 63 characters
WEBSOCKET_VERSION = "13"  # RFC 6455, the only version browsers speak
# Same-origin requests carry the full address, others none: an invitation link never leaves
# the site. Not "no-referrer": over HTTPS, Flask-WTF refuses a POST without a Referer.
REFERRER_POLICY = "same-origin"
PRIVATE_PREFIX = "/r/"  # a room's pages, fragments, actions and records


def host_is_sound(host: str) -> bool:
    """True for a host (with or without port) that a URL can be built for.

    Werkzeug has already replaced a Host header with invalid characters by "". IPv6
    literals are checked by Werkzeug; names must have labels of 1-63 characters (a single
    trailing dot is allowed) and at most 253 characters in all.
    """
    if not host or host.startswith("["):
        return True
    name = host.rpartition(":")[0] if ":" in host else host
    name = name.removesuffix(".")
    if len(name) > MAX_HOST:
        return False
    return all(0 < len(label) <= MAX_LABEL for label in name.split("."))


def handshake_is_sound(headers) -> bool:
    """True if a websocket handshake has version 13 and a key of 16 base64-encoded bytes."""
    if headers.get("Sec-WebSocket-Version", "").strip() != WEBSOCKET_VERSION:
        return False
    try:
        return len(b64decode(headers.get("Sec-WebSocket-Key", "").strip(), validate=True)) == 16
    except (binascii.Error, ValueError):
        return False


def refuse_malformed():
    """Refuse (400) a bad Host header and, on the table's socket, a bad handshake."""
    given = request.headers.get("Host")
    if given is not None and not request.host:  # Werkzeug found characters no host has
        abort(400)
    if not host_is_sound(request.host):
        abort(400)
    if request.endpoint == "sockets.table" and not handshake_is_sound(request.headers):
        abort(400)


def content_security_policy() -> str:
    """The policy: everything from this site only, plus its own websocket; no framing."""
    return _policy(request.host)


@functools.lru_cache(maxsize=64)
def _policy(host: str) -> str:
    """The policy for a request to `host` (worked out once per host)."""
    connect = ["'self'"]
    if host and host_is_sound(host):
        connect += [f"ws://{host}", f"wss://{host}"]
    directives = {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self' data:",
        "connect-src": " ".join(connect),
        "object-src": "'none'",
        "base-uri": "'none'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


def add_headers(response):
    """The protective headers of every response; no caching of anything under /r/."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", content_security_policy())
    headers.setdefault("Referrer-Policy", REFERRER_POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    if request.path.startswith(PRIVATE_PREFIX):  # the path below the script root
        headers["Cache-Control"] = "no-store"
    if request.endpoint == "pages.room":  # a full page, or for htmx the #table fragment
        response.vary.add("HX-Request")
    return response


class SessionCookie(SecureCookieSessionInterface):
    """Flask's signed session cookie, `Secure` whenever the request itself is secure."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return request.is_secure or super().get_cookie_secure(app)


def error_page(message: str, status: int):
    """The error page showing `message`; it renders even when the request's host broke url_for."""
    if request_ctx.url_adapter is None:  # Werkzeug could not bind the URL map to the host
        request_ctx.url_adapter = current_app.url_map.bind(
            "localhost", script_name=request.root_path or "/", url_scheme=request.scheme
        )
    try:
        return render_template("error.html", message=message), status
    except Exception:  # the page must not turn an error into a 500
        current_app.logger.exception("the error page could not be rendered")
        return fallback_page(message), status


def init_app(app: Flask) -> None:
    """Check requests before anything else sees them, and add the headers to every answer."""
    if app.config.get("SESSION_COOKIE_SAMESITE") is None:  # Flask's default: no SameSite
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.session_interface = SessionCookie()
    app.before_request_funcs.setdefault(None, []).insert(0, refuse_malformed)
    app.after_request(add_headers)
