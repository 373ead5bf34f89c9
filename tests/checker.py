"""Independent checker of domino round records (SPEC §2 rules, §7.1 record format).

A clean-room second implementation of the two-player double-six draw game, standard library
only and sharing no code with the ``domino`` package, so it cannot share its bugs.
Convention (implicit in the SPEC): the opening tile is laid as written, low half on the left.

Usage: ``python tests/checker.py FILE.jsonl [...]``.
"""

from __future__ import annotations

import json
import re
import sys

ALL_TILES = frozenset(f"{a}-{b}" for a in range(7) for b in range(a, 7))
TILE_PATTERN = re.compile(r"[0-6]-[0-6]")
EVENT_KEYS = {
    "play": {"seat", "action", "tile", "end"},
    "draw": {"seat", "action", "tile"},
    "pass": {"seat", "action"},
}
RESULT_KEYS = {"winner", "reason", "points"}


def halves(tile: str) -> tuple[int, int]:
    """Return the two halves of a well-formed tile string ``"a-b"``."""
    low, high = tile.split("-")
    return int(low), int(high)


def tile_problem(value: object) -> str | None:
    """Say why ``value`` is not a tile written low-high, or return None if it is one."""
    if not isinstance(value, str) or not TILE_PATTERN.fullmatch(value):
        return f"{value!r} is not a tile 'a-b' with 0 <= a, b <= 6"
    low, high = halves(value)
    if low > high:
        return f"{value!r} is written high-low (write it '{high}-{low}')"
    return None


def is_seat(value: object) -> bool:
    """True for the seat numbers 0 and 1 (booleans are not seats)."""
    return type(value) is int and value in (0, 1)


def check_seats(seats: object) -> list[str]:
    """Check that ``seats`` is a list of two strings."""
    if isinstance(seats, list) and len(seats) == 2 and all(isinstance(s, str) for s in seats):
        return []
    return [f"seats: expected a list of 2 strings, got {seats!r}"]


def check_deal(deal: object) -> list[str]:
    """Check the deal: two hands of 7 tiles, 14 in the boneyard, the full set exactly once."""
    if not isinstance(deal, dict) or not {"hands", "boneyard"} <= deal.keys():
        return ["deal: expected an object with 'hands' and 'boneyard'"]
    hands, boneyard = deal["hands"], deal["boneyard"]
    if not (isinstance(hands, list) and len(hands) == 2):
        return ["deal: 'hands' must be a list of 2 hands"]
    problems = []
    groups = [(f"hand {i}", hand, 7) for i, hand in enumerate(hands)]
    for name, group, size in [*groups, ("boneyard", boneyard, 14)]:
        if not isinstance(group, list) or len(group) != size:
            problems.append(f"deal: {name} must be a list of {size} tiles")
            continue
        problems += [f"deal: {name}: {p}" for p in map(tile_problem, group) if p]
    if problems:
        return problems
    tiles = [*hands[0], *hands[1], *boneyard]
    duplicates = sorted({t for t in tiles if tiles.count(t) > 1})
    missing = sorted(ALL_TILES - set(tiles))
    if duplicates:
        problems.append(f"deal: duplicated tiles {', '.join(duplicates)}")
    if missing:
        problems.append(f"deal: missing tiles {', '.join(missing)}")
    return problems


def check_event_shape(index: int, event: object) -> list[str]:
    """Check one event's keys and value types, independently of the game state."""
    where = f"event {index}"
    if not isinstance(event, dict) or event.get("action") not in EVENT_KEYS:
        return [f"{where}: expected an object whose action is play, draw or pass"]
    problems = []
    keys = EVENT_KEYS[event["action"]]
    if set(event) != keys:
        problems.append(f"{where}: {event['action']} must have exactly the keys {sorted(keys)}")
    if not is_seat(event.get("seat")):
        problems.append(f"{where}: seat must be 0 or 1, got {event.get('seat')!r}")
    if "tile" in keys and (problem := tile_problem(event.get("tile"))):
        problems.append(f"{where}: {problem}")
    if "end" in keys and event.get("end") not in ("left", "right"):
        problems.append(f"{where}: end must be 'left' or 'right', got {event.get('end')!r}")
    return problems


def pip_total(hand: list[str]) -> int:
    """The sum of the pips of the tiles in ``hand``."""
    return sum(sum(halves(tile)) for tile in hand)


def opening(hands: list[list[str]]) -> tuple[int, str]:
    """Return (seat, tile) of the opening: highest double, else heaviest tile, higher half."""

    def rank(tile: str) -> tuple[bool, int, int]:
        low, high = halves(tile)
        return (low == high, low + high, high)

    return max(((seat, tile) for seat in (0, 1) for tile in hands[seat]), key=lambda p: rank(p[1]))


def blocked_result(hands: list[list[str]]) -> dict:
    """Result of a blocked round: the lower total wins the difference; equal is a draw."""
    totals = [pip_total(hand) for hand in hands]
    if totals[0] == totals[1]:
        return {"winner": None, "reason": "blocked", "points": 0}
    winner = 0 if totals[0] < totals[1] else 1
    return {"winner": winner, "reason": "blocked", "points": abs(totals[0] - totals[1])}


class Round:
    """The state of a round being replayed: hands, boneyard, open ends, turn and result."""

    def __init__(self, deal: dict) -> None:
        self.hands = [list(hand) for hand in deal["hands"]]
        self.boneyard = list(deal["boneyard"])
        self.opener, self.opening_tile = opening(self.hands)
        self.ends: tuple[int, int] | None = None  # (left value, right value), None before opening
        self.turn = self.opener
        self.passes = 0
        self.result: dict | None = None

    def can_play(self, seat: int) -> bool:
        """True if ``seat`` holds a tile matching an open end."""
        values = set(self.ends or ())
        return any(values & set(halves(tile)) for tile in self.hands[seat])

    def apply(self, event: dict) -> str | None:
        """Apply a well-formed event; return the reason it breaks the rules, or None."""
        if self.result is not None:
            return f"event after the round ended ({self.result['reason']})"
        seat, action = event["seat"], event["action"]
        must_open = ("play", self.opener, self.opening_tile)
        if self.ends is None and (action, seat, event.get("tile")) != must_open:
            return f"the round must open with seat {self.opener} playing {self.opening_tile}"
        if seat != self.turn:
            return f"seat {seat} acts out of turn (it is seat {self.turn}'s turn)"
        return getattr(self, f"apply_{action}")(seat, event)

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
        self.turn = 1 - seat
        if not self.hands[seat]:
            points = pip_total(self.hands[1 - seat])
            self.result = {"winner": seat, "reason": "domino", "points": points}
        return None

    def apply_draw(self, seat: int, event: dict) -> str | None:
        """Take the next boneyard tile; only allowed when nothing fits. The turn stays."""
        if self.can_play(seat):
            return f"seat {seat} draws while holding a playable tile"
        if not self.boneyard:
            return "draw from an empty boneyard"
        if event["tile"] != self.boneyard[0]:
            return f"drew {event['tile']} but the next boneyard tile is {self.boneyard[0]}"
        self.hands[seat].append(self.boneyard.pop(0))
        return None

    def apply_pass(self, seat: int, event: dict) -> str | None:
        """Pass; only allowed when nothing fits and the boneyard is empty. Two in a row block."""
        if self.can_play(seat):
            return f"seat {seat} passes while holding a playable tile"
        if self.boneyard:
            return f"seat {seat} passes while the boneyard has {len(self.boneyard)} tiles"
        self.passes += 1
        self.turn = 1 - seat
        if self.passes == 2:
            self.result = blocked_result(self.hands)
        return None


def check_result(result: object, expected: dict | None) -> list[str]:
    """Check the result's shape, then compare it with the replayed one (if any)."""
    if not isinstance(result, dict) or set(result) != RESULT_KEYS:
        return [f"result: expected exactly the keys {sorted(RESULT_KEYS)}, got {result!r}"]
    winner, reason, points = result["winner"], result["reason"], result["points"]
    if not (winner is None or is_seat(winner)) or reason not in ("domino", "blocked"):
        return [f"result: winner must be 0, 1 or null and reason domino or blocked: {result}"]
    if type(points) is not int or points < 0:
        return [f"result: points must be a non-negative integer, got {points!r}"]
    if expected is not None and result != expected:
        return [f"result: is {result}, the replay gives {expected}"]
    return []


def replay(deal: dict, events: list, malformed: set[int]) -> tuple[list[str], dict | None]:
    """Replay up to the first rule violation or malformed event: (violations, result or None)."""
    game = Round(deal)
    for index, event in enumerate(events):
        if index in malformed:
            return [], None
        if reason := game.apply(event):
            return [f"event {index}: {reason}"], None
    if game.result is None:
        return ["result: the events stop before the round is over"], None
    return [], game.result


def check_record(record: dict) -> list[str]:
    """Return every violation found in one round record (an empty list means valid)."""
    if not isinstance(record, dict):
        return ["record: expected a JSON object"]
    missing = [key for key in ("seats", "deal", "events", "result") if key not in record]
    if missing:
        return [f"record: missing keys {missing}"]
    deal_problems = check_deal(record["deal"])
    problems = check_seats(record["seats"]) + deal_problems
    events = record["events"]
    expected = None
    if not isinstance(events, list):
        problems.append("events: expected a list")
    else:
        shapes = [check_event_shape(i, event) for i, event in enumerate(events)]
        problems += [p for shape in shapes for p in shape]
        if not deal_problems:
            malformed = {i for i, shape in enumerate(shapes) if shape}
            violations, expected = replay(record["deal"], events, malformed)
            problems += violations
    return problems + check_result(record["result"], expected)


def check_file(path: str) -> tuple[int, list[str]]:
    """Check every record of a .jsonl file; return (number of records, violations)."""
    count, problems = 0, []
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
            problems += [f"line {number}: {p}" for p in check_record(record)]
    return count, problems


def main(argv: list[str]) -> int:
    """Check the files named in ``argv``; print a summary and the first 20 violations."""
    if not argv:
        print("usage: python tests/checker.py FILE.jsonl [...]", file=sys.stderr)
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
