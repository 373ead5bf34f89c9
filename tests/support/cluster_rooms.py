"""Rooms played through a running cluster of two shards behind nginx (tests/support/shards.py),
seat by seat as browsers would (tests/support/faults.py's Seat): created on a home page a
given shard drew, connected, stepped on, fetched with more headers."""

from __future__ import annotations

import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import websocket

from tests.support import faults
from tests.support.faults import Seat, csrf_field, position
from tests.support.shards import Processes
from tests.support.webkit import TABLE_SEQ, parse

WAIT = 10.0  # seconds for a push, or for the computer's answer
NOT_A_HANG = 5.0  # seconds within which nginx answers for a shard that is down
SHARDS = ("s1", "s2")
KILLED, ALIVE = SHARDS
MOVES = ("play", "draw", "pass")


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
