"""`hard`: sample the hidden tiles consistently with the table, play each option out.

For each sampled world (domino/bots/worlds.py: the other hands and a boneyard order, drawn
only from tiles this seat has not seen, every hand fitting the count, the voids and the
earlier voids its seat has shown), every legal play is tried and the round is played to its
end by a quick policy for every seat, under the view's rules (domino/bots/playout.py:
drawing or not, scoring, blocked rounds, sides). The play with the best average net score
for this seat's side wins: what the side writes against the other sides (a partner going
out is this seat's win; under goat scoring: the fewest penalty points against the others').
Fixed counts, not a clock, so a seed repeats a game.

With two seats (issue 33): one play per distinct effect; half way through the worlds the
plays clearly worse than the best are dropped and their playouts go to the rest; playouts
use the block game's judgement in every game (`playout.judged`); and once nothing is left to
draw, a small world is solved exactly (domino/bots/endgame.py) instead of played out. The
worlds follow a player model: the other seat lays its heaviest tile that fits, and keeps a
heavier one only with chance HEAVIER_KEPT; a tile drawn since a choice may not have been held
then (`seen_choices`); and a tile that outranks the opening one was dealt to no hand, so a
seat holds one only by drawing it (`Knowledge.undealt`, `undealt_odds`). The model's
likelihood of a hand is a product over its tiles (`tile_weights`). In the draw game each world
is drawn in exact proportion to it (EXACT_WORLDS), the other seat lays heavy first in the
playouts until it is shown to keep a heavier tile (HEAVY_OTHERS), hard's own seat there weighs
shutting the next seat out at DRAW_SHUT, and a decision has PLAYOUTS; in the block game of
CANDIDATES worlds drawn one is kept in proportion to the model, both seats judge alike
(BLOCK_SHUT) and a decision has BLOCK_PLAYOUTS (docs/benchmarks.md: what each was measured
at). Choosing,
hard counts a round won WIN_BONUS points more and one lost as many less: a sure small win
over a risky bigger one. With three and four seats the search is hard-before's
(domino/bots/search_before.py).
"""

from __future__ import annotations

from functools import partial
from random import Random

from ..events import LEFT, Action, Play
from ..views import SeatView
from .endgame import Solver, mask_of
from .heuristic import ends_after
from .knowledge import Knowledge, deduce
from .playout import Kit, judged, kit, playout, value
from .worlds import Sampler

PLAYOUTS = 3000  # the draw game's playouts per decision, shared among the legal plays
# (after pruning too)
BLOCK_PLAYOUTS = 1200  # the block game's (3,000 there not measured)
MIN_WORLDS = 24
CANDIDATES = 8  # worlds drawn for each one kept
EXACT_WORLDS = True  # the draw game: draw each world in exact proportion to the model
# instead (the block game keeps CANDIDATES: there it was not shown to pay)
HEAVIER_KEPT = 0.1  # chance a player keeps a heavier tile that fits over a lighter one
UNDEALT = True  # worlds know the tiles no hand was dealt (`Knowledge.undealt`)
WIN_BONUS = 8  # what hard adds to a round it wins (takes from one it loses) when it chooses
SOLVE_TILES = 8  # a world with at most this many tiles in hands after the play is solved
SOLVE_NODES = 12_000  # the exact searches' nodes per decision, all worlds together
PRUNE_AT = 0.5  # after this share of the worlds, plays clearly worse than the best are dropped
PRUNE_Z = 2.0  # clearly: worse by this many standard errors of the paired difference
ROLLOUT = judged  # the playout policy (hard-before plays out with playout.playout)
DRAW_SHUT = 40  # what ROLLOUT weighs leaving the next seat nothing to lay, in the draw game
BLOCK_SHUT = 10  # in the block game (its quick policy, `playout.shutting`, playout.SHUT)
HEAVY_OTHERS = True  # the draw game's playouts: the other seat heavy first, as the model
# has it, until it is shown to keep a heavier tile (`Other.kept_heavier`); docs/benchmarks.md
# Three and four seats keep hard-before's search: 2,400 playouts, all plays to the end, the
# heavy-first playouts, nothing solved, its player model, no bonus. What serves two seats
# above was not shown to pay there (docs/benchmarks.md, issue 33), and a level keeps only
# what pays.
WIDE_PLAYOUTS = 2400
WIDE_CANDIDATES = 3
WIDE_KEPT = 0.3


def hard_bot(view: SeatView, rng: Random) -> Action:
    """Choose by sampled worlds and playouts; forced moves are taken at once."""
    legal = _distinct(view)
    if len(legal) == 1 or not isinstance(legal[0], Play):
        return legal[0]
    two = _two_seats(view)
    options = estimate(view, rng, prune=two, bonus=WIN_BONUS if two else 0)
    best = max(mean for _play, mean in options)
    picks = [play for play, mean in options if mean == best]
    return picks[0] if len(picks) == 1 else rng.choice(picks)


def estimate(
    view: SeatView,
    rng: Random,
    playouts: int | None = None,
    prune: bool = False,
    bonus: int = 0,
) -> tuple[tuple[Play, float], ...]:
    """Each legal play with this seat's mean net points after it, on shared worlds.

    From the seat's own view only; `playouts` (default PLAYOUTS or BLOCK_PLAYOUTS with two
    seats, WIDE_PLAYOUTS with more) are shared among the plays.
    With `prune`, as `hard_bot` weighs them (it plays the best of these): one play for each
    distinct effect, and after PRUNE_AT of the worlds the plays clearly worse than the best
    are dropped (left out of the answer), their playouts going to more worlds for the rest.
    `bonus` is added to every won round's points and taken from every lost one's (hard
    chooses with WIN_BONUS at two seats); with 0 the means are net points.
    A view with no play to make (a draw or a pass) gives ().
    """
    legal = _distinct(view) if prune else _options(view)
    if not legal or not isinstance(legal[0], Play):
        return ()
    if playouts is None:
        playouts = _playouts(view)
    means, alive = _means(view, legal, rng, playouts, prune, bonus)
    return tuple((legal[i], means[i]) for i in alive)


def _playouts(view: SeatView) -> int:
    """A decision's playouts: PLAYOUTS in the draw game and BLOCK_PLAYOUTS in the block game at
    two seats, WIDE_PLAYOUTS at three and four."""
    if not _two_seats(view):
        return WIDE_PLAYOUTS
    return PLAYOUTS if view.rules.boneyard else BLOCK_PLAYOUTS


def _two_seats(view: SeatView) -> bool:
    """True for a game of two seats, where hard searches its own way (see WIDE_PLAYOUTS)."""
    return view.rules.seats == 2


def _options(view: SeatView) -> tuple[Action, ...]:
    """The legal actions, the first tile once only (it lies the same way at either end)."""
    if not view.line:
        return tuple(play for play in view.legal if play.end == LEFT)
    return view.legal


def _distinct(view: SeatView) -> tuple[Action, ...]:
    """The legal actions that differ in effect: one play per tile and open ends it leaves."""
    options, seen = [], set()
    for action in _options(view):
        if isinstance(action, Play):
            key = (action.tile, tuple(sorted(ends_after(view, action))))
            if key in seen:
                continue
            seen.add(key)
        options.append(action)
    return tuple(options)


def _means(view: SeatView, legal, rng: Random, playouts: int, prune=False, bonus=0):
    """Each play's mean net points over the sampled worlds, and the plays still in the race
    (indexes into `legal`; all of them unless `prune`).

    With `prune`, after PRUNE_AT of the worlds the plays clearly worse than the best are
    dropped, and the playouts they would have had go to more worlds for the rest. A world
    small enough after the play (SOLVE_TILES) is solved exactly for every play, while the
    decision's SOLVE_NODES last; other worlds are played out by ROLLOUT. With more than two
    seats nothing is solved and the playouts are hard-before's (`playout.playout`).
    """
    k = kit(view.rules)
    know = deduce(view)
    worlds = max(MIN_WORLDS, playouts // len(legal))
    budget = worlds * len(legal)
    mine = [k.index[t] for t in view.hand]
    two = _two_seats(view)
    choices = [seen_choices(k, other, two) for other in know.others]
    unseen = [k.index[t] for t in know.unseen]
    undealt = two and UNDEALT
    drawn = [undealt_odds(k, know, other) for other in know.others] if undealt else None
    weights, candidates = None, CANDIDATES if two else WIDE_CANDIDATES
    if two and EXACT_WORLDS and view.rules.boneyard:  # the sampler weighs by the model itself
        weights = [
            tile_weights(k, c, o)
            for c, o in zip(choices, drawn or [None] * len(choices), strict=True)
        ]
        candidates = 1
    draw = Sampler(k, know, unseen, undealt=undealt, weights=weights)
    drawing = view.rules.boneyard and view.boneyard_count > 0
    small = view.line and sum(view.counts) - 1 <= SOLVE_TILES and not drawing
    solver = Solver(k, view.seat, SOLVE_NODES) if small and two else None
    rollout = ROLLOUT if two else playout
    if two and rollout is judged:
        heavy = view.rules.boneyard and HEAVY_OTHERS and not know.next.kept_heavier
        shut = DRAW_SHUT if view.rules.boneyard else BLOCK_SHUT
        rollout = partial(judged, heavy=1 << k.after[view.seat] if heavy else 0, shut=shut)
    solved: dict = {}
    alive = list(range(len(legal)))
    points: list[list[int]] = [[] for _ in legal]
    checkpoint = int(worlds * PRUNE_AT) if prune else -1
    world = 0
    while budget >= len(alive):
        if world == checkpoint:
            alive = _survivors(points, alive)
            if len(alive) == 1:
                break
        world += 1
        budget -= len(alive)
        hands, boneyard = _likely_world(k, draw, choices, drawn, rng, candidates)
        plays = [legal[i] for i in alive]
        exact = None
        if solver is not None and solver.budget > 0:
            exact = _solved(k, view, mine, hands, plays, solver, solved)
        if exact is None:
            exact = [_try(k, view, mine, hands, boneyard, play, rollout) for play in plays]
        for i, value_ in zip(alive, exact, strict=True):
            points[i].append(value_ + bonus * ((value_ > 0) - (value_ < 0)))
    means = [sum(p) / len(p) for p in points]
    return means, alive


def _survivors(points: list[list[int]], alive: list[int]) -> list[int]:
    """The plays not clearly worse than the best so far, on the worlds they shared."""
    n = len(points[alive[0]])
    best = max(alive, key=lambda i: sum(points[i]))
    kept = []
    for i in alive:
        if i == best or n < 2:
            kept.append(i)
            continue
        diffs = [a - b for a, b in zip(points[i], points[best], strict=True)]
        mean = sum(diffs) / n
        spread = (sum((d - mean) ** 2 for d in diffs) / (n - 1)) ** 0.5
        if mean + PRUNE_Z * spread / n**0.5 >= 0:
            kept.append(i)
    return kept


def _solved(k: Kit, view: SeatView, mine, others, legal, solver, solved):
    """Every play's exact value in this world, or None if the node budget ran out.

    Only called with nothing left to draw: the world is its hands alone (the block game's
    sleeping tiles are never drawn).
    """
    key = tuple(tuple(sorted(hand)) for hand in others)
    known = solved.setdefault(key, {})
    values = []
    for play in legal:
        if play in known:
            values.append(known[play])
            continue
        tile, left, right = _laid(k, view, play)
        hand = [t for t in mine if t != tile]
        if not hand:
            points = value(k, _seated(k, view.seat, hand, others), view.seat, view.seat)
        else:
            hands = [mask_of(h) for h in _seated(k, view.seat, hand, others)]
            points = solver.solve(hands, [], left, right, k.after[view.seat])
            if points is None:
                return None
        known[play] = points
        values.append(points)
    return values


def _seated(k: Kit, seat: int, hand, others) -> list[list[int]]:
    """Every seat's hand, this seat's `hand` and the others' (in turn order after it)."""
    if k.duel:
        return [others[0][:], hand] if seat else [hand, others[0][:]]
    hands = [hand] * k.rules.seats
    other = k.after[seat]
    for theirs in others:
        hands[other] = theirs[:]
        other = k.after[other]
    return hands


def _laid(k: Kit, view: SeatView, play: Play) -> tuple[int, int, int]:
    """The tile number of `play` and the open ends once it is laid."""
    tile = k.index[play.tile]
    low, high = k.low[tile], k.high[tile]
    if view.ends is None:
        return tile, low, high
    if play.end == "left":
        right = view.ends[1]
        left = high if low == view.ends[0] else low
    else:
        left = view.ends[0]
        right = high if low == view.ends[1] else low
    return tile, left, right


def _likely_world(k: Kit, draw: Sampler, choices, drawn, rng: Random, candidates: int):
    """Draw `candidates` worlds and keep one in proportion to how well it explains past
    choices and draws (`likelihood`)."""
    if candidates == 1 or (not any(choices) and not any(drawn or ())):
        return draw(rng)
    worlds = [draw(rng) for _ in range(candidates)]
    weights = [likelihood(k, hands, choices, drawn) for hands, _ in worlds]
    pick = rng.random() * sum(weights)
    for world, weight in zip(worlds, weights, strict=True):
        pick -= weight
        if pick <= 0:
            return world
    return worlds[-1]


def seen_choices(k: Kit, other, two: bool) -> list[tuple[int, int, float]]:
    """Another seat's plays by choice as (tile number, mask of the ends then, factor): the
    factor a world's weight takes for each tile of that hand heavier than the one laid that
    fitted then. A tile drawn since was not held then: of the hand's tiles now, as many as
    were drawn since may be new, so the factor is the model's only for the share that is not.

    The model: a seat keeps a heavier tile that fits with chance HEAVIER_KEPT. With more
    than two seats (hard-before's model): WIDE_KEPT, drawn since or not.
    """
    if not two:
        return [
            (k.index[tile], (1 << left) | (1 << right), WIDE_KEPT)
            for tile, left, right in other.free_plays
        ]
    count, kept = other.count, HEAVIER_KEPT
    out = []
    for (tile, left, right), since in zip(other.free_plays, other.drawn_after, strict=True):
        held = max(count - since, 0) / count if count else 1.0
        out.append((k.index[tile], (1 << left) | (1 << right), 1 - held * (1 - kept)))
    return out


def undealt_odds(k: Kit, know: Knowledge, other) -> tuple[frozenset[int], float] | None:
    """For a seat that has drawn, the tiles of `know.undealt` (as numbers) and the chance one
    of its tiles is a drawn one: its draws over its count, at most 1. None if it has drawn
    nothing (the sampler then deals it none of them) or nothing is undealt."""
    if not other.drawn or not know.undealt or not other.count:
        return None
    tiles = frozenset(k.index[t] for t in know.undealt)
    return tiles, min(other.drawn, other.count) / other.count


def tile_weights(k: Kit, chosen, odds) -> dict[int, float]:
    """`likelihood` tile by tile for one seat: a hand's likelihood is the product of its
    tiles' weights here (1 for a tile left out). `chosen` is the seat's `seen_choices`,
    `odds` its `undealt_odds`."""
    weights: dict[int, float] = {}
    pips, mask = k.pips, k.mask
    for played, ends, factor in chosen:
        least = pips[played]
        for t in range(len(pips)):
            if mask[t] & ends and pips[t] > least:
                weights[t] = weights.get(t, 1.0) * factor
    if odds is not None:
        undealt, factor = odds
        for t in undealt:
            weights[t] = weights.get(t, 1.0) * factor
    return weights


def likelihood(k: Kit, hands: list[list[int]], choices, drawn=None) -> float:
    """How likely the other seats' past choices are with `hands`, if they shed heavy first.

    Each tile of a hand that fitted an end and was heavier than the tile its seat chose to
    lay instead makes the world less likely; so does each tile no hand was dealt, by the
    chance it was drawn (`drawn`: `undealt_odds` per seat, or None). A world's playouts
    count with this weight.
    """
    weight = 1.0
    pips, mask = k.pips, k.mask
    for hand, chosen in zip(hands, choices, strict=True):
        for played, ends, factor in chosen:
            least = pips[played]
            for t in hand:
                if mask[t] & ends and pips[t] > least:
                    weight *= factor
    if drawn is None:
        return weight
    for hand, odds in zip(hands, drawn, strict=True):
        if odds is not None:
            undealt, factor = odds
            for t in hand:
                if t in undealt:
                    weight *= factor
    return weight


def _try(k: Kit, view: SeatView, mine, others, boneyard, play: Play, rollout) -> int:
    """This seat's net score after laying `play` and playing the world out by `rollout`."""
    tile, left, right = _laid(k, view, play)
    seat = view.seat
    hand = [t for t in mine if t != tile]
    hands = _seated(k, seat, hand, others)
    out = seat if not hand else rollout(k, hands, boneyard[:], left, right, k.after[seat])
    return value(k, hands, out, seat)
