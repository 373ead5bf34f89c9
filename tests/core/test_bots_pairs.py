"""The computer at tables of three and four: partners, opponents, and worlds for every seat."""

from __future__ import annotations

import random

import pytest

from domino import bots, game
from domino.bots import heuristic, search, worlds
from domino.bots.knowledge import _strengths, deduce
from domino.bots.playout import kit, value
from domino.events import Play
from domino.rules import DEFAULT, PRESETS, Rules
from domino.tiles import Tile
from domino.views import seat_view
from tests.support.scenario import moves, play, round_of

PAIRS, THREE = PRESETS["pairs"], PRESETS["three"]
BLIND = {**heuristic.MEDIUM, "partner": 0.0}  # medium without its partner in mind


def at(tile: str, end: str) -> Play:
    """The play of `tile` at `end`."""
    return Play(Tile.parse(tile), end)


def played(rules, hands: tuple[str, ...], script: str, boneyard: str = ""):
    """A round after `script`, moves written '2:6-6r 3:- 2:+' (r/l: the end; -: pass; +: draw)."""
    state = round_of(*hands, boneyard=boneyard, rules=rules)
    words = {"-": "pass", "+": "draw"}
    for move in script.split():
        seat, what = move.split(":")
        text = words.get(what) or f"{what[:-1]} {'left' if what[-1] == 'l' else 'right'}"
        state = play(state, f"{seat}: {text}")
    return state


# Pairs. Seat 2 opens 6-6; seat 3 (seat 1's partner) cannot follow and passes: it lacks 6.
VOID = (
    "1-4 0-3 5-6 2-5 1-3 4-5 1-2",
    "1-6 3-5 3-3 4-6 2-2 3-6 2-6",
    "0-1 0-6 0-0 5-5 0-2 6-6 2-4",
    "4-4 1-1 0-5 3-4 1-5 2-3 0-4",
)
VOID_MOVES = "2:6-6l 3:- 0:5-6r"
# Three seats: seat 2 draws at 5-5 and lays the 1-5 it drew: it lacks 5.
SHUT = ("1-1 2-5 4-6 5-6 0-0 2-3 4-5", "0-5 2-6 3-3 5-5 1-4 3-4 2-2", "0-4 0-2 2-4 0-6 0-3 1-2 1-3")


def test_knowledge_tells_the_partner_from_the_opponents():
    state = played(PAIRS, VOID, VOID_MOVES)
    know = deduce(seat_view(state, 1))
    assert [(o.seat, o.turns, o.partner) for o in know.others] == [
        (2, 1, False),
        (3, 2, True),
        (0, 3, False),
    ]
    assert know.next.seat == 2 and know.partner.seat == 3
    assert [o.seat for o in know.opponents] == [2, 0]
    assert know.of(3).voids == {6} and know.of(0).voids == frozenset()
    opposite = deduce(seat_view(play(state, "1: 3-6 left"), 2))
    assert opposite.partner.seat == 0 and [o.seat for o in opposite.opponents] == [3, 1]
    assert opposite.of(3).voids == {6}


def test_at_three_seats_every_other_seat_is_an_opponent_and_two_seats_have_one():
    state = round_of(*SHUT, rules=THREE)
    know = deduce(seat_view(state, state.turn))
    assert know.partner is None and know.opponents == know.others and len(know.others) == 2
    two = deduce(seat_view(round_of(*SHUT[:2], rules=DEFAULT), 1))
    assert two.partner is None and two.opponents == (two.next,) and two.next.seat == 0


def test_medium_does_not_leave_its_partner_a_number_the_partner_lacks():
    view = seat_view(played(PAIRS, VOID, VOID_MOVES), 1)
    assert view.ends == (6, 5)
    assert bots.get("medium")(view, random.Random(0)) == at("3-6", "left")  # ends 3 and 5
    # without its partner in mind it would leave the 6 open (ends 6 and 3)
    assert heuristic.best_play(view, BLIND, random.Random(0)) == at("3-5", "right")


def test_medium_lays_to_the_number_its_partner_left_open_by_choice():
    hands = (
        "1-3 0-5 4-4 1-2 1-1 5-6 2-3",
        "3-4 6-6 4-6 2-2 5-5 2-4 3-6",
        "0-0 0-6 2-5 4-5 3-3 1-5 0-3",
        "2-6 0-2 0-1 3-5 1-6 0-4 1-4",
    )
    view = seat_view(played(PAIRS, hands, "1:6-6r 2:0-6l 3:2-6r"), 0)
    assert view.ends == (0, 2) and deduce(view).partner.strengths == {0: 1}
    assert bots.get("medium")(view, random.Random(0)) == at("1-2", "right")  # keeps the 0
    assert heuristic.best_play(view, BLIND, random.Random(0)) == at("0-5", "left")


def test_at_three_seats_medium_also_shuts_out_the_seat_after_next(monkeypatch):
    state = played(THREE, SHUT, "1:5-5r 2:+ 2:1-5l", boneyard="1-5 6-6 3-6 0-1 3-5 4-4 1-6")
    view = seat_view(state, 0)
    know = deduce(view)
    assert view.ends == (1, 5) and know.next.voids == frozenset() and know.of(2).voids == {5}
    assert bots.get("medium")(view, random.Random(0)) == at("1-1", "left")  # the 5 stays open
    monkeypatch.setattr(heuristic, "FAR", 0.0)  # the next seat's voids only
    assert bots.get("medium")(view, random.Random(0)) == at("5-6", "right")


def test_partner_scores_count_strengths_for_and_voids_against():
    state = played(PAIRS, VOID, VOID_MOVES)
    know = deduce(seat_view(state, 0))  # seat 0: opponents 1 and 3 (3 lacks 6), partner 2
    assert heuristic.shut_out(know, {6, 5}) == heuristic.FAR  # seat 3 plays three turns on
    assert heuristic.shut_out(know, {1, 5}) == 0
    partner = deduce(seat_view(state, 1)).partner  # seat 1's partner 3 lacks 6
    assert heuristic.keeps_in(partner, {6, 5}) < heuristic.keeps_in(partner, {3, 5}) == 0


def test_strengths_are_numbers_left_open_by_choice_and_still_held():
    history = moves(
        "1 play 2-6 right @6,6",  # by choice: leaves 2
        "1 draw @2,4",
        "1 play 4-5 right @2,4",  # forced after drawing: says nothing
        "1 play 3-5 right @2,5",  # by choice: leaves 3
        "1 play 3-3 right @2,3",  # by choice: leaves 3 again
    )
    assert _strengths(history, 1, frozenset()) == {2: 1, 3: 2}
    assert _strengths(history, 1, frozenset({3})) == {2: 1}  # it has since shown it lacks 3
    assert _strengths(history, 0, frozenset()) == {}


# -- hard: worlds that fit every seat, and the side's score ---------------------------------


def positions(rules, rounds: int):
    """Every decision of `rounds` rounds played by `medium`, whose passes and draws leave
    plenty of voids."""
    for number in range(rounds):
        state = game.start(game.deal(rules, random.Random(number)), rules)
        rng = random.Random(number)
        while not state.over:
            view = seat_view(state, state.turn)
            yield state, view
            state, _ = game.step(state, state.turn, bots.get("medium")(view, rng))


def check_world(k, know, hands, boneyard) -> None:
    """The world deals out exactly the unseen tiles and fits what every seat has shown."""
    dealt = sorted(t for hand in hands for t in hand) + sorted(boneyard)
    assert sorted(dealt) == sorted(k.index[t] for t in know.unseen)
    assert len(boneyard) == know.boneyard_count
    for other, hand in zip(know.others, hands, strict=True):
        assert len(hand) == other.count
        assert not any(k.tiles[t].has(n) for t in hand for n in other.voids), other
        assert worlds.fits_old_voids(k, hand, other.old_voids), other


SLEEPING = Rules(seats=3, hand_size=6, boneyard=False)  # ten tiles sleep, never drawn


@pytest.mark.parametrize("rules", [PAIRS, THREE, SLEEPING], ids=["pairs", "three", "sleeping"])
def test_every_sampled_world_fits_every_seat(rules):
    k, rng = kit(rules), random.Random(1)
    voids = 0
    for _, view in positions(rules, 25):
        know = deduce(view)
        voids += sum(len(o.voids) for o in know.others[1:])
        check_world(k, know, *worlds.sample(k, know, rng))
        unseen = [k.index[t] for t in know.unseen]
        check_world(k, know, *worlds.dealt(k, know, rng, unseen))
    assert voids > 100  # the seats after the next had voids to respect


# Seat 0 to play with 1-1 and 1-6 at ends 2 and 1. What each seat lacks fixes every hand:
# seat 1 holds 3-6, seat 2 (the partner) 0-2, seat 3 0-3. 1-1 lets the partner go out
# (seat 1 cannot follow); 1-6 lets seat 1 go out, which leaves seat 0 fewer pips against it.
ENDGAME_HANDS = (
    "2-3 1-1 0-0 0-6 2-5 2-6 1-6",
    "5-5 2-4 3-6 5-6 4-5 1-5 4-6",
    "1-4 0-2 4-4 1-2 0-5 6-6 0-1",
    "3-5 3-4 0-3 3-3 0-4 1-3 2-2",
)
ENDGAME = (
    "2:6-6r 3:- 0:2-6r 1:5-6l 2:0-5l 3:2-2r 0:0-6l 1:4-6l 2:4-4l 3:3-4l 0:2-3l 1:2-4l "
    "2:1-4l 3:1-3l 0:2-5r 1:5-5r 2:- 3:3-3l 0:- 1:4-5r 2:- 3:3-5l 0:- 1:1-5l 2:1-2l "
    "3:0-4r 0:0-0r 1:- 2:0-1r 3:-"
)


# The last seat in turn order lacks a number: dealt in turn order, the hands before it
# would mostly have left it a tile of that number (13 and 19 worlds in 20 did, before).
LAST_LACKS = {
    "pairs": (
        PAIRS,
        (
            "1-2 0-2 4-4 1-1 3-3 2-3 5-5",
            "1-3 0-0 1-6 6-6 1-5 0-3 4-6",
            "1-4 0-5 2-5 3-5 2-4 0-4 0-1",
            "2-6 3-4 2-2 5-6 3-6 0-6 4-5",
        ),
        "1:6-6r 2:-",  # seat 3 to play; seat 2 lacks 6
        "",
    ),
    "three": (
        THREE,
        (
            "4-5 3-4 2-3 1-5 2-5 2-4 1-3",
            "0-4 1-6 6-6 0-6 4-4 3-6 0-2",
            "3-5 5-5 0-0 1-1 1-2 3-3 0-5",
        ),
        "1:6-6r 2:+ 2:+ 2:+ 2:+ 2:+ 2:5-6r",  # seat 0 to play; seat 2 lacks 6
        "0-3 2-2 0-1 1-4 5-6 2-6 4-6",
    ),
}


@pytest.mark.parametrize("name", LAST_LACKS)
def test_the_last_seat_in_turn_order_gets_no_number_it_lacks(name):
    rules, hands, script, boneyard = LAST_LACKS[name]
    state = played(rules, hands, script, boneyard)
    know = deduce(seat_view(state, state.turn))
    assert know.others[-1].voids == {6} and not any(o.voids for o in know.others[:-1])
    k, rng = kit(rules), random.Random(3)
    for _ in range(100):
        check_world(k, know, *worlds.sample(k, know, rng))


def test_hard_scores_the_side_so_it_lets_its_partner_go_out(monkeypatch):
    view = seat_view(played(PAIRS, ENDGAME_HANDS, ENDGAME), 0)
    assert view.ends == (2, 1) and view.counts == (2, 1, 1, 1)
    monkeypatch.setattr(search, "PLAYOUTS", 40)
    monkeypatch.setattr(search, "BLOCK_PLAYOUTS", 40)
    monkeypatch.setattr(search, "WIDE_PLAYOUTS", 40)
    monkeypatch.setattr(search, "MIN_WORLDS", 4)
    assert bots.get("hard")(view, random.Random(0)) == at("1-1", "right")

    def own_seat(k, hands, out, seat):  # scoring one seat alone, as if it had no partner
        pips = k.pips
        if out == seat:
            return sum(pips[t] for s, hand in enumerate(hands) if s != seat for t in hand)
        return -sum(pips[t] for t in hands[seat])

    monkeypatch.setattr(search, "value", own_seat)
    assert bots.get("hard")(view, random.Random(0)) == at("1-6", "right")


def test_a_world_where_the_partner_goes_out_is_worth_points_to_this_seat():
    k = kit(PAIRS)
    tile = {str(t): i for i, t in enumerate(k.tiles)}
    # seats 0 and 2 against 1 and 3; seat 0 holds the heaviest hand
    hands = [[tile["6-6"]], [tile["4-5"]], [], [tile["3-4"]]]
    assert value(k, hands, 2, 0) == value(k, hands, 2, 2) == 9 + 7  # the other side's pips
    assert value(k, hands, 2, 1) == value(k, hands, 2, 3) == -(9 + 7)
    hands[2] = [tile["0-0"]]  # blocked: side 0-2 holds 12 pips, side 1-3 16: it takes all 28
    assert value(k, hands, None, 0) == value(k, hands, None, 2) == 28
    assert value(k, hands, None, 1) == -28
    three = kit(THREE)
    hands = [[], [three.index[Tile(6, 6)]], [three.index[Tile(0, 1)]]]
    assert value(three, hands, 0, 0) == 2 * 13  # 13 against the others' mean of 0, times 2
    assert value(three, hands, 0, 1) == -13
