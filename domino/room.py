"""A room as a fold of its stored events, and what a seat's action decides (no store, no Flask).

A room event is `(type, data)`: "rules" (the room's rules object, its first event), "seat"
(a browser takes a seat), "deal", "play", "draw", "pass", "ask" (a seat asks for, or agrees
to, a new round or match), "decline", "level" (the computer plays a seat, at a level: a free
seat given to it, or a seat whose player has been away; a computer room's older "level" events
name no seat and mean seat 1), "back" (a seat's player takes it back from the computer),
"name" (a seat's display name) and "match" (a new match begins; the deal that follows is its
first). Rooms from before rules were stored have no "rules" event: they play the default game.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, replace

from . import game
from .events import DRAW, PASS, Play
from .match import Match, add, new_match
from .record import deal_from_dict, deal_to_dict, move_from_dict, move_to_dict
from .rules import DEFAULT, Rules
from .tiles import Tile

MOVES = ("play", "draw", "pass")
DRAW_UNTIL = "draw-until"  # draws, one stored "draw" each, until a tile fits (web/tables.py)
ROOM_ACTIONS = (*MOVES, DRAW_UNTIL, "new-round", "accept-new-round", "decline-new-round")
LEVELS = ("easy", "medium", "hard")
OLD_COMPUTER_SEAT = 1  # the seat of a computer room's "level" events that name none
NAME_LENGTH = 20  # the longest display name, in characters


class RoomError(Exception):
    """An action the room refuses, named by a stable `code` (the web layer words it)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class Room:
    """A room as folded from its events. Seat 0 is the creator.

    `seats` holds each seat's secret hash (None: free), `bots` the computer's level on each
    seat it plays (None: a person plays it, or nobody yet), `names` the seats' display names.
    `rounds` counts the dealt rounds that count (0 while the creator waits: a preview);
    `match` is the match in play (rooms with a target only) and `matches` its number;
    `request` is the seat that asked for a new round or match and `agreed` every seat that
    asked or agreed since.
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

    @property
    def computer_to_move(self) -> bool:
        """True when the round waits for a seat the computer plays (never in a preview
        dealt while seats are free)."""
        turn = self.round.turn if self.round is not None else None
        return turn is not None and self.bots[turn] is not None and self.full

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


def secret_hash(secret: str) -> str:
    """What is stored of a seat's secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


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
        match = room.match
        if state.over and match is not None and room.rounds:
            match = add(match, game.outcome(state))
        return replace(room, round=state, request=None, agreed=frozenset(), match=match, seq=seq)
    if kind == "deal":
        leader = room.match.leader if room.match is not None and room.rounds else None
        state = game.start(deal_from_dict(data), room.rules, leader)
        rounds = room.rounds + 1 if room.full else 0  # round 0: a preview, until all are seated
        return replace(room, round=state, rounds=rounds, request=None, agreed=frozenset(), seq=seq)
    if kind == "seat":
        return replace(room, seats=_put(room.seats, data["seat"], data["hash"]), seq=seq)
    if kind == "ask":
        request = data["seat"] if room.request is None else room.request
        return replace(room, request=request, agreed=room.agreed | {data["seat"]}, seq=seq)
    if kind == "decline":
        return replace(room, request=None, agreed=frozenset(), seq=seq)
    if kind == "level":
        seat = data.get("seat", OLD_COMPUTER_SEAT)
        return replace(room, bots=_put(room.bots, seat, data["level"]), seq=seq)
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
    raise ValueError(f"unknown room event {kind!r}")


def _put(values: tuple, index: int, value) -> tuple:
    """`values` with `value` at `index`."""
    return (*values[:index], value, *values[index + 1 :])


def decide(room: Room, seat: int, action: str, params: dict, present, rng) -> list:
    """The events a seat's action leads to; refused actions raise RoomError/IllegalMove.

    `present` holds the seats with a live connection: play goes on only while every seat a
    person plays is there. A new round or match needs the word of every person at a full
    table (a preview is dealt again at once); any move cancels an open request.
    """
    if room.bots[seat] is not None:
        raise RoomError("computer-plays")  # handed over while away: taken back at its turn
    if action in MOVES:
        if not room.full:
            raise RoomError("no-guest")
        if any(other not in present for other in room.humans if other != seat):
            raise RoomError("opponent-away")
        return move_events(room, seat, _game_action(action, params))
    asked = room.request is not None
    if action == "new-round":
        if seat in room.agreed:
            raise RoomError("already-asked")
        return agree(room, seat, rng)
    if action in ("accept-new-round", "decline-new-round"):
        if not asked or seat in room.agreed:
            raise RoomError("no-request")
        if action == "accept-new-round":
            return agree(room, seat, rng)
        return [("decline", {"seat": seat})]
    raise RoomError("unknown-action")


def agree(room: Room, seat: int, rng) -> list:
    """A seat's word for a new round: the deal once every person at the table has given
    it (while seats are free the deal is a preview, dealt again at once)."""
    if not room.full or set(room.humans) <= room.agreed | {seat}:
        return next_round(room, rng)
    return [("ask", {"seat": seat})]


def next_round(room: Room, rng) -> list:
    """The events of the next deal: the match's next round between rounds, else (a round
    given up, or a match over) a new match, if the room plays matches."""
    if room.match is None or not room.full or room.between_rounds:
        return [deal_event(room.rules, rng)]
    return [("match", {}), deal_event(room.rules, rng)]


def others(room: Room, seat: int) -> list[int]:
    """Every seat of the room but `seat`."""
    return [other for other in range(len(room.seats)) if other != seat]


def move_events(room: Room, seat: int, action) -> list:
    """The stored event of a seat's play, draw or pass; an illegal one raises IllegalMove."""
    event = game.resolve(room.round, seat, action)
    game.apply(room.round, event)
    data = move_to_dict(event)
    return [(data["action"], data)]


def level_event(seat: int, level: str) -> tuple[str, dict]:
    """The computer plays `seat` at `level`, checked."""
    if level not in LEVELS:
        raise RoomError("bad-level")
    return ("level", {"seat": seat, "level": level})


def name_event(seat: int, name: str) -> tuple[str, dict]:
    """A seat's display name: trimmed, one line, at most NAME_LENGTH characters ("" for none)."""
    name = " ".join(str(name).split())
    if len(name) > NAME_LENGTH or not name.isprintable():
        raise RoomError("bad-name")
    return ("name", {"seat": seat, "name": name})


def rules_event(rules: Rules) -> tuple[str, dict]:
    """The room's rules, its first event; rooms play double-six."""
    if rules.max_pip != DEFAULT.max_pip:
        raise RoomError("bad-rules")
    return ("rules", rules.to_json())


def deal_event(rules: Rules, rng) -> tuple[str, dict]:
    """A fresh deal, shuffled once and recorded."""
    return ("deal", deal_to_dict(game.deal(rules, rng)))


def _game_action(action: str, params: dict):
    """Read a play, draw or pass from request parameters."""
    if action == "draw":
        return DRAW
    if action == "pass":
        return PASS
    try:
        tile = Tile.parse(params.get("tile", ""))
    except ValueError as error:
        raise RoomError("bad-tile") from error
    end = params.get("end")
    if end not in ("left", "right"):
        raise RoomError("bad-end")
    return Play(tile, end)
