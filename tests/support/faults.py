"""Crash test: play games against the production server while SIGKILLing it at random moments.

Starts gunicorn with the gevent worker (as `make serve`, on a free loopback port and a temporary
database), plays scripted games in several friend rooms at once (two seats each, HTTP moves, a
socket per seat for presence; a thread per room, so that the store's writer commits several
rooms' moves in one batch), kills the whole server with SIGKILL at seeded random moments,
restarts it on the same database, reconnects and goes on. Every move the server acknowledged
(HTTP 200) must be in the stored log after each restart, and at the end every room must load
and take its next legal move.

With --sync-delay-ms N every batch waits N ms between its commit and its acknowledgements
(DOMINO_SYNC_DELAY_MS: a slow disk), so that many kills land in that window. A move sent but
never answered because of a kill may be stored or not; those found stored are counted
(`unanswered_kept`): the kills that came after a commit and before its acknowledgements. The
last line printed is one JSON object:

    {"kills": K, "acknowledged": N, "lost": L, "resumed": R, "unanswered_kept": U}

    .venv/bin/python -m bench.faults --kills 200 --rooms 4 --seed 1 [--sync-delay-ms 20]
"""

from __future__ import annotations

import argparse
import contextlib
import html
import http.client
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import websocket

from domino import game
from domino.events import DRAW, PASS, Play
from domino.room import fold
from tests.support.client import Browser, Reply, csrf_field, page_headers

ROOT = Path(__file__).resolve().parents[2]


GUNICORN = Path(sys.executable).parent / "gunicorn"
TIMEOUT = 5.0
DOWN = (OSError, http.client.HTTPException, websocket.WebSocketException)


class ServerDown(Exception):
    """The server went away mid-step (it was killed)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The production server (gunicorn + gevent) as a killable process group."""

    # The rate limits (per client address) would throttle one scripted client.
    UNLIMITED = "app:create_app({'RATELIMIT_ENABLED': False})"

    def __init__(
        self, db: Path, port: int, app: str = UNLIMITED, env: dict | None = None, root=ROOT
    ):
        self.db, self.port = db, port
        self.app, self.env = app, env or {}
        self.root = root  # the directory gunicorn runs in (its config and app)
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None

    def start(self, deadline: float = 20.0) -> None:
        env = dict(os.environ)
        env.update(DOMINO_DB=str(self.db), DOMINO_BOT_DELAY_MS="0", DOMINO_SECRET_KEY="faults")
        env.update(self.env)
        own = Path(self.root) / ".venv" / "bin" / "gunicorn"  # another checkout's own venv
        cmd = [
            str(own if own.exists() and Path(self.root) != ROOT else GUNICORN),
            "--config=gunicorn.conf.py",  # as `make serve`
            f"--bind=127.0.0.1:{self.port}",
            "--graceful-timeout=1",
            self.app,
        ]
        log = open(self.db.with_suffix(".log"), "ab")  # noqa: SIM115 (the child holds it)
        self.proc = subprocess.Popen(
            cmd, cwd=self.root, env=env, stdout=log, stderr=log, start_new_session=True
        )
        log.close()
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except DOWN:
                time.sleep(0.05)
        raise RuntimeError("the server did not come up")

    def kill(self) -> None:
        """SIGKILL the master and its worker at once, and reap them."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.proc = None


class Seat(Browser):
    """One browser (tests/support/client.py) holding one seat: cookies, the latest page's tab
    and CSRF token, a socket; a server that does not answer raises ServerDown."""

    def __init__(self, server: Server) -> None:
        super().__init__(server.url, TIMEOUT)
        self.server = server
        self.room = ""
        self.tab = self.csrf = ""
        self.ws: websocket.WebSocket | None = None

    def request(self, path: str, form: dict | None = None, headers: dict | None = None) -> Reply:
        try:
            return super().request(path, form, headers)
        except DOWN as error:
            raise ServerDown(str(error)) from error

    def load(self) -> int:
        """Load the room page and read its tab and CSRF token; the HTTP status."""
        status, page, _url = self.request(f"/r/{self.room}")
        if status == 200:
            self.tab, self.csrf = page_headers(page)
        return status

    def connect(self) -> str:
        """Open the seat's socket and read the whole table it starts with; that table."""
        self.close()
        url = self.server.url.replace("http://", "ws://", 1)
        url += f"/r/{self.room}/ws?tab={urllib.parse.quote(self.tab)}"
        cookie = next(c.value for c in self.jar if c.name == "seat")
        try:
            self.ws = websocket.create_connection(
                url, timeout=TIMEOUT, origin=self.server.url, header=[f"Cookie: seat={cookie}"]
            )
            first = self.ws.recv()
        except DOWN as error:
            raise ServerDown(str(error)) from error
        if 'id="table"' not in first:
            raise AssertionError(f"the socket did not start with the table: {first[:200]}")
        return first

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.shutdown()
            self.ws = None

    def post(self, action: str, fields: dict) -> int:
        headers = {"X-CSRFToken": self.csrf, "X-Tab": self.tab}
        status, _text, _url = self.request(f"/r/{self.room}/{action}", fields, headers)
        return status


def new_room(server: Server) -> list[Seat]:
    """A friend room with both seats taken, created as the home page's form does: posted
    where the form says (behind nginx, `/rooms?shard=` the shard that drew the page) with
    the page's fair-deal token."""
    host, guest = Seat(server), Seat(server)
    _s, home, _u = host.request("/")
    action = html.unescape(re.search(r'action="(/rooms[^"]*)"', home)[1])
    fields = {
        "csrf_token": csrf_field(home),
        "fair": re.search(r'name="fair" value="([^"]*)"', home)[1],
    }
    status, _page, url = host.request(action, fields)
    assert status == 200, status
    host.room = guest.room = url.rsplit("/", 1)[-1]
    _s, invite, _u = guest.request(f"/r/{guest.room}")
    status, _page, _u = guest.request(f"/r/{guest.room}/join", {"csrf_token": csrf_field(invite)})
    assert status == 200, status
    return [host, guest]


def next_action(room, seats: list[Seat], choose=None) -> tuple[Seat, str, dict, str]:
    """What comes next at a table as its seats send it: (seat, action, fields with the
    room's seq, the event it stores). A move is `choose`n among the legal ones (the first
    by default); once a round is over, the first seat asks for a new one and another seat
    agrees (in a computer room, the computer asks or agrees by itself)."""
    state = room.round
    if state.over:
        if room.request is None:
            return seats[0], "new-round", {"seq": room.seq}, "ask"
        other = next(seat for k, seat in enumerate(seats) if k != room.request)
        return other, "accept-new-round", {"seq": room.seq}, "deal"
    legal = game.legal_actions(state, state.turn)
    move = choose(legal) if choose else legal[0]
    if isinstance(move, Play):
        action, fields = "play", {"tile": str(move.tile), "end": move.end}
    else:
        action, fields = {DRAW: "draw", PASS: "pass"}[move], {}
    return seats[state.turn], action, {**fields, "seq": room.seq}, action


def stored(db: Path) -> dict[tuple[str, int], str]:
    """Every stored event, read straight from the SQLite file: (room, seq) -> type."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {(r, s): t for r, s, t in conn.execute("SELECT room, seq, type FROM events")}
    finally:
        conn.close()


def position(db: Path, room: str):
    """The room folded from the stored log (what the server will resume from)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT seq, type, data FROM events WHERE room = ? ORDER BY seq", [room]
        ).fetchall()
    finally:
        conn.close()
    return fold(room, "friend", [(s, t, json.loads(d)) for s, t, d in rows])


class Run:
    """Games, kills and the record of acknowledged moves."""

    def __init__(
        self, kills: int, rooms: int, seed: int, deadline: float, quiet: bool, sync_ms: float = 0
    ) -> None:
        self.kills_wanted, self.room_count = kills, rooms
        self.rng = random.Random(seed)
        self.deadline = time.monotonic() + deadline
        self.quiet = quiet
        self.tmp = tempfile.TemporaryDirectory(prefix="domino-faults-")
        self.db = Path(self.tmp.name) / "domino.sqlite3"
        env = {"DOMINO_SYNC_DELAY_MS": str(sync_ms)} if sync_ms else {}
        self.server = Server(self.db, free_port(), env=env)
        self.rooms: list[list[Seat]] = []
        self.acked: dict[tuple[str, int], str] = {}  # (room, seq) -> event type
        self.unanswered: dict[tuple[str, int], str] = {}  # sent when the server was killed
        self.kept = 0  # unanswered moves found stored
        self.failures: list[BaseException] = []  # raised in the rooms' threads
        self.kills = 0
        self.lost: set[tuple[str, int]] = set()

    def say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    def check(self) -> None:
        """Every acknowledged move is in the stored log."""
        log = stored(self.db)
        missing = {key for key, kind in self.acked.items() if log.get(key) != kind}
        self.lost |= missing
        self.kept += sum(log.get(key) == kind for key, kind in self.unanswered.items())
        self.unanswered.clear()
        if missing:
            self.say(f"LOST after kill {self.kills}: {sorted(missing)[:5]}")

    def reconnect(self) -> None:
        for seats in self.rooms:
            for seat in seats:
                if seat.load() != 200:
                    raise AssertionError(f"room {seat.room} did not load")
                seat.connect()

    def step(self, seats: list[Seat]) -> None:
        """One action in a room: a legal move drawn at random, or a new round once one ends."""
        room = position(self.db, seats[0].room)
        seat, action, fields, kind = next_action(room, seats, self.rng.choice)
        try:
            status = seat.post(action, fields)
        except ServerDown:
            self.unanswered[(seat.room, room.seq + 1)] = kind
            raise
        if status == 200:
            self.acked[(seat.room, room.seq + 1)] = kind
        elif status != 409:  # 409: e.g. the other seat's socket not yet re-attached
            raise AssertionError(f"{action} answered {status}")

    def play_until_killed(self) -> None:
        """Play every room at once, a thread each, until the timer kills the server."""
        killer = threading.Timer(self.rng.uniform(0.05, 0.6), self.server.kill)
        killer.start()
        try:
            self.reconnect()
            players = [threading.Thread(target=self.play, args=(s,)) for s in self.rooms]
            for player in players:
                player.start()
            for player in players:
                player.join()
        except ServerDown:
            pass
        finally:
            killer.join()
            for seats in self.rooms:
                for seat in seats:
                    seat.close()
        self.kills += 1
        if self.failures:
            raise self.failures[0]

    def play(self, seats: list[Seat]) -> None:
        """Play one room until the server goes away (or the deadline)."""
        try:
            while time.monotonic() < self.deadline:
                self.step(seats)
        except ServerDown:
            pass
        except BaseException as error:  # raised again in the main thread
            self.failures.append(error)

    def resume(self) -> int:
        """Rooms whose page loads and whose next legal move is accepted."""
        resumed = 0
        for seats in self.rooms:
            try:
                for seat in seats:
                    if seat.load() != 200:
                        raise AssertionError("page")
                    seat.connect()
                before = len(self.acked)
                for _ in range(3):  # a 409 while the other socket attaches is retried
                    self.step(seats)
                    if len(self.acked) > before:
                        resumed += 1
                        break
                    time.sleep(0.1)
            except (AssertionError, ServerDown) as error:
                self.say(f"room {seats[0].room} did not resume: {error}")
        return resumed

    def run(self) -> dict:
        started = time.monotonic()
        try:
            self.server.start()
            self.rooms = [new_room(self.server) for _ in range(self.room_count)]
            while self.kills < self.kills_wanted and time.monotonic() < self.deadline:
                self.play_until_killed()
                self.server.start()
                self.check()
                if self.kills % 10 == 0:
                    self.say(f"kills {self.kills}, acknowledged {len(self.acked)}")
            self.check()
            resumed = self.resume()
            self.check()
        finally:
            self.server.kill()
            self.tmp.cleanup()
        self.say(f"{time.monotonic() - started:.1f}s")
        return {
            "kills": self.kills,
            "acknowledged": len(self.acked),
            "lost": len(self.lost),
            "resumed": resumed,
            "unanswered_kept": self.kept,
        }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--rooms", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deadline", type=float, default=1800, help="seconds, in all")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--sync-delay-ms", type=float, default=0.0, help="wait between each commit and its acks"
    )
    args = parser.parse_args(argv)
    run = Run(args.kills, args.rooms, args.seed, args.deadline, args.quiet, args.sync_delay_ms)
    result = run.run()
    print(json.dumps(result))
    return 0 if result["lost"] == 0 and result["resumed"] == args.rooms else 1


if __name__ == "__main__":
    sys.exit(main())
