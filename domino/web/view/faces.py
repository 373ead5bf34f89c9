"""Tiles as a table draws them: a face in SVG, a tile's name, the line of play and the hand's
buttons, each drawn once (per language where it has words) and then reused (web/view/kept.py),
their markup written by web/view/markup.py."""

from __future__ import annotations

import functools

from flask import current_app
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from ...tiles import Laid, Tile
from ...views import TableView
from . import markup
from .i18n import Words, gettext, pgettext, words
from .kept import EVER, KEPT, kept, recall, remember
from .markup import BACKS

__all__ = ["BACKS", "KEPT", "Speaker", "chain", "face", "hand", "remember", "tojson"]


@functools.cache  # a finite set of faces
def face(a: int, b: int, vertical: bool = False) -> Markup:
    """`a` on the left (on top when vertical), `b` on the right; hidden from screen readers."""
    return markup.face(a, b, vertical)


SPEAKERS = kept(EVER)  # one Speaker per language: the words never change while we run


class Speaker:
    """Tiles as words in the page's language: "three–five", "double six", "blank–four"."""

    @classmethod
    def current(cls) -> Speaker:
        """The speaker of the current language."""
        lang = words().lang
        found = recall(SPEAKERS, lang)
        if found is None:
            found = cls()
            remember(SPEAKERS, lang, found)
        return found

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
        self._items = kept(EVER)  # by (left, right, last): a line's items, drawn and named
        self._buttons = kept(EVER)  # by (tile, selected, opening): (head, tail)

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
        item = recall(self._items, key)
        if item is None:
            classes = "laid" + (" double" if laid.is_double else "") + (" last" if last else "")
            face_svg = face(laid.left, laid.right, vertical=laid.is_double)
            name = self.halves(laid.left, laid.right)
            item = markup.laid_item(classes, str(laid), last, name, face_svg)
            remember(self._items, key, item)
        return item

    def button(self, tile: Tile, selected: bool, opening: bool) -> tuple[Markup, Markup]:
        """A tile of the hand as a button, before and after what pressing it does: drawn and
        named once per language and state."""
        key = (tile, selected, opening)
        found = recall(self._buttons, key)
        if found is None:
            svg = face(tile.low, tile.high, True)
            found = markup.button(str(tile), selected, opening, self.tile(tile), svg)
            remember(self._buttons, key, found)
        return found


def tojson(value) -> Markup:
    """`value|tojson`, as the templates write it."""
    policies = current_app.jinja_env.policies
    return htmlsafe_json_dumps(
        value, dumps=policies["json.dumps_function"], **policies["json.dumps_kwargs"]
    )


def last_laid(tv: TableView) -> int | None:
    """Index in the line of the tile laid last, if the last move was a play (a draw or a pass
    since then leaves no tile marked: the mark says what just happened)."""
    history = tv.game.history
    if not history or history[-1].action != "play":
        return None
    return 0 if history[-1].end == "left" else len(tv.game.line) - 1


LINES_KEPT = 1024  # a line is long: far fewer are kept, enough for every seat of a move
CHAINS = kept(LINES_KEPT)  # by (room, language): (line, last, chain)


def chain(tv: TableView, said: Words, speak: Speaker) -> Markup:
    """The line of play's list (docs/contracts.md, page hooks `data-chain`), drawn once for every
    seat of a room
    that reads the same language, until the line or its newest tile changes."""
    line, last = tv.game.line, last_laid(tv)
    key = (tv.room, said.lang)
    found = recall(CHAINS, key)
    if found is not None and found[0] == line and found[1] == last:
        return found[2]
    items = []
    for i, laid in enumerate(line):
        items += (markup.ITEM_GAP, speak.laid_item(laid, i == last))
    drawn = markup.chain(said.gettext("Line of play, from left to right"), items)
    remember(CHAINS, key, (line, last, drawn))
    return drawn


def hand(tv: TableView, speak: Speaker, options, selected, room_url: str) -> Markup:
    """The own hand's buttons (docs/contracts.md, page hooks `data-hand`), each one looked up, with
    what pressing
    it does: play it at once, choose its end, or nothing."""
    opening, parts = tv.game.opening, []
    for tile in tv.game.hand:
        head, tail = speak.button(tile, tile == selected, tile == opening)
        option = options.get(tile)
        if option is None:
            does = markup.DISABLED
        elif option.direct:
            vals = {"tile": str(tile), "end": option.direct, "seq": tv.seq}
            does = markup.play_at_once(room_url, tojson(vals))
        elif tile == selected:
            does = markup.unselect(room_url)
        else:
            does = markup.select(room_url, str(tile))
        parts += (markup.ITEM_GAP, head, does, tail)
    return markup.joined(parts)
