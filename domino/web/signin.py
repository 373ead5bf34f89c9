"""Who is signed in (SPEC §11): the two cookies of a player's browser, shared by the routes.

- `domino_session` holds the session's random secret; the lobby keeps only its hash
  (domino/lobby/accounts.py). Only the lobby reads it: `session()` looks it up.
- `domino_player` is signed with the shared secret key and carries the player's id and name,
  for display only: any shard verifies it without the lobby's database (`player()`), and the
  lobby signs it afresh whenever it has checked the session behind it (`sign_in`), so a shard's
  page shows the name a session that ended elsewhere had for at most PLAYER_COOKIE_SECONDS.

Both are HttpOnly, `SameSite=Lax`, `Secure` over HTTPS, under the app's script root. Routes
import these helpers, never each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort, current_app, g, make_response, redirect, request
from itsdangerous import BadSignature, URLSafeTimedSerializer

from ..lobby import Lobby, Player, Session
from ..lobby.accounts import SESSION_SECONDS

SESSION_COOKIE = "domino_session"
PLAYER_COOKIE = "domino_player"
PLAYER_COOKIE_SECONDS = 24 * 3600  # the lobby re-signs it on every page (the player bar)
SALT = "domino-player"


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A signed-in browser as a shard knows it: the player's id and name (display only)."""

    id: str
    name: str


def lobby() -> Lobby | None:
    """The lobby's database in this process (None on a shard of a cluster: it has none)."""
    return current_app.extensions.get("lobby")


def the_lobby() -> Lobby:
    """The lobby's database for a lobby path; 404 on a shard of a cluster, where nginx sends
    those paths to the lobby's process and none should arrive."""
    store = lobby()
    if store is None:
        abort(404)
    return store


def own_session() -> tuple[Session, Player]:
    """This browser's live session and its player, or the refusal (403) of what needs them."""
    found = session()
    if found is None:
        abort(403)
    return found


def go(target: str):
    """Send the browser to `target` after a form: a 303, or for htmx its HX-Redirect."""
    if request.headers.get("HX-Request"):
        return make_response("", 200, {"HX-Redirect": target})
    return redirect(target, 303)


def _signer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=SALT)


def player() -> SignedIn | None:
    """Who this browser's signed player cookie names, verified with the secret key; None for
    no cookie, a forged one or one older than PLAYER_COOKIE_SECONDS."""
    if "signed_in" in g:
        return g.signed_in
    found = None
    raw = request.cookies.get(PLAYER_COOKIE)
    if raw:
        try:
            data = _signer().loads(raw, max_age=PLAYER_COOKIE_SECONDS)
            found = SignedIn(str(data["id"]), str(data["name"]))
        except (BadSignature, KeyError, TypeError):
            found = None
    g.signed_in = found
    return found


def who() -> SignedIn | None:
    """The player this browser plays as: with the lobby in this process, its session checked
    there; on a shard of a cluster (no lobby here), the signed player cookie."""
    if lobby() is not None:
        found = session()
        return SignedIn(found[1].id, found[1].name) if found else None
    return player()


def session() -> tuple[Session, Player] | None:
    """This browser's live session and its player, checked against the lobby's database;
    None without one (no cookie, an ended or expired session, a deleted account)."""
    if "lobby_session" in g:
        return g.lobby_session
    found = None
    secret = request.cookies.get(SESSION_COOKIE)
    store = lobby()
    if secret and store is not None and len(secret) < 200:
        live = store.session(secret)
        if live is not None:
            who = store.player(live.player)
            found = (live, who) if who is not None else None
    g.lobby_session = found
    return found


def cookie_options() -> dict:
    return {
        "path": request.script_root or "/",
        "httponly": True,
        "samesite": "Lax",
        "secure": request.is_secure,
    }


def sign_in(response, who: Player, secret: str | None = None):
    """Set the signed player cookie for `who` (and, with `secret`, the session cookie)."""
    options = cookie_options()
    if secret is not None:
        response.set_cookie(SESSION_COOKIE, secret, max_age=SESSION_SECONDS, **options)
    signed = _signer().dumps({"id": who.id, "name": who.name})
    response.set_cookie(PLAYER_COOKIE, signed, max_age=PLAYER_COOKIE_SECONDS, **options)
    return response


def sign_out(response):
    """Forget this browser's player: both cookies are deleted."""
    options = cookie_options()
    del options["httponly"], options["samesite"]
    for name in (SESSION_COOKIE, PLAYER_COOKIE):
        response.delete_cookie(name, path=options["path"], secure=options["secure"])
    return response


BROWSERS = (("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
)


def browser_label() -> str:
    """This browser in two words for the session list ("Firefox · Linux"): the first known
    browser and system its User-Agent names (a list, not a parser: nothing more is shown)."""
    agent = request.headers.get("User-Agent", "")
    words = [
        next((name for mark, name in BROWSERS if mark in agent), ""),
        next((name for mark, name in SYSTEMS if mark in agent), ""),
    ]
    return " · ".join(word for word in words if word)
