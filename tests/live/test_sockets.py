"""Live-server websocket tests: the table a seat's socket receives, presence, tabs, secrecy.

A real server (tests/support/live.py) on loopback; two browsers (tests/support/client.py) with
their own cookie jars; each seat's socket is a websocket-client connection carrying the seat
cookie and the page's Origin (the players and their sockets: tests/support/sockets.py).
"""

from __future__ import annotations

import re

import pytest
import websocket

from domino import game
from domino.events import Play
from domino.web.view.messages import refusal
from tests.support.live import live_server
from tests.support.sockets import (
    SEED,
    Frame,
    create_room,
    join_room,
)
from tests.support.webkit import leaked_tiles

# A tile written anywhere in a fragment (an attribute, JSON in hx-vals, text), but not a piece of
# a longer token such as a room id in a URL.
TILE_ANYWHERE = re.compile(r"(?<![\w-])\d+-\d+(?![\w-])")


def norm(text: str) -> str:
    """A tile as written low-high, whichever way round `text` has it (`5-2` → `2-5`)."""
    a, b = sorted(int(half) for half in text.split("-"))
    return f"{a}-{b}"


# ---------------------------------------------------------------------------------------------
# The server (its sockets, `opened`, and a room of two seats, `table`: tests/live/conftest.py)


@pytest.fixture
def server(tmp_path):
    with live_server(tmp_path / "domino.sqlite3", seed=SEED) as live:
        yield live


# ---------------------------------------------------------------------------------------------
# What a seat may see


def assert_for_seat(frame: Frame, state: game.State, seat: int) -> None:
    """While the round goes on, `frame` shows `seat` its own hand and the line, nothing else."""
    hand = sorted(str(tile) for tile in state.hands[seat])
    line = [str(laid) for laid in state.line]
    visible = set(hand) | {norm(laid) for laid in line}
    leaked = leaked_tiles(frame.text, state, seat)  # the one leak rule
    assert not leaked, f"seat {seat} was shown hidden tiles {sorted(leaked)}"
    named = {norm(tile) for tile in frame.named}
    anywhere = {norm(tile) for tile in TILE_ANYWHERE.findall(frame.text)}
    assert named <= visible and anywhere <= visible
    assert sorted(frame.hand) == hand
    assert frame.chain == line
    assert frame.opponent_hand == []
    assert frame.result is None
    assert frame.count("data-opponent-count") == len(state.hands[1 - seat])
    assert frame.count("data-boneyard-count") == len(state.boneyard)
    assert frame.turn == ("you" if state.turn == seat else "opponent")


# ---------------------------------------------------------------------------------------------
# 1. The whole table on connect, and presence


def test_each_seat_gets_its_whole_table_on_connect_and_sees_the_other_arrive(server, opened):
    host = create_room(server, opened)
    host.connect()
    alone = host.ws.frames[-1]
    room = server.services.rooms.get(host.room_id)
    assert alone.table.get("hx-swap-oob") == "true"
    assert alone.seq == room.seq
    assert alone.connected == "false"
    assert sorted(alone.hand) == sorted(str(t) for t in room.round.hands[0])
    assert len(alone.hand) == 7
    assert alone.count("data-opponent-count") == 7
    assert alone.count("data-boneyard-count") == 14
    assert_for_seat(alone, room.round, 0)

    guest = join_room(server, host.room_id, opened)
    # the guest's seat and a fresh deal: the waiting hand was a preview
    joined = host.ws.wait(lambda f: f.seq == room.seq + 3, "after the guest took its seat")
    assert joined.connected == "false"  # seated, but no socket yet

    guest.connect()
    first = guest.ws.frames[-1]
    room = server.services.rooms.get(host.room_id)
    assert first.seq == room.seq
    assert first.connected == "true"
    assert len(first.hand) == 7
    assert first.count("data-opponent-count") == 7
    assert first.count("data-boneyard-count") == 14
    assert_for_seat(first, room.round, 1)
    assert set(first.hand).isdisjoint(joined.hand)

    arrived = host.ws.wait(lambda f: f.connected == "true", "saying the guest is connected")
    assert_for_seat(arrived, room.round, 0)
    opener = room.round.turn
    opening = [host, guest][opener].ws.frames[-1]
    waiting = [host, guest][1 - opener].ws.frames[-1]
    assert opening.playable == opening.opening == [str(room.round.opening)]
    assert waiting.playable == waiting.opening == []


# ---------------------------------------------------------------------------------------------
# 2. A move reaches the other seat, drawn for that seat


def test_a_move_pushes_the_new_line_to_the_other_seat_only_with_its_own_hand(table):
    mover = table.to_move()
    other = table.players[1 - mover.seat]
    action = table.first_legal(mover)
    assert isinstance(action, Play)
    seq = table.room.seq
    mark = len(other.ws.frames)

    reply = mover.act(action, seq)
    assert reply.status == 200, reply.text
    state = table.state
    assert table.room.seq == seq + 1

    pushed = other.ws.wait(lambda f: f.seq == seq + 1, "after the move")
    assert [norm(t) for t in pushed.chain] == [str(action.tile)]
    assert pushed.count("data-opponent-count") == 6
    assert sorted(pushed.hand) == sorted(str(t) for t in state.hands[other.seat])
    remaining = {str(t) for t in state.hands[mover.seat]}
    for frame in other.ws.since(mark):
        assert not remaining & {norm(t) for t in frame.named}
        assert not remaining & {norm(t) for t in TILE_ANYWHERE.findall(frame.text)}
    assert_for_seat(pushed, state, other.seat)

    own = Frame(reply.text)
    assert_for_seat(own, state, mover.seat)
    assert len(own.hand) == 6


# ---------------------------------------------------------------------------------------------
# 3. A dropped socket: the other waits, the position comes back exactly


def test_a_reconnect_gets_the_exact_table_and_play_waits_for_it(table):
    opener = table.to_move()
    reply = opener.act(table.first_legal(opener), table.room.seq)
    assert reply.status == 200, reply.text
    stayer = table.players[1 - opener.seat]  # now to move
    stayer.ws.wait(lambda f: f.seq == table.room.seq, "after the opening")

    old_tab = opener.tab
    opener.ws.close()
    away = stayer.ws.wait(lambda f: f.connected == "false", "saying the opponent left")
    assert away.playable == []
    assert not any(away.actions.get(name) for name in ("draw", "pass"))
    assert table.server.services.hub.present(table.room_id) == {stayer.seat}

    seq, stored = table.room.seq, table.stored()
    refused = stayer.act(table.first_legal(stayer), seq)
    assert refused.status == 409
    assert refusal("opponent-away") in refused.text
    assert table.room.seq == seq and table.stored() == stored

    assert opener.load() != old_tab
    back = opener.connect().frames[-1]
    assert back.text == reply.text  # exactly the table the opener last had
    assert back.connected == "true"
    assert_for_seat(back, table.state, opener.seat)
    stayer.ws.wait(lambda f: f.connected == "true", "saying the opponent is back")

    again = stayer.act(table.first_legal(stayer), seq)
    assert again.status == 200, again.text
    opener.ws.wait(lambda f: f.seq == seq + 1, "after the move that waited")


def test_a_socket_that_drops_comes_back_from_the_same_tab(table):
    player, other = table.players
    tab = player.tab
    player.ws.close()
    other.ws.wait(lambda f: f.connected == "false", "saying the opponent left")

    back = player.connect()  # the page's socket reconnects by itself: same page, same tab
    assert back.tab == tab
    fragment = player.browser.request(f"/r/{table.room_id}", headers={"HX-Request": "true"})
    assert back.frames[-1].text == fragment.text
    assert_for_seat(back.frames[-1], table.state, player.seat)
    other.ws.wait(lambda f: f.connected == "true", "saying the opponent is back")

    mover = table.to_move()
    seq = table.room.seq
    reply = mover.act(table.first_legal(mover), seq)
    assert reply.status == 200, reply.text
    table.players[1 - mover.seat].ws.wait(lambda f: f.seq == seq + 1, "after the move")


# ---------------------------------------------------------------------------------------------
# 4. Another tab takes the seat over


def test_a_newer_tab_supersedes_the_old_one_and_an_older_tab_cannot_come_back(table):
    hub = table.server.services.hub
    mover = table.to_move()
    other = table.players[1 - mover.seat]
    first, old_tab = mover.ws, mover.tab
    mark = len(other.ws.frames)

    new_tab = mover.load()
    assert new_tab != old_tab
    second = mover.connect()
    assert_for_seat(second.frames[-1], table.state, mover.seat)
    notice = first.wait(lambda f: f.superseded, "saying another tab took over")
    assert notice.seq is None and notice.hand == [] and notice.chain == []
    assert first.wait_closed() == 1000
    assert hub.is_live(table.room_id, mover.seat, new_tab)

    seq, stored = table.room.seq, table.stored()
    stale = mover.act(table.first_legal(mover), seq, tab=old_tab)
    assert stale.status == 409
    assert "data-superseded" in stale.text
    assert table.room.seq == seq and table.stored() == stored

    played = mover.act(table.first_legal(mover), seq)
    assert played.status == 200, played.text
    other.ws.wait(lambda f: f.seq == seq + 1, "after the new tab's move")

    late = mover.open_socket(old_tab)
    refused = late.wait(lambda f: f.superseded, "refusing the older tab")
    assert refused.seq is None and refused.hand == []
    assert late.wait_closed() == 1000
    assert hub.live(table.room_id, mover.seat).tab == new_tab
    assert hub.present(table.room_id) == {0, 1}

    reply = other.act(table.first_legal(other), seq + 1)
    assert reply.status == 200, reply.text
    second.wait(lambda f: f.seq == seq + 2, "after the other seat's move")
    again = mover.act(table.first_legal(mover), seq + 2)
    assert again.status == 200, again.text
    other.ws.wait(lambda f: f.seq == seq + 3, "after the newer tab's second move")
    assert all(f.connected == "true" for f in other.ws.since(mark))


# ---------------------------------------------------------------------------------------------
# 5. The handshake refuses foreign pages and browsers without a seat


@pytest.mark.parametrize(
    "case", ["foreign-origin", "no-origin", "no-cookie", "other-rooms-cookie", "bad-cookie"]
)
def test_the_handshake_is_refused_without_the_page_origin_or_a_seat(server, opened, case):
    host = create_room(server, opened)
    cookie = [f"Cookie: seat={host.browser.cookie('seat')}"]
    options = {
        "foreign-origin": {"origin": "http://evil.example"},
        "no-origin": {"suppress_origin": True, "origin": None},
        "no-cookie": {"header": []},
        "other-rooms-cookie": {
            "header": [f"Cookie: seat={create_room(server, opened).browser.cookie('seat')}"]
        },
        "bad-cookie": {"header": ["Cookie: seat=not-a-seat"]},
    }[case]
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        host.open_socket(**options)
    assert refused.value.status_code == 403
    assert server.services.hub.count() == 0

    allowed = host.open_socket(header=cookie)  # the same browser, as its page would
    allowed.wait(lambda f: f.table is not None, "with the whole table")


def test_the_handshake_declines_compression_a_browser_offers(server, opened):
    """permessage-deflate would keep ~120 KB of zlib state per socket; frames go plain."""
    host = create_room(server, opened)
    offer = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"
    sock = host.open_socket(header=[f"Cookie: seat={host.browser.cookie('seat')}", offer])
    sock.wait(lambda f: f.table is not None, "with the whole table")
    accepted = {name.lower(): value for name, value in sock.ws.getheaders().items()}
    assert sock.ws.getstatus() == 101
    assert "sec-websocket-extensions" not in accepted


# ---------------------------------------------------------------------------------------------
# 6. A whole round: every fragment is for its seat, and both see the result


def test_a_whole_round_shows_each_seat_only_its_own_tiles_until_the_result(table):
    states = {table.room.seq: table.state}
    sent: list[tuple[int, Frame]] = []  # the movers' own HTTP answers
    for _ in range(200):
        state = table.state
        if state.over:
            break
        mover = table.players[state.turn]
        other = table.players[1 - mover.seat]
        seq = table.room.seq
        reply = mover.act(table.first_legal(mover), seq)
        assert reply.status == 200, reply.text
        assert table.room.seq == seq + 1
        states[seq + 1] = table.state
        sent.append((mover.seat, Frame(reply.text)))
        other.ws.wait(lambda f, s=seq: f.seq == s + 1, f"after move {seq + 1}")
    final = table.state
    assert final.over, "the round did not end"
    outcome = game.outcome(final)
    kinds = {move.action for move in final.history}
    assert "draw" in kinds  # the dealt round exercises the boneyard

    checked = 0
    for seat, frames in [(p.seat, p.ws.frames) for p in table.players] + [
        (seat, [frame]) for seat, frame in sent
    ]:
        for frame in frames:
            assert frame.seq in states, f"a fragment for an unknown seq {frame.seq}"
            at = states[frame.seq]
            if not at.over:
                assert_for_seat(frame, at, seat)
                checked += 1
    assert checked >= len(states)

    last_mover = final.history[-1].seat
    endings = {
        table.players[1 - last_mover].seat: table.players[1 - last_mover].ws.frames[-1],
        last_mover: sent[-1][1],
    }
    for seat, frame in endings.items():
        assert frame.result is not None, f"seat {seat} got no result"
        if outcome.winner is None:
            verdict = "draw"
        else:
            verdict = "you" if outcome.winner == seat else "opponent"
        assert frame.result["data-winner"] == verdict
        assert frame.result["data-points"] == str(outcome.points)
        assert sorted(frame.opponent_hand) == sorted(str(t) for t in final.hands[1 - seat])
        assert sorted(frame.hand) == sorted(str(t) for t in final.hands[seat])
