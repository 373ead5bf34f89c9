"""What a seat can work out from its view alone: unseen tiles, and each other hand's voids
(read from the public history by `domino.counter.voids`, which the tile counter shares)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..counter import voids
from ..game import outranking
from ..tiles import Tile
from ..views import SeatView


@dataclass(frozen=True, slots=True)
class Other:
    """What is public about one other seat's hand.

    `voids` are the numbers it certainly holds none of now; `old_voids` maps a number it
    lacked earlier to how many of its current tiles may have been drawn since (so at most
    that many can show it); `free_plays` are its plays made by choice, with the ends then,
    and `drawn_after` how many tiles it has drawn since each of them (so not held then).
    `drawn` is how many tiles it has drawn this round. `kept_heavier` is how many of its
    plays by choice it is shown to have made while holding a heavier tile that fitted: one
    it laid later, with no draw between (so it was held then).
    `turns` is how many turns after this seat's it plays (1: next); `partner` is true for
    this seat's partner. `strengths` maps each number it left open by choice to how often,
    less the numbers it has since shown it lacks: numbers it likely holds more of.
    """

    seat: int
    count: int
    voids: frozenset[int]
    old_voids: dict[int, int]
    free_plays: tuple[tuple[Tile, int, int], ...] = ()
    drawn_after: tuple[int, ...] = ()
    turns: int = 1
    partner: bool = False
    strengths: dict[int, int] = field(default_factory=dict)
    drawn: int = 0
    kept_heavier: int = 0


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Public deductions for the seat that owns the view, under any rules.

    `unseen` are the tiles neither in this hand nor in the line: the other hands and the
    boneyard between them (in the block game, the sleeping tiles are unseen too).
    `others` holds every other seat in turn order, the next to play first. `undealt` are the
    unseen tiles no hand held at the deal: every round opens by the rules' opener, so no tile
    that outranks the opening one was dealt (`game.outranking`). A hand can hold one only by
    drawing it.
    """

    unseen: tuple[Tile, ...]
    boneyard_count: int
    others: tuple[Other, ...]
    undealt: frozenset[Tile] = frozenset()

    @property
    def next(self) -> Other:
        """The seat that plays next (the only other one in a two-seat game)."""
        return self.others[0]

    @property
    def partner(self) -> Other | None:
        """This seat's partner, if it has one."""
        return next((other for other in self.others if other.partner), None)

    @property
    def opponents(self) -> tuple[Other, ...]:
        """Every other seat not on this seat's side, in turn order."""
        return tuple(other for other in self.others if not other.partner)

    def of(self, seat: int) -> Other:
        """What is known of `seat` (another seat than this one)."""
        return next(other for other in self.others if other.seat == seat)


def deduce(view: SeatView) -> Knowledge:
    """Read the view's history for what each other seat must lack and has shown."""
    seat, rules = view.seat, view.rules
    seats, side = rules.seats, rules.side(view.seat)
    seen = set(view.hand)
    seen.update(laid.tile for laid in view.line)
    unseen = tuple(t for t in rules.full_set() if t not in seen)
    others = []
    for step in range(1, seats):
        other = (seat + step) % seats
        lacks, old_voids = voids(view.history, other)
        free, drawn, drew = _free_plays(view.history, other)
        partner = rules.side(other) == side
        strong = _strengths(view.history, other, lacks) if partner else {}
        others.append(
            Other(
                seat=other,
                count=view.counts[other],
                voids=lacks,
                old_voids=old_voids,
                free_plays=free,
                drawn_after=drawn,
                turns=step,
                partner=partner,
                strengths=strong,
                drawn=drew,
                kept_heavier=_kept_heavier(view.history, other),
            )
        )
    return Knowledge(unseen, view.boneyard_count, tuple(others), _undealt(view, unseen))


def _undealt(view: SeatView, unseen: tuple[Tile, ...]) -> frozenset[Tile]:
    """The unseen tiles that outrank the opening tile, when every round opens by the rule."""
    rules = view.rules
    if rules.lead != "opening-tile" or rules.next_opener != "rule" or not view.history:
        return frozenset()
    first = view.history[0]
    if first.action != "play" or first.tile is None:
        return frozenset()
    return outranking(rules, first.tile).intersection(unseen)


def _free_plays(history, other: int):
    """The other seat's plays made by choice (not right after drawing), with the ends then;
    how many tiles it drew after each; and how many it drew in all."""
    free, at, drew, drawn = [], [], False, 0
    for move in history:
        if move.seat != other:
            continue
        if move.action == "play" and not drew and move.left is not None:
            free.append((move.tile, move.left, move.right))
            at.append(drawn)
        drew = move.action == "draw"
        drawn += drew
    return tuple(free), tuple(drawn - n for n in at), drawn


def _kept_heavier(history, other: int) -> int:
    """`Other.kept_heavier`: the other seat's plays by choice after which it laid, before it
    drew again, a heavier tile that fitted the ends of that choice."""
    kept, open_choices, drew = 0, [], False  # choices not yet shown, as (ends, pips laid)
    for move in history:
        if move.seat != other:
            continue
        if move.action == "draw":
            open_choices = []  # a tile laid from now on may be a drawn one
        elif move.action == "play":
            tile = move.tile
            still = [
                (ends, least)
                for ends, least in open_choices
                if tile.pips <= least or (tile.low not in ends and tile.high not in ends)
            ]
            kept += len(open_choices) - len(still)
            open_choices = still
            if not drew and move.left is not None:
                open_choices.append(((move.left, move.right), tile.pips))
        drew = move.action == "draw"
    return kept


def _strengths(history, other: int, voids: frozenset[int]) -> dict[int, int]:
    """The numbers the other seat left open by choice, counted, less its voids now.

    A play right after drawing was forced, and the opening tile may have been too (the
    rules may name it), so neither counts. A seat that lays a tile by choice tends to leave
    open a number it can follow.
    """
    strong: dict[int, int] = {}
    drew = False
    for move in history:
        if move.seat != other:
            continue
        if move.action == "play" and not drew and move.left is not None:
            held = move.left if move.end == "left" else move.right
            number = move.tile.other_half(held)
            if number not in voids:
                strong[number] = strong.get(number, 0) + 1
        drew = move.action == "draw"
    return strong
