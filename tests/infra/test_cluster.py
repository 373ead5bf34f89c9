"""Two shards behind nginx, played through nginx alone, one of them SIGKILLed and started again.

The cluster runs as `make cluster` does (bench/shards.py: Litestream per shard, the shards,
nginx), each program a process of this test's. Every request and socket goes to nginx's
address; a shard's own port is never asked, its SQLite file only read. The clients are
bench/faults.py's seats: a browser's cookies, its tab and CSRF token, and its socket.
Sockets are read only while a test waits on them, so the shards ping every 60 s here, not 2 s
(an unread socket would miss its pong and be let go).
"""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import websocket
from babel.messages.pofile import read_po

from domino.record import from_record, move_to_dict
from domino.web.view.i18n import CATALOGS
from tests.support.cluster_rooms import (
    ALIVE,
    KILLED,
    NOT_A_HANG,
    SHARDS,
    Room,
    connect,
    create,
    fetch,
    next_action,
    open_socket,
    settled,
    step,
)
from tests.support.faults import Seat, ServerDown, csrf_field, new_room, stored
from tests.support.shards import Processes
from tests.support.webkit import parse

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.slow

SLOW_CUT = 10.0  # nginx's client_header_timeout; a shard's whole request (domino/server/worker.py)


def play_out(room: Room, acked: dict) -> None:
    """Play the round to its end, then download its record: the round the shard stored."""
    for _ in range(80):
        if settled(room).round.over:
            break
        step(room, acked)
    state = settled(room).round
    assert state.over, f"{room.id}: the round did not end"
    status, text, _url = room.seats[0].request(f"/r/{room.id}/record.jsonl")
    assert status == 200, status
    record = json.loads(text.splitlines()[-1])
    assert record["events"] == [move_to_dict(move) for move in state.moves]
    assert from_record(record).moves == state.moves  # it replays under the rules


def rooms_on_every_shard(cluster: Processes) -> dict[str, list[Room]]:
    """A friend room and a computer room on each shard, their sockets open."""
    rooms = {
        shard: [create(cluster, shard, False), create(cluster, shard, True)] for shard in SHARDS
    }
    for room in (*rooms[KILLED], *rooms[ALIVE]):
        connect(room)
    return rooms


def test_rooms_are_made_on_the_shard_that_drew_the_home_page(cluster):
    rooms = rooms_on_every_shard(cluster)  # each with its page's commitment, its table live
    for shard in SHARDS:
        for room in rooms[shard]:  # dealt, in its own shard's database
            assert settled(room).round is not None, f"{room.id}: not dealt on {shard}"


def test_friend_and_computer_rounds_are_played_to_the_end_on_every_shard(cluster):
    rooms = rooms_on_every_shard(cluster)
    acked: dict = {}
    for shard in SHARDS:
        for room in rooms[shard]:
            for _ in range(3):
                step(room, acked)
            connect(room)  # reconnected mid-round: every socket starts at the current table
            play_out(room, acked)
            log = stored(room.db)
            mine = {key: kind for key, kind in acked.items() if key[0] == room.id}
            missing = [key for key, kind in mine.items() if log.get(key) != kind]
            assert mine and not missing, f"acknowledged, not stored: {missing}"


def unavailable_title(code: str) -> str:
    """'Temporarily unavailable' as the language's catalog words it."""
    with open(CATALOGS / code / "LC_MESSAGES" / "messages.po", encoding="utf-8") as po:
        return read_po(po, locale=code).get("Temporarily unavailable").string


def posted(seat: Seat, path: str, form: dict) -> tuple[int, str | None]:
    """POST `form` to `path` as a browser may, the body a moment after the headers (so that
    nginx has not read it yet when it finds the shard down); the status and the Location."""
    body = urllib.parse.urlencode(form).encode()
    cookies = "; ".join(f"{c.name}={c.value}" for c in seat.jar)
    host, port = urllib.parse.urlsplit(seat.server.url).netloc.split(":")
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\nCookie: {cookies}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=NOT_A_HANG) as sock:
        sock.sendall(head.encode())
        time.sleep(0.2)
        sock.sendall(body)
        answer = b""
        while b"\r\n\r\n" not in answer and (chunk := sock.recv(4096)):
            answer += chunk
    status = int(answer.split(b" ", 2)[1])
    location = re.search(rb"\r\nLocation: ([^\r]*)", answer)
    return status, location and location[1].decode()


def test_a_killed_shard_is_said_unavailable_and_comes_back_with_every_acknowledged_move(cluster):
    rooms = rooms_on_every_shard(cluster)
    acked: dict = {}
    for room in (*rooms[KILLED], *rooms[ALIVE]):
        for _ in range(3):
            step(room, acked)
        settled(room)
    friend, computer = rooms[KILLED]
    db = friend.db
    before = stored(db)
    seat, action, fields = next_action(friend)

    cluster.kill(f"shard-{KILLED}")
    try:
        for room in rooms[ALIVE]:  # the other shard plays on
            for _ in range(3):
                step(room, acked)
        late = new_room(cluster)  # and new tables are made there
        assert late[0].room.startswith(f"{ALIVE}-"), late[0].room
        orphan = Seat(cluster)  # a page the killed shard drew before it went down
        _status, home, _url = orphan.request("/")
        form = {"csrf_token": csrf_field(home)}
        status, location = posted(orphan, f"/rooms?shard={KILLED}", form)
        assert (status, location) == (307, "/rooms"), (status, location)  # post it elsewhere
        status, _page, url = orphan.request(location, form)  # as the browser does
        assert status == 200 and f"/r/{ALIVE}-" in url, (status, url)  # made on the other

        polish = fetch(seat, {"Accept-Language": "pl"})
        french = fetch(seat, {"Accept-Language": "pl"}, cookies="lang=fr")  # the cookie wins
        for (status, headers, page, seconds), code in ((polish, "pl"), (french, "fr")):
            assert status == 503, (code, status)
            assert seconds < NOT_A_HANG, f"{seconds:.1f} s for the unavailable page"
            assert headers["Retry-After"] == "5"
            assert headers["Refresh"] == f"5; url=/r/{seat.room}"  # the room's page again
            assert headers["HX-Reswap"] == "none"  # htmx leaves the table as it is
            shown = parse(page).one("data-unavailable").text
            assert shown == unavailable_title(code) != "Temporarily unavailable", shown

        start = time.monotonic()
        assert seat.post(action, fields) == 503  # a move sent meanwhile: refused, not held
        assert time.monotonic() - start < NOT_A_HANG
        with pytest.raises(ServerDown, match="503") as refused:
            open_socket(computer.seats[0])  # as the page tries again
        assert isinstance(refused.value.__cause__, websocket.WebSocketBadStatusException)
    finally:
        for room in rooms[KILLED]:
            for held in room.seats:
                held.close()
        cluster.start(f"shard-{KILLED}")

    after = stored(db)
    kept = {key: kind for key, kind in acked.items() if key[0].startswith(f"{KILLED}-")}
    lost = [key for key, kind in kept.items() if after.get(key) != kind]
    assert kept and not lost, f"acknowledged moves missing after the restart: {lost}"
    assert after == before, "the shard's database changed while it was down"
    for room in rooms[KILLED]:
        connect(room)  # pages load, sockets reconnect at the stored table
    assert next_action(friend) == (seat, action, fields)
    for room in rooms[KILLED]:
        step(room, acked)  # play resumes where it stopped
    for room in rooms[ALIVE]:
        step(room, acked)


def test_slow_requests_are_cut_10_s_after_they_began_and_oversized_ones_at_once(cluster):
    """A client dripping its headers is cut off by nginx 10 s after it connected; one
    dripping its body a byte a second (never the 10 s gap nginx times between a body's
    reads) is cut off by the shard, which nginx passes the body to as it comes, 10 s after
    the request began (408: domino/server/worker.py); a body over 64 KB is refused before any shard
    sees it."""
    host, port = cluster.cluster.listen.split(":")
    start = time.monotonic()  # before nginx's timers start, so the lower bound holds
    headers = socket.create_connection((host, int(port)))
    headers.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\n")
    body = socket.create_connection((host, int(port)))
    body.sendall(
        b"POST /rooms HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n\r\na"
    )
    big = socket.create_connection((host, int(port)))
    big.sendall(b"POST /rooms HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n")
    big.settimeout(NOT_A_HANG)
    assert big.recv(100).startswith(b"HTTP/1.1 413 "), "an oversized body was not refused"
    answers = {}
    for held in (headers, body):
        held.setblocking(False)
    while len(answers) < 2 and time.monotonic() - start < SLOW_CUT + NOT_A_HANG:
        time.sleep(1)
        for name, held in (("headers", headers), ("body", body)):
            if name in answers:
                continue
            try:
                answers[name] = (held.recv(1000), time.monotonic() - start)
            except BlockingIOError:
                held.send(b"a")  # a byte a second, headers or body
            except OSError:
                answers[name] = (b"", time.monotonic() - start)
    assert sorted(answers) == ["body", "headers"], f"still held: {answers}"
    answer, took = answers["headers"]
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408 "), answer[:60]
    assert SLOW_CUT - 1 < took < SLOW_CUT + NOT_A_HANG, f"headers cut after {took:.1f} s"
    answer, took = answers["body"]
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:60]  # the shard's answer
    assert SLOW_CUT - 1 < took < SLOW_CUT + NOT_A_HANG, f"body cut after {took:.1f} s"
    for held in (headers, body, big):
        held.close()
