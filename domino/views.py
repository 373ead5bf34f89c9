"""What one seat may see: the only thing bots and templates receive."""

from __future__ import annotations

from dataclasses import dataclass

from .counter import TileCounter, tile_counter
from .events import Action, PublicMove, builder
from .game import Outcome, State, legal_actions, outcome
from .rules import Rules
from .tiles import Laid, Tile


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's view of a round.

    Before the round ends it holds the seat's own hand and public facts only: the line,
    the open ends, how many tiles each hand and the boneyard hold, whose turn it is, what
    this seat may do, the tile it must open with (only if it is this seat's), and the public
    history. Once the round is over, `hands` shows every hand and `outcome` the result.
    `counter` is the tile counter (`domino.counter`), built from those public facts only,
    when the room turned it on; bots get None.
    """

    rules: Rules
    seat: int
    hand: tuple[Tile, ...]
    line: tuple[Laid, ...]
    ends: tuple[int, int] | None
    counts: tuple[int, ...]
    boneyard_count: int
    turn: int | None
    legal: tuple[Action, ...]
    opening: Tile | None
    history: tuple[PublicMove, ...]
    outcome: Outcome | None
    hands: tuple[tuple[Tile, ...], ...] | None
    counter: TileCounter | None = None

    @property
    def my_turn(self) -> bool:
        """True when this seat is to act."""
        return self.turn == self.seat

    @property
    def over(self) -> bool:
        """True once the round has ended."""
        return self.outcome is not None

    def count(self, seat: int) -> int:
        """How many tiles `seat` holds."""
        return self.counts[seat]


_view = builder(SeatView)


def seat_view(state: State, seat: int, counter: bool = False) -> SeatView:
    """What `seat` may see of `state`, and nothing more (with `counter`: its tile counter,
    counted from its hand, the line and the history)."""
    hands, line, turn, opening = state.hands, state.line, state.turn, state.opening
    hand = hands[seat]
    result = outcome(state) if turn is None else None
    return _view(  # every field, in SeatView's order
        state.rules,
        seat,
        hand,
        line,
        (line[0].left, line[-1].right) if line else None,
        tuple(map(len, hands)),
        len(state.boneyard),
        turn,
        legal_actions(state, seat) if seat == turn else (),
        opening if opening is not None and opening in hand else None,
        state.history,
        result,
        hands if result is not None else None,
        tile_counter(state.rules, seat, hand, line, state.history) if counter else None,
    )
