"""Stake tables in the lobby (SPEC §13, issue 32): domino/lobby/stakes.py through the Lobby's
own API. A stake is held as the player joins a forming table; a wave opens it once full;
leaving refunds at once; an unfilled table expires, every stake back; the match's result pays
the pot to the winners (a draw refunds, an abandoned seat forfeits) once by its key. Then a
state machine of random grants, joins, leaves, waves, expiries and results at stake and free
tables, every invariant of the ledger and of the stake tables checked after each step; and
200 joins at once of one player with coins for one stake."""

from __future__ import annotations

import multiprocessing
import shutil
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from domino.lobby import Lobby, QueueRefused
from domino.lobby.ledger import BANK, escrow_account, player_account
from domino.lobby.stakes import WAIT_SECONDS
from domino.players.coins import STAKES, rewards
from domino.players.pairing import SEATS
from domino.players.results import parse
from domino.web.live.tables import Opened
from domino.web.live.waves import Waves
from tests.support import results
from tests.support.ledger import audited
from tests.support.lobby import fold

NOON = results.MONDAY + 12 * 3600  # the waves' clock starts here
GRANT = 1000


# -- the pieces: a fake rooms' side of the waves' seam, a clock, results with a stake


@dataclass(frozen=True)
class Opening:
    room: str
    game: str
    seats: tuple[str | None, ...]  # player ids by seat (None: the computer)
    stake: int


class Rooms:
    """The waves' `open_table`, faked: each table it is asked to open is recorded."""

    def __init__(self, prefix: str = "room") -> None:
        self.prefix = prefix
        self.opened: list[Opening] = []

    def __call__(self, game: str, seats, stake: int = 0) -> Opened:
        room = f"{self.prefix}-{len(self.opened) + 1}"
        people = tuple(None if seat is None else seat[0] for seat in seats)
        self.opened.append(Opening(room, game, people, stake))
        return Opened(room, {p: f"/r/{room}/grant?token={p}" for p in people if p})


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def waves(lobby, clock: Clock, rooms: Rooms) -> Waves:
    return Waves(lobby, rooms, clock=clock, stake_wait=WAIT_SECONDS)


def stake_result(opening: Opening, places, gone=(), match: int = 1) -> dict:
    """The result a shard writes when a stake room's match ends: `places` by side (seat at
    match-100, seat % 2 at pairs), `gone` the seats abandoned."""
    teams = len(opening.seats) == 4
    rows = [
        (player, places[seat % 2 if teams else seat], None, seat in gone)
        for seat, player in enumerate(opening.seats)
    ]
    data = results.result(opening.room, match, rows, game=opening.game, teams=teams)
    return {**data, "stake": opening.stake}


def moves(lobby, player: str) -> list[tuple[str, int]]:
    """The player's entries after their grant, oldest first: (reason, signed amount)."""
    return [(e.reason, e.amount) for e in reversed(lobby.statement(player))][1:]


@pytest.fixture
def people(lobby):
    return [lobby.take_name(name, now=NOON)[0].id for name in ("Ana", "Bob", "Cleo", "Dan", "Eve")]


@pytest.fixture
def clock():
    return Clock(NOON)


@pytest.fixture
def rooms():
    return Rooms()


def snapshot(lobby, players, tables=()):
    """Everything a refused join must leave alone."""
    return (
        [lobby.coins(p) for p in players],
        [lobby.statement(p) for p in players],
        lobby.waiting(),
        lobby.stake_tables(),
        [lobby.held(t) for t in tables],
        lobby.balance(BANK),
    )


# -- joining and filling


def test_joining_holds_the_stake_at_a_table_forming(lobby, people, path):
    ana = people[0]
    table = lobby.join_stake(ana, "match-100", 250, 2, now=NOON)
    assert lobby.coins(ana) == 750
    assert lobby.held(table) == {ana: 250}
    assert lobby.balance(escrow_account(table)) == 250
    formed = lobby.stake_table(table)
    assert (formed.game, formed.stake, formed.seats, formed.state, formed.room) == (
        "match-100",
        250,
        2,
        "forming",
        None,
    )
    queued = lobby.queued(ana)
    assert (queued.game, queued.stake, queued.table) == ("match-100", 250, table)
    assert moves(lobby, ana) == [("stake", -250)]
    assert lobby.statement(ana)[0].other == escrow_account(table)
    assert audited(path) == []


def test_the_second_player_fills_the_table_and_a_wave_seats_both(lobby, people, clock, rooms, path):
    ana, bob = people[:2]
    table = lobby.join_stake(ana, "match-100", 250, 2, now=NOON)
    assert lobby.join_stake(bob, "match-100", 250, 2, now=NOON + 5) == table
    clock.now = NOON + 6
    (opened,) = waves(lobby, clock, rooms).wave()
    (opening,) = rooms.opened
    assert opening.stake == 250 and opening.game == "match-100"
    assert set(opening.seats) == {ana, bob}  # people only: no computer at a stake table
    assert set(opened.grants) == {ana, bob}
    seated = lobby.stake_table(table)
    assert (seated.state, seated.room) == ("seated", opened.room)
    assert lobby.waiting() == []
    assert lobby.seated(ana).room == lobby.seated(bob).room == opened.room
    assert lobby.balance(escrow_account(table)) == 500  # held until the match ends
    assert (lobby.coins(ana), lobby.coins(bob)) == (750, 750)
    assert audited(path) == []


def test_one_alone_at_a_stake_is_never_given_the_computer(lobby, people, clock, rooms):
    ana = people[0]
    table = lobby.join_stake(ana, "match-100", 100, 2, now=NOON)
    clock.now = NOON + WAIT_SECONDS - 1  # long past the free tables' fill time
    assert waves(lobby, clock, rooms).wave() == [] and rooms.opened == []
    assert lobby.stake_table(table).state == "forming"
    assert lobby.queued(ana).table == table


def test_a_pairs_table_fills_at_four_and_the_fifth_opens_another(lobby, people, clock, rooms):
    wave = waves(lobby, clock, rooms)
    tables = [lobby.join_stake(p, "pairs", 500, 4, now=NOON + n) for n, p in enumerate(people[:3])]
    assert len(set(tables)) == 1
    clock.now = NOON + 10
    assert wave.wave() == []
    assert lobby.stake_table(tables[0]).state == "forming"
    assert lobby.join_stake(people[3], "pairs", 500, 4, now=NOON + 11) == tables[0]
    other = lobby.join_stake(people[4], "pairs", 500, 4, now=NOON + 12)
    assert other != tables[0]
    clock.now = NOON + 13
    (opened,) = wave.wave()
    (opening,) = rooms.opened
    assert opened.room == opening.room and set(opened.grants) == set(people[:4])
    assert set(opening.seats) == set(people[:4]) and opening.stake == 500
    assert lobby.stake_table(tables[0]).state == "seated"
    assert lobby.balance(escrow_account(tables[0])) == 2000
    assert [q.player for q in lobby.waiting()] == [people[4]]
    assert lobby.queued(people[4]).table == other


def test_tables_at_another_stake_or_game_form_apart(lobby, people):
    ana, bob, cleo = people[:3]
    at_100 = lobby.join_stake(ana, "match-100", 100, 2, now=NOON)
    assert lobby.join_stake(bob, "match-100", 250, 2, now=NOON + 1) != at_100
    assert lobby.join_stake(cleo, "pairs", 100, 4, now=NOON + 2) != at_100
    assert len(lobby.stake_tables("forming")) == 3


def test_a_stake_join_replaces_a_free_queue_entry_and_then_free_joins_are_refused(lobby, people):
    ana = people[0]
    lobby.join_queue(ana, "classic", now=NOON)
    table = lobby.join_stake(ana, "pairs", 100, 4, now=NOON + 1)
    (entry,) = lobby.waiting()
    assert (entry.game, entry.stake, entry.table) == ("pairs", 100, table)
    with pytest.raises(QueueRefused) as refused:
        lobby.join_queue(ana, "classic", now=NOON + 2)
    assert refused.value.code == "already-staked"
    assert lobby.waiting() == [entry] and lobby.coins(ana) == 900


# -- leaving and expiry


def test_leaving_refunds_at_once_and_the_last_to_leave_closes_the_escrow_expired(
    lobby, people, path
):
    ana, bob, cleo = people[:3]
    table = lobby.join_stake(ana, "pairs", 250, 4, now=NOON)
    lobby.join_stake(bob, "pairs", 250, 4, now=NOON + 1)
    assert lobby.leave_queue(ana, now=NOON + 2) == 250
    assert lobby.coins(ana) == GRANT and lobby.queued(ana) is None
    assert moves(lobby, ana) == [("stake", -250), ("refund", 250)]
    assert lobby.held(table) == {bob: 250}
    assert lobby.stake_table(table).state == "forming"
    assert lobby.escrow_state(table) is None
    assert lobby.leave_queue(ana, now=NOON + 3) is None  # not queued any more
    assert lobby.leave_queue(bob, now=NOON + 4) == 250
    assert lobby.stake_table(table).state == "expired"
    assert lobby.escrow_state(table) == "expired"
    assert lobby.balance(escrow_account(table)) == 0
    assert lobby.join_stake(cleo, "pairs", 250, 4, now=NOON + 5) != table  # a new one
    assert audited(path) == []


def test_a_stake_held_overnight_counts_as_the_players_for_the_days_top_up(lobby, people, path):
    ana, bob = people[:2]
    table = lobby.join_stake(ana, "match-100", 1000, 2, now=NOON)
    assert lobby.coins(ana) == 0
    next_day = NOON + 24 * 3600
    assert lobby.top_up(ana, now=next_day) == 0  # her 1000 are at the table, not gone
    assert lobby.leave_queue(ana, now=next_day + 1) == 1000
    assert lobby.coins(ana) == GRANT  # 1000, not 1200
    assert lobby.stake_table(table).state == "expired"
    lobby.join_stake(bob, "match-100", 1000, 2, now=next_day)
    assert lobby.top_up(bob, now=next_day + 24 * 3600) == 0
    assert audited(path) == []


def test_leaving_a_free_queue_returns_nothing(lobby, people):
    ana = people[0]
    lobby.join_queue(ana, "classic", now=NOON)
    assert lobby.leave_queue(ana, now=NOON + 1) == 0
    assert lobby.coins(ana) == GRANT and lobby.waiting() == []


def test_an_unfilled_table_expires_every_stake_back_with_a_notice_for_each(
    lobby, people, clock, rooms, path
):
    ana, bob, cleo = people[:3]
    table = lobby.join_stake(ana, "pairs", 500, 4, now=NOON)
    lobby.join_stake(bob, "pairs", 500, 4, now=NOON + 30)
    lobby.join_queue(cleo, "classic", now=NOON + WAIT_SECONDS - 5)  # not yet filled
    wave = waves(lobby, clock, rooms)
    clock.now = NOON + WAIT_SECONDS - 1
    wave.wave()
    assert lobby.stake_table(table).state == "forming" and lobby.stake_notice(ana) is None
    clock.now = NOON + WAIT_SECONDS  # two minutes after it opened, not after the last join
    wave.wave()
    assert lobby.stake_table(table).state == "expired"
    assert lobby.escrow_state(table) == "expired"
    assert (lobby.coins(ana), lobby.coins(bob)) == (GRANT, GRANT)
    assert moves(lobby, bob) == [("stake", -500), ("refund", 500)]
    assert [q.player for q in lobby.waiting()] == [cleo]  # the free queue stays
    for player in (ana, bob):
        notice = lobby.stake_notice(player)
        assert (notice.table_id, notice.game, notice.stake, notice.what) == (
            table,
            "pairs",
            500,
            "expired",
        )
        assert notice.at == clock.now
    assert lobby.stake_notice(cleo) is None
    lobby.join_stake(ana, "pairs", 100, 4, now=clock.now + 1)
    assert lobby.stake_notice(ana) is None  # a new join forgets it
    assert audited(path) == []


def test_a_table_past_its_wait_takes_no_new_player_before_the_wave_expires_it(lobby, people):
    ana, bob = people[:2]
    old = lobby.join_stake(ana, "match-100", 100, 2, now=NOON)
    assert lobby.join_stake(bob, "match-100", 100, 2, now=NOON + WAIT_SECONDS + 1) != old
    assert lobby.expire_stakes(NOON + 1, now=NOON + WAIT_SECONDS + 2) == [old]
    assert lobby.coins(ana) == GRANT and lobby.coins(bob) == 900


def test_expiry_without_a_table_due_writes_nothing(lobby, people):
    lobby.join_stake(people[0], "match-100", 100, 2, now=NOON)
    assert lobby.expire_stakes(NOON - 1, now=NOON) == []
    assert lobby.stake_tables("forming")


# -- blocks


def test_a_block_keeps_two_apart_and_the_next_joins_the_oldest_table_it_may(
    lobby, people, clock, rooms
):
    ana, bob, cleo = people[:3]
    lobby.block(ana, bob)
    first = lobby.join_stake(ana, "match-100", 100, 2, now=NOON)
    second = lobby.join_stake(bob, "match-100", 100, 2, now=NOON + 1)
    assert first != second
    assert lobby.join_stake(cleo, "match-100", 100, 2, now=NOON + 2) == first
    clock.now = NOON + 3
    waves(lobby, clock, rooms).wave()
    (opening,) = rooms.opened
    assert set(opening.seats) == {ana, cleo}
    assert lobby.queued(bob).table == second


def test_a_block_made_after_joining_keeps_the_table_closed_until_it_expires(
    lobby, people, clock, rooms
):
    ana, bob = people[:2]
    table = lobby.join_stake(ana, "match-100", 100, 2, now=NOON)
    lobby.join_stake(bob, "match-100", 100, 2, now=NOON + 1)
    lobby.block(bob, ana)
    wave = waves(lobby, clock, rooms)
    clock.now = NOON + 2
    assert wave.wave() == [] and rooms.opened == []
    clock.now = NOON + WAIT_SECONDS
    wave.wave()
    assert lobby.stake_table(table).state == "expired"
    assert (lobby.coins(ana), lobby.coins(bob)) == (GRANT, GRANT)


# -- refusals


def test_a_second_stake_while_one_is_held_is_refused_and_changes_nothing(lobby, people, path):
    ana = people[0]
    table = lobby.join_stake(ana, "match-100", 1000, 2, now=NOON)
    before = snapshot(lobby, people, [table])
    for game, stake, seats in (("match-100", 100, 2), ("pairs", 250, 4), ("match-100", 1000, 2)):
        with pytest.raises(QueueRefused) as refused:
            lobby.join_stake(ana, game, stake, seats, now=NOON + 1)
        assert refused.value.code == "already-staked"
    with pytest.raises(QueueRefused) as refused:
        lobby.join_queue(ana, "classic", now=NOON + 1)
    assert refused.value.code == "already-staked"
    assert snapshot(lobby, people, [table]) == before
    assert audited(path) == []


def test_too_few_coins_refuse_the_join_and_open_no_table(lobby, people, clock, rooms, path):
    ana, bob = people[:2]
    lobby.join_stake(ana, "match-100", 1000, 2, now=NOON)
    lobby.join_stake(bob, "match-100", 1000, 2, now=NOON + 1)
    clock.now = NOON + 2
    waves(lobby, clock, rooms).wave()
    (opening,) = rooms.opened
    lobby.apply_result(
        stake_result(opening, {opening.seats.index(ana): 1, opening.seats.index(bob): 2}),
        now=NOON + 600,
    )
    assert (lobby.coins(ana), lobby.coins(bob)) == (2000, 0)
    lobby.join_queue(bob, "classic", now=NOON + 601)  # waiting for a free table
    before = snapshot(lobby, people)
    with pytest.raises(QueueRefused) as refused:
        lobby.join_stake(bob, "match-100", 100, 2, now=NOON + 602)
    assert refused.value.code == "not-enough-coins"
    assert snapshot(lobby, people) == before  # no table opened for him, his place kept
    assert audited(path) == []


# -- results


def seat_up(lobby, clock, rooms, game, stake, players) -> tuple[str, Opening]:
    """`players` join one table of `game` at `stake` and a wave seats them: the table and
    the room it opened as."""
    seats = SEATS[game]
    tables = {lobby.join_stake(p, game, stake, seats, now=clock.now) for p in players}
    assert len(tables) == 1
    clock.now += 1
    waves(lobby, clock, rooms).wave()
    opening = rooms.opened[-1]
    assert set(opening.seats) == set(players)
    return tables.pop(), opening


def test_the_winner_of_a_stake_duel_takes_the_whole_pot_and_no_reward(
    lobby, people, clock, rooms, path
):
    ana, bob = people[:2]
    table, opening = seat_up(lobby, clock, rooms, "match-100", 250, [ana, bob])
    winner, loser = opening.seats
    applied = lobby.apply_result(stake_result(opening, {0: 1, 1: 2}), now=clock.now + 600)
    assert applied.new and applied.counted
    assert (lobby.coins(winner), lobby.coins(loser)) == (GRANT + 250, GRANT - 250)
    assert moves(lobby, winner) == [("stake", -250), ("pot", 500)]  # no reward beside it
    assert moves(lobby, loser) == [("stake", -250)]
    assert lobby.statement(winner)[0].ref == f"{opening.room}/1"
    assert lobby.stake_table(table).state == "settled"
    assert lobby.escrow_state(table) == "settled"
    assert lobby.balance(escrow_account(table)) == 0
    assert lobby.balance(BANK) == -5 * GRANT  # nothing kept, nothing added
    assert audited(path) == []


def test_pairs_split_the_pot_between_partners(lobby, people, clock, rooms, path):
    table, opening = seat_up(lobby, clock, rooms, "pairs", 500, people[:4])
    lobby.apply_result(stake_result(opening, {0: 2, 1: 1}), now=clock.now + 600)
    seats = opening.seats
    assert [lobby.coins(p) for p in seats] == [500, 1500, 500, 1500]
    for winner in (seats[1], seats[3]):
        assert moves(lobby, winner) == [("stake", -500), ("pot", 1000)]
    assert lobby.stake_table(table).state == "settled"
    assert audited(path) == []


def test_an_odd_coin_of_a_split_goes_to_the_earlier_seat(lobby, people, clock, rooms, path):
    """With the four stakes every pairs split is even; a stake the lobby takes but the web
    never offers (101) shows where the odd coin of a forfeit goes: seat 0 before seat 2."""
    table, opening = seat_up(lobby, clock, rooms, "pairs", 101, people[:4])
    lobby.apply_result(stake_result(opening, {0: 1, 1: 1}, gone={3}), now=clock.now + 600)
    seats = opening.seats
    paid = {
        seat: sorted(m for m in moves(lobby, seats[seat]) if m[0] != "stake") for seat in range(4)
    }
    assert paid == {
        0: [("forfeit", 51), ("pot", 151)],  # 202: half the pot, its odd forfeit coin first
        1: [],
        2: [("forfeit", 50), ("pot", 152)],  # 202 as well: the odd coin is in the forfeit
        3: [],
    }
    assert [lobby.coins(p) for p in seats] == [1101, 899, 1101, 899]
    assert lobby.balance(escrow_account(table)) == 0
    assert audited(path) == []


def test_a_draw_refunds_every_stake(lobby, people, clock, rooms, path):
    ana, bob = people[:2]
    table, opening = seat_up(lobby, clock, rooms, "match-100", 1000, [ana, bob])
    lobby.apply_result(stake_result(opening, {0: 1, 1: 1}), now=clock.now + 600)
    for player in (ana, bob):
        assert lobby.coins(player) == GRANT
        assert moves(lobby, player) == [("stake", -1000), ("refund", 1000)]
    assert lobby.escrow_state(table) == "settled"
    assert audited(path) == []


def test_an_abandoned_seat_forfeits_its_stake_to_the_other(lobby, people, clock, rooms, path):
    ana, bob = people[:2]
    table, opening = seat_up(lobby, clock, rooms, "match-100", 500, [ana, bob])
    stayed, gone = opening.seats
    # the seat that left was ahead on points when it went: it loses all the same
    lobby.apply_result(stake_result(opening, {0: 2, 1: 1}, gone={1}), now=clock.now + 600)
    assert (lobby.coins(stayed), lobby.coins(gone)) == (1500, 500)
    assert sorted(moves(lobby, stayed)[1:]) == [("forfeit", 500), ("pot", 500)]
    assert lobby.escrow_state(table) == "settled"
    assert audited(path) == []


def test_at_pairs_an_abandoned_seat_forfeits_to_the_other_side(lobby, people, clock, rooms, path):
    table, opening = seat_up(lobby, clock, rooms, "pairs", 250, people[:4])
    seats = opening.seats
    lobby.apply_result(stake_result(opening, {0: 1, 1: 2}, gone={2}), now=clock.now + 600)
    assert [lobby.coins(p) for p in seats] == [750, 1250, 750, 1250]
    for winner in (seats[1], seats[3]):
        assert sorted(moves(lobby, winner)[1:]) == [("forfeit", 125), ("pot", 375)]
    assert lobby.balance(escrow_account(table)) == 0
    assert audited(path) == []


def test_when_everybody_abandoned_the_pot_is_forfeit_to_the_bank(lobby, people, clock, rooms, path):
    ana, bob = people[:2]
    table, opening = seat_up(lobby, clock, rooms, "match-100", 100, [ana, bob])
    lobby.apply_result(stake_result(opening, {0: 1, 1: 2}, gone={0, 1}), now=clock.now + 600)
    assert (lobby.coins(ana), lobby.coins(bob)) == (900, 900)
    assert lobby.balance(BANK) == -5 * GRANT + 200
    assert lobby.escrow_state(table) == "settled"
    assert audited(path) == []


def test_a_result_delivered_twice_pays_once(lobby, people, clock, rooms, path):
    ana, bob = people[:2]
    table, opening = seat_up(lobby, clock, rooms, "match-100", 250, [ana, bob])
    sent = stake_result(opening, {0: 1, 1: 2})
    assert lobby.apply_result(sent, now=clock.now + 600).new
    paid = [lobby.statement(p) for p in (ana, bob)]
    assert not lobby.apply_result(dict(sent), now=clock.now + 700).new
    assert [lobby.statement(p) for p in (ana, bob)] == paid
    assert lobby.result_keys() == [sent["key"]]
    assert lobby.stake_table(table).state == "settled"
    assert audited(path) == []


def test_a_stake_result_for_a_room_the_lobby_never_seated_pays_nothing(lobby, people, path):
    ana, bob = people[:2]
    before = snapshot(lobby, people)
    stranger = Opening("room-nobody-seated", "match-100", (ana, bob), 1000)
    applied = lobby.apply_result(stake_result(stranger, {0: 1, 1: 2}), now=NOON)
    assert applied.new and not applied.counted
    assert snapshot(lobby, people) == before  # no pot, no reward, no refund
    assert lobby.result_keys() == ["room-nobody-seated/1"]
    assert audited(path) == []


def test_a_stake_result_with_another_stake_than_its_tables_pays_nothing(
    lobby, people, clock, rooms
):
    ana, bob = people[:2]
    table, opening = seat_up(lobby, clock, rooms, "match-100", 250, [ana, bob])
    forged = stake_result(Opening(opening.room, opening.game, opening.seats, 1000), {0: 1, 1: 2})
    assert not lobby.apply_result(forged, now=clock.now + 600).counted
    assert (lobby.coins(ana), lobby.coins(bob)) == (750, 750)
    assert lobby.stake_table(table).state == "seated"
    assert lobby.balance(escrow_account(table)) == 500


def test_a_result_naming_a_stranger_pays_them_nothing_and_refunds_the_absent_holder(
    lobby, people, clock, rooms, path
):
    ana, bob, cleo = people[:3]
    table, opening = seat_up(lobby, clock, rooms, "match-100", 250, [ana, bob])
    seats = tuple(cleo if p == bob else p for p in opening.seats)  # not as the lobby seated
    won = seats.index(cleo)
    forged = stake_result(Opening(opening.room, opening.game, seats, 250), {won: 1, 1 - won: 2})
    lobby.apply_result(forged, now=clock.now + 600)
    assert lobby.coins(cleo) == GRANT  # she staked nothing: she wins nothing
    assert lobby.coins(bob) == GRANT  # his stake, held but not at the table, comes back
    assert lobby.coins(ana) == 750 + 250  # the only holder seated: the pot of stakes held
    assert lobby.balance(escrow_account(table)) == 0
    assert lobby.escrow_state(table) == "settled"
    assert audited(path) == []


# -- a wave racing a leave


def test_a_wave_whose_table_lost_a_player_meanwhile_seats_nobody_of_it(
    lobby, people, clock, rooms, path
):
    ana, bob = people[:2]
    table = lobby.join_stake(ana, "match-100", 250, 2, now=NOON)
    lobby.join_stake(bob, "match-100", 250, 2, now=NOON + 1)
    entries = lobby.waiting()  # the wave read the queue, and opens the room ...
    assert lobby.leave_queue(ana, now=NOON + 2) == 250  # ... while Ana leaves
    lobby.record_wave([(e, "room-late", f"/r/room-late/grant?{e.player}") for e in entries])
    assert lobby.stake_table(table).state == "forming" and lobby.stake_table(table).room is None
    assert lobby.seated(ana) is None and lobby.seated(bob) is None
    assert [q.player for q in lobby.waiting()] == [bob]
    assert lobby.held(table) == {bob: 250}
    late = Opening("room-late", "match-100", (ana, bob), 250)  # its result counts for nothing
    assert not lobby.apply_result(stake_result(late, {0: 2, 1: 1}), now=NOON + 600).counted
    assert (lobby.coins(ana), lobby.coins(bob)) == (GRANT, 750)
    assert audited(path) == []


def test_a_wave_whose_table_expired_meanwhile_seats_nobody_of_it(lobby, people, path):
    ana, bob = people[:2]
    table = lobby.join_stake(ana, "match-100", 250, 2, now=NOON)
    lobby.join_stake(bob, "match-100", 250, 2, now=NOON + 1)
    entries = lobby.waiting()
    lobby.expire_stakes(NOON, now=NOON + WAIT_SECONDS)
    lobby.record_wave([(e, "room-late", f"/r/room-late/grant?{e.player}") for e in entries])
    assert lobby.stake_table(table).state == "expired"
    assert lobby.seated(ana) is None and lobby.seated(bob) is None
    assert (lobby.coins(ana), lobby.coins(bob)) == (GRANT, GRANT)
    assert audited(path) == []


def test_a_player_who_left_and_came_back_while_the_room_opened_is_not_left_queued(
    lobby, people, path
):
    ana, bob = people[:2]
    table = lobby.join_stake(ana, "match-100", 250, 2, now=NOON)
    lobby.join_stake(bob, "match-100", 250, 2, now=NOON + 1)
    entries = lobby.waiting()
    lobby.leave_queue(ana, now=NOON + 2)
    assert lobby.join_stake(ana, "match-100", 250, 2, now=NOON + 3) == table  # the same one
    lobby.record_wave([(e, "room-late", f"/r/room-late/grant?{e.player}") for e in entries])
    state = lobby.stake_table(table).state
    # Either the room is nobody's and both wait on, or both are seated and out of the queue.
    if state == "seated":
        assert lobby.waiting() == []
    else:
        assert state == "forming" and lobby.seated(ana) is None
        assert {q.player for q in lobby.waiting()} == {ana, bob}
    lobby.leave_queue(ana, now=NOON + 4)
    if state == "seated":  # the seated table's pot is whole
        assert lobby.balance(escrow_account(table)) == 500
        assert lobby.escrow_state(table) is None
    assert audited(path) == []


def test_a_deleted_players_stake_goes_back_and_their_table_no_longer_counts_them(
    lobby, people, clock, rooms
):
    ana, bob, cleo = people[:3]
    table = lobby.join_stake(ana, "match-100", 100, 2, now=NOON)
    lobby.delete_player(ana)
    lobby.join_stake(bob, "match-100", 100, 2, now=NOON + 1)
    lobby.join_stake(cleo, "match-100", 100, 2, now=NOON + 2)
    wave = waves(lobby, clock, rooms)
    for step in range(3):
        clock.now = NOON + 3 + 2 * step
        wave.wave()
    seated = {room for p in (bob, cleo) if (room := getattr(lobby.seated(p), "room", None))}
    assert {opening.room for opening in rooms.opened} == seated  # one room, theirs
    assert len(seated) == 1
    assert lobby.stake_table(table).state == "expired"  # emptied: her stake went back at once
    assert lobby.balance(escrow_account(table)) == 0
    assert lobby.coins(ana) == 1000


# -- 200 joins at once of one player with coins for one stake

ATTEMPTS = 200
REFUSED = {"already-staked", "not-enough-coins"}


def join_at_once(lobby, player: str, count: int, gate) -> list[str]:
    """`count` threads join at match-100 for 1000 coins as one: the table or the refusal."""
    answers: list[str] = []

    def join() -> None:
        gate.wait()
        try:
            answers.append(lobby.join_stake(player, "match-100", 1000, 2, now=NOON))
        except QueueRefused as refused:
            answers.append(refused.code)

    threads = [threading.Thread(target=join) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def held_exactly_one(lobby, path, player: str, answers) -> None:
    joined = [answer for answer in answers if answer not in REFUSED]
    assert len(joined) == 1 and len(answers) == ATTEMPTS
    assert Counter(answer in REFUSED for answer in answers) == {True: ATTEMPTS - 1, False: 1}
    (table,) = joined
    assert lobby.coins(player) == 0
    assert [e.reason for e in lobby.statement(player)] == ["stake", "grant"]
    assert lobby.held(table) == {player: 1000}
    assert [t.id for t in lobby.stake_tables()] == [table]  # no table of a refused join
    (entry,) = lobby.waiting()
    assert (entry.player, entry.table, entry.stake) == (player, table, 1000)
    assert audited(path) == []


def test_200_joins_at_once_with_coins_for_one_stake_hold_exactly_one(lobby, people, path):
    ana = people[0]
    answers = join_at_once(lobby, ana, ATTEMPTS, threading.Barrier(ATTEMPTS))
    held_exactly_one(lobby, path, ana, answers)


def test_200_players_joining_pairs_at_once_fill_50_tables_of_four(lobby, path):
    players = [lobby.take_name(f"P{n}", now=NOON)[0].id for n in range(ATTEMPTS)]
    gate = threading.Barrier(ATTEMPTS)
    tables: dict[str, str] = {}

    def join(player: str) -> None:
        gate.wait()
        tables[player] = lobby.join_stake(player, "pairs", 100, 4, now=NOON)

    threads = [threading.Thread(target=join, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sizes = Counter(tables.values())
    assert len(tables) == ATTEMPTS and sorted(sizes.values()) == [4] * (ATTEMPTS // 4)
    for table in sizes:
        assert set(lobby.held(table)) == {p for p, t in tables.items() if t == table}
    rooms = Rooms()
    waves(lobby, Clock(NOON + 1), rooms).wave()
    assert len(rooms.opened) == ATTEMPTS // 4 and lobby.waiting() == []
    assert all(t.state == "seated" for t in lobby.stake_tables())
    assert audited(path) == []


def _join_from_a_process(path, player: str, count: int, start, answers) -> None:
    """A process of its own with its own lobby on the same file: `count` joins at once."""
    lobby = Lobby(path, fold)
    gate = threading.Barrier(count + 1)
    waiting = threading.Thread(target=lambda: (start.wait(), gate.wait()))
    waiting.start()
    mine = join_at_once(lobby, player, count, gate)
    waiting.join()
    lobby.close()
    answers.extend(mine)


def test_200_joins_from_four_processes_at_once_hold_exactly_one(lobby, people, path):
    ana = people[0]
    spawn = multiprocessing.get_context("spawn")
    with spawn.Manager() as manager:
        start, answers = manager.Barrier(4), manager.list()
        processes = [
            spawn.Process(
                target=_join_from_a_process, args=(path, ana, ATTEMPTS // 4, start, answers)
            )
            for _ in range(4)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(120)
        assert [process.exitcode for process in processes] == [0] * 4
        held_exactly_one(lobby, path, ana, list(answers))


# -- properties: random sequences over the Lobby itself, every invariant after each step


@dataclass
class Forming:
    """The model of one stake table."""

    game: str
    stake: int
    seats: int
    opened_at: float
    state: str = "forming"
    members: list[str] | None = None  # in the order they joined
    room: Opening | None = None


def expected_payouts(stake: int, opening: Opening, places, gone) -> dict[str | None, int]:
    """Where a stake table's pot goes, worked out here on its own (None: the bank): a draw
    with nobody gone refunds; else the whole pot to the best-placed side's people who stayed
    (a side with an abandoned seat placed below every side without one), split equally, the
    odd coins to the earlier seats; nobody stayed: the bank."""
    teams = len(opening.seats) == 4
    side = [seat % 2 if teams else seat for seat in range(len(opening.seats))]
    if not gone and len(set(places.values())) == 1:
        return {player: stake for player in opening.seats}
    gone_sides = {side[seat] for seat in gone}
    rank = {s: (s in gone_sides, places[s]) for s in set(side)}
    present = [seat for seat in range(len(opening.seats)) if seat not in gone]
    pot = stake * len(opening.seats)
    if not present:
        return {None: pot}
    best = min(rank[side[seat]] for seat in present)
    winners = [seat for seat in present if rank[side[seat]] == best]
    each, odd = divmod(pot, len(winners))
    return {opening.seats[seat]: each + (n < odd) for n, seat in enumerate(winners)}


class StakesMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        memory = "/dev/shm" if Path("/dev/shm").is_dir() else None  # as test_ledger's machine
        self.folder = Path(tempfile.mkdtemp(prefix="stakes-", dir=memory))
        self.path = self.folder / "lobby.sqlite3"
        self.lobby = Lobby(self.path, fold)
        self.now = NOON
        self.rooms = Rooms()
        self.coins: dict[str, int] = {}  # each player's balance, in the order they came
        self.queue: dict[str, tuple[str, str | None]] = {}  # player: (game, stake table)
        self.tables: dict[str, Forming] = {}
        self.blocks: set[frozenset[str]] = set()
        self.free: list[Opening] = []  # free public tables a wave opened, their match to end
        self.nobodys: list[Opening] = []  # stake rooms the lobby did not seat
        self.applied: list[dict] = []
        self.count = 0
        # Ids are random: so that a case replays alike, nothing the steps draw from may hang
        # on their order. Each join comes a moment after the last (no two tables open at one
        # time, no two entries wait since one), and the waves rate each player apart, in the
        # order they came (a pairs table's seats are placed by rating, then by id).
        self.order: dict[str, int] = {}

    def tick(self) -> float:
        self.now += 0.01
        return self.now

    def teardown(self):
        self.lobby.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def next(self) -> int:
        self.count += 1
        return self.count

    @initialize()
    def six_players(self):
        for _ in range(6):
            self.grant()

    @precondition(lambda self: len(self.coins) < 9)
    @rule()
    def grant(self):
        player = self.lobby.take_name(f"P{self.next()}", now=self.now)[0].id
        self.coins[player] = GRANT
        self.order[player] = len(self.order)

    def player(self, data) -> str:
        return data.draw(st.sampled_from(list(self.coins)))

    @rule(data=st.data(), game=st.sampled_from(["classic", "match-100", "pairs"]))
    def join_free(self, data, game):
        player = self.player(data)
        if self.staked(player):
            with pytest.raises(QueueRefused) as refused:
                self.lobby.join_queue(player, game, now=self.now)
            assert refused.value.code == "already-staked"
            return
        queued = self.lobby.join_queue(player, game, now=self.tick())
        assert (queued.game, queued.stake, queued.table) == (game, 0, None)
        self.queue[player] = (game, None)

    def staked(self, player: str) -> bool:
        return player in self.queue and self.queue[player][1] is not None

    @rule(
        data=st.data(), game=st.sampled_from(["match-100", "pairs"]), stake=st.sampled_from(STAKES)
    )
    def join_stake(self, data, game, stake):
        self.join_one(self.player(data), game, stake)

    @rule(
        data=st.data(),
        game=st.sampled_from(["match-100", "pairs"]),
        stake=st.sampled_from(STAKES),
        then=st.sampled_from([None, "a wave", "a wave racing a leave", "a wave racing nothing"]),
    )
    def a_table_fills(self, data, game, stake, then):
        """Players not staked yet, with the coins for it, join at one game and stake until
        the table the first of them joined is full, or nobody is left who may (a block may
        send one to another table); perhaps a wave follows."""
        table = None
        while table is None or (
            self.tables[table].state == "forming"
            and len(self.tables[table].members) < self.tables[table].seats
        ):
            free = [p for p in self.coins if not self.staked(p) and self.coins[p] >= stake]
            if not free:
                break
            joined = self.join_one(data.draw(st.sampled_from(free)), game, stake)
            table = table or joined
        if then == "a wave":
            self.wave()
        elif then is not None and table is not None and self.full(self.tables[table]):
            self.race(data, table, then == "a wave racing a leave")

    def join_one(self, player: str, game: str, stake: int) -> str | None:
        """The player joins at `game` and `stake` (the model says where, or why not): the
        table joined, None if refused."""
        seats, now = SEATS[game], self.tick()
        if self.staked(player) or self.coins[player] < stake:
            code = "already-staked" if self.staked(player) else "not-enough-coins"
            with pytest.raises(QueueRefused) as refused:
                self.lobby.join_stake(player, game, stake, seats, now=now)
            assert refused.value.code == code
            event(f"a stake join refused: {code}")
            return None
        joinable = sorted(
            (
                (t.opened_at, name)
                for name, t in self.tables.items()
                if t.state == "forming"
                and (t.game, t.stake) == (game, stake)
                and t.opened_at > now - WAIT_SECONDS
                and len(t.members) < t.seats
                and not any(frozenset((player, m)) in self.blocks for m in t.members)
            ),
        )
        table = self.lobby.join_stake(player, game, stake, seats, now=now)
        if joinable:
            assert table == joinable[0][1]
        else:
            assert table not in self.tables
            self.tables[table] = Forming(game, stake, seats, now, members=[])
        self.tables[table].members.append(player)
        self.coins[player] -= stake
        self.queue[player] = (game, table)
        return table

    @rule(data=st.data())
    def leave(self, data):
        player = self.player(data)
        got = self.lobby.leave_queue(player, now=self.now)
        if player not in self.queue:
            assert got is None
            return
        _game, table = self.queue.pop(player)
        if table is None:
            assert got == 0
            return
        forming = self.tables[table]
        assert got == forming.stake
        self.coins[player] += forming.stake
        forming.members.remove(player)
        if not forming.members:
            forming.state = "expired"
            event("the last to leave closed a table")

    @precondition(lambda self: len(self.coins) >= 2)
    @rule(data=st.data())
    def block(self, data):
        blocker, blocked = data.draw(st.permutations(list(self.coins)))[:2]
        self.lobby.block(blocker, blocked, now=self.now)
        self.blocks.add(frozenset((blocker, blocked)))

    @rule(seconds=st.sampled_from([1, 10, 31, WAIT_SECONDS + 1]))
    def time_passes(self, seconds):
        self.now += seconds

    @rule()
    def wave(self):
        due = [
            name
            for name, t in self.tables.items()
            if t.state == "forming" and t.opened_at <= self.now - WAIT_SECONDS
        ]
        for name in due:
            forming = self.tables[name]
            forming.state = "expired"
            for player in forming.members:
                self.coins[player] += forming.stake
                del self.queue[player]
            event("a wave expired a table")
        full = {
            name
            for name, t in self.tables.items()
            if t.state == "forming"
            and len(t.members) == t.seats
            and not any(frozenset((a, b)) in self.blocks for a in t.members for b in t.members)
        }
        before = len(self.rooms.opened)
        Waves(
            self.lobby,
            self.rooms,
            clock=Clock(self.now),
            rating=lambda player, game: 1500.0 + self.order[player],
            stake_wait=WAIT_SECONDS,
        ).wave()
        for name in due:
            for player in self.tables[name].members:
                assert self.lobby.stake_notice(player).table_id == name
        opened_at_stake = set()
        for opening in self.rooms.opened[before:]:
            people = [p for p in opening.seats if p is not None]
            if opening.stake:
                (name,) = [n for n in full if set(self.tables[n].members) == set(people)]
                forming = self.tables[name]
                assert None not in opening.seats and opening.stake == forming.stake
                assert opening.game == forming.game
                forming.state, forming.room = "seated", opening
                opened_at_stake.add(name)
                event("a wave seated a stake table")
            else:
                for player in people:
                    assert self.queue[player] == (opening.game, None)
                self.free.append(opening)
            for player in people:
                del self.queue[player]
                assert self.lobby.seated(player).room == opening.room
        assert opened_at_stake == full

    @staticmethod
    def full(forming: Forming) -> bool:
        return forming.state == "forming" and len(forming.members) == forming.seats

    @precondition(lambda self: any(map(self.full, self.tables.values())))
    @rule(data=st.data(), someone_leaves=st.booleans())
    def a_wave_racing_a_leave(self, data, someone_leaves):
        names = [name for name, forming in self.tables.items() if self.full(forming)]
        self.race(data, data.draw(st.sampled_from(names)), someone_leaves)

    def race(self, data, name: str, someone_leaves: bool) -> None:
        """A wave read the queue and opened a full table's room; meanwhile one of its
        players may have left: then the room is nobody's."""
        forming = self.tables[name]
        entries = [e for e in self.lobby.waiting() if e.table == name]
        room = f"race-{self.next()}"
        opening = Opening(room, forming.game, tuple(forming.members), forming.stake)
        if someone_leaves:
            player = data.draw(st.sampled_from(forming.members))
            assert self.lobby.leave_queue(player, now=self.now) == forming.stake
            self.coins[player] += forming.stake
            forming.members.remove(player)
            del self.queue[player]
        self.lobby.record_wave(
            [(e, room, f"/r/{room}/grant?{e.player}") for e in entries], self.now
        )
        if someone_leaves:
            self.nobodys.append(opening)
            for entry in entries:
                assert self.lobby.seated(entry.player) is None
            event("a wave raced a leave")
        else:
            forming.state, forming.room = "seated", opening
            for player in forming.members:
                del self.queue[player]
            event("a wave raced nothing")

    def deliver(self, data: dict):
        applied = self.lobby.apply_result(data, now=self.now)
        assert applied.new
        self.applied.append(data)
        return applied

    def places(self, data, opening: Opening):
        return dict(enumerate(data.draw(st.sampled_from([(1, 2), (2, 1), (1, 1)]))))

    @precondition(lambda self: any(t.state == "seated" for t in self.tables.values()))
    @rule(data=st.data())
    def a_stake_match_ends(self, data):
        names = [n for n, t in self.tables.items() if t.state == "seated"]
        name = data.draw(st.sampled_from(names))
        forming = self.tables[name]
        opening = forming.room
        places = self.places(data, opening)
        gone = data.draw(st.sets(st.integers(0, forming.seats - 1)))
        assert self.deliver(stake_result(opening, places, gone)).counted
        paid = expected_payouts(forming.stake, opening, places, gone)
        for player, amount in paid.items():
            if player is not None:
                self.coins[player] += amount
        forming.state = "settled"
        event(f"a stake table of {forming.seats} settled" + (" with seats gone" if gone else ""))

    @precondition(lambda self: self.free)
    @rule(data=st.data())
    def a_free_match_ends(self, data):
        opening = self.free.pop(data.draw(st.integers(0, len(self.free) - 1)))
        teams = len(opening.seats) == 4
        places = self.places(data, opening)
        gone = data.draw(st.sets(st.sampled_from([s for s, p in enumerate(opening.seats) if p])))
        rows = [
            (player, places[seat % 2 if teams else seat], None if player else "hard", seat in gone)
            for seat, player in enumerate(opening.seats)
        ]
        sent = results.result(opening.room, 1, rows, game=opening.game, teams=teams)
        self.pay(sent)
        assert self.deliver(sent).counted
        event(f"a free public match ended with {opening.seats.count(None)} computer seats")

    @precondition(lambda self: len(self.coins) >= 2)
    @rule(data=st.data())
    def a_friend_match_ends(self, data):
        two = data.draw(st.permutations(list(self.coins)))[:2]
        places = data.draw(st.sampled_from([(1, 2), (2, 1), (1, 1)]))
        sent = results.result(
            f"friend-{self.next()}", 1, list(zip(two, places, strict=True)), kind="friend"
        )
        self.pay(sent)
        assert not self.deliver(sent).counted
        event("a friend match ended")

    def pay(self, sent: dict) -> None:
        """The rewards of a free table's result (domino.players.coins' rules)."""
        result = parse(sent)
        for seat, amount in zip(result.seats, rewards(result), strict=True):
            if amount:
                self.coins[seat.player] += amount

    @precondition(lambda self: self.nobodys)
    @rule(data=st.data())
    def a_match_at_a_room_nobodys_ends(self, data):
        opening = self.nobodys.pop(data.draw(st.integers(0, len(self.nobodys) - 1)))
        assert not self.deliver(stake_result(opening, self.places(data, opening))).counted
        event("a match ended at a room nobody's")

    @precondition(lambda self: self.applied)
    @rule(data=st.data())
    def a_result_delivered_again(self, data):
        again = data.draw(st.sampled_from(self.applied))
        before = self.snapshot()
        assert not self.lobby.apply_result(dict(again), now=self.now).new
        assert self.snapshot() == before
        event("a result delivered again")

    def snapshot(self):
        accounts = [BANK, *map(player_account, self.coins), *map(escrow_account, self.tables)]
        return (
            {account: self.lobby.balance(account) for account in accounts},
            {player: self.lobby.statement(player) for player in self.coins},
            self.lobby.waiting(),
            self.lobby.stake_tables(),
        )

    @invariant()
    def every_coin_and_every_table_is_accounted_for(self):
        assert audited(self.path) == []
        balances, statements, waiting, tables = self.snapshot()
        assert sum(balances.values()) == 0
        for player, coins in self.coins.items():
            assert balances[player_account(player)] == coins
            assert coins >= 0
            entries = statements[player]
            assert sum(entry.amount for entry in entries) == coins
            assert entries[0].balance == coins
        keys = [e.key for es in statements.values() for e in es]
        assert len(keys) == len(set(keys))
        assert self.lobby.result_keys() == [sent["key"] for sent in self.applied]
        assert {q.player: (q.game, q.table) for q in waiting} == self.queue
        assert {t.id: t.state for t in tables} == {n: t.state for n, t in self.tables.items()}
        for table in tables:
            forming = self.tables[table.id]
            escrow = balances[escrow_account(table.id)]
            assert (table.game, table.stake, table.seats) == (
                forming.game,
                forming.stake,
                forming.seats,
            )
            if table.state == "forming":
                assert escrow == forming.stake * len(forming.members)
                assert self.lobby.held(table.id) == {p: forming.stake for p in forming.members}
                assert self.lobby.escrow_state(table.id) is None
            elif table.state == "seated":
                assert escrow == forming.stake * forming.seats
                assert self.lobby.held(table.id) == {p: forming.stake for p in forming.members}
                assert table.room == forming.room.room
                assert self.lobby.escrow_state(table.id) is None
            else:
                assert escrow == 0
                assert self.lobby.escrow_state(table.id) == table.state


TestStakesProperties = StakesMachine.TestCase
TestStakesProperties.settings = settings(
    max_examples=30, stateful_step_count=50, deadline=None, suppress_health_check=list(HealthCheck)
)
