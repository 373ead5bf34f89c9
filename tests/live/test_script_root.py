"""Mounted under a path (SCRIPT_NAME=/games, as behind a proxy): the whole flow keeps it.

A live server whose app is served under /games only; two browsers play a friend round's
first moves over HTTP and real websockets, and a player meets the computer, whose moves are
pushed from outside any request. Every link, cookie and redirect must carry the prefix.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

from domino import game
from tests.support.client import Browser, csrf_field
from tests.support.live import live_server
from tests.support.sockets import SEED, Player, Table, create_room, join_room

ROOT = "/games"
SLOW = 30.0  # seconds to wait for the computer and its pushes on a loaded machine
LINK = re.compile(r'(?:hx-post|hx-get|href|ws-connect|action)="([^"]*)"')


@pytest.fixture
def server(tmp_path):
    """Served under ROOT; slow pings: a socket here answers them only while a test reads it,
    and a pause waiting for the computer must not let it go (a missed ping would)."""
    with live_server(tmp_path / "domino.sqlite3", seed=SEED, root=ROOT, PING_SECONDS=60) as live:
        yield live


def room_links(text: str) -> list[str]:
    """Every path a table or page links to within the site (not the stylesheet or scripts)."""
    found = [urllib.parse.unquote(url) for url in LINK.findall(text)]
    return [url for url in found if "/r/" in url or "/lang/" in url]


def assert_prefixed(text: str) -> None:
    links = room_links(text)
    assert links, "no room links in this text"
    unprefixed = [url for url in links if not url.startswith(ROOT + "/")]
    assert not unprefixed, unprefixed


def seat_cookie_path(player: Player) -> str:
    (path,) = [c.path for c in player.browser.jar if c.name == "seat"]
    return path


def test_a_friend_round_under_a_prefix(server, opened):
    host = create_room(server, opened)
    guest = join_room(server, host.room_id, opened)
    for player in (host, guest):
        assert seat_cookie_path(player) == f"{ROOT}/r/{host.room_id}"
    table = Table(server, host.room_id, [host, guest], opened)
    host.connect()
    guest.connect()
    for player in (host, guest):
        assert_prefixed(player.ws.frames[-1].text)
    for _ in range(3):
        mover = table.to_move()
        other = table.players[1 - mover.seat]
        seq = table.room.seq
        reply = mover.act(table.first_legal(mover), seq)
        assert reply.status == 200, reply.text
        assert_prefixed(reply.text)
        pushed = other.ws.wait(lambda f, seq=seq: f.seq == seq + 1, "after the move")
        assert_prefixed(pushed.text)


def test_the_computer_pushes_prefixed_tables(server, opened):
    """The tables the computer's moves push (made outside any request) link under the prefix."""
    browser = Browser(server.url)
    home = browser.request("/")
    assert_prefixed(home.text)
    created = browser.request("/computer", {"csrf_token": csrf_field(home.text), "level": "easy"})
    assert created.status == 200 and f"{ROOT}/r/" in created.url, created.url
    room_id = created.url.rsplit("/", 1)[-1]
    player = Player(server, browser, room_id, 0, opened)
    player.take_page(created.text)
    assert seat_cookie_path(player) == f"{ROOT}/r/{room_id}"
    player.connect()
    rooms, computer = server.services.rooms, server.services.computer
    pushed = []
    for _ in range(6):
        assert computer.wait_idle(SLOW)
        room = rooms.get(room_id)
        if room.round.over:
            break
        reply = player.act(sorted(game.legal_actions(room.round, 0), key=str)[0], room.seq)
        assert reply.status == 200, reply.text
        assert computer.wait_idle(SLOW)
        answered = rooms.get(room_id).seq
        if answered > room.seq + 1:  # the computer moved after the player (mover's own: skipped)
            mark = len(player.ws.frames)
            player.ws.wait(lambda f, seq=answered: f.seq == seq, "with the computer's move", SLOW)
            pushed += [f for f in player.ws.since(mark) if f.table is not None]
    assert pushed, "no table was pushed after a move of the computer"
    for frame in pushed:
        assert_prefixed(frame.text)


def test_the_language_switch_keeps_the_prefix(server, opened):
    host = create_room(server, opened)
    page = host.browser.request(f"/r/{host.room_id}")
    switches = [url for url in room_links(page.text) if url.startswith(f"{ROOT}/lang/")]
    assert len(switches) == 3, switches
    for switch in switches:
        back = host.browser.request(switch.removeprefix(ROOT))
        assert back.status == 200 and back.url == f"{server.url}/r/{host.room_id}", back.url
