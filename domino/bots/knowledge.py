"""What a seat can work out from its view alone: unseen tiles and the other hand's voids."""

from __future__ import annotations

from dataclasses import dataclass

from ..tiles import Tile
from ..views import SeatView


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Public deductions for the seat that owns the view (two-player rounds).

    `unseen` are the tiles neither in this hand nor in the line: the other hand and the
    boneyard between them. `voids` are the numbers the other hand certainly holds none of
    now; `old_voids` maps a number it lacked earlier to how many of its current tiles may
    have been drawn since (so at most that many can show it).
    """

    unseen: tuple[Tile, ...]
    other: int
    other_count: int
    boneyard_count: int
    voids: frozenset[int]
    old_voids: dict[int, int]
    free_plays: tuple[tuple[Tile, int, int], ...] = ()


def deduce(view: SeatView) -> Knowledge:
    """Read the view's history for what the other seat must lack."""
    seat = view.seat
    other = 1 - seat
    seen = set(view.hand)
    seen.update(laid.tile for laid in view.line)
    unseen = tuple(t for t in view.rules.full_set() if t not in seen)
    voids, old_voids = _voids(view.history, other)
    free = _free_plays(view.history, other)
    return Knowledge(unseen, other, view.counts[other], view.boneyard_count, voids, old_voids, free)


def _free_plays(history, other: int) -> tuple[tuple[Tile, int, int], ...]:
    """The other seat's plays made by choice (not right after drawing), with the ends then."""
    free, drew = [], False
    for move in history:
        if move.seat != other:
            continue
        if move.action == "play" and not drew and move.left is not None:
            free.append((move.tile, move.left, move.right))
        drew = move.action == "draw"
    return tuple(free)


def _voids(history, other: int) -> tuple[frozenset[int], dict[int, int]]:
    """Numbers the other seat lacks now, and earlier lacks weakened by later draws.

    A seat draws or passes only when nothing in its hand fits either end, and a run of draws
    stops at the first tile that fits, which it must then lay. So after every run (and every
    pass) its whole hand lacks both ends. Tiles kept from a later run may show numbers it
    lacked before: `old` counts how many such tiles there can be for each of those numbers.
    """
    voids: set[int] = set()
    old: dict[int, int] = {}
    drawn = 0
    for move in history:
        if move.seat != other:
            continue
        if move.action == "draw":
            drawn += 1
            continue
        if move.action == "play" and not drawn:
            continue  # a free choice says nothing about the rest of the hand
        kept = drawn if move.action == "pass" else drawn - 1
        ends = {move.left, move.right}
        if kept:
            for number in old:
                old[number] += kept
            for number in voids:
                old[number] = kept
            voids = set()
        voids |= ends
        for number in ends:
            old.pop(number, None)
        drawn = 0
    if drawn:  # mid-run (not reachable from a view at one's own turn): nothing certain
        voids = set()
    return frozenset(voids), old
