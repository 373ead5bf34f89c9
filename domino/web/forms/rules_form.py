"""The home page's rules card (docs/contracts.md, page hooks; docs/rules.md): a posted card into
`Rules` and the computer's
level, the card's fields for given rules, and the words for a setting the card refuses.

Only the fields of the rules object (docs/contracts.md) are read (`seats` as 2, 3 or 4, `teams`
following it: pairs exactly
at four; `boneyard` as draw/block; `target` as none, a number, or "other" with the number in
`target_points`); any other key is ignored, so `max_pip` and `teams` are never set from a
form. A posted `preset` is the starting point and each posted field overrides it; nothing
posted at all is the default game. The tile counter's box (`counter`, posted as "on") is
read apart, by `counter_from_form`: it is a table aid, not one of the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache

from flask_babel import gettext

from ...room import LEVELS
from ...rules import DEFAULT, PRESETS, Rules, RulesError
from ..view import rules_text
from ..view.messages import refusal

FIELDS = (
    "seats",
    "boneyard",
    "hand_size",
    "opener",
    "lead",
    "next_opener",
    "blocked",
    "scoring",
    "target",
)
CHOSEN = ("opener", "lead", "next_opener", "blocked", "scoring")  # one of the card's choices
TARGETS = ("50", "100", "150")
MOST_POINTS = 1000
NUMBER = re.compile(r"[0-9]{1,4}")
LONGEST = 40  # a posted value longer than any of ours is not one of ours
# the card's tables (docs/rules.md, tables of three and four); four is always two pairs
SEATS = ("2", "3", "4")
GAMES = ("draw", "block")  # the card's `boneyard`, as it posts it


class CardError(ValueError):
    """A setting the card refuses; `field` names it, `message` says why in the page's words."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def card_presets() -> dict[str, Rules]:
    """The presets the card offers: those of docs/rules.md, presets, in their order."""
    return {name: rules for name, rules in PRESETS.items() if name in rules_text.PRESET_NAMES}


def fits(seats: int, draw: bool, size: int) -> bool:
    """True when the core plays hands of `size` tiles at a table of `seats` (a draw game with
    `draw`): rules.py's own checks decide, as they do for a posted card."""
    try:
        replace(DEFAULT, seats=seats, teams=seats == 4, boneyard=draw, hand_size=size)
    except RulesError:
        return False
    return True


@cache
def most_tiles(seats: int, draw: bool) -> int:
    """The most tiles each of `seats` hands may hold (a draw game leaves one to draw), as the
    core allows them."""
    return max(size for size in range(2, DEFAULT.set_size + 1) if fits(seats, draw, size))


def table_setups() -> list[tuple[int, str]]:
    """Every table the card can ask for, as (seats, "draw" or "block")."""
    return [(int(seats), game) for seats in SEATS for game in GAMES]


def setup_key(seats: int, game: str) -> str:
    """How the card's script names a table setup: "3 draw"."""
    return f"{seats} {game}"


MOST_BLOCK = most_tiles(DEFAULT.seats, False)  # tiles per hand that fit at all (two seats)
MOST_DRAW = most_tiles(DEFAULT.seats, True)  # ... leaving one to draw
MOST_ANY = max(most_tiles(seats, game == "draw") for seats, game in table_setups())


def rules_from_form(form) -> Rules:
    """The rules a posted card asks for; CardError names the first setting refused."""
    name = _posted(form, "preset") or "classic"
    if name not in card_presets():
        raise CardError("preset", _choose("preset"))
    changes = {}
    for key in FIELDS:
        value = _posted(form, key)
        if value is not None:
            changes[key] = _parse(form, key, value)
    if "seats" in changes:
        changes["teams"] = changes["seats"] == 4
    try:
        return replace(PRESETS[name], **changes)
    except RulesError as error:
        raise refused(error, changes.get("seats", PRESETS[name].seats)) from error


def level_from_form(form) -> str:
    """The computer's level from the card (medium if none is posted)."""
    level = _posted(form, "level")
    if level is None:
        return "medium"
    if level not in LEVELS:
        raise CardError("level", refusal("bad-level"))
    return level


def counter_from_form(form) -> bool:
    """Whether the card turns the tile counter on (its checkbox `counter`, posted as "on").

    The counter is a table aid, not a rule: it stays outside the rules object (docs/contracts.md,
    the rules object)."""
    value = _posted(form, "counter")
    if value in (None, ""):
        return False
    if value != "on":
        raise CardError("counter", counter_problem())
    return True


def counter_problem() -> str:
    """What the card says of a tile counter setting it cannot read."""
    return gettext("“%(setting)s”: tick the box, or leave it empty.", setting=counter_name())


def counter_name() -> str:
    """The tile counter's name on the card."""
    return gettext("Tile counter")


def _posted(form, name: str) -> str | None:
    value = form.get(name)
    return None if value is None else value.strip()


def _parse(form, name: str, value: str):
    """One posted field as the rules hold it."""
    if name == "seats":
        if value not in SEATS:
            raise CardError(name, _seats())
        return int(value)
    if name == "boneyard":
        if value not in ("draw", "block"):
            raise CardError(name, _choose(name))
        return value == "draw"
    if name == "hand_size":
        if not NUMBER.fullmatch(value) or not 2 <= int(value) <= MOST_ANY:
            raise CardError(name, _hand_size())
        return int(value)
    if name == "target":
        return _target(value, _posted(form, "target_points") or "")
    if value not in dict(rules_text.CHOICES[name]):
        raise CardError(name, _choose(name))
    return value


def _target(value: str, typed: str) -> int | None:
    if value in ("", "none"):
        return None
    number = typed if value == "other" else value
    if not NUMBER.fullmatch(number) or not 1 <= int(number) <= MOST_POINTS:
        raise CardError("target", target_problem())
    return int(number)


def refused(error: RulesError, seats: int = DEFAULT.seats) -> CardError:
    """The card's words for rules the core refuses, naming the setting to change (at a
    table of `seats`: the most tiles each depends on it)."""
    if error.field == "boneyard":  # a draw game with nothing left to draw
        return CardError("hand_size", draw_size_problem(seats))
    if error.field == "hand_size":
        return CardError("hand_size", _hand_size(seats))
    if error.field == "target":
        return CardError("target", target_problem())
    if error.field in ("seats", "teams"):
        return CardError("seats", _seats())
    if error.field in CHOSEN:
        return CardError(error.field, _choose(error.field))
    return CardError("preset", gettext("These rules cannot be played together."))


def _choose(name: str) -> str:
    return gettext(
        "“%(setting)s”: choose one of the options on the card.",
        setting=rules_text.setting_name(name),
    )


def _seats() -> str:
    return gettext(
        "“%(setting)s”: choose a table for 2, 3 or 4 players.",
        setting=rules_text.setting_name("seats"),
    )


def _hand_size(seats: int = DEFAULT.seats) -> str:
    if seats == DEFAULT.seats:
        return gettext(
            "“%(setting)s”: deal from 2 to %(most)d tiles to each player.",
            setting=rules_text.setting_name("hand_size"),
            most=MOST_BLOCK,
        )
    return gettext(
        "“%(setting)s”: at a table of %(seats)d, deal from 2 to %(most)d tiles to each player.",
        setting=rules_text.setting_name("hand_size"),
        seats=seats,
        most=most_tiles(seats, False),
    )


def draw_size_problem(seats: int = DEFAULT.seats) -> str:
    """Why a draw game cannot deal this many tiles to `seats` players."""
    if seats == DEFAULT.seats:
        return gettext(
            "“%(setting)s”: a draw game needs at least one tile left to draw, so deal at most "
            "%(most)d tiles each, or choose the block game.",
            setting=rules_text.setting_name("hand_size"),
            most=MOST_DRAW,
        )
    return gettext(
        "“%(setting)s”: at a table of %(seats)d, a draw game needs at least one tile left to "
        "draw, so deal at most %(most)d tiles each, or choose the block game.",
        setting=rules_text.setting_name("hand_size"),
        seats=seats,
        most=most_tiles(seats, True),
    )


def adjusted_size(seats: int, draw: bool) -> str:
    """What the card's script says when a change of table lowers the tiles per hand to the
    most that `seats` players may hold."""
    if draw:
        return gettext(
            "“%(setting)s” is now %(most)d: at a table of %(seats)d, a draw game deals at "
            "most %(most)d tiles each, to leave one to draw.",
            setting=rules_text.setting_name("hand_size"),
            seats=seats,
            most=most_tiles(seats, True),
        )
    return gettext(
        "“%(setting)s” is now %(most)d: at a table of %(seats)d, at most %(most)d tiles "
        "each fit in the set.",
        setting=rules_text.setting_name("hand_size"),
        seats=seats,
        most=most_tiles(seats, False),
    )


def target_problem() -> str:
    """What a match's target may be."""
    return gettext(
        "“%(setting)s”: choose single rounds, or a number of points from 1 to %(most)d.",
        setting=rules_text.setting_name("target"),
        most=MOST_POINTS,
    )


# -- the card as shown


def form_values(rules: Rules, level: str = "medium") -> dict[str, str]:
    """The card's fields set to these rules (and the computer's level)."""
    values = {name: getattr(rules, name) for name in CHOSEN}
    target = "none" if rules.target is None else str(rules.target)
    other = target not in ("none", *TARGETS)
    return values | {
        "seats": str(rules.seats),
        "boneyard": "draw" if rules.boneyard else "block",
        "hand_size": str(rules.hand_size),
        "target": "other" if other else target,
        "target_points": target if other else "",
        "level": level,
    }


def _rules_part(values: dict[str, str]) -> dict[str, str]:
    """The fields that make the rules (a typed target only when "other" is chosen)."""
    part = {key: values.get(key, "") for key in (*FIELDS, "target_points")}
    if part["target"] != "other":
        part["target_points"] = ""
    return part


@dataclass(frozen=True)
class Card:
    """The rules card as the page shows it: its fields' values, open or folded, the error."""

    values: dict[str, str] = field(default_factory=lambda: form_values(DEFAULT))
    open: bool = False
    error: CardError | None = None

    @property
    def preset(self) -> str | None:
        """The preset these values are, if any (its control shows pressed)."""
        mine = _rules_part(self.values)
        for name, rules in card_presets().items():
            if _rules_part(form_values(rules)) == mine:
                return name
        return None

    def presets(self) -> list[tuple[str, str, str]]:
        """Each preset as (name, its name in words, its rules in one line)."""
        return [
            (name, rules_text.preset_name(name), rules_text.rules_line(rules))
            for name, rules in card_presets().items()
        ]

    def presets_json(self) -> dict[str, dict[str, str]]:
        """Each preset's field values, for the card's script to fill in."""
        return {name: _rules_part(form_values(rules)) for name, rules in card_presets().items()}

    def messages(self) -> dict:
        """The problems the card's script can see coming, and what it says when it lowers the
        tiles per hand, in the page's words; those of the hand size by table setup (as
        `most_tiles_json` names them)."""
        refusals, lowered = {}, {}
        for seats, game in table_setups():
            key, draw = setup_key(seats, game), game == "draw"
            refusals[key] = draw_size_problem(seats) if draw else _hand_size(seats)
            lowered[key] = adjusted_size(seats, draw)
        return {"hand_size": refusals, "adjusted": lowered, "target": target_problem()}

    @staticmethod
    def most_tiles_json() -> dict[str, int]:
        """The most tiles a hand may hold at each table setup ("3 draw": 9), from the core's
        checks, for the card's script to offer only hand sizes that fit."""
        return {
            setup_key(seats, game): most_tiles(seats, game == "draw")
            for seats, game in table_setups()
        }

    @property
    def counter(self) -> bool:
        """True when the card's tile counter box is ticked (off unless posted so)."""
        return self.values.get("counter") == "on"

    counter_name = staticmethod(counter_name)
    choices = staticmethod(rules_text.choices)
    setting = staticmethod(rules_text.setting_name)
    points = staticmethod(rules_text.points)
    targets = TARGETS
    hand_sizes = range(2, MOST_ANY + 1)
    most_points = MOST_POINTS


def card_for(form=None, preset: str | None = None, error: CardError | None = None) -> Card:
    """The card: as posted (open, with its error), else open on a preset, else folded."""
    if form is not None:
        preset = _posted(form, "preset")
        start = preset if preset in card_presets() else "classic"
        values = form_values(PRESETS[start]) | {"preset": start}
        for name in values:
            posted = _posted(form, name)
            if posted is not None and name != "preset":
                values[name] = posted[:LONGEST]
        values["counter"] = "on" if _posted(form, "counter") == "on" else ""
        return Card(values, open=True, error=error)
    if preset in card_presets():
        return Card(form_values(PRESETS[preset]) | {"preset": preset}, open=True)
    return Card()
