"""The fair tile counter: what any seat can count from public facts alone (issue 16).

For each number, how many of the tiles showing it this seat has not seen (neither in its
hand nor on the line), and for each other seat the numbers it has shown it lacks. Every
seat that turns the counter on gets the same aid, built from its own hand, the line and the
public history, so it can tell nothing a careful player could not work out at the table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .events import PublicMove
from .rules import Rules
from .tiles import Laid, Tile


@dataclass(frozen=True, slots=True)
class TileCounter:
    """One seat's counter.

    `unseen[n]` is how many tiles showing n are in neither this seat's hand nor the line
    (a double counts once). `lacks` holds each other seat, in seat order, with the numbers
    it has shown it lacks now, in increasing order: `((seat, (4, 6)), ...)`.
    """

    unseen: tuple[int, ...]
    lacks: tuple[tuple[int, tuple[int, ...]], ...]

    def lacking(self, seat: int) -> tuple[int, ...]:
        """The numbers `seat` (another seat) has shown it lacks."""
        return next((numbers for other, numbers in self.lacks if other == seat), ())


def tile_counter(
    rules: Rules,
    seat: int,
    hand: Iterable[Tile],
    line: Iterable[Laid],
    history: Iterable[PublicMove],
) -> TileCounter:
    """The counter of `seat`, from its own hand, the line and the public history only."""
    seen = set(hand)
    seen.update(laid.tile for laid in line)
    unseen = [0] * (rules.max_pip + 1)
    for tile in rules.full_set():
        if tile not in seen:
            unseen[tile.low] += 1
            if not tile.is_double:
                unseen[tile.high] += 1
    history = tuple(history)
    lacks = tuple(
        (other, tuple(sorted(voids(history, other)[0])))
        for other in range(rules.seats)
        if other != seat
    )
    return TileCounter(tuple(unseen), lacks)


def voids(history: Iterable[PublicMove], other: int) -> tuple[frozenset[int], dict[int, int]]:
    """Numbers the other seat lacks now, and earlier lacks weakened by later draws.

    A seat draws or passes only when nothing in its hand fits either end, and a run of draws
    stops at the first tile that fits, which it must then lay. So after every run (and every
    pass: in the block game a pass is the only sign, and as sure) its whole hand lacks both
    ends. Tiles kept from a later run may show numbers it lacked before: `old` counts how
    many such tiles there can be for each of those numbers. In the block game nothing is
    ever drawn, so every void holds to the end of the round.
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
    if drawn:  # mid-run: the tile just drawn may fit, and be laid next: nothing certain
        voids = set()
    return frozenset(voids), old
