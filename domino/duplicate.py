"""The duplicate rematch's result: one deal played twice, the hands turned (issue 16).

In the rematch seat s holds the hand seat s + 1 held the first time, with the same boneyard.
A seat's duplicate score is its net points in the first round plus its net points in the
second (`net_points`: what its side wrote against the others' mean, higher
better). The luck of the deal cancels out: at two seats, a seat that plays each hand as well
as the other seat played it scores 0, and a better player scores more.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .game import Outcome, State, outcome
from .rules import Rules


def net_points(rules: Rules, result: Outcome, seat: int) -> float:
    """What `seat`'s side wrote for the round against the others' mean, higher better.

    Under goat scoring what a side writes is a penalty, so the sign is turned.
    """
    sides = rules.sides()
    own = result.scores[seat]
    others = [result.scores[side[0]] for side in sides if seat not in side]
    value = own - statistics.fmean(others)
    value = -value if rules.scoring == "goat" else value
    return int(value) if value == int(value) else value


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One of the two rounds as seat `seat` played it.

    `number` is 1 (the deal as dealt) or 2 (the rematch); `hand` the seat that held, in the
    first round, the hand this seat played; `winner`, `winners`, `reason` and `points` as in
    the round's result (docs/contracts.md, the round record); `verdict` "you", "opponent" or "draw"
    for this seat's
    side; `net` this seat's net points.
    """

    number: int
    hand: int
    winner: int | None
    winners: tuple[int, ...]
    reason: str
    points: int
    verdict: str
    net: int | float

    @property
    def signed(self) -> str:
        """This seat's net points with their sign: "+17", "-4", "0"."""
        return signed(self.net)


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    """Both rounds of a duplicate rematch for `seat`, and its duplicate `score`."""

    seat: int
    first: RoundResult
    second: RoundResult
    score: int | float

    @property
    def rounds(self) -> tuple[RoundResult, RoundResult]:
        """The two rounds, in the order played."""
        return (self.first, self.second)

    @property
    def signed(self) -> str:
        """The score with its sign: "+5", "-2.5", "0"."""
        return signed(self.score)


def duplicate_result(first: State, second: State, seat: int) -> DuplicateResult:
    """`seat`'s result of the finished round `first` and its finished rematch `second`
    (ValueError unless `second` deals `first`'s hands turned one seat on)."""
    seats = first.rules.seats
    if not 0 <= seat < seats:
        raise ValueError(f"there is no seat {seat}")
    if not (first.over and second.over):
        raise ValueError("both rounds must be over")
    if first.rules != second.rules:
        raise ValueError("a rematch is played under the same rules")
    hands = first.start.hands
    turned = tuple(hands[(s + 1) % seats] for s in range(seats))
    if second.start.hands != turned or second.start.boneyard != first.start.boneyard:
        raise ValueError("the second round is not the first one's deal with the hands turned")
    one = _round(first, seat, 1, seat)
    two = _round(second, seat, 2, (seat + 1) % seats)
    return DuplicateResult(seat, one, two, _number(one.net + two.net))


def _round(state: State, seat: int, number: int, hand: int) -> RoundResult:
    result = outcome(state)
    net = net_points(state.rules, result, seat)
    verdict = "you" if seat in result.winners else "opponent" if result.winners else "draw"
    return RoundResult(
        number, hand, result.winner, result.winners, result.reason, result.points, verdict, net
    )


def _number(value: int | float) -> int | float:
    """A whole number as an int (a mean over three seats may leave a fraction)."""
    value = round(value, 6)
    return int(value) if value == int(value) else value


def signed(value: int | float) -> str:
    """A number with its sign, "+" for a gain; 0 has none."""
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"+{text}" if value > 0 else text
