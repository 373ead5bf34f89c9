"""`hard`'s exact search (domino/bots/endgame.py) agrees with a plain minimax over the core.

The reference plays every legal action with `game.step` and scores finished rounds with
`game.outcome`, the seat's side maximising its net points and every other seat minimising
them; the solver must find the same value from the same hands and boneyard order.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino import game
from domino.bots import playout
from domino.bots.endgame import Solver, mask_of, worth
from domino.duplicate import net_points
from domino.rules import DEFAULT, PRESETS, Rules

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SMALL = 6  # tiles in hands at most, so the plain minimax stays quick
RULES = st.sampled_from(
    [*PRESETS.values(), Rules(blocked="difference"), Rules(seats=3, boneyard=False, scoring="goat")]
)


def reference(state: game.State, seat: int) -> float:
    """The round's value for `seat`'s side by plain minimax over the core's rules."""
    if state.over:
        return net_points(state.rules, game.outcome(state), seat) * (len(state.rules.sides()) - 1)
    turn = state.turn
    values = [
        reference(game.step(state, turn, action)[0], seat)
        for action in game.legal_actions(state, turn)
    ]
    mine = state.rules.side(turn) == state.rules.side(seat)
    return max(values) if mine else min(values)


def small_position(rules, deal_seed: int, play_seed: int) -> game.State | None:
    """A round played at random until its hands hold at most SMALL tiles (None if it ended)."""
    state = game.start(game.deal(rules, random.Random(deal_seed)), rules)
    rng = random.Random(play_seed)
    while not state.over and (not state.line or sum(len(h) for h in state.hands) > SMALL):
        state, _ = game.step(state, state.turn, rng.choice(game.legal_actions(state, state.turn)))
    return None if state.over else state


def solved(state: game.State, seat: int, budget: int = 10**6):
    k = playout.kit(state.rules)
    hands = [mask_of(k.index[t] for t in hand) for hand in state.hands]
    # the core draws the boneyard's first tile, the fast round its last
    boneyard = [k.index[t] for t in reversed(state.boneyard)] if state.rules.boneyard else []
    left, right = state.ends
    return Solver(k, seat, budget).solve(hands, boneyard, left, right, state.turn)


@pytest.mark.slow  # a plain minimax over the core, 80 positions
@settings(max_examples=80, deadline=None)
@given(RULES, SEEDS, SEEDS, st.integers(0, 3))
def test_the_exact_search_finds_the_plain_minimax_value(rules, deal_seed, play_seed, seat):
    state = small_position(rules, deal_seed, play_seed)
    if state is None or state.passes:
        return  # the solver starts a turn with no passes behind it, as after a play
    seat %= rules.seats
    assert solved(state, seat) == reference(state, seat)


@settings(max_examples=60, deadline=None)
@given(RULES, SEEDS, SEEDS)
def test_worth_is_the_fast_rounds_value(rules, seed, out_seed):
    k = playout.kit(rules)
    rng = random.Random(seed)
    tiles = list(range(len(k.tiles)))
    rng.shuffle(tiles)
    hands = [tiles[i * 3 : i * 3 + rng.randint(0, 3)] for i in range(rules.seats)]
    out = random.Random(out_seed).choice([None, *range(rules.seats)])
    if out is not None:
        hands[out] = []
    weights = [sum(k.pips[t] for t in hand) for hand in hands]
    for seat in range(rules.seats):
        assert worth(k, weights, out, seat) == playout.value(k, hands, out, seat)


def test_a_search_past_its_budget_gives_up():
    for seed in range(50):
        state = small_position(PRESETS["pairs"], seed, seed)
        if state is not None and not state.passes and solved(state, 0) != solved(state, 0, 1):
            assert solved(state, 0, 1) is None
            return
    raise AssertionError("no position needed more than one node")


def test_the_last_tile_out_wins_the_others_pips():
    rules = DEFAULT
    k = playout.kit(rules)
    six, five = k.index[rules.full_set()[-1]], k.index[rules.full_set()[-2]]
    # seat 0 holds the 6-6 against ends 6 and 6: it goes out, seat 1 keeps the 5-6
    hands = [mask_of([six]), mask_of([five])]
    assert Solver(k, 0, 100).solve(hands, [], 6, 6, 0) == k.pips[five]
    assert Solver(k, 1, 100).solve(hands, [], 6, 6, 0) == -k.pips[five]


def test_a_drawn_double_blank_stays_in_the_hand_that_drew_it():
    # seat 1 draws the last tile, the 0-0 (no pips), passes, and later goes out with it
    state = small_position(Rules(blocked="difference"), 113, 1)
    assert str(state.boneyard[-1]) == "0-0" and state.turn == 1  # the core draws from the front
    assert solved(state, 0) == reference(state, 0) == -12
