"""Tiles as a table draws them: a face in SVG, a tile's name, the line of play and the hand's
buttons, each drawn once (per language where it has words) and then reused; and `remember`,
which keeps such parts of tables in caches of bounded size."""

from __future__ import annotations

from contextlib import suppress
from functools import cache

from flask import current_app
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from ...tableview import TableView
from ...tiles import Laid, Tile
from .i18n import Words, gettext, pgettext, words

# Pip centres in one 50×50 half, for 0 to 6.
PIPS = {
    0: (),
    1: ((25, 25),),
    2: ((13, 13), (37, 37)),
    3: ((13, 13), (25, 25), (37, 37)),
    4: ((13, 13), (37, 13), (13, 37), (37, 37)),
    5: ((13, 13), (37, 13), (25, 25), (13, 37), (37, 37)),
    6: ((13, 13), (37, 13), (13, 25), (37, 25), (13, 37), (37, 37)),
}
LAID_ITEM = Markup('<li class="{}" data-tile="{}"{} aria-label="{}">{}</li>')
NEWEST = Markup(" data-last")
# A tile of the own hand (SPEC §7.3): what it does when pressed goes between `head` and `tail`.
BUTTON_HEAD = Markup('<button type="button" id="tile-{0}" class="tile{1}{2}" data-tile="{0}" ')
BUTTON_NAME = Markup('aria-label="{}"')
BUTTON_TAIL = Markup("{}>{}</button>")
OPENING = Markup(" data-opening")
# What pressing it does (`hand`).
DISABLED = " disabled"
PLAY_AT_ONCE = " data-playable hx-post=\"%s/play\" hx-vals='%s'"
UNSELECT = ' data-playable aria-pressed="true" hx-get="%s"'
SELECT = ' data-playable aria-pressed="false" hx-get="%s?select=%s"'
CHAIN = '<ol class="chain" data-chain aria-label="%s">%s\n  </ol>'
ITEM_GAP = "\n    "  # before each tile of the line and of the hand
BACKS = tuple(Markup('<span class="back"></span>' * count) for count in range(64))  # by count
KEPT = 4096  # entries a cache of parts of tables keeps: far more than are drawn between two uses


@cache
def face(a: int, b: int, vertical: bool = False) -> Markup:
    """`a` on the left (on top when vertical), `b` on the right; hidden from screen readers."""
    if vertical:
        head = '<svg class="face v" viewBox="0 0 50 100" aria-hidden="true" focusable="false">'
        body = '<rect class="body" x="1" y="1" width="48" height="98" rx="7"/>'
        bar = '<line class="bar" x1="6" y1="50" x2="44" y2="50"/>'
    else:
        head = '<svg class="face h" viewBox="0 0 100 50" aria-hidden="true" focusable="false">'
        body = '<rect class="body" x="1" y="1" width="98" height="48" rx="7"/>'
        bar = '<line class="bar" x1="50" y1="6" x2="50" y2="44"/>'
    pips = []
    for value, shift in ((a, 0), (b, 50)):
        for x, y in PIPS[value]:
            cx, cy = (x, y + shift) if vertical else (y + shift, x)
            pips.append(f'<circle class="pip" cx="{cx}" cy="{cy}" r="5"/>')
    return Markup(f"{head}\n{body}{bar}{''.join(pips)}</svg>")


def remember(kept: dict, key, value, most: int = KEPT) -> None:
    """Keep `value` under `key`, forgetting the oldest entry once `kept` holds `most`."""
    if key not in kept and len(kept) >= most:
        # Another thread may have changed it meanwhile: the next call trims again.
        with suppress(StopIteration, RuntimeError, KeyError):
            del kept[next(iter(kept))]
    kept[key] = value


SPEAKERS: dict[str, Speaker] = {}  # one per language: the words never change while we run


class Speaker:
    """Tiles as words in the page's language: "three–five", "double six", "blank–four"."""

    @classmethod
    def current(cls) -> Speaker:
        """The speaker of the current language."""
        lang = words().lang
        found = SPEAKERS.get(lang)
        if found is None:
            found = SPEAKERS[lang] = cls()
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
        self._items: dict[tuple[int, int, bool], Markup] = {}
        self._buttons: dict[tuple[Tile, bool, bool], tuple[Markup, Markup]] = {}

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

    def button(self, tile: Tile, selected: bool, opening: bool) -> tuple[Markup, Markup]:
        """A tile of the hand as a button, before and after what pressing it does: drawn and
        named once per language and state."""
        key = (tile, selected, opening)
        found = self._buttons.get(key)
        if found is None:
            head = BUTTON_HEAD.format(
                str(tile), " selected" if selected else "", " opening" if opening else ""
            )
            head += BUTTON_NAME.format(self.tile(tile))
            tail = BUTTON_TAIL.format(OPENING if opening else "", face(tile.low, tile.high, True))
            found = self._buttons[key] = (head, tail)
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


CHAINS: dict[tuple, tuple] = {}  # by (room, language): (line, last, chain)
LINES_KEPT = 1024  # a line is long: far fewer are kept, enough for every seat of a move


def chain(tv: TableView, said: Words, speak: Speaker) -> Markup:
    """The line of play's list (SPEC §7.3 `data-chain`), drawn once for every seat of a room
    that reads the same language, until the line or its newest tile changes."""
    line, last = tv.game.line, last_laid(tv)
    key = (tv.room, said.lang)
    found = CHAINS.get(key)
    if found is not None and found[0] == line and found[1] == last:
        return found[2]
    items = []
    for i, laid in enumerate(line):
        items += (ITEM_GAP, speak.laid_item(laid, i == last))
    named = said.gettext("Line of play, from left to right")  # trusted, as in a template
    drawn = Markup(CHAIN % (named, "".join(items)))
    remember(CHAINS, key, (line, last, drawn), LINES_KEPT)
    return drawn


def hand(tv: TableView, speak: Speaker, options, selected, room_url: Markup) -> Markup:
    """The own hand's buttons (SPEC §7.3 `data-hand`), each one looked up, with what pressing
    it does: play it at once, choose its end, or nothing."""
    opening, parts = tv.game.opening, []
    for tile in tv.game.hand:
        head, tail = speak.button(tile, tile == selected, tile == opening)
        option = options.get(tile)
        if option is None:
            does = DISABLED
        elif option.direct:
            vals = {"tile": str(tile), "end": option.direct, "seq": tv.seq}
            does = PLAY_AT_ONCE % (room_url, tojson(vals))
        elif tile == selected:
            does = UNSELECT % room_url
        else:
            does = SELECT % (room_url, tile)
        parts += (ITEM_GAP, head, does, tail)
    return Markup("".join(parts))
