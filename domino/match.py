"""A match to a target (docs/contracts.md, the rules object): the running score as a pure fold of
round outcomes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .game import Outcome
from .rules import Rules


@dataclass(frozen=True, slots=True)
class Match:
    """A match after some rounds; change it only through `add`.

    `scores` has one number per seat: its side's score (partners show the same number).
    `over` once a side has reached the target (never without one); then `winners` holds the
    seats of the side that won the match, or nothing for a draw. `last_winner` is the seat
    that won the last round (None before the first, or after a drawn round).
    """

    rules: Rules
    scores: tuple[int, ...]
    rounds: int = 0
    last_winner: int | None = None

    @property
    def over(self) -> bool:
        """True once a side has reached the target."""
        target = self.rules.target
        return target is not None and max(self.scores) >= target

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats of the side that won the match, once it is over (none for a draw)."""
        if not self.over:
            return ()
        by_side = {self.rules.side(seat): score for seat, score in enumerate(self.scores)}
        best = min(by_side.values()) if self.rules.scoring == "goat" else max(by_side.values())
        sides = [side for side, score in by_side.items() if score == best]
        if len(sides) > 1:
            return ()
        return tuple(seat for seat in range(self.rules.seats) if self.rules.side(seat) == sides[0])

    @property
    def leader(self) -> int | None:
        """Who leads the next round when the rules say the previous winner does, else None."""
        if self.rules.next_opener != "previous-winner" or self.over:
            return None
        return self.last_winner


def new_match(rules: Rules) -> Match:
    """A match before its first round."""
    return Match(rules, (0,) * rules.seats)


def add(match: Match, outcome: Outcome) -> Match:
    """The match after one more round; a match that is over takes no more rounds."""
    if match.over:
        raise ValueError("the match is over")
    if len(outcome.scores) != match.rules.seats:
        raise ValueError(f"a round of {match.rules.seats} seats has that many scores")
    scores = tuple(a + b for a, b in zip(match.scores, outcome.scores, strict=True))
    return Match(match.rules, scores, match.rounds + 1, outcome.winner)


def fold(rules: Rules, outcomes: Iterable[Outcome]) -> Match:
    """The match after these rounds, in order."""
    match = new_match(rules)
    for outcome in outcomes:
        match = add(match, outcome)
    return match
