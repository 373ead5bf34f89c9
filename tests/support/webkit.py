"""Helpers for the web tests: browsers as Flask test clients, fake sockets and a tiny DOM.

A `Table` is one browser (its own test client, so its own cookies) at one room. It keeps
every HTML text the server sent it, as answers and as frames pushed to its fake socket, and
fills in what htmx would send with each action: the CSRF token, the tab id and `seq`.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from html.parser import HTMLParser

from app import create_app
from domino import game
from domino.events import DRAW, Play
from domino.room import fold
from domino.tiles import Tile
from domino.web.live.hub import Connection
from domino.web.view.render import links
from tests.support.templates import compiled

TILE_TEXT = re.compile(r"(\d+)-(\d+)")
WRITTEN_TILE = re.compile(r"(?<!\d)[0-6]-[0-6](?!\d)")
# A tile written anywhere in the raw text, but not inside a longer token (room ids, CSRF
# tokens and URLs are random text that may hold "2-5").
BARE_TILE = re.compile(r"(?<![\w.\-/])[0-6]-[0-6](?![\w.\-/])")
VOID = frozenset(
    "area base br col embed hr img input link meta source track wbr".split()  # noqa: SIM905
)
WEBSOCKET_HEADERS = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}
_LATEST = object()  # `Table.post(seq=...)` default: the seq of the newest table this browser saw


# --- a tiny DOM ---------------------------------------------------------------------------

TABLE_SEQ = re.compile(r'data-seq="(\d+)"')


class Node:
    """An element (or the document root) with its attributes, children and text."""

    def __init__(self, tag: str, attrs, parent: Node | None = None) -> None:
        self.tag = tag
        self.attrs = dict(attrs)
        self.parent = parent
        self.children: list[Node | str] = []

    def __repr__(self) -> str:
        return f"<{self.tag} {self.attrs}>"

    def has(self, name: str) -> bool:
        return name in self.attrs

    def get(self, name: str, default=None):
        return self.attrs.get(name, default)

    @property
    def text(self) -> str:
        """The element's text, whitespace collapsed."""
        parts = []

        def walk(node: Node) -> None:
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                else:
                    walk(child)

        walk(self)
        return " ".join("".join(parts).split())

    @property
    def elements(self) -> list[Node]:
        """The element children."""
        return [child for child in self.children if isinstance(child, Node)]

    def iter(self) -> Iterator[Node]:
        """Every element below this one, in document order."""
        stack = self.elements[::-1]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(node.elements[::-1])

    def find_all(self, attr: str | None = None, value: str | None = None, tag: str | None = None):
        """Elements below this one with attribute `attr` (equal to `value`, if given)."""
        return [
            node
            for node in self.iter()
            if (tag is None or node.tag == tag)
            and (attr is None or node.has(attr))
            and (value is None or node.get(attr) == value)
        ]

    def find(self, attr: str | None = None, value: str | None = None, tag: str | None = None):
        """The first such element, or None."""
        found = self.find_all(attr, value, tag)
        return found[0] if found else None

    def one(self, attr: str | None = None, value: str | None = None, tag: str | None = None):
        """The only such element (fails the test otherwise)."""
        found = self.find_all(attr, value, tag)
        assert len(found) == 1, f"expected one [{attr}={value}], found {len(found)}"
        return found[0]

    def inside(self, attr: str) -> bool:
        """True when this element or an ancestor has attribute `attr`."""
        node: Node | None = self
        while node is not None:
            if node.has(attr):
                return True
            node = node.parent
        return False


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.stack[-1])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, attrs, self.stack[-1]))

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


@lru_cache(maxsize=256)
def parse(html: str) -> Node:
    """The document tree of an HTML page or fragment (the same text: the same tree, read once;
    the tests only read it)."""
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


# --- reading the docs/contracts.md, page hooks hooks
# ---------------------------------------------------------------


def norm(text: str) -> str:
    """A tile written either way round, as low-high: '5-2' -> '2-5'."""
    a, b = map(int, TILE_TEXT.fullmatch(text).groups())
    return f"{min(a, b)}-{max(a, b)}"


def hand(doc: Node) -> list[str]:
    """The `data-tile` values of the own hand, in order."""
    holder = doc.find("data-hand")
    return [] if holder is None else [t.get("data-tile") for t in holder.find_all("data-tile")]


def playable(doc: Node) -> set[str]:
    """The own tiles marked `data-playable`."""
    holder = doc.find("data-hand")
    return (
        set() if holder is None else {t.get("data-tile") for t in holder.find_all("data-playable")}
    )


def chain(doc: Node) -> list[str]:
    """The line as laid, left to right."""
    return [t.get("data-tile") for t in doc.one("data-chain").find_all("data-tile")]


def number(doc: Node, attr: str) -> int:
    """The number shown by the element with `attr` (a count)."""
    return int(doc.one(attr).text)


def button(doc: Node, action: str) -> Node | None:
    """The button `data-action=action`, if shown (a move list's `data-move` has a
    `data-action` too)."""
    return doc.find("data-action", action, tag="button")


def company(doc: Node) -> dict[int, Node]:
    """The other seats of a table of three or four (docs/contracts.md, page hooks `data-seat` with
    `data-count`), by absolute seat."""
    return {int(n.get("data-seat")): n for n in doc.find_all("data-count") if n.has("data-seat")}


def enabled(node: Node | None) -> bool:
    """True for a shown button that is not disabled."""
    return node is not None and not node.has("disabled")


def notice(doc: Node) -> str:
    """The text of `#notice`."""
    return doc.one("id", "notice").text


def vals(node: Node) -> dict:
    """The JSON parameters an htmx button sends."""
    return json.loads(node.get("hx-vals"))


def tile_mentions(doc: Node) -> list[tuple[str, Node]]:
    """Every tile the markup names or draws, with the element that does.

    `data-tile` values, `hx-vals` tiles, anything written like a tile ('2-5') in the text, an
    aria-label, a title or an id, and every domino face drawn (read from its pips). (URLs and
    tokens are left out: room ids are random text that may look like a tile.)
    """
    found = []
    for node in [doc, *doc.iter()]:
        if node.has("data-tile"):
            found.append((norm(node.get("data-tile")), node))
        if node.has("hx-vals") and "tile" in vals(node):
            found.append((norm(vals(node)["tile"]), node))
        if node.tag == "svg" and "face" in (node.get("class") or "").split():
            found.append((face_tile(node), node))
        written = [node.get(name) or "" for name in ("aria-label", "title", "id")]
        written += [child for child in node.children if isinstance(child, str)]
        for text in written:
            found += [(norm(match.group(0)), node) for match in WRITTEN_TILE.finditer(text)]
    return found


def face_tile(svg: Node) -> str:
    """The tile a domino face (web/view/faces.py) draws, low-high, counted from its pips: the
    first half is the left one (the top one on an upright face)."""
    upright = "v" in (svg.get("class") or "").split()
    halves = [0, 0]
    for pip in svg.find_all("class", "pip"):
        across = float(pip.get("cy") if upright else pip.get("cx"))
        halves[across > 50] += 1
    return norm(f"{halves[0]}-{halves[1]}")


def tiles_of(state: game.State, seat: int) -> set[str]:
    return {str(t) for t in state.hands[seat]}


def line_of(state: game.State) -> list[str]:
    return [str(laid) for laid in state.line]


def revealed_owner(node: Node, others: tuple[int, ...]) -> int | None:
    """The seat whose revealed hand (`data-opponent-hand`) holds `node`: None when it is in
    none; the `data-seat` of the hand's element, or at two seats the other one; -1 if unknown."""
    inside: Node | None = node
    while inside is not None and not inside.has("data-opponent-hand"):
        inside = inside.parent
    if inside is None:
        return None
    while inside is not None:
        if inside.has("data-seat"):
            return int(inside.get("data-seat"))
        inside = inside.parent
    return others[0] if len(others) == 1 else -1


def leaked_tiles(html: str, state: game.State, seat: int | None, doc: Node | None = None):
    """The tiles `html`, sent to `seat` (None: a browser without one) while the round was
    `state`, named or drew but must not have: the one leak rule, for any number of seats.

    Before the end a seat sees its own hand and the line, nothing else: no other seat's hand
    (a partner's neither) and no boneyard or sleeping tile. Once the round is over each other
    seat's hand may be shown, but only inside its own revealed hand (`data-opponent-hand`
    in that seat's `data-seat` element); the boneyard and the sleeping tiles never. Read in
    the markup (`tile_mentions`) and, for a tile written bare anywhere, in the raw text.
    """
    doc = parse(html) if doc is None else doc
    others = tuple(other for other in range(len(state.hands)) if other != seat)
    public = {norm(laid) for laid in line_of(state)}
    if seat is not None:
        public |= tiles_of(state, seat)
    shown = {other: tiles_of(state, other) if state.over else set() for other in others}
    bad = set()
    for tile, node in tile_mentions(doc):
        owner = revealed_owner(node, others)
        if tile not in (public if owner is None or not state.over else shown.get(owner, ())):
            bad.add(tile)
    allowed = public.union(*shown.values())
    bad |= {norm(match.group(0)) for match in BARE_TILE.finditer(html)} - allowed
    return bad


def round_at(events, room_id: str, kind: str, html: str) -> game.State | None:
    """The round as it stood at the table `html` shows (its `data-seq`), folded from the
    room's stored `events`; None if `html` holds no table."""
    found = TABLE_SEQ.search(html)
    if found is None:
        return None
    return fold(room_id, kind, [event for event in events if event[0] <= int(found[1])]).round


def assert_hides(html: str, state: game.State, seat: int) -> None:
    """`html`, sent to `seat` in `state`, names no tile that seat may not see (`leaked_tiles`);
    no hand is revealed before the end, and after it each revealed hand is its seat's whole
    hand."""
    doc = parse(html)
    leaked = leaked_tiles(html, state, seat, doc)
    assert not leaked, f"seat {seat} was shown {sorted(leaked)}"
    revealed = doc.find_all("data-opponent-hand")
    assert state.over or not revealed, f"seat {seat} was shown a hand before the end"
    others = tuple(other for other in range(len(state.hands)) if other != seat)
    for shown in revealed:
        owner = revealed_owner(shown, others)
        assert owner in others, f"seat {seat} was shown a hand of no other seat ({owner})"
        tiles = sorted(t.get("data-tile") for t in shown.find_all("data-tile"))
        assert tiles == sorted(tiles_of(state, owner)), f"seat {owner}'s hand shown wrong"


# --- browsers and sockets -----------------------------------------------------------------------


def connection(app, room_id: str, ws, tab: str, lang: str = "en") -> Connection:
    """A seat's live connection as its socket makes it: its language and its page's links."""
    with app.test_request_context():
        return Connection(ws, tab, lang, links(app.extensions["domino"].get(room_id)))


def make_app(db_path, seed: int = 1, **config):
    """An app in testing mode with CSRF protection on and a seeded dealer."""
    settings = {
        "TESTING": True,
        "DOMINO_DB": str(db_path),
        "SECRET_KEY": "x",
        "BOT_DELAY_MS": 0,
        "DOMINO_RNG": random.Random(seed),
    }
    settings.update(config)
    return compiled(create_app(settings))


class FakeSocket:
    """Stands in for a tab's websocket: records what the server pushes."""

    def __init__(self, inbox: list[str]) -> None:
        self.frames: list[str] = []
        self.closed: list[dict] = []
        self._inbox = inbox

    def send(self, text: str) -> None:
        self.frames.append(str(text))
        self._inbox.append(str(text))

    def close(self, **kw) -> None:
        self.closed.append(kw)


class Table:
    """One browser at one room."""

    def __init__(self, app, room: str | None = None) -> None:
        self.app = app
        self.client = app.test_client()
        self.room = room
        self.csrf: str | None = None
        self.tab: str | None = None
        self.ws: FakeSocket | None = None
        self.conn: Connection | None = None
        self.seen: list[str] = []  # every HTML text sent to this browser, oldest first
        self._checked = 0

    # -- the app's services
    @property
    def services(self):
        return self.app.extensions["domino"]

    @property
    def state(self) -> game.State:
        return self.services.rooms.get(self.room).round

    @property
    def log(self) -> list:
        return self.services.rooms.store.load(self.room)

    @property
    def url(self) -> str:
        return f"/r/{self.room}"

    @property
    def secret(self) -> str | None:
        cookie = self.client.get_cookie("seat", path=self.url)
        return None if cookie is None else cookie.value

    @property
    def seat(self) -> int | None:
        return self.services.rooms.get(self.room).seat_of(self.secret)

    # -- pages
    def _saw(self, response):
        text = response.get_data(as_text=True)
        # A redirect's body is never shown (the browser follows it), and Werkzeug's stock
        # body writes the target URL as link text: a random room id like "…x2-5y…" would
        # read as a tile there.
        if response.mimetype == "text/html" and not 300 <= response.status_code < 400:
            self.seen.append(text)
            self._read_csrf(text)
        return response

    def _read_csrf(self, text: str) -> None:
        doc = parse(text)
        body = doc.find("hx-headers", tag="body")
        field = doc.find("name", "csrf_token", tag="input")
        if body is not None:
            self.csrf = json.loads(body.get("hx-headers"))["X-CSRFToken"]
        elif field is not None:
            self.csrf = field.get("value")

    def get(self, path: str, **kw):
        return self._saw(self.client.get(path, **kw))

    def home(self):
        return self.get("/")

    def create_room(self, path: str = "/rooms", **card):
        """Create a room from the home page (with the rules card's `card` fields) and open it."""
        self.home()
        response = self.client.post(path, data={"csrf_token": self.csrf, **card})
        assert response.status_code == 303, response.status_code
        self.room = response.headers["Location"].rsplit("/", 1)[-1]
        self.open()
        return response

    def open(self, **kw):
        """GET the room page (the full page)."""
        return self.get(self.url, **kw)

    def fragment(self, **query):
        """GET the room as htmx does: the #table fragment only."""
        return self.get(self.url, query_string=query, headers={"HX-Request": "true"})

    def join(self, htmx: bool = False, **fields):
        """Open the invitation link and take a seat, as the join page does (`fields`: what
        else the form sends, e.g. a client seed)."""
        if self.csrf is None:
            self.open()
        headers = {"X-CSRFToken": self.csrf}
        if htmx:
            headers["HX-Request"] = "true"
        return self._saw(self.client.post(f"{self.url}/join", headers=headers, data=fields))

    # -- the socket
    def connect(self, tab: str = "100.a") -> FakeSocket:
        """Attach a fake live connection for this browser's seat, as its socket would."""
        self.tab = tab
        self.ws = FakeSocket(self.seen)
        self.conn = connection(self.app, self.room, self.ws, tab)
        self.services.hub.attach(self.room, self.seat, self.conn)
        return self.ws

    def disconnect(self) -> None:
        self.services.hub.detach(self.room, self.seat, self.conn)

    # -- actions
    @property
    def html(self) -> str:
        """The table this browser shows: of those it was sent, the latest of the highest seq
        (a page keeps its table over an older one that comes after it, static/table.js: a
        reply may come after the push of the computer's answer)."""
        shown, shown_seq = None, -1
        for text in self.seen:
            found = TABLE_SEQ.search(text)
            if found is not None and int(found.group(1)) >= shown_seq:
                shown, shown_seq = text, int(found.group(1))
        if shown is None:
            raise AssertionError("this browser has seen no table")
        return shown

    @property
    def doc(self) -> Node:
        return parse(self.html)

    @property
    def seq(self) -> int:
        return int(self.doc.one("data-seq").get("data-seq"))

    def post(self, action: str, *, seq=_LATEST, tab=_LATEST, csrf: bool = True, **fields):
        """POST an action as htmx would; `seq=None`, `tab=None` leave them out."""
        data = {key: str(value) for key, value in fields.items()}
        if seq is _LATEST:
            seq = self.seq
        if seq is not None:
            data["seq"] = str(seq)
        headers = {}
        if csrf:
            headers["X-CSRFToken"] = self.csrf
        tab = self.tab if tab is _LATEST else tab
        if tab is not None:
            headers["X-Tab"] = tab
        return self._saw(self.client.post(f"{self.url}/{action}", data=data, headers=headers))

    def send(self, action):
        """Send a rules action (a Play, DRAW or PASS) straight to the server."""
        if isinstance(action, Play):
            return self.post("play", tile=str(action.tile), end=action.end)
        return self.post("draw" if action is DRAW else "pass")

    def click(self, action):
        """Carry out a rules action through the buttons of the newest table, like a player."""
        doc = self.doc
        if not isinstance(action, Play):
            name = "draw" if action is DRAW else "pass"
            control = button(doc, name)
            assert enabled(control), f"no enabled {name} button"
            return self.post(name, **vals(control))
        tile = doc.one("data-hand").one("data-tile", str(action.tile))
        assert tile.has("data-playable"), f"{action.tile} is not playable"
        if tile.has("hx-vals"):
            return self.post("play", **vals(tile))
        offered = parse(self.fragment(select=str(action.tile)).get_data(as_text=True))
        end = offered.one("data-end", action.end)
        return self.post("play", **vals(end))

    def unchecked(self) -> list[str]:
        """The HTML texts sent to this browser since the last call."""
        fresh = self.seen[self._checked :]
        self._checked = len(self.seen)
        return fresh


def friends(app, tab_a: str = "100.a", tab_b: str = "100.b", **card) -> tuple[Table, Table]:
    """A room (made with the rules card's `card` fields) with its creator (seat 0) and a guest
    (seat 1), both connected."""
    a = Table(app)
    a.create_room(**card)
    b = Table(app, a.room)
    b.open()
    assert b.join().status_code == 303
    a.connect(tab_a)
    b.connect(tab_b)
    a.fragment()
    b.fragment()
    return a, b


def seat_on_turn(tables: tuple[Table, Table]) -> Table:
    return tables[tables[0].state.turn]


def new_round(tables: tuple[Table, Table]) -> None:
    """Deal again with both players' consent."""
    a, b = tables
    assert a.post("new-round").status_code == 200
    assert b.post("accept-new-round").status_code == 200


def advance_until(
    tables: tuple[Table, Table], wanted: Callable[[game.State], bool], rng: random.Random
) -> game.State:
    """Play random legal moves through HTTP until `wanted(state)`; deal again at a round's end."""
    for _ in range(2000):
        state = tables[0].state
        if not state.over and wanted(state):
            return state
        if state.over:
            new_round(tables)
            continue
        mover = seat_on_turn(tables)
        response = mover.send(rng.choice(game.legal_actions(state, state.turn)))
        assert response.status_code == 200, response.get_data(as_text=True)
    raise AssertionError("the wanted position never came up")


def fits(tile: Tile, state: game.State, end: str) -> bool:
    """True when `tile` may be laid at `end` of the line in `state`."""
    left, right = state.ends
    return tile.has(left if end == "left" else right)


def friends_in(app, lang: str) -> tuple[Table, Table]:
    """Like webkit.friends, with both browsers and their sockets in `lang`."""
    a = Table(app)
    a.client.set_cookie("lang", lang)
    a.create_room()
    b = Table(app, a.room)
    b.client.set_cookie("lang", lang)
    b.open()
    assert b.join().status_code == 303
    for table, tab in ((a, "100.a"), (b, "100.b")):
        table.tab = tab
        table.ws = FakeSocket(table.seen)
        table.conn = connection(app, table.room, table.ws, tab, lang)
        table.services.hub.attach(table.room, table.seat, table.conn)
        table.fragment()
    return a, b


def two_way(state: game.State) -> list[Tile]:
    """Tiles of the seat on turn that fit both ends, when the ends differ."""
    if state.ends is None or state.ends[0] == state.ends[1]:
        return []
    plays = [p for p in game.legal_actions(state, state.turn) if isinstance(p, Play)]
    return [p.tile for p in plays if fits(p.tile, state, "left") and fits(p.tile, state, "right")]


def help_pages(app, languages) -> dict[str, Node]:
    """Each language's help page, fetched as a browser with that language chosen would."""
    found = {}
    for lang in languages:
        client = app.test_client()
        client.set_cookie("lang", lang)
        response = client.get("/help")
        assert response.status_code == 200
        doc = parse(response.get_data(as_text=True))
        assert doc.one(tag="html").get("lang") == lang
        found[lang] = doc
    return found
