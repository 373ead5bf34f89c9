"""The load bench's browser: cookies, a tab, a websocket, and reading the table it is sent.

It acts only on what its own table offers (the buttons' `hx-post` and `hx-vals`), as a
person clicking would, and sends what htmx sends: the CSRF token and tab id as headers.
"""

from __future__ import annotations

import asyncio
import html
import json
import random
import re
import time
import urllib.parse
from collections import Counter, defaultdict

import aiohttp

SEQ = re.compile(r'<div id="table"[^>]*data-seq="(\d+)"')
OVER = re.compile(r'<div id="table" class="[^"]*\bover\b')
BUTTON = re.compile(r"<button\b([^>]*)>")
ATTR = re.compile(r"""([\w:-]+)(?:="([^"]*)"|='([^']*)')?""")
HX_HEADERS = re.compile(r"hx-headers='([^']*)'")
CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
# Where the home page's creation form posts ("Play with a friend", and "Play the computer"'s
# formaction): with shards, to the one that drew the page (`/rooms?shard=s1`); an older
# checkout's page (bench/compare.py) may say neither: then the plain paths.
CREATE_ACTION = re.compile(r'<form method="post" action="([^"]+)"')
COMPUTER_ACTION = re.compile(r'formaction="([^"]*/computer[^"]*)"')
MOVES = ("draw", "pass")
PUSH_FIRST = 10.0  # seconds a new socket may take to send its first table


class Tally:
    """What a run counted: acknowledged actions, errors by kind, latencies in seconds."""

    def __init__(self) -> None:
        self.actions: Counter[str] = Counter()  # acknowledged, by kind
        self.errors = 0
        self.kinds: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = defaultdict(list)
        self.latency: list[float] = []
        self.reply: list[float] = []

    @property
    def moves(self) -> int:
        """How many actions the server acknowledged."""
        return sum(self.actions.values())

    def error(self, kind: str, example: str) -> None:
        self.errors += 1
        self.kinds[kind] += 1
        if len(self.examples[kind]) < 3:
            self.examples[kind].append(example)


def seq_of(text: str) -> int | None:
    """The seq of a table fragment or page, or None if it holds no table."""
    found = SEQ.search(text)
    return int(found.group(1)) if found else None


def buttons(text: str) -> list[dict[str, str]]:
    """The enabled buttons of a table, each as its attributes."""
    found = []
    for match in BUTTON.finditer(text):
        attrs = {
            m.group(1): html.unescape(m.group(2) or m.group(3) or "")
            for m in ATTR.finditer(match.group(1))
        }
        if "disabled" not in attrs:
            found.append(attrs)
    return found


def options(text: str) -> list[tuple[str, dict]]:
    """What a seat may do from this table: (action, form fields), or ("select", {"tile"})."""
    found = []
    for attrs in buttons(text):
        if "hx-post" in attrs:
            action = attrs["hx-post"].rsplit("/", 1)[-1]
            found.append((action, json.loads(attrs.get("hx-vals") or "{}")))
        elif "data-playable" in attrs and "select=" in attrs.get("hx-get", ""):
            found.append(("select", {"tile": attrs["data-tile"]}))
    return found


def choose(seats, rng: random.Random):
    """Who acts next and how: (seat index, action, fields), or None if nobody can yet."""
    newest = max(seat.seq for seat in seats)
    offered = [options(seat.html) if seat.seq == newest else [] for seat in seats]
    over = any(OVER.search(seat.html) for seat in seats if seat.seq == newest)
    for index, choices in enumerate(offered):
        if over:
            picks = [c for c in choices if c[0] == "accept-new-round"]
            picks = picks or [c for c in choices if c[0] == "new-round" and not _asked(seats)]
        else:
            picks = [c for c in choices if c[0] in ("play", "select")]
            picks = picks or [c for c in choices if c[0] in MOVES]
        if picks:
            action, fields = rng.choice(picks)
            return index, action, fields
    return None


def _asked(seats) -> bool:
    """True when, at two seats, a new round was asked for and waits for the other seat (at
    three or four, every seat's yes is a "new-round" of its own: docs/contracts.md, page hooks)."""
    return any('data-action="accept-new-round"' in seat.html for seat in seats)


class Browser:
    """One browser holding (or about to take) one seat, from its own (proxied) address."""

    made = 0

    def __init__(self, url: str, http: aiohttp.ClientSession) -> None:
        self.url = url
        self.http = http
        Browser.made += 1
        self.address = (
            f"10.{Browser.made >> 16 & 255}.{Browser.made >> 8 & 255}.{Browser.made & 255}"
        )
        self.cookies: dict[str, str] = {}
        self.room = self.tab = self.csrf = ""
        self.html = ""
        self.seq = -1
        self.changed = asyncio.Event()
        self.changed_at = 0.0
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.reader: asyncio.Task | None = None
        self.closing = self.closed = False
        self.dropped = 0
        self.kept: list[tuple[int, str]] | None = None  # every table received, for --leaks

    async def request(self, method: str, path: str, data=None, headers=None):
        """One request with this browser's cookies; (status, text, headers)."""
        sent = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        sent["X-Forwarded-For"] = self.address
        sent.update(headers or {})
        async with self.http.request(
            method, self.url + path, data=data, headers=sent, allow_redirects=False
        ) as reply:
            text = await reply.text()
            for name, morsel in reply.cookies.items():
                self.cookies[name] = morsel.value
            return reply.status, text, reply.headers

    async def create_room(self, computer: str | None = None, preset: str | None = None) -> None:
        """Press "Play with a friend" on the home page, or "Play the computer" at a level; with
        `preset`, under that preset of the rules card (e.g. "pairs")."""
        _status, home, _h = await self.request("GET", "/")
        form = {"csrf_token": CSRF_FIELD.search(home)[1]}
        if computer is not None:
            form["level"] = computer
        if preset is not None:
            form["preset"] = preset
        found = (CREATE_ACTION if computer is None else COMPUTER_ACTION).search(home)
        path = html.unescape(found[1]) if found else "/rooms" if computer is None else "/computer"
        status, _text, headers = await self.request("POST", path, data=form)
        assert status == 303, f"creating a room: {status}"
        self.room = headers["Location"].rsplit("/", 1)[-1]

    async def join(self, room: str) -> None:
        self.room = room
        status, page, _h = await self.request("GET", f"/r/{room}")
        assert status == 200, f"the invitation: {status}"
        status, _text, headers = await self.request(
            "POST",
            f"/r/{room}/join",
            data={"csrf_token": CSRF_FIELD.search(page)[1]},
            headers={"HX-Request": "true", "Origin": self.url},
        )
        assert status == 200 and "HX-Redirect" in headers, f"joining: {status}"

    async def open_page(self) -> None:
        """Load the room page: its tab id, CSRF token and (inert) table."""
        status, page, _h = await self.request("GET", f"/r/{self.room}")
        assert status == 200, f"the room page: {status}"
        sent = json.loads(html.unescape(HX_HEADERS.search(page)[1]))
        self.tab, self.csrf = sent["X-Tab"], sent["X-CSRFToken"]
        self.take(page, time.perf_counter())

    async def connect(self, sockets: aiohttp.ClientSession, deflate: bool, tally: Tally) -> None:
        """Open the seat's socket; it starts with the whole table."""
        url = self.url.replace("http://", "ws://", 1)
        url += f"/r/{self.room}/ws?tab={urllib.parse.quote(self.tab)}"
        self.ws = await sockets.ws_connect(
            url,
            headers={
                "Cookie": f"seat={self.cookies['seat']}",
                "Origin": self.url,
                "X-Forwarded-For": self.address,
            },
            compress=15 if deflate else 0,
            max_msg_size=0,
        )
        first = await self.ws.receive(timeout=PUSH_FIRST)
        assert first.type == aiohttp.WSMsgType.TEXT and seq_of(first.data) is not None
        self.take(first.data, time.perf_counter())
        self.reader = asyncio.create_task(self.read(tally))

    async def read(self, tally: Tally) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            if seq_of(message.data) is None:
                tally.error("frame without a table", message.data[:120])
            self.take(message.data, time.perf_counter())
        if not self.closing:
            self.dropped += 1
        self.closed = True
        self.changed.set()

    def take(self, text: str, now: float) -> None:
        """Keep a table if it is at least as new as the one this browser shows."""
        seq = seq_of(text)
        if seq is not None and self.kept is not None:
            self.kept.append((seq, text))
        if seq is None or seq < self.seq:
            return
        if seq > self.seq:
            self.changed_at = now
        self.seq, self.html = seq, text
        self.changed.set()

    def htmx_headers(self) -> dict[str, str]:
        """What htmx sends with an action from this tab (its CSRF token, its tab id)."""
        return {
            "X-CSRFToken": self.csrf,
            "X-Tab": self.tab,
            "HX-Request": "true",
            "Origin": self.url,
        }

    async def post(self, action: str, fields: dict, tally: Tally) -> tuple[int, int | None]:
        """Send an action as htmx does; (status, the new table's seq)."""
        start = time.perf_counter()
        status, text, _h = await self.request(
            "POST", f"/r/{self.room}/{action}", data=fields, headers=self.htmx_headers()
        )
        tally.reply.append(time.perf_counter() - start)
        if status == 200:
            self.take(text, time.perf_counter())
        return status, seq_of(text)

    async def select(self, tile: str, tally: Tally, rng: random.Random):
        """Click a tile that fits both ends; then the end buttons offer ("play", fields)."""
        status, text, _h = await self.request(
            "GET", f"/r/{self.room}?select={tile}", headers={"HX-Request": "true"}
        )
        if status != 200:
            tally.error(f"select {status}", f"{self.room} {tile}")
            return None
        ends = [o for o in options(text) if o[0] == "play" and o[1].get("tile") == tile]
        if not ends:
            tally.error("select offered no end", f"{self.room} {tile}")
            return None
        return rng.choice(ends)

    async def refresh(self, tally: Tally) -> None:
        """Fetch the table as it stands (after a refusal or a missed push)."""
        try:
            status, text, _h = await self.request(
                "GET", f"/r/{self.room}", headers={"HX-Request": "true"}
            )
            if status == 200:
                self.take(text, time.perf_counter())
        except (TimeoutError, aiohttp.ClientError) as error:
            tally.error("refresh", repr(error))

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)
