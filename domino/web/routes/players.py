"""A player's own pages (SPEC §11): taking a name, the player bar, the player page with its
sessions, signing out and deleting the account. These are the lobby's paths: in a cluster
nginx sends them to the lobby's process (docs/cluster.md)."""

from __future__ import annotations

from flask import Blueprint, make_response, render_template, request, url_for

from ...lobby import NameTaken
from ...players import names
from ..signin import (
    browser_label,
    go,
    lobby,
    own_session,
    player,
    session,
    sign_in,
    sign_out,
    the_lobby,
)
from ..view.messages import refusal, status_of
from ..view.names import reserved_words

bp = Blueprint("players", __name__)


@bp.post("/me/name")
def take_name():
    """Take a name: the browser becomes that player, signed in (SPEC §11)."""
    store = the_lobby()
    typed = request.form.get("name", "")
    if session() is not None:
        return _name_refused(typed, "name-signed-in")
    try:
        name = names.check(typed, reserved=reserved_words())
        who, secret, _ = store.take_name(name, browser_label())
    except names.NameRefused as refused:
        return _name_refused(typed, refused.code)
    except NameTaken:
        return _name_refused(typed, "name-taken")
    return sign_in(go(url_for("pages.home")), who, secret)


def _name_refused(typed: str, code: str):
    """The name form again, the name as typed, saying why it was refused."""
    template = "partials/name_form.html" if request.headers.get("HX-Request") else "name.html"
    page = render_template(template, typed=typed[:60], error=refusal(code))
    return page, status_of(code)


@bp.get("/me/bar")
def bar():
    """The player bar, checked against the session: it re-signs the player cookie, or, for
    a session that ended (elsewhere, or with its account), signs the browser out."""
    found = session() if lobby() is not None else None
    html = render_template("partials/player_bar.html", signed_in=found[1] if found else None)
    response = make_response(html, 200, {"Cache-Control": "no-store"})
    if found is None:
        return sign_out(response) if lobby() is not None else response
    return sign_in(response, found[1])


@bp.get("/p/<name>")
def page(name: str):
    """A player's page: their name; to the player alone, their sessions (SPEC §11)."""
    store = the_lobby()
    shown = store.player_named(name) if len(name) <= 60 else None
    if shown is None:
        return render_template("missing_player.html"), 404
    mine = session()
    own = mine is not None and mine[1].id == shown.id
    sessions = store.sessions(shown.id) if own else []
    html = render_template(
        "player.html",
        shown=shown,
        own=own,
        sessions=sessions,
        current=mine[0].id if own else None,
    )
    response = make_response(html, 200, {"Cache-Control": "no-store"} if own else {})
    if mine is None and player() is not None:
        sign_out(response)  # the signed cookie outlived its session
    return response


@bp.post("/me/sessions/<session_id>/end")
def end_session(session_id: str):
    """End one of this player's sessions (another browser is signed out)."""
    live, who = own_session()
    if session_id == live.id:
        return sign_out_this()
    the_lobby().end_session(who.id, session_id[:64])
    return go(url_for("players.page", name=who.name))


@bp.post("/me/sign-out")
def sign_out_this():
    """Sign this browser out: its session ends, its cookies are deleted."""
    found = session()
    if found is not None:
        the_lobby().end_session(found[1].id, found[0].id)
    return sign_out(go(url_for("pages.home")))


@bp.post("/me/delete")
def delete():
    """Delete this player's account, once they typed its name to confirm."""
    _live, who = own_session()
    if names.canonical(request.form.get("confirm", "")) != who.canonical:
        html = render_template(
            "player.html",
            shown=who,
            own=True,
            sessions=the_lobby().sessions(who.id),
            current=_live.id,
            delete_error=refusal("delete-unconfirmed"),
        )
        return html, 400, {"Cache-Control": "no-store"}
    the_lobby().delete_player(who.id)
    return sign_out(go(url_for("pages.home", deleted=1)))
