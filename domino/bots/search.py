"""`hard`: sample the hidden tiles consistently with the table, play each option out.

For each sampled world (the other hand and a boneyard order, drawn only from tiles this
seat has not seen and respecting the numbers the other seat is known to lack), every legal
play is tried and the round is played to its end by a quick policy for both seats. The play
with the best average net score wins. Fixed counts, not a clock, so a seed repeats a game.
"""

from __future__ import annotations

from random import Random

from ..events import Action, Play
from ..tiles import full_set
from ..views import SeatView
from .knowledge import Knowledge, deduce

TILES = full_set()
INDEX = {tile: i for i, tile in enumerate(TILES)}
LOW = [t.low for t in TILES]
HIGH = [t.high for t in TILES]
PIPS = [t.pips for t in TILES]
MASK = [t.mask for t in TILES]
DOUBLE = [t.is_double for t in TILES]
# The quick policy's preference among playable tiles: heavy first, doubles a bit earlier.
RANK = [PIPS[i] + 6 * DOUBLE[i] for i in range(len(TILES))]

PLAYOUTS = 2400  # playouts per decision, shared among the legal plays
MIN_WORLDS = 24
CANDIDATES = 3  # worlds drawn for each one kept


def hard_bot(view: SeatView, rng: Random) -> Action:
    """Choose by sampled worlds and playouts; forced moves are taken at once."""
    legal = view.legal
    if len(legal) == 1 or not isinstance(legal[0], Play):
        return legal[0]
    know = deduce(view)
    worlds = max(MIN_WORLDS, PLAYOUTS // len(legal))
    totals = [0] * len(legal)
    mine = [INDEX[t] for t in view.hand]
    choices = [(INDEX[t], (1 << left) | (1 << right)) for t, left, right in know.free_plays]
    for _ in range(worlds):
        theirs, boneyard = _likely_world(know, choices, rng)
        for i, play in enumerate(legal):
            totals[i] += _try(view, mine, theirs, boneyard, play)
    best = max(totals)
    picks = [play for play, total in zip(legal, totals, strict=True) if total == best]
    return picks[0] if len(picks) == 1 else rng.choice(picks)


def _likely_world(know: Knowledge, choices, rng: Random) -> tuple[list[int], list[int]]:
    """Draw a few worlds and keep one in proportion to how well it explains past choices."""
    if not choices:
        return sample(know, rng)
    worlds = [sample(know, rng) for _ in range(CANDIDATES)]
    weights = [_likelihood(hand, choices) for hand, _ in worlds]
    pick = rng.random() * sum(weights)
    for world, weight in zip(worlds, weights, strict=True):
        pick -= weight
        if pick <= 0:
            return world
    return worlds[-1]


def sample(know: Knowledge, rng: Random, tries: int = 20) -> tuple[list[int], list[int]]:
    """A hidden hand for the other seat and a boneyard order, both consistent with `know`."""
    void_mask = 0
    for number in know.voids:
        void_mask |= 1 << number
    allowed = [INDEX[t] for t in know.unseen if not t.mask & void_mask]
    barred = [INDEX[t] for t in know.unseen if t.mask & void_mask]
    count = know.other_count
    if len(allowed) < count:  # cannot happen with honest deductions; stay safe
        allowed, barred = allowed + barred, []
    hand: list[int] = []
    for _ in range(tries):
        rng.shuffle(allowed)
        hand = allowed[:count]
        if _fits_old_voids(hand, know.old_voids):
            break
    boneyard = allowed[count:] + barred
    rng.shuffle(boneyard)
    return hand, boneyard


HEAVIER_KEPT = 0.3  # chance a player keeps a heavier tile that fits over a lighter one


def _likelihood(hand: list[int], choices: list[tuple[int, int]]) -> float:
    """How likely the other seat's past choices are with `hand`, if it sheds heavy tiles first.

    Each tile of `hand` that fitted an end and was heavier than the tile it chose to lay
    instead makes the world less likely; a world's playouts count with this weight.
    """
    weight = 1.0
    for played, ends in choices:
        pips = PIPS[played]
        for t in hand:
            if MASK[t] & ends and PIPS[t] > pips:
                weight *= HEAVIER_KEPT
    return weight


def _fits_old_voids(hand: list[int], old: dict[int, int]) -> bool:
    """At most `old[n]` tiles of the hand may show a number it lacked before."""
    for number, most in old.items():
        bit = 1 << number
        if sum(1 for t in hand if MASK[t] & bit) > most:
            return False
    return True


def _try(view: SeatView, mine: list[int], theirs: list[int], boneyard: list[int], play: Play):
    """Net points for this seat after laying `play` and playing the world out."""
    tile = INDEX[play.tile]
    hand = [t for t in mine if t != tile]
    if view.ends is None:
        left, right = LOW[tile], HIGH[tile]
    elif play.end == "left":
        right = view.ends[1]
        left = HIGH[tile] if LOW[tile] == view.ends[0] else LOW[tile]
    else:
        left = view.ends[0]
        right = HIGH[tile] if LOW[tile] == view.ends[1] else LOW[tile]
    if not hand:
        return sum(PIPS[t] for t in theirs)
    return -playout([theirs[:], hand], boneyard[:], left, right)


def playout(hands: list[list[int]], boneyard: list[int], left: int, right: int) -> int:
    """Play to the end, seat 0 of `hands` to move; its net points (negative if it loses)."""
    turn, passes = 0, 0
    while True:
        hand = hands[turn]
        ends = (1 << left) | (1 << right)
        best, best_rank = -1, -1
        for t in hand:
            if MASK[t] & ends and RANK[t] > best_rank:
                best, best_rank = t, RANK[t]
        while best < 0 and boneyard:
            t = boneyard.pop()
            hand.append(t)
            if MASK[t] & ends:
                best = t
        if best < 0:
            passes += 1
            if passes == 2:
                return _blocked(hands, turn)
            turn ^= 1
            continue
        passes = 0
        hand.remove(best)
        low, high = LOW[best], HIGH[best]
        if low == left or high == left:
            if (low == right or high == right) and left != right:
                # the tile is left-right: both ends will show one number; keep the one held
                if _held(hand, right) >= _held(hand, left):
                    left = right
                else:
                    right = left
            else:
                left = low if high == left else high
        else:
            right = low if high == right else high
        if not hand:
            score = sum(PIPS[t] for t in hands[turn ^ 1])
            return score if turn == 0 else -score
        turn ^= 1


def _held(hand: list[int], number: int) -> int:
    """How many tiles of `hand` show `number`."""
    bit = 1 << number
    return sum(1 for t in hand if MASK[t] & bit)


def _blocked(hands: list[list[int]], last: int) -> int:
    """Net points for seat 0 of a blocked round."""
    mine = sum(PIPS[t] for t in hands[0])
    theirs = sum(PIPS[t] for t in hands[1])
    return theirs - mine if mine < theirs else -(mine - theirs) if theirs < mine else 0
