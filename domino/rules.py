"""The `Rules` value (docs/contracts.md, the rules object): everything about a game that a room may
choose, and presets."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from functools import cache

from .tiles import MAX_PIP_LIMIT, full_set

OPENERS = ("highest-double", "lowest-double", "heaviest-tile")
LEADS = ("opening-tile", "any")
NEXT_OPENERS = ("rule", "previous-winner")
BLOCKED = ("difference", "others", "all")
SCORINGS = ("winner", "goat")
DOUBLE_SIX = 6
# The fields of the rules object as docs/contracts.md writes them (`max_pip` is
# ours: 6 is double-six).
JSON_FIELDS = (
    "seats",
    "teams",
    "hand_size",
    "boneyard",
    "opener",
    "lead",
    "next_opener",
    "blocked",
    "scoring",
    "target",
)


class RulesError(ValueError):
    """Rules that cannot be played; `field` names the setting at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class Rules:
    """The parameters of a game; `Rules()` is the two-player double-six draw game (docs/rules.md,
    the default game).

    - `seats`: 2 to 4 players, turns going round in seat order; `teams`: exactly when there
      are four, partners opposite (0 and 2 against 1 and 3), their hands counting together.
    - `hand_size`: tiles dealt to each seat; `boneyard`: True for the draw game, False for
      the block game (the undealt tiles sleep and a seat that cannot play passes).
    - `opener`: who lays the first tile; `lead`: whether that must be the tile that made
      them opener ("opening-tile") or may be any tile ("any"); `next_opener`: "rule", or
      "previous-winner" (from a match's second round, the last round's winner leads freely).
    - `blocked`: what a blocked round gives the lightest side; `scoring`: "winner" (the
      winning side writes) or "goat" (the others write their own pips as penalty).
    - `target`: None for single rounds, or the score that ends a match.
    """

    seats: int = 2
    teams: bool = False
    hand_size: int = 7
    boneyard: bool = True
    opener: str = "highest-double"
    lead: str = "opening-tile"
    next_opener: str = "rule"
    blocked: str = "difference"
    scoring: str = "winner"
    target: int | None = None
    max_pip: int = 6  # DOUBLE_SIX

    def __post_init__(self) -> None:
        for problem in _problems(self):
            raise RulesError(*problem)

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

    def side(self, seat: int) -> int:
        """The side a seat plays for: itself, or with teams its pair (0 or 1)."""
        return seat % 2 if self.teams else seat

    def sides(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each side, in the order of their first seat."""
        return _sides(self.seats, self.teams)

    def to_json(self) -> dict:
        """The rules object (docs/contracts.md; with `max_pip` only for a set other than
        double-six, which no room plays)."""
        values = asdict(self)
        written = {name: values[name] for name in JSON_FIELDS}
        if self.max_pip != DOUBLE_SIX:
            written["max_pip"] = self.max_pip
        return written

    @classmethod
    def from_json(cls, data: object) -> Rules:
        """Rules from a rules object (docs/contracts.md; missing fields take the default
        game's); RulesError if a field is unknown, of the wrong type or the combination cannot
        be played."""
        if not isinstance(data, dict):
            raise RulesError("rules", "the rules are an object")
        unknown = sorted(set(data) - {*JSON_FIELDS, "max_pip"})
        if unknown:
            raise RulesError(unknown[0], f"unknown rules field {unknown[0]!r}")
        for name, value in data.items():
            _check_type(name, value)
        return cls(**data)


@cache
def _sides(seats: int, teams: bool) -> tuple[tuple[int, ...], ...]:
    if teams:
        return tuple(tuple(range(first, seats, 2)) for first in (0, 1))
    return tuple((seat,) for seat in range(seats))


def _check_type(name: str, value: object) -> None:
    """A field's value must have the type the rules object gives it (docs/contracts.md) (`true` is
    not a number)."""
    if name in ("teams", "boneyard"):
        ok = type(value) is bool
    elif name in ("seats", "hand_size", "max_pip"):
        ok = type(value) is int
    elif name == "target":
        ok = value is None or type(value) is int
    else:
        ok = type(value) is str
    if not ok:
        raise RulesError(name, f"{name} cannot be {value!r}")


def _problems(rules: Rules):
    """Every reason the rules cannot be played, as (field, message)."""
    if type(rules.seats) is not int or not 2 <= rules.seats <= 4:
        yield "seats", f"a game has 2 to 4 seats, not {rules.seats}"
        return
    if rules.teams != (rules.seats == 4):
        yield "teams", "partners play exactly when there are four seats"
    if not 0 < rules.max_pip <= MAX_PIP_LIMIT:
        yield "max_pip", f"the highest pip is 1 to {MAX_PIP_LIMIT}, not {rules.max_pip}"
        return
    if type(rules.hand_size) is not int or rules.hand_size < 2:
        yield "hand_size", f"a hand holds at least 2 tiles, not {rules.hand_size}"
    elif rules.seats * rules.hand_size > rules.set_size:
        yield (
            "hand_size",
            (f"{rules.seats} hands of {rules.hand_size} do not fit in {rules.set_size} tiles"),
        )
    elif rules.boneyard and rules.boneyard_size == 0:
        yield "boneyard", "a draw game needs a tile left to draw: deal fewer, or play a block game"
    for name, allowed in (
        ("opener", OPENERS),
        ("lead", LEADS),
        ("next_opener", NEXT_OPENERS),
        ("blocked", BLOCKED),
        ("scoring", SCORINGS),
    ):
        if getattr(rules, name) not in allowed:
            yield name, f"{name} is one of {', '.join(allowed)}, not {getattr(rules, name)!r}"
    target = rules.target
    if target is not None and (type(target) is not int or target < 1):
        yield "target", f"a match is played to a number of points above 0, not {target!r}"


DEFAULT = Rules()
_MATCH = {"target": 100}
PRESETS: dict[str, Rules] = {
    "classic": DEFAULT,
    "match-100": replace(DEFAULT, blocked="all", **_MATCH),
    "block": replace(
        DEFAULT, boneyard=False, opener="lowest-double", lead="any", blocked="others", **_MATCH
    ),
    "goat": replace(
        DEFAULT, boneyard=False, opener="lowest-double", lead="any", scoring="goat", **_MATCH
    ),
    "international": replace(
        DEFAULT,
        opener="heaviest-tile",
        lead="any",
        next_opener="previous-winner",
        blocked="others",
        **_MATCH,
    ),
    "pairs": replace(DEFAULT, seats=4, teams=True, boneyard=False, blocked="all", **_MATCH),
    "three": replace(DEFAULT, seats=3, blocked="all", **_MATCH),
}


def named(text: str) -> Rules:
    """A preset by name, or rules written as a rules object in JSON (docs/contracts.md)."""
    if text in PRESETS:
        return PRESETS[text]
    try:
        data = json.loads(text)
    except ValueError as error:
        names = ", ".join(PRESETS)
        raise RulesError("rules", f"not a preset ({names}) nor a rules object") from error
    return Rules.from_json(data)
