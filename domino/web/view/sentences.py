"""Another seat's moves in words: "East drew a tile", "your partner passed", each sentence
naming the seat as web/view/names.py does at a table of three or four; and what the live region
says after each move (`announcement`), at any table.

The two-seat table keeps its own sentences (web/view/story.py, `_their_move` here), word for word.
Each msgid is written out whole for the catalogs.
"""

from __future__ import annotations

from ...events import PublicMove
from ...game import laid_at
from ...views import TableView
from .i18n import gettext, ngettext
from .names import Name, handed_note, level_word, name_of, spoken, to_play, waiting_note
from .scoring import headline, match_headline, score_line


def drew(name: Name) -> str:
    """One tile drawn."""
    return spoken(name, gettext("%(name)s drew a tile.", name=name.inline))


def drew_held(name: Name, held: int) -> str:
    """One tile drawn, and how many the seat now holds (the live region's words)."""
    text = gettext("%(name)s drew a tile (%(num)d in their hand).", name=name.inline, num=held)
    return spoken(name, text)


def passed(name: Name) -> str:
    """A pass."""
    return spoken(name, gettext("%(name)s passed.", name=name.inline))


def laid(name: Name, end: str | None, tile: str) -> str:
    """A tile laid at `end` (None: the opening tile)."""
    if end is None:
        text = gettext("%(name)s opened with %(tile)s.", name=name.inline, tile=tile)
    elif end == "left":
        text = gettext("%(name)s laid %(tile)s on the left.", name=name.inline, tile=tile)
    else:
        text = gettext("%(name)s laid %(tile)s on the right.", name=name.inline, tile=tile)
    return spoken(name, text)


def drew_some(name: Name, num: int) -> str:
    """Several draws in one turn, with nothing laid yet."""
    text = ngettext(
        "%(name)s drew %(num)d tile.", "%(name)s drew %(num)d tiles.", num, name=name.inline
    )
    return spoken(name, text)


def drew_and_passed(name: Name, num: int) -> str:
    """Draws, then a pass, in one turn."""
    text = ngettext(
        "%(name)s drew %(num)d tile and passed.",
        "%(name)s drew %(num)d tiles and passed.",
        num,
        name=name.inline,
    )
    return spoken(name, text)


def drew_and_laid(name: Name, num: int, end: str, tile: str) -> str:
    """Draws, then a tile laid at `end`, in one turn."""
    if end == "left":
        text = ngettext(
            "%(name)s drew %(num)d tile and laid %(tile)s on the left.",
            "%(name)s drew %(num)d tiles and laid %(tile)s on the left.",
            num,
            name=name.inline,
            tile=tile,
        )
    else:
        text = ngettext(
            "%(name)s drew %(num)d tile and laid %(tile)s on the right.",
            "%(name)s drew %(num)d tiles and laid %(tile)s on the right.",
            num,
            name=name.inline,
            tile=tile,
        )
    return spoken(name, text)


def announcement(tv: TableView, speak, notice: str | None = None) -> str:
    """What the live region says now: the other seat's last move, a drawn tile, whose turn it
    is, the result (`speak`: faces.Speaker). Screen readers speak it when it changes."""
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


def _their_move(tv: TableView, speak, move: PublicMove) -> str:
    """The other seat's move, in one sentence."""
    if tv.rules.seats > 2 or name_of(tv, move.seat).given:
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


def _named_move(tv: TableView, speak, move: PublicMove) -> str:
    """Another seat's move at a table of three or four, naming the seat ("East drew a tile
    (6 in their hand).", "Your partner passed.")."""
    name = name_of(tv, move.seat)
    if move.action == "play":
        if move.left is None or move.right is None:
            return laid(name, None, speak.tile(move.tile))
        tile = speak.halves(*laid_at(move.tile, move.end, (move.left, move.right)))
        return laid(name, move.end, tile)
    if move.action == "draw":
        return drew_held(name, tv.game.counts[move.seat])
    return passed(name)


def table_summary(tv: TableView) -> dict:
    """One of a browser's tables as the home page lists it ("your tables"): `turn`, a hook
    word ("you", "other", "waiting" or "over"), `status`, whose turn it is in words, and
    `seats`, who sits where ("You · Your friend (away)"), from this seat's view alone."""
    g = tv.game
    if not tv.full:
        turn = "waiting"
        if tv.rules.seats == 2:
            status = gettext("Waiting for your friend to join")
        else:
            status = _capital(waiting_note(tv))
    elif g.over:
        turn = "over"
        result = match_headline(tv) if tv.match is not None and tv.match.over else headline(tv)
        status = gettext("Round over: %(result)s", result=result)
    elif g.my_turn:
        turn, status = "you", gettext("Your turn")
    else:
        turn, status = "other", to_play(tv, g.turn)
    seats = [gettext("You")]
    for other in tv.company:
        name = name_of(tv, other.seat)
        seats.append(f"{name.label} ({_presence(tv, other, name)})")
    return {"turn": turn, "status": status, "seats": " · ".join(seats)}


def _presence(tv: TableView, other, name: Name) -> str:
    """Where another seat is: not taken yet, played by the computer, here or away."""
    if not other.held and other.computer is None:
        return gettext("not here yet")
    if other.computer is not None:
        return handed_note(name, other.lost) if other.held else level_word(other.computer)
    return gettext("at the table") if other.connected else gettext("away")


def _capital(text: str) -> str:
    """`text` starting with a capital (the words in the middle are left as they are)."""
    return text[:1].upper() + text[1:]
