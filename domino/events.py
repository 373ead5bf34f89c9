"""What happens in a round, in the past tense, and what a seat may ask to do."""

from __future__ import annotations

from dataclasses import dataclass, fields
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


def builder(cls):
    """A faster constructor of the frozen, slotted dataclass `cls`: every field, in order.

    A frozen dataclass's `__init__` sets each field through `object.__setattr__`, which the
    hot path of a round pays on every move. This fills an unfrozen twin with the same slots,
    then gives the object its real class (their layouts are the same, so Python allows it):
    the result is `cls(*values)` in every way, built in about a quarter of the time.
    """
    names = [field.name for field in fields(cls)]
    twin = dataclass(slots=True)(
        type(f"_Unfrozen{cls.__name__}", (), {"__annotations__": dict.fromkeys(names, "object")})
    )

    def build(*values):
        made = twin(*values)
        made.__class__ = cls
        return made

    return build


played_event = builder(TilePlayed)
drawn_event = builder(TileDrawn)
passed_event = builder(Passed)

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
