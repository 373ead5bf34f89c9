"""A room as a fold of its stored events, and what a seat's action decides (no store, no Flask).

A room event is `(type, data)`: "rules" (the room's rules object, its first event), "seat",
"deal", "play", "draw", "pass", "ask" (a new round or match requested), "decline", "level"
(the computer's level) and "match" (a new match begins; the deal that follows is its first).
Rooms from before rules were stored have no "rules" event: they play the default game.
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
COMPUTER = 1  # the computer's seat in a computer room


class RoomError(Exception):
    """An action the room refuses, named by a stable `code` (the web layer words it)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class Room:
    """A room as folded from its events. Seat 0 is the creator.

    `rounds` counts the dealt rounds that count (0 while the creator waits alone: a preview);
    `match` is the match in play (rooms with a target only) and `matches` its number.
    """

    id: str
    kind: str
    seats: tuple[str | None, ...]
    round: game.State | None
    rounds: int
    request: int | None
    seq: int
    level: str | None = None
    rules: Rules = DEFAULT
    match: Match | None = None
    matches: int = 0

    @property
    def computer_to_move(self) -> bool:
        """True when the round waits for the computer's move."""
        return self.kind == "computer" and self.round.turn == COMPUTER

    @property
    def full(self) -> bool:
        """True once every seat is taken (a computer room always is)."""
        return self.kind == "computer" or all(held is not None for held in self.seats)

    @property
    def between_rounds(self) -> bool:
        """True when the round is over and the match (if any) goes on: "Continue" deals."""
        return self.round.over and not (self.match is not None and self.match.over)

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


def empty(room_id: str, kind: str) -> Room:
    """A room before its first event."""
    return Room(room_id, kind, (None,) * DEFAULT.seats, None, 0, None, 0)


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
        return replace(room, round=state, request=None, match=match, seq=seq)
    if kind == "deal":
        leader = room.match.leader if room.match is not None and room.rounds else None
        state = game.start(deal_from_dict(data), room.rules, leader)
        rounds = room.rounds + 1 if room.full else 0  # round 0: a preview, until the guest
        return replace(room, round=state, rounds=rounds, request=None, seq=seq)
    if kind == "seat":
        seats = list(room.seats)
        seats[data["seat"]] = data["hash"]
        return replace(room, seats=tuple(seats), seq=seq)
    if kind == "ask":
        return replace(room, request=data["seat"], seq=seq)
    if kind == "decline":
        return replace(room, request=None, seq=seq)
    if kind == "level":
        return replace(room, level=data["level"], seq=seq)
    if kind == "rules":
        rules = Rules.from_json(data)
        match, matches = (new_match(rules), 1) if rules.target is not None else (None, 0)
        seats = (None,) * rules.seats
        return replace(room, rules=rules, seats=seats, match=match, matches=matches, seq=seq)
    if kind == "match":
        return replace(room, match=new_match(room.rules), matches=room.matches + 1, seq=seq)
    raise ValueError(f"unknown room event {kind!r}")


def decide(room: Room, seat: int, action: str, params: dict, present, rng) -> list:
    """The events a seat's action leads to; refused actions raise RoomError/IllegalMove."""
    if action in MOVES:
        if not room.full:
            raise RoomError("no-guest")
        if room.kind != "computer" and any(s not in present for s in others(room, seat)):
            raise RoomError("opponent-away")
        return move_events(room, seat, _game_action(action, params))
    asked_by_other = room.request is not None and room.request != seat
    if action == "new-round":
        if not room.full or room.kind == "computer" or asked_by_other:
            return next_round(room, rng)
        if room.request == seat:
            raise RoomError("already-asked")
        return [("ask", {"seat": seat})]
    if action in ("accept-new-round", "decline-new-round"):
        if not asked_by_other:
            raise RoomError("no-request")
        if action == "accept-new-round":
            return next_round(room, rng)
        return [("decline", {"seat": seat})]
    raise RoomError("unknown-action")


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


def level_event(level: str) -> tuple[str, dict]:
    """The computer's level, checked."""
    if level not in LEVELS:
        raise RoomError("bad-level")
    return ("level", {"level": level})


def rules_event(rules: Rules) -> tuple[str, dict]:
    """The room's rules, its first event; rooms seat two for now and play double-six."""
    if rules.seats != 2 or rules.max_pip != DEFAULT.max_pip:
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
