"""The round record of docs/contracts.md, the round record: export of finished rounds, import that
replays and refuses."""

from __future__ import annotations

import copy
import json
import random
import re

import pytest

from domino import game
from domino.events import Passed, RoundStarted, TileDrawn, TilePlayed
from domino.record import RecordError, dumps, from_record, to_record
from domino.rules import DEFAULT
from domino.tiles import pip_total, tiles
from tests.support.checker import check_record

# A hand-built round. Seat 0 holds 6-6 and a chain 6-5-4-3-2-1-0; seat 1 has no six, so it
# draws 0-3 (no fit) and 0-6 (fits); then both follow the chain until seat 0 goes out.
HAND_0_TEXT = "6-6 5-6 4-5 3-4 2-3 1-2 0-1"
HAND_1_TEXT = "0-0 1-1 2-2 3-3 4-4 5-5 0-2"
BONEYARD_TEXT = "0-3 0-6 1-3 0-4 0-5 1-4 1-5 1-6 2-4 2-5 2-6 3-5 3-6 4-6"
HAND_0, HAND_1, BONEYARD = (tiles(t) for t in (HAND_0_TEXT, HAND_1_TEXT, BONEYARD_TEXT))


def play(seat: int, tile: str, end: str) -> dict:
    return {"seat": seat, "action": "play", "tile": tile, "end": end}


def draw(seat: int, tile: str) -> dict:
    return {"seat": seat, "action": "draw", "tile": tile}


def pass_(seat: int) -> dict:
    return {"seat": seat, "action": "pass"}


EVENTS = [
    play(0, "6-6", "left"),
    draw(1, "0-3"),
    draw(1, "0-6"),
    play(1, "0-6", "left"),  # ends 0 | 6
    play(0, "5-6", "right"),
    play(1, "0-0", "left"),
    play(0, "4-5", "right"),
    play(1, "4-4", "right"),
    play(0, "3-4", "right"),
    play(1, "3-3", "right"),
    play(0, "2-3", "right"),
    play(1, "2-2", "right"),
    play(0, "1-2", "right"),
    play(1, "1-1", "right"),
    play(0, "0-1", "left"),  # domino: seat 1 keeps 5-5 0-2 0-3
]
RESULT = {"winner": 0, "reason": "domino", "points": 15}


def known_record(events=None, result=None) -> dict:
    """The hand-built round as a record, with its events and result replaceable."""
    return {
        "seats": ["ann", "bob"],
        "deal": {
            "hands": [HAND_0_TEXT.split(), HAND_1_TEXT.split()],
            "boneyard": BONEYARD_TEXT.split(),
        },
        "events": copy.deepcopy(EVENTS if events is None else events),
        "result": dict(RESULT if result is None else result),
    }


def known_state() -> game.State:
    """The hand-built round played through `game.step`."""
    state = game.start(RoundStarted((HAND_0, HAND_1), BONEYARD))
    for event in EVENTS:
        if event["action"] == "play":
            move = TilePlayed(event["seat"], tiles(event["tile"])[0], event["end"])
        else:
            move = TileDrawn(event["seat"], tiles(event["tile"])[0])
        state = game.apply(state, move)
    return state


def seeded_round(deal_seed: int, play_seed: int) -> game.State:
    """A round dealt from `deal_seed` and played by uniformly random legal actions."""
    state = game.start(game.deal(DEFAULT, random.Random(deal_seed)))
    rng = random.Random(play_seed)
    while state.turn is not None:
        state, _ = game.step(state, state.turn, rng.choice(game.legal_actions(state, state.turn)))
    return state


def first_seeded_round(wanted) -> game.State:
    """The first seeded random round (seeds 0, 1, ...) that `wanted` accepts."""
    for seed in range(500):
        state = seeded_round(seed, seed)
        if wanted(state):
            return state
    raise AssertionError("no seeded round of that kind in 500 seeds")


def refused(rec) -> RecordError:
    with pytest.raises(RecordError) as caught:
        from_record(rec)
    return caught.value


# -- export -----------------------------------------------------------------------------


def test_the_hand_built_round_exports_exactly():
    state = known_state()
    assert state.over
    rec = to_record(state, ["ann", "bob"])
    assert rec == known_record()
    assert list(rec) == ["seats", "deal", "events", "result"]
    assert check_record(rec) == []
    assert json.loads(dumps(rec)) == rec


def test_an_unfinished_round_has_no_record():
    state = game.start(RoundStarted((HAND_0, HAND_1), BONEYARD))
    with pytest.raises(ValueError):
        to_record(state, ["ann", "bob"])
    state = game.apply(state, TilePlayed(0, tiles("6-6")[0], "left"))
    with pytest.raises(ValueError, match="finished"):
        to_record(state, ["ann", "bob"])


def test_the_record_names_as_many_seats_as_the_round_has():
    with pytest.raises(ValueError):
        to_record(known_state(), ["ann"])
    with pytest.raises(ValueError):
        to_record(known_state(), ["ann", "bob", "cy"])


TILE_TEXT = re.compile(r"([0-6])-([0-6])")


def assert_tile_text(text):
    match = TILE_TEXT.fullmatch(text)
    assert match, f"{text!r} is not a tile"
    assert int(match[1]) <= int(match[2]), f"{text!r} is not written low-high"


def test_a_seeded_blocked_round_with_draws_and_passes_exports_the_spec_shape():
    def blocked_with_draws_and_passes(state):
        kinds = {type(move) for move in state.moves}
        return game.outcome(state).reason == "blocked" and {TileDrawn, Passed} <= kinds

    state = first_seeded_round(blocked_with_draws_and_passes)
    rec = json.loads(dumps(to_record(state, ["random", "greedy"])))

    assert set(rec) == {"seats", "deal", "events", "result"}
    assert rec["seats"] == ["random", "greedy"]
    assert set(rec["deal"]) == {"hands", "boneyard"}
    hands, boneyard = rec["deal"]["hands"], rec["deal"]["boneyard"]
    assert [len(hand) for hand in hands] == [7, 7]
    assert len(boneyard) == 14
    for text in [*hands[0], *hands[1], *boneyard]:
        assert_tile_text(text)
    assert len({*hands[0], *hands[1], *boneyard}) == 28
    assert hands == [[f"{t.low}-{t.high}" for t in hand] for hand in state.start.hands]
    assert boneyard == [f"{t.low}-{t.high}" for t in state.start.boneyard]

    assert len(rec["events"]) == len(state.moves)
    for event, move in zip(rec["events"], state.moves, strict=True):
        assert event["seat"] == move.seat and type(event["seat"]) is int
        if isinstance(move, TilePlayed):
            assert set(event) == {"seat", "action", "tile", "end"}
            assert event["action"] == "play"
            assert event["end"] in ("left", "right") and event["end"] == move.end
            assert event["tile"] == f"{move.tile.low}-{move.tile.high}"
        elif isinstance(move, TileDrawn):
            assert set(event) == {"seat", "action", "tile"}
            assert event["action"] == "draw"
            assert event["tile"] == f"{move.tile.low}-{move.tile.high}"
        else:
            assert event == {"seat": move.seat, "action": "pass"}
        if "tile" in event:
            assert_tile_text(event["tile"])
    draws = [e["tile"] for e in rec["events"] if e["action"] == "draw"]
    assert draws == boneyard[: len(draws)]
    assert [e["action"] for e in rec["events"][-2:]] == ["pass", "pass"]

    totals = [pip_total(hand) for hand in state.hands]
    assert set(rec["result"]) == {"winner", "reason", "points"}
    assert rec["result"]["reason"] == "blocked"
    assert rec["result"]["points"] == abs(totals[0] - totals[1])
    assert rec["result"]["winner"] == (
        None if totals[0] == totals[1] else totals.index(min(totals))
    )
    assert check_record(rec) == []
    assert from_record(rec) == state


def test_a_seeded_domino_round_exports_its_result():
    state = first_seeded_round(lambda s: game.outcome(s).reason == "domino")
    rec = to_record(state, ["a", "b"])
    winner = rec["result"]["winner"]
    assert rec["events"][-1]["seat"] == winner and rec["events"][-1]["action"] == "play"
    assert rec["result"] == {
        "winner": winner,
        "reason": "domino",
        "points": pip_total(state.hands[1 - winner]),
    }
    assert state.hands[winner] == ()
    assert check_record(rec) == []


# -- import -----------------------------------------------------------------------------


def test_the_hand_built_record_imports_to_the_played_state():
    assert from_record(known_record()) == known_state()
    assert from_record(json.loads(dumps(known_record()))) == known_state()


@pytest.mark.parametrize(
    ("events", "index", "reason"),
    [
        pytest.param([*EVENTS[:4], play(1, "0-0", "left")], 4, "turn", id="play-out-of-turn"),
        pytest.param([*EVENTS[:4], play(0, "0-0", "left")], 4, "not hold", id="tile-not-held"),
        pytest.param([*EVENTS[:4], play(0, "5-6", "left")], 4, "not fit", id="wrong-end"),
        pytest.param([*EVENTS[:4], draw(0, "1-3")], 4, "may not draw", id="draw-while-able"),
        pytest.param([EVENTS[0], draw(1, "0-6")], 1, "next tile", id="draw-wrong-tile"),
        pytest.param([EVENTS[0], pass_(1)], 1, "boneyard", id="pass-with-boneyard"),
        pytest.param([draw(0, "0-3")], 0, "opens with 6-6", id="draw-before-opening"),
        pytest.param([play(0, "5-6", "left")], 0, "opens with 6-6", id="wrong-opening"),
        pytest.param([*EVENTS, pass_(1)], len(EVENTS), "over", id="event-after-end"),
        pytest.param([*EVENTS, play(0, "5-5", "left")], len(EVENTS), "over", id="play-after-end"),
        pytest.param([EVENTS[0], draw(1, "3-0")], 1, "low-high", id="tile-high-low"),
        pytest.param([EVENTS[0], draw(1, "5-2")], 1, "5-2", id="tile-5-2"),
        pytest.param([EVENTS[0], draw(1, "7-1")], 1, "7-1", id="tile-7-1"),
        pytest.param([EVENTS[0], draw(1, "03")], 1, "not a tile", id="tile-no-dash"),
        pytest.param([EVENTS[0], draw(1, 3)], 1, "not 3", id="tile-a-number"),
        pytest.param([EVENTS[0], {"seat": 1, "action": "jump"}], 1, "unknown action", id="jump"),
        pytest.param([EVENTS[0], {"seat": 1}], 1, "unknown action", id="no-action"),
        pytest.param(
            [EVENTS[0], {**draw(1, "0-3"), "note": "x"}], 1, "fields", id="extra-key-in-draw"
        ),
        pytest.param([EVENTS[0], {**pass_(1), "tile": "0-3"}], 1, "fields", id="pass-with-tile"),
        pytest.param([{"seat": 0, "action": "play", "tile": "6-6"}], 0, "fields", id="no-end"),
        pytest.param([play(0, "6-6", "middle")], 0, "middle", id="bad-end"),
        pytest.param([{**play(0, "6-6", "left"), "seat": "0"}], 0, "seat", id="seat-as-text"),
        pytest.param([EVENTS[0], "draw"], 1, "object", id="event-not-an-object"),
    ],
)
def test_import_refuses_a_bad_event_and_says_which(events, index, reason):
    error = refused(known_record(events=events))
    assert isinstance(error, ValueError)
    assert error.index == index
    assert str(error).startswith(f"events[{index}]: ")
    assert reason in str(error)


@pytest.mark.parametrize(
    "action",
    [pytest.param(["draw"], id="a-list"), pytest.param({"draw": 1}, id="an-object")],
)
def test_import_refuses_an_action_that_is_not_text(action):
    # JSON can hold any value where the action name should be: refused like any bad event.
    error = refused(known_record(events=[EVENTS[0], {"seat": 1, "action": action}]))
    assert error.index == 1


def test_import_refuses_events_that_stop_before_the_round_ends():
    error = refused(known_record(events=EVENTS[:-1]))
    assert error.index is None
    assert "end before the round" in str(error)


def test_import_refuses_a_record_without_events():
    error = refused(known_record(events=[]))
    assert error.index is None
    assert "end before the round" in str(error)


@pytest.mark.parametrize(
    "result",
    [
        pytest.param({"winner": 0, "reason": "domino", "points": 14}, id="points"),
        pytest.param({"winner": 1, "reason": "domino", "points": 15}, id="winner"),
        pytest.param({"winner": None, "reason": "domino", "points": 15}, id="no-winner"),
        pytest.param({"winner": 0, "reason": "blocked", "points": 15}, id="reason"),
        pytest.param({"winner": 0, "reason": "domino"}, id="missing-points"),
        pytest.param({"winner": 0, "reason": "domino", "points": 15, "x": 1}, id="extra-key"),
        pytest.param({"winner": "0", "reason": "domino", "points": 15}, id="winner-as-text"),
        pytest.param({"winner": False, "reason": "domino", "points": 15}, id="winner-false"),
        pytest.param({"winner": 0, "reason": "domino", "points": 15.0}, id="points-float"),
    ],
)
def test_import_refuses_a_wrong_result(result):
    error = refused(known_record(result=result))
    assert error.index is None
    assert "result" in str(error)


HANDS = [HAND_0_TEXT.split(), HAND_1_TEXT.split()]
BONES = BONEYARD_TEXT.split()


@pytest.mark.parametrize(
    ("deal", "reason"),
    [
        pytest.param(
            {"hands": [HANDS[0], [*HANDS[1][:-1], "0-1"]], "boneyard": BONES},
            "full set",
            id="duplicate-tile",
        ),
        pytest.param(
            {"hands": [HANDS[0][:-1], HANDS[1]], "boneyard": [*BONES, HANDS[0][-1]]},
            "hand 0 has 6 tiles",
            id="short-hand",
        ),
        pytest.param(
            {"hands": [[*HANDS[0], BONES[0]], HANDS[1]], "boneyard": BONES[1:]},
            "hand 0 has 8 tiles",
            id="long-hand",
        ),
        pytest.param(
            {"hands": HANDS, "boneyard": BONES[:-1]}, "boneyard has 13 tiles", id="short-boneyard"
        ),
        pytest.param({"hands": [HANDS[0]], "boneyard": BONES}, "1 hands", id="one-hand"),
        pytest.param(
            {"hands": [HANDS[0], [*HANDS[1][:-1], "2-0"]], "boneyard": BONES},
            "low-high",
            id="tile-high-low",
        ),
        pytest.param(
            {"hands": HANDS, "boneyard": [*BONES[:-1], "7-1"]}, "7-1", id="tile-out-of-range"
        ),
        pytest.param({"hands": HANDS}, "boneyard", id="no-boneyard"),
        pytest.param({"hands": HANDS, "boneyard": BONES, "x": 1}, "boneyard", id="extra-key"),
    ],
)
def test_import_refuses_a_bad_deal(deal, reason):
    rec = known_record()
    rec["deal"] = deal
    error = refused(rec)
    assert error.index is None
    assert str(error).startswith("deal: ")
    assert reason in str(error)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda rec: rec.update(extra=1), id="extra-key"),
        pytest.param(lambda rec: rec.pop("seats"), id="no-seats"),
        pytest.param(lambda rec: rec.update(seats=["ann"]), id="one-seat"),
        pytest.param(lambda rec: rec.update(seats=["ann", 2]), id="seat-name-not-text"),
        pytest.param(lambda rec: rec.update(events={"0": EVENTS[0]}), id="events-not-a-list"),
    ],
)
def test_import_refuses_a_bad_record_shape(change):
    rec = known_record()
    change(rec)
    error = refused(rec)
    assert error.index is None


def test_import_refuses_something_that_is_not_a_record():
    for value in (None, [], "record", 3):
        assert refused(value).index is None
