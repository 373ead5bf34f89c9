"""Who sits where, in words: each seat of a table named as one seat's table calls it.

At two seats the other seat is "your friend" (or its player's name, SPEC §11) or "the
computer". At three
and four seats a seat is named by where it sits, seen from the viewer: the viewer is South
and play goes round counter-clockwise, so the next seat is East, the one across is North and
the one before is West (three seats: East and West). At four seats the one across is the
viewer's partner and is called "your partner". A seat whose player gave a display name is
called by that name (shown escaped, like any text), which may therefore be none of those words
in any language (`reserved_words`): a player named "Your partner" would pass for one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from flask import current_app
from flask_babel import force_locale, get_translations

from ...views import TableView
from . import rules_text
from .faces import BACKS
from .i18n import LANGUAGES, Words, gettext, ngettext, pgettext, speaking, words
from .kept import EVER, kept, recall, remember


@dataclass(frozen=True, slots=True)
class Name:
    """A seat's name: `label` heads its place and starts a sentence ("Your partner"),
    `inline` stands inside one ("your partner"); `given` marks a player's own display name,
    which no cache may keep (it is theirs, and there is no end to them)."""

    label: str
    inline: str
    given: bool = False


def place(tv: TableView, seat: int) -> str:
    """Where `seat` sits, seen from this seat: East, North, West, or "your partner"."""
    step = (seat - tv.seat) % tv.rules.seats
    if step == 1:
        return pgettext("seat", "East")
    if step == tv.rules.seats - 1:
        return pgettext("seat", "West")
    if tv.rules.teams:
        return gettext("your partner")
    return pgettext("seat", "North")


def name_of(tv: TableView, seat: int) -> Name:
    """How this seat's table calls `seat`."""
    if seat == tv.seat:
        return Name(gettext("You"), gettext("you"))
    if tv.rules.seats == 2 and tv.kind == "computer":
        return Name(gettext("The computer"), gettext("the computer"))
    given = _given(tv, seat)
    if given:  # a display name, or a signed-in player's name (SPEC §11)
        return Name(given, given, True)
    if tv.rules.seats == 2:
        return Name(gettext("Your friend"), gettext("your friend"))
    if tv.rules.teams and (seat - tv.seat) % 4 == 2:
        return Name(gettext("Your partner"), gettext("your partner"))
    where = place(tv, seat)
    return Name(where, where)


def seat_words() -> tuple[str, ...]:
    """Every word the table calls a seat by in the current language: what `name_of` and
    `place` say of a seat that has no display name."""
    return (
        gettext("You"),
        gettext("you"),
        gettext("The computer"),
        gettext("the computer"),
        gettext("Your friend"),
        gettext("your friend"),
        gettext("Your partner"),
        gettext("your partner"),
        pgettext("seat", "East"),
        pgettext("seat", "West"),
        pgettext("seat", "North"),
    )


@functools.cache  # the catalogs never change while we run
def reserved_words() -> frozenset[str]:
    """The seat words of every language we speak: no display name may be one or hold one
    (`domino.actions.is_reserved`), whichever language the others read the table in."""
    every = set()
    for lang in LANGUAGES:
        with force_locale(lang):
            catalog = get_translations()
        with speaking(Words(lang, catalog)):
            every.update(seat_words())
    return frozenset(every)


def _given(tv: TableView, seat: int) -> str:
    """The display name the seat's player gave, if any."""
    for other in tv.company:
        if other.seat == seat:
            return other.name
    return ""


def spoken(name: Name, text: str) -> str:
    """`text`, worded with `name.inline`, made to start with a capital where the name starts
    it ("your partner passed." → "Your partner passed."); a given name is left as given."""
    if name.inline != name.label and text.startswith(name.inline):
        return name.label + text[len(name.inline) :]
    return text


def many(tv: TableView) -> bool:
    """True at a table of three or four."""
    return tv.rules.seats > 2


LEVEL_WORDS = kept(EVER)  # by language: the words never change while we run


def level_word(level: str | None) -> str:
    """A computer level in words ("medium")."""
    lang = words().lang
    known = recall(LEVEL_WORDS, lang)
    if known is None:
        known = dict(rules_text.choices("level"))
        remember(LEVEL_WORDS, lang, known)
    return known.get(level or "", level or "")


def away_minutes() -> int:
    """How long a player must be away before their seat may be handed over, in whole
    minutes (at least one)."""
    return max(1, round(current_app.config.get("AWAY_SECONDS", 120) / 60))


def away_note(name: Name) -> str:
    """That a player has been away long enough to hand their seat to the computer."""
    num = away_minutes()
    text = ngettext(
        "%(name)s has been away for %(num)d minute.",
        "%(name)s has been away for %(num)d minutes.",
        num,
        name=name.inline,
    )
    return spoken(name, text)


def handed_note(name: Name, lost: bool = False) -> str:
    """That the computer plays a seat until its player is back (`lost`: until the match
    ends, its player having left it at a public table)."""
    if lost:
        return gettext("%(name)s left the match: the computer plays to its end", name=name.inline)
    return gettext("played by the computer until %(name)s is back", name=name.inline)


def hand_over_label(name: Name) -> str:
    """The button that hands an away player's seat to the computer."""
    return gettext("Let the computer play for %(name)s", name=name.inline)


def to_play(tv: TableView, seat: int) -> str:
    """Whose turn it is, when it is another seat's ("West to play")."""
    name = name_of(tv, seat)
    return spoken(name, gettext("%(name)s to play", name=name.inline))


def waiting_note(tv: TableView) -> str:
    """Why a table of three or four waits: seats still free, or players away."""
    free = free_seats(tv)
    if free:
        return ngettext(
            "waiting for %(num)d more player to join",
            "waiting for %(num)d more players to join",
            free,
        )
    away = [other.seat for other in tv.company if not other.connected]
    if len(away) == 1:
        return gettext("waiting for %(name)s to come back", name=name_of(tv, away[0]).inline)
    return ngettext(
        "waiting for %(num)d player to come back",
        "waiting for %(num)d players to come back",
        len(away),
    )


def free_seats(tv: TableView) -> int:
    """How many seats nobody has taken yet."""
    return sum(1 for other in tv.company if not other.held and other.computer is None)


def record_name(tv: TableView) -> str:
    """Which seat of the round records is this one, in words ("In these records you are
    “player 1”."): the records name seats as SPEC §7.1 fixes (`domino.room_records.record_names`:
    "computer" for a seat the computer played, "player" for a computer room's person, else
    "player k"), which a page cannot change, only explain."""
    if tv.handed:
        name = "computer"
    elif tv.kind == "computer":
        name = "player"
    else:
        name = f"player {tv.seat + 1}"
    return gettext("In these records you are “%(name)s”.", name=name)


def shown_company(tv: TableView) -> list:
    """The other seats as the table lays them out from left to right: West, North, East
    (the reverse of turn order, as seen from the South seat)."""
    return list(reversed(tv.company))


def seat_values(tv: TableView, c, moving: bool) -> dict:
    """What company.html shows of another seat `c`."""
    name = name_of(tv, c.seat)
    return {
        "c": c,
        "turn": moving,
        "name": name,
        "where": place(tv, c.seat) if name.given else None,
        "handed": handed_note(name, c.lost) if c.held and c.computer else None,
        "level": level_word(c.computer) if c.computer else None,
        "backs": BACKS[c.count],
        "public": tv.public,  # an away player's countdown: out of the match, not a hand-over
    }
