"""The one way a table is drawn: a seat's `TableView` to HTML fragments."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, render_template, url_for
from flask_babel import get_locale, gettext, pgettext
from markupsafe import Markup

from ..events import DRAW, PASS, Play, PublicMove
from ..game import laid_at
from ..tableview import TableView
from ..tiles import Laid, Tile, pip_total
from . import named, naming
from .faces import face
from .i18n import bound_gettext
from .scoring import arithmetic, headline, match_headline, score_line, seat_name, sides, verdict
from .story import Teller

# The live region's new text, swapped into the page's persistent `#announce` (room.html): a
# sibling of `#table`, never inside it, so that htmx swaps it on its own.
ANNOUNCE = Markup('\n<div id="announce" hx-swap-oob="innerHTML">{}</div>')
# What the round area and the score need to word a result (web/scoring.py).
SCORING = {
    "arithmetic": arithmetic,
    "headline": headline,
    "match_headline": match_headline,
    "seat_name": seat_name,
    "sides": sides,
    "verdict": verdict,
}
# How a table of three or four names and lays out its seats (web/naming.py).
NAMING = {
    "name_of": naming.name_of,
    "place": naming.place,
    "many": naming.many,
    "level_word": naming.level_word,
    "away_note": naming.away_note,
    "handed_note": naming.handed_note,
    "hand_over_label": naming.hand_over_label,
    "to_play": naming.to_play,
    "waiting_note": naming.waiting_note,
    "free_seats": naming.free_seats,
    "shown_company": naming.shown_company,
}
LAID_ITEM = Markup('<li class="{}" data-tile="{}"{} aria-label="{}">{}</li>')
NEWEST = Markup(" data-last")


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
    speak = Speaker.current()
    # The table needs none of Flask's per-render context (request, session, g): render it
    # straight from the environment, which is a good part cheaper.
    html = current_app.jinja_env.get_template("partials/table.html").render(
        **bound_gettext(),
        tv=tv,
        g=tv.game,
        me=tv.seat,
        them=tv.others[0],
        options=options,
        selected=selected,
        notice=notice,
        oob=oob,
        draw_offered=DRAW in tv.game.legal,
        pass_offered=PASS in tv.game.legal,
        can_draw=can(tv, DRAW),
        can_pass=can(tv, PASS),
        # The room's page; its actions are paths under it (pages.py), spelled out by the templates.
        room_url=links.room,
        invite=None if tv.guest_joined else links.invite,
        last=_last_laid(tv),
        story=Teller.current(speak).tell(tv),
        totals=[pip_total(hand) for hand in tv.game.hands or ()],
        **SCORING,
        **NAMING,
        laid_item=speak.laid_item,
        spoken_tile=speak.tile,
        lay_label=lambda end: _lay_label(speak, tv, selected, end),
    )
    if not oob:
        return Markup(html)  # the full page holds the (empty) live region itself
    news = announcement(tv, speak, notice)
    return Markup(html) + ANNOUNCE.format(news)


def render_superseded(notice: str | None = None) -> str:
    """The `#table` fragment of a tab that lost its seat to another tab."""
    return Markup(render_template("partials/superseded.html", notice=notice))


def _last_laid(tv: TableView) -> int | None:
    """Index in the line of the tile laid last, if the last move was a play (a draw or a pass
    since then leaves no tile marked: the mark says what just happened)."""
    history = tv.game.history
    if not history or history[-1].action != "play":
        return None
    return 0 if history[-1].end == "left" else len(tv.game.line) - 1


SPEAKERS: dict[str, Speaker] = {}  # one per language: the words never change while we run


class Speaker:
    """Tiles as words in the page's language: "three–five", "double six", "blank–four"."""

    @classmethod
    def current(cls) -> Speaker:
        """The speaker of the current language."""
        lang = str(get_locale() or "en")
        if lang not in SPEAKERS:
            SPEAKERS[lang] = cls()
        return SPEAKERS[lang]

    def __init__(self) -> None:
        self.names = (
            pgettext("pips", "blank"),
            pgettext("pips", "one"),
            pgettext("pips", "two"),
            pgettext("pips", "three"),
            pgettext("pips", "four"),
            pgettext("pips", "five"),
            pgettext("pips", "six"),
        )
        self.double = gettext("double %(name)s")
        self.pair = gettext("%(left)s–%(right)s")
        self._items: dict[tuple[int, int, bool], Markup] = {}

    def name(self, value: int) -> str:
        """One half's number in words (digits beyond six)."""
        return self.names[value] if 0 <= value < len(self.names) else str(value)

    def halves(self, a: int, b: int) -> str:
        """The spoken name of a tile showing `a` then `b` (left to right, or top to bottom)."""
        if a == b:
            return self.double % {"name": self.name(a)}
        return self.pair % {"left": self.name(a), "right": self.name(b)}

    def tile(self, tile: Tile) -> str:
        """The spoken name of a tile, low half first."""
        return self.halves(tile.low, tile.high)

    def laid_item(self, laid: Laid, last: bool) -> Markup:
        """A tile of the line as its list item: drawn and named once per language and way."""
        key = (laid.left, laid.right, last)
        item = self._items.get(key)
        if item is None:
            classes = "laid" + (" double" if laid.is_double else "") + (" last" if last else "")
            face_svg = face(laid.left, laid.right, vertical=laid.is_double)
            name = self.halves(laid.left, laid.right)
            item = LAID_ITEM.format(classes, str(laid), NEWEST if last else "", name, face_svg)
            self._items[key] = item
        return item


def _lay_label(speak: Speaker, tv: TableView, tile: Tile | None, end: str) -> str:
    """The accessible name of an end button: its visible text, then the tile as it would lie."""
    if tile is None or tv.game.ends is None:
        return ""
    laid = speak.halves(*laid_at(tile, end, tv.game.ends))
    if end == "left":
        return gettext("Lay it here: %(tile)s on the left", tile=laid)
    return gettext("Lay it here: %(tile)s on the right", tile=laid)


def announcement(tv: TableView, speak: Speaker, notice: str | None = None) -> str:
    """What the live region says now: the other seat's last move, a drawn tile, whose turn it
    is, the result. Screen readers speak it when it changes."""
    g = tv.game
    parts = [notice] if notice else []
    last = g.history[-1] if g.history else None
    if last is not None and last.seat != tv.seat:
        parts.append(_their_move(tv, speak, last))
    elif last is not None and last.action == "draw" and g.hand and not g.over:
        parts.append(gettext("You drew %(tile)s.", tile=speak.tile(g.hand[-1])))
    if g.over:
        parts.append(headline(tv) + ".")
        if tv.match is not None:
            parts.append(score_line(tv) + ".")
            if tv.match.over:
                parts.append(match_headline(tv) + ".")
    elif g.my_turn and (last is None or last.seat != tv.seat):
        parts.append(gettext("Your turn") + ".")
    return " ".join(parts)


def _their_move(tv: TableView, speak: Speaker, move: PublicMove) -> str:
    """The other seat's move, in one sentence."""
    if tv.rules.seats > 2:
        return _named_move(tv, speak, move)
    computer = tv.kind == "computer"
    if move.action == "play":
        if move.left is None or move.right is None:
            tile = speak.tile(move.tile)
            if computer:
                return gettext("The computer opened with %(tile)s.", tile=tile)
            return gettext("Your friend opened with %(tile)s.", tile=tile)
        tile = speak.halves(*laid_at(move.tile, move.end, (move.left, move.right)))
        if move.end == "left":
            if computer:
                return gettext("The computer laid %(tile)s on the left.", tile=tile)
            return gettext("Your friend laid %(tile)s on the left.", tile=tile)
        if computer:
            return gettext("The computer laid %(tile)s on the right.", tile=tile)
        return gettext("Your friend laid %(tile)s on the right.", tile=tile)
    if move.action == "draw":
        held = tv.game.counts[move.seat]
        if computer:
            return gettext("The computer drew a tile (%(num)d in its hand).", num=held)
        return gettext("Your friend drew a tile (%(num)d in their hand).", num=held)
    if computer:
        return gettext("The computer passed.")
    return gettext("Your friend passed.")


def _named_move(tv: TableView, speak: Speaker, move: PublicMove) -> str:
    """Another seat's move at a table of three or four, naming the seat ("East drew a tile
    (6 in their hand).", "Your partner passed.")."""
    name = naming.name_of(tv, move.seat)
    if move.action == "play":
        if move.left is None or move.right is None:
            return named.laid(name, None, speak.tile(move.tile))
        tile = speak.halves(*laid_at(move.tile, move.end, (move.left, move.right)))
        return named.laid(name, move.end, tile)
    if move.action == "draw":
        return named.drew_held(name, tv.game.counts[move.seat])
    return named.passed(name)
