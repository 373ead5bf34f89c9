"""What happens in a round, in the past tense, and what a seat may ask to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .tiles import Tile

LEFT = "left"
RIGHT = "right"
ENDS = (LEFT, RIGHT)


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """The deal: every hand and the boneyard in draw order, decided once and recorded."""

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]


@dataclass(frozen=True, slots=True)
class TilePlayed:
    """A seat laid `tile` at the `left` or `right` end of the line."""

    seat: int
    tile: Tile
    end: str


@dataclass(frozen=True, slots=True)
class TileDrawn:
    """A seat took `tile`, the next tile of the boneyard."""

    seat: int
    tile: Tile


@dataclass(frozen=True, slots=True)
class Passed:
    """A seat could neither play nor draw."""

    seat: int


Event = RoundStarted | TilePlayed | TileDrawn | Passed
Move = TilePlayed | TileDrawn | Passed


class Play(NamedTuple):
    """The action of laying `tile` at `end`."""

    tile: Tile
    end: str

    def __str__(self) -> str:
        return f"play {self.tile} {self.end}"


class _Simple:
    """An action with no arguments: draw or pass."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name.upper()

    __str__ = __repr__

    def __reduce__(self):
        return self.name.upper()


DRAW = _Simple("draw")
PASS = _Simple("pass")
Action = Play | _Simple


class PublicMove(NamedTuple):
    """A move as every seat saw it: a drawn tile stays hidden (`tile` is None).

    `left` and `right` are the open ends just before the move (None before the opening).
    """

    seat: int
    action: str
    tile: Tile | None
    end: str | None
    left: int | None
    right: int | None
