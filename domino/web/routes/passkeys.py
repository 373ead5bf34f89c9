"""Passkeys and recovery codes (SPEC §11, hooks §14): adding, naming and removing a player's
passkeys, and signing in with one or with a recovery code. These are lobby paths (under /me/):
in a cluster nginx sends them to the lobby's process.

A ceremony is two requests: its options (a challenge, stored in the lobby) and its answer.
The challenge's id is kept in this browser's signed session cookie (`flask.session`) between
the two and taken from the lobby once, so a challenge answers one browser's one ceremony:
used twice, sent by another browser or older than five minutes, it is refused. The options
and answers are JSON (static/passkeys.js sends them with the CSRF token in X-CSRFToken);
renaming, removing and recovery codes are forms.
"""

from __future__ import annotations

import binascii
import logging
import unicodedata

from flask import (
    Blueprint,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask import session as browser
from flask_babel import gettext
from webauthn import base64url_to_bytes
from webauthn.helpers import bytes_to_base64url

from ...lobby import LastPasskey
from ...lobby.ceremonies import (
    CeremonyRefused,
    begin_registration,
    begin_sign_in,
    finish_registration,
    finish_sign_in,
    relying_party,
)
from ..signin import browser_label, lobby, session, sign_in, the_lobby
from ..view.messages import refusal, status_of

bp = Blueprint("passkeys", __name__)
log = logging.getLogger(__name__)
REGISTERING = "passkey_register"  # the session cookie's key for the challenge being answered
SIGNING_IN = "passkey_sign_in"
MAX_NAME = 40  # characters of a passkey's name
MAX_CODE = 64  # characters of a typed recovery code (a real one has 14)
MAX_ID = 1400  # characters of a credential id in base64url (at most 1023 bytes)
NO_STORE = {"Cache-Control": "no-store"}


def _rp():
    """The relying party of this request: DOMINO_ORIGIN, else its own scheme and host."""
    return relying_party(current_app.config.get("ORIGIN"), request.scheme, request.host)


def _json_refusal(code: str):
    """A refused ceremony: the sentence to show, as JSON, and the refusal's status."""
    return {"error": refusal(code), "code": code}, status_of(code), NO_STORE


def _options(options_json: str):
    response = make_response(options_json, 200, NO_STORE)
    response.mimetype = "application/json"
    return response


def _credential():
    """The credential a ceremony's answer carries (JSON: {"credential": {...}, ...})."""
    body = request.get_json(silent=True)
    return body.get("credential") if isinstance(body, dict) else None


def _go(target: str):
    """Send the browser to `target`: a redirect, or for htmx its HX-Redirect."""
    if request.headers.get("HX-Request"):
        return make_response("", 200, {"HX-Redirect": target})
    return redirect(target, 303)


@bp.app_context_processor
def passkey_context():
    """`passkey_part(player_id)`: what the own player page shows of passkeys (its partial
    calls it; the players' route passes nothing of them)."""

    def passkey_part(player_id: str) -> dict:
        store = lobby()
        if store is None:
            return {"keys": [], "codes_left": 0}
        keys = store.passkeys(player_id)
        return {
            "keys": [(bytes_to_base64url(key.credential_id), key) for key in keys],
            "codes_left": store.recovery_codes_left(player_id),
        }

    return {"passkey_part": passkey_part}


# --- a player's passkeys ------------------------------------------------------------------


@bp.post("/me/passkeys/options")
def register_options():
    """The options of navigator.credentials.create() for this player's next passkey."""
    store = the_lobby()
    found = session()
    if found is None:
        return _json_refusal("not-signed-in")
    challenge, options = begin_registration(store, _rp(), found[1])
    browser[REGISTERING] = challenge.id
    return _options(options)


@bp.post("/me/passkeys")
def register():
    """Verify the new credential and keep it as the player's passkey. The first one also
    makes the ten recovery codes, shown once in the answer; later ones answer the list."""
    store = the_lobby()
    found = session()
    challenge_id = browser.pop(REGISTERING, None)  # spent, whatever comes of it
    if found is None:
        return _json_refusal("not-signed-in")
    who = found[1]
    first = not store.passkeys(who.id)
    body = request.get_json(silent=True)
    name = _passkey_name(body.get("name") if isinstance(body, dict) else None)
    if name is None:
        name = browser_label() or _numbered_name(len(store.passkeys(who.id)) + 1)
    try:
        finish_registration(store, _rp(), challenge_id, who, _credential(), name)
    except CeremonyRefused as refused:
        log.info("a passkey was refused for a player: %s", refused.code)
        return _json_refusal(refused.code)
    if first:
        codes = store.new_recovery_codes(who.id)
        html = render_template("partials/recovery_codes.html", codes=codes, shown=who)
        return html, 201, NO_STORE
    return render_template("partials/passkeys.html", shown=who), 201, NO_STORE


def _numbered_name(number: int) -> str:
    """A passkey's name when the browser gave none to go by: "Passkey 2"."""
    return gettext("Passkey %(number)s", number=number)


def _passkey_name(typed) -> str | None:
    """A passkey's name as typed, its spaces collapsed; None if it is not 1 to MAX_NAME
    visible characters."""
    if not isinstance(typed, str) or len(typed) > 4 * MAX_NAME:
        return None
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in typed):
        return None  # invisible: control characters, direction marks, unassigned
    name = " ".join(typed.split())
    return name if 0 < len(name) <= MAX_NAME else None


def _credential_id(encoded: str) -> bytes | None:
    if len(encoded) > MAX_ID:
        return None
    try:
        return base64url_to_bytes(encoded)
    except (binascii.Error, ValueError):
        return None


def _own_page(code: str):
    """The own player page again, saying why a passkey's change was refused."""
    found = session()
    live, who = found
    html = render_template(
        "player.html",
        shown=who,
        own=True,
        sessions=the_lobby().sessions(who.id),
        current=live.id,
        passkey_error=refusal(code),
    )
    return html, status_of(code), NO_STORE


@bp.post("/me/passkeys/<encoded>/rename")
def rename(encoded: str):
    """Rename one of this player's passkeys."""
    store = the_lobby()
    found = session()
    if found is None:
        abort(403)
    who = found[1]
    name = _passkey_name(request.form.get("name"))
    if name is None:
        return _own_page("passkey-name")
    credential_id = _credential_id(encoded)
    if credential_id is None or not store.rename_passkey(who.id, credential_id, name):
        return _own_page("no-passkey")
    return _go(url_for("players.page", name=who.name))


@bp.post("/me/passkeys/<encoded>/remove")
def remove(encoded: str):
    """Remove one of this player's passkeys; never the last one while no code is left."""
    store = the_lobby()
    found = session()
    if found is None:
        abort(403)
    who = found[1]
    credential_id = _credential_id(encoded)
    try:
        removed = credential_id is not None and store.remove_passkey(who.id, credential_id)
    except LastPasskey:
        return _own_page("passkey-last")
    if not removed:
        return _own_page("no-passkey")
    return _go(url_for("players.page", name=who.name))


# --- signing in ---------------------------------------------------------------------------


@bp.post("/me/sign-in/options")
def sign_in_options():
    """The options of navigator.credentials.get(): any passkey of this site may answer."""
    store = the_lobby()
    if session() is not None:
        return _json_refusal("signed-in-already")
    challenge, options = begin_sign_in(store, _rp())
    browser[SIGNING_IN] = challenge.id
    return _options(options)


@bp.post("/me/sign-in", endpoint="sign_in")
def sign_in_with_passkey():
    """Verify the assertion; its player is signed in on this browser (a new session)."""
    store = the_lobby()
    challenge_id = browser.pop(SIGNING_IN, None)  # spent, whatever comes of it
    if session() is not None:
        return _json_refusal("signed-in-already")
    try:
        who = finish_sign_in(store, _rp(), challenge_id, _credential())
    except CeremonyRefused as refused:
        log.info("a passkey sign-in was refused: %s", refused.code)
        return _json_refusal(refused.code)
    secret, _ = store.new_session(who.id, browser_label())
    response = make_response({"go": url_for("pages.home")}, 200, NO_STORE)
    return sign_in(response, who, secret)


@bp.post("/me/recover")
def recover():
    """Sign in with a recovery code: its player gets a new session here, the code is spent."""
    store = the_lobby()
    typed = request.form.get("code", "")
    if session() is not None:
        return _recover_refused("signed-in-already")
    who = None
    if 0 < len(typed) <= MAX_CODE:
        player_id = store.spend_any_recovery_code(typed)
        who = store.player(player_id) if player_id is not None else None
    if who is None:
        log.info("a recovery code was refused")
        return _recover_refused("recovery-code-wrong")
    secret, _ = store.new_session(who.id, browser_label())
    return sign_in(_go(url_for("pages.home")), who, secret)


def _recover_refused(code: str):
    """The recovery form again, saying why (htmx swaps the form; without it, a page). The
    rate limit's refusal is drawn the same way (web/guard/limits.py)."""
    page = "partials/recovery_form.html" if request.headers.get("HX-Request") else "sign_in.html"
    return render_template(page, recover_error=refusal(code)), status_of(code), NO_STORE
