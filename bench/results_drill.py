"""Results exactly once under SIGKILL (SPEC §12, issue 31): kill the servers around match ends.

Named players take public `classic` tables through quick match (POST /play/; a short
DOMINO_FILL_SECONDS gives a lone player the computer) and play them over HTTP, reading their
legal moves from the page hooks as bench/loadclient.py does, a thread per player, many tables
at once; once a table's match is over (a public table's last: it offers "Play again") its
players go back to quick match. The drill SIGKILLs a
server at random moments around match ends (at 0-50 ms after sending a move that ends a match,
or at 0-300 ms after a player sees one end), starts it again on the same files, and the players
carry on (their seats survive in their cookies).

- `--phase 1`: one gunicorn process with the lobby and the rooms (DOMINO_LOBBY=here) on
  SEPARATE SQLite files, results crossing from the shard's outbox to the lobby through the
  sender (the in-process delivery).
- `--phase 2`: a cluster as `make cluster` runs it (tests/support/shards.py): the lobby's
  process (DOMINO_LOBBY=only), one shard (DOMINO_LOBBY=elsewhere, DOMINO_LOBBY_URL: results
  over HTTP, signed) and nginx; each kill picks the lobby or the shard at random.

At the end the players stop, the outbox drains (nothing unsent, and no new move or result for
QUIET seconds: the computer may still end a match after the players stopped), and the files
are checked: every finished
match in the shard's event log has its outbox entry, every outbox entry is sent and applied in
the lobby exactly once, and the League rows (points and matches per player) and the ratings'
match counts equal what the outbox's results give counted once (domino/players/league.py's
pure functions). The last line printed is one JSON object; the exit status is 1 on any
violation.

    .venv/bin/python -m bench.results_drill --kills 100 --players 12 --seed 1 [--phase 2]

A server runs bench/results_drill_app.py's app (the product's, with its lobby's deliveries
noted in a log: `new` or `known` for a key applied before, a duplicate ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import random
import re
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import types
import urllib.parse
from collections import Counter
from pathlib import Path

import websocket

from bench.loadclient import OVER, options, seq_of
from domino.lobby.ratings import kind_of
from domino.players import league
from domino.room import fold
from domino.web.seats import COOKIE as SEAT_COOKIE
from domino.web.signin import PLAYER_COOKIE
from tests.support.client import csrf_field, page_headers
from tests.support.faults import DOWN, Seat, Server, ServerDown, free_port

APP = "bench.results_drill_app:drill_app()"
GAME = "classic"  # every round is a match: many match ends
# Public tables' clock (the lead's, when merged): far beyond a run, so that no seat times out.
NO_CLOCK = {
    "DOMINO_MOVE_SECONDS": "100000",
    "DOMINO_BANK_SECONDS": "100000",
    "DOMINO_ABANDON_SECONDS": "100000",
    "DOMINO_AWAY_SECONDS": "100000",
}
HAND = re.compile(r"<[^>]*\bdata-hand\b[^>]*>(.*?)</(?:div|ul|ol|section)>", re.S)
TILE = re.compile(r"\bdata-tile=")
ROOM_URL = re.compile(r"/r/([^/?#]+)$")
PLAY_AGAIN = 'data-action="play-again"'  # a public match over: the table offers no other
STUCK = 20.0  # seconds without a change at a table: its players go back to quick match
HTMX = {"HX-Request": "true"}


class Up:
    """Whether the servers are up: players wait on it while a killed one restarts."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.event.set()

    def wait(self, stop: threading.Event) -> None:
        while not self.event.wait(0.05):
            if stop.is_set():
                return


class Player(Seat):
    """One named person: takes a name, quick matches, plays, goes back to quick match."""

    def __init__(self, drill: Drill, index: int) -> None:
        super().__init__(drill.server)
        self.drill = drill
        self.name = f"drill-{drill.seed}-{index}"
        self.rng = random.Random(f"{drill.seed}/{index}")
        self.matches_here = 0
        self.stale = True  # the page's tab and token, and the socket, must be taken again
        self.queued = False  # in quick match's queue (or seated by a wave, not yet sat)
        self.over = False  # whether our table was over when we last looked
        self.drain: threading.Thread | None = None

    # -- the lobby's side -------------------------------------------------------------------

    def request(self, path: str, form: dict | None = None, headers: dict | None = None):
        """As Seat's; nginx's answer for a program that is down (its "unavailable" page, 503;
        or a 502 or 504) is ServerDown too."""
        reply = super().request(path, form, headers)
        if reply.status in (502, 503, 504):
            raise ServerDown(f"{path}: {reply.status}")
        return reply

    def sign_in(self) -> None:
        """Take our name. A kill may have taken it for a session whose cookie never came
        back: then the next name (the lost one counts for nothing, as for a person)."""
        _s, home, _u = self.request("/")
        status, _t, _u = self.request(
            "/me/name", {"name": self.name, "csrf_token": csrf_field(home)}
        )
        if not any(c.name == PLAYER_COOKIE for c in self.jar):
            self.name += "x"
            raise ServerDown(f"no name taken ({status}): again as {self.name}")

    def quick_match(self) -> None:
        """Join the queue (which forgets the last table) and wait until a wave seats us
        (the grant followed); out of the queue meanwhile (a grant refused), back to the
        caller, which joins again.

        Back after a server went down while we were queued (or joining, or following our
        grant), we load the waiting page again as a person reloads it: it sends a player a
        wave seated to their grant. Joining again instead would forget that table, and
        leave the others at it waiting for a player who never comes."""
        if self.queued:
            _s, page, url = self.request("/play/")
        else:
            _s, home, _u = self.request("/")
            self.queued = True  # from here on, whether the join was taken or not
            form = {"game": GAME, "csrf_token": csrf_field(home)}
            _s, page, url = self.request("/play/", form)
        while not self._seated(url) and not self.drill.stop.is_set():
            path = urllib.parse.urlparse(url).path
            if path.endswith("/grant"):
                room = path.removesuffix("/grant")
                if any(c.name == SEAT_COOKIE and c.path == room for c in self.jar):
                    # The redemption's answer came (its cookie with it), the room's page did
                    # not: the refusal page's link to the room seats us, as it would a person.
                    self.drill.count("grants refused, seat cookie held")
                    self._seated(self.server.url + room)
                    return
                # A kill took the answer of the grant's redemption: spent, its cookie lost.
                self.drill.count("grants refused")
                self.drill.stuck.append({"player": self.name, "grant refused": url})
                self.queued = False  # as a person would: Play again
                return
            if "data-queue" not in page:
                self.queued = False
                return
            time.sleep(0.2)
            _s, page, url = self.request("/play/")

    def _seated(self, url: str) -> bool:
        found = ROOM_URL.search(urllib.parse.urlparse(url).path)
        if found is None:
            return False
        self.room, self.matches_here, self.stale = found.group(1), 0, True
        self.queued, self.over = False, False
        self.drill.count("seated")
        return True

    # -- the table --------------------------------------------------------------------------

    def attach(self) -> None:
        """Load the room page (its tab and token) and open the seat's socket."""
        status, page, _u = self.request(f"/r/{self.room}")
        if status != 200:
            raise AssertionError(f"{self.name}: room {self.room} answered {status}")
        self.tab, self.csrf = page_headers(page)
        self.close()
        url = self.server.url.replace("http://", "ws://", 1)
        url += f"/r/{self.room}/ws?tab={urllib.parse.quote(self.tab)}"
        path = f"/r/{self.room}"
        cookie = next(c.value for c in self.jar if c.name == SEAT_COOKIE and c.path == path)
        try:
            self.ws = websocket.create_connection(
                url, timeout=5, origin=self.server.url, header=[f"Cookie: seat={cookie}"]
            )
            self.ws.recv()
        except (*DOWN, websocket.WebSocketException) as error:
            raise ServerDown(str(error)) from error
        ws = self.ws
        self.drain = threading.Thread(target=self._drain, args=(ws,), daemon=True)
        self.drain.start()
        self.stale = False

    def _drain(self, ws) -> None:
        """Read what the socket is sent (the tables pushed), until it closes."""
        while ws is self.ws:
            try:
                ws.recv()
            except websocket.WebSocketTimeoutException:
                continue
            except Exception:
                return

    def table(self) -> str:
        status, text, _u = self.request(f"/r/{self.room}", headers=HTMX)
        if status != 200:
            raise AssertionError(f"{self.name}: the table answered {status}")
        return text

    def send(self, action: str, fields: dict) -> tuple[int, str]:
        headers = {"X-CSRFToken": self.csrf, "X-Tab": self.tab, **HTMX}
        headers["Origin"] = self.server.url
        status, text, _u = self.request(f"/r/{self.room}/{action}", fields, headers)
        return status, text

    def pick(self, text: str) -> tuple[str, dict] | None:
        """A move from what this seat's table offers (the page hooks), or None."""
        offered = options(text)
        if OVER.search(text):
            picks = [c for c in offered if c[0] == "accept-new-round"]
            asked = 'data-action="accept-new-round"' in text
            picks = picks or [c for c in offered if c[0] == "new-round" and not asked]
        else:
            picks = [c for c in offered if c[0] in ("play", "select")]
            picks = picks or [c for c in offered if c[0] in ("draw", "pass")]
        if not picks:
            return None
        action, fields = self.rng.choice(picks)
        if action == "select":
            _s, chosen, _u = self.request(f"/r/{self.room}?select={fields['tile']}", headers=HTMX)
            ends = [o for o in options(chosen) if o[0] == "play"]
            ends = [o for o in ends if o[1].get("tile") == fields["tile"]]
            return self.rng.choice(ends) if ends else None
        return action, fields

    def last_tile(self, text: str) -> bool:
        """Whether this seat holds one tile (a play of it ends the round: domino)."""
        hand = HAND.search(text)
        return hand is not None and len(TILE.findall(hand.group(1))) == 1

    def play_table(self) -> None:
        """Play at our table until it has given us MATCHES matches (or is stuck)."""
        changed = time.monotonic()
        last_seq = -1
        while not self.drill.stop.is_set():
            if self.stale:
                self.attach()
            text = self.table()
            seq = seq_of(text) or -1
            if seq != last_seq:
                last_seq, changed = seq, time.monotonic()
            # A match end counts once, when the table turns over: not again at each change
            # while it stays over (one seat's "new round" asked), nor when we come back to
            # it after a kill. Both seats of a table count the same ends, and so leave it
            # together, never one waiting for the other's answer.
            over, was_over = bool(OVER.search(text)), self.over
            self.over = over
            if over and not was_over:
                self.matches_here += 1
                self.drill.match_end(seen=True)
                if self.matches_here >= self.drill.matches_per_table:
                    return  # back to quick match
            if over and PLAY_AGAIN in text:
                return  # a public table's match over is its last: quick match again
            if time.monotonic() - changed > STUCK:
                self.drill.count("stuck tables left")
                self.drill.stuck.append(self.stuck_note(text))
                return
            choice = self.pick(text)
            if choice is None:
                time.sleep(0.02)
                continue
            action, fields = choice
            final = action == "play" and self.last_tile(text)
            if final:
                self.drill.count("last tiles sent")
                self.drill.match_end(seen=False)
            status, reply = self.send(action, fields)
            if status == 200 and OVER.search(reply) and final:
                self.drill.count("ending moves acknowledged")
            elif status not in (200, 409):
                raise AssertionError(f"{self.name}: {action} answered {status}: {reply[:200]}")

    def stuck_note(self, text: str) -> dict:
        """What a table that stopped moving showed this seat (for the drill's report; the
        table itself is kept in the drill's folder)."""
        (self.drill.folder / f"stuck-{self.name}-{self.room}.html").write_text(text)
        return {
            "player": self.name,
            "room": self.room,
            "seq": seq_of(text),
            "over": bool(OVER.search(text)),
            "offered": [action for action, _f in options(text)],
            "away": re.findall(r'data-connected="false"|data-away[^ >]*', text)[:4],
        }

    def run(self) -> None:
        """The person's life: sign in, then quick match and play, until the drill stops."""
        signed = False
        while not self.drill.stop.is_set():
            try:
                self.drill.up.wait(self.drill.stop)
                if not signed:
                    self.sign_in()
                    signed = True
                if not self.room:
                    # A pause as a person takes: alone in the queue past the fill time,
                    # the computer takes the other seat; with others, people sit together.
                    time.sleep(self.rng.uniform(0, 2 * self.drill.fill))
                    self.quick_match()
                if self.room:
                    self.play_table()
                    if not self.drill.stop.is_set():
                        self.room = ""
                        self.close()
            except ServerDown:
                self.stale = True
                self.close()
                time.sleep(0.05)
            except BaseException as error:
                self.drill.failures.append(f"{self.name}: {error!r}")
                return


class Drill:
    """Players, kills, and the check of the files at the end."""

    def __init__(self, args) -> None:
        self.kills_wanted = args.kills
        self.seed = args.seed
        self.phase = args.phase
        self.matches_per_table = args.matches
        self.fill = args.fill
        self.rng = random.Random(args.seed)
        self.deadline = time.monotonic() + args.deadline
        self.quiet = args.quiet
        self.stop = threading.Event()
        self.up = Up()
        self.failures: list[str] = []
        self.stuck: list[dict] = []
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.ends = threading.Condition(self.lock)
        self.trigger: str | None = None  # "sent" / "seen": a match end to kill around
        self.folder = folder = Path(tempfile.mkdtemp(prefix="domino-results-drill-"))
        self.log = folder / "deliveries.log"
        env = {
            **NO_CLOCK,
            "DOMINO_FILL_SECONDS": str(args.fill),
            "DOMINO_WAVE_SECONDS": "0.5",
            "DOMINO_DRILL_LOG": str(self.log),
            "DOMINO_DRILL_SENDER_EVERY": str(args.sender_every),
            "DOMINO_SYNC_DELAY_MS": str(args.sync_delay_ms),
        }
        if self.phase == 1:
            self.shard_db = folder / "rooms.sqlite3"
            self.lobby_db = folder / "lobby.sqlite3"
            env.update(DOMINO_LOBBY="here", DOMINO_LOBBY_DB=str(self.lobby_db))
            self.server = Server(self.shard_db, free_port(), app=APP, env=env)
            self.cluster = None
        else:
            self.cluster = Cluster(folder, env)
            self.server = self.cluster.front  # what players talk to: nginx
            self.shard_db, self.lobby_db = self.cluster.shard_db, self.cluster.lobby_db
        self.players = [Player(self, i) for i in range(args.players)]

    def say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    def count(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.counts[what] += n

    def match_end(self, seen: bool) -> None:
        """A player sent a move that ends a match, or saw one ended: a moment to kill."""
        with self.ends:
            self.trigger = "seen" if seen else "sent"
            self.ends.notify_all()

    # -- kills ------------------------------------------------------------------------------

    def kill_once(self) -> None:
        """Wait for a match end, sleep a random moment, SIGKILL a server, start it again."""
        with self.ends:
            self.trigger = None
            while self.trigger is None:
                if not self.ends.wait(1.0) and self.failures:
                    raise RuntimeError(self.failures[0])
                if time.monotonic() > self.deadline:
                    raise TimeoutError("the drill ran out of time")
            trigger = self.trigger
        delay = self.rng.uniform(0, 0.05 if trigger == "sent" else 0.3)
        time.sleep(delay)
        victim = self.kill_one()
        self.counts[f"kills of the {victim}"] += 1
        self.counts[f"kills {trigger}"] += 1
        self.pending_duplicates(victim)
        time.sleep(self.rng.uniform(0, 0.2))
        self.restart(victim)
        time.sleep(self.rng.uniform(0.5, 3.0))  # play goes on a while before the next is armed

    def kill_one(self) -> str:
        self.up.event.clear()
        if self.cluster is None:
            self.server.kill()
            return "server"
        victim = self.rng.choice(("lobby", "shard"))
        self.cluster.kill(victim)
        return victim

    def restart(self, victim: str) -> None:
        if self.cluster is None:
            self.server.start()
        else:
            self.cluster.start(victim)
        self.up.event.set()

    def pending_duplicates(self, victim: str) -> None:
        """With the shard down (or the lobby: nothing can be applied meanwhile), the keys the
        lobby applied that the outbox holds unsent: each will be delivered again."""
        if victim == "lobby":
            time.sleep(0.1)  # a mark in flight from the lobby's last answer lands first
        unsent = {k for k, _r, sent in outbox_rows(self.shard_db) if sent is None}
        applied = set(lobby_keys(self.lobby_db))
        self.redelivery |= unsent & applied
        if unsent - applied:
            self.counts["kills with results not yet delivered"] += 1
        if unsent & applied:
            self.counts["kills between the lobby's apply and the shard's mark"] += 1

    # -- the run ----------------------------------------------------------------------------

    def run(self) -> dict:
        started = time.monotonic()
        self.redelivery: set[str] = set()
        threads = []
        try:
            self.start_all()
            threads = [threading.Thread(target=p.run, daemon=True) for p in self.players]
            for thread in threads:
                thread.start()
            kills = 0
            while kills < self.kills_wanted:
                self.kill_once()
                kills += 1
                if kills % 10 == 0:
                    self.say(f"kills {kills}, outbox {len(outbox_rows(self.shard_db))}")
            self.counts["kills"] = kills
            time.sleep(1.0)  # the players go on a moment after the last restart
            self.stop.set()
            for thread in threads:
                thread.join(timeout=30)
            for player in self.players:
                player.close()
            drained = self.drain()
        finally:
            self.stop.set()
            self.stop_all()
        figures = check(self.shard_db, self.lobby_db, self.log, drained)
        figures.update(
            phase=self.phase,
            kills=self.counts["kills"],
            kills_by={k: v for k, v in sorted(self.counts.items()) if k.startswith("kills ")},
            seated=self.counts["seated"],
            stuck_tables_left=self.counts["stuck tables left"],
            grants_refused=self.counts["grants refused"],
            grants_refused_seat_held=self.counts["grants refused, seat cookie held"],
            stuck=self.stuck[:6],
            last_tiles_sent=self.counts["last tiles sent"],
            ending_moves_acknowledged=self.counts["ending moves acknowledged"],
            redelivered_keys=len(self.redelivery),
            player_failures=self.failures[:5],
            seconds=round(time.monotonic() - started, 1),
        )
        if figures["ok"] and not self.failures and not self.stuck:
            shutil.rmtree(self.folder, ignore_errors=True)
        else:  # kept for a look: the databases, the servers' logs, the deliveries' log,
            # the stuck tables' pages
            figures["kept"] = str(self.folder)
        return figures

    def start_all(self) -> None:
        if self.cluster is None:
            self.server.start()
        else:
            self.cluster.start_all()

    def stop_all(self) -> None:
        if self.cluster is None:
            self.server.kill()
        else:
            self.cluster.stop_all()

    def drain(self, seconds: float = 120.0) -> bool:
        """Wait until the outbox holds nothing unsent and the shard is quiet; whether it
        came to that (`drained`)."""
        return drained(self.shard_db, seconds)


class Cluster:
    """The lobby's process, `shards` shards (s1, s2, …) and nginx (tests/support/shards.py),
    each program killed and started on its own by its name here (`lobby`, `s1`, …; `shard`
    too when there is one), the drill's app in place of the product's. Phase 2 of this drill
    has one shard; bench/stakes_drill.py two."""

    def __init__(self, folder: Path, env: dict, shards: int = 1) -> None:
        from tests.support.shards import HIGH_LIMITS, Processes, cluster_in

        cluster = cluster_in(folder / "cluster", shards, {**HIGH_LIMITS, **env})
        self.processes = Processes(cluster)
        for name, program in self.processes.programs.items():
            argv = tuple(APP if part == "app:create_app()" else part for part in program.argv)
            self.processes.programs[name] = dataclasses.replace(program, argv=argv)
        named = [f"s{n}" for n in range(1, shards + 1)]
        self.names = {"lobby": "lobby", **{s: f"shard-{s}" for s in named}}
        if shards == 1:
            self.names["shard"] = "shard-s1"
        self.shard_dbs = {s: Path(cluster.db(cluster.shard(s))) for s in named}
        self.shard_db = self.shard_dbs["s1"]
        self.lobby_db = Path(cluster.db(cluster.lobby))
        self.logs = cluster.state / "logs"
        self.front = types.SimpleNamespace(url=self.processes.url)  # players': nginx

    def start_all(self) -> None:
        self.processes.start_all()

    def kill(self, which: str) -> None:
        self.processes.kill(self.names[which])

    def start(self, which: str) -> None:
        self.processes.start(self.names[which])

    def stop_all(self) -> None:
        with contextlib.suppress(Exception):
            self.processes.stop_all()


# -- reading the files ----------------------------------------------------------------------


def _read(db: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return []
        raise
    finally:
        conn.close()


def outbox_rows(db: Path) -> list[tuple[str, dict, float | None]]:
    """The shard's outbox: (key, result, sent_at)."""
    rows = _read(db, "SELECT key, result, sent_at FROM outbox ORDER BY created_at, key")
    return [(key, json.loads(text), sent) for key, text, sent in rows]


QUIET = 3.0  # seconds without a new event or outbox entry before the outbox counts as drained


def drained(
    shard_db: Path, seconds: float = 120.0, quiet: float = QUIET, every: float = 0.2
) -> bool:
    """Wait until every outbox entry is sent and the shard has stored no new event nor
    result for `quiet` seconds (the players gone, the computer may still end a match with
    the move it was deciding: its result would come after an outbox seen empty); whether
    that came within `seconds`."""
    end = time.monotonic() + seconds
    last, since = None, time.monotonic()
    while time.monotonic() < end:
        now = (_read(shard_db, "SELECT count(*), max(at) FROM events"), outbox_rows(shard_db))
        state = (now[0], [(key, sent) for key, _r, sent in now[1]])
        if state != last:
            last, since = state, time.monotonic()
        elif time.monotonic() - since >= quiet and all(sent for _k, sent in state[1]):
            return True
        time.sleep(every)
    return False


def lobby_keys(db: Path) -> list[str]:
    return [key for (key,) in _read(db, "SELECT key FROM results")]


def finished_in_log(db: Path) -> set[str]:
    """The keys of every match the shard's event log shows finished, in the public rooms
    that have a signed-in seat (folded from the stored events, as a restart does)."""
    keys = set()
    rooms = _read(db, "SELECT DISTINCT rooms.id FROM rooms JOIN seat_players ON room = id")
    for (room_id,) in rooms:
        events = _read(
            db, f"SELECT seq, type, data FROM events WHERE room = '{room_id}' ORDER BY seq"
        )
        room = fold(room_id, "public", [(s, t, json.loads(d)) for s, t, d in events])
        done = room.rounds if room.round is not None and room.round.over else room.rounds - 1
        keys |= {f"{room_id}/{n}" for n in range(1, done + 1)}
    return keys


def expected_league(results: list[dict]) -> dict[tuple[str, str], float]:
    """(key, player) -> League points, from the shard's results counted once each: places
    as the result gives them, an abandoned seat's side last (SPEC §12), `league.points`."""
    rows = {}
    for result in results:
        if result["kind"] != "public":
            continue
        seats = result["seats"]
        sides = sorted({s["side"] for s in seats})
        gone = {s["side"] for s in seats if s["abandoned"]}
        order = {
            side: (side in gone, next(s["place"] for s in seats if s["side"] == side))
            for side in sides
        }
        place = {side: 1 + sum(order[o] < order[side] for o in sides) for side in sides}
        teams = bool(result["rules"].get("teams"))
        earned = league.points([place[s["side"]] for s in seats], teams, result["computer"])
        for seat, points in zip(seats, earned, strict=True):
            if seat["player"] is not None:
                rows[(result["key"], seat["player"])] = points
    return rows


def check(shard_db: Path, lobby_db: Path, log: Path, drained: bool) -> dict:
    """Every finished match applied exactly once, and the League as the matches give it."""
    outbox = outbox_rows(shard_db)
    keys = [key for key, _r, _s in outbox]
    results = [result for _k, result, _s in outbox]
    in_log = finished_in_log(shard_db)
    applied = lobby_keys(lobby_db)
    league_rows = _read(lobby_db, "SELECT key, player, points, week FROM league")
    lines = [line.split(" ", 1) for line in log.read_text().splitlines()] if log.exists() else []
    deliveries = Counter(word for word, *_key in lines)
    said: dict[str, list[str]] = {}  # key -> what the lobby (new, known) and shard (acked) noted
    for word, *key in lines:
        said.setdefault(key[0] if key else "", []).append(word)
    # The League as the stored rows give it and as the results counted once give it.
    expected = expected_league(results)
    stored = {(key, player): points for key, player, points, _w in league_rows}
    finished_at = {r["key"]: r["finished_at"] for r in results}
    weeks = {league.week_of(t) for t in finished_at.values()}
    standings_stored, standings_expected = [], []
    for week in sorted(weeks):
        standings_stored += league.standings(
            [league.Result(p, p, pts, finished_at.get(k, w)) for k, p, pts, w in league_rows],
            week,
        )
        standings_expected += league.standings(
            [league.Result(p, p, pts, finished_at[k]) for (k, p), pts in expected.items()],
            week,
        )
    ratings = Counter()
    for result in results:
        if result["kind"] == "public":
            kind = kind_of(len(result["seats"]))
            for player in {s["player"] for s in result["seats"] if s["player"]}:
                ratings[(player, kind)] += 1
    stored_ratings = {
        (p, k): m for p, k, m in _read(lobby_db, "SELECT player, kind, matches FROM ratings")
    }
    violations = {
        "outbox_not_drained": 0 if drained else sum(s is None for _k, _r, s in outbox),
        "finished_without_result": len(in_log - set(keys)),
        "result_without_finished_match": len(set(keys) - in_log),
        "missing": len(set(keys) - set(applied)),
        "applied_unknown": len(set(applied) - set(keys)),
        "applied_twice": len(applied) - len(set(applied)),
        "league_rows_missing": len(expected.keys() - stored.keys()),
        "league_rows_extra": len(stored.keys() - expected.keys()),
        "league_points_wrong": sum(stored[k] != v for k, v in expected.items() if k in stored),
        "standings_differ": int(standings_stored != standings_expected),
        "rating_counts_wrong": sum(stored_ratings.get(k, 0) != v for k, v in ratings.items())
        + len(stored_ratings.keys() - ratings.keys()),
    }
    lost = sorted(set(keys) - set(applied))[:5]
    return {
        "missing_keys": [{**_outbox_row(shard_db, key), "noted": said.get(key)} for key in lost],
        "matches_finished": len(in_log),
        "results_in_outbox": len(keys),
        "results_applied": len(set(applied)),
        "deliveries_new": deliveries["new"],
        "duplicates_ignored": deliveries["known"],
        "league_rows": len(stored),
        "league_points": sum(stored.values()),
        "players_in_league": len({p for _k, p in stored}),
        **violations,
        "ok": not any(violations.values()),
    }


def _outbox_row(db: Path, key: str) -> dict:
    """A result's outbox row, for the report of one missing in the lobby."""
    sql = "SELECT key, created_at, attempts, next_at, sent_at FROM outbox WHERE key = "
    row = _read(db, sql + "'" + key.replace("'", "''") + "'")[0]
    return dict(zip(("key", "created_at", "attempts", "next_at", "sent_at"), row, strict=True))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase", type=int, choices=(1, 2), default=1)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--players", type=int, default=12)
    parser.add_argument(
        "--matches", type=int, default=3, help="at a table at most (a public one plays one)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fill", type=float, default=1.0, help="DOMINO_FILL_SECONDS")
    parser.add_argument("--sender-every", type=float, default=0.1, help="seconds")
    parser.add_argument("--sync-delay-ms", type=float, default=5.0)
    parser.add_argument("--deadline", type=float, default=1800, help="seconds, in all")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.kills < 0 or args.players < 1 or args.matches < 1:
        parser.error("--kills >= 0, --players >= 1, --matches >= 1")
    figures = Drill(args).run()
    print(json.dumps(figures))
    ok = figures["ok"] and not figures["player_failures"] and figures["matches_finished"] > 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
