"""`hard`'s fast round (domino/bots/playout.py) agrees with the core under random rules."""

from __future__ import annotations

import random
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino import game
from domino.bots import playout
from domino.events import DRAW, LEFT, PASS, Passed, Play, TileDrawn, TilePlayed
from domino.rules import PRESETS
from tests.support.strategies import RULES

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def fast_legal(k: playout.Kit, state: game.State) -> set:
    """The fast round's legal moves at `state`, written as the core's actions."""
    left, right = state.ends or (-1, -1)
    opening = k.index[state.opening] if state.opening is not None else -1
    hand = [k.index[t] for t in state.hands[state.turn]]
    moves = playout.legal_moves(k, hand, left, right, opening, len(state.boneyard))
    as_actions = {playout.DRAW: DRAW, playout.PASS: PASS}
    return {as_actions[m] if isinstance(m, str) else Play(k.tiles[m[0]], m[1]) for m in moves}


@settings(max_examples=60, deadline=None)
@given(RULES, SEEDS, SEEDS)
def test_the_same_moves_are_legal_at_every_step(rules, deal_seed, play_seed):
    k = playout.kit(rules)
    state = game.start(game.deal(rules, random.Random(deal_seed)), rules)
    rng = random.Random(play_seed)
    while not state.over:
        legal = game.legal_actions(state, state.turn)
        assert fast_legal(k, state) == set(legal)
        state, _ = game.step(state, state.turn, rng.choice(legal))


def core_event(k: playout.Kit, seat: int, move):
    """A traced move of the fast round as the core's event."""
    if move == playout.PASS:
        return Passed(seat)
    if move[0] == playout.DRAW:
        return TileDrawn(seat, k.tiles[move[1]])
    return TilePlayed(seat, k.tiles[move[0]], move[1])


def check_playout(k: playout.Kit, state: game.State, policy=playout.playout) -> None:
    """Play `state` out with the fast round (`policy`: `playout.playout` or
    `playout.judged`); replay its moves through the core and compare. A seat `policy` calls
    heavy (`judged`'s `heavy`) lays its heaviest tile that fits."""
    heavy = getattr(policy, "keywords", {}).get("heavy", 0)
    hands = [[k.index[t] for t in hand] for hand in state.hands]
    boneyard = [k.index[t] for t in reversed(state.boneyard)]  # the fast round draws from the end
    traced = []
    left, right = state.ends
    out = policy(
        k, hands, boneyard, left, right, state.turn, state.passes, lambda *m: traced.append(m)
    )
    for seat, move in traced:
        assert seat == state.turn
        event = core_event(k, seat, move)
        action = {TileDrawn: DRAW, Passed: PASS}.get(type(event)) or Play(event.tile, event.end)
        legal = game.legal_actions(state, seat)
        assert action in legal
        if heavy >> seat & 1 and isinstance(action, Play):
            assert action.tile.pips == max(play.tile.pips for play in legal)
            assert action.end == LEFT or Play(action.tile, LEFT) not in legal
        state = game.apply(state, event)
    assert state.over
    assert [[k.tiles[t] for t in hand] for hand in hands] == [list(hand) for hand in state.hands]
    result = game.outcome(state)
    assert playout.scores(k, hands, out) == list(result.scores)
    assert out == (result.winner if result.reason == "domino" else None)


POLICIES = {
    "playout": playout.playout,
    "judged": playout.judged,
    "judged, seats 0 and 2 heavy first": partial(playout.judged, heavy=0b101),
}


@pytest.mark.parametrize("policy", POLICIES.values(), ids=POLICIES.keys())
@settings(max_examples=60, deadline=None)
@given(rules=RULES, deal=SEEDS, play=SEEDS)
def test_a_playout_from_any_position_is_a_legal_round_with_the_cores_scores(
    policy, rules, deal, play
):
    k = playout.kit(rules)
    state = game.start(game.deal(rules, random.Random(deal)), rules)
    rng = random.Random(play)
    while not state.over:
        if state.line:
            check_playout(k, state, policy)
        state, _ = game.step(state, state.turn, rng.choice(game.legal_actions(state, state.turn)))


@settings(max_examples=60, deadline=None)
@given(RULES, SEEDS)
def test_the_scores_of_finished_rounds_are_the_cores(rules, seed):
    k = playout.kit(rules)
    rng = random.Random(seed)
    for _ in range(6):
        state = game.start(game.deal(rules, rng), rules)
        while not state.over:
            state, _ = game.step(
                state, state.turn, rng.choice(game.legal_actions(state, state.turn))
            )
        hands = [[k.index[t] for t in hand] for hand in state.hands]
        out = next((seat for seat, hand in enumerate(hands) if not hand), None)
        written = playout.scores(k, hands, out)
        assert written == list(game.outcome(state).scores)
        for seat in range(rules.seats):
            assert playout.value(k, hands, out, seat) == playout.net(k, written, seat)


def test_net_is_points_for_winner_scoring_and_penalties_against_under_goat():
    for name, sign in (("classic", 1), ("goat", -1)):
        k = playout.kit(PRESETS[name])
        assert playout.net(k, [10, 0], 0) == 10 * sign
        assert playout.net(k, [10, 0], 1) == -10 * sign
    three = playout.kit(PRESETS["three"])
    assert playout.net(three, [12, 0, 0], 0) == 24  # 12 against a mean of 0, times 2
    assert playout.net(three, [12, 0, 0], 1) == -12  # 0 against a mean of 6, times 2
    pairs = playout.kit(PRESETS["pairs"])
    assert playout.net(pairs, [9, 0, 9, 0], 2) == 9


def test_the_block_policy_lays_a_fitting_tile_even_when_it_likes_none():
    k = playout.kit(PRESETS["block"])
    index = {str(tile): i for i, tile in enumerate(k.tiles)}
    # 1-2 fits both ends (2, 1), keeps nothing to follow and shuts nobody out
    hands = [[index["1-2"], index["4-4"]], [index["2-5"], index["1-6"]]]
    traced = []
    playout.playout(k, hands, [], 2, 1, 0, trace=lambda *m: traced.append(m))
    assert traced[0] == (0, (index["1-2"], "left"))
