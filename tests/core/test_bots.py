"""The computer levels: legal, reproducible, and blind to what their seat cannot see."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino import bots, game
from domino.bots.knowledge import deduce
from domino.counter import voids as _voids
from domino.events import Play
from domino.views import seat_view
from tests.support.scenario import moves, play, position, reshuffled, round_of

LEVELS = ("random", "greedy", "easy", "medium", "hard")


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=12, deadline=None)
@given(deal=st.integers(0, 10**6), moves=st.integers(0, 30), other=st.integers(0, 10**6))
def test_a_decision_never_depends_on_hidden_tiles(level, deal, moves, other):
    state = position(deal, moves)
    if state.over:
        return
    seat = state.turn
    world = reshuffled(state, seat, random.Random(other))
    view = seat_view(state, seat)
    assert seat_view(world, seat) == view
    if world.hands != state.hands:
        assert world != state
    bot = bots.get(level)
    assert bot(view, random.Random(7)) == bot(seat_view(world, seat), random.Random(7))


@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=15, deadline=None)
@given(deal=st.integers(0, 10**6), moves=st.integers(0, 40))
def test_every_level_chooses_a_legal_action_reproducibly(level, deal, moves):
    state = position(deal, moves)
    if state.over:
        return
    view = seat_view(state, state.turn)
    bot = bots.get(level)
    choice = bot(view, random.Random(3))
    assert choice in view.legal
    assert bot(view, random.Random(3)) == choice


def test_a_forced_move_is_taken_without_thinking():
    state = position(11, 0)
    view = seat_view(state, state.turn)
    assert len({a.tile for a in view.legal}) == 1  # the opening tile
    for level in LEVELS:
        assert bots.get(level)(view, random.Random(0)).tile == state.opening


def test_unknown_and_missing_levels_are_refused_clearly():
    with pytest.raises(bots.UnknownBot, match="unknown bot 'expert'"):
        bots.get("expert")
    assert set(LEVELS) <= set(bots.NAMES)


# -- what the seat works out ---------------------------------------------------------------

# Seat 0 holds six of the seven sixes; the last one, 3-6, lies second in the boneyard.
SIXES = ("6-6 0-6 1-6 2-6 4-6 5-6 4-4", "0-0 0-1 0-2 0-3 0-4 0-5 1-1")


def test_nothing_is_certain_in_the_middle_of_a_run_of_draws():
    state = play(round_of(*SIXES, boneyard="1-2 3-6"), "0: 6-6 left", "1: draw")
    assert state.turn == 1
    assert deduce(seat_view(state, 0)).next.voids == frozenset()


def test_after_drawing_and_laying_the_tile_that_fits_the_hand_lacks_the_ends():
    # Seat 1 cannot follow 6-6, draws 1-2 (no good) then 3-6, which it must lay.
    state = play(round_of(*SIXES, boneyard="1-2 3-6"), "0: 6-6 left", "1: draw", "1: draw")
    assert game.legal_actions(state, 1) == (
        Play(game.Tile.parse("3-6"), "left"),
        Play(game.Tile.parse("3-6"), "right"),
    )
    state = play(state, "1: 3-6 left")
    know = deduce(seat_view(state, 0))
    assert know.next.voids == {6}
    assert know.next.old_voids == {}
    assert len(know.unseen) == 28 - 6 - 2
    assert know.next.free_plays == ()


def test_a_free_play_adds_no_void_but_is_remembered():
    state = play(round_of(*SIXES, boneyard="1-2 3-6"), "0: 6-6 left", "1: draw", "1: draw")
    state = play(state, "1: 3-6 left", "0: 5-6 right", "1: 0-3 left")
    know = deduce(seat_view(state, 0))
    assert know.next.voids == {6}
    assert [(str(t), left, right) for t, left, right in know.next.free_plays] == [("0-3", 3, 5)]


def test_earlier_voids_weaken_when_a_later_run_keeps_tiles():
    history = moves(
        "1 draw @6,6",
        "1 play 3-6 left @6,6",  # a run of one: lacks 6, kept nothing
        "1 draw @3,4",
        "1 draw @3,4",
        "1 draw @3,4",
        "1 play 4-5 right @3,4",  # kept two tiles from this run: they may show a 6
    )
    voids, old = _voids(history, 1)
    assert voids == {3, 4}
    assert old == {6: 2}
    voids, old = _voids([*history, *moves("1 pass @2,5")], 1)
    assert voids == {2, 3, 4, 5} and old == {6: 2}
    voids, old = _voids([*history, *moves("1 draw @6,1", "1 play 1-2 right @6,1")], 1)
    assert voids == {3, 4, 6, 1} and old == {}


def test_the_knowledge_holds_no_hidden_tile():
    state = position(5, 12)
    seat = state.turn
    know = deduce(seat_view(state, seat))
    other = know.next.seat
    assert know.others == (know.next,) and other != seat
    hidden = set(state.hands[other]) | set(state.boneyard)
    assert set(know.unseen) == hidden
    assert know.next.count == len(state.hands[other])
    assert know.boneyard_count == len(state.boneyard)
