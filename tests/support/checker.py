"""Independent checker of domino round records (docs/rules.md: the default game and its options;
docs/contracts.md: the round record).

A clean-room second implementation of the game, written from the SPEC alone: standard library
only and sharing no code with the ``domino`` package, so it cannot share its bugs. A record
without ``rules`` is the two-seat double-six draw game of docs/rules.md, its result exactly
``winner``/``reason``/``points``; a record with ``rules`` (docs/contracts.md, every field) is played
under
them, its result adding ``winners`` and ``scores``; a record with ``match`` has its running
score checked, and consecutive rounds of one match in a file are checked against each other.

Conventions the SPEC leaves implicit: the opening tile is laid as written, low half on the
left; a blocked round ends when every seat has passed in a row; in a blocked round whose
lightest side holds two equal lowest hands, either of those seats may be named `winner`; a
match whose leading sides tie (most points, or fewest under Goat) is a draw. ``max_pip``
(not in the SPEC) is accepted in ``rules`` for sets other than double-six.

Usage: ``python -m tests.support.checker FILE.jsonl [...]``.
"""

from __future__ import annotations

import json
import re
import sys

from tests.support.checker_match import check_match, check_sequence, leader
from tests.support.checker_rules import (
    DEFAULT_RULES,
    Game,
    halves,
    is_int,
    opening,
    pip_total,
    round_result,
    rules_problems,
)

__all__ = [  # the checker's own, and the rules part's it answers for
    "ALL_TILES",
    "DEFAULT_RULES",
    "blocked_result",
    "check_deal",
    "check_file",
    "check_record",
    "halves",
    "opening",
    "pip_total",
    "tile_problem",
]

ALL_TILES = frozenset(f"{a}-{b}" for a in range(7) for b in range(a, 7))
TILE_PATTERN = re.compile(r"(0|[1-9][0-9]?)-(0|[1-9][0-9]?)")
EVENT_KEYS = {
    "play": {"seat", "action", "tile", "end"},
    "draw": {"seat", "action", "tile"},
    "pass": {"seat", "action"},
}
RESULT_KEYS = {"winner", "reason", "points"}
RULES_RESULT_KEYS = RESULT_KEYS | {"winners", "scores"}


def tile_problem(value: object, max_pip: int = 6) -> str | None:
    """Say why ``value`` is not a tile written low-high, or return None if it is one."""
    match = TILE_PATTERN.fullmatch(value) if isinstance(value, str) else None
    if match is None or max(halves(value)) > max_pip:
        return f"{value!r} is not a tile 'a-b' with 0 <= a, b <= {max_pip}"
    low, high = halves(value)
    if low > high:
        return f"{value!r} is written high-low (write it '{high}-{low}')"
    return None


def is_seat(value: object, seats: int = 2) -> bool:
    """True for a seat number below ``seats`` (booleans are not seats)."""
    return is_int(value) and 0 <= value < seats


def check_seats(seats: object, count: int = 2) -> list[str]:
    """Check that ``seats`` is a list of ``count`` strings."""
    if isinstance(seats, list) and len(seats) == count and all(isinstance(s, str) for s in seats):
        return []
    return [f"seats: expected a list of {count} strings, got {seats!r}"]


def check_deal(deal: object, game: Game | None = None) -> list[str]:
    """Check the deal: a hand per seat of the rules' size, the rest in the boneyard, each tile
    of the set exactly once."""
    game = game or Game(None)
    if not isinstance(deal, dict) or not {"hands", "boneyard"} <= deal.keys():
        return ["deal: expected an object with 'hands' and 'boneyard'"]
    hands, boneyard = deal["hands"], deal["boneyard"]
    if not (isinstance(hands, list) and len(hands) == game.seats):
        return [f"deal: 'hands' must be a list of {game.seats} hands"]
    problems = []
    size = game["hand_size"]
    groups = [(f"hand {i}", hand, size) for i, hand in enumerate(hands)]
    rest = len(game.tiles) - game.seats * size
    for name, group, count in [*groups, ("boneyard", boneyard, rest)]:
        if not isinstance(group, list) or len(group) != count:
            problems.append(f"deal: {name} must be a list of {count} tiles")
            continue
        found = (tile_problem(tile, game.max_pip) for tile in group)
        problems += [f"deal: {name}: {p}" for p in found if p]
    if problems:
        return problems
    tiles = [tile for hand in hands for tile in hand] + boneyard
    duplicates = sorted({t for t in tiles if tiles.count(t) > 1})
    missing = sorted(game.tiles - set(tiles))
    if duplicates:
        problems.append(f"deal: duplicated tiles {', '.join(duplicates)}")
    if missing:
        problems.append(f"deal: missing tiles {', '.join(missing)}")
    return problems


def check_event_shape(index: int, event: object, game: Game | None = None) -> list[str]:
    """Check one event's keys and value types, independently of the game state."""
    game = game or Game(None)
    where = f"event {index}"
    if not isinstance(event, dict) or event.get("action") not in EVENT_KEYS:
        return [f"{where}: expected an object whose action is play, draw or pass"]
    problems = []
    keys = EVENT_KEYS[event["action"]]
    if set(event) != keys:
        problems.append(f"{where}: {event['action']} must have exactly the keys {sorted(keys)}")
    if not is_seat(event.get("seat"), game.seats):
        seats = ", ".join(map(str, range(game.seats - 1))) + f" or {game.seats - 1}"
        problems.append(f"{where}: seat must be {seats}, got {event.get('seat')!r}")
    if "tile" in keys and (problem := tile_problem(event.get("tile"), game.max_pip)):
        problems.append(f"{where}: {problem}")
    if "end" in keys and event.get("end") not in ("left", "right"):
        problems.append(f"{where}: end must be 'left' or 'right', got {event.get('end')!r}")
    return problems


def blocked_result(hands: list[list[str]]) -> dict:
    """Result of a blocked round of the default game: the lower total wins the difference."""
    result, _ = round_result(Game(None), hands, None)
    return {key: result[key] for key in RESULT_KEYS}


class Round:
    """The state of a round being replayed: hands, boneyard, open ends, turn and result.

    ``leader`` is who leads: the rules' opener by default, or a match's previous winner
    (any tile), or ``"unknown"``, a later round of a match whose previous round is not in the
    file (any seat, any tile).
    """

    def __init__(self, deal: dict, game: Game | None = None, leader: int | str | None = None):
        self.game = game or Game(None)
        self.hands = [list(hand) for hand in deal["hands"]]
        self.boneyard = list(deal["boneyard"])
        self.forced = None  # the tile the round must open with, if any
        if leader is None:
            leader, tile = opening(self.hands, self.game["opener"])
            self.forced = tile if self.game["lead"] == "opening-tile" else None
        self.turn = None if leader == "unknown" else leader
        self.ends: tuple[int, int] | None = None  # (left value, right value), None before opening
        self.passes = 0
        self.result: tuple[dict, set[int]] | None = None

    def can_play(self, seat: int) -> bool:
        """True if ``seat`` holds a tile matching an open end (any tile, on an empty line)."""
        if self.ends is None:
            return bool(self.hands[seat])
        return any(set(self.ends) & set(halves(tile)) for tile in self.hands[seat])

    def next_seat(self, seat: int) -> int:
        """The seat after ``seat``: turns go round in seat order."""
        return (seat + 1) % self.game.seats

    def apply(self, event: dict) -> str | None:
        """Apply a well-formed event; return the reason it breaks the rules, or None."""
        if self.result is not None:
            return f"event after the round ended ({self.result[0]['reason']})"
        seat, action = event["seat"], event["action"]
        if self.ends is None and (problem := self.opening_problem(seat, action, event)):
            return problem
        if seat != self.turn and self.turn is not None:
            return f"seat {seat} acts out of turn (it is seat {self.turn}'s turn)"
        return getattr(self, f"apply_{action}")(seat, event)

    def opening_problem(self, seat: int, action: str, event: dict) -> str | None:
        """The first event must lay the forced tile, or any tile, by the seat that leads."""
        who = "any seat" if self.turn is None else f"seat {self.turn}"
        what = self.forced or "any tile"
        leads = self.turn is None or seat == self.turn
        wrong_tile = self.forced is not None and event.get("tile") != self.forced
        if action != "play" or not leads or wrong_tile:
            return f"the round must open with {who} playing {what}"
        return None

    def apply_play(self, seat: int, event: dict) -> str | None:
        """Lay a held tile on the named end, turned to fit; detect a domino."""
        tile, end = event["tile"], event["end"]
        if tile not in self.hands[seat]:
            return f"seat {seat} does not hold {tile}"
        low, high = halves(tile)
        if self.ends is None:
            self.ends = (low, high)
        else:
            left, right = self.ends
            value = left if end == "left" else right
            if value not in (low, high):
                return f"{tile} does not fit the {end} end (value {value})"
            other = high if low == value else low
            self.ends = (other, right) if end == "left" else (left, other)
        self.hands[seat].remove(tile)
        self.passes = 0
        self.turn = self.next_seat(seat)
        if not self.hands[seat]:
            self.result = round_result(self.game, self.hands, seat)
        return None

    def apply_draw(self, seat: int, event: dict) -> str | None:
        """Take the next boneyard tile; only in a draw game when nothing fits. The turn stays."""
        if not self.game["boneyard"]:
            return f"seat {seat} draws in a block game (its tiles sleep)"
        if self.can_play(seat):
            return f"seat {seat} draws while holding a playable tile"
        if not self.boneyard:
            return "draw from an empty boneyard"
        if event["tile"] != self.boneyard[0]:
            return f"drew {event['tile']} but the next boneyard tile is {self.boneyard[0]}"
        self.hands[seat].append(self.boneyard.pop(0))
        return None

    def apply_pass(self, seat: int, event: dict) -> str | None:
        """Pass when nothing fits and nothing may be drawn. A pass by every seat blocks."""
        if self.can_play(seat):
            return f"seat {seat} passes while holding a playable tile"
        if self.game["boneyard"] and self.boneyard:
            return f"seat {seat} passes while the boneyard has {len(self.boneyard)} tiles"
        self.passes += 1
        self.turn = self.next_seat(seat)
        if self.passes == self.game.seats:
            self.result = round_result(self.game, self.hands, None)
        return None


def check_result(result: object, expected: tuple | None, game: Game | None = None) -> list[str]:
    """Check the result's shape, then compare it with the replayed one (if any)."""
    game = game or Game(None)
    keys = RULES_RESULT_KEYS if game.written else RESULT_KEYS
    if not isinstance(result, dict) or set(result) != keys:
        return [f"result: expected exactly the keys {sorted(keys)}, got {result!r}"]
    winner, reason, points = result["winner"], result["reason"], result["points"]
    if not (winner is None or is_seat(winner, game.seats)) or reason not in ("domino", "blocked"):
        return [f"result: winner must be a seat or null and reason domino or blocked: {result}"]
    if not is_int(points) or points < 0:
        return [f"result: points must be a non-negative integer, got {points!r}"]
    for name in ("winners", "scores") if game.written else ():
        value = result[name]
        if not isinstance(value, list) or not all(is_int(v) and v >= 0 for v in value):
            return [f"result: {name} must be a list of non-negative integers, got {value!r}"]
    if expected is None:
        return []
    wanted, winners_ok = expected
    if winner in winners_ok:  # a tie for the lowest hand of the winning side: either seat
        wanted = {**wanted, "winner": winner}
    if not game.written:
        wanted = {key: wanted[key] for key in RESULT_KEYS}
    if result != wanted or not all(type(result[k]) is type(wanted[k]) for k in wanted):
        return [f"result: is {result}, the replay gives {wanted}"]
    return []


def replay(deal: dict, events: list, malformed: set[int], game: Game | None = None, leader=None):
    """Replay up to the first rule violation or malformed event: (violations, result or None)."""
    play = Round(deal, game, leader)
    for index, event in enumerate(events):
        if index in malformed:
            return [], None
        if reason := play.apply(event):
            return [f"event {index}: {reason}"], None
    if play.result is None:
        return ["result: the events stop before the round is over"], None
    return [], play.result


def check_record(record: object, previous: dict | None = None) -> list[str]:
    """Return every violation found in one round record (an empty list means valid).

    ``previous`` is the record of the same match (same ``match.number``) before this one in
    the file, if any: the running score and, under ``previous-winner``, the leader follow it.
    """
    if not isinstance(record, dict):
        return ["record: expected a JSON object"]
    missing = [key for key in ("seats", "deal", "events", "result") if key not in record]
    if missing:
        return [f"record: missing keys {missing}"]
    if "rules" in record and (problems := rules_problems(record["rules"])):
        return problems
    game = Game(record.get("rules"))
    deal_problems = check_deal(record["deal"], game)
    problems = check_seats(record["seats"], game.seats) + deal_problems
    events = record["events"]
    expected = None
    if not isinstance(events, list):
        problems.append("events: expected a list")
    else:
        shapes = [check_event_shape(i, event, game) for i, event in enumerate(events)]
        problems += [p for shape in shapes for p in shape]
        if not deal_problems:
            malformed = {i for i, shape in enumerate(shapes) if shape}
            lead = leader(record, game, previous)
            violations, expected = replay(record["deal"], events, malformed, game, lead)
            problems += violations
    problems += check_result(record["result"], expected, game)
    if "match" in record:
        result = record["result"]
        problems += check_match(record["match"], game, result.get("scores"))
        if previous is not None and isinstance(record["match"], dict):
            problems += check_sequence(record, previous)
    return problems


def match_number(record: object) -> int | None:
    """The match a record belongs to, if it names one."""
    match = record.get("match") if isinstance(record, dict) else None
    number = match.get("number") if isinstance(match, dict) else None
    return number if is_int(number) else None


def check_file(path: str) -> tuple[int, list[str]]:
    """Check every record of a .jsonl file; return (number of records, violations).

    Consecutive records of one match (the same ``match.number``) are checked together.
    """
    count, problems, last = 0, [], {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            count += 1
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                problems.append(f"line {number}: invalid JSON: {error}")
                continue
            match = match_number(record)
            found = check_record(record, last.get(match))
            problems += [f"line {number}: {p}" for p in found]
            if match is not None:
                last[match] = record
    return count, problems


def main(argv: list[str]) -> int:
    """Check the files named in ``argv``; print a summary and the first 20 violations."""
    if not argv:
        print("usage: python -m tests.support.checker FILE.jsonl [...]", file=sys.stderr)
        return 2
    total, problems = 0, []
    for path in argv:
        count, found = check_file(path)
        total += count
        problems += [f"{path}: {p}" for p in found] if len(argv) > 1 else found
    print(f"{total} records, {len(problems)} violations")
    for problem in problems[:20]:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
