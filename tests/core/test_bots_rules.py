"""Every bot under every rule set: legal, blind to hidden tiles, and sound deductions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino import bots, game
from domino.bots import search, worlds
from domino.bots.knowledge import deduce
from domino.bots.playout import kit
from domino.events import DRAW, PASS, Play
from domino.rules import PRESETS
from domino.simulate import play_round
from domino.views import seat_view
from tests.support.scenario import play, position, reshuffled, round_of
from tests.support.strategies import RULES

LEVELS = ("random", "greedy", "easy", "medium", "hard")
SEEDS = st.integers(0, 2**32 - 1)
BLOCK = PRESETS["block"]


@pytest.fixture(autouse=True)
def quick_hard(monkeypatch):
    """Fewer playouts: what is checked here does not depend on how many."""
    monkeypatch.setattr(search, "PLAYOUTS", 60)
    monkeypatch.setattr(search, "BLOCK_PLAYOUTS", 60)
    monkeypatch.setattr(search, "WIDE_PLAYOUTS", 60)
    monkeypatch.setattr(search, "MIN_WORLDS", 3)


@settings(max_examples=40, deadline=None)
@given(RULES, SEEDS, st.integers(0, 60), SEEDS)
def test_every_level_plays_legally_under_any_rules(rules, deal, moves, seed):
    state = position(deal, moves, rules)
    if state.over:
        return
    view = seat_view(state, state.turn)
    for level in LEVELS:
        choice = bots.get(level)(view, random.Random(seed))
        assert choice in view.legal, (level, rules)
        assert bots.get(level)(view, random.Random(seed)) == choice
        if not rules.boneyard:
            assert choice is not DRAW


@pytest.mark.parametrize("name", ["block", "goat", "international", "pairs", "three"])
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_rounds_of_every_preset(name, level):
    rules = PRESETS[name]
    for number in range(2):
        started = game.deal(rules, random.Random(number))
        players = [bots.get(level)] * rules.seats
        rngs = [random.Random(seat) for seat in range(rules.seats)]
        leader = number if rules.next_opener == "previous-winner" else None
        state = play_round(started, players, rngs, rules, leader=leader)
        assert game.outcome(state) is not None
        if not rules.boneyard:
            assert not any(m.action == "draw" for m in state.history)


@settings(max_examples=25, deadline=None)
@given(RULES, SEEDS, st.integers(0, 40), SEEDS)
def test_a_decision_never_depends_on_hidden_tiles_under_any_rules(rules, deal, moves, other):
    state = position(deal, moves, rules)
    if state.over:
        return
    seat = state.turn
    world = reshuffled(state, seat, random.Random(other))
    view = seat_view(state, seat)
    assert seat_view(world, seat) == view
    for level in LEVELS:
        bot = bots.get(level)
        assert bot(view, random.Random(7)) == bot(seat_view(world, seat), random.Random(7))


@settings(max_examples=40, deadline=None)
@given(RULES, SEEDS, st.integers(0, 60))
def test_the_unseen_tiles_are_the_other_hands_and_the_boneyard(rules, deal, moves):
    state = position(deal, moves, rules)
    if state.over:
        return
    seat = state.turn
    know = deduce(seat_view(state, seat))
    hidden = {t for s, hand in enumerate(state.hands) if s != seat for t in hand}
    assert set(know.unseen) == hidden | set(state.boneyard)  # sleeping tiles too
    assert [o.seat for o in know.others] == [
        (seat + i) % rules.seats for i in range(1, rules.seats)
    ]
    for other in know.others:
        assert other.count == len(state.hands[other.seat])
        # what is deduced holds in the real world
        assert not any(t.has(n) for t in state.hands[other.seat] for n in other.voids)


@settings(max_examples=25, deadline=None)
@given(RULES, SEEDS, st.integers(0, 60), SEEDS)
def test_hard_samples_worlds_that_fit_everything_public(rules, deal, moves, seed):
    state = position(deal, moves, rules)
    if state.over:
        return
    know = deduce(seat_view(state, state.turn))
    k, rng = kit(rules), random.Random(seed)
    unseen = [k.index[t] for t in know.unseen]
    # a player model weighs the tiles (some not at all): the worlds fit all the same
    weights = [{t: rng.choice((0.0, 0.1, 1.0)) for t in unseen} for _ in know.others]
    for hands, boneyard in (
        worlds.sample(k, know, rng),
        worlds.Sampler(k, know, unseen, weights=weights)(rng),
    ):
        dealt = [k.tiles[t] for hand in hands for t in hand] + [k.tiles[t] for t in boneyard]
        assert sorted(dealt) == sorted(know.unseen)
        assert len(boneyard) == know.boneyard_count
        for other, hand in zip(know.others, hands, strict=True):
            assert len(hand) == other.count
            assert not any(k.tiles[t].has(n) for t in hand for n in other.voids)
            assert worlds.fits_old_voids(k, hand, other.old_voids)


# -- the block game: a pass proves a void ---------------------------------------------

# Block game, lowest double opens: seat 0 holds 1-1; seat 1 holds no 1 at all.
HANDS = ("1-1 1-2 2-2 2-3 3-3 0-0 0-1", "4-4 4-5 5-5 5-6 6-6 4-6 0-4")


def test_in_the_block_game_a_pass_proves_a_void_that_lasts():
    state = round_of(*HANDS, rules=BLOCK)
    assert state.turn == 0
    state = play(state, "0: 1-1 left")
    assert game.legal_actions(state, 1) == (PASS,)
    state = play(state, "1: pass", "0: 1-2 right")
    know = deduce(seat_view(state, 0))
    assert know.next.voids == {1}
    assert know.next.old_voids == {}
    assert len(know.unseen) == 28 - 5 - 2  # seat 1's seven and the fourteen sleeping tiles
    assert know.boneyard_count == 14
    state = play(state, "1: pass", "0: 2-2 right")
    assert deduce(seat_view(state, 0)).next.voids == {1, 2}


def test_hard_never_gives_a_voided_number_to_the_other_hand_in_the_block_game():
    state = play(round_of(*HANDS, rules=BLOCK), "0: 1-1 left", "1: pass", "0: 1-2 right")
    state = play(state, "1: pass")
    know = deduce(seat_view(state, 0))
    k = kit(BLOCK)
    rng = random.Random(5)
    for _ in range(50):
        (hand,), sleeping = worlds.sample(k, know, rng)
        assert not any(k.tiles[t].has(1) or k.tiles[t].has(2) for t in hand)
        assert len(sleeping) == 14


def test_a_blocked_seat_in_the_block_game_passes_and_every_level_says_so():
    state = play(round_of(*HANDS, rules=BLOCK), "0: 1-1 left")
    view = seat_view(state, 1)
    for level in LEVELS:
        assert bots.get(level)(view, random.Random(0)) is PASS


def test_a_free_lead_is_any_tile_and_every_level_takes_one():
    state = round_of(*HANDS, rules=BLOCK)
    view = seat_view(state, 0)
    assert view.opening is None and not view.line
    assert {a.tile for a in view.legal} == set(state.hands[0])
    for level in LEVELS:
        choice = bots.get(level)(view, random.Random(1))
        assert isinstance(choice, Play) and choice in view.legal
