"""A finished match's result (ARCHITECTURE.md "Growing the house": results exactly once), as a
shard writes it into its outbox and the lobby applies it.

A match ends with the move that ends its last round: in a room with a target, the round in
which a side reaches it; in a room without one, every counted round is a match of its own (a
preview dealt while seats were free, and a rematch, count for nothing). `finished(before,
after)` gives the result of the match a change ended, without its players: the store adds
them in the transaction that stores the move (`domino.store`, the `seat_players` table), and
writes it only for a room where at least one seat has a signed-in player.

The result (JSON):

    {"key": "<room>/<match>", "room": "<room>", "match": 3, "kind": "friend" | "public",
     "game": "classic" (a preset's name, or null), "rules": {the rules object},
     "finished_at": 1767000000.0, "computer": true,
     "seats": [{"seat": 0, "side": 0, "place": 1, "player": "<id>" | null,
                "computer": null | "easy" | "medium" | "hard", "abandoned": false}, ...],
     "stake": 100}

`stake` (only at a stake table, SPEC §13) is the coins each person staked: the lobby pays the
table's escrow out by it (`domino.lobby.stakes`).

`place` is the seat's side's place (1 first; equal for a tie); `computer` the level of a seat
the computer played for nobody (a computer seat: the table "had a computer"); `abandoned` a
seat a person held whose player was gone when the match ended (the computer stood in for
them): the lobby places its side last.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .. import game
from ..room import LEVELS, Room
from ..rules import PRESETS

KINDS = ("friend", "public", "computer")
KEY_LENGTH = 200


def finished(before: Room, after: Room) -> dict | None:
    """The result of the match that the change from `before` to `after` ended (no players,
    no time yet), or None if it ended none."""
    state = after.round
    if state is None or state is before.round or not state.over:
        return None
    if after.duplicate is not None or not after.rounds:  # a rematch, or a preview
        return None
    if after.kind == "public" and not after.arrived and not after.stake:
        return None  # nobody ever came to it (opened twice, or its wave lost): it counts for none
    # (a stake table's result is written even so: its escrow is settled by it, every stake
    # forfeit; the lobby ignores one of a room it did not seat, domino.lobby.stakes)
    rules = after.rules
    if rules.target is None:
        number = after.rounds
        outcome = game.outcome(state)
        winners = set(outcome.winners)
        places = {seat: 1 if not winners or seat in winners else 2 for seat in range(rules.seats)}
    else:
        if after.match is None or not after.match.over:
            return None
        number = after.matches
        places = _places(after)
    game_name = next((name for name, preset in PRESETS.items() if preset == rules), None)
    seats = [
        {
            "seat": seat,
            "side": rules.side(seat),
            "place": places[seat],
            "player": None,
            "computer": bot if held is None else None,
            "abandoned": held is not None and bot is not None,
        }
        for seat, (held, bot) in enumerate(after.taken)
    ]
    return {
        "key": f"{after.id}/{number}",
        "room": after.id,
        "match": number,
        "kind": after.kind,
        "game": game_name,
        "rules": rules.to_json(),
        "computer": any(seat["computer"] for seat in seats),
        "seats": seats,
        **({"stake": after.stake} if after.stake else {}),
    }


def _places(room: Room) -> dict[int, int]:
    """Each seat's side's place by the match's scores (the most points first; with goat
    scoring the fewest penalty points), equal scores sharing a place (1, 1, 3)."""
    match, rules = room.match, room.rules
    sign = 1 if rules.scoring == "goat" else -1
    by_side = {rules.side(seat): sign * score for seat, score in enumerate(match.scores)}
    place = {
        side: 1 + sum(other < mine for other in by_side.values()) for side, mine in by_side.items()
    }
    return {seat: place[rules.side(seat)] for seat in range(rules.seats)}


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    side: int
    place: int
    player: str | None
    computer: str | None
    abandoned: bool


@dataclass(frozen=True, slots=True)
class Result:
    """A result as the lobby reads it (`parse`)."""

    key: str
    room: str
    match: int
    kind: str
    game: str | None
    rules: dict
    finished_at: float
    computer: bool
    seats: tuple[Seat, ...]
    stake: int = 0

    @property
    def teams(self) -> bool:
        return bool(self.rules.get("teams"))

    def players(self) -> list[str]:
        """The signed-in players at the table, in seat order (each once)."""
        found: list[str] = []
        for seat in self.seats:
            if seat.player is not None and seat.player not in found:
                found.append(seat.player)
        return found


class BadResult(ValueError):
    """Not a result: what is wrong with it."""


def parse(data: object) -> Result:
    """A result from its JSON form; BadResult if any part of it is not as `finished` writes."""
    if not isinstance(data, Mapping):
        raise BadResult("a result is an object")
    key, room, match = data.get("key"), data.get("room"), data.get("match")
    if not isinstance(room, str) or not room or len(room) > KEY_LENGTH:
        raise BadResult("room")
    if type(match) is not int or match < 1 or key != f"{room}/{match}":
        raise BadResult("key")
    kind, name, rules = data.get("kind"), data.get("game"), data.get("rules")
    if kind not in KINDS:
        raise BadResult("kind")
    if name is not None and name not in PRESETS:
        raise BadResult("game")
    if not isinstance(rules, Mapping):
        raise BadResult("rules")
    finished_at = data.get("finished_at")
    if type(finished_at) not in (int, float) or not math.isfinite(finished_at):
        raise BadResult("finished_at")
    rows = data.get("seats")
    if not isinstance(rows, list) or not 2 <= len(rows) <= 4:
        raise BadResult("seats")
    seats = tuple(_seat(row, index, len(rows)) for index, row in enumerate(rows))
    computer = any(seat.computer for seat in seats)
    if data.get("computer") is not computer:
        raise BadResult("computer")
    stake = data.get("stake", 0)
    if type(stake) is not int or stake < 0 or (stake and kind != "public"):
        raise BadResult("stake")
    return Result(
        key, room, match, kind, name, dict(rules), float(finished_at), computer, seats, stake
    )


def _seat(row: object, index: int, count: int) -> Seat:
    if not isinstance(row, Mapping) or row.get("seat") != index:
        raise BadResult("seat")
    side, place, player = row.get("side"), row.get("place"), row.get("player")
    level, abandoned = row.get("computer"), row.get("abandoned")
    if type(side) is not int or not 0 <= side < count:
        raise BadResult("side")
    if type(place) is not int or not 1 <= place <= count:
        raise BadResult("place")
    if player is not None and (not isinstance(player, str) or not 0 < len(player) <= 100):
        raise BadResult("player")
    if level is not None and level not in LEVELS:
        raise BadResult("computer")
    if type(abandoned) is not bool or (level is not None and (player or abandoned)):
        raise BadResult("abandoned")
    return Seat(index, side, place, player, level, abandoned)
