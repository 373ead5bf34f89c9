"""What one seat may see, the only thing bots and templates receive (`SeatView`), and what its
table shows: the seat view plus the room's public facts (`TableView`). No Flask."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .clock import whole
from .counter import TileCounter, tile_counter
from .duplicate import DuplicateResult, duplicate_result
from .events import Action, PublicMove, builder
from .game import Outcome, State, legal_actions, outcome
from .match import Match
from .room import Room
from .rules import DEFAULT, Rules
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


@dataclass(frozen=True, slots=True)
class Company:
    """Another seat as this seat's table shows it.

    `computer` is the level the computer plays it at (None: a person plays it, or nobody yet);
    `held` says a person holds it (so a seat with both was handed to the computer while its
    player was away); `away_long` says its player has been away long enough to hand it over,
    and `away_left`, while they are away but not yet that long, in how many seconds.
    """

    seat: int
    count: int
    connected: bool
    partner: bool
    computer: str | None
    held: bool
    name: str
    away_long: bool = False
    away_left: int | None = None  # seconds until it may be handed over, while its player is away
    lost: bool = False  # its player abandoned the match in play (a public table's clock)


@dataclass(frozen=True, slots=True)
class Fairness:
    """The public side of a room's fair deals: the current deal's commitment and round, its
    server seed once the round is over (None before: never held by a view mid-round), and
    the commitment to the next deal's seed."""

    commitment: str | None
    server_seed: str | None
    round: int | None
    next_commitment: str | None


@dataclass(frozen=True, slots=True)
class ClockView:
    """A public table's clock as the table shows it (SPEC §14 `data-clock`): whose move it
    runs for, and the whole seconds left of its move time and of its bank (per the server,
    when the table was drawn; the page counts down from them)."""

    seat: int
    move_left: int
    bank_left: int

    @property
    def left(self) -> int:
        """Every second the seat has left for this move."""
        return self.move_left + self.bank_left


def clock_view(room: Room, now: float) -> ClockView | None:
    """The clock of `room` at `now`, while it runs for a seat in a round (None elsewhere:
    friend and computer rooms, and between rounds)."""
    clock = room.clock
    if clock is None or clock.seat is None or room.round is None or room.round.over:
        return None
    if clock.overdue:  # the computer moves for the seat: nothing left
        return ClockView(clock.seat, 0, 0)
    return ClockView(clock.seat, whole(clock.move_left(now)), whole(clock.bank_left(now)))


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one seat's table shows; templates receive this, never the room."""

    room: str
    kind: str
    seat: int
    game: SeatView
    seq: int
    full: bool  # every seat is taken (by a person or the computer), as `Room.full` says
    others_connected: bool  # the table is full and every other seat is here (or the computer)
    request: str | None
    live: bool
    active: bool
    level: str | None = None
    rules: Rules = DEFAULT
    match: Match | None = None
    matches: int = 0
    company: tuple[Company, ...] = ()
    name: str = ""
    handed: bool = False  # the computer plays this seat until its player's turn comes again
    fair: Fairness | None = None
    request_kind: str | None = None  # "round" or "rematch", while a request is open
    rematch: bool = False  # the round in play replays the one before it, hands turned
    duplicate: DuplicateResult | None = None  # a finished rematch beside the round it replayed
    clock: ClockView | None = None  # a public table's, while it runs for a seat
    timed_out: frozenset[int] = frozenset()  # the round's moves the computer made on a timeout
    lost: frozenset[int] = frozenset()  # the seats whose players abandoned the match in play
    public: bool = False  # a public table (SPEC §12): play never waits for an away player
    next_in: int | None = None  # between a public match's rounds: seconds until the next deal
    stake: int = 0  # a stake table's coins a seat (SPEC §13), 0 at any other

    @property
    def commitment(self) -> str | None:
        """The commitment to the current deal's server seed (docs/fair-deals.md), if it was fair."""
        return self.fair.commitment if self.fair else None

    @property
    def server_seed(self) -> str | None:
        """The current deal's server seed, revealed once its round is over."""
        return self.fair.server_seed if self.fair else None

    @property
    def waiting(self) -> bool:
        """True when play is held up because another seat is missing (never at a public
        table once it is full: the clock runs for whoever is away)."""
        here = self.others_connected or self.public
        return not (self.full and here) and not self.game.over

    @property
    def between_rounds(self) -> bool:
        """True when the round is over and the match (if any) goes on: "Continue" deals."""
        return self.game.over and not (self.match is not None and self.match.over)

    @property
    def others(self) -> tuple[int, ...]:
        """Every seat of the table but this one, in seat order."""
        return tuple(seat for seat in range(self.rules.seats) if seat != self.seat)

    @property
    def people(self) -> int:
        """How many people hold a seat at this table, this one included: a seat the computer
        plays while its player is away counts, as a new deal mid-round waits for their word
        too (`Room.voices`)."""
        return 1 + sum(1 for other in self.company if other.held)


def table_view(
    room: Room,
    seat: int,
    present: Collection[int],
    live: bool = True,
    away_long=(),
    away_left=None,
    now: float = 0.0,
) -> TableView:
    """What `seat` sees of `room`; `present` holds the seats with a live socket, `away_long`
    those away long enough to be handed to the computer, `away_left` (seat: seconds) how long
    the others away have still to wait; `live` is False until the page's own socket is open;
    `now` the moment a public table's clock is read at."""
    view = seat_view(room.round, seat, counter=room.counter)
    request = None
    if room.request is not None:
        request = "mine" if seat in room.agreed else "theirs"
    company = tuple(
        _company(room, view, s, present, away_long, away_left or {}) for s in _others(room, seat)
    )
    connected = room.full and all(other.connected for other in company)
    # Play never waits at a public table: the clock runs for whoever is away (SPEC §12).
    goes_on = connected or (room.kind == "public" and room.full)
    return TableView(
        room=room.id,
        kind=room.kind,
        seat=seat,
        game=view,
        seq=room.seq,
        full=room.full,
        others_connected=connected,
        request=request,
        live=live,
        active=goes_on and live and view.my_turn and not room.handed(seat) and room.overdue != seat,
        level=room.level,
        rules=room.rules,
        match=room.match,
        matches=room.matches,
        company=company,
        name=room.names[seat],
        handed=room.handed(seat),
        fair=_fairness(room),
        request_kind=room.request_kind,
        rematch=room.duplicate is not None,
        duplicate=_duplicate(room, seat),
        clock=clock_view(room, now),
        timed_out=room.timed_out,
        lost=room.lost,
        public=room.kind == "public",
        next_in=_next_in(room, now),
        stake=room.stake,
    )


def _next_in(room: Room, now: float) -> int | None:
    """Between the rounds of a public match, the whole seconds until the clock deals the
    next round (None elsewhere)."""
    clock = room.clock
    if clock is None or clock.seat is not None or room.match is None:
        return None
    if room.round is None or not room.between_rounds:
        return None
    return whole(clock.deadline - now)


def _duplicate(room: Room, seat: int) -> DuplicateResult | None:
    """Both rounds of a finished rematch as `seat` played them (every hand is public now)."""
    if room.duplicate is None or not room.round.over:
        return None
    return duplicate_result(room.duplicate, room.round, seat)


def _fairness(room: Room) -> Fairness:
    """What the table may show of the room's fair deals now."""
    current = room.fair.current or {}
    over = room.round is not None and room.round.over
    return Fairness(
        current.get("commitment"),
        current.get("server_seed") if over else None,
        current.get("round"),
        room.fair.next_commitment,
    )


def _others(room: Room, seat: int) -> list[int]:
    """The other seats, in turn order from this one."""
    seats = room.rules.seats
    return [(seat + step) % seats for step in range(1, seats)]


def _company(room: Room, view: SeatView, other: int, present, away_long, away_left) -> Company:
    held, bot = room.seats[other] is not None, room.bots[other]
    waits = held and bot is None and other not in present and other not in away_long
    return Company(
        seat=other,
        count=view.counts[other],
        connected=bot is not None or (held and other in present),
        partner=room.rules.teams and room.rules.side(other) == room.rules.side(view.seat),
        computer=bot,
        held=held,
        name=room.names[other],
        away_long=held and bot is None and other in away_long,
        away_left=away_left.get(other) if waits else None,
        lost=other in room.lost,
    )
