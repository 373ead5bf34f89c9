"""Fair deals (docs/fair-deals.md): a shuffle anyone can check with nothing but SHA-256 and
HMAC-SHA256.

The server commits to a secret `server_seed` (32 bytes) by showing its SHA-256; each person's
browser adds a `client_seed` (16 bytes, hex; the computer's seat has none); the shuffle is
drawn from the HMAC-SHA256 byte stream keyed by the server seed over the round number and
every seat's client seed, so neither the server nor any one player can choose the hands.
Standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator, Sequence

from .events import RoundStarted
from .game import deal_out
from .rules import Rules
from .tiles import Tile, full_set

PREFIX = "domino-deal/v1"
SERVER_SEED = re.compile(r"[0-9a-f]{64}")
CLIENT_SEED = re.compile(r"[0-9a-f]{32}")
SET_SIZE = 28  # double-six
BLOCK_KEYS = {"commitment", "server_seed", "client_seeds", "round"}


def new_server_seed(rng) -> str:
    """A fresh 32-byte server seed from `rng` (SystemRandom in production), lowercase hex."""
    return rng.getrandbits(256).to_bytes(32, "big").hex()


def is_client_seed(seed: object) -> bool:
    """True for exactly 32 lowercase hex digits (upper case is refused: the message uses the
    text as sent)."""
    return isinstance(seed, str) and CLIENT_SEED.fullmatch(seed) is not None


def commitment(server_seed: str) -> str:
    """SHA-256 of the server seed's 32 raw bytes, lowercase hex: shown before the deal."""
    return hashlib.sha256(_key(server_seed)).hexdigest()


def stream(server_seed: str, round_number: int, client_seeds: Sequence[str | None]):
    """The deal's byte stream, 4 bytes at a time: block i is HMAC-SHA256(server_seed,
    "domino-deal/v1:{round}:{i}:{s0}:{s1}:…"), a missing client seed written as ""."""
    key = _key(server_seed)
    seeds = ":".join(_client(seed) for seed in client_seeds)
    block = 0
    while True:
        text = f"{PREFIX}:{round_number}:{block}:{seeds}".encode("ascii")
        digest = hmac.new(key, text, hashlib.sha256).digest()
        for start in range(0, len(digest), 4):
            yield int.from_bytes(digest[start : start + 4], "big")
        block += 1


def uniform(words: Iterator[int], n: int) -> int:
    """A uniform integer in 0..n-1 from the stream, rejecting the biased top of 2^32."""
    limit = 2**32 - (2**32 % n)
    for x in words:
        if x < limit:
            return x % n
    raise ValueError("the stream ended")  # never: the stream is endless


def shuffle(server_seed: str, round_number: int, client_seeds: Sequence[str | None]) -> list[Tile]:
    """The 28 tiles from 0-0 to 6-6, shuffled: for i from 27 down to 1, swap i and
    uniform(i + 1)."""
    tiles = list(full_set(6))
    words = stream(server_seed, round_number, client_seeds)
    for i in range(len(tiles) - 1, 0, -1):
        j = uniform(words, i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def fair_deal(
    rules: Rules, server_seed: str, round_number: int, client_seeds: Sequence[str | None]
) -> RoundStarted:
    """The deal of round `round_number` under `rules` from these seeds (one per seat)."""
    if rules.max_pip != 6:
        raise ValueError("fair deals are defined for double-six")
    if len(client_seeds) != rules.seats:
        raise ValueError(f"one client seed per seat: {rules.seats}, not {len(client_seeds)}")
    if type(round_number) is not int or round_number < 1:
        raise ValueError("a round number counts from 1")
    return deal_out(rules, shuffle(server_seed, round_number, client_seeds))


def block(
    server_seed: str, round_number: int, client_seeds: Sequence[str | None], rotation: int = 0
) -> dict:
    """A record's `fairness` (docs/contracts.md, the round record): everything needed to check the
    deal. `rotation` r
    (a duplicate rematch) means seat s holds the shuffle's hand (s + r) mod seats."""
    seeds = [_client(seed) or None for seed in client_seeds]
    if type(round_number) is not int or round_number < 1:
        raise ValueError("a round number counts from 1")
    if type(rotation) is not int or not 0 <= rotation < len(seeds):
        raise ValueError(f"a rotation lies in 0..{len(seeds) - 1}")
    written = {
        "commitment": commitment(server_seed),
        "server_seed": server_seed,
        "client_seeds": seeds,
        "round": round_number,
    }
    if rotation:
        written["rotation"] = rotation
    return written


def _key(server_seed: str) -> bytes:
    if not isinstance(server_seed, str) or not SERVER_SEED.fullmatch(server_seed):
        raise ValueError("a server seed is 32 bytes as 64 lowercase hex digits")
    return bytes.fromhex(server_seed)


def _client(seed: str | None) -> str:
    if seed is None:
        return ""
    if not isinstance(seed, str) or not CLIENT_SEED.fullmatch(seed):
        raise ValueError("a client seed is 16 bytes as 32 lowercase hex digits")
    return seed


def check_record(record: object) -> list[str]:
    """The problems found in a round record's fair deal (docs/fair-deals.md), `[]` when it checks.

    It checks the commitment against the revealed server seed, the seeds' formats (one client
    seed per seat, a seat being a hand of `deal.hands`), and that the recomputed shuffle gives
    the record's hands tile for tile and its boneyard in order. The hand size is that of the
    first hand. With `"rotation": r` (a duplicate rematch) seat s holds shuffle hand
    (s + r) mod seats. A record without `fairness` gives one problem: it cannot be checked.
    """
    if not isinstance(record, dict) or not isinstance(record.get("fairness"), dict):
        return ["the record has no 'fairness' block"]
    fairness, deal = record["fairness"], record.get("deal")
    problems = _form(fairness, deal)
    if problems:
        return problems
    seats = len(deal["hands"])
    if fairness["commitment"] != commitment(fairness["server_seed"]):
        problems.append("commitment: it is not the SHA-256 of the server seed")
    tiles = [
        str(t)
        for t in shuffle(fairness["server_seed"], fairness["round"], fairness["client_seeds"])
    ]
    size, rotation = len(deal["hands"][0]), fairness.get("rotation", 0)
    for seat, hand in enumerate(deal["hands"]):
        start = (seat + rotation) % seats * size
        problems += _differences(f"hands: seat {seat}", hand, tiles[start : start + size])
    problems += _differences("boneyard", deal["boneyard"], tiles[seats * size :])
    return problems


def _form(fairness: dict, deal: object) -> list[str]:
    """What is malformed in a fairness block and the deal it vouches for."""
    if not isinstance(deal, dict) or not isinstance(deal.get("hands"), list):
        return ["deal: no list of hands"]
    hands, boneyard = deal["hands"], deal.get("boneyard")
    if not 2 <= len(hands) <= 4 or not all(isinstance(h, list) for h in hands):
        return ["deal: 2 to 4 hands, each a list of tiles"]
    if not isinstance(boneyard, list):
        return ["deal: no boneyard list"]
    if len({len(h) for h in hands}) != 1 or not hands[0] or len(hands) * len(hands[0]) > SET_SIZE:
        return ["deal: hands of one size that fit in the 28 tiles"]
    problems = []
    extra = set(fairness) - BLOCK_KEYS - {"rotation"}
    if not set(fairness) >= BLOCK_KEYS or extra:
        return [f"fairness: the fields are {sorted(BLOCK_KEYS)} and an optional 'rotation'"]
    for name in ("server_seed", "commitment"):
        if not isinstance(fairness[name], str) or not SERVER_SEED.fullmatch(fairness[name]):
            problems.append(f"{name}: not 64 lowercase hex digits")
    seeds = fairness["client_seeds"]
    if not isinstance(seeds, list) or len(seeds) != len(hands):
        problems.append(f"client_seeds: one per seat, {len(hands)}")
    elif not all(seed is None or is_client_seed(seed) for seed in seeds):
        problems.append("client_seeds: each is null or 32 lowercase hex digits")
    number = fairness["round"]
    if type(number) is not int or number < 1:
        problems.append("round: a whole number from 1")
    rotation = fairness.get("rotation", 0)
    if type(rotation) is not int or not 0 <= rotation < len(hands):
        problems.append(f"rotation: a whole number in 0..{len(hands) - 1}")
    return problems


def _differences(where: str, written: list, dealt: list[str]) -> list[str]:
    """The first place where the written tiles differ from the dealt ones, if any."""
    if written == dealt:
        return []
    for index, (one, other) in enumerate(zip(written, dealt, strict=False)):
        if one != other:
            return [f"{where}: tile {index + 1} is {one!r}, the shuffle gives {other}"]
    return [f"{where}: {len(written)} tiles, the shuffle gives {len(dealt)}"]
