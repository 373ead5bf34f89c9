"""The player model `hard` weighs its worlds by: the other seats tend to lay heavy tiles first."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from domino import bots, game, simulate
from domino.bots import search, worlds
from domino.bots.knowledge import Knowledge, Other, deduce
from domino.bots.playout import kit
from domino.rules import DEFAULT, PRESETS, Rules
from domino.tiles import Tile, tiles
from domino.views import seat_view
from tests.support.scenario import choice_views, play, round_of

K = kit(DEFAULT)


@pytest.fixture(autouse=True)
def model(monkeypatch):
    monkeypatch.setattr(search, "HEAVIER_KEPT", 0.1)
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


def test_the_knowledge_counts_choices_shown_to_keep_a_heavier_tile():
    # Seat 0 holds 5-6 and 4-6 when the ends are 3 and 6, and lays the lighter 4-6.
    state = round_of("6-6 5-6 4-6 0-0 1-1 2-2 0-1", "3-6 3-3 3-4 3-5 4-4 4-5 5-5", boneyard="2-3")
    state = play(state, "0: 6-6 left", "1: 3-6 left", "0: 4-6 right", "1: 4-5 right")
    assert deduce(seat_view(state, 1)).next.kept_heavier == 0  # nothing shown yet
    shown = play(state, "0: 5-6 right")  # no draw between: 5-6 was held, and it fitted the 6
    assert deduce(seat_view(shown, 1)).next.kept_heavier == 1
    # The same choice, but seat 0 draws before it lays 5-6: it may have drawn it since.
    state = round_of("6-6 5-6 4-6 0-0 1-1 2-2 0-1", "3-6 3-3 3-4 3-5 4-4 4-5 5-5", boneyard="2-3")
    state = play(state, "0: 6-6 left", "1: 3-6 left", "0: 4-6 right", "1: 3-3 left")
    state = play(state, "0: draw", "0: 2-3 left", "1: 4-5 right", "0: 5-6 right")
    assert deduce(seat_view(state, 1)).next.kept_heavier == 0


def test_a_seat_that_always_lays_its_heaviest_tile_is_never_shown_keeping_one():
    greedy, rules = bots.get("greedy"), PRESETS["classic"]
    shown = []

    def watching(view, rng):
        shown.append(deduce(view).next.kept_heavier)
        return greedy(view, rng)

    for number in range(40):
        started = game.deal(rules, random.Random(number))
        simulate.play_round(started, [watching, greedy], simulate.round_rngs(1, number, 2), rules)
    assert len(shown) > 300 and not any(shown)


def test_a_heavier_tile_that_fitted_makes_a_world_less_likely():
    choices = [search.seen_choices(K, other("1-3@3,6", (0,)), True)]
    fitted = [K.index[t] for t in tiles("4-6 0-0 1-1 2-2")]  # 4-6 fitted the 6, and is heavier
    lighter = [K.index[t] for t in tiles("0-3 4-5 1-1 2-2")]  # 0-3 fitted, 4-5 did not
    assert search.likelihood(K, [fitted], choices) == pytest.approx(0.1)
    assert search.likelihood(K, [lighter], choices) == 1.0


def test_a_hands_likelihood_is_the_product_of_its_tiles_weights():
    seat = other("1-3@3,6 0-3@0,3", (0, 1), count=5)
    chosen = search.seen_choices(K, seat, True)
    odds = (frozenset(K.index[t] for t in tiles("5-5 6-6")), 0.25)
    weights = search.tile_weights(K, chosen, odds)
    rng = random.Random(4)
    for _ in range(200):
        hand = rng.sample(range(len(K.tiles)), 5)
        product = 1.0
        for t in hand:
            product *= weights.get(t, 1.0)
        assert search.likelihood(K, [hand], [chosen], [odds]) == pytest.approx(product)


def test_the_sampler_deals_a_hand_in_proportion_to_its_weight():
    unseen = tiles("0-0 0-1 0-2 1-1 1-2 2-2 0-3")
    know = Knowledge(unseen, 4, (Other(1, 3, frozenset(), {}),))
    pool = [K.index[t] for t in unseen]
    weights = {K.index[Tile.parse("0-0")]: 0.1, K.index[Tile.parse("1-2")]: 0.5}
    draw, rng = worlds.Sampler(K, know, pool, weights=[weights]), random.Random(2)
    deals = 20_000
    seen: dict[tuple[int, ...], int] = {}
    for _ in range(deals):
        (hand,), boneyard = draw(rng)
        assert sorted(hand + boneyard) == sorted(pool) and len(boneyard) == 4
        seen[tuple(sorted(hand))] = seen.get(tuple(sorted(hand)), 0) + 1
    hands = list(itertools.combinations(sorted(pool), 3))
    weight = {hand: math.prod(weights.get(t, 1.0) for t in hand) for hand in hands}
    whole = sum(weight.values())
    # 35 hands, each within a point of its share (dealt uniformly, one holding the 0-0 would
    # take 2.9% of the deals instead of 0.6%)
    for hand in hands:
        assert abs(seen.get(hand, 0) / deals - weight[hand] / whole) < 0.01, hand


def test_tiles_drawn_since_a_choice_may_not_have_been_held_then():
    assert factors(other("1-3@3,6", (0,))) == [pytest.approx(0.1)]
    # two of the four tiles held now may be new since: half the hand is judged by the model
    assert factors(other("1-3@3,6", (2,))) == [pytest.approx(1 - 0.5 * 0.9)]
    assert factors(other("1-3@3,6", (5,))) == [1.0]


def test_with_more_than_two_seats_the_model_is_hard_befores():
    assert factors(other("1-3@3,6 3-6@3,4", (1, 0))) == pytest.approx([1 - 0.75 * 0.9, 0.1])
    assert factors(other("1-3@3,6 3-6@3,4", (1, 0)), two=False) == [0.3, 0.3]


# -- the tiles no hand was dealt ---------------------------------------------------------------

# Seat 0 opens with 4-4, the highest double dealt: 5-5 and 6-6 lie in the boneyard. Seat 1
# cannot follow, draws 5-5 and then 3-4, which it lays.
NO_HIGH_DOUBLES = ("4-4 0-1 0-2 0-3 0-4 0-5 0-6", "1-2 1-3 1-5 1-6 2-3 2-5 2-6")


def test_no_tile_that_outranks_the_opening_one_was_dealt():
    state = play(round_of(*NO_HIGH_DOUBLES, boneyard="5-5 3-4"), "0: 4-4 left")
    know = deduce(seat_view(state, 1))
    assert know.undealt == set(tiles("5-5 6-6")) and know.next.drawn == 0
    state = play(state, "1: draw", "1: draw", "1: 3-4 left")
    know = deduce(seat_view(state, 0))
    assert know.undealt == set(tiles("5-5 6-6"))  # 5-5 is in seat 1's hand, unseen by seat 0
    assert know.next.drawn == 2 and know.next.count == 8
    assert search.undealt_odds(K, know, know.next) == (
        frozenset(K.index[t] for t in tiles("5-5 6-6")),
        0.25,
    )


def test_with_a_free_lead_or_the_winner_leading_nothing_is_known_undealt():
    for rules in (Rules(lead="any"), PRESETS["international"]):
        state = round_of(*NO_HIGH_DOUBLES, boneyard="5-5 3-4", rules=rules)
        assert rules.lead == "any" or rules.next_opener == "previous-winner"
        state = play(state, "0: 4-4 left")
        assert deduce(seat_view(state, 1)).undealt == frozenset()


def test_a_seat_that_has_drawn_nothing_is_dealt_no_undealt_tile():
    state = play(round_of(*NO_HIGH_DOUBLES, boneyard="5-5 3-4"), "0: 4-4 left")
    know = deduce(seat_view(state, 0))
    unseen = [K.index[t] for t in know.unseen]
    high = {K.index[t] for t in tiles("5-5 6-6")}
    rng = random.Random(3)
    knowing = worlds.Sampler(K, know, unseen, undealt=True)
    blind = worlds.Sampler(K, know, unseen)
    held = [bool(high & set(knowing(rng)[0][0])) for _ in range(200)]
    assert not any(held)
    assert any(bool(high & set(blind(rng)[0][0])) for _ in range(200))
    hands, boneyard = knowing(rng)
    assert sorted(hands[0] + boneyard) == sorted(unseen) and len(hands[0]) == 7


@pytest.mark.parametrize("preset", ["classic", "block"])
def test_with_candidate_worlds_and_judged_playouts_hard_still_chooses_a_legal_play(
    monkeypatch, preset
):
    monkeypatch.setattr(search, "EXACT_WORLDS", False)  # both on in the draw game as landed
    monkeypatch.setattr(search, "HEAVY_OTHERS", False)  # (docs/benchmarks.md)
    for view in choice_views(PRESETS[preset], random.Random(3), 6, distinct=True):
        play = search.hard_bot(view, random.Random(1))
        assert play in view.legal
        assert play == search.hard_bot(view, random.Random(1))  # a seed repeats a choice
