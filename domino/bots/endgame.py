"""Exact play in one world: alpha–beta over every seat's choices, the hidden tiles known.

A world of `hard` (domino/bots/worlds.py) fixes every hand and the boneyard's order, so the
rest of the round is a game of perfect information: the only choices are which tile to lay
and at which end (drawing and passing are forced). `solve` finds its value for one seat's
side exactly (`playout.value`: what the side writes against the others), the seats of that
side maximising and every other seat minimising it, or gives up (None) past a node budget.
With two sides this is the game's exact value; with three (`three`) each other seat is taken
to play against this one, the cautious reading.

Hands are bit masks of tile numbers of a `Kit`; a position is remembered in a table with the
bound it proved, so a line reached by two orders is searched once.
"""

from __future__ import annotations

from functools import cache

from ..rules import Rules
from .playout import Kit, net, scores_of

EXACT, LOWER, UPPER = 0, 1, 2


class OutOfBudget(Exception):
    """The search needed more nodes than it was given."""


@cache
def fits_masks(rules: Rules) -> tuple[int, ...]:
    """For each number, the bit mask of the tiles (numbered as a `Kit` numbers them) that
    show it."""
    masks = [0] * (rules.max_pip + 1)
    for t, tile in enumerate(rules.full_set()):
        masks[tile.low] |= 1 << t
        masks[tile.high] |= 1 << t
    return tuple(masks)


def mask_of(tiles) -> int:
    """The bit mask of some tile numbers."""
    mask = 0
    for t in tiles:
        mask |= 1 << t
    return mask


def pips_of(k: Kit, mask: int) -> int:
    """The pips of the tiles in `mask`."""
    total, pips = 0, k.pips
    while mask:
        low = mask & -mask
        total += pips[low.bit_length() - 1]
        mask ^= low
    return total


def worth(k: Kit, weights: list[int], out: int | None, seat: int) -> int:
    """`playout.value` from each seat's pips left: this seat's side's net points."""
    return net(k, scores_of(k, weights, out), seat)


class Solver:
    """Alpha–beta for one seat's side over one world, within `budget` nodes in all."""

    def __init__(self, k: Kit, seat: int, budget: int) -> None:
        self.k = k
        self.seat = seat
        self.budget = budget
        self.has = fits_masks(k.rules)
        self.mine = [k.side[s] == k.side[seat] for s in range(k.rules.seats)]
        self.table: dict = {}

    def solve(self, hands: list[int], boneyard: list[int], left: int, right: int, turn: int):
        """The exact value for the seat's side, `turn` to move with open ends `left`,
        `right`; None if the budget runs out (what it used stays used)."""
        self.table.clear()
        weights = [pips_of(self.k, hand) for hand in hands]
        try:
            return self._search(
                tuple(hands), weights, tuple(boneyard), left, right, turn, 0, -(1 << 30), 1 << 30
            )
        except OutOfBudget:
            return None

    def _search(self, hands, weights, boneyard, left, right, turn, passes, alpha, beta):
        self.budget -= 1
        if self.budget < 0:
            raise OutOfBudget
        key = (hands, left, right, turn, passes, len(boneyard))
        known = self.table.get(key)
        if known is not None:
            flag, stored = known
            if flag == EXACT:
                return stored
            if flag == LOWER and stored >= beta:
                return stored
            if flag == UPPER and stored <= alpha:
                return stored
        k, has = self.k, self.has
        seats = k.rules.seats
        hand = hands[turn]
        fits = hand & (has[left] | has[right])
        drawn = 0
        while not fits and boneyard:
            t = boneyard[-1]
            boneyard = boneyard[:-1]
            hand |= 1 << t
            drawn += k.pips[t]
            fits = (1 << t) & (has[left] | has[right])
        nxt = k.after[turn]
        if not fits:
            if passes + 1 == seats:
                weights = _changed(weights, turn, drawn)
                return worth(k, weights, None, self.seat)
            if hand != hands[turn]:  # it drew (perhaps only the 0-0: no pips)
                hands = _put(hands, turn, hand)
                weights = _changed(weights, turn, drawn)
            return self._search(hands, weights, boneyard, left, right, nxt, passes + 1, alpha, beta)
        maximising = self.mine[turn]
        best = -(1 << 30) if maximising else 1 << 30
        start_alpha, start_beta = alpha, beta
        pips = k.pips
        for t, a, b in self._options(fits, left, right):
            rest = hand & ~(1 << t)
            played = _changed(weights, turn, drawn - pips[t])
            if not rest:
                value = worth(k, played, turn, self.seat)
            else:
                value = self._search(
                    _put(hands, turn, rest), played, boneyard, a, b, nxt, 0, alpha, beta
                )
            if maximising:
                if value > best:
                    best = value
                if best > alpha:
                    alpha = best
            else:
                if value < best:
                    best = value
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        if best <= start_alpha:
            self.table[key] = (UPPER, best)
        elif best >= start_beta:
            self.table[key] = (LOWER, best)
        else:
            self.table[key] = (EXACT, best)
        return best

    def _options(self, fits: int, left: int, right: int):
        """Each distinct play among `fits` as (tile, new left, new right), heavy first."""
        k = self.k
        low, high, pips = k.low, k.high, k.pips
        options, seen = [], set()
        while fits:
            bit = fits & -fits
            fits ^= bit
            t = bit.bit_length() - 1
            a, b = low[t], high[t]
            if a == left or b == left:
                ends = (a if b == left else b, right)
                key = (t, min(ends), max(ends))
                if key not in seen:
                    seen.add(key)
                    options.append((pips[t], t, ends[0], ends[1]))
            if a == right or b == right:
                ends = (left, a if b == right else b)
                key = (t, min(ends), max(ends))
                if key not in seen:
                    seen.add(key)
                    options.append((pips[t], t, ends[0], ends[1]))
        options.sort(reverse=True)
        return [(t, a, b) for _pips, t, a, b in options]


def _put(hands: tuple[int, ...], seat: int, hand: int) -> tuple[int, ...]:
    return (*hands[:seat], hand, *hands[seat + 1 :])


def _changed(weights: list[int], seat: int, change: int) -> list[int]:
    if not change:
        return weights
    changed = list(weights)
    changed[seat] += change
    return changed
