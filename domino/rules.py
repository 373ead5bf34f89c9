"""The `Rules` value: everything about a game that a room could choose."""

from __future__ import annotations

from dataclasses import dataclass

from .tiles import MAX_PIP_LIMIT, full_set

OPENING_RULES = ("highest-double", "heaviest-tile")
BLOCKED_SCORING = ("difference", "others")


@dataclass(frozen=True, slots=True)
class Rules:
    """The parameters of a round; `Rules()` is the two-player double-six draw game.

    - `seats`: 2 to 4 players, turns going round in seat order.
    - `hand_size`: tiles dealt to each seat.
    - `boneyard`: True when a seat with nothing to play must draw from the leftover tiles;
      False for a block game, where the leftovers sleep and a seat that cannot play passes.
    - `opening`: "highest-double" (highest double opens, else the heaviest tile, ties to the
      higher half) or "heaviest-tile" (the heaviest tile opens, a double beating a single of
      the same weight).
    - `blocked_scoring`: what the lowest hand scores when all seats pass in a row:
      "difference" (the sum over the other hands of how much heavier each is) or
      "others" (the pip total of the other hands).
    """

    seats: int = 2
    hand_size: int = 7
    boneyard: bool = True
    opening: str = "highest-double"
    blocked_scoring: str = "difference"
    max_pip: int = 6

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 4:
            raise ValueError(f"a round has 2 to 4 seats, not {self.seats}")
        if not 0 < self.max_pip <= MAX_PIP_LIMIT:
            raise ValueError(f"the highest pip is 1 to {MAX_PIP_LIMIT}, not {self.max_pip}")
        if self.hand_size < 1 or self.seats * self.hand_size > self.set_size:
            raise ValueError(
                f"{self.seats} hands of {self.hand_size} do not fit in {self.set_size} tiles"
            )
        if self.opening not in OPENING_RULES:
            raise ValueError(f"unknown opening rule {self.opening!r}")
        if self.blocked_scoring not in BLOCKED_SCORING:
            raise ValueError(f"unknown blocked scoring {self.blocked_scoring!r}")

    @property
    def set_size(self) -> int:
        """How many tiles the set holds (28 for double-six)."""
        n = self.max_pip + 1
        return n * (n + 1) // 2

    @property
    def boneyard_size(self) -> int:
        """How many tiles are left over after the deal."""
        return self.set_size - self.seats * self.hand_size

    def full_set(self):
        """The tiles of this game's set, in order."""
        return full_set(self.max_pip)


DEFAULT = Rules()
