"""The one way a table is drawn: a seat's `TableView` to HTML fragments.

A table is drawn for every seat on every move, so what many tables share is drawn once and
looked up, each part kept under exactly what it is drawn from: the tiles, the line of play
and the hand's buttons (web/view/faces.py); what is alike for every seat that reads the same
language (the boneyard, the rules line, the next deal's buttons); and what stays the same
from move to move at one seat (the score, the other seats and who plays them, the move
list). The rest is one template (partials/table.html), given everything it would otherwise
ask Python for again and again. What is drawn in Python rather than in a template is written
by web/view/markup.py alone, and every cache is one of web/view/kept.py's.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, render_template, url_for
from markupsafe import Markup

from ...events import DRAW, PASS, Play
from ...game import laid_at
from ...tiles import Tile, pip_total
from ...views import TableView
from . import markup, names
from .faces import Speaker, chain, face, hand, tojson
from .i18n import Words, gettext, speaking, words
from .kept import kept, recall, remember
from .rules_text import rules_line
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
class Links:
    """Where a seat's page lives: its room's path, and the invitation link while it is needed.

    Built from the request that served the page (script root and host included), so that a
    push made outside any request (the computer's move) links the same way.
    """

    room: str
    invite: str | None = None


def links(room) -> Links:
    """The links of a room's table, from the current request."""
    url = url_for("pages.room", room_id=room.id)
    if room.kind != "friend" or room.full:
        return Links(url)
    return Links(url, url_for("pages.room", room_id=room.id, _external=True))


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
        html = _render(
            "table.html", _values(tv, links, said, speak, options, selected, notice, oob)
        )
        if not oob:
            return html  # the full page holds the (empty) live region itself
        said_now = announcement(tv, speak, notice)
        asked = _asked(tv)
        if asked:  # another player's request, said first (it waits for this seat's answer)
            said_now = f"{asked} {said_now}" if said_now else asked
        return html + markup.announce(said_now)


def _render(name: str, values: dict) -> Markup:
    """partials/`name` with `values` and nothing else.

    A table needs none of Flask's per-render context (request, session, g), nor the
    environment's globals (`face` comes with `values`): a context of `values` alone spares
    copying every global into each table's context, and shows that a part drawn from some
    values reads nothing else.
    """
    env = current_app.jinja_env
    template = env.get_template(f"partials/{name}")
    context = template.new_context(values, shared=True)
    try:
        return Markup(env.concat(template.root_render_func(context)))
    except Exception:
        env.handle_exception()  # raises it again, its traceback pointing into the template


PARTS = kept()  # by (template, language, key)


def _part(name: str, said: Words, key: tuple | None, values, *args) -> Markup:
    """partials/`name` drawn from `values(*args)` alone (and the language's words), once per
    language and `key`, which holds everything `values(*args)` is made from; a `key` of None
    draws it afresh (a player's own name is never kept)."""
    if key is None:
        return _render(name, {**said.jinja, **values(*args)})
    key = (name, said.lang, *key)
    found = recall(PARTS, key)
    if found is None:
        found = _render(name, {**said.jinja, **values(*args)})
        remember(PARTS, key, found)
    return found


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
        "seq_vals": _seq_vals(tv.seq),
        "story": story,
        "recent": markup.joined([_recent(note) for note in story.notes]),
        "chain": chain(tv, said, speak),
        "hand": hand(tv, speak, options, selected, room_url),
        "backs": markup.BACKS,
        "rules_p": _rules_line(tv, said),
        "pile": _pile(tv, said),
        "score": score(tv, said) if tv.match else "",
        "company": _company(tv, said) if many else "",
        "controls": _controls(tv, said, room_url, many),
        "levels": _controls(tv, said, room_url, many, levels=True) if many else "",
        "next": _next(tv, said, room_url, many),
        "mover": next((c for c in tv.company if c.seat == seat_view.turn), None),
        "totals": [pip_total(held) for held in seat_view.hands or ()],
        "spoken_tile": speak.tile,
        "face": face,
        "lay_label": lambda end: _lay_label(speak, tv, selected, end),
    }


def render_superseded(notice: str | None = None) -> str:
    """The `#table` fragment of a tab that lost its seat to another tab."""
    return Markup(render_template("partials/superseded.html", notice=notice))


SEQ_VALS = kept()  # by seq


def _seq_vals(seq: int) -> Markup:
    """`{"seq": seq}|tojson`, the values an action button sends (the room's version)."""
    found = recall(SEQ_VALS, seq)
    if found is None:
        found = tojson({"seq": seq})
        remember(SEQ_VALS, seq, found)
    return found


PILES = kept()  # by (language, drawn from, count)


def _pile(tv: TableView, said: Words) -> Markup:
    """The boneyard and how many tiles it holds, drawn once per language and count."""
    key = (said.lang, tv.rules.boneyard, tv.game.boneyard_count)
    found = recall(PILES, key)
    if found is None:
        count = key[2]
        if tv.rules.boneyard:
            what = said.ngettext("tile in the boneyard", "tiles in the boneyard", count)
        else:
            what = said.ngettext("tile sleeping, never drawn", "tiles sleeping, never drawn", count)
        found = markup.pile(count, what)
        remember(PILES, key, found)
    return found


RULES_LINES = kept()  # by (language, rules)


def _rules_line(tv: TableView, said: Words) -> Markup:
    """The room's rules in one line, with them as JSON (docs/contracts.md, page hooks `data-rules`),
    drawn once
    per language and rules."""
    key = (said.lang, tv.rules)
    found = recall(RULES_LINES, key)
    if found is None:
        as_json = str(tojson(tv.rules.to_json()))  # a text, escaped as the attribute's value
        found = markup.rules_line(as_json, rules_line(tv.rules))
        remember(RULES_LINES, key, found)
    return found


def _recent(note: Note) -> Markup:
    """One other seat's latest turn, shown for a moment."""
    return markup.recent(note.seat, note.key, note.text)


def _company(tv: TableView, said: Words) -> Markup:
    """Each other seat at a table of three or four (docs/contracts.md, page hooks `data-seat`), as
    West, North
    and East, each drawn once for as long as it, its turn and where it sits stay the same."""
    over, turn, parts = tv.game.over, tv.game.turn, []
    for c in names.shown_company(tv):
        moving = not over and turn == c.seat
        key = None if c.name else (tv.seat, tv.rules, tv.kind, c, moving)
        parts += (
            markup.COMPANY_GAP,
            _part("company.html", said, key, names.seat_values, tv, c, moving),
        )
    return markup.joined(parts)


def _controls(
    tv: TableView, said: Words, room_url: str, many: bool, levels: bool = False
) -> Markup | str:
    """Who plays the other seats, when this seat may say (seat_controls.html): hand a seat
    over while its player is away for long, or (the creator, at three or four) give a free
    seat to the computer; with `levels`, the level of each seat the computer plays (in the
    folded table settings). Drawn once for as long as the seats stay the same."""
    creator = many and tv.seat == 0
    if levels:
        shown = any(creator and c.computer and not c.held for c in tv.company)
    else:
        shown = any(c.away_long or (creator and not c.held and not c.computer) for c in tv.company)
    if not shown:
        return ""
    minutes = names.away_minutes()
    key = (room_url, tv.seat, tv.rules, tv.kind, minutes, levels)
    key += tuple((c.seat, c.away_long, c.held, c.computer) for c in tv.company)
    if any(c.name for c in tv.company):
        key = None  # a player's own name: never kept

    def values() -> dict:
        seats = []  # as West, North, East
        for c in names.shown_company(tv):
            name = names.name_of(tv, c.seat)
            away = c.away_long
            note = names.away_note(name) if away else None
            seats.append((c, name, note, names.hand_over_label(name) if away else None))
        return {"seats": seats, "creator": creator, "room_url": room_url, "levels": levels}

    return _part("seat_controls.html", said, key, values)


def _next_kind(tv: TableView) -> str:
    """What the next deal is: "continue" (a match's next round), "match" or "round"."""
    if tv.match:
        return "continue" if tv.between_rounds else ("match" if tv.full else "round")
    return "round"


def _asked(tv: TableView) -> str:
    """Another player's open request, in the words next.html shows it, for the live region
    (issue 29: the request shows at the top of the table and is said); "" for none."""
    if tv.request != "theirs":
        return ""
    many, kind = tv.rules.seats > 2, _next_kind(tv)
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


def _next(tv: TableView, said: Words, room_url: str, many: bool) -> Markup:
    """The next deal's question and buttons (next.html): drawn once for every seat that reads
    the same language and has said the same, until that changes (a rematch request: for
    each seat); the room's version goes into its buttons at each use."""
    seat_view = tv.game
    kind = _next_kind(tv)
    asks = tv.full and tv.kind == "friend" and not seat_view.over and (not many or tv.people > 1)
    values = {
        "kind": kind,
        "request": tv.request,
        "request_kind": tv.request_kind,
        "many": many,
        "over": seat_view.over,
        "asks": asks,
        "loses": tv.full and not seat_view.over and not asks,
        "rematch": seat_view.over and tv.full and not tv.rematch,
        "room_url": room_url,
        "seq_vals": markup.SEQ_MARK,  # the same part serves every move until something else changes
    }
    seq_vals = _seq_vals(tv.seq)
    if tv.request and tv.request_kind == "rematch":  # rematch_request.html reads the view
        return _part("next.html", said, None, dict, {**values, "seq_vals": seq_vals, "tv": tv})
    drawn = _part("next.html", said, tuple(values.values()), dict, values)
    return Markup(drawn.replace(markup.SEQ_MARK, seq_vals))


def _lay_label(speak: Speaker, tv: TableView, tile: Tile | None, end: str) -> str:
    """The accessible name of an end button: its visible text, then the tile as it would lie."""
    if tile is None or tv.game.ends is None:
        return ""
    laid = speak.halves(*laid_at(tile, end, tv.game.ends))
    if end == "left":
        return gettext("Lay it here: %(tile)s on the left", tile=laid)
    return gettext("Lay it here: %(tile)s on the right", tile=laid)
