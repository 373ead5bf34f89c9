"""Hidden worlds for `hard`: the other hands and the boneyard, consistent with the table.

A world gives every other seat exactly as many tiles as it holds, none showing a number it
is known to lack, and a number it lacked earlier at most as often as its later draws allow;
what is left is the boneyard (in the block game, the sleeping tiles), shuffled. Tiles are
numbers of a `Kit` (domino/bots/playout.py).

`sample` first deals seat by seat, each hand uniformly from the tiles it may hold (a
`Sampler` with `weights`: in proportion to a player model's weight). With
several other seats, one hand may take what a later one needs; then `dealt` builds the world
tile by tile instead, never placing a tile where the rest could no longer be dealt.
"""

from __future__ import annotations

from random import Random

from .knowledge import Knowledge
from .playout import Kit

TRIES = 20  # deals of one hand before it is built tile by tile instead


def sample(k: Kit, know: Knowledge, rng: Random, unseen: list[int] | None = None, tries=TRIES):
    """Hidden hands for the other seats (in `know.others` order) and a boneyard order.

    `unseen` is `know.unseen` as tile numbers, if already known. To sample many worlds of one
    view, make a `Sampler` once: it draws the same worlds from the same random source.
    """
    pool = [k.index[t] for t in know.unseen] if unseen is None else unseen
    return Sampler(k, know, pool, tries)(rng)


def void_masks(know: Knowledge) -> list[int]:
    """Each other seat's voids as a bit mask of numbers."""
    masks = []
    for other in know.others:
        mask = 0
        for number in other.voids:
            mask |= 1 << number
        masks.append(mask)
    return masks


class Sampler:
    """`sample` for one view, what does not change from world to world worked out once:
    the order the hands are dealt in (the most constrained first) and what the first may
    hold. With `undealt`, a seat that has drawn nothing is dealt none of `know.undealt` (if
    `dealt` has to build the world, it does not know this).

    With `weights` (for each other seat, a weight for each tile, 1 if left out), a hand is
    drawn in proportion to the product of its tiles' weights instead of uniformly: a player
    model whose likelihood is such a product (`search.tile_weights`) is sampled exactly with
    one other seat (unless the world falls back to `dealt`, which knows no weights), and seat
    by seat with more. If every hand a seat could hold weighs 0, its hand is dealt uniformly."""

    def __init__(
        self,
        k: Kit,
        know: Knowledge,
        pool: list[int],
        tries: int = TRIES,
        undealt=False,
        weights: list[dict[int, float]] | None = None,
    ) -> None:
        self.k, self.know, self.pool, self.tries = k, know, pool, tries
        self.weights = weights
        mask, others = k.mask, know.others
        self.voids = voids = void_masks(know)
        # with `undealt`, a seat that has drawn nothing holds none of `know.undealt`
        unheld = frozenset(k.index[t] for t in know.undealt) if undealt else frozenset()
        self.unheld = [frozenset() if o.drawn else unheld for o in others]
        order = range(len(others))
        if len(others) > 1:
            pairs = zip(others, voids, strict=True)
            slack = [sum(1 for t in pool if not mask[t] & v) - o.count for o, v in pairs]
            order = sorted(order, key=slack.__getitem__)
        self.order = list(order)
        self.allowed, self.barred = self._split(pool, self.order[0])
        self.first = None  # the first hand's weights and sums, when weighed
        if weights is not None:
            self.first = _weighing(
                self.allowed, weights[self.order[0]], others[self.order[0]].count
            )

    def _split(self, pool: list[int], i: int) -> tuple[list[int], list[int]]:
        """The tiles of `pool` seat `i` may hold, and the rest, each in pool order."""
        mask, void, unheld = self.k.mask, self.voids[i], self.unheld[i]
        if not unheld:
            return [t for t in pool if not mask[t] & void], [t for t in pool if mask[t] & void]
        allowed = [t for t in pool if not mask[t] & void and t not in unheld]
        return allowed, [t for t in pool if mask[t] & void or t in unheld]

    def __call__(self, rng: Random):
        """One world: hands in `know.others` order and a boneyard order."""
        world = self._by_seat(rng)
        return world if world is not None else dealt(self.k, self.know, rng, self.pool)

    def _by_seat(self, rng: Random):
        """Deal each hand from what its seat may hold (uniformly, or by `weights`), the most
        constrained first; None if a hand cannot be dealt so (then `dealt` builds it)."""
        k, others = self.k, self.know.others
        hands: list[list[int]] = [[] for _ in others]
        pool = self.pool
        for step, i in enumerate(self.order):
            count = others[i].count
            if step:
                allowed, barred = self._split(pool, i)
            else:
                allowed, barred = self.allowed[:], self.barred
            if len(allowed) < count:
                return None
            if self.weights is None:
                for _ in range(self.tries):
                    rng.shuffle(allowed)
                    hand = allowed[:count]
                    if fits_old_voids(k, hand, others[i].old_voids):
                        break
                else:
                    return None
                rest = allowed[count:]
            else:
                weighing = _weighing(allowed, self.weights[i], count) if step else self.first
                for _ in range(self.tries):
                    hand = _weighed_hand(allowed, weighing, count, rng)
                    if fits_old_voids(k, hand, others[i].old_voids):
                        break
                else:
                    return None
                held = set(hand)
                rest = [t for t in allowed if t not in held]
            hands[i] = hand
            pool = rest + barred  # a new list: the shuffle below leaves self.pool be
        rng.shuffle(pool)
        return hands, pool


def _weighing(tiles: list[int], weights: dict[int, float], count: int):
    """The weights of `tiles` and, for `_weighed_hand`, `sums[j][m]`: the sum over every set
    of `m` tiles from `tiles[j:]` of the product of their weights. All weights 1 if no set
    of `count` weighs anything."""
    w = [weights.get(t, 1.0) for t in tiles]
    sums = _sums(w, count)
    if sums[0][count] <= 0:
        w = [1.0] * len(tiles)
        sums = _sums(w, count)
    return w, sums


def _sums(w: list[float], count: int) -> list[list[float]]:
    n = len(w)
    sums = [[0.0] * (count + 1) for _ in range(n + 1)]
    sums[n][0] = 1.0
    for j in range(n - 1, -1, -1):
        row, below, weight = sums[j], sums[j + 1], w[j]
        row[0] = 1.0
        for m in range(1, count + 1):
            row[m] = below[m] + weight * below[m - 1]
    return sums


def _weighed_hand(tiles: list[int], weighing, count: int, rng: Random) -> list[int]:
    """`count` of `tiles`, each set drawn in proportion to the product of its weights: tile
    by tile, each taken with the weight of the sets that hold it among those still open."""
    w, sums = weighing
    hand, m = [], count
    for j, t in enumerate(tiles):
        if not m:
            break
        if rng.random() * sums[j][m] < w[j] * sums[j + 1][m - 1]:
            hand.append(t)
            m -= 1
    return hand


def fits_old_voids(k: Kit, hand: list[int], old: dict[int, int]) -> bool:
    """At most `old[n]` tiles of the hand may show a number it lacked before."""
    mask = k.mask
    for number, most in old.items():
        bit = 1 << number
        if sum(1 for t in hand if mask[t] & bit) > most:
            return False
    return True


def dealt(k: Kit, know: Knowledge, rng: Random, pool: list[int]):
    """A world built tile by tile: each tile goes to a random place with room (a hand in
    proportion to its room, or the boneyard) where it breaks nothing and the tiles left can
    still fill every hand (Hall's condition over the seats' void masks). Backtracks if an
    earlier-void limit leaves no way on, so a table that arose in play always gets a world.
    """
    seats = len(know.others)
    deal = _Deal(k, know, pool)
    order = pool[:]
    rng.shuffle(order)
    if not deal.place(order, 0, rng):
        raise ValueError("no world fits what the table has shown")
    placed = list(zip(order, deal.where, strict=True))
    hands = [[t for t, place in placed if place == i] for i in range(seats)]
    boneyard = [t for t, place in placed if place == seats]
    rng.shuffle(boneyard)
    return hands, boneyard


class _Deal:
    """The state of `dealt`: room left in each place, earlier-void limits, tile kinds left."""

    def __init__(self, k: Kit, know: Knowledge, pool: list[int]) -> None:
        self.mask = k.mask
        others = know.others
        self.seats = len(others)
        self.voids = void_masks(know)
        self.room = [o.count for o in others]
        self.room.append(len(pool) - sum(self.room))
        self.limits = [dict(o.old_voids) for o in others]
        # a tile's kind: the bits of the seats that may hold it (voids only)
        self.kind = {t: self._kind(t) for t in pool}
        self.left = [0] * (1 << self.seats)  # tiles not yet placed, by kind
        for t in pool:
            self.left[self.kind[t]] += 1
        self.where: list[int] = []

    def _kind(self, t: int) -> int:
        return sum(1 << i for i, void in enumerate(self.voids) if not self.mask[t] & void)

    def place(self, order: list[int], j: int, rng: Random) -> bool:
        """Place `order[j:]`; True once all are placed."""
        if j == len(order):
            return True
        t = order[j]
        self.left[self.kind[t]] -= 1
        options = [i for i in range(self.seats + 1) if self.room[i] and self._fits(t, i)]
        while options:
            i = _weighted(options, self.room, rng)
            options.remove(i)
            self._put(t, i, -1)
            if self._fillable() and self.place(order, j + 1, rng):
                return True
            self._put(t, i, +1)
        self.left[self.kind[t]] += 1
        return False

    def _fits(self, t: int, i: int) -> bool:
        """True when place `i` may take tile `t`: the boneyard, or a hand without its voids
        whose earlier-void limits have room."""
        if i == self.seats:
            return True
        m = self.mask[t]
        if m & self.voids[i]:
            return False
        return all(most > 0 for n, most in self.limits[i].items() if m >> n & 1)

    def _put(self, t: int, i: int, change: int) -> None:
        """Take (`change` -1) or give back (+1) a place's room for tile `t`."""
        self.room[i] += change
        if change < 0:
            self.where.append(i)
        else:
            self.where.pop()
        if i < self.seats:
            limits, m = self.limits[i], self.mask[t]
            for n in limits:
                if m >> n & 1:
                    limits[n] += change

    def _fillable(self) -> bool:
        """Hall's condition: every group of seats can still fill its room from the tiles
        left that one of them may hold."""
        room, left = self.room, self.left
        for group in range(1, 1 << self.seats):
            need = sum(room[i] for i in range(self.seats) if group >> i & 1)
            if need and sum(n for kind, n in enumerate(left) if kind & group) < need:
                return False
        return True


def _weighted(options: list[int], room: list[int], rng: Random) -> int:
    """One of `options`, in proportion to its room."""
    pick = rng.random() * sum(room[i] for i in options)
    for i in options:
        pick -= room[i]
        if pick < 0:
            return i
    return options[-1]
