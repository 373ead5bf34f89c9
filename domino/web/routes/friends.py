"""Friends by name (SPEC §11): inviting a player to a table, the invitations on the invited
player's home page, accepting and declining them, blocking, and the friend list.

These are the lobby's paths (/me/..., /p/...): in a cluster nginx sends them to the lobby's
process, which alone has players. A table is a shard's page, so its invite form carries the
shard's proof that the signed-in player holds a seat at the room (web/view/proofs.py); the
lobby checks it with the session, and never reads the shard's database. Nothing here is pushed:
the home page and the table ask again every few seconds (htmx polling), and the lobby answers
204 while nothing changed.

Who is online is what this process saw in the last two minutes: the player bar and the
invitations' polls mark their player seen (`LastSeen`, in memory only).
"""

from __future__ import annotations

import hashlib
import json

from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    url_for,
)

from ...lobby.friends import LastSeen
from ..guard.security import error_page
from ..signin import go, lobby, own_session, session, the_lobby
from ..view.messages import refusal, status_of
from ..view.proofs import proven_seat
from ..view.render import Inviting

bp = Blueprint("friends", __name__)

MOST_PER_ROOM = 12  # invitations one host sends to one room, answered or not
NO_STORE = {"Cache-Control": "no-store"}
SEEN_BY = frozenset({"players.bar", "friends.invitations", "friends.sent"})


def _htmx() -> bool:
    return bool(request.headers.get("HX-Request"))


def _refused(code: str):
    """A refusal outside a form of its own: the error page with its sentence."""
    return error_page(refusal(code), status_of(code))


def _digest(shown) -> str:
    """A short name for what a poll shows: the next poll says it, and gets 204 if unchanged."""
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()[:16]


def seen_players() -> LastSeen:
    """This process's record of when it last heard from each player."""
    seen = current_app.extensions.get("friends_seen")
    if seen is None:
        seen = current_app.extensions.setdefault("friends_seen", LastSeen())
    return seen


@bp.after_app_request
def _saw(response):
    """A player's polls (the bar, the invitations) mark them online."""
    if request.endpoint in SEEN_BY:
        found = g.get("lobby_session")
        if found:
            seen_players().saw(found[1].id)
    return response


# -- inviting, from a table


@bp.post("/me/invitations")
def invite():
    """Invite a player by name to the table the form came from (its room, and the shard's
    proof that this player sits there): refused with a clear message, nothing stored, for
    nobody signed in, a proof that is not this player's at this room, a name nobody holds
    (or a player either of the two blocks: "no such player" too, so a block is never told),
    oneself, or one invitation too many."""
    store = the_lobby()
    room = request.form.get("room", "")[:64]
    proof = request.form.get("proof", "")[:400]
    typed = request.form.get("name", "")
    found = session()
    proven = proven_seat(proof)
    if found is None:
        return _invite_refused(room, proof, typed, "not-signed-in")
    host = found[1]
    if proven is None or proven != (room, host.id):
        return _invite_refused(room, proof, typed, "invite-not-seated")
    guest = store.player_named(typed) if 0 < len(typed) <= 60 else None
    if guest is not None and guest.id == host.id:
        return _invite_refused(room, proof, typed, "invite-self")
    if guest is None or store.either_blocks(host.id, guest.id):
        return _invite_refused(room, proof, typed, "no-such-player")
    sent = store.invitations_from(host.id, room)
    if len(sent) >= MOST_PER_ROOM and all(one.guest != guest.id for one in sent):
        return _invite_refused(room, proof, typed, "too-many-invitations")
    store.invite(host.id, guest.id, room)
    if not _htmx():
        return redirect(url_for("pages.room", room_id=room), 303)
    return _invite_form(room, proof, invited=guest.name), 200, NO_STORE


def _invite_form(room: str, proof: str, **values) -> str:
    """The invite form again, as the table shows it, with what became of what was typed."""
    inviting = Inviting(
        room, proof, url_for("friends.invite"), url_for("friends.sent", room=room, proof=proof)
    )
    return render_template("partials/invite_player.html", inviting=inviting, **values)


def _invite_refused(room: str, proof: str, typed: str, code: str):
    if not _htmx():
        return _refused(code)
    html = _invite_form(room, proof, typed=typed[:60], invite_error=refusal(code))
    return html, status_of(code), NO_STORE


@bp.get("/me/invitations/sent")
def sent():
    """What became of the invitations this player sent to a room they sit at (the table's
    proof again): waiting, declined or accepted. Anything else gets nothing, and no poll."""
    store = lobby()
    found = session() if store is not None else None
    room = request.args.get("room", "")[:64]
    proof = request.args.get("proof", "")[:400]
    if found is None or proven_seat(proof) != (room, found[1].id):
        return "", 200, NO_STORE
    shown = []
    for one in store.invitations_from(found[1].id, room):
        guest = store.player(one.guest)
        if guest is not None:
            shown.append({"name": guest.name, "state": one.state})
    digest = _digest(shown)
    if request.args.get("seen") == digest:
        return "", 204, NO_STORE
    again = url_for("friends.sent", room=room, proof=proof, seen=digest)
    html = render_template("partials/sent_invitations.html", sent=shown, again=again)
    return html, 200, NO_STORE


# -- the invitations, on the invited player's home page


@bp.get("/me/invitations")
def invitations():
    """This player's open invitations, for the home page's live region (hidden: those of
    players they block). Not signed in: nothing, and no poll."""
    store = lobby()
    found = session() if store is not None else None
    if found is None:
        return "", 200, NO_STORE
    shown = []
    for one in store.invitations_for(found[1].id):
        host = store.player(one.host)
        if host is not None:
            shown.append({"id": one.id, "room": one.room, "host_name": host.name})
    digest = _digest(shown)
    if request.args.get("seen") == digest:
        return "", 204, NO_STORE
    html = render_template("partials/invitations.html", invitations=shown, seen=digest)
    return html, 200, NO_STORE


@bp.post("/me/invitations/<invitation_id>/accept")
def accept(invitation_id: str):
    """Accept an open invitation: to the room's invitation page, whose join form posts itself
    and seats this browser exactly as the link would."""
    _live, who = own_session()
    answered = the_lobby().answer(who.id, invitation_id[:64], accept=True)
    if answered is None:
        return _refused("no-invitation")
    return go(url_for("pages.room", room_id=answered.room))


@bp.post("/me/invitations/<invitation_id>/decline")
def decline(invitation_id: str):
    """Decline an open invitation: the host's table says so at its next poll."""
    _live, who = own_session()
    if the_lobby().answer(who.id, invitation_id[:64], accept=False) is None:
        return _refused("no-invitation")
    return go(url_for("pages.home"))


# -- blocking, and the friend list on the player page


def _other(name: str):
    """The signed-in player and the player named `name` (404 for nobody, 400 for oneself)."""
    _live, who = own_session()
    other = the_lobby().player_named(name) if len(name) <= 60 else None
    if other is None:
        abort(404)
    if other.id == who.id:
        return who, other, _refused("block-self")
    return who, other, None


@bp.post("/p/<name>/block")
def block(name: str):
    """Block a player: their invitations are no longer shown to this one (they are not told)."""
    who, other, refused = _other(name)
    if refused is not None:
        return refused
    the_lobby().block(who.id, other.id)
    return go(url_for("players.page", name=other.name))


@bp.post("/p/<name>/unblock")
def unblock(name: str):
    """Lift a block."""
    who, other, refused = _other(name)
    if refused is not None:
        return refused
    the_lobby().unblock(who.id, other.id)
    return go(url_for("players.page", name=other.name))


@bp.app_template_global()
def player_friends(shown, own: bool) -> dict:
    """What partials/player_friends.html shows on `shown`'s page: to another signed-in player,
    whether they block `shown` (`blocking`; None: no block button); to `shown` alone, their
    friends, each with whether they are online."""
    store, found = lobby(), session()
    part = {"blocking": None, "friends": []}
    if store is None or found is None:
        return part
    if own:
        seen = seen_players()
        part["friends"] = [
            {"name": name, "online": seen.is_online(player_id)}
            for player_id, name in store.friends(found[1].id)
        ]
    else:
        part["blocking"] = shown.id in store.blocked_by(found[1].id)
    return part
