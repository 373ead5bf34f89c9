"""Another seat's moves in words at a table of three or four: "East drew a tile", "your
partner passed", each sentence naming the seat as web/naming.py does.

The two-seat table keeps its own sentences (web/story.py, web/render.py), word for word.
Each msgid is written out whole for the catalogs.
"""

from __future__ import annotations

from flask_babel import gettext, ngettext

from .naming import Name, spoken


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
