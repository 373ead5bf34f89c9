"""A player's own pages (SPEC §11): taking a name, the player bar, the player page with its
sessions, signing out and deleting the account; the coins (SPEC §13): the balance in the bar,
the daily top-up and the statement `/me/coins`. These are the lobby's paths: in a cluster
nginx sends them to the lobby's process (docs/cluster.md)."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from flask import Blueprint, current_app, make_response, render_template, request, url_for
from flask_babel import format_datetime, gettext

from ...lobby import NameTaken
from ...players import coins as coin_rules
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
from ..view.messages import N_, refusal, status_of
from ..view.names import reserved_words

bp = Blueprint("players", __name__)
clock = time.time  # the coins' clock (the day of a top-up); tests set their own
STATEMENT_ROWS = 200  # the newest entries /me/coins shows
REASONS = {  # SPEC §14's reason codes, as the statement says them
    "grant": N_("Coins for taking a name"),
    "top-up": N_("Daily top-up"),
    "reward": N_("Reward for a match"),
    "stake": N_("Stake held"),
    "refund": N_("Stake returned"),
    "pot": N_("Pot won"),
    "forfeit": N_("Won from a forfeited stake"),
}
assert set(REASONS) == set(coin_rules.REASONS)


@bp.app_template_global()
def bar_coins(signed_in) -> int | None:
    """The balance the player bar shows beside the name (SPEC §14 `data-coins`), after the
    day's top-up at the first page of a UTC day (once a day: its key and `top_up_days`); None
    where the lobby is not in this process (a shard of a cluster: the bar asks it, GET
    /me/bar) or nobody is signed in."""
    store = lobby()
    if store is None or signed_in is None:
        return None
    store.top_up(signed_in.id, clock())
    return store.coins(signed_in.id)


@bp.app_template_global()
def coins_of(player_id: str) -> int | None:
    """A player's balance, for their own pages; None where the lobby is not in this process."""
    store = lobby()
    return None if store is None else store.coins(player_id)


@bp.app_template_global()
def coin_figures() -> dict:
    """The coins' figures the help writes (domino/players/coins.py), never typed twice."""
    return {
        "grant": coin_rules.GRANT,
        "top_up": coin_rules.TOP_UP,
        "duel": coin_rules.PLACES[2],
        "three": coin_rules.PLACES[3],
        "pairs": coin_rules.PAIRS,
        "friend": coin_rules.PLACES[2][0] // 2,
        "friend_three": coin_rules.PLACES[3][0] // 2,
        "friend_pairs": coin_rules.PAIRS[0] // 2,
        "stakes": coin_rules.STAKES,
        # how long a stake table may take to fill, in whole minutes (at least one)
        "stake_minutes": max(1, round(current_app.config["STAKE_WAIT_SECONDS"] / 60)),
    }


@bp.app_template_filter()
def iso_utc(stamp: float) -> str:
    """A time (seconds since the epoch) for a `<time datetime>`, in UTC."""
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")


@bp.app_template_filter()
def moment(stamp: float) -> str:
    """A time (seconds since the epoch) as a date and time in the page's language, UTC."""
    return format_datetime(datetime.fromtimestamp(stamp, UTC), "medium")


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


@bp.get("/me/coins")
def coins():
    """The player's statement (SPEC §13): the newest entries first, each with its time, its
    reason in the page's language, the signed amount and the balance after it."""
    _live, who = own_session()
    store = the_lobby()
    store.top_up(who.id, clock())  # before the page reads the balance: the bar would do it mid-page
    entries = store.statement(who.id, STATEMENT_ROWS + 1)
    html = render_template(
        "coins.html",
        balance=store.coins(who.id),
        entries=entries[:STATEMENT_ROWS],
        older=len(entries) > STATEMENT_ROWS,
        reason_words={code: gettext(words) for code, words in REASONS.items()},
    )
    return html, 200, {"Cache-Control": "no-store"}


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
