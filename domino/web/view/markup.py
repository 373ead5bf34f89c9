"""The one markup module: every piece of a table drawn in Python rather than in a template.

Each piece is a `Markup` template filled by `fill`, which escapes whatever is not markup
already, as `Markup.format` does (at a quarter of its cost: a table is drawn for every seat on
every move): a name, a sentence, a URL. Markup is trusted as it is: another piece, a face,
JSON from `tojson`, and the catalog's words where a template would show them (`_()` in a
template is trusted the same way; the functions below say where they take them). Nothing
else in the web layer writes HTML (tests/test_markup_fence.py).
"""

from __future__ import annotations

from markupsafe import Markup, escape

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
FACE_V = Markup(
    '<svg class="face v" viewBox="0 0 50 100" aria-hidden="true" focusable="false">\n'
    '<rect class="body" x="1" y="1" width="48" height="98" rx="7"/>'
    '<line class="bar" x1="6" y1="50" x2="44" y2="50"/>{}</svg>'
)
FACE_H = Markup(
    '<svg class="face h" viewBox="0 0 100 50" aria-hidden="true" focusable="false">\n'
    '<rect class="body" x="1" y="1" width="98" height="48" rx="7"/>'
    '<line class="bar" x1="50" y1="6" x2="50" y2="44"/>{}</svg>'
)
PIP = Markup('<circle class="pip" cx="{}" cy="{}" r="5"/>')

BACK = Markup('<span class="back"></span>')
BACKS = tuple(BACK * count for count in range(64))  # by count
ITEM_GAP = Markup("\n    ")  # before each tile of the line and of the hand
COMPANY_GAP = Markup("\n    \n")  # before each other seat at a table of three or four
SEQ_MARK = Markup("\x00seq\x00")  # where a kept part's `seq_vals` go, put in when it is used

LAID_ITEM = Markup('<li class="{}" data-tile="{}"{} aria-label="{}">{}</li>')
NEWEST = Markup(" data-last")
CHAIN = Markup('<ol class="chain" data-chain aria-label="{}">{}\n  </ol>')

# A tile of the own hand (docs/contracts.md, page hooks): what it does when pressed goes between
# `head` and `tail`.
BUTTON_HEAD = Markup('<button type="button" id="tile-{0}" class="tile{1}{2}" data-tile="{0}" ')
BUTTON_NAME = Markup('aria-label="{}"')
BUTTON_TAIL = Markup("{}>{}</button>")
OPENING = Markup(" data-opening")
DISABLED = Markup(" disabled")
PLAY_AT_ONCE = Markup(" data-playable hx-post=\"{}/play\" hx-vals='{}'")
UNSELECT = Markup(' data-playable aria-pressed="true" hx-get="{}"')
SELECT = Markup(' data-playable aria-pressed="false" hx-get="{}?select={}"')

PILE = Markup('<div class="pile"><strong data-boneyard-count>{}</strong> {}</div>')
RECENT = Markup('<span class="recent" data-recent="{}" data-story="{}">{}</span>')
# The live region's new text, swapped into the page's persistent `#announce` (room.html): a
# sibling of `#table`, never inside it, so that htmx swaps it on its own.
ANNOUNCE = Markup('\n<div id="announce" hx-swap-oob="innerHTML">{}</div>')

MOVE = Markup('<li data-move data-seat="{}" data-action="{}"{}>{}</li>')
MOVE_TILE = Markup(' data-tile="{}"')
TIMEOUT = Markup(" data-timeout")  # a move the computer made for a seat whose time ran out

SCORE = Markup(
    '\n  <div class="score" role="group" aria-label="{0}">\n    <span class="caption">{0}</span>'
    '{1}\n    <span class="target">{2}</span>\n  </div>'
)
SIDE = Markup('\n    <span class="side{}">{} <strong data-score data-seats="{}">{}</strong></span>')
MINE = Markup(" mine")

# The error page when even its template cannot be drawn (web/guard/security.py).
FALLBACK_PAGE = Markup("<!doctype html>\n<title>{0}</title>\n<h1>{0}</h1>\n")


def fill(template: Markup, *args) -> Markup:
    """`template`'s `{}` fields filled with `args`, each escaped unless it is markup already:
    `template.format(*args)`, byte for byte."""
    return Markup(str.format(template, *[a if isinstance(a, Markup) else escape(a) for a in args]))


def joined(parts) -> Markup:
    """Pieces one after another, each escaped unless it is markup already."""
    return Markup("".join([p if isinstance(p, Markup) else escape(p) for p in parts]))


def face(a: int, b: int, vertical: bool) -> Markup:
    """A tile's face in SVG: `a` on the left (on top when vertical), `b` on the right."""
    pips = []
    for value, shift in ((a, 0), (b, 50)):
        for x, y in PIPS[value]:
            pips.append(fill(PIP, x, y + shift) if vertical else fill(PIP, y + shift, x))
    return fill(FACE_V if vertical else FACE_H, joined(pips))


def laid_item(classes: str, tile: str, last: bool, name: str, svg: Markup) -> Markup:
    """A tile of the line as its list item, named `name` for screen readers."""
    return fill(LAID_ITEM, classes, tile, NEWEST if last else "", name, svg)


def chain(label: str, items) -> Markup:
    """The line of play's list; `label` is the catalog's words."""
    return fill(CHAIN, Markup(label), joined(items))


def button(tile: str, selected: bool, opening: bool, name: str, svg: Markup):
    """A tile of the hand as a button: (head, tail), what pressing it does between them."""
    head = fill(BUTTON_HEAD, tile, " selected" if selected else "", " opening" if opening else "")
    head += fill(BUTTON_NAME, name)
    return head, fill(BUTTON_TAIL, OPENING if opening else "", svg)


def play_at_once(room_url: str, vals: Markup) -> Markup:
    """Pressing the tile plays it (`vals`: the action's JSON)."""
    return fill(PLAY_AT_ONCE, room_url, vals)


def unselect(room_url: str) -> Markup:
    """Pressing the chosen tile lets it go."""
    return fill(UNSELECT, room_url)


def select(room_url: str, tile: str) -> Markup:
    """Pressing the tile chooses it, to lay it at the end chosen next."""
    return fill(SELECT, room_url, tile)


def pile(count: int, what: str) -> Markup:
    """The boneyard and how many tiles it holds; `what` is the catalog's words."""
    return fill(PILE, count, Markup(what))


def recent(seat: int, key: str, text: str) -> Markup:
    """One other seat's latest turn, shown for a moment."""
    return fill(RECENT, seat, key, text)


def announce(text: str) -> Markup:
    """The live region's new text."""
    return fill(ANNOUNCE, text)


def move(seat: int, action: str, tile: str | None, sentence: str, timeout: bool = False) -> Markup:
    """One item of the move list: a move, its tile if it laid one, in one sentence (with
    `timeout`, marked as made by the computer when the seat's time ran out)."""
    attributes = fill(MOVE_TILE, tile) if tile is not None else Markup()
    if timeout:
        attributes += TIMEOUT
    return fill(MOVE, seat, action, attributes, sentence)


def score(caption: str, sides, target: str) -> Markup:
    """The match's score: `sides` as (mine, name, seats, score); `caption` and `target` are the
    catalog's words."""
    shown = [fill(SIDE, MINE if mine else "", name, seats, num) for mine, name, seats, num in sides]
    return fill(SCORE, Markup(caption), joined(shown), Markup(target))


def fallback_page(message: str) -> Markup:
    """The error page showing `message`, drawn without a template."""
    return fill(FALLBACK_PAGE, message)
