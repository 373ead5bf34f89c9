"""Rule-of-thumb play: `easy` (heavy tiles, now and then a slip) and `medium`.

`medium` shuts out its opponents (the next seat fully, later ones by `FAR`), and with a
partner it keeps the partner's ends open: it avoids leaving numbers the partner has shown it
lacks, and leaves the numbers the partner has laid to by choice (its likely strengths).
"""

from __future__ import annotations

from random import Random

from ..events import Action, Play
from ..game import laid_at
from ..views import SeatView
from .knowledge import Knowledge, Other, deduce


def ends_after(view: SeatView, play: Play) -> tuple[int, int]:
    """The open ends once `play` is laid."""
    tile = play.tile
    if view.ends is None:
        return tile.low, tile.high
    left, right = view.ends
    laid = laid_at(tile, play.end, view.ends)
    return (laid.left, right) if play.end == "left" else (left, laid.right)


def score(view: SeatView, know: Knowledge, play: Play, weights: dict) -> float:
    """How good laying `play` looks: shed weight, keep options, shut the opponents out,
    keep the partner in."""
    tile = play.tile
    left, right = ends_after(view, play)
    rest = [t for t in view.hand if t is not tile]
    fits_after = sum(1 for t in rest if t.has(left) or t.has(right))
    numbers = {n for t in rest for n in (t.low, t.high)}
    value = weights["pips"] * tile.pips
    value += weights["double"] * tile.is_double
    value += weights["follow"] * min(fits_after, 3)
    value += weights["variety"] * len(numbers)
    value += weights["void"] * shut_out(know, {left, right})
    open_to_them = sum(1 for t in know.unseen if t.has(left) or t.has(right))
    value -= weights["open"] * open_to_them
    partner = know.partner
    if partner is not None and weights["partner"]:
        value += weights["partner"] * keeps_in(partner, {left, right})
    if not rest:
        value += 1000  # domino
    return value


def shut_out(know: Knowledge, ends: set[int]) -> float:
    """How many of `ends` the opponents lack: the next seat's count fully, later ones' by FAR."""
    shut = 0.0
    for other in know.opponents:
        lacks = sum(1 for n in ends if n in other.voids)
        shut += lacks if other.turns == 1 else FAR * lacks
    return shut


def keeps_in(partner: Other, ends: set[int]) -> float:
    """How well `ends` suit the partner: its strengths count for, its voids against."""
    strong = sum(partner.strengths.get(n, 0) for n in ends)
    lacks = sum(1 for n in ends if n in partner.voids)
    return min(strong, STRONG_CAP) - BLOCKED_PARTNER * lacks


FAR = 0.5  # an opponent's void after the next seat's counts this much
STRONG_CAP = 2  # partner strengths counted at most
BLOCKED_PARTNER = 1.5  # an end the partner lacks costs this many strengths
SLIP = 0.2  # how often `easy` plays any legal tile instead of its choice
MEDIUM = {
    "pips": 1.0,
    "double": 4.0,
    "follow": 2.5,
    "variety": 1.0,
    "void": 8.0,
    "open": 0.6,
    "partner": 2.0,
}
EASY = {
    "pips": 1.0,
    "double": 3.0,
    "follow": 1.5,
    "variety": 0.0,
    "void": 0.0,
    "open": 0.0,
    "partner": 0.0,
}


def best_play(view: SeatView, weights: dict, rng: Random) -> Action:
    """The legal action with the highest score (ties broken at random)."""
    legal = view.legal
    if len(legal) == 1 or not isinstance(legal[0], Play):
        return legal[0]
    know = deduce(view)
    scored = [(score(view, know, play, weights), play) for play in legal]
    top = max(value for value, _ in scored)
    best = [play for value, play in scored if value == top]
    return best[0] if len(best) == 1 else rng.choice(best)


def medium_bot(view: SeatView, rng: Random) -> Action:
    """Weigh pips, doubles, tiles to follow with, variety, the opponents' voids and the
    partner's voids and strengths."""
    return best_play(view, MEDIUM, rng)


def easy_bot(view: SeatView, rng: Random) -> Action:
    """Lean to heavy tiles and doubles, but slip now and then."""
    legal = view.legal
    if len(legal) > 1 and rng.random() < SLIP:
        return rng.choice(legal)
    return best_play(view, EASY, rng)
