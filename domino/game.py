"""The round as a fold of events: frozen `State`, `apply`, legal actions and the outcome."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from itertools import repeat

from .events import (
    DRAW,
    ENDS,
    LEFT,
    PASS,
    RIGHT,
    Action,
    Event,
    Move,
    Passed,
    Play,
    PublicMove,
    RoundStarted,
    TileDrawn,
    TilePlayed,
    builder,
    drawn_event,
    passed_event,
    played_event,
)
from .rules import DEFAULT, Rules
from .tiles import MAX_PIP_LIMIT, Laid, Tile, full_set, pip_total


class IllegalMove(ValueError):
    """An event or action the rules forbid; `rule` names the rule in a stable code."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


@dataclass(frozen=True, slots=True)
class State:
    """A round in progress or finished; change it only through `apply`.

    `turn` is None once the round is over. `opening` is the tile that must be laid first,
    until it is. `history` is the public account of `moves`.
    """

    rules: Rules
    start: RoundStarted
    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]
    line: tuple[Laid, ...]
    turn: int | None
    passes: int
    opening: Tile | None
    moves: tuple[Move, ...]
    history: tuple[PublicMove, ...]

    @property
    def ends(self) -> tuple[int, int] | None:
        """The open ends (left, right), or None before the opening."""
        line = self.line
        return (line[0].left, line[-1].right) if line else None

    @property
    def over(self) -> bool:
        """True once the round has ended."""
        return self.turn is None


_state = builder(State)
# Shared immutable values of the hot path: the two plays of each tile, each tile as laid,
# and the public record of a move (a plain tuple built without the NamedTuple's wrapper).
_PLAYS = {tile: (Play(tile, LEFT), Play(tile, RIGHT)) for tile in full_set(MAX_PIP_LIMIT)}
_LAID = [[Laid(a, b) for b in range(MAX_PIP_LIMIT + 1)] for a in range(MAX_PIP_LIMIT + 1)]


def _public(*values) -> PublicMove:
    """A `PublicMove` of its six values, in order."""
    return tuple.__new__(PublicMove, values)


@cache
def _whole(max_pip: int) -> frozenset[Tile]:
    """The set of `0-0` to `max_pip-max_pip`, to compare a deal with."""
    return frozenset(full_set(max_pip))


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a round ended (docs/contracts.md, the round record).

    `winner` is the seat that went out, or in a blocked round the lowest hand of the lightest
    side; None for a draw. `points` is what the winning side writes (0 under Goat scoring and
    for a draw); `winners` every seat of the winning side; `scores` what each seat's side
    writes for the round (partners show the same number).
    """

    winner: int | None
    reason: str
    points: int
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()


def deal(rules: Rules, rng) -> RoundStarted:
    """Shuffle with `rng` (production: `secrets.SystemRandom()`) and deal the hands."""
    tiles = list(rules.full_set())
    rng.shuffle(tiles)
    return deal_out(rules, tiles)


def deal_out(rules: Rules, tiles) -> RoundStarted:
    """Deal shuffled `tiles`: seat 0 takes the first hand, seat 1 the next, and so on; the
    rest is the boneyard (or the sleeping tiles), in that order."""
    size, seats = rules.hand_size, rules.seats
    hands = tuple(tuple(tiles[i * size : (i + 1) * size]) for i in range(seats))
    return RoundStarted(hands, tuple(tiles[seats * size :]))


def _preference(key) -> dict[Tile, int]:
    """Every tile's rank by `key`: the held tile of highest rank makes its holder the opener."""
    return {tile: rank for rank, tile in enumerate(sorted(full_set(MAX_PIP_LIMIT), key=key))}


# docs/contracts.md, the rules object's openers as one order each (each key tells every tile apart):
# - highest-double: any double beats any single, the higher double first; without a double,
#   the heaviest tile, ties to the higher half;
# - lowest-double: a double other than the double blank beats the rest, the lower first;
#   without one, the lowest pip sum, ties to the lower half (the double blank is then lowest);
# - heaviest-tile: the pip sum, then a double before a single, then the higher half.
_OPENERS = {
    "highest-double": _preference(lambda t: (t.is_double, t.pips, t.high)),
    "lowest-double": _preference(lambda t: (t.is_double and t.high > 0, -t.pips, -t.low)),
    "heaviest-tile": _preference(lambda t: (t.pips, t.is_double, t.high)),
}


def opener(rules: Rules, hands: tuple[tuple[Tile, ...], ...]) -> tuple[int, Tile]:
    """The seat that opens, by the rules' opener, and the tile that makes it the opener."""
    tile = max((tile for hand in hands for tile in hand), key=_OPENERS[rules.opener].__getitem__)
    return next(seat for seat, hand in enumerate(hands) if tile in hand), tile


def outranking(rules: Rules, tile: Tile) -> frozenset[Tile]:
    """The tiles of the rules' set that would have made their holder the opener before
    `tile`: when `tile` opened by the rule, none of them was dealt."""
    order = _OPENERS[rules.opener]
    return frozenset(t for t in rules.full_set() if order[t] > order[tile])


def start(started: RoundStarted, rules: Rules = DEFAULT, leader: int | None = None) -> State:
    """The state right after the deal; a deal that breaks the rules raises IllegalMove.

    The opener of the rules leads, with the tile that made it opener (or any tile, with a free
    lead); `leader` (a match's previous winner) leads instead, with any tile.
    """
    _check_deal(rules, started)
    if leader is not None:
        if not 0 <= leader < rules.seats:
            raise IllegalMove("bad-deal", f"there is no seat {leader} to lead")
        seat, tile = leader, None
    else:
        seat, tile = opener(rules, started.hands)
        if rules.lead == "any":
            tile = None
    return _state(rules, started, started.hands, started.boneyard, (), seat, 0, tile, (), ())


def replay(started: RoundStarted, moves: Iterable[Move], rules: Rules = DEFAULT) -> State:
    """Fold the moves over the deal."""
    state = start(started, rules)
    for move in moves:
        state = apply(state, move)
    return state


def apply(state: State, event: Event) -> State:
    """The state after `event`; an illegal event raises IllegalMove and changes nothing."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise IllegalMove("not-an-event", f"not a move: {event!r}")
    if state.turn is None:
        raise IllegalMove("round-over", "the round is over")
    if event.seat != state.turn:
        raise IllegalMove("not-your-turn", f"it is not seat {event.seat}'s turn")
    return handler(state, event)


def resolve(state: State, seat: int, action: Action) -> Move:
    """The event a seat's action becomes: a draw takes the next boneyard tile."""
    if isinstance(action, Play):
        return played_event(seat, action[0], action[1])
    if action is DRAW:
        if not state.boneyard:
            raise IllegalMove("boneyard-empty", "the boneyard is empty")
        return drawn_event(seat, state.boneyard[0])
    if action is PASS:
        return passed_event(seat)
    raise IllegalMove("not-an-action", f"not an action: {action!r}")


def step(state: State, seat: int, action: Action) -> tuple[State, Move]:
    """Carry out a seat's action: the new state and the event to record."""
    event = resolve(state, seat, action)
    return apply(state, event), event


def laid_at(tile: Tile, end: str, ends: tuple[int, int]) -> Laid:
    """How `tile` lies once laid at `end` of a line with open `ends` (it must fit there)."""
    left, right = ends
    if end == LEFT:
        return Laid(tile.other_half(left), left)
    return Laid(right, tile.other_half(right))


def legal_actions(state: State, seat: int) -> tuple[Action, ...]:
    """Everything `seat` may do now; empty when it is not its turn."""
    if seat != state.turn:
        return ()
    if state.opening is not None:
        return _PLAYS[state.opening]
    line, hand = state.line, state.hands[seat]
    if not line:  # a free lead: any tile
        return tuple(play for tile in hand for play in _PLAYS[tile])
    left, right = 1 << line[0].left, 1 << line[-1].right
    plays = []
    for tile in hand:
        mask = tile.mask
        if mask & left:
            plays.append(_PLAYS[tile][0])
        if mask & right:
            plays.append(_PLAYS[tile][1])
    if plays:
        return tuple(plays)
    if state.rules.boneyard and state.boneyard:
        return (DRAW,)
    return (PASS,)


def outcome(state: State) -> Outcome | None:
    """How the round ended, or None while it goes on (docs/contracts.md, the rules object's blocked
    and scoring)."""
    if state.turn is not None:
        return None
    rules = state.rules
    totals = [pip_total(hand) for hand in state.hands]
    sides = rules.sides()
    weights = [sum(totals[seat] for seat in side) for side in sides]
    out = next((seat for seat, hand in enumerate(state.hands) if not hand), None)
    if out is not None:
        reason = "domino"
        index = _index(sides, out)
        points = sum(weights) - weights[index]
    else:
        reason, light = "blocked", min(weights)
        lightest = [i for i, weight in enumerate(weights) if weight == light]
        if len(lightest) > 1:
            return Outcome(None, reason, 0, (), (0,) * rules.seats)
        index = lightest[0]
        out = min(sides[index], key=lambda seat: (totals[seat], seat))
        others = sum(weights) - light
        points = {"difference": others - light * (len(weights) - 1), "others": others}.get(
            rules.blocked, others + light
        )
    winners = sides[index]
    if rules.scoring == "goat":
        scores = tuple(
            0 if seat in winners else weights[_index(sides, seat)] for seat in range(rules.seats)
        )
        return Outcome(out, reason, 0, winners, scores)
    scores = tuple(points if seat in winners else 0 for seat in range(rules.seats))
    return Outcome(out, reason, points, winners, scores)


def _index(sides: tuple[tuple[int, ...], ...], seat: int) -> int:
    """Which side a seat is on, as an index into `sides`."""
    return next(i for i, seats in enumerate(sides) if seat in seats)


def _check_deal(rules: Rules, started: RoundStarted) -> None:
    """Refuse a deal that is not the whole set split by the rules."""
    hands, boneyard = started.hands, started.boneyard
    if len(hands) != rules.seats:
        raise IllegalMove("bad-deal", f"the deal has {len(hands)} hands, not {rules.seats}")
    for seat, hand in enumerate(hands):
        if len(hand) != rules.hand_size:
            raise IllegalMove("bad-deal", f"hand {seat} has {len(hand)} tiles")
    if len(boneyard) != rules.boneyard_size:
        raise IllegalMove("bad-deal", f"the boneyard has {len(boneyard)} tiles")
    dealt = [tile for hand in hands for tile in hand]
    dealt += boneyard
    if not all(map(isinstance, dealt, repeat(Tile))):
        raise IllegalMove("bad-deal", "the deal holds something that is not a tile")
    whole = _whole(rules.max_pip)
    if len(dealt) != len(whole) or set(dealt) != whole:
        raise IllegalMove("bad-deal", "the deal is not the full set, each tile once")


def _fits(hand: tuple[Tile, ...], line: tuple[Laid, ...]) -> bool:
    """True when some tile of `hand` matches an open end (any tile, on an empty line)."""
    if not line:
        return bool(hand)
    mask = (1 << line[0].left) | (1 << line[-1].right)
    return any(tile.mask & mask for tile in hand)


def _played(state: State, event: TilePlayed) -> State:
    seat, tile, end = event.seat, event.tile, event.end
    hand = state.hands[seat]
    if end not in ENDS:
        raise IllegalMove("bad-end", f"the end is 'left' or 'right', not {end!r}")
    if tile not in hand:
        raise IllegalMove("tile-not-held", f"seat {seat} does not hold {tile}")
    line = state.line
    if not line:
        if state.opening is not None and tile is not state.opening:
            raise IllegalMove("must-open", f"the round opens with {state.opening}")
        left = right = None
        line = (_LAID[tile.low][tile.high],)
    else:
        left, right = line[0].left, line[-1].right
        line = _joined(line, tile, end, left if end == LEFT else right)
    index = hand.index(tile)
    rest = hand[:index] + hand[index + 1 :]
    hands = (*state.hands[:seat], rest, *state.hands[seat + 1 :])
    rules = state.rules
    turn = (seat + 1) % rules.seats if rest else None
    moves = (*state.moves, event)
    history = (*state.history, _public(seat, "play", tile, end, left, right))
    return _state(rules, state.start, hands, state.boneyard, line, turn, 0, None, moves, history)


def _joined(line: tuple[Laid, ...], tile: Tile, end: str, value: int) -> tuple[Laid, ...]:
    """The line with `tile` joined on the open `value` at `end`; IllegalMove if it does not fit."""
    if tile.low == value:
        other = tile.high
    elif tile.high == value:
        other = tile.low
    else:
        raise IllegalMove("does-not-fit", f"{tile} does not fit the {end} end ({value})")
    if end == LEFT:
        return (_LAID[other][value], *line)
    return (*line, _LAID[value][other])


def _drawn(state: State, event: TileDrawn) -> State:
    seat, boneyard = event.seat, state.boneyard
    hand = state.hands[seat]
    _refuse_if_can_play(state, hand, "draw")
    if not state.rules.boneyard:
        raise IllegalMove("no-drawing", "this game has no drawing: pass instead")
    if not boneyard:
        raise IllegalMove("boneyard-empty", "the boneyard is empty")
    if event.tile is not boneyard[0]:
        raise IllegalMove("not-next-tile", "a draw takes the next tile of the boneyard")
    hands = (*state.hands[:seat], (*hand, event.tile), *state.hands[seat + 1 :])
    line, rules = state.line, state.rules
    moves = (*state.moves, event)
    history = (*state.history, _public(seat, "draw", None, None, line[0].left, line[-1].right))
    return _state(rules, state.start, hands, boneyard[1:], line, seat, 0, None, moves, history)


def _passed(state: State, event: Passed) -> State:
    seat, rules, line = event.seat, state.rules, state.line
    _refuse_if_can_play(state, state.hands[seat], "pass")
    if rules.boneyard and state.boneyard:
        raise IllegalMove("must-draw", "you cannot pass while the boneyard has tiles: draw")
    passes = state.passes + 1
    turn = None if passes >= rules.seats else (seat + 1) % rules.seats
    moves = (*state.moves, event)
    history = (*state.history, _public(seat, "pass", None, None, line[0].left, line[-1].right))
    hands, boneyard = state.hands, state.boneyard
    return _state(rules, state.start, hands, boneyard, line, turn, passes, None, moves, history)


def _refuse_if_can_play(state: State, hand: tuple[Tile, ...], what: str) -> None:
    """Drawing and passing are only for a seat with nothing to play."""
    if state.opening is not None:
        raise IllegalMove("must-open", f"the round opens with {state.opening}: play it")
    if _fits(hand, state.line):
        raise IllegalMove("must-play", f"you hold a tile that fits, so you may not {what}")


_HANDLERS = {TilePlayed: _played, TileDrawn: _drawn, Passed: _passed}
