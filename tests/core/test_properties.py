"""Properties of the rules core over random seeded deals and random legal play."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino import game, record
from domino.events import (
    DRAW,
    ENDS,
    PASS,
    Passed,
    Play,
    TileDrawn,
    TilePlayed,
)
from domino.rules import (
    BLOCKED,
    DEFAULT,
    OPENERS,
    Rules,
    RulesError,
)
from domino.tiles import Laid, Tile, pip_total
from domino.views import seat_view
from tests.support.checker import check_record
from tests.support.strategies import RULES, SEEDS, any_rules


def action_bound(rules: Rules) -> int:
    """An upper bound on the number of actions in a round.

    - plays <= set size: each play moves one tile from a hand to the line, for good;
    - draws <= boneyard size: each draw takes one boneyard tile, for good;
    - passes <= (seats - 1) * plays + seats: passes only come with nothing to draw, a play
      resets the run of passes, a run shorter than `seats` is followed by a play, and the
      run of `seats` passes ends the round.
    """
    return rules.set_size + rules.boneyard_size + (rules.seats - 1) * rules.set_size + rules.seats


def play_out(rules: Rules, deal_seed: int, play_seed: int) -> list[game.State]:
    """Every state of one round, from the deal to the end, with uniformly random legal play."""
    state = game.start(game.deal(rules, random.Random(deal_seed)), rules)
    rng = random.Random(play_seed)
    states = [state]
    bound = action_bound(rules)
    while state.turn is not None:
        assert len(state.moves) < bound, f"no end after {bound} actions under {rules}"
        legal = game.legal_actions(state, state.turn)
        assert legal, f"seat {state.turn} has nothing to do"
        state, _ = game.step(state, state.turn, rng.choice(legal))
        states.append(state)
    return states


def count(moves, kind) -> int:
    return sum(isinstance(move, kind) for move in moves)


# -- the round ends --------------------------------------------------------------------


@given(RULES, SEEDS, SEEDS)
def test_every_round_ends_within_the_bound(rules, deal_seed, play_seed):
    states = play_out(rules, deal_seed, play_seed)
    final = states[-1]
    moves = final.moves
    plays, draws, passes = (count(moves, kind) for kind in (TilePlayed, TileDrawn, Passed))
    assert plays <= rules.set_size
    assert draws <= rules.boneyard_size
    assert passes <= (rules.seats - 1) * plays + rules.seats
    assert len(moves) <= action_bound(rules)
    assert final.turn is None and final.over
    assert all(s.turn is not None for s in states[:-1])
    assert game.outcome(final) is not None
    assert all(game.outcome(s) is None for s in states[:-1])
    assert all(game.legal_actions(final, seat) == () for seat in range(rules.seats))
    if not rules.boneyard:
        assert draws == 0


@given(RULES, SEEDS, SEEDS)
def test_a_full_turn_of_passes_ends_the_round_at_once(rules, deal_seed, play_seed):
    for state in play_out(rules, deal_seed, play_seed):
        trailing = 0
        for move in reversed(state.moves):
            if not isinstance(move, Passed):
                break
            trailing += 1
        assert state.passes == trailing
        assert (trailing >= rules.seats) == (state.over and all(state.hands))  # blocked
        assert trailing <= rules.seats


# -- invariants after every action ------------------------------------------------------


@given(RULES, SEEDS, SEEDS)
def test_tiles_are_conserved_after_every_action(rules, deal_seed, play_seed):
    whole = list(rules.full_set())
    for state in play_out(rules, deal_seed, play_seed):
        held = [tile for hand in state.hands for tile in hand]
        laid = [laid.tile for laid in state.line]
        everything = held + laid + list(state.boneyard)
        assert len(everything) == len(whole)
        assert set(everything) == set(whole)
        assert all(isinstance(tile, Tile) for tile in everything)
        assert len(state.history) == len(state.moves)


@given(RULES, SEEDS, SEEDS)
def test_the_line_always_matches_and_its_ends_are_its_outer_halves(rules, deal_seed, play_seed):
    for state in play_out(rules, deal_seed, play_seed):
        line = state.line
        for before, after in itertools.pairwise(line):
            assert before.right == after.left, f"{before} then {after}"
        if line:
            assert state.ends == (line[0].left, line[-1].right)
            assert state.opening is None
        else:
            assert state.ends is None
            assert (state.opening is not None) == (rules.lead == "opening-tile")
        assert len(line) == count(state.moves, TilePlayed)


@given(RULES, SEEDS, SEEDS)
def test_replaying_the_moves_gives_an_equal_state(rules, deal_seed, play_seed):
    for state in play_out(rules, deal_seed, play_seed):
        again = game.replay(state.start, state.moves, rules)
        assert again == state
        assert hash(again) == hash(state)


@given(RULES, SEEDS, SEEDS)
def test_the_fast_path_builds_ordinary_frozen_values(rules, deal_seed, play_seed):
    """States, views and events made on the hot path (`events.builder`) are what their
    dataclass constructors make: equal, equally hashed, frozen, and they pickle."""
    for state in play_out(rules, deal_seed, play_seed):
        seat = state.turn if state.turn is not None else 0
        for value in (state, seat_view(state, seat), *state.moves[-1:]):
            names = [field.name for field in dataclasses.fields(value)]
            again = type(value)(*(getattr(value, name) for name in names))
            assert again == value and hash(again) == hash(value)
            assert pickle.loads(pickle.dumps(value)) == value
            assert not hasattr(value, "__dict__")
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(value, names[0], None)


# -- what a seat may see ----------------------------------------------------------------


def tiles_inside(value, path="view"):
    """Every (path, tile) reachable from `value`: dataclasses, tuples, dicts, slots."""
    if isinstance(value, Tile):
        yield path, value
        return
    if isinstance(value, Laid):
        yield path, value.tile
        return
    if value is None or isinstance(value, bool | int | float | str):
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from tiles_inside(getattr(value, field.name), f"{path}.{field.name}")
        return
    if isinstance(value, tuple | list | set | frozenset):
        for index, item in enumerate(value):
            yield from tiles_inside(item, f"{path}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from tiles_inside(key, f"{path}.key")
            yield from tiles_inside(item, f"{path}[{key!r}]")
        return
    names = [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]
    names += list(getattr(value, "__dict__", {}))
    assert names, f"cannot look inside {path} = {value!r}"
    for name in names:
        yield from tiles_inside(getattr(value, name), f"{path}.{name}")


@given(RULES, SEEDS, SEEDS)
def test_a_seat_view_shows_only_the_seat_own_tiles_and_the_line(rules, deal_seed, play_seed):
    for state in play_out(rules, deal_seed, play_seed):
        laid = {laid.tile for laid in state.line}
        boneyard = set(state.boneyard)
        for seat in range(rules.seats):
            view = seat_view(state, seat, counter=True)  # the tile counter is walked too
            own = set(state.hands[seat])
            visible = own | laid
            if state.over:
                visible = {tile for hand in state.hands for tile in hand} | laid
            for path, tile in tiles_inside(view):
                assert tile not in boneyard, f"seat {seat} sees boneyard tile {tile} at {path}"
                assert tile in visible, f"seat {seat} sees {tile} at {path}"
            # the public facts are there and right
            assert view.hand == state.hands[seat]
            assert view.line == state.line
            assert view.ends == state.ends
            assert view.counts == tuple(len(hand) for hand in state.hands)
            assert view.boneyard_count == len(state.boneyard)
            assert view.turn == state.turn
            assert view.legal == game.legal_actions(state, seat)
            assert view.history == state.history
            holds_opening = state.opening is not None and state.opening in state.hands[seat]
            assert view.opening == (state.opening if holds_opening else None)
            if state.over:
                assert view.hands == state.hands
                assert view.outcome == game.outcome(state)
            else:
                assert view.hands is None and view.outcome is None
        for public in state.history:
            assert (public.tile is None) == (public.action != "play")


def lacks_read_again(history, other: int) -> tuple[int, ...]:
    """The numbers `other` has shown it lacks, read from the public history a second way.

    Cut its moves into turns: draws and the play or pass that ends them. A turn that ends in
    a play with no draw before it shows nothing. Any other turn shows both ends lacking; if
    it left new tiles in the hand (draws not laid at once), what earlier turns showed no
    longer holds. A turn still drawing shows nothing yet, and holds nothing certain.
    """
    shown: set[int] = set()
    turn: list = []
    for move in (m for m in history if m.seat == other):
        turn.append(move)
        if move.action == "draw":
            continue
        draws = len(turn) - 1
        if move.action == "pass" or draws:
            kept = draws if move.action == "pass" else draws - 1
            shown = {move.left, move.right} | (set() if kept else shown)
        turn = []
    return () if turn else tuple(sorted(shown))


@given(RULES, SEEDS, SEEDS, SEEDS)
def test_the_tile_counter_is_public_facts_and_blind_to_hidden_tiles(
    rules, deal_seed, play_seed, shuffle_seed
):
    rng = random.Random(shuffle_seed)
    for state in play_out(rules, deal_seed, play_seed):
        laid = {laid.tile for laid in state.line}
        for seat in range(rules.seats):
            view = seat_view(state, seat, counter=True)
            counter = view.counter
            # a recomputation from the view's public fields alone
            seen = set(view.hand) | {laid.tile for laid in view.line}
            for number in range(rules.max_pip + 1):
                showing = [t for t in rules.full_set() if t.has(number)]
                assert counter.unseen[number] == sum(t not in seen for t in showing)
            others = [other for other in range(rules.seats) if other != seat]
            assert [other for other, _ in counter.lacks] == others
            for other, numbers in counter.lacks:
                assert numbers == lacks_read_again(view.history, other)
                # and it is true: the other hand holds no tile showing a number it lacks
                assert not any(t.has(n) for t in state.hands[other] for n in numbers)
            # the hidden tiles (other hands and boneyard) dealt out again another way
            hidden = [t for t in rules.full_set() if t not in set(state.hands[seat]) | laid]
            rng.shuffle(hidden)
            hands, at = [], 0
            for other, hand in enumerate(state.hands):
                if other == seat:
                    hands.append(hand)
                else:
                    hands.append(tuple(hidden[at : at + len(hand)]))
                    at += len(hand)
            swapped = dataclasses.replace(
                state, hands=tuple(hands), boneyard=tuple(hidden[at:]), moves=()
            )
            assert seat_view(swapped, seat, counter=True).counter == counter


# -- apply accepts exactly the legal actions ---------------------------------------------


def candidate_events(state: game.State):
    """Plays of every tile at both ends by every seat, draws of every tile, passes."""
    rules = state.rules
    for seat in range(rules.seats):
        for tile in rules.full_set():
            for end in ENDS:
                yield TilePlayed(seat, tile, end)
            yield TileDrawn(seat, tile)
        yield Passed(seat)
        yield TilePlayed(seat, rules.full_set()[0], "middle")
    yield state.start  # a RoundStarted is no move


def legal_action_of(state: game.State, event):
    """The action `event` resolves from if it is legal now, else None."""
    if not isinstance(event, TilePlayed | TileDrawn | Passed):
        return None
    legal = game.legal_actions(state, event.seat)
    if isinstance(event, TilePlayed):
        action = Play(event.tile, event.end)
        return action if action in legal else None
    if isinstance(event, TileDrawn):
        next_tile = state.boneyard[0] if state.boneyard else None
        return DRAW if DRAW in legal and event.tile is next_tile else None
    return PASS if PASS in legal else None


@settings(max_examples=50)  # about 170 candidate events at each of ~40 states: keep it quick
@given(RULES, SEEDS, SEEDS)
def test_apply_accepts_exactly_the_legal_actions(rules, deal_seed, play_seed):
    for state in play_out(rules, deal_seed, play_seed):
        reference = copy.deepcopy(state)
        accepted = set()
        for event in candidate_events(state):
            action = legal_action_of(state, event)
            try:
                after = game.apply(state, event)
            except game.IllegalMove as error:
                assert action is None, f"{event} is legal but refused: {error}"
                assert isinstance(error, ValueError)
                assert isinstance(error.rule, str) and error.rule
                assert str(error)
            else:
                assert action is not None, f"{event} is illegal but accepted"
                assert (after, event) == game.step(state, event.seat, action)
                assert after.moves == (*state.moves, event)
                accepted.add((event.seat, action))
            assert state == reference
        if state.turn is None:
            assert accepted == set()
        else:
            assert accepted == {
                (state.turn, action) for action in game.legal_actions(state, state.turn)
            }


# -- the outcome ------------------------------------------------------------------------


@given(RULES, SEEDS, SEEDS)
def test_the_outcome_follows_from_the_final_hands(rules, deal_seed, play_seed):
    final = play_out(rules, deal_seed, play_seed)[-1]
    result = game.outcome(final)
    totals = [pip_total(hand) for hand in final.hands]
    side_of = [seat % 2 if rules.teams else seat for seat in range(rules.seats)]
    weight = {side: 0 for side in side_of}
    for seat, total in enumerate(totals):
        weight[side_of[seat]] += total
    empty = [seat for seat, hand in enumerate(final.hands) if not hand]
    if result.reason == "domino":
        assert empty == [result.winner]
        last = final.moves[-1]
        assert isinstance(last, TilePlayed) and last.seat == result.winner
        won = side_of[result.winner]
        earned = sum(w for side, w in weight.items() if side != won)
    else:
        assert result.reason == "blocked"
        assert empty == []
        last_moves = final.moves[-rules.seats :]
        assert len(last_moves) == rules.seats
        assert all(isinstance(move, Passed) for move in last_moves)
        assert sorted(move.seat for move in last_moves) == list(range(rules.seats))
        assert rules.boneyard is False or final.boneyard == ()
        light = min(weight.values())
        if list(weight.values()).count(light) > 1:
            assert result.winner is None and result.points == 0 and result.winners == ()
            assert result.scores == (0,) * rules.seats
            return
        won = next(side for side, w in weight.items() if w == light)
        mine = [seat for seat in range(rules.seats) if side_of[seat] == won]
        assert result.winner == min(mine, key=lambda seat: (totals[seat], seat))
        others = sum(weight.values()) - light
        earned = {
            "difference": sum(w - light for side, w in weight.items() if side != won),
            "others": others,
            "all": others + light,
        }[rules.blocked]
        assert earned > 0
    winners = tuple(seat for seat in range(rules.seats) if side_of[seat] == won)
    assert result.winners == winners
    if rules.scoring == "winner":
        assert result.points == earned
        assert result.scores == tuple(earned if s in winners else 0 for s in range(rules.seats))
    else:  # Goat: the others write their own pips
        assert result.points == 0
        expected = tuple(0 if s in winners else weight[side_of[s]] for s in range(rules.seats))
        assert result.scores == expected


@given(RULES, SEEDS)
def test_the_round_opens_as_the_rules_say(rules, deal_seed):
    state = game.start(game.deal(rules, random.Random(deal_seed)), rules)
    held = [(tile, seat) for seat, hand in enumerate(state.hands) for tile in hand]
    doubles = [(tile, seat) for tile, seat in held if tile.is_double]
    if rules.opener == "highest-double" and doubles:
        tile, seat = max(doubles, key=lambda pair: pair[0].high)
    elif rules.opener == "lowest-double" and [d for d in doubles if d[0].high]:
        tile, seat = min((d for d in doubles if d[0].high), key=lambda pair: pair[0].high)
    elif rules.opener == "lowest-double":
        tile, seat = min(held, key=lambda pair: (pair[0].pips, pair[0].low))
    else:
        tile, seat = max(held, key=lambda pair: (pair[0].pips, pair[0].is_double, pair[0].high))
    assert state.turn == seat
    legal = game.legal_actions(state, seat)
    if rules.lead == "opening-tile":
        assert state.opening is tile and {play.tile for play in legal} == {tile}
    else:
        assert state.opening is None and {play.tile for play in legal} == set(state.hands[seat])


@given(RULES, SEEDS, st.integers(min_value=0, max_value=3))
def test_a_leader_opens_with_any_tile(rules, deal_seed, leader):
    started = game.deal(rules, random.Random(deal_seed))
    if leader >= rules.seats:
        with pytest.raises(game.IllegalMove):
            game.start(started, rules, leader=leader)
        return
    state = game.start(started, rules, leader=leader)
    assert state.turn == leader and state.opening is None
    tile = state.hands[leader][-1]
    after = game.apply(state, TilePlayed(leader, tile, "right"))
    assert after.line == (Laid(tile.low, tile.high),)


@given(
    st.dictionaries(
        st.sampled_from(sorted(Rules().to_json())),
        st.none()
        | st.booleans()
        | st.integers(-2, 200)
        | st.sampled_from(OPENERS + BLOCKED + ("x",)),
    )
)
def test_any_rules_object_is_played_or_refused_with_its_field(data):
    try:
        rules = Rules.from_json(data)
    except RulesError as error:
        assert error.field in (*Rules().to_json(), "rules")
        return
    assert Rules.from_json(rules.to_json()) == rules
    assert (rules.seats == 4) == rules.teams


@given(SEEDS, SEEDS)
def test_two_seat_blocked_scores_follow_the_spec(deal_seed, play_seed):
    final = play_out(DEFAULT, deal_seed, play_seed)[-1]
    result = game.outcome(final)
    a, b = (pip_total(hand) for hand in final.hands)
    if result.reason == "blocked":
        assert result.points == abs(a - b)
        assert result.winner == (None if a == b else (0 if a < b else 1))
    else:
        assert result.points == a + b  # the winner's hand is empty


# -- records ----------------------------------------------------------------------------


@given(SEEDS, SEEDS)
def test_a_default_round_record_passes_the_checker_and_reads_back(deal_seed, play_seed):
    final = play_out(DEFAULT, deal_seed, play_seed)[-1]
    rec = record.to_record(final, ["north", "south"])
    assert check_record(rec) == []
    assert record.from_record(rec) == final
    line = record.dumps(rec)
    assert "\n" not in line
    assert json.loads(line) == rec
    assert record.from_record(json.loads(line)) == final
    assert rec["events"][0]["end"] in ENDS


@given(any_rules(), SEEDS, SEEDS)
def test_any_round_record_reads_back_under_its_rules(rules, deal_seed, play_seed):
    final = play_out(rules, deal_seed, play_seed)[-1]
    names = [f"seat{seat}" for seat in range(rules.seats)]
    rec = record.to_record(final, names)
    assert json.loads(record.dumps(rec)) == rec
    assert record.from_record(json.loads(record.dumps(rec)), rules) == final
    assert len(rec["deal"]["hands"]) == rules.seats
    assert len(rec["deal"]["boneyard"]) == rules.boneyard_size


@given(RULES, SEEDS)
def test_the_opening_tile_lies_low_half_left_whichever_end_it_names(rules, deal_seed):
    state = game.start(game.deal(rules, random.Random(deal_seed)), rules)
    tile = state.opening or game.opener(rules, state.hands)[1]  # a free lead: that tile too
    assert tile in state.hands[state.turn]
    for end in ENDS:
        after = game.apply(state, TilePlayed(state.turn, tile, end))
        assert after.line == (Laid(tile.low, tile.high),)
        assert after.opening is None
