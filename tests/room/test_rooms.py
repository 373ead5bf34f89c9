"""The store and the room fold, without the web: events in, rooms out."""

from __future__ import annotations

import copy
import json
import random
import sqlite3
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domino import game
from domino.commands import decide
from domino.fair import commitment, fair_deal
from domino.record import dumps, to_record
from domino.room import Room, RoomError, fold, secret_hash
from domino.store import Conflict, Store
from domino.store.cache import Rooms
from domino.views import table_view
from tests.support import drive


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield store
    store.close()


@pytest.fixture
def rooms(store):
    return Rooms(store, random.Random(5))


def seated(rooms):
    """A room with both seats taken; returns it and the two secrets."""
    room, creator = rooms.create()
    room, seat, guest = drive.join(rooms, room.id, None)
    assert seat == 1
    return room, creator, guest


def legal_move(room: Room):
    """The first legal action of the seat to play, as request parameters."""
    seat = room.round.turn
    action = game.legal_actions(room.round, seat)[0]
    if isinstance(action, game.Play):
        return seat, "play", {"tile": str(action.tile), "end": action.end}
    return seat, str(action).lower(), {}


# -- the store ---------------------------------------------------------------------------


def test_the_store_uses_wal_full_sync_and_migrations(store):
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    applied = [row["name"] for row in store.db["_sqlite_migrations"].rows]
    assert applied == [
        "m001_rooms_and_events",
        "m002_round_records",
        "m003_fair_nonces_and_reviews",
        "m004_seat_grants",
        "m005_seat_players_and_outbox",
    ]


def test_migrations_apply_once(tmp_path):
    first = Store(tmp_path / "db.sqlite3")
    applied = first.db["_sqlite_migrations"].count
    first.close()
    again = Store(tmp_path / "db.sqlite3")
    assert again.db["_sqlite_migrations"].count == applied == 5
    again.close()


EVENTS = [
    ("seat", {"seat": 0, "hash": "ab" * 32}),
    ("deal", {"hands": [["0-0"], ["1-1"]], "boneyard": ["2-2"]}),
    ("play", {"seat": 0, "action": "play", "tile": "6-6", "end": "left"}),
    ("draw", {"seat": 1, "action": "draw", "tile": "1-4"}),
    ("pass", {"seat": 1, "action": "pass"}),
    ("ask", {"seat": 0}),
    ("decline", {"seat": 1}),
]


def test_every_event_type_round_trips_through_the_store(store):
    store.create_room("room-a", "friend", EVENTS[:1])
    store.append("room-a", 2, EVENTS[1:])
    loaded = store.load("room-a")
    assert [(seq, kind, data) for seq, kind, data in loaded] == [
        (seq, kind, data) for seq, (kind, data) in enumerate(EVENTS, start=1)
    ]


@pytest.mark.slow  # Hypothesis, through the store
@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=5))
def test_any_json_payload_round_trips(tmp_path_factory, payload):
    store = Store(tmp_path_factory.mktemp("rt") / "db.sqlite3")
    store.create_room("r", "friend", [("ask", payload)])
    assert store.load("r") == [(1, "ask", payload)]
    store.close()


def test_a_taken_event_number_is_a_conflict_and_changes_nothing(store):
    store.create_room("room-a", "friend", EVENTS[:2])
    with pytest.raises(Conflict):
        store.append("room-a", 2, [EVENTS[5]])
    assert len(store.load("room-a")) == 2


def test_an_append_is_committed_when_it_returns(store, tmp_path):
    store.create_room("room-a", "friend", EVENTS[:1])
    store.append("room-a", 2, [EVENTS[5]])
    other = sqlite3.connect(tmp_path / "rooms.sqlite3")
    assert other.execute("SELECT count(*) FROM events").fetchone()[0] == 2
    other.close()


def test_purge_deletes_idle_rooms_with_their_events(store):
    store.create_room("old", "friend", EVENTS[:1])
    store.create_room("new", "friend", EVENTS[:1])
    store.touch("old", 1000.0)
    assert store.purge(7 * 86400, now=1000.0 + 8 * 86400) == ["old"]
    assert store.kind("old") is None and store.load("old") == []
    assert store.kind("new") == "friend"


# -- the room fold -----------------------------------------------------------------------


def test_a_new_room_seats_its_creator_and_deals(rooms):
    room, secret = rooms.create()
    assert room.seats[0] == secret_hash(secret) and room.seats[1] is None
    assert room.rounds == 0 and not room.full  # round 0: a preview
    kinds = [kind for _seq, kind, _data in rooms.store.load(room.id)]
    assert kinds == ["rules", "seat", "commit", "deal", "commit"] and room.seq == 5
    assert room.seat_of(secret) == 0 and room.seat_of("someone else") is None
    assert len(secret) >= 43 and len(room.id) >= 22  # 256 and 128 random bits


def test_only_a_hash_of_the_secret_is_stored(rooms):
    room, secret = rooms.create()
    stored = str(rooms.store.load(room.id))
    assert secret not in stored and secret_hash(secret) in stored


def test_joining_gives_the_guest_seat_once(rooms):
    room, creator = rooms.create()
    assert drive.join(rooms, room.id, creator)[1] == 0
    _, seat, guest = drive.join(rooms, room.id, None)
    assert seat == 1
    assert drive.join(rooms, room.id, guest)[1] == 1
    assert drive.join(rooms, room.id, None)[1] is None
    assert drive.join(rooms, room.id, "forged")[1] is None


def test_moves_need_both_seats_present_and_the_latest_seq(rooms):
    room, _, _ = seated(rooms)
    seat, action, params = legal_move(room)
    with pytest.raises(RoomError) as away:
        drive.act(rooms, room.id, seat, action, params, {seat}, room.seq)
    assert away.value.code == "opponent-away"
    with pytest.raises(RoomError) as stale:
        drive.act(rooms, room.id, seat, action, params, {0, 1}, room.seq - 1)
    assert stale.value.code == "stale"
    after = drive.act(rooms, room.id, seat, action, params, {0, 1}, room.seq)
    assert after.seq == room.seq + 1 and len(after.round.moves) == 1


def test_an_illegal_move_is_refused_and_nothing_is_stored(rooms):
    room, _, _ = seated(rooms)
    seat = room.round.turn
    before = rooms.store.load(room.id)
    with pytest.raises(game.IllegalMove):
        drive.act(rooms, room.id, 1 - seat, "draw", {}, {0, 1}, room.seq)
    with pytest.raises(game.IllegalMove):
        drive.act(rooms, room.id, seat, "play", {"tile": "7-7", "end": "left"}, {0, 1}, room.seq)
    with pytest.raises(RoomError):
        drive.act(rooms, room.id, seat, "play", {"tile": "6-x", "end": "left"}, {0, 1}, room.seq)
    assert rooms.store.load(room.id) == before


def test_new_round_protocol(rooms):
    room, _, _ = seated(rooms)
    both = {0, 1}
    room = drive.act(rooms, room.id, 0, "new-round", {}, both, room.seq)
    assert room.request == 0 and room.rounds == 1
    with pytest.raises(RoomError):
        drive.act(rooms, room.id, 0, "new-round", {}, both, room.seq)
    with pytest.raises(RoomError):
        drive.act(rooms, room.id, 0, "accept-new-round", {}, both, room.seq)
    room = drive.act(rooms, room.id, 1, "decline-new-round", {}, both, room.seq)
    assert room.request is None
    room = drive.act(rooms, room.id, 1, "new-round", {}, both, room.seq)
    seat, action, params = legal_move(room)
    room = drive.act(rooms, room.id, seat, action, params, both, room.seq)
    assert room.request is None  # a move cancels the request
    room = drive.act(rooms, room.id, 0, "new-round", {}, both, room.seq)
    room = drive.act(rooms, room.id, 1, "new-round", {}, both, room.seq)  # both asked: deal
    assert room.rounds == 2 and room.request is None and room.round.moves == ()


def test_the_creator_alone_deals_again_at_once(rooms):
    room, _ = rooms.create()
    again = drive.act(rooms, room.id, 0, "new-round", {}, {0}, room.seq)
    assert again.seq == room.seq + 2 and again.round.start != room.round.start  # deal, commit
    assert again.rounds == 0  # still a preview


def test_the_guest_gets_a_fresh_deal_however_often_the_creator_dealt(rooms):
    room, _ = rooms.create()
    for _ in range(3):
        room = drive.act(rooms, room.id, 0, "new-round", {}, {0}, room.seq)
    preview = room.round.start
    joined, seat, _secret = drive.join(rooms, room.id, None)
    assert seat == 1 and joined.rounds == 1 and joined.round.moves == ()
    assert joined.round.start != preview
    kinds = [kind for _seq, kind, _data in rooms.store.load(room.id)[-3:]]
    assert kinds == ["seat", "deal", "commit"]
    assert drive.join(rooms, room.id, _secret)[0] == joined  # coming back deals nothing


def test_a_fold_of_the_stored_events_is_the_cached_room(rooms):
    room, _, _ = seated(rooms)
    for _ in range(6):
        seat, action, params = legal_move(room)
        room = drive.act(rooms, room.id, seat, action, params, {0, 1}, room.seq)
    room = drive.act(rooms, room.id, 0, "new-round", {}, {0, 1}, room.seq)
    assert fold(room.id, "friend", rooms.store.load(room.id)) == room
    fresh = Rooms(rooms.store)
    assert fresh.get(room.id) == room


def test_concurrent_duplicates_apply_once(rooms):
    room, _, _ = seated(rooms)
    seat, action, params = legal_move(room)
    results = []

    def submit():
        try:
            drive.act(rooms, room.id, seat, action, params, {0, 1}, room.seq)
            results.append("ok")
        except RoomError as error:
            results.append(error.code)

    threads = [threading.Thread(target=submit) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count("ok") == 1 and results.count("stale") == 19
    assert len(rooms.store.load(room.id)) == room.seq + 1


def test_decide_is_pure(rooms):
    room, _, _ = seated(rooms)
    seat, action, params = legal_move(room)
    before, stored = copy.deepcopy(room), len(rooms.store.load(room.id))
    events = decide(room, seat, action, params, {0, 1}, random.Random(1)).events
    assert [kind for kind, _ in events] == [action]
    assert room == before  # the room it was given is unchanged (a copy: `room` equals itself)
    assert len(rooms.store.load(room.id)) == stored  # nothing stored
    again = decide(room, seat, action, params, {0, 1}, random.Random(1))
    assert again.events == events  # it draws from its rng only


def test_the_table_view_carries_the_seat_view_and_the_room_facts(rooms):
    room, _ = rooms.create()
    tv = table_view(room, 0, present={0})
    assert tv.seat == 0 and not tv.full and tv.waiting and not tv.active
    assert tv.game.hand == room.round.hands[0]
    assert not hasattr(tv, "round") and not hasattr(tv.game, "boneyard")


def test_the_cache_follows_writes_from_another_process(rooms, tmp_path):
    room, _ = rooms.create()
    assert rooms.get(room.id) is not None
    elsewhere = Store(tmp_path / "rooms.sqlite3")
    elsewhere.touch(room.id, 0.0)
    assert elsewhere.purge(60) == [room.id]
    elsewhere.close()
    assert rooms.get(room.id) is None


def test_made_up_room_ids_leave_nothing_behind(rooms):
    for number in range(50):
        made_up = f"{number:022d}"
        assert rooms.get(made_up) is None
        with pytest.raises(RoomError):
            drive.join(rooms, made_up, None)
        with pytest.raises(RoomError):
            drive.act(rooms, made_up, 0, "draw", {}, {0, 1}, 1)
    assert rooms.cached == 0


def play_rounds(rooms, room, count: int):
    """Play `count` whole rounds (first legal moves), dealing again between them."""
    finished = []
    while len(finished) < count:
        if room.round.over:
            room = drive.act(rooms, room.id, 0, "new-round", {}, {0, 1}, room.seq)
            room = drive.act(rooms, room.id, 1, "accept-new-round", {}, {0, 1}, room.seq)
        seat, action, params = legal_move(room)
        room = drive.act(rooms, room.id, seat, action, params, {0, 1}, room.seq)
        if room.round.over:
            finished.append(room.round)
    return room, finished


def test_every_finished_round_has_its_record_stored_with_its_last_move(rooms):
    room, _, _ = seated(rooms)
    room, finished = play_rounds(rooms, room, 3)
    texts = rooms.records(room.id)
    blocks = [json.loads(text)["fairness"] for text in texts]
    names = ["player 1", "player 2"]
    expected = [
        dumps(to_record(s, names, fairness=b)) for s, b in zip(finished, blocks, strict=True)
    ]
    assert texts == expected
    for state, block in zip(finished, blocks, strict=True):  # each deal is its seeds' shuffle
        dealt = fair_deal(state.rules, block["server_seed"], block["round"], block["client_seeds"])
        assert dealt == state.start and block["commitment"] == commitment(block["server_seed"])
    assert [block["round"] for block in blocks] == [2, 3, 4]  # the preview was round 1
    stored = rooms.store.db.execute("SELECT seq FROM records WHERE room = ?", [room.id])
    seqs = [row[0] for row in stored]
    kinds = {seq: kind for seq, kind, _data in rooms.store.load(room.id)}
    assert len(seqs) == 3 and all(kinds[seq] in ("play", "pass") for seq in seqs)


def test_a_room_from_before_stored_records_gets_them_at_its_first_download(rooms):
    room, _, _ = seated(rooms)
    room, _finished = play_rounds(rooms, room, 2)
    expected = rooms.records(room.id)
    db = rooms.store.db
    db.execute("DELETE FROM records WHERE room = ?", [room.id])  # as migration m002 left it
    db.execute("UPDATE rooms SET records_stored = 0 WHERE id = ?", [room.id])
    assert rooms.store.records(room.id) is None
    assert rooms.records(room.id) == expected  # written out from the log, once
    assert rooms.store.records(room.id) == expected
