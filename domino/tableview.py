"""What one seat's table shows: its seat view plus the room's public facts (no Flask)."""

from __future__ import annotations

from dataclasses import dataclass

from .match import Match
from .room import Room
from .rules import DEFAULT, Rules
from .views import SeatView, seat_view


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one seat's table shows; templates receive this, never the room."""

    room: str
    kind: str
    seat: int
    game: SeatView
    seq: int
    guest_joined: bool
    opponent_connected: bool
    request: str | None
    live: bool
    active: bool
    level: str | None = None
    rules: Rules = DEFAULT
    match: Match | None = None
    matches: int = 0

    @property
    def waiting(self) -> bool:
        """True when play is held up because the other seat is missing."""
        return not (self.guest_joined and self.opponent_connected) and not self.game.over

    @property
    def between_rounds(self) -> bool:
        """True when the round is over and the match (if any) goes on: "Continue" deals."""
        return self.game.over and not (self.match is not None and self.match.over)

    @property
    def others(self) -> tuple[int, ...]:
        """Every seat of the table but this one, in seat order."""
        return tuple(seat for seat in range(self.rules.seats) if seat != self.seat)


def table_view(room: Room, seat: int, opponent_connected: bool, live: bool = True) -> TableView:
    """What `seat` sees of `room`; `live` is False until the page's own socket is open."""
    view = seat_view(room.round, seat)
    request = None
    if room.request is not None:
        request = "mine" if room.request == seat else "theirs"
    connected = room.kind == "computer" or (room.full and opponent_connected)
    return TableView(
        room=room.id,
        kind=room.kind,
        seat=seat,
        game=view,
        seq=room.seq,
        guest_joined=room.full,
        opponent_connected=connected,
        request=request,
        live=live,
        active=connected and live and view.my_turn,
        level=room.level,
        rules=room.rules,
        match=room.match,
        matches=room.matches,
    )
