"""The player model `hard` weighs its worlds by: the other seats tend to lay heavy tiles first."""

from __future__ import annotations

import pytest

from domino.bots import search
from domino.bots.knowledge import Other, deduce
from domino.bots.playout import kit
from domino.rules import DEFAULT
from domino.tiles import Tile, tiles
from domino.views import seat_view
from tests.support.scenario import play, round_of

K = kit(DEFAULT)


@pytest.fixture(autouse=True)
def model(monkeypatch):
    monkeypatch.setattr(search, "HEAVIER_KEPT", 0.1)
    monkeypatch.setattr(search, "KEPT_SHOWN", 0.5)
    monkeypatch.setattr(search, "WIDE_KEPT", 0.3)


def other(plays: str, drawn: tuple[int, ...], count: int = 4) -> Other:
    """Another seat that laid `plays` ("1-3@3,6 ...": tile and the ends then) by choice and
    drew `drawn[i]` tiles after the i-th."""
    free = []
    for written in plays.split():
        tile, ends = written.split("@")
        left, right = map(int, ends.split(","))
        free.append((Tile.parse(tile), left, right))
    return Other(1, count, frozenset(), {}, tuple(free), drawn)


def factors(seat: Other, two: bool = True) -> list[float]:
    return [factor for _tile, _ends, factor in search.seen_choices(K, seat, two)]


def test_the_knowledge_counts_the_tiles_drawn_since_each_choice():
    # Seat 0 lays 5-6 by choice on ends 3 and 6, then has to draw before it lays again.
    state = round_of("6-6 5-6 4-6 0-0 1-1 2-2 0-1", "3-6 3-3 3-4 3-5 4-4 4-5 5-5", boneyard="2-3")
    state = play(state, "0: 6-6 left", "1: 3-6 left", "0: 5-6 right", "1: 5-5 right")
    seen = deduce(seat_view(state, 1)).next
    assert seen.free_plays == ((Tile.parse("5-6"), 3, 6),) and seen.drawn_after == (0,)
    state = play(state, "0: draw", "0: 2-3 left")  # laid right after drawing: not a choice
    seen = deduce(seat_view(state, 1)).next
    assert seen.free_plays == ((Tile.parse("5-6"), 3, 6),) and seen.drawn_after == (1,)


def test_a_heavier_tile_that_fitted_makes_a_world_less_likely():
    choices = [search.seen_choices(K, other("1-3@3,6", (0,)), True)]
    fitted = [K.index[t] for t in tiles("4-6 0-0 1-1 2-2")]  # 4-6 fitted the 6, and is heavier
    lighter = [K.index[t] for t in tiles("0-3 4-5 1-1 2-2")]  # 0-3 fitted, 4-5 did not
    assert search.likelihood(K, [fitted], choices) == pytest.approx(0.1)
    assert search.likelihood(K, [lighter], choices) == 1.0


def test_tiles_drawn_since_a_choice_may_not_have_been_held_then():
    assert factors(other("1-3@3,6", (0,))) == [pytest.approx(0.1)]
    # two of the four tiles held now may be new since: half the hand is judged by the model
    assert factors(other("1-3@3,6", (2,))) == [pytest.approx(1 - 0.5 * 0.9)]
    assert factors(other("1-3@3,6", (5,))) == [1.0]


def test_a_seat_that_has_shown_it_keeps_heavy_tiles_is_judged_more_loosely():
    # 3-6 fitted the 6 when 1-3 was laid, and came out later without a draw between
    assert factors(other("1-3@3,6 3-6@3,4", (0, 0))) == [pytest.approx(0.5)] * 2
    # with a draw between, 3-6 may be new: nothing shown
    assert factors(other("1-3@3,6 3-6@3,4", (1, 0))) == pytest.approx([1 - 0.75 * 0.9, 0.1])
    # a later lighter tile, or one that did not fit then, shows nothing either
    assert factors(other("3-6@3,6 1-3@3,4", (0, 0))) == [pytest.approx(0.1)] * 2
    assert factors(other("1-3@3,6 4-5@3,4", (0, 0))) == [pytest.approx(0.1)] * 2


def test_with_more_than_two_seats_the_model_is_hard_befores():
    assert factors(other("1-3@3,6 3-6@3,4", (1, 0)), two=False) == [0.3, 0.3]
