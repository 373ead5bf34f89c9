"""The playout policy of `hard` in every game: the block game's judgement, drawing too.

`playout.shutting` plays the block game: each seat lays the play of highest rank, plus SHUT
if it leaves the next seat nothing to lay and FOLLOW for each tile it keeps that fits the
ends it leaves. `judged` plays the same way in the draw game, where a seat with nothing to
lay draws from the end of the boneyard until a tile fits (as `playout.playout` draws), and
shutting the next seat out makes it draw. A seat with a single way to lay lays it without
weighing. `hard-before` keeps `playout.playout`'s heavy-first policy in the draw game;
tests/core/test_bots_playout.py checks `judged` against the core.
"""

from __future__ import annotations

from ..events import LEFT, RIGHT
from .playout import DRAW, FOLLOW, NOTHING, PASS, SHUT, Kit, shutting


def judged(k: Kit, hands, boneyard, left: int, right: int, turn: int, passes=0, trace=None):
    """Play on from `turn`; the seat that went out, or None if blocked (see the module)."""
    if not k.rules.boneyard:
        return shutting(k, hands, left, right, turn, passes, trace)
    mask, rank, pips, after = k.mask, k.rank, k.pips, k.after
    low, high, follow = k.low, k.high, FOLLOW
    seats, numbers = k.rules.seats, k.rules.max_pip + 1
    while True:
        hand = hands[turn]
        lbit, rbit = 1 << left, 1 << right
        ends = lbit | rbit
        fitting = [t for t in hand if mask[t] & ends]
        while not fitting and boneyard:
            t = boneyard.pop()
            hand.append(t)
            if trace is not None:
                trace(turn, (DRAW, t))
            if mask[t] & ends:
                fitting.append(t)
        if not fitting:
            if trace is not None:
                trace(turn, PASS)
            passes += 1
            if passes == seats:
                return None
            turn = after[turn]
            continue
        passes = 0
        best = fitting[0]
        m = mask[best]
        if len(fitting) == 1 and (left == right or not (m & lbit and m & rbit)):
            if m & lbit:
                end, half = LEFT, pips[best] - left
            else:
                end, half = RIGHT, pips[best] - right
        else:
            theirs = 0
            for t in hands[after[turn]]:
                theirs |= mask[t]
            held = [0] * numbers
            for t in hand:
                held[low[t]] += 1
                held[high[t]] += 1
            best, value, end, half = -1, NOTHING, LEFT, 0
            for t in fitting:
                m = mask[t]
                if m & lbit:
                    n = pips[t] - left
                    v = rank[t] + (0 if ((1 << n) | rbit) & theirs else SHUT)
                    v += follow * (held[n] + held[right] - 1 - (right == n) - bool(m & rbit))
                    if v > value:
                        best, value, end, half = t, v, LEFT, n
                if m & rbit:
                    n = pips[t] - right
                    v = rank[t] + (0 if (lbit | (1 << n)) & theirs else SHUT)
                    v += follow * (held[n] + held[left] - 1 - (left == n) - bool(m & lbit))
                    if v > value:
                        best, value, end, half = t, v, RIGHT, n
        hand.remove(best)
        if end == LEFT:
            left = half
        else:
            right = half
        if trace is not None:
            trace(turn, (best, end))
        if not hand:
            return turn
        turn = after[turn]
