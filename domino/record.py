"""The round record of docs/contracts.md, the round record: export a finished round, import one by
replaying it."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .events import ENDS, Move, Passed, RoundStarted, TileDrawn, TilePlayed
from .game import IllegalMove, State, apply, outcome, start
from .match import Match
from .rules import DEFAULT, Rules
from .tiles import Tile


class RecordError(ValueError):
    """A record that cannot be read or does not replay; `index` is the event, if any."""

    def __init__(self, message: str, index: int | None = None) -> None:
        where = f"events[{index}]: " if index is not None else ""
        super().__init__(where + message)
        self.index = index


def move_to_dict(move: Move) -> dict:
    """A move in record notation."""
    if isinstance(move, TilePlayed):
        return {"seat": move.seat, "action": "play", "tile": str(move.tile), "end": move.end}
    if isinstance(move, TileDrawn):
        return {"seat": move.seat, "action": "draw", "tile": str(move.tile)}
    if isinstance(move, Passed):
        return {"seat": move.seat, "action": "pass"}
    raise TypeError(f"not a move: {move!r}")


_KEYS = {
    "play": {"seat", "action", "tile", "end"},
    "draw": {"seat", "action", "tile"},
    "pass": {"seat", "action"},
}


def move_from_dict(data: object) -> Move:
    """Read a move written in record notation; anything malformed raises ValueError."""
    if not isinstance(data, dict):
        raise ValueError("an event is an object")
    action = data.get("action")
    if not isinstance(action, str) or action not in _KEYS:
        raise ValueError(f"unknown action {action!r}")
    if set(data) != _KEYS[action]:
        raise ValueError(f"a {action} has the fields {sorted(_KEYS[action])}")
    seat = data["seat"]
    if type(seat) is not int:
        raise ValueError(f"seat must be a number, not {seat!r}")
    if action == "pass":
        return Passed(seat)
    tile = Tile.parse(data["tile"])
    if action == "draw":
        return TileDrawn(seat, tile)
    if data["end"] not in ENDS:
        raise ValueError(f"end must be 'left' or 'right', not {data['end']!r}")
    return TilePlayed(seat, tile, data["end"])


def deal_to_dict(started: RoundStarted) -> dict:
    """The deal in record notation."""
    return {
        "hands": [[str(t) for t in hand] for hand in started.hands],
        "boneyard": [str(t) for t in started.boneyard],
    }


def deal_from_dict(data: object) -> RoundStarted:
    """Read a deal written in record notation."""
    if not isinstance(data, dict) or set(data) != {"hands", "boneyard"}:
        raise ValueError("a deal has exactly 'hands' and 'boneyard'")
    hands, boneyard = data["hands"], data["boneyard"]
    if not isinstance(hands, list) or not all(isinstance(h, list) for h in hands):
        raise ValueError("'hands' is a list of lists of tiles")
    if not isinstance(boneyard, list):
        raise ValueError("'boneyard' is a list of tiles")
    return RoundStarted(
        tuple(tuple(Tile.parse(t) for t in hand) for hand in hands),
        tuple(Tile.parse(t) for t in boneyard),
    )


def to_record(
    state: State, seats: Sequence[str], match: dict | None = None, fairness: dict | None = None
) -> dict:
    """The record of a finished round; `seats` names who sat where.

    A round of the default game is written as docs/contracts.md, the round record shows it; under
    other rules the
    record adds `rules`, and the result its `winners` and `scores`; a round of a match adds
    `match` (see `match_to_dict`); a fair deal's record adds its `fairness` (docs/fair-deals.md).
    """
    result = outcome(state)
    if result is None:
        raise ValueError("only a finished round has a record")
    if len(seats) != state.rules.seats:
        raise ValueError(f"name {state.rules.seats} seats, not {len(seats)}")
    record = {"seats": list(seats)}
    if state.rules != DEFAULT:
        record["rules"] = state.rules.to_json()
    record["deal"] = deal_to_dict(state.start)
    record["events"] = [move_to_dict(m) for m in state.moves]
    record["result"] = _result(state.rules, result)
    if match is not None:
        record["match"] = match
    if fairness is not None:
        record["fairness"] = fairness
    return record


def match_to_dict(number: int, before: Match, after: Match) -> dict:
    """A record's `match` (docs/contracts.md, the round record): match `number`'s running score
    around one round."""
    return {
        "number": number,
        "round": after.rounds,
        "before": list(before.scores),
        "after": list(after.scores),
        "over": after.over,
        "winners": list(after.winners),
    }


def _result(rules: Rules, result) -> dict:
    """A round's result as the record writes it."""
    written = {"winner": result.winner, "reason": result.reason, "points": result.points}
    if rules != DEFAULT:
        written["winners"] = list(result.winners)
        written["scores"] = list(result.scores)
    return written


def from_record(record: object, rules: Rules = DEFAULT, leader: int | None = None) -> State:
    """Replay a record through `apply`; an illegal one raises RecordError saying where.

    A record's own `rules` (docs/contracts.md, the round record) replace `rules`; `leader` is the
    seat that led the round
    freely (a match's previous winner), if one did. A record of a match's later round under
    `previous-winner` names its leader itself: the seat of its first event.
    """
    if not isinstance(record, dict) or not {"seats", "deal", "events", "result"} <= set(record):
        raise RecordError("a record has 'seats', 'deal', 'events' and 'result'")
    extra = set(record) - {"seats", "deal", "events", "result", "rules", "match", "fairness"}
    if extra:
        raise RecordError(f"a record has no field {sorted(extra)[0]!r}")
    if "rules" in record:
        try:
            rules = Rules.from_json(record["rules"])
        except ValueError as error:
            raise RecordError(f"rules: {error}") from error
    seats = record["seats"]
    if not (isinstance(seats, list) and len(seats) == rules.seats):
        raise RecordError(f"'seats' lists {rules.seats} names")
    if not all(isinstance(name, str) for name in seats):
        raise RecordError("'seats' holds names as text")
    if leader is None:
        leader = _leader(record, rules)
    try:
        state = start(deal_from_dict(record["deal"]), rules, leader)
    except ValueError as error:
        raise RecordError(f"deal: {error}") from error
    events = record["events"]
    if not isinstance(events, list):
        raise RecordError("'events' is a list")
    for index, data in enumerate(events):
        try:
            state = apply(state, move_from_dict(data))
        except (ValueError, IllegalMove) as error:
            raise RecordError(str(error), index) from error
    _check_result(state, record["result"])
    return state


def _leader(record: dict, rules: Rules) -> int | None:
    """Who led a match's later round under `previous-winner`, as its record shows it."""
    match, events = record.get("match"), record["events"]
    if rules.next_opener != "previous-winner" or not isinstance(match, dict):
        return None
    later = type(match.get("round")) is int and match["round"] > 1
    if not later or not isinstance(events, list) or not events:
        return None
    first = events[0]
    return first.get("seat") if isinstance(first, dict) and type(first.get("seat")) is int else None


def _check_result(state: State, claimed: object) -> None:
    """The stated result must be the one the events lead to."""
    result = outcome(state)
    if result is None:
        raise RecordError("the events end before the round does")
    expected = _result(state.rules, result)
    if not _same_json(claimed, expected):
        raise RecordError(f"the result is {json.dumps(expected)}, not {json.dumps(claimed)}")


def _same_json(a: object, b: object) -> bool:
    """Equal as JSON values, types included (`false` is not `0`, `17.0` is not `17`)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def dumps(record: dict) -> str:
    """One record as one line of JSON."""
    return json.dumps(record, separators=(", ", ": "))
