"""The rules of docs/rules.md, the default game, one scenario at a time, hands written as short
strings."""

from __future__ import annotations

import copy
import json
import random
import secrets
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino import game
from domino.events import DRAW, PASS, Play, TileDrawn, TilePlayed
from domino.record import from_record
from domino.rules import DEFAULT, Rules
from domino.tiles import Laid, Tile, full_set, tiles
from domino.views import seat_view
from tests.support.scenario import deal_of, line, play, round_of
from tests.support.strategies import RULES

GAMES = Path(__file__).parents[1] / "games"

# Seat 0 holds 6-6 and opens; seat 1 answers; the boneyard starts 1-4 4-6.
OPENING = ("6-6 1-2 0-3 2-4 1-5 0-0 3-4", "5-5 1-6 4-4 0-2 3-5 2-3 1-1")


def rule_broken(state, seat, text):
    """The rule code an illegal action breaks, checking the state did not change."""
    before = copy.deepcopy(state)  # a copy: the same object always equals itself
    with pytest.raises(game.IllegalMove) as caught:
        play(state, f"{seat}: {text}")
    assert state == before
    return caught.value.rule


# -- the set ---------------------------------------------------------------------------


def test_the_set_has_every_pair_once():
    tiles_ = full_set()
    assert len(tiles_) == 28
    assert len(set(tiles_)) == 28
    assert sum(t.is_double for t in tiles_) == 7
    assert {str(t) for t in tiles_} >= {"0-0", "2-5", "6-6", "0-6"}


def test_a_tile_is_written_low_high_and_worth_its_pips():
    assert str(Tile(5, 2)) == "2-5"
    assert Tile(5, 2) is Tile.parse("2-5")
    assert Tile.parse("2-5").pips == 7
    assert Tile.parse("0-0").pips == 0
    assert Tile.parse("3-3").is_double and not Tile.parse("3-4").is_double


@pytest.mark.parametrize("text", ["5-2", "7-1", "2", "a-b", "2-5-1", "", "-1-2", " 2 - 5"])
def test_a_badly_written_tile_is_refused(text):
    with pytest.raises(ValueError):
        Tile.parse(text)


def test_a_laid_tile_keeps_its_orientation():
    assert str(Laid.parse("5-2")) == "5-2"
    assert Laid.parse("5-2").tile is Tile.parse("2-5")


# -- the deal --------------------------------------------------------------------------


def test_the_deal_gives_seven_each_and_fourteen_to_the_boneyard():
    started = game.deal(DEFAULT, random.Random(3))
    assert [len(hand) for hand in started.hands] == [7, 7]
    assert len(started.boneyard) == 14
    dealt = [t for hand in started.hands for t in hand] + list(started.boneyard)
    assert sorted(dealt) == sorted(full_set())


def test_the_deal_comes_from_the_injected_source():
    assert game.deal(DEFAULT, random.Random(9)) == game.deal(DEFAULT, random.Random(9))
    assert game.deal(DEFAULT, random.Random(9)) != game.deal(DEFAULT, random.Random(10))
    game.start(game.deal(DEFAULT, secrets.SystemRandom()))


def test_a_deal_that_is_not_the_whole_set_is_refused():
    good = deal_of(*OPENING)
    doubled = type(good)((good.hands[0], good.hands[0]), good.boneyard)
    with pytest.raises(game.IllegalMove, match="not the full set"):
        game.start(doubled)
    short = type(good)((good.hands[0][:6], good.hands[1]), good.boneyard)
    with pytest.raises(game.IllegalMove, match="hand 0 has 6 tiles"):
        game.start(short)


# -- who opens -------------------------------------------------------------------------


def test_the_highest_double_opens():
    state = round_of(*OPENING)
    assert (state.turn, state.opening) == (0, Tile.parse("6-6"))
    state = round_of("5-5 0-1 0-2 0-3 0-4 0-5 0-6", "4-4 1-2 1-3 1-4 1-5 1-6 2-3")
    assert (state.turn, str(state.opening)) == (0, "5-5")
    state = round_of("0-0 0-1 0-2 0-3 0-4 0-5 0-6", "1-1 1-2 1-3 1-4 1-5 1-6 2-3")
    assert (state.turn, str(state.opening)) == (1, "1-1")


def test_without_doubles_the_heaviest_tile_opens_ties_to_the_higher_half():
    state = round_of("3-6 0-1 0-2 0-3 0-4 1-2 1-3", "4-5 0-5 0-6 1-4 1-5 2-3 2-4")
    assert (state.turn, str(state.opening)) == (0, "3-6")  # 6-3 beats 5-4
    state = round_of("0-1 0-2 0-3 0-4 0-5 0-6 1-2", "1-3 1-4 1-5 1-6 2-3 2-4 2-5")
    assert (state.turn, str(state.opening)) == (1, "1-6")


def test_the_opener_must_lay_the_opening_tile_first():
    state = round_of(*OPENING)
    assert game.legal_actions(state, 0) == (
        Play(Tile.parse("6-6"), "left"),
        Play(Tile.parse("6-6"), "right"),
    )
    assert rule_broken(state, 0, "1-2 left") == "must-open"
    assert rule_broken(state, 0, "draw") == "must-open"
    assert rule_broken(state, 1, "1-6 left") == "not-your-turn"
    assert line(play(state, "0: 6-6 right")) == "6-6"


def test_only_the_holder_sees_the_opening_tile_marked():
    state = round_of(*OPENING)
    assert str(seat_view(state, 0).opening) == "6-6"
    assert seat_view(state, 1).opening is None


# -- turns -----------------------------------------------------------------------------


def test_turns_alternate_after_each_play():
    state = play(round_of(*OPENING), "0: 6-6 left")
    assert state.turn == 1
    state = play(state, "1: 1-6 left")
    assert state.turn == 0
    assert rule_broken(state, 1, "2-3 left") == "not-your-turn"


def test_the_tile_turns_itself_to_fit_the_end():
    state = play(round_of(*OPENING), "0: 6-6 left", "1: 1-6 left", "0: 1-2 left")
    assert line(state) == "2-1 1-6 6-6"
    assert state.ends == (2, 6)


def test_a_tile_that_does_not_fit_the_end_is_refused():
    state = play(round_of(*OPENING), "0: 6-6 left", "1: 1-6 left")
    assert rule_broken(state, 0, "1-2 right") == "does-not-fit"
    assert rule_broken(state, 0, "0-3 left") == "does-not-fit"
    assert rule_broken(state, 0, "4-4 left") == "tile-not-held"
    assert rule_broken(state, 0, "1-2 middle") == "bad-end"


def test_only_fitting_ends_are_offered():
    state = play(round_of(*OPENING), "0: 6-6 left", "1: 1-6 left")
    offered = {str(action) for action in game.legal_actions(state, 0)}
    assert offered == {"play 1-2 left", "play 1-5 left"}


def test_you_must_play_when_a_tile_fits():
    state = play(round_of(*OPENING), "0: 6-6 left", "1: 1-6 left")
    assert rule_broken(state, 0, "draw") == "must-play"
    assert rule_broken(state, 0, "pass") == "must-play"


def test_blank_matches_blank_and_doubles_keep_the_end():
    state = play(round_of(*OPENING), "0: 6-6 left", "1: 1-6 left", "0: 1-2 left", "1: 0-2 left")
    assert state.ends == (0, 6)
    state = play(state, "0: 0-0 left")
    assert line(state) == "0-0 0-2 2-1 1-6 6-6"
    assert state.ends == (0, 6)


def test_with_nothing_to_play_you_draw_one_at_a_time_until_you_can():
    state = round_of(*OPENING, boneyard="1-4 4-6")
    state = play(state, "0: 6-6 left", "1: 1-6 left", "0: 1-2 left", "1: 0-2 left")
    state = play(state, "0: 0-0 left")  # ends 0 and 6; seat 1 has neither
    assert game.legal_actions(state, 1) == (DRAW,)
    assert rule_broken(state, 1, "pass") == "must-draw"
    state = play(state, "1: draw")
    assert state.turn == 1 and Tile.parse("1-4") in state.hands[1]
    state = play(state, "1: draw")
    assert rule_broken(state, 1, "draw") == "must-play"
    state = play(state, "1: 4-6 right")
    assert line(state) == "0-0 0-2 2-1 1-6 6-6 6-4"
    assert len(state.boneyard) == 12


def test_a_draw_takes_the_next_tile_of_the_boneyard():
    state = round_of(*OPENING, boneyard="1-4 4-6")
    state = play(state, "0: 6-6 left", "1: 1-6 left", "0: 1-2 left", "1: 0-2 left", "0: 0-0 left")
    with pytest.raises(game.IllegalMove) as caught:
        game.apply(state, TileDrawn(1, Tile.parse("4-6")))
    assert caught.value.rule == "not-next-tile"
    assert "4-6" not in str(caught.value) and "1-4" not in str(caught.value)


def test_pass_only_when_the_boneyard_is_empty_and_nothing_fits():
    # All seven sixes are in seat 0's hand: after 6-6, seat 1 draws the whole boneyard.
    state = round_of("6-6 0-6 1-6 2-6 3-6 4-6 5-6", "0-0 0-1 0-2 0-3 0-4 0-5 1-1")
    state = play(state, "0: 6-6 left", *["1: draw"] * 13)
    assert rule_broken(state, 1, "pass") == "must-draw"
    state = play(state, "1: draw")
    assert len(state.boneyard) == 0 and len(state.hands[1]) == 21
    assert game.legal_actions(state, 1) == (PASS,)
    state = play(state, "1: pass")
    assert state.turn == 0 and state.passes == 1
    state = play(state, "0: 5-6 left")
    assert state.passes == 0 and state.turn == 1


# -- the end of the round --------------------------------------------------------------


def test_domino_the_winner_scores_the_other_hand():
    state = round_of("0-1 0-4 4-6 1-3 3-5 1-6 1-5", "5-5 0-5 2-2 2-4 6-6 1-4 4-4")
    state = play(
        state,
        *("1: 6-6 left", "0: 1-6 left", "1: 1-4 left", "0: 0-4 left", "1: 0-5 left"),
        *("0: 4-6 right", "1: 5-5 left", "0: 1-5 left", "1: 4-4 right", "0: 1-3 left"),
        *("1: 2-4 right", "0: 3-5 left"),
    )
    assert game.outcome(state) is None
    assert line(state) == "5-3 3-1 1-5 5-5 5-0 0-4 4-1 1-6 6-6 6-4 4-4 4-2"
    state = play(state, "1: 2-2 right")
    # Seat 1 has laid its last tile; seat 0 is left holding 0-1: one pip.
    assert state.hands == ((Tile.parse("0-1"),), ())
    assert game.outcome(state) == game.Outcome(1, "domino", 1, (1,), (0, 1))
    assert state.turn is None
    assert rule_broken(state, 0, "0-1 left") == "round-over"


def test_blocked_the_lower_hand_wins_the_difference():
    record = _recorded_game("blocked")
    state = from_record(record)
    assert state.moves[-2:] == (game.Passed(1), game.Passed(0))
    assert state.hands == (tiles("0-3 3-3 4-4 0-4"), tiles("1-1 3-4 3-5 3-6 0-0 1-5 1-6"))
    # 21 pips against 39: seat 0 wins 39 - 21 = 18.
    assert game.outcome(state) == game.Outcome(0, "blocked", 18, (0,), (18, 0))


def test_blocked_with_equal_totals_is_a_draw():
    state = from_record(_recorded_game("draw"))
    assert state.hands == (tiles("1-1 3-3 5-5 1-2"), tiles("0-3 2-2 2-3 4-4 0-1"))
    assert game.outcome(state) == game.Outcome(None, "blocked", 0, (), (0, 0))  # 21 and 21


def test_blocked_in_a_block_game_after_every_seat_passes():
    block = Rules(boneyard=False)
    state = round_of("6-6 0-1 0-2 0-3 0-4 0-5 1-2", "1-1 1-3 1-4 1-5 2-2 2-3 2-4", rules=block)
    state = play(state, "0: 6-6 left", "1: pass")
    assert state.turn == 0 and game.outcome(state) is None
    state = play(state, "0: pass")
    # Seat 0 holds 1+2+3+4+5+3 = 18 pips, seat 1 holds 2+4+5+6+4+5+6 = 32.
    assert game.outcome(state) == game.Outcome(0, "blocked", 14, (0,), (14, 0))
    others = Rules(boneyard=False, blocked="others")
    state = round_of("6-6 0-1 0-2 0-3 0-4 0-5 1-2", "1-1 1-3 1-4 1-5 2-2 2-3 2-4", rules=others)
    assert game.outcome(play(state, "0: 6-6 left", "1: pass", "0: pass")).points == 32


def test_three_seats_take_turns_in_order():
    three = Rules(seats=3)
    state = round_of(
        "6-6 0-1 0-2 0-3 0-4 0-5 1-2",
        "5-6 1-3 1-4 1-5 2-2 2-3 2-4",
        "4-6 0-0 1-1 3-3 3-4 3-5 4-4",
        rules=three,
    )
    state = play(state, "0: 6-6 left", "1: 5-6 left", "2: 4-6 right")
    assert state.turn == 0 and line(state) == "5-6 6-6 6-4"


def test_rules_refuse_impossible_settings():
    for bad in (
        {"seats": 5},
        {"seats": 4, "hand_size": 8},
        {"opener": "youngest-player"},
        {"blocked": "fives"},
        {"seats": 4},  # four seats play in pairs
        {"seats": 2, "teams": True},
        {"hand_size": 1},
        {"seats": 4, "teams": True, "hand_size": 7},  # all 28 dealt: a draw game cannot be
        {"target": 0},
        {"scoring": "fives"},
        {"lead": "youngest"},
        {"next_opener": "loser"},
    ):
        with pytest.raises(ValueError):
            Rules(**bad)


def test_an_event_that_is_no_move_is_refused():
    state = round_of(*OPENING)
    with pytest.raises(game.IllegalMove):
        game.apply(state, "play 6-6")
    with pytest.raises(game.IllegalMove) as caught:
        game.apply(state, TilePlayed(0, "6-6", "left"))
    assert caught.value.rule == "tile-not-held"


def _recorded_game(reason: str) -> dict:
    """A round recorded by the simulator, kept in tests/games/endings.jsonl."""
    for text in (GAMES / "endings.jsonl").read_text().splitlines():
        record = json.loads(text)
        drawn = record["result"]["winner"] is None
        if (reason == "draw") == drawn:
            return record
    raise LookupError(reason)


@settings(max_examples=80, deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**32 - 1))
def test_no_dealt_tile_outranks_the_opening_one_and_it_outranks_the_rest(rules, seed):
    state = game.start(game.deal(rules, random.Random(seed)), rules)
    dealt = {t for hand in state.hands for t in hand}
    opening = game.opener(rules, state.hands)[1]
    assert not dealt & game.outranking(rules, opening)
    assert all(opening in game.outranking(rules, t) for t in dealt - {opening})


def test_what_outranks_a_double_under_each_opener():
    def written(rules, tile):
        return sorted(str(t) for t in game.outranking(rules, Tile.parse(tile)))

    assert written(DEFAULT, "4-4") == ["5-5", "6-6"]
    assert written(DEFAULT, "6-6") == []
    assert written(Rules(opener="lowest-double"), "2-2") == ["1-1"]
    assert "6-6" in written(Rules(opener="heaviest-tile"), "5-6")
