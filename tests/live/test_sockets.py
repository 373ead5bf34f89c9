"""Live-server websocket tests: the table a seat's socket receives, presence, tabs, secrecy.

A real server (tests/support/live.py) on loopback; two browsers (tests/support/client.py) with
their own cookie jars; each seat's socket is a websocket-client connection carrying the seat
cookie and the page's Origin.
"""

from __future__ import annotations

import html
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

import pytest
import websocket

from domino import game
from domino.events import DRAW, PASS, Play
from domino.web.view.messages import refusal
from tests.support.client import Browser, Reply, csrf_field, page_headers
from tests.support.live import live_server
from tests.support.webkit import leaked_tiles, parse

WAIT = 5.0  # seconds to wait for any one expected frame
SEED = 1
TILE_TEXT = re.compile(r"\d+-\d+")
# A tile written anywhere in a fragment (an attribute, JSON in hx-vals, text), but not a piece of
# a longer token such as a room id in a URL.
TILE_ANYWHERE = re.compile(r"(?<![\w-])\d+-\d+(?![\w-])")


def norm(text: str) -> str:
    """A tile as written low-high, whichever way round `text` has it (`5-2` → `2-5`)."""
    a, b = sorted(int(half) for half in text.split("-"))
    return f"{a}-{b}"


# ---------------------------------------------------------------------------------------------
# Reading a #table fragment through the page hooks of docs/contracts.md, page hooks


class Frame:
    """One fragment as a seat would see it: the hooks it carries, read with the one HTML
    reader (tests/support/webkit.py `parse`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        doc = parse(text)
        table = doc.find("id", "table")
        self.table: dict[str, str | None] | None = None if table is None else table.attrs
        self.hand: list[str] = []
        self.playable: list[str] = []
        self.opening: list[str] = []
        self.chain: list[str] = []
        self.opponent_hand: list[str] = []
        self.named: list[str] = []  # every tile a data-tile or a tile-like aria-label names
        self.counts: dict[str, str] = {}
        self.connected: str | None = None
        self.turn: str | None = None
        self.result: dict[str, str | None] | None = None
        self.superseded = False
        self.actions: dict[str, bool] = {}  # data-action → enabled
        for node in doc.iter():
            self._read(node)

    @property
    def seq(self) -> int | None:
        """The room's latest event number the fragment was drawn at."""
        if self.table is None or self.table.get("data-seq") is None:
            return None
        return int(self.table["data-seq"])

    def _read(self, node) -> None:
        a, within = node.attrs, node.parent
        if "data-tile" in a:
            tile = a["data-tile"] or ""
            self.named.append(tile)
            if within.inside("data-hand"):
                self.hand.append(tile)
                if "data-playable" in a:
                    self.playable.append(tile)
                if "data-opening" in a:
                    self.opening.append(tile)
            elif within.inside("data-chain"):
                self.chain.append(tile)
            elif within.inside("data-opponent-hand"):
                self.opponent_hand.append(tile)
        label = a.get("aria-label") or ""
        if TILE_TEXT.fullmatch(label):
            self.named.append(label)
        if "data-opponent-connected" in a:
            self.connected = a["data-opponent-connected"]
        if "data-turn" in a:
            self.turn = a["data-turn"]
        if "data-result" in a:
            self.result = a
        if "data-superseded" in a:
            self.superseded = True
        if "data-action" in a and node.tag == "button":  # not a move list's data-move
            self.actions[a["data-action"] or ""] = "disabled" not in a
        for count in ("data-opponent-count", "data-boneyard-count"):
            if count in a:
                self.counts[count] = node.text.replace(" ", "")

    def count(self, hook: str) -> int:
        return int(self.counts[hook])

    def summary(self) -> str:
        if self.superseded:
            return "<superseded>"
        return (
            f"<seq={self.seq} connected={self.connected} turn={self.turn} "
            f"chain={self.chain} hand={self.hand} result={self.result is not None}>"
        )


# ---------------------------------------------------------------------------------------------
# Browsers, seats and sockets


class Socket:
    """A seat's websocket, keeping every fragment it received in order."""

    def __init__(self, ws: websocket.WebSocket, tab: str) -> None:
        self.ws = ws
        self.tab = tab
        self.frames: list[Frame] = []
        self.close_code: int | None = None

    def next_frame(self, deadline: float) -> Frame | None:
        """The next fragment; None once the server closed the socket."""
        opcode = websocket.ABNF.OPCODE_PING
        while opcode in (websocket.ABNF.OPCODE_PING, websocket.ABNF.OPCODE_PONG):
            # the server's pings (answered as they come) must not push the deadline back
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.ws.settimeout(left)
            try:
                opcode, frame = self.ws.recv_data_frame(control_frame=True)
            except websocket.WebSocketTimeoutException as error:
                raise TimeoutError from error
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            data = frame.data or b""
            self.close_code = int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005
            return None
        assert opcode == websocket.ABNF.OPCODE_TEXT, f"unexpected opcode {opcode}"
        parsed = Frame(frame.data.decode())
        self.frames.append(parsed)
        return parsed

    def wait(self, predicate, what: str, timeout: float = WAIT) -> Frame:
        """Read fragments until one matches `predicate`; fail after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        start = len(self.frames)
        while True:
            try:
                frame = self.next_frame(deadline)
            except TimeoutError:
                seen = [f.summary() for f in self.frames[start:]]
                raise AssertionError(f"no frame {what} within {timeout}s; got {seen}") from None
            if frame is None:
                seen = [f.summary() for f in self.frames[start:]]
                raise AssertionError(f"socket closed ({self.close_code}) before {what}: {seen}")
            if predicate(frame):
                return frame

    def wait_closed(self, timeout: float = WAIT) -> int:
        """Read until the server's close frame; return its status code."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                frame = self.next_frame(deadline)
            except TimeoutError:
                raise AssertionError(f"socket still open after {timeout}s") from None
            if frame is None:
                return self.close_code

    def since(self, index: int) -> list[Frame]:
        return self.frames[index:]

    def close(self) -> None:
        try:
            self.ws.close(timeout=1)
        except Exception:
            self.ws.shutdown()


class Player:
    """A browser seated in a room: its latest page (tab and CSRF token) and its sockets."""

    def __init__(self, server, browser: Browser, room_id: str, seat: int, opened: list) -> None:
        self.server = server
        self.browser = browser
        self.room_id = room_id
        self.seat = seat
        self.opened = opened
        self.tab = ""
        self.csrf = ""
        self.ws: Socket | None = None

    def take_page(self, page: str) -> str:
        """Read the tab and CSRF token of a served room page; return the tab."""
        self.tab, self.csrf = page_headers(page)
        connect = re.search(r'ws-connect="([^"]*)"', page)
        assert connect, "the room page has no ws-connect"
        expected = f"{self.server.root}/r/{self.room_id}/ws?tab={urllib.parse.quote(self.tab)}"
        assert html.unescape(connect.group(1)) == expected
        return self.tab

    def load(self) -> str:
        """Load the room page again (a reload: a new tab); return the new tab."""
        reply = self.browser.request(f"/r/{self.room_id}")
        assert reply.status == 200, reply.text
        return self.take_page(reply.text)

    def open_socket(self, tab: str | None = None, **options) -> Socket:
        """Open a socket for `tab` (the latest page's by default) as a browser would."""
        tab = self.tab if tab is None else tab
        url = self.server.url.replace("http://", "ws://", 1)
        url += f"/r/{self.room_id}/ws?tab={urllib.parse.quote(tab)}"
        cookie = self.browser.cookie("seat")
        options.setdefault("origin", self.server.origin)
        options.setdefault("header", [f"Cookie: seat={cookie}"])
        ws = websocket.create_connection(url, timeout=WAIT, **options)
        sock = Socket(ws, tab)
        self.opened.append(sock)
        return sock

    def connect(self) -> Socket:
        """Open the live socket of the latest page and read the full table it starts with."""
        self.ws = self.open_socket()
        self.ws.wait(lambda f: f.table is not None and not f.superseded, "with the whole table")
        return self.ws

    def post(self, action: str, fields: dict, tab: str | None = None) -> Reply:
        headers = {"X-CSRFToken": self.csrf, "X-Tab": self.tab if tab is None else tab}
        return self.browser.request(f"/r/{self.room_id}/{action}", fields, headers)

    def act(self, action, seq: int, tab: str | None = None) -> Reply:
        """Send one game action (a `Play`, DRAW or PASS) as the page's buttons would."""
        if isinstance(action, Play):
            fields = {"tile": str(action.tile), "end": action.end, "seq": seq}
            return self.post("play", fields, tab)
        name = {DRAW: "draw", PASS: "pass"}[action]
        return self.post(name, {"seq": seq}, tab)


@dataclass
class Table:
    """A friend room with both browsers seated; `players[i]` holds seat i."""

    server: object
    room_id: str
    players: list[Player]
    opened: list = field(default_factory=list)

    @property
    def room(self):
        return self.server.services.rooms.get(self.room_id)

    @property
    def state(self) -> game.State:
        return self.room.round

    def stored(self) -> int:
        return len(self.server.services.rooms.store.load(self.room_id))

    def to_move(self) -> Player:
        return self.players[self.state.turn]

    def first_legal(self, player: Player):
        actions = game.legal_actions(self.state, player.seat)
        assert actions, f"seat {player.seat} has nothing to do"
        return actions[0]


def create_room(server, opened: list) -> Player:
    """A browser creates a friend room from the home page; it holds seat 0."""
    browser = Browser(server.url)
    home = browser.request("/")
    created = browser.request("/rooms", {"csrf_token": csrf_field(home.text)})
    assert created.status == 200, created.text
    room_id = created.url.rsplit("/", 1)[-1]
    host = Player(server, browser, room_id, 0, opened)
    host.take_page(created.text)
    return host


def join_room(server, room_id: str, opened: list) -> Player:
    """A second browser opens the invitation, takes seat 1 and lands on its own page."""
    browser = Browser(server.url)
    invite = browser.request(f"/r/{room_id}")
    assert invite.status == 200 and 'data-action="join"' in invite.text
    joined = browser.request(f"/r/{room_id}/join", {"csrf_token": csrf_field(invite.text)})
    assert joined.status == 200 and joined.url.endswith(f"/r/{room_id}"), joined.text
    guest = Player(server, browser, room_id, 1, opened)
    guest.take_page(joined.text)
    return guest


@pytest.fixture
def server(tmp_path):
    with live_server(tmp_path / "domino.sqlite3", seed=SEED) as live:
        yield live


@pytest.fixture
def opened(server):
    """Every socket a test opens; all are closed at the end, whatever happened."""
    sockets: list[Socket] = []
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


@pytest.fixture
def table(server, opened) -> Table:
    """A room with both seats taken and both live sockets open, each past its first table."""
    host = create_room(server, opened)
    guest = join_room(server, host.room_id, opened)
    host.connect()
    guest.connect()
    host.ws.wait(lambda f: f.connected == "true", "saying the guest is connected")
    return Table(server, host.room_id, [host, guest], opened)


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
