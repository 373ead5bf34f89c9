"""`hard-before` stays the `hard` of f1eb73a: its choices on fixed positions are pinned.

The strength figures of issue 33 compare the new `hard` with this one, so it must not drift
when the modules it shares with `hard` (playout, worlds, knowledge) change. The positions come
from rounds `medium` plays out, seeded by the preset's name; the choices were written down
from f1eb73a's `hard` before anything changed.
"""

from __future__ import annotations

import random

import pytest

from domino import bots
from domino.bots.heuristic import ends_after
from domino.rules import PRESETS
from tests.support.scenario import choice_views

PINNED = {
    "classic": [
        "3-3:right",
        "1-3:right",
        "1-3:right",
        "0-1:left",
        "2-2:left",
        "0-4:right",
        "6-6:left",
    ],
    "block": [
        "3-5:left",
        "1-4:left",
        "4-4:left",
        "5-6:left",
        "3-5:right",
        "0-5:right",
        "1-6:right",
    ],
    "three": [
        "0-6:right",
        "0-5:right",
        "0-0:right",
        "1-3:left",
        "1-4:right",
        "2-3:right",
        "2-5:right",
    ],
    "pairs": [
        "0-6:left",
        "0-3:left",
        "0-3:right",
        "5-6:left",
        "0-3:left",
        "6-6:left",
        "2-6:right",
    ],
    "international": [
        "0-1:left",
        "4-4:left",
        "3-6:right",
        "0-0:right",
        "2-4:right",
        "5-5:left",
        "1-2:left",
    ],
    "goat": [
        "2-2:left",
        "1-3:left",
        "0-6:left",
        "0-3:right",
        "5-5:left",
        "3-3:left",
        "2-5:right",
    ],
}
PER_PRESET = 7


def positions(name: str) -> list:
    """PER_PRESET views with two or more plays, from rounds `medium` plays under `name`."""
    return choice_views(PRESETS[name], random.Random(name), PER_PRESET)


def written(action) -> str:
    """A play as "4-6:right"."""
    return f"{action.tile}:{action.end}"


@pytest.mark.slow  # 42 decisions of the full search
@pytest.mark.parametrize("name", PINNED)
def test_hard_before_makes_the_choices_of_f1eb73a(name):
    bot = bots.get("hard-before")
    made = [written(bot(view, random.Random(n))) for n, view in enumerate(positions(name))]
    assert made == PINNED[name]


def test_hard_before_is_not_a_level_players_meet():
    assert "hard-before" in bots.NAMES
    assert "hard-before" not in bots.LEVELS


@pytest.mark.slow  # 14 decisions of the full search, twice
@pytest.mark.parametrize("name", ["three", "pairs"])
def test_hard_at_three_and_four_seats_chooses_as_hard_before(name):
    hard, before = bots.get("hard"), bots.get("hard-before")
    for n, view in enumerate(positions(name)):
        ours, theirs = hard(view, random.Random(n)), before(view, random.Random(n))
        # hard lays a tile that fits both ends alike at the first of them (one effect, once)
        assert (ours.tile, sorted(ends_after(view, ours))) == (
            theirs.tile,
            sorted(ends_after(view, theirs)),
        )
