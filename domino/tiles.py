"""Domino tiles: the `Tile` value, a tile as laid in the line, and the full set."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

MAX_PIP_LIMIT = 12
_INTERNED: dict[tuple[int, int], Tile] = {}


class Tile:
    """One domino tile, written low-high (`2-5`); one shared instance per tile."""

    __slots__ = ("high", "low", "mask", "pips")
    low: int
    high: int
    pips: int
    mask: int

    def __new__(cls, a: int, b: int) -> Tile:
        key = (a, b) if a <= b else (b, a)
        tile = _INTERNED.get(key)
        if tile is None:
            low, high = key
            if not (isinstance(low, int) and isinstance(high, int)):
                raise TypeError(f"tile halves must be integers, not {a!r} and {b!r}")
            if low < 0 or high > MAX_PIP_LIMIT:
                raise ValueError(f"tile halves must lie between 0 and {MAX_PIP_LIMIT}")
            tile = object.__new__(cls)
            for name, value in (
                ("low", low),
                ("high", high),
                ("pips", low + high),
                ("mask", (1 << low) | (1 << high)),
            ):
                object.__setattr__(tile, name, value)
            _INTERNED[key] = tile
        return tile

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("tiles are immutable")

    def __reduce__(self):
        return (Tile, (self.low, self.high))

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Tile('{self}')"

    def __lt__(self, other: Tile) -> bool:
        return (self.low, self.high) < (other.low, other.high)

    @property
    def is_double(self) -> bool:
        """True when both halves are equal."""
        return self.low == self.high

    def has(self, value: int) -> bool:
        """True when either half shows `value`."""
        return self.low == value or self.high == value

    def other_half(self, value: int) -> int:
        """The half that is left open when this tile is joined on `value`."""
        if self.low == value:
            return self.high
        if self.high == value:
            return self.low
        raise ValueError(f"{self} has no {value}")

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read a tile written low-high, such as `2-5`; `5-2` is refused."""
        low, high = _halves(text)
        if low > high:
            raise ValueError(f"tile {text!r} must be written low-high: {high}-{low}")
        return cls(low, high)


class Laid(NamedTuple):
    """A tile as it lies in the line: `left` touches the tile before it."""

    left: int
    right: int

    def __str__(self) -> str:
        return f"{self.left}-{self.right}"

    @property
    def tile(self) -> Tile:
        """The tile itself, whichever way round it lies."""
        return Tile(self.left, self.right)

    @property
    def is_double(self) -> bool:
        """True for a double, which lies crosswise."""
        return self.left == self.right

    @classmethod
    def parse(cls, text: str) -> Laid:
        """Read a laid tile written left half first, such as `5-2`."""
        left, right = _halves(text)
        Tile(left, right)  # range check
        return cls(left, right)


def _halves(text: str) -> tuple[int, int]:
    """Split `a-b` into two integers, with a clear error for anything else."""
    if not isinstance(text, str):
        raise ValueError(f"a tile is written as text like '2-5', not {text!r}")
    parts = text.strip().split("-")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() and len(p) <= 2 for p in parts):
        raise ValueError(f"not a tile: {text!r} (write it like '2-5')")
    return int(parts[0]), int(parts[1])


@cache
def full_set(max_pip: int = 6) -> tuple[Tile, ...]:
    """Every tile from `0-0` to `max_pip-max_pip` once, in order."""
    return tuple(Tile(a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1))


def tiles(text: str) -> tuple[Tile, ...]:
    """Read tiles separated by spaces or commas: `"6-6 1-2"`."""
    return tuple(Tile.parse(t) for t in text.replace(",", " ").split())


def pip_total(hand) -> int:
    """The pip sum of a group of tiles."""
    return sum(t.pips for t in hand)
