"""A fast round for `hard`'s playouts: tiles as small numbers, the rules of the core.

`Kit` holds one rules value's tables (tile numbers, halves, pips, masks, sides). A hand is a
list of tile numbers, the open ends two numbers (-1 for an empty line), the boneyard a list
drawn from its end. `legal_moves` says what a seat may do, as `game.legal_actions` does;
`playout` plays a round to its end with a quick policy for every seat (`judged`: the block
game's judgement, in any game); `scores` and `net` score it as `game.outcome` does.
tests/core/test_bots_playout.py checks all of it against the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..events import LEFT, RIGHT
from ..rules import Rules
from ..tiles import Tile

DRAW = "draw"
PASS = "pass"
# The block game's quick policy (`shutting`) also likes, per point of rank:
SHUT = 10  # leaving the next seat nothing to lay
FOLLOW = 6  # each tile it keeps that fits the ends it leaves
NOTHING = -(1 << 30)


@dataclass(frozen=True, slots=True)
class Kit:
    """The tables of one rules value."""

    rules: Rules
    tiles: tuple[Tile, ...]
    index: dict[Tile, int]
    low: tuple[int, ...]
    high: tuple[int, ...]
    pips: tuple[int, ...]
    mask: tuple[int, ...]
    rank: tuple[int, ...]  # the quick policy's preference: heavy first, doubles a bit earlier
    after: tuple[int, ...]  # the seat after each seat
    side: tuple[int, ...]  # each seat's side, as an index into `sides`
    sides: tuple[tuple[int, ...], ...]
    shut: int  # the block game's bonus for shutting the next seat out (0: draw game)
    duel: bool  # two seats, no partners: `value` takes a short cut


@cache
def kit(rules: Rules) -> Kit:
    """The tables for `rules` (made once per rules value)."""
    tiles = rules.full_set()
    sides = rules.sides()
    side = tuple(next(i for i, s in enumerate(sides) if seat in s) for seat in range(rules.seats))
    return Kit(
        rules=rules,
        tiles=tiles,
        index={tile: i for i, tile in enumerate(tiles)},
        low=tuple(t.low for t in tiles),
        high=tuple(t.high for t in tiles),
        pips=tuple(t.pips for t in tiles),
        mask=tuple(t.mask for t in tiles),
        rank=tuple(t.pips + rules.max_pip * t.is_double for t in tiles),
        after=tuple((seat + 1) % rules.seats for seat in range(rules.seats)),
        side=side,
        sides=sides,
        shut=0 if rules.boneyard else SHUT,
        duel=rules.seats == 2,
    )


def legal_moves(k: Kit, hand: list[int], left: int, right: int, opening: int, stock: int) -> list:
    """What a seat holding `hand` may do: (tile, end) plays, else DRAW or PASS.

    `left`/`right` are the open ends (-1 before the first tile), `opening` the tile that
    must lead (-1 if none) and `stock` how many tiles the boneyard holds.
    """
    if opening >= 0:
        return [(opening, LEFT), (opening, RIGHT)]
    if left < 0:
        return [(t, end) for t in hand for end in (LEFT, RIGHT)]
    plays = []
    mask = k.mask
    for t in hand:
        if mask[t] & (1 << left):
            plays.append((t, LEFT))
        if mask[t] & (1 << right):
            plays.append((t, RIGHT))
    if plays:
        return plays
    return [DRAW] if k.rules.boneyard and stock else [PASS]


def playout(k: Kit, hands, boneyard, left: int, right: int, turn: int, passes=0, trace=None):
    """Play on from `turn` with the quick policy; the seat that went out, or None if blocked.

    In the draw game every seat lays its highest-ranked tile that fits (the first such in
    its hand); a tile that fits both ends goes left, unless the ends differ and it would
    leave both showing one number: then it keeps the number the seat holds more of. With
    nothing to lay a seat draws from the end of `boneyard` until a tile fits, or passes.
    In the block game the policy is `shutting`'s. As many passes in a row as seats end the
    round (`passes` is the run so far). `hands` and `boneyard` are changed in place;
    `trace(seat, move)` sees every move, for tests.
    """
    if k.shut:
        return shutting(k, hands, left, right, turn, passes, trace)
    mask, rank, low, high, after = k.mask, k.rank, k.low, k.high, k.after
    draws, seats = k.rules.boneyard, k.rules.seats
    while True:
        hand = hands[turn]
        ends = (1 << left) | (1 << right)
        best, best_rank = -1, -1
        for t in hand:
            if mask[t] & ends and rank[t] > best_rank:
                best, best_rank = t, rank[t]
        while best < 0 and draws and boneyard:
            t = boneyard.pop()
            hand.append(t)
            if trace is not None:
                trace(turn, (DRAW, t))
            if mask[t] & ends:
                best = t
        if best < 0:
            if trace is not None:
                trace(turn, PASS)
            passes += 1
            if passes == seats:
                return None
            turn = after[turn]
            continue
        passes = 0
        hand.remove(best)
        a, b = low[best], high[best]
        if a == left or b == left:
            end = LEFT
            if (a == right or b == right) and left != right:
                # left-right: both ends will show one number; keep the one held more
                if _held(k, hand, right) < _held(k, hand, left):
                    end = RIGHT
                    right = left
                else:
                    left = right
            else:
                left = a if b == left else b
        else:
            end = RIGHT
            right = a if b == right else b
        if trace is not None:
            trace(turn, (best, end))
        if not hand:
            return turn
        turn = after[turn]


def shutting(k: Kit, hands, left: int, right: int, turn: int, passes=0, trace=None):
    """The block game's quick policy: every seat lays the play of highest rank, plus `SHUT`
    if it leaves the next seat nothing to lay (it must pass), plus `FOLLOW` for each tile
    the seat keeps that fits the ends it leaves (roughly counted); the first best wins."""
    return judged(k, hands, [], left, right, turn, passes, trace)


def judged(
    k: Kit,
    hands,
    boneyard,
    left: int,
    right: int,
    turn: int,
    passes=0,
    trace=None,
    heavy=0,
    shut=SHUT,
):
    """`shutting`'s judgement in any game: the seat that went out, or None if blocked.

    In the draw game a seat with nothing to lay draws from the end of `boneyard` until a
    tile fits (as `playout` draws), and shutting the next seat out makes it draw. A seat with
    a single way to lay lays it without weighing. The seats in `heavy` (a bit mask) weigh
    nothing: each lays the heaviest tile that fits (the first such), at the left end if it
    fits there, as the player model behind `hard`'s worlds expects. `hard` plays
    its two-seat playouts so; `hard-before` plays the draw game's heavy first (`playout`).
    `shut` is what leaving the next seat nothing to lay is worth (per point of rank).
    """
    if not k.rules.boneyard:
        boneyard = ()  # the block game's sleeping tiles are never drawn
    mask, rank, pips, after = k.mask, k.rank, k.pips, k.after
    follow, seats, numbers = FOLLOW, k.rules.seats, k.rules.max_pip + 1
    low, high = k.low, k.high
    while True:
        hand = hands[turn]
        lbit, rbit = 1 << left, 1 << right
        ends = lbit | rbit
        if heavy >> turn & 1:  # the heaviest that fits, the first such; no list, no weighing
            best, most = -1, -1
            for t in hand:
                if mask[t] & ends and pips[t] > most:
                    best, most = t, pips[t]
            fitting = None
        else:
            fitting = [t for t in hand if mask[t] & ends]
            best = fitting[0] if fitting else -1
        while best < 0 and boneyard:
            t = boneyard.pop()
            hand.append(t)
            if trace is not None:
                trace(turn, (DRAW, t))
            if mask[t] & ends:
                best = t
                if fitting is not None:
                    fitting = [t]
        if best < 0:
            if trace is not None:
                trace(turn, PASS)
            passes += 1
            if passes == seats:
                return None
            turn = after[turn]
            continue
        passes = 0
        m = mask[best]
        # a heavy seat weighs nothing; nor does one with a single way to lay
        weigh = fitting is not None and (
            len(fitting) > 1 or (left != right and m & lbit and m & rbit)
        )
        if not weigh:
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
            value, end, half = NOTHING, LEFT, 0
            kept_left, kept_right = held[left] - 1, held[right] - 1
            for t in fitting:
                m = mask[t]
                if m & lbit:
                    n = pips[t] - left
                    v = rank[t] + (0 if ((1 << n) | rbit) & theirs else shut)
                    v += follow * (held[n] + kept_right - (right == n) - bool(m & rbit))
                    if v > value:
                        best, value, end, half = t, v, LEFT, n
                if m & rbit:
                    n = pips[t] - right
                    v = rank[t] + (0 if (lbit | (1 << n)) & theirs else shut)
                    v += follow * (held[n] + kept_left - (left == n) - bool(m & lbit))
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


def _held(k: Kit, hand: list[int], number: int) -> int:
    """How many tiles of `hand` show `number`."""
    bit, mask = 1 << number, k.mask
    return sum(1 for t in hand if mask[t] & bit)


def scores(k: Kit, hands, out: int | None) -> list[int]:
    """What each seat's side writes for the round, as `game.outcome(...).scores`."""
    pips = k.pips
    return scores_of(k, [sum(pips[t] for t in hand) for hand in hands], out)


def scores_of(k: Kit, left: list[int], out: int | None) -> list[int]:
    """`scores` from the pips each seat holds at the end (`left`, seat by seat)."""
    rules, side = k.rules, k.side
    weights = [0] * len(k.sides)
    for seat, held in enumerate(left):
        weights[side[seat]] += held
    whole = sum(weights)
    if out is not None:
        index = side[out]
        points = whole - weights[index]
    else:
        light = min(weights)
        if weights.count(light) > 1:
            return [0] * rules.seats
        index = weights.index(light)
        others = whole - light
        if rules.blocked == "difference":
            points = others - light * (len(weights) - 1)
        elif rules.blocked == "others":
            points = others
        else:
            points = whole
    if rules.scoring == "goat":
        return [0 if side[seat] == index else weights[side[seat]] for seat in range(rules.seats)]
    return [points if side[seat] == index else 0 for seat in range(rules.seats)]


def net(k: Kit, written: list[int], seat: int) -> int:
    """How good a round's scores are for `seat`'s side, higher better.

    Its side's score against the mean of the other sides' (scaled by their number less one,
    to stay whole): with winner scoring a side wants points, with goat scoring it wants
    fewer penalty points than the others.
    """
    sides = k.sides
    own = written[seat]
    others = sum(written[s[0]] for s in sides) - own
    value = own * (len(sides) - 1) - others
    return -value if k.rules.scoring == "goat" else value


def value(k: Kit, hands, out: int | None, seat: int) -> int:
    """`net(k, scores(k, hands, out), seat)`, worked out quicker for two seats."""
    if not k.duel:
        return net(k, scores(k, hands, out), seat)
    pips = k.pips
    mine = sum([pips[t] for t in hands[seat]])
    if out is not None:
        return sum([pips[t] for t in hands[1 - seat]]) if out == seat else -mine
    theirs = sum([pips[t] for t in hands[1 - seat]])
    if mine == theirs:
        return 0
    rules = k.rules
    if mine < theirs:
        if rules.scoring == "goat" or rules.blocked == "others":
            return theirs
        return theirs - mine if rules.blocked == "difference" else theirs + mine
    if rules.scoring == "goat" or rules.blocked == "others":
        return -mine
    return theirs - mine if rules.blocked == "difference" else -(mine + theirs)
