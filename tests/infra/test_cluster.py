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
from dataclasses import dataclass
from pathlib import Path

import pytest
import websocket
from babel.messages.pofile import read_po

from domino.record import from_record, move_to_dict
from domino.web.view.i18n import CATALOGS
from tests.support import faults
from tests.support.faults import Seat, ServerDown, csrf_field, new_room, position, stored
from tests.support.shards import HIGH_LIMITS, Processes, cluster_in, nginx_missing
from tests.support.webkit import TABLE_SEQ, parse

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.slow

WAIT = 10.0  # seconds for a push, or for the computer's answer
NOT_A_HANG = 5.0  # seconds within which nginx answers for a shard that is down
SLOW_CUT = 10.0  # nginx's client_header_timeout; a shard's whole request (domino/server/worker.py)
SHARDS = ("s1", "s2")
KILLED, ALIVE = SHARDS
MOVES = ("play", "draw", "pass")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    env = {**HIGH_LIMITS, "DOMINO_PING_SECONDS": "60"}
    processes = Processes(cluster_in(tmp_path_factory.mktemp("cluster"), 2, env))
    try:
        processes.start_all()
        yield processes
    finally:
        processes.stop_all()


@dataclass
class Room:
    """A room as its players' browsers hold it (seat 0 first; a computer room has no other),
    and its shard's database file."""

    id: str
    db: Path
    seats: list[Seat]
    computer: bool

    def stored(self):
        """The room folded from its shard's database file."""
        return position(self.db, self.id)


def db_of(cluster: Processes, shard: str) -> Path:
    return cluster.cluster.db(cluster.cluster.shard(shard))


def home_form(seat: Seat, button: str) -> tuple[str, str, dict]:
    """The home page from the shard nginx chose: that shard, where `button` posts the form
    (`?shard=` it), and the form's fields."""
    status, page, _url = seat.request("/")
    assert status == 200, status
    doc = parse(page)
    form = doc.one("data-rules-form")
    path = doc.one("data-action", button).get("formaction") or form.get("action")
    shard = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)["shard"][0]
    fair = form.find("name", "fair", tag="input").get("value")
    commitment = form.get("data-next-commitment")
    return shard, path, {"csrf_token": csrf_field(page), "fair": fair, "commitment": commitment}


def create(cluster: Processes, shard: str, computer: bool) -> Room:
    """Press "Play with a friend" (the guest joins too) or "Play the computer" on a home page
    drawn by `shard`: the room is that shard's, and its deal keeps the commitment shown before
    it (the home page's; in a friend's room, the invitation's)."""
    host = Seat(cluster)
    for _ in range(20):
        drawn_by, path, fields = home_form(host, "play-computer" if computer else "create-room")
        if drawn_by == shard:
            break
    else:
        raise AssertionError(f"20 home pages and none drawn by {shard}")
    status, _page, url = host.request(path, fields)
    assert status == 200, status
    host.room = url.rsplit("/", 1)[-1]
    seats, promised = [host], fields["commitment"]
    if not computer:
        guest = Seat(cluster)
        guest.room = host.room
        _status, invite, _url = guest.request(f"/r/{guest.room}")
        promised = parse(invite).one("data-fair-seed").get("data-next-commitment")
        join = guest.request(f"/r/{guest.room}/join", {"csrf_token": csrf_field(invite)})
        assert join[0] == 200, join[0]
        seats.append(guest)
    assert host.room.startswith(f"{shard}-"), f"a page of {shard} made room {host.room}"
    room = Room(host.room, db_of(cluster, shard), seats, computer)
    status, page, _url = host.request(f"/r/{room.id}")
    assert status == 200, status
    assert parse(page).one("data-commitment").get("data-commitment") == promised
    return room


def seq_of(text: str) -> int | None:
    found = TABLE_SEQ.search(text) if 'id="table"' in text else None
    return int(found[1]) if found else None


def connect(room: Room) -> None:
    """Load every seat's page and open its socket through nginx: each starts with the table
    the shard stored last."""
    stored_seq = settled(room).seq
    for seat in room.seats:
        assert seat.load() == 200, f"{room.id}: the page did not load"
        assert open_socket(seat) == stored_seq, f"{room.id}: a stale table at first"


def open_socket(seat: Seat) -> int | None:
    """Open the seat's socket (closing the one it had) as its page does; the seq of the
    table it starts with."""
    return seq_of(seat.connect())


def pushed(seat: Seat, seq: int) -> int:
    """Read the seat's socket until a table of `seq` or later comes; its seq."""
    end = time.monotonic() + WAIT
    while True:
        left = end - time.monotonic()
        assert left > 0, f"{seat.room}: no table {seq} pushed within {WAIT} s"
        seat.ws.settimeout(left)
        try:
            found = seq_of(seat.ws.recv())
        except websocket.WebSocketTimeoutException:
            continue
        if found is not None and found >= seq:
            return found


def settled(room: Room):
    """The room as stored once the computer has answered (at once: DOMINO_BOT_DELAY_MS=0)."""
    end = time.monotonic() + WAIT
    while True:
        now = room.stored()
        waiting = now.request is not None or not (now.round.over or now.round.turn == 0)
        if not (room.computer and waiting):
            return now
        assert time.monotonic() < end, f"{room.id}: the computer did not answer"
        time.sleep(0.02)


def next_action(room: Room):
    """What comes next at the table, once the computer has answered: (seat, action, fields
    with the seq); a move is the first legal one (faults.next_action)."""
    return faults.next_action(settled(room), room.seats)[:3]


def step(room: Room, acked: dict) -> None:
    """The next action, acknowledged by the shard and pushed to the other seat (a friend's;
    the computer's answer, to the player). `acked` keeps the moves: (room, seq) -> action."""
    seat, action, fields = next_action(room)
    seq = fields["seq"] + 1
    assert seat.post(action, fields) == 200, f"{room.id}: {action} at {seq} refused"
    if action in MOVES:
        acked[(room.id, seq)] = action
    now = settled(room).seq
    if not room.computer:
        assert pushed(room.seats[1 - room.seats.index(seat)], now) == now
    elif now > seq:
        assert pushed(seat, now) == now


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


def fetch(seat: Seat, headers: dict, cookies: str = "", timeout: float = 2 * NOT_A_HANG):
    """GET the seat's room page through nginx with more headers and cookies;
    (status, headers, page, seconds)."""
    sent = "; ".join([*(f"{c.name}={c.value}" for c in seat.jar), *filter(None, [cookies])])
    request = urllib.request.Request(
        f"{seat.server.url}/r/{seat.room}", headers={**headers, "Cookie": sent}
    )
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, reply.headers, reply.read().decode(), time.monotonic() - start
    except urllib.error.HTTPError as error:
        with error:
            body = error.read().decode()
            return error.code, error.headers, body, time.monotonic() - start


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
