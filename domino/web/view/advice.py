"""A round review in words: each move of the round, each weighed decision, and why a costly
one cost what it did, in the page's language (web/routes/review.py draws them).

The analysis (bots/analysis.py) gives each decision the mean net points of the play made and
of the best one, and a reason code; here they become sentences a player reads: tiles by their
names ("double six", "three–five"), values as "about 14 points worse on average", never as
bare numbers.
"""

from __future__ import annotations

from ...tiles import Tile
from ...views import TableView
from .faces import Speaker
from .i18n import gettext, ngettext
from .names import name_of

EVEN = 0.5  # a play that cost less than this is as good as the best


def tile_of(play: str) -> Tile:
    """The tile of a play as the analysis writes it ("4-6:right")."""
    return Tile.parse(play.split(":")[0])


def points(cost: float) -> str:
    """A cost in points, in words: "about 14 points" (at least one)."""
    num = max(1, round(cost))
    return ngettext("about %(num)d point", "about %(num)d points", num)


def worth(row: dict) -> str:
    """What the play made was worth against the best one, in words."""
    if row["cost"] < EVEN:
        return gettext("As good as the best play here.")
    best = Speaker.current().tile(tile_of(row["best"]))
    num = max(1, round(row["cost"]))
    return ngettext(
        "About %(num)d point worse on average than %(best)s.",
        "About %(num)d points worse on average than %(best)s.",
        num,
        best=best,
    )


def ends_words(ends) -> str:
    """The open ends' numbers: "3" or "3 or 5"."""
    low, high = min(ends), max(ends)
    if low == high:
        return str(low)
    return gettext("%(low)d or %(high)d", low=low, high=high)


def explain(row: dict, tv: TableView) -> str:
    """Why a costly play cost what it did: what it gave away, and what the better play kept."""
    code, details = row["reason"]
    speak = Speaker.current()
    words = {
        "made": speak.tile(tile_of(row["made"])),
        "best": speak.tile(tile_of(row["best"])),
        "cost": points(row["cost"]),
    }
    if code == "leaves-void":
        words["number"] = details["number"]
        if details["seat"] == tv.seat:
            return gettext(
                "Laying %(made)s here cost %(cost)s on average: it closed the end showing "
                "%(number)d, a number you had shown you lack; %(best)s would have kept it open.",
                **words,
            )
        words["who"] = name_of(tv, details["seat"]).inline
        return gettext(
            "Laying %(made)s here cost %(cost)s on average: it closed the end showing "
            "%(number)d, a number %(who)s had shown they lack; %(best)s would have kept it "
            "open.",
            **words,
        )
    if code == "double":
        return gettext(
            "Laying %(made)s here cost %(cost)s on average: it held back %(best)s, a double "
            "that fits only one number and is easily stranded; laying it now would have got it "
            "out while it still fitted.",
            **words,
        )
    if code == "no-answer":
        words["ends"] = ends_words(details["ends"])
        return gettext(
            "Laying %(made)s here cost %(cost)s on average: it left no tile to follow on "
            "%(ends)s, so the next turn meant drawing or passing; %(best)s would have kept a "
            "tile to answer with.",
            **words,
        )
    if code == "kept-heavy":
        words["pips"] = details["pips"]
        return gettext(
            "Laying %(made)s here cost %(cost)s on average: it kept %(best)s in hand, "
            "%(pips)d pips that count against the hand still holding them when the round "
            "ends; laying it would have shed them.",
            **words,
        )
    return gettext(
        "Laying %(made)s here cost %(cost)s on average: over the ways the hidden tiles "
        "could lie, %(best)s did better, for no one simple reason.",
        **words,
    )


def decision(row: dict, tv: TableView) -> dict:
    """A decision as the page shows it: who chose, both tiles, its worth, and why if costly."""
    return {
        **row,
        "who": name_of(tv, row["seat"]).label,
        "made_tile": tile_of(row["made"]),
        "best_tile": tile_of(row["best"]),
        "worth": worth(row),
        "reason": row["reason"][0],
        "sentence": explain(row, tv) if row["costly"] else "",
        "move": row["index"] + 1,  # moves are counted from 1 everywhere on the page
    }


def move_sentence(move, tv: TableView) -> str:
    """One move of the round in words: who laid which tile, drew, or passed."""
    who = name_of(tv, move.seat).label
    tile = getattr(move, "tile", None)
    if tile is not None and getattr(move, "end", None) is not None:
        return gettext("%(who)s played %(tile)s.", who=who, tile=Speaker.current().tile(tile))
    if tile is not None:
        return gettext("%(who)s drew a tile.", who=who)
    return gettext("%(who)s passed.", who=who)
