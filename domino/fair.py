"""Fair deals (SPEC §10): a shuffle anyone can check with nothing but SHA-256 and HMAC-SHA256.

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
