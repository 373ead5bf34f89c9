"""A round against the computer in a real browser, on a cluster of two shards behind nginx.

The cluster runs as `make cluster` does (bench/shards.py); the browser only ever talks to
nginx: the home page, the creation form (posted to the shard that drew the page), the room's
page, its htmx requests and its websocket, and the static files nginx serves itself. The
player is test_computer_round's, clicking as a person would; what the shard stored is read
from its SQLite file.
"""

from __future__ import annotations

import time
from urllib.parse import urlparse

from playwright.sync_api import expect

from tests.support.browser_computer import Player
from tests.support.faults import position
from tests.support.shards import Processes

MOVES = 6  # the player's moves played here, if the round lasts that long
WAIT = 10.0  # seconds for the computer's answer to reach the shard's database
VENDORED = "public, max-age=31536000, immutable"  # nginx's header for /static/vendor/


class Nginx:
    """The cluster as test_computer_round's Player sees a server: its address (nginx's), and
    its rooms as their shards stored them, once the computer has answered."""

    def __init__(self, processes: Processes) -> None:
        self.processes = processes
        self.url = processes.url
        self.services = self  # Player asks `services.rooms` and `services.computer`
        self.rooms = self.computer = self

    def wait_idle(self, _seconds: float) -> bool:
        return True  # `get` waits for the computer instead, room by room

    def get(self, room_id: str):
        cluster = self.processes.cluster
        db = cluster.db(cluster.shard(room_id.split("-", 1)[0]))
        end = time.monotonic() + WAIT
        while True:
            room = position(db, room_id)
            if room.round.over or room.round.turn == 0:
                return room
            assert time.monotonic() < end, f"{room_id}: the computer did not answer"
            time.sleep(0.02)


def test_a_computer_round_is_played_in_the_page_through_nginx(cluster, open_context):
    nginx = Nginx(cluster)
    player = Player(nginx, open_context())
    page = player.page
    statics, sockets = {}, []
    page.on(
        "response",
        lambda r: statics.setdefault(urlparse(r.url).path, r) if "/static/" in r.url else None,
    )
    page.on("websocket", lambda ws: sockets.append(ws.url))

    shown = player.start()  # the home page, "Play the computer", the live table
    shard = player.room.split("-", 1)[0]
    assert shard in {"s1", "s2"}, player.room
    expect(page.locator('[data-opponent-connected="true"]')).to_have_count(1)
    moves: list[str] = []
    while shown["result"] is None and len(moves) < MOVES:
        moves.append(player.take_turn(shown))  # htmx's request, the computer's answer pushed
        shown = player.wait_current(moves[-1])
    assert moves, "the page offered no move"
    assert len(moves) == MOVES or shown["result"] is not None, moves

    state = player.stored.round
    assert shown["chain"] == [str(laid) for laid in state.line]
    assert shown["hand"] == [str(tile) for tile in state.hands[0]]
    assert shown["seq"] == player.stored.seq
    assert len(state.moves) > len(moves), "the computer made no move of its own"

    listen = cluster.cluster.listen
    assert sockets, "the page opened no socket"
    for url in sockets:
        assert url.startswith(f"ws://{listen}/r/{player.room}/ws?tab="), url
    htmx = [r for path, r in statics.items() if path.startswith("/static/vendor/htmx-2")]
    assert htmx, f"no htmx among the static files: {sorted(statics)}"
    for response in htmx:
        assert response.url.startswith(f"http://{listen}/"), response.url
        assert response.status == 200
        assert response.headers["cache-control"] == VENDORED
        assert response.headers["server"] == "nginx"  # not a shard's gunicorn
