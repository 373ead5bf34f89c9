"""Pages and actions: home, the room (full page or fragment), joining, moves, records."""

from __future__ import annotations

import contextlib

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import ngettext

from ...clock import ABANDON_SECONDS, BANK_SECONDS, MOVE_SECONDS, TIMEOUTS
from ...game import IllegalMove
from ...lobby.ratings import PROVISIONAL
from ...players.pairing import FILL_SECONDS
from ...room import (
    DRAW_UNTIL,
    IDLE_SECONDS,
    ROOM_ACTIONS,
    RoomError,
    form_number,
)
from ...tiles import Tile
from ..forms.rules_form import (
    CardError,
    card_for,
    counter_from_form,
    level_from_form,
    rules_from_form,
)
from ..forms.seeds import first_deal, home_commitment
from ..live.grants import GrantRefused, read_grant
from ..live.hub import new_tab
from ..seats import COOKIE, ROOM_ID, acting_seat, form_seat, refuse, reply, seated, tables
from ..signin import who as signed_in
from ..view.i18n import chosen_language
from ..view.messages import refusal, status_of
from ..view.names import reserved_words
from ..view.render import links, render_table
from ..view.rules_text import rules_line
from ..view.sentences import table_summary

bp = Blueprint("pages", __name__)


@bp.get("/")
def home():
    """The home page: its rules card folded, or open on a preset chosen without scripts."""
    return _home(card_for(preset=request.args.get("preset")))


def _home(card, status: int = 200):
    """The home page with `card`, committed to the first deal of the room it may create (a
    fresh commitment each time: the page is never cached)."""
    token, commitment = home_commitment()
    fair = {"token": token, "commitment": commitment}
    page = render_template("home.html", card=card, fair=fair)
    return page, status, {"Cache-Control": "no-store"}


@bp.get("/help")
def help_page():
    """The rules, the controls and some tips, in the page's language. The public tables'
    figures (SPEC §12) are this server's settings, so that the help never disagrees with it."""
    config = current_app.config
    figures = {
        "fill": _seconds(config.get("FILL_SECONDS", FILL_SECONDS)),
        "move": _seconds(config.get("MOVE_SECONDS", MOVE_SECONDS)),
        "bank": _seconds(config.get("BANK_SECONDS", BANK_SECONDS)),
        "away": _seconds(config.get("ABANDON_SECONDS", ABANDON_SECONDS)),
        "timeouts": TIMEOUTS,
        "provisional": PROVISIONAL,
    }
    return render_template(f"help/{chosen_language()}.html", figures=figures)


def _seconds(value) -> int | float:
    """A setting in seconds as the help writes it: whole, or to a tenth."""
    value = round(float(value), 1)
    return int(value) if value.is_integer() else value


@bp.get("/healthz")
def healthz():
    """A liveness probe."""
    return "ok", 200, {"Content-Type": "text/plain; charset=utf-8"}


@bp.post("/rooms")
def create_room():
    """Create a room under the rules card's rules, seat its creator and go to it."""
    return _create("friend")


@bp.post("/computer")
def play_computer():
    """Create a room against the computer under the card's rules and level, and go to it."""
    return _create("computer")


def _create(kind: str):
    """Create a room of `kind` from the home page's form: rules, level, tile counter, and
    the first deal's commitment and seed."""
    form = request.form
    try:
        level = level_from_form(form) if kind == "computer" else "medium"
        rules, counter = rules_from_form(form), counter_from_form(form)
        created = tables().create(kind, level, rules, counter, first_deal(form))
    except CardError as error:
        return _card_refused(error)
    except RoomError as error:
        return _card_refused(CardError("preset", refusal(error.code)), status_of(error.code))
    return _created(*created)


def _card_refused(error: CardError, status: int = 400):
    """The home page again, its card open as posted, saying which setting to change."""
    return _home(card_for(request.form, error=error), status)


def _created(room, secret: str):
    _named(room, 0)
    response = redirect(url_for("pages.room", room_id=room.id), 303)
    _set_seat_cookie(response, room.id, secret)
    return response


@bp.get("/r/<room_id>")
def room(room_id: str):
    """The table for a seated browser; a join, full or missing page for the others."""
    found, seat = seated(room_id)
    if found is None:
        return render_template("missing.html"), 404
    if seat is None:
        if found.full:
            return render_template("full.html"), 403
        return render_template(
            "join.html",
            room_id=room_id,
            rules=found.rules,
            free=len(found.free),
            next_commitment=found.fair.next_commitment,
        )
    if request.headers.get("HX-Request"):
        return reply(found, seat, selected=_selected())
    tables().nudge(found)  # e.g. after a restart
    tv = tables().view(found, seat, live=False)  # inert until its socket is open
    table = render_table(tv, links(found), oob=False)
    return render_template("room.html", tv=tv, tab=new_tab(), table=table)


@bp.get("/r/<room_id>/yours")
def your_table(room_id: str):
    """One of this browser's tables as the home page lists it: who is there, whose turn, the
    rules and a link back (templates/partials/your_table.html).

    static/notify.js asks for each room this browser was seated at (their ids, kept in its
    localStorage). The seat's secret never leaves its cookie: the cookie's path is the room's,
    so only a request under /r/<room> carries it (the home page never receives it), and
    nginx sends such a request to the room's own shard (docs/cluster.md). A browser with no
    seat there gets an empty 404, and the page forgets the room."""
    found, seat = seated(room_id)
    if found is None or seat is None:
        return "", 404, {"Cache-Control": "no-store"}
    tv = tables().view(found, seat)
    card = render_template(
        "partials/your_table.html",
        tv=tv,
        summary=table_summary(tv),
        rules_line=rules_line(found.rules),
        url=url_for("pages.room", room_id=room_id),
    )
    return card, 200, {"Cache-Control": "no-store"}


@bp.post("/r/<room_id>/join")
def join(room_id: str):
    """Take the guest seat if it is free (or get one's own seat back)."""
    if not ROOM_ID.fullmatch(room_id):
        return render_template("missing.html"), 404
    target = url_for("pages.room", room_id=room_id)
    try:
        _found, seat, secret = _join(room_id)
    except RoomError:
        return _unseated("missing.html", 404, target)
    if seat is None:  # e.g. a late "Take the seat": someone else sat down meanwhile
        return _unseated("full.html", 403, target)
    _named(_found, seat)
    response = redirect(target, 303)
    if request.headers.get("HX-Request"):
        response = make_response("", 200, {"HX-Redirect": target})
    _set_seat_cookie(response, room_id, secret)
    return response


def _named(room, seat: int) -> None:
    """A signed-in browser's seat at a friend's table is called by its player's name (SPEC
    §11: the others see it in place of "your friend"), as if it had typed it as the seat's
    display name; a seat that has one keeps it. The seat's player is noted too (once, in the
    rooms' store: `Store.seat_player`), so that a finished match says who played it."""
    who = signed_in()
    if who is None or room.kind == "computer":
        return
    tables().rooms.store.seat_player(room.id, seat, who.id)
    if room.kind != "friend" or room.names[seat]:
        return
    with contextlib.suppress(RoomError):  # e.g. the room was deleted meanwhile
        tables().name(room.id, seat, who.name, reserved_words())


def _unseated(page: str, status: int, target: str):
    """A join that seated nobody: the page that says why. htmx would swap it into the
    invitation (a page inside the page), so htmx is sent to the room's own address, which
    shows that page whole."""
    if request.headers.get("HX-Request"):
        return "", status, {"HX-Redirect": target}
    return render_template(page), status


def _join(room_id: str):
    """Join, once more if another guest's join got in first (then the table is full)."""
    try:
        return tables().join(room_id, request.cookies.get(COOKIE), request.form)
    except RoomError as error:
        if error.code != "stale":
            raise
        return tables().join(room_id, request.cookies.get(COOKIE), request.form)


@bp.get("/r/<room_id>/grant")
def grant(room_id: str):
    """A public room's seat grant (SPEC §12, web/live/grants.py): for the signed-in player it
    names, once, the seat's cookie (as joining sets it), then the room's page; the browser
    that holds that seat already (the room's page was lost after the redemption) goes back
    to the room. A forged, expired, used or another player's grant gets a page that says
    so, and nothing changes."""
    target = url_for("pages.room", room_id=room_id)
    try:
        given = read_grant(current_app.config["SECRET_KEY"], request.args.get("token", "")[:1000])
    except GrantRefused as refused:
        return _grant_refused(refused.code, target)
    if given.room != room_id:
        return _grant_refused("bad-grant", target)
    who = signed_in()
    if who is None or who.id != given.player:
        return _grant_refused("grant-not-yours", target)
    if seated(room_id)[1] == given.seat:  # its seat's cookie came before: back to the room
        return redirect(target, 303)
    try:
        _room, secret = tables().redeem(room_id, given.seat, given.id)
    except RoomError as error:
        return _grant_refused(error.code, target)
    response = redirect(target, 303)
    _set_seat_cookie(response, room_id, secret)
    return response


def _grant_refused(code: str, target: str):
    """The page of a seat grant that seats nobody: why, and the way to the room or home."""
    page = render_template("grant_refused.html", message=refusal(code), room_url=target)
    return page, status_of(code), {"Cache-Control": "no-store"}


@bp.post("/r/<room_id>/level")
def level(room_id: str):
    """Switch the level of the computer's seats (or of the form's `seat`) at any moment;
    hands and line stay."""
    found, seat, refused = acting_seat(room_id)
    if refused is not None:
        return refused
    try:
        after = tables().set_level(room_id, seat, request.form.get("level", ""), form_seat(found))
    except RoomError as error:
        return refuse(tables().get(room_id), error.code, seat)
    return reply(after, seat)


@bp.post("/r/<room_id>/<action>")
def act(room_id: str, action: str):
    """A seat's move or new-round answer: refused with a clear message, or done and pushed."""
    if action not in ROOM_ACTIONS:
        abort(404)
    found, seat, refused = acting_seat(room_id)
    if refused is not None:
        return refused
    seq = form_number(request.form.get("seq", ""))
    if seq is None:
        return refuse(found, "bad-seq", seat)
    news = None
    try:
        if action == DRAW_UNTIL:
            after, drawn = tables().draw_until(room_id, seat, seq)
            news = ngettext("You drew %(num)d tile.", "You drew %(num)d tiles.", drawn)
        else:
            after = tables().act(room_id, seat, action, request.form, seq)
    except RoomError as error:
        return refuse(tables().get(room_id), error.code, seat)
    except IllegalMove as error:
        return refuse(found, error.rule, seat)
    return reply(after, seat, news)


@bp.get("/r/<room_id>/record.jsonl")
def record(room_id: str):
    """The finished rounds of the room, one record per line, for its seated players."""
    found, seat = seated(room_id)
    if found is None or seat is None:
        abort(404)
    try:
        records = tables().rooms.records(room_id)
    except RoomError:  # deleted meanwhile
        abort(404)
    if not records:
        return Response(refusal("no-finished-round") + "\n", 404, mimetype="text/plain")
    body = "\n".join(records) + "\n"
    headers = {"Content-Disposition": f'attachment; filename="domino-{room_id[:8]}.jsonl"'}
    return Response(body, mimetype="application/jsonl", headers=headers)


def _selected() -> Tile | None:
    try:
        return Tile.parse(request.args.get("select", ""))
    except ValueError:
        return None


def _set_seat_cookie(response, room_id: str, secret: str) -> None:
    """The seat's secret, for this room's pages only (under the app's root), never readable
    by scripts."""
    response.set_cookie(
        COOKIE,
        secret,
        max_age=IDLE_SECONDS * 4,
        path=url_for("pages.room", room_id=room_id),
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
    )
