"""Quick match's seam over HTTP (web/live/waves.py `over_http`), against real shards: two
shard apps (LOBBY "elsewhere") served on loopback in threads, and stand-ins that fail as a
shard can (a closed port, one that never answers, a 500, a wrong answer, another key). Tables
go to the shards in turn; a failing shard is passed over for the next, within the timeout;
when none opens a table the call raises and a wave leaves its players queued; a table a shard
refuses as wrong (400) is not tried elsewhere."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from domino.lobby import Lobby
from domino.players import names
from domino.web.live.waves import NoShard, Waves, over_http
from tests.support.live import live_server
from tests.support.shards import free_ports

KEY = "live-cluster"


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Shards s1 and s2, with the cluster's key."""
    folder = tmp_path_factory.mktemp("shards")
    with contextlib.ExitStack() as stack:
        found = [
            stack.enter_context(
                live_server(
                    folder / f"{name}.sqlite3",
                    SHARD=name,
                    LOBBY="elsewhere",
                    LOBBY_DB=str(folder / "no-lobby.sqlite3"),
                    SECRET_KEY=KEY,
                )
            )
            for name in ("s1", "s2")
        ]
        yield found


class StandIn:
    """A local HTTP server answering every POST with `status` and `body`; counts them."""

    def __init__(self, status: int, body: str) -> None:
        posts = self.posts = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                posts.append(self.rfile.read(int(self.headers["Content-Length"])))
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stand_in():
    made = []

    def make(status: int, body: str) -> StandIn:
        made.append(StandIn(status, body))
        return made[-1]

    yield make
    for each in made:
        each.close()


@pytest.fixture
def silent():
    """A port that takes connections (the kernel's backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


def closed_port() -> str:
    return f"http://127.0.0.1:{free_ports(1)[0]}"


def seats(*people: str) -> list:
    return [None if p is None else (p, p.title()) for p in people]


def opened_on(shard, opened, named=str.title) -> None:
    """The room is `shard`'s, full, with a grant for each person, named `named(player)`."""
    assert opened.room.startswith(f"{shard.app.config['SHARD']}-"), opened.room
    room = shard.services.get(opened.room)
    assert room is not None and room.kind == "public" and room.full
    for player, path in opened.grants.items():
        assert path.startswith(f"/r/{opened.room}/grant?token=")
        assert named(player) in room.names


def test_tables_go_to_the_shards_in_turn(shards):
    s1, s2 = shards
    open_table = over_http([s1.url, s2.url + "/"], KEY)
    opened = [open_table("classic", seats(f"ana{n}", None)) for n in range(4)]
    assert [o.room.split("-")[0] for o in opened] == ["s1", "s2", "s1", "s2"]
    for shard, table in zip([s1, s2, s1, s2], opened, strict=True):
        opened_on(shard, table)
    pairs = open_table("pairs", seats("bob", "cyd", None, "dan"))
    opened_on(s1, pairs)
    assert set(pairs.grants) == {"bob", "cyd", "dan"}


def test_a_shard_that_fails_is_passed_over_for_the_next(shards, stand_in, tmp_path):
    s1, _s2 = shards
    with live_server(
        tmp_path / "s9.sqlite3", SHARD="s9", LOBBY="elsewhere", SECRET_KEY="another key"
    ) as other_key:
        failing = [
            closed_port(),  # down
            stand_in(500, "oops").url,  # broken
            stand_in(200, '{"room": "s7-x", "grants": {}}').url,  # a wrong answer
            stand_in(200, "not json").url,
            other_key.url,  # a shard with another key: 403
        ]
        for bad in failing:
            open_table = over_http([bad, s1.url], KEY)
            for _ in range(2):  # whichever the turn starts at
                opened_on(s1, open_table("classic", seats("eve", "fay")))
        assert rooms_in(other_key) == 0


def rooms_in(shard) -> int:
    conn = sqlite3.connect(shard.app.config["DOMINO_DB"])
    try:
        return conn.execute("SELECT count(*) FROM rooms").fetchone()[0]
    finally:
        conn.close()


def test_a_shard_that_never_answers_is_given_up_within_the_timeout(shards, silent):
    s1, _s2 = shards
    open_table = over_http([silent, s1.url], KEY, timeout=0.5)
    start = time.monotonic()
    opened_on(s1, open_table("classic", seats("gil", None)))
    assert time.monotonic() - start < 3


def test_when_no_shard_opens_the_table_the_call_raises(stand_in, silent):
    broken = stand_in(503, "unavailable")
    open_table = over_http([closed_port(), broken.url, silent], KEY, timeout=0.5)
    with pytest.raises(NoShard) as raised:
        open_table("classic", seats("hal", None))
    assert broken.url in str(raised.value) and "503" in str(raised.value)
    assert len(broken.posts) == 1


def test_a_table_a_shard_refuses_as_wrong_is_not_tried_elsewhere(shards, stand_in):
    s1, _s2 = shards
    second = stand_in(200, "{}")
    open_table = over_http([s1.url, second.url], KEY)
    with pytest.raises(NoShard, match="bad-game"):
        open_table("no-such-game", seats("ivy", None))
    assert second.posts == []


def test_a_wave_over_http_seats_its_players_on_a_shard_or_leaves_them_queued(shards, tmp_path):
    s1, s2 = shards
    lobby = Lobby(str(tmp_path / "lobby.sqlite3"), names.canonical)
    try:
        ana = lobby.take_name("Ana_Wave", "test")[0].id
        bob = lobby.take_name("Bob_Wave", "test")[0].id
        lobby.join_queue(ana, "classic")
        lobby.join_queue(bob, "classic")
        since = lobby.queued(bob).since
        down = Waves(lobby, over_http([closed_port()], KEY), clock=lambda: since + 1)
        assert down.wave() == []
        assert sorted(q.player for q in lobby.waiting()) == sorted([ana, bob])
        wave = Waves(lobby, over_http([s2.url, s1.url], KEY), clock=lambda: since + 1)
        (opened,) = wave.wave()
        opened_on(s2, opened, {ana: "Ana_Wave", bob: "Bob_Wave"}.get)
        assert lobby.waiting() == []
        assert lobby.seated(ana).room == lobby.seated(bob).room == opened.room
        assert lobby.seated(ana).grant == opened.grants[ana]
        assert s2.services.get(opened.room).names == ("Ana_Wave", "Bob_Wave")
    finally:
        lobby.close()


def test_over_http_needs_a_shard():
    with pytest.raises(ValueError, match="at least one"):
        over_http(["", " "], KEY)


def test_a_full_stake_table_opens_on_a_shard_with_its_stake(shards, tmp_path):
    s1, _s2 = shards
    lobby = Lobby(str(tmp_path / "lobby.sqlite3"), names.canonical)
    try:
        ana = lobby.take_name("Ana_Stake", "test")[0].id
        bob = lobby.take_name("Bob_Stake", "test")[0].id
        table = lobby.join_stake(ana, "match-100", 250, 2)
        assert lobby.join_stake(bob, "match-100", 250, 2) == table
        wave = Waves(lobby, over_http([s1.url], KEY))
        (opened,) = wave.wave()
        room = s1.services.get(opened.room)
        assert room.stake == 250 and room.kind == "public" and None not in room.seats
        seated = lobby.stake_table(table)
        assert (seated.state, seated.room) == ("seated", opened.room)
        assert lobby.held(table) == {ana: 250, bob: 250}
    finally:
        lobby.close()
