"""The table's story: the round's public moves in order, and what the other seats just did.

Everything here is read from a seat's `TableView`, from its public history only: a drawn
tile is never named, whoever drew it. `steps` and `recent` are plain data; a `Teller` words
them in the page's language (docs/contracts.md, page hooks `data-move-list`, one `data-move` per
public move).

At a table of three or four several seats may move between two moves of one's own: the
notes then hold one line per seat that moved since, its latest turn summed up ("West drew
2 tiles and passed"), in the order they moved.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ...events import PublicMove
from ...game import laid_at
from ...tiles import Laid
from ...views import TableView
from . import markup, sentences
from .i18n import gettext, ngettext, words
from .kept import EVER, kept, recall, remember
from .names import Name, name_of


@dataclass(frozen=True, slots=True)
class Step:
    """One public move as the move list tells it.

    `laid` is a play's tile as it lies in the line (left half first); `end` is where it went,
    None for the opening tile and for draws and passes.
    """

    seat: int
    action: str
    laid: Laid | None = None
    end: str | None = None


@dataclass(frozen=True, slots=True)
class Recent:
    """What another seat did in its latest turn since this seat's own last move.

    `drew` tiles drawn, then `last` (its play or pass), if it has made one; `at` is the index
    in the history of the latest move told, which tells one note from the next.
    """

    seat: int
    drew: int
    last: Step | None
    at: int


def step(move: PublicMove) -> Step:
    """The move list's view of one public move."""
    if move.action != "play":
        return Step(move.seat, move.action)
    if move.left is None or move.right is None:  # the opening: the tile lies low half first
        return Step(move.seat, "play", Laid(move.tile.low, move.tile.high))
    return Step(move.seat, "play", laid_at(move.tile, move.end, (move.left, move.right)), move.end)


def steps(history: tuple[PublicMove, ...]) -> tuple[Step, ...]:
    """Every public move of the round, oldest first."""
    return tuple(map(step, history))


def recent(tv: TableView) -> tuple[Recent, ...]:
    """For each other seat that moved since this seat's last move, its latest turn.

    A turn is the seat's draws and the play or pass that ends them: several draws in a row
    add up ("drew 3 tiles"), and a turn of its own that follows starts the count again.
    """
    history = tv.game.history
    since = next((i + 1 for i in range(len(history) - 1, -1, -1) if history[i].seat == tv.seat), 0)
    found = []
    for seat in tv.others:
        drew, last, at = 0, None, None
        for index in range(since, len(history)):
            move = history[index]
            if move.seat != seat:
                continue
            if last is not None:  # a new turn of the same seat
                drew, last = 0, None
            if move.action == "draw":
                drew += 1
            else:
                last = step(move)
            at = index
        if at is not None:
            found.append(Recent(seat, drew, last, at))
    return tuple(found)


def who(tv: TableView, seat: int) -> str | Name:
    """`you`, `computer` or `friend`: whose move it is, as this seat's table words it; at a
    table of three or four, or for a friend with a name, another seat's `Name`
    (web/view/names.py)."""
    if seat == tv.seat:
        return "you"
    if tv.rules.seats > 2:
        return name_of(tv, seat)
    if tv.kind == "computer":
        return "computer"
    name = name_of(tv, seat)
    return name if name.given else "friend"


@dataclass(frozen=True, slots=True)
class Note:
    """One other seat's recent turn, worded: `key` is the same for the same turn."""

    seat: int
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Story:
    """What a table shows of its story: the move list's items, their number, the notes."""

    items: Markup
    count: int
    notes: tuple[Note, ...]


TELLERS = kept(EVER)  # one Teller per language: the words never change while we run


class Teller:
    """The story in words of one language; each move list item is worded once and kept
    (a play's by its tile, its end and the value it joins there, which fix how it lies)."""

    @classmethod
    def current(cls, speak) -> Teller:
        """The teller of the current language, naming tiles with `speak` (render.Speaker)."""
        lang = words().lang
        found = recall(TELLERS, lang)
        if found is None:
            found = cls(speak)
            remember(TELLERS, lang, found)
        return found

    def __init__(self, speak) -> None:
        self.speak = speak
        self._items = kept(EVER)  # each move list item, by who, where and what
        # Each seat's move list as last told, by (room, seat): (history, persons, items, timed out).
        self._told = kept()

    @property
    def caches(self) -> tuple:
        """What the teller keeps: each move list item worded, each seat's move list told."""
        return self._items, self._told

    def tell(self, tv: TableView) -> Story:
        """The story of `tv`'s round so far: the move list told last time for this seat, if
        this history goes on from it and names everyone the same, and the moves since."""
        history = tv.game.history
        persons = [who(tv, seat) for seat in range(tv.rules.seats)]
        key, start, items = (tv.room, tv.seat), 0, Markup()
        told = recall(self._told, key)
        if (
            told is not None
            and told[1] == persons
            and history[: len(told[0])] == told[0]
            and told[3] == _marked(tv.timed_out, len(told[0]))
        ):  # the same moves, told of the same persons, the same of them timed out
            start, items = len(told[0]), told[2]
        if start < len(history):
            items += markup.joined(self.items(persons, history[start:], start, tv.timed_out))
        if not any(isinstance(person, Name) and person.given for person in persons):
            told = (history, persons, items, _marked(tv.timed_out, len(history)))
            remember(self._told, key, told)  # a given name is not kept
        notes = tuple(
            Note(told.seat, str(told.at), self.note(persons[told.seat], told))
            for told in sorted(recent(tv), key=lambda told: told.at)
        )
        return Story(items, len(history), notes)

    def items(self, persons: list, moves, start: int = 0, timed_out=frozenset()) -> list[Markup]:
        """The move list's items of `moves` (from index `start` of the round's history),
        made by `persons` (by seat); those at the indices `timed_out` the computer made for a
        seat whose time ran out (a public table's clock: worded and marked so, never kept)."""
        known = self._items
        items = []
        for index, move in enumerate(moves, start):
            person = persons[move.seat]
            if index in timed_out:
                told = step(move)
                said = self.sentence(person, told)
                text = gettext("%(move)s (time ran out: the computer moved)", move=said)
                tile = str(told.laid) if told.laid is not None else None
                items.append(markup.move(told.seat, told.action, tile, text, timeout=True))
                continue
            key = (person, move.seat, move.action)
            if move.action == "play":  # a tile lies by the value it joins (none: the opening)
                joined = None
                if move.left is not None:
                    joined = move.left if move.end == "left" else move.right
                key += (move.tile, move.end if joined is not None else None, joined)
            if isinstance(person, Name) and person.given:  # a player's own name: not kept
                items.append(self.item(person, step(move)))
                continue
            item = recall(known, key)
            if item is None:
                item = self.item(person, step(move))
                remember(known, key, item)
            items.append(item)
        return items

    def item(self, person: str, told: Step) -> Markup:
        """A move list item for `told`, made by `person` (`you`, `computer` or `friend`)."""
        tile = str(told.laid) if told.laid is not None else None
        return markup.move(told.seat, told.action, tile, self.sentence(person, told))

    def sentence(self, person: str | Name, told: Step) -> str:
        """One move in one sentence."""
        if isinstance(person, Name):
            return self.named(person, told)
        if told.action == "draw":
            return DREW[person]()
        if told.action == "pass":
            return PASSED[person]()
        tile = self.speak.halves(told.laid.left, told.laid.right)
        return LAID[person, told.end](tile)

    def named(self, name: Name, told: Step) -> str:
        """Another seat's move at a table of three or four, in one sentence."""
        if told.action == "draw":
            return sentences.drew(name)
        if told.action == "pass":
            return sentences.passed(name)
        return sentences.laid(name, told.end, self.speak.halves(told.laid.left, told.laid.right))

    def note(self, person: str | Name, told: Recent) -> str:
        """Another seat's latest turn in one sentence: its draws added up, then its move."""
        if isinstance(person, Name):
            return self.named_note(person, told)
        last = told.last
        if not told.drew:
            return self.sentence(person, last)
        if last is None:
            return DREW_SOME[person](told.drew)
        if last.action == "pass":
            return DREW_AND_PASSED[person](told.drew)
        if last.end is None:  # no rule lets a seat draw before the opening; said plainly
            return f"{DREW_SOME[person](told.drew)} {self.sentence(person, last)}"
        tile = self.speak.halves(last.laid.left, last.laid.right)
        return DREW_AND_LAID[person, last.end](told.drew, tile)

    def named_note(self, name: Name, told: Recent) -> str:
        """`note` at a table of three or four."""
        last = told.last
        if not told.drew:
            return self.named(name, last)
        if last is None:
            return sentences.drew_some(name, told.drew)
        if last.action == "pass":
            return sentences.drew_and_passed(name, told.drew)
        if last.end is None:
            return f"{sentences.drew_some(name, told.drew)} {self.named(name, last)}"
        tile = self.speak.halves(last.laid.left, last.laid.right)
        return sentences.drew_and_laid(name, told.drew, last.end, tile)


# The sentences, by who and where. Each msgid is written out whole for the catalogs; the
# other seats' plays and passes are the live region's own words (render.announcement).
DREW = {
    "you": lambda: gettext("You drew a tile."),
    "computer": lambda: gettext("The computer drew a tile."),
    "friend": lambda: gettext("Your friend drew a tile."),
}
PASSED = {
    "you": lambda: gettext("You passed."),
    "computer": lambda: gettext("The computer passed."),
    "friend": lambda: gettext("Your friend passed."),
}
LAID = {
    ("you", None): lambda tile: gettext("You opened with %(tile)s.", tile=tile),
    ("you", "left"): lambda tile: gettext("You laid %(tile)s on the left.", tile=tile),
    ("you", "right"): lambda tile: gettext("You laid %(tile)s on the right.", tile=tile),
    ("computer", None): lambda tile: gettext("The computer opened with %(tile)s.", tile=tile),
    ("computer", "left"): lambda tile: gettext(
        "The computer laid %(tile)s on the left.", tile=tile
    ),
    ("computer", "right"): lambda tile: gettext(
        "The computer laid %(tile)s on the right.", tile=tile
    ),
    ("friend", None): lambda tile: gettext("Your friend opened with %(tile)s.", tile=tile),
    ("friend", "left"): lambda tile: gettext("Your friend laid %(tile)s on the left.", tile=tile),
    ("friend", "right"): lambda tile: gettext("Your friend laid %(tile)s on the right.", tile=tile),
}
DREW_SOME = {
    "computer": lambda num: ngettext(
        "The computer drew %(num)d tile.", "The computer drew %(num)d tiles.", num
    ),
    "friend": lambda num: ngettext(
        "Your friend drew %(num)d tile.", "Your friend drew %(num)d tiles.", num
    ),
}
DREW_AND_PASSED = {
    "computer": lambda num: ngettext(
        "The computer drew %(num)d tile and passed.",
        "The computer drew %(num)d tiles and passed.",
        num,
    ),
    "friend": lambda num: ngettext(
        "Your friend drew %(num)d tile and passed.",
        "Your friend drew %(num)d tiles and passed.",
        num,
    ),
}
DREW_AND_LAID = {
    ("computer", "left"): lambda num, tile: ngettext(
        "The computer drew %(num)d tile and laid %(tile)s on the left.",
        "The computer drew %(num)d tiles and laid %(tile)s on the left.",
        num,
        tile=tile,
    ),
    ("computer", "right"): lambda num, tile: ngettext(
        "The computer drew %(num)d tile and laid %(tile)s on the right.",
        "The computer drew %(num)d tiles and laid %(tile)s on the right.",
        num,
        tile=tile,
    ),
    ("friend", "left"): lambda num, tile: ngettext(
        "Your friend drew %(num)d tile and laid %(tile)s on the left.",
        "Your friend drew %(num)d tiles and laid %(tile)s on the left.",
        num,
        tile=tile,
    ),
    ("friend", "right"): lambda num, tile: ngettext(
        "Your friend drew %(num)d tile and laid %(tile)s on the right.",
        "Your friend drew %(num)d tiles and laid %(tile)s on the right.",
        num,
        tile=tile,
    ),
}


def _marked(timed_out, moves: int) -> frozenset[int]:
    """The timed-out moves among a round's first `moves`."""
    return frozenset(index for index in timed_out if index < moves)
