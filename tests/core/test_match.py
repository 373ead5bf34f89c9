"""Matches to a target: the running score is a fold of the rounds' outcomes (docs/contracts.md, the
rules object)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domino import game
from domino.match import add, fold, new_match
from domino.rules import DEFAULT, PRESETS
from tests.support.strategies import SEEDS, any_rules

MATCHES = [rules for rules in PRESETS.values() if rules.target is not None]


def played(rules, seed: int, leader=None) -> game.Outcome:
    """One round of random legal play."""
    rng = random.Random(seed)
    state = game.start(game.deal(rules, rng), rules, leader=leader)
    while not state.over:
        state = game.apply(state, game.resolve(state, state.turn, rng.choice(
            game.legal_actions(state, state.turn))))  # fmt: skip
    return game.outcome(state)


def play_match(rules, seed: int, limit: int = 400):
    """Rounds until the match is over: the outcomes and the match after each."""
    match, outcomes, after = new_match(rules), [], []
    for number in range(limit):
        outcome = played(rules, seed * 1000 + number, match.leader)
        outcomes.append(outcome)
        match = add(match, outcome)
        after.append(match)
        if match.over:
            return outcomes, after
    raise AssertionError("the match never ended")


@given(st.sampled_from(MATCHES) | any_rules().filter(lambda r: r.target), SEEDS)
def test_a_match_adds_up_its_rounds_and_ends_at_the_target(rules, seed):
    outcomes, after = play_match(rules, seed)
    final = after[-1]
    assert final == fold(rules, outcomes)
    for seat in range(rules.seats):
        assert final.scores[seat] == sum(o.scores[seat] for o in outcomes)
    partners = [s for s in range(rules.seats) if rules.side(s) == rules.side(0)]
    assert len({final.scores[s] for s in partners}) == 1
    assert max(final.scores) >= rules.target
    assert all(not match.over for match in after[:-1])
    assert max(after[-2].scores if len(after) > 1 else (0,)) < rules.target
    by_side = {rules.side(s): final.scores[s] for s in range(rules.seats)}
    best = (min if rules.scoring == "goat" else max)(by_side.values())
    leaders = [side for side, score in by_side.items() if score == best]
    expected = () if len(leaders) > 1 else tuple(
        s for s in range(rules.seats) if rules.side(s) == leaders[0])  # fmt: skip
    assert final.winners == expected
    with pytest.raises(ValueError):
        add(final, outcomes[-1])


@given(st.sampled_from(MATCHES), SEEDS)
def test_the_previous_winner_leads_when_the_rules_say_so(rules, seed):
    outcomes, after = play_match(rules, seed)
    for outcome, match in zip(outcomes, after, strict=True):
        if match.over:
            assert match.leader is None
        elif rules.next_opener == "previous-winner":
            assert match.leader == outcome.winner  # None after a drawn round: the opener rule
        else:
            assert match.leader is None


def test_without_a_target_rounds_stand_alone():
    match = add(new_match(DEFAULT), played(DEFAULT, 1))
    assert not match.over and match.winners == () and match.leader is None


def test_goat_the_fewest_penalty_points_win():
    goat = PRESETS["goat"]
    outcome = game.Outcome(0, "domino", 0, (0,), (0, 104))
    match = add(new_match(goat), outcome)
    assert match.over and match.scores == (0, 104) and match.winners == (0,)
    assert add(new_match(replace(goat, scoring="winner")), outcome).winners == (1,)
