"""Players over real websockets, for the tests of a live server (tests/support/live.py): a
browser (tests/support/client.py) per seat with its own cookie jar, each seat's socket a
websocket-client connection carrying the seat cookie and the page's Origin, and every #table
fragment it receives read through the page hooks of docs/contracts.md."""

from __future__ import annotations

import html
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

import websocket

from domino import game
from domino.events import DRAW, PASS, Play
from tests.support.client import Browser, Reply, csrf_field, page_headers
from tests.support.webkit import parse

WAIT = 5.0  # seconds to wait for any one expected frame
SEED = 1
TILE_TEXT = re.compile(r"\d+-\d+")


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


def ended_by_server(ws, within: float) -> bool:
    """True once the server has closed the connection (read past any frames it sent)."""
    raw = ws.sock
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        raw.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            if raw.recv(65536) == b"":
                return True
        except TimeoutError:
            return False
        except OSError:  # reset by the server: closed too
            return True
    return False
