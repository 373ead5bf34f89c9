"""The one way a table is drawn: a seat's `TableView` to HTML fragments.

A table is drawn for every seat on every move, so what many tables share is drawn once and
looked up, each part kept under exactly what it is drawn from: the tiles, the line of play
and the hand's buttons (web/view/faces.py); what is alike for every seat that reads the same
language (the boneyard, the rules line, the next deal's buttons: web/view/parts.py); and what
stays the same from move to move at one seat (the score: web/view/scoring.py; the other seats
and who plays them: parts.py; the move list: web/view/story.py). The rest is one template
(partials/table.html), given everything it would otherwise ask Python for again and again.
What is drawn in Python rather than in a template is written by web/view/markup.py alone, and
every cache is made as web/view/kept.py says.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, has_request_context, render_template, request, url_for
from flask_babel import force_locale
from markupsafe import Markup

from ...events import DRAW, PASS, Play
from ...game import laid_at
from ...tiles import Tile, pip_total
from ...views import TableView
from . import markup, names, parts, rules_text
from .faces import Speaker, chain, face, hand
from .i18n import Words, gettext, speaking, words
from .messages import notice as notice_of
from .proofs import seat_proof
from .scoring import arithmetic, headline, match_headline, score, seat_name, sides, verdict
from .sentences import announcement
from .story import Note, Teller

# What the round area and the score need to word a result (web/view/scoring.py).
SCORING = {
    "arithmetic": arithmetic,
    "headline": headline,
    "match_headline": match_headline,
    "seat_name": seat_name,
    "sides": sides,
    "verdict": verdict,
}
# How a table of three or four names and lays out its seats (web/view/names.py).
NAMING = {
    "name_of": names.name_of,
    "handed_note": names.handed_note,
    "to_play": names.to_play,
    "waiting_note": names.waiting_note,
    "free_seats": names.free_seats,
    "record_name": names.record_name,
}


@dataclass(frozen=True)
class Choice:
    """How a playable tile is laid: at once at `end`, or by choosing among `ends`."""

    ends: tuple[str, ...]

    @property
    def direct(self) -> str | None:
        """The end to lay the tile at without asking, if there is no real choice."""
        return self.ends[0] if len(self.ends) == 1 else None


def choices(tv: TableView) -> dict[Tile, Choice]:
    """For each tile this seat may play now, the ends it may go to."""
    if not tv.active:
        return {}
    ends_by_tile: dict[Tile, list[str]] = {}
    for action in tv.game.legal:
        if isinstance(action, Play):
            ends_by_tile.setdefault(action.tile, []).append(action.end)
    line_ends = tv.game.ends
    result = {}
    for tile, ends in ends_by_tile.items():
        if len(ends) == 2 and (line_ends is None or line_ends[0] == line_ends[1]):
            ends = ["right"]  # both ends alike: no real choice
        result[tile] = Choice(tuple(ends))
    return result


def can(tv: TableView, action) -> bool:
    """True when the seat may take `action` (DRAW or PASS) now."""
    return tv.active and action in tv.game.legal


@dataclass(frozen=True, slots=True)
class Inviting:
    """What a signed-in seat's invite-by-name form needs (SPEC §11): the room, the shard's
    proof that this player holds a seat at it (web/view/proofs.py), and the lobby's paths the
    form posts to and the sent invitations are read from (routes/friends.py)."""

    room: str
    proof: str
    action: str
    sent: str


@dataclass(frozen=True, slots=True)
class Links:
    """Where a seat's page lives: its room's path, and the invitation link while it is needed;
    for a signed-in player at a table with a free seat, what inviting by name needs.

    Built from the request that served the page (script root and host included), so that a
    push made outside any request (the computer's move) links the same way.
    """

    room: str
    invite: str | None = None
    inviting: Inviting | None = None
    public: bool = False  # a public room's (SPEC §12, §14 `data-public`)
    play: str | None = None  # a public room's: quick match, for the next match


def links(room) -> Links:
    """The links of a room's table, from the current request of a browser seated there."""
    url = url_for("pages.room", room_id=room.id)
    if room.kind == "public":  # quick match's page (the lobby's, wherever it runs)
        return Links(url, public=True, play=request.script_root + "/play/")
    if room.kind != "friend" or room.full:
        return Links(url)
    invite = url_for("pages.room", room_id=room.id, _external=True)
    return Links(url, invite, inviting(room.id))


def inviting(room_id: str) -> Inviting | None:
    """The invite-by-name form's needs, if this request's browser is signed in (the view
    sits below web/signin.py: init_app gives it `signin.who` as the extension "viewer")."""
    viewer = current_app.extensions.get("viewer")
    who = viewer() if viewer is not None and has_request_context() else None
    if who is None:
        return None
    proof = seat_proof(room_id, who.id)
    return Inviting(
        room_id,
        proof,
        url_for("friends.invite"),
        url_for("friends.sent", room=room_id, proof=proof),
    )


def render_table(
    tv: TableView,
    links: Links,
    selected: Tile | None = None,
    notice: str | None = None,
    oob: bool = True,
) -> str:
    """The `#table` fragment for one seat (with `hx-swap-oob` unless `oob` is False).

    Out of band (in replies and pushes) the update of the live region `#announce` follows it;
    the full page (`oob` False) has the region itself, empty, beside the table.
    """
    options = choices(tv)
    if selected not in options or options[selected].direct:
        selected = None
    with speaking(words()) as said:
        speak = Speaker.current()
        html = parts.draw(
            "table.html", _values(tv, links, said, speak, options, selected, notice, oob)
        )
        if not oob:
            return html  # the full page holds the (empty) live region itself
        said_now = announcement(tv, speak, notice)
        asked = _asked(tv)
        if asked:  # another player's request, said first (it waits for this seat's answer)
            said_now = f"{asked} {said_now}" if said_now else asked
        return html + markup.announce(said_now)


def _asked(tv: TableView) -> str:
    """Another player's open request, in the words next.html shows it, for the live region
    (issue 29: the request shows at the top of the table and is said); "" for none."""
    if tv.request != "theirs":
        return ""
    many, kind = tv.rules.seats > 2, parts.next_kind(tv)
    if tv.request_kind == "rematch":
        if many:
            return gettext(
                "Another player asks for a rematch: the same deal with every hand moved one "
                "seat on."
            )
        return gettext("Your friend asks for a rematch: the same deal with the hands swapped.")
    if many:
        if kind == "continue":
            return gettext("Another player is ready for the next round.")
        if kind == "match":
            return gettext("Another player asks for a new match.")
        return gettext("Another player asks for a new round.")
    if kind == "continue":
        return gettext("Your friend is ready for the next round.")
    if kind == "match":
        return gettext("Your friend asks for a new match.")
    return gettext("Your friend asks for a new round.")


def render_pushed(tv: TableView, links: Links, lang: str, news: str | None = None) -> str:
    """A seat's table as a push sends it down its socket: in its page's language `lang`, with
    its page's links and, if `news` names one, a notice (web/view/messages.py)."""
    with force_locale(lang):
        return render_table(tv, links, notice=notice_of(news) if news else None)


def _values(tv, links, said: Words, speak: Speaker, options, selected, notice, oob) -> dict:
    """What partials/table.html is given: the seat's view, and everything drawn for it."""
    seat_view, room_url = tv.game, links.room
    story = Teller.current(speak).tell(tv)
    many = tv.rules.seats > 2
    return {
        **said.jinja,
        **SCORING,
        **NAMING,
        "tv": tv,
        "seat_view": seat_view,
        "me": tv.seat,
        "them": tv.others[0],
        "many": many,
        "options": options,
        "selected": selected,
        "notice": notice,
        "oob": oob,
        "draw_offered": DRAW in seat_view.legal,
        "pass_offered": PASS in seat_view.legal,
        "can_draw": can(tv, DRAW),
        "can_pass": can(tv, PASS),
        # The room's page; its actions are paths under it (pages.py), spelled out by the template.
        "room_url": room_url,
        "invite": None if tv.full else links.invite,
        "inviting": None if tv.full else links.inviting,
        "seq_vals": parts.seq_vals(tv.seq),
        "story": story,
        "recent": markup.joined([_recent(note) for note in story.notes]),
        "chain": chain(tv, said, speak),
        "hand": hand(tv, speak, options, selected, room_url),
        "backs": markup.BACKS,
        "rules_p": parts.rules_paragraph(tv, said),
        "opener_reason": rules_text.opener_reason(tv),
        "pile": parts.pile(tv, said),
        "score": score(tv, said) if tv.match else "",
        "company": parts.company(tv, said) if many else "",
        "controls": parts.controls(tv, said, room_url, many),
        # A public room's computer plays "hard", which nobody switches (commands.set_level).
        "levels": parts.controls(tv, said, room_url, many, levels=True)
        if many and not links.public
        else "",
        "public": links.public,
        "next": parts.next_deal(tv, said, room_url, many, links.play),
        "mover": next((c for c in tv.company if c.seat == seat_view.turn), None),
        "totals": [pip_total(held) for held in seat_view.hands or ()],
        "spoken_tile": speak.tile,
        "face": face,
        "lay_label": lambda end: _lay_label(speak, tv, selected, end),
    }


def render_superseded(notice: str | None = None) -> str:
    """The `#table` fragment of a tab that lost its seat to another tab."""
    return Markup(render_template("partials/superseded.html", notice=notice))


def _recent(note: Note) -> Markup:
    """One other seat's latest turn, shown for a moment."""
    return markup.recent(note.seat, note.key, note.text)


def _lay_label(speak: Speaker, tv: TableView, tile: Tile | None, end: str) -> str:
    """The accessible name of an end button: its visible text, then the tile as it would lie."""
    if tile is None or tv.game.ends is None:
        return ""
    laid = speak.halves(*laid_at(tile, end, tv.game.ends))
    if end == "left":
        return gettext("Lay it here: %(tile)s on the left", tile=laid)
    return gettext("Lay it here: %(tile)s on the right", tile=laid)
