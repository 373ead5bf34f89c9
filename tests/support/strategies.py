"""Hypothesis strategies the property tests share: seeds, any valid rules, the rules to try."""

from __future__ import annotations

from hypothesis import strategies as st

from domino.rules import (
    BLOCKED,
    DEFAULT,
    LEADS,
    NEXT_OPENERS,
    OPENERS,
    PRESETS,
    SCORINGS,
    Rules,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def any_rules(draw) -> Rules:
    """Any valid `Rules`: 2 to 4 seats (four in pairs), a hand size that fits, every option."""
    max_pip = draw(st.sampled_from([6, 6, 6, 2, 3, 4, 5, 7, 9]))
    set_size = (max_pip + 1) * (max_pip + 2) // 2
    seats = draw(st.integers(min_value=2, max_value=min(4, set_size // 2)))
    hand_size = draw(st.integers(min_value=2, max_value=set_size // seats))
    boneyard = draw(st.booleans()) and seats * hand_size < set_size
    return Rules(
        seats=seats,
        teams=seats == 4,
        hand_size=hand_size,
        boneyard=boneyard,
        opener=draw(st.sampled_from(OPENERS)),
        lead=draw(st.sampled_from(LEADS)),
        next_opener=draw(st.sampled_from(NEXT_OPENERS)),
        blocked=draw(st.sampled_from(BLOCKED)),
        scoring=draw(st.sampled_from(SCORINGS)),
        target=draw(st.sampled_from([None, 50, 100])),
        max_pip=max_pip,
    )


RULES = st.one_of(st.just(DEFAULT), st.sampled_from(list(PRESETS.values())), any_rules())
