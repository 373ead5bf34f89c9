"""A public table's clock as the room's commands keep it (SPEC §12, issue 31): the "clock",
"timeout" and "abandon" events, folded like every other (domino/commands.py, domino/room.py).
No store: each decision's events fold into the next position, as the store would replay them."""

from __future__ import annotations

import random

import pytest

from domino import commands
from domino.clock import TIMEOUTS, Timing
from domino.events import DRAW, PASS
from domino.game import legal_actions
from domino.players.results import finished
from domino.room import PUBLIC_LEVEL, RoomError, fold, secret_hash
from domino.rules import PRESETS
from domino.views import table_view

TIMING = Timing(move=20.0, bank=60.0)
T0 = 1_000.0


def public(game="match-100", people=2, at=T0, timing=TIMING):
    """A public room of `game`: people in the first `people` seats, the computer after."""
    rules = PRESETS[game]
    seats = [(secret_hash(f"s{n}"), f"P{n}") if n < people else None for n in range(rules.seats)]
    return commands.create_public("pub", rules, seats, random.Random(3), timing, at)


def refold(decisions):
    """The room folded again from every event of `decisions` (what a restart reads)."""
    events, seq = [], 0
    for decision in decisions:
        for kind, data in decision.events:
            seq += 1
            events.append((seq, kind, data))
    return fold("pub", "public", events)


def play(room, at):
    """The seat on move's first legal action, made at `at`, with its clock event."""
    seat = room.round.turn
    action = legal_actions(room.round, seat)[0]
    return commands.clocked(commands.move(room, seat, action), at)


def test_a_public_table_starts_its_clock_with_the_first_deal():
    room = public().room
    assert room.clock.seat == room.round.turn and room.clock.since == T0
    assert room.clock.move == 20.0 and room.clock.banks == (60.0, 60.0)  # its timing
    assert commands.deadline(room) == T0 + 80.0


def test_friend_rooms_and_unclocked_public_rooms_have_no_clock():
    room = public(timing=None).room
    assert room.clock is None and commands.deadline(room) is None
    assert commands.clocked(play(room, T0 + 5), T0 + 5).room.clock is None


def test_the_turn_passing_stores_its_moment_and_a_slow_move_spends_the_bank():
    first = public()
    mover = first.room.round.turn
    moved = play(first.room, T0 + 50.0)  # 30 s past its move time
    room = moved.room
    if room.round.turn == mover:  # it drew: the turn (and its time) runs on
        assert moved.events[-1][0] != "clock"
        return
    assert moved.events[-1] == ("clock", {"seat": room.round.turn, "at": T0 + 50.0})
    assert room.clock.banks[mover] == 30.0
    assert refold([first, moved]) == room  # a restart reads the same clock


def test_a_restart_keeps_every_deadline():
    decisions = [public()]
    room, at = decisions[0].room, T0
    for _ in range(12):
        if room.round.over:
            break
        at += 7.5
        decisions.append(play(room, at))
        room = decisions[-1].room
    again = refold(decisions)
    assert again == room and commands.deadline(again) == commands.deadline(room)


def test_the_clock_runs_out_and_the_computer_moves_for_the_seat_marked_as_a_timeout():
    created = public()
    room = created.room
    seat, due = room.round.turn, commands.deadline(room)
    assert commands.time_out(room, room.seq, due - 0.1, random.Random(1)) is None  # early
    assert commands.time_out(room, room.seq - 1, due, random.Random(1)) is None  # moved on
    timed = commands.time_out(room, room.seq, due, random.Random(1))
    assert timed.events == (("timeout", {"seat": seat}),)
    room = timed.room
    assert room.overdue == seat and room.computer_to_move and room.level_of(seat) == PUBLIC_LEVEL
    assert commands.deadline(room) is None  # the computer is moving: no second timeout
    with pytest.raises(RoomError, match="timed-out"):
        commands.decide(room, seat, "pass", {}, {0, 1}, random.Random(1))
    index = len(room.round.history)
    while room.round.turn == seat:  # the computer's move: drawing keeps the turn and the mark
        action = legal_actions(room.round, seat)[0]
        room = commands.clocked(commands.computer_move(room, room.seq, action, ()), due + 1).room
    # every move the computer made for the seat this turn is marked, and nobody else's
    assert room.timed_out == set(range(index, len(room.round.history))) and room.overdue is None
    assert room.clock.banks[seat] == 0.0 and room.clock.timeouts[seat] == 1
    assert room.bots[seat] is None  # still the player's seat


def test_three_timeouts_in_a_match_abandon_the_seat_and_its_player_loses():
    room = public().room
    seat, timeouts, at = room.round.turn, 0, T0
    while timeouts < TIMEOUTS:
        if room.round.turn == seat and room.overdue is None:
            due = commands.deadline(room)
            room = commands.time_out(room, room.seq, due, random.Random(1)).room
            timeouts, at = timeouts + 1, due
            continue
        at += 1.0
        mover = room.round.turn
        if mover == seat:  # the computer's move for the seat that timed out
            action = legal_actions(room.round, mover)[0]
            room = commands.clocked(commands.computer_move(room, room.seq, action, ()), at).room
        else:
            room = play(room, at).room
        assert not room.round.over, "the round ended before three timeouts: pick another seed"
    assert seat in room.lost and room.bots[seat] == PUBLIC_LEVEL
    assert commands.due_back(room, {0, 1}) == []  # it is not given back
    with pytest.raises(RoomError, match="match-lost"):
        commands.decide(room, seat, "pass", {}, {0, 1}, random.Random(1))


def test_an_away_player_abandons_the_match_once_and_only_while_it_is_in_play():
    room = public().room
    abandoned = commands.abandon(room, 1, "away", random.Random(1))
    assert abandoned.events[-1] == ("abandon", {"seat": 1, "why": "away"})
    room = abandoned.room
    assert room.lost == {1} and room.bots[1] == PUBLIC_LEVEL and room.humans == (0,)
    assert commands.abandon(room, 1, "away", random.Random(1)) is None  # once
    assert commands.abandon(room, 0, "away", random.Random(1)).room.lost == {0, 1}


def test_play_never_waits_for_an_away_player_at_a_public_table():
    room = public().room
    seat = room.round.turn
    action = legal_actions(room.round, seat)[0]
    if action in (DRAW, PASS):
        name, params = ("draw" if action == DRAW else "pass"), {}
    else:
        name, params = "play", {"tile": str(action.tile), "end": action.end}
    decided = commands.decide(room, seat, name, params, {seat}, random.Random(1))
    assert decided.events  # the other seat is not here, and the move is made


def test_hand_over_and_rematch_are_not_public_table_commands():
    room = public().room
    with pytest.raises(RoomError, match="public-clock"):
        commands.hand_over(room, 0, 1, {0}, {1}, random.Random(1))


def test_between_rounds_of_a_match_the_next_round_comes_after_the_move_time():
    room, at = public().room, T0
    while not room.round.over:
        at += 1.0
        room = play(room, at).room
    assert room.clock.seat is None
    if room.match.over:
        assert commands.deadline(room) is None  # a match over waits for nobody
        return
    assert commands.deadline(room) == at + 20.0
    assert table_view(room, 0, {0, 1}, now=at + 5.0).next_in == 15  # the table counts it down
    dealt = commands.time_out(room, room.seq, at + 20.0, random.Random(1))
    dealt = commands.clocked(dealt, at + 20.0)
    assert dealt.room.rounds == room.rounds + 1 and dealt.room.clock.seat == dealt.room.round.turn


def test_a_public_table_gives_up_no_round_and_its_match_over_is_its_last():
    room = public().room
    with pytest.raises(RoomError, match="public-round"):  # it would reset the clock
        commands.decide(room, 0, "new-round", {}, {0, 1}, random.Random(1))
    room, at = public("classic").room, T0  # without a target, a round is the match
    while not room.round.over:
        at += 1.0
        room = play(room, at).room
    assert room.match_over and commands.deadline(room) is None
    for seat in (0, 1):
        with pytest.raises(RoomError, match="public-over"):
            commands.decide(room, seat, "new-round", {}, {0, 1}, random.Random(1))
        with pytest.raises(RoomError, match="public-rematch"):
            commands.decide(room, seat, "rematch", {}, {0, 1}, random.Random(1))


def test_between_rounds_of_a_match_continue_deals_the_next_round():
    room, at = public().room, T0
    while not room.round.over:
        at += 1.0
        room = play(room, at).room
    if room.match.over:
        return  # a round that ended the match: the test above covers it
    first = commands.decide(room, 0, "new-round", {}, {0, 1}, random.Random(1)).room
    dealt = commands.decide(first, 1, "accept-new-round", {}, {0, 1}, random.Random(1))
    assert dealt.room.rounds == room.rounds + 1


def test_a_public_match_nobody_came_to_leaves_no_result():
    def played_out(room):
        at = T0
        while True:
            at += 1.0
            decision = play(room, at)
            if decision.room.round.over:
                return decision
            room = decision.room

    unseen = played_out(public("classic").room)  # opened twice, or its wave was lost
    assert finished(unseen.before, unseen.room) is None
    came = commands.reseat(public("classic").room, 1, "bob's browser").room
    assert came.arrived == {1}
    ended = played_out(came)
    result = finished(ended.before, ended.room)
    assert result is not None and result["kind"] == "public"
