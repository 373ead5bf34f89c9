"""A room as a fold of its stored events, and what a seat's action decides (no store, no Flask).

A room event is `(type, data)`: "rules" (the room's rules object, its first event), "seat"
(a browser takes a seat), "deal", "play", "draw", "pass", "ask" (a seat asks for, or agrees
to, a new round or match), "decline", "level" (the computer plays a seat, at a level: a free
seat given to it, or a seat whose player has been away; a computer room's older "level" events
name no seat and mean seat 1), "back" (a seat's player takes it back from the computer),
"name" (a seat's display name), "match" (a new match begins; the deal that follows is its
first), "options" (the tile counter) and the fair-deal events "commit" and "seed" (see
`domino.dealing`). A public room's clock (`domino.clock`, SPEC §12) is folded from its "clock"
events (the turn passed to a seat, or to nobody between rounds, at a stored moment; a match's
first one gives the move and bank seconds), "timeout" (a seat's time ran out: the computer
makes its move) and "abandon" (a seat handed to the computer for the rest of the match, its
player losing it: timed out too often, or away too long). An "ask" may name `what`:
"rematch" asks to replay the round just finished with the hands turned (a "deal" that names
`rematch`). Rooms from before rules were stored
have no "rules" event: they play the default game.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, replace

from . import dealing, game
from .clock import Clock
from .dealing import NOT_YET, Fair
from .match import Match, add, new_match
from .record import move_from_dict
from .rules import DEFAULT, Rules

MOVES = ("play", "draw", "pass")
DRAW_UNTIL = "draw-until"  # draws, one stored "draw" each, until a tile fits (web/live/tables.py)
ASKS = {"new-round": "round", "rematch": "rematch"}  # what each asks for
ACCEPTS = {"accept-new-round": "round", "accept-rematch": "rematch"}
ROOM_ACTIONS = (*MOVES, DRAW_UNTIL, *ASKS, *ACCEPTS, "decline-new-round")
LEVELS = ("easy", "medium", "hard")
PUBLIC_LEVEL = "hard"  # the computer's level at a public table: its fill and its timed-out moves
OLD_COMPUTER_SEAT = 1  # the seat of a computer room's "level" events that name none
STAND_IN_LEVEL = "medium"  # the computer's level for an away player it never stood in for
NAME_LENGTH = 20  # the longest display name, in characters
DIGITS = re.compile(r"[0-9]{1,18}")  # a whole number as a form writes it: ASCII digits only
IDLE_SECONDS = 7 * 24 * 3600  # a room idle this long is deleted (`flask purge-rooms`)
SHARD_NAME = re.compile(r"[a-z][a-z0-9]{0,15}")  # a shard's; no "-": it ends the name in an id


class RoomError(Exception):
    """An action the room refuses, named by a stable `code` (the web layer words it)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class Room:
    """A room as folded from its events. Seat 0 is the creator.

    `seats` holds each seat's secret hash (None: free), `bots` the computer's level on each
    seat it plays (None: a person plays it, or nobody yet), `names` the seats' display names
    and `stand_ins` the level the computer last played each held seat at for its player
    while they were away (None: never). At a public room, `clock` is the match's clock (None
    before its first deal; a public table plays one match), `lost` the seats whose players
    lost the match in play by abandoning it, `timed_out` the indices in the round's history
    of the moves the computer made for a seat whose time ran out, and `arrived` the seats
    whose players came with their seat grants (`commands.reseat`), and `stake` the coins each
    person staked at a stake table (SPEC §13; 0 at any other).
    `rounds` counts the dealt rounds that count (0 while the creator waits: a preview);
    `match` is the match in play (rooms with a target only) and `matches` its number;
    `request` is the seat that asked for a new round or match (or, `request_kind`
    "rematch", a rematch) and `agreed` every seat that asked or agreed since. `fair` is the
    fair-deal state, `dealt_at` the seq of the latest deal, `duplicate` the round a rematch
    replays (while the round in play is its rematch) and `counter` the tile counter option.
    """

    id: str
    kind: str
    seats: tuple[str | None, ...]
    round: game.State | None
    rounds: int
    request: int | None
    seq: int
    bots: tuple[str | None, ...] = (None, None)
    rules: Rules = DEFAULT
    match: Match | None = None
    matches: int = 0
    agreed: frozenset[int] = frozenset()
    names: tuple[str, ...] = ("", "")
    fair: Fair = NOT_YET
    dealt_at: int = 0
    request_kind: str | None = None
    duplicate: game.State | None = None
    counter: bool = False
    stand_ins: tuple[str | None, ...] = (None, None)
    clock: Clock | None = None
    lost: frozenset[int] = frozenset()
    timed_out: frozenset[int] = frozenset()
    arrived: frozenset[int] = frozenset()
    stake: int = 0

    @property
    def computer_to_move(self) -> bool:
        """True when the round waits for a seat the computer plays (never in a preview
        dealt while seats are free), or for one whose time ran out (`overdue`)."""
        turn = self.round.turn if self.round is not None else None
        if turn is None or not self.full:
            return False
        return self.bots[turn] is not None or self.overdue == turn

    @property
    def overdue(self) -> int | None:
        """The seat whose time ran out: the computer makes its move (None: no such seat)."""
        clock = self.clock
        return clock.seat if clock is not None and clock.overdue else None

    def level_of(self, seat: int) -> str | None:
        """The level the computer plays `seat` at now (a seat whose time ran out: PUBLIC_LEVEL)."""
        if self.bots[seat] is None and self.overdue == seat:
            return PUBLIC_LEVEL
        return self.bots[seat]

    @property
    def match_over(self) -> bool:
        """True when the match is over (in a room without a target: the round)."""
        if self.round is None or not self.round.over:
            return False
        return self.match is None or self.match.over

    @property
    def full(self) -> bool:
        """True once every seat is taken, by a person or the computer."""
        return all(held is not None or bot is not None for held, bot in self.taken)

    @property
    def taken(self) -> tuple[tuple[str | None, str | None], ...]:
        """Each seat's (secret hash, computer level)."""
        return tuple(zip(self.seats, self.bots, strict=True))

    @property
    def humans(self) -> tuple[int, ...]:
        """The seats people play now (a seat handed to the computer is not one of them)."""
        return tuple(seat for seat, (held, bot) in enumerate(self.taken) if held and bot is None)

    @property
    def voices(self) -> tuple[int, ...]:
        """The seats whose word a new deal needs now. While a counted round is in play (a new
        round or match would throw it away): every seat a person holds, one the computer
        plays while its player is away included, so such a deal waits for them. Otherwise
        (between rounds, after a match): the seats people play, the computer giving its
        word for the others, so "Continue" goes on."""
        if self.full and self.round is not None and not self.round.over:
            return tuple(seat for seat, held in enumerate(self.seats) if held is not None)
        return self.humans

    @property
    def free(self) -> tuple[int, ...]:
        """The seats nobody has taken yet, in order."""
        return tuple(seat for seat, (held, bot) in enumerate(self.taken) if not held and not bot)

    @property
    def level(self) -> str | None:
        """The level of the first seat the computer plays (a computer room's one level)."""
        return next((bot for bot in self.bots if bot is not None), None)

    @property
    def between_rounds(self) -> bool:
        """True when the round is over and the match (if any) goes on: "Continue" deals."""
        return self.round.over and not (self.match is not None and self.match.over)

    def handed(self, seat: int) -> bool:
        """True when the computer plays a seat a person holds (they were away)."""
        return self.seats[seat] is not None and self.bots[seat] is not None

    def seat_of(self, secret: str | None) -> int | None:
        """The seat a browser's secret holds, if any."""
        if not secret:
            return None
        digest = secret_hash(secret)
        for seat, held in enumerate(self.seats):
            if held is not None and secrets.compare_digest(held, digest):
                return seat
        return None


def form_number(text) -> int | None:
    """A whole number written in ASCII digits (at most 18 of them), else None.

    Not `str.isdigit()` nor `int()` alone: they also take superscripts ("²"), circled digits
    ("①", which `int()` then refuses), other scripts' digits ("٣"), signs, spaces and "_".
    """
    if isinstance(text, str) and DIGITS.fullmatch(text):
        return int(text)
    return None


def seat_number(text, seats: int) -> int:
    """The seat a form names, in ASCII digits below `seats`; else RoomError("bad-seat")."""
    seat = form_number(text)
    if seat is None or seat >= seats:
        raise RoomError("bad-seat")
    return seat


def secret_hash(secret: str) -> str:
    """What is stored of a seat's secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A seat secret: 256 random bits."""
    return secrets.token_urlsafe(32)


def new_room_id(shard: str = "") -> str:
    """A room id: 128 random bits, after `<shard>-` when the process is one shard of several,
    so that a router sends the room home by its id alone (docs/cluster.md)."""
    token = secrets.token_urlsafe(16)
    return f"{shard}-{token}" if shard else token


def empty(room_id: str, kind: str, rules: Rules = DEFAULT) -> Room:
    """A room before its first event (or after its "rules" event, with `rules`).

    A computer room's seat 1 is the computer's from the start: its oldest rooms store no level.
    """
    bots = [None] * rules.seats
    if kind == "computer":
        bots[OLD_COMPUTER_SEAT] = "medium"
    return Room(
        room_id,
        kind,
        (None,) * rules.seats,
        None,
        0,
        None,
        0,
        tuple(bots),
        rules,
        names=("",) * rules.seats,
        stand_ins=(None,) * rules.seats,
    )


def fold(room_id: str, kind: str, events) -> Room:
    """The room after its stored events `(seq, type, data)`."""
    room = empty(room_id, kind)
    for seq, kind_, data in events:
        room = apply(room, kind_, data, seq)
    return room


def apply(room: Room, kind: str, data: dict, seq: int) -> Room:
    """The room after one stored event."""
    if kind in MOVES:
        state = game.apply(room.round, move_from_dict(data))
        timed_out = room.timed_out
        if room.overdue is not None:  # the computer's, for a seat whose time ran out
            timed_out = timed_out | {len(room.round.history)}
        match = room.match
        if state.over and match is not None and room.rounds and room.duplicate is None:
            match = add(match, game.outcome(state))  # a rematch does not count
        return replace(room, round=state, match=match, timed_out=timed_out, seq=seq, **_NO_REQUEST)
    if kind == "deal":
        return _dealt(room, data, seq)
    if kind == "commit":
        return replace(room, fair=dealing.on_commit(room.fair, data, room.rules.seats), seq=seq)
    if kind == "seed":
        return replace(room, fair=dealing.on_seed(room.fair, data), seq=seq)
    if kind == "options":
        return replace(room, counter=bool(data.get("counter")), seq=seq)
    if kind == "seat":
        seat, arrived = data["seat"], room.arrived
        if room.seats[seat] is not None:  # a held seat's new secret: its player's grant came
            arrived = arrived | {seat}
        return replace(room, seats=_put(room.seats, seat, data["hash"]), arrived=arrived, seq=seq)
    if kind == "ask":
        request = data["seat"] if room.request is None else room.request
        what = room.request_kind or data.get("what", "round")
        agreed = room.agreed | {data["seat"]}
        return replace(room, request=request, request_kind=what, agreed=agreed, seq=seq)
    if kind == "decline":
        return replace(room, seq=seq, **_NO_REQUEST)
    if kind == "level":
        seat, level = data.get("seat", OLD_COMPUTER_SEAT), data["level"]
        stand_ins = room.stand_ins
        if room.seats[seat] is not None:  # a held seat: the computer stands in for its player
            stand_ins = _put(stand_ins, seat, level)
        return replace(room, bots=_put(room.bots, seat, level), stand_ins=stand_ins, seq=seq)
    if kind == "back":
        return replace(room, bots=_put(room.bots, data["seat"], None), seq=seq)
    if kind == "name":
        return replace(room, names=_put(room.names, data["seat"], data["name"]), seq=seq)
    if kind == "rules":
        rules = Rules.from_json(data)
        match, matches = (new_match(rules), 1) if rules.target is not None else (None, 0)
        fresh = empty(room.id, room.kind, rules)
        return replace(fresh, match=match, matches=matches, seq=seq)
    if kind == "match":
        return replace(room, match=new_match(room.rules), matches=room.matches + 1, seq=seq)
    if kind == "clock":
        return replace(room, clock=_clocked(room, data), seq=seq)
    if kind == "timeout":
        return replace(room, clock=room.clock.timed_out(), seq=seq)
    if kind == "abandon":
        return replace(room, lost=room.lost | {data["seat"]}, seq=seq)
    if kind == "stake":
        return replace(room, stake=data["coins"], seq=seq)
    raise ValueError(f"unknown room event {kind!r}")


_NO_REQUEST = {"request": None, "request_kind": None, "agreed": frozenset()}


def _clocked(room: Room, data: dict) -> Clock:
    """The clock after a "clock" event: a match's first (with its seconds) starts it."""
    if "move" in data:
        return Clock.start(room.rules.seats, data["seat"], data["at"], data["move"], data["bank"])
    return room.clock.moved(data["at"], data["seat"])


def _dealt(room: Room, data: dict, seq: int) -> Room:
    """The room after a "deal": a shuffled one (checked against its commitment), or a
    rematch of the round just finished."""
    if "rematch" in data:
        started = dealing.on_rematch(room.round, data)
        state = game.start(started, room.rules)  # opened as a first round is
        return replace(
            room,
            round=state,
            duplicate=room.round,
            dealt_at=seq,
            seq=seq,
            timed_out=frozenset(),
            **_NO_REQUEST,
        )
    fair, started = dealing.on_deal(room.fair, data, room.rules, room.humans)
    leader = room.match.leader if room.match is not None and room.rounds else None
    state = game.start(started, room.rules, leader)
    rounds = room.rounds + 1 if room.full else 0  # round 0: a preview, until all are seated
    return replace(
        room,
        round=state,
        rounds=rounds,
        fair=fair,
        duplicate=None,
        dealt_at=seq,
        seq=seq,
        timed_out=frozenset(),
        **_NO_REQUEST,
    )


def _put(values: tuple, index: int, value) -> tuple:
    """`values` with `value` at `index`."""
    return (*values[:index], value, *values[index + 1 :])
