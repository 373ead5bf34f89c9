#!/usr/bin/env python3
"""Check the fair deals of domino round records (docs/fair-deals.md), with nothing but SHA-256 and
HMAC.

Usage: python tools/check_deal.py [FILE.jsonl ...]   (no file: read standard input)

Every line of the files is one round record (docs/contracts.md, the round record). For each record
this prints
`record N: ok`, `record N: FAILED: <reason>` or `record N: not checked (no fairness)`, then
a summary. It exits 0 when no record failed, 1 when one did, 2 when a file cannot be read or
a line is not JSON.

A record's `fairness` block carries the revealed `server_seed`, its `commitment` (shown
before the deal), every seat's `client_seeds` (hex, or null) and the `round` number. The
deal is recomputed from them:

- block i of the byte stream is HMAC-SHA256, keyed with the server seed's 32 raw bytes,
  over the ASCII text "domino-deal/v1:{round}:{i}:{s0}:{s1}:..." (null written as "");
- a uniform number below n reads 4 bytes big-endian as x, skipping x >= 2^32 - (2^32 mod n);
- the 28 tiles 0-0, 0-1, ..., 6-6 are shuffled by swapping i and uniform(i + 1) for i from
  27 down to 1; seat 0 takes the first hand, seat 1 the next, and the rest is the boneyard.

A duplicate rematch's block may add `"rotation": r`: seat s then holds hand (s + r) mod seats.
This script is written apart from the game's own code (it imports nothing of it), so that
the two readings of the SPEC check each other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sys

SERVER_HEX = re.compile(r"[0-9a-f]{64}")
CLIENT_HEX = re.compile(r"[0-9a-f]{32}")
FIELDS = {"commitment", "server_seed", "client_seeds", "round"}


class Unreadable(Exception):
    """A file that cannot be read, or a line that is not JSON: a usage error."""


def byte_stream(key: bytes, round_number: int, seeds: list):
    """The deal's bytes, 4 at a time, as unsigned big-endian numbers."""
    joined = ":".join("" if seed is None else seed for seed in seeds)
    index = 0
    while True:
        message = f"domino-deal/v1:{round_number}:{index}:{joined}".encode("ascii")
        block = hmac.new(key, message, hashlib.sha256).digest()
        for at in range(0, 32, 4):
            yield int.from_bytes(block[at : at + 4], "big")
        index += 1


def below(numbers, n: int) -> int:
    """A uniform number in 0..n-1, from the first unbiased 4 bytes."""
    top = 2**32 - 2**32 % n
    for x in numbers:
        if x < top:
            return x % n
    raise AssertionError("unreachable: the stream never ends")


def shuffled(key: bytes, round_number: int, seeds: list) -> list[str]:
    """The 28 tiles in the order of the deal, written "a-b" with a <= b."""
    deck = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
    numbers = byte_stream(key, round_number, seeds)
    for i in range(27, 0, -1):
        j = below(numbers, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def malformed(fairness: dict, deal) -> str | None:
    """Why the block or the deal cannot be checked, or None."""
    if set(fairness) - {"rotation"} != FIELDS:
        return f"the fairness block has the fields {sorted(FIELDS)} (and maybe 'rotation')"
    hands = deal.get("hands") if isinstance(deal, dict) else None
    if not isinstance(hands, list) or not 2 <= len(hands) <= 4:
        return "the deal has no list of 2 to 4 hands"
    if not all(isinstance(hand, list) and len(hand) == len(hands[0]) for hand in hands):
        return "the hands are not lists of one size"
    if (
        not hands[0]
        or len(hands) * len(hands[0]) > 28
        or not isinstance(deal.get("boneyard"), list)
    ):
        return "the hands do not fit in 28 tiles, or the boneyard is missing"
    for name in ("server_seed", "commitment"):
        if not (isinstance(fairness[name], str) and SERVER_HEX.fullmatch(fairness[name])):
            return f"{name} is not 64 lowercase hex digits"
    seeds = fairness["client_seeds"]
    if not isinstance(seeds, list) or len(seeds) != len(hands):
        return f"client_seeds does not hold one seed per seat ({len(hands)})"
    for seat, seed in enumerate(seeds):
        if seed is not None and not (isinstance(seed, str) and CLIENT_HEX.fullmatch(seed)):
            return f"the client seed of seat {seat} is neither null nor 32 lowercase hex digits"
    if type(fairness["round"]) is not int or fairness["round"] < 1:
        return "round is not a whole number from 1"
    rotation = fairness.get("rotation", 0)
    if type(rotation) is not int or not 0 <= rotation < len(hands):
        return f"rotation is not a whole number from 0 to {len(hands) - 1}"
    return None


def failure(record) -> str | None:
    """Why the record's deal fails its check, or None when it checks."""
    fairness = record["fairness"]
    if not isinstance(fairness, dict):
        return "the fairness block is not an object"
    deal = record.get("deal")
    problem = malformed(fairness, deal)
    if problem:
        return problem
    key = bytes.fromhex(fairness["server_seed"])
    if hashlib.sha256(key).hexdigest() != fairness["commitment"]:
        return "the commitment is not the SHA-256 of the server seed"
    deck = shuffled(key, fairness["round"], fairness["client_seeds"])
    hands = deal["hands"]
    seats, size = len(hands), len(hands[0])
    rotation = fairness.get("rotation", 0)
    for seat, hand in enumerate(hands):
        first = (seat + rotation) % seats * size
        if hand != deck[first : first + size]:
            return f"the hand of seat {seat} is not the one the seeds deal"
    if deal["boneyard"] != deck[seats * size :]:
        return "the boneyard is not the one the seeds deal, in that order"
    return None


def records(paths: list[str]):
    """Every record of the files (or of standard input), in order."""
    sources = paths or ["-"]
    for path in sources:
        try:
            if path == "-":
                lines = sys.stdin.read().splitlines()
            else:
                with open(path, encoding="utf-8") as file:
                    lines = file.read().splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise Unreadable(f"cannot read {path}: {error}") from error
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise Unreadable(f"{path}, line {number}: not JSON ({error.msg})") from error


def main(argv: list[str]) -> int:
    if any(arg in ("-h", "--help") for arg in argv):
        print(__doc__.strip())
        return 0
    tally = {"ok": 0, "failed": 0, "not checked": 0}
    try:
        for number, record in enumerate(records(argv), 1):
            if not isinstance(record, dict) or "fairness" not in record:
                print(f"record {number}: not checked (no fairness)")
                tally["not checked"] += 1
                continue
            reason = failure(record)
            if reason:
                print(f"record {number}: FAILED: {reason}")
                tally["failed"] += 1
            else:
                print(f"record {number}: ok")
                tally["ok"] += 1
    except Unreadable as error:
        print(f"check_deal: {error}", file=sys.stderr)
        return 2
    print(f"{tally['ok']} ok, {tally['failed']} failed, {tally['not checked']} not checked")
    return 1 if tally["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
