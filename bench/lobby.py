"""Quick match under load: N players join the public games' queues through the real server.

    .venv/bin/python -m bench.lobby [--players 2000] [--seconds 60] [--fill 30] [--seed 2026]
                                    [--split]

Starts the server as `make serve` does (gunicorn.conf.py: one gevent worker) on a free loopback
port with a temporary database, as behind one reverse proxy (DOMINO_PROXIES=1) with its rate
limits on: each player sends an address of its own in X-Forwarded-For, as the proxy would, so
the per-address limit on taking names (RATELIMIT_NAME) counts each player apart. The computer
fill is --fill seconds (DOMINO_FILL_SECONDS), a wave every WAVE_SECONDS (DOMINO_WAVE_SECONDS).
The public tables' clock (DOMINO_MOVE_SECONDS, DOMINO_BANK_SECONDS, DOMINO_ABANDON_SECONDS)
is set to CLOCK_OFF seconds: seated players never move, and the server must not spend the run
playing timeouts for them, so the figures are the lobby's work.

With --split the lobby runs as its own process (DOMINO_LOBBY=only) and opens its tables on one
shard (DOMINO_LOBBY=elsewhere) over HTTP (DOMINO_SHARD_URLS: the shard's POST /internal/tables),
two gunicorn servers as a cluster runs them without nginx: the client sends the lobby's paths
(`LOBBY_PREFIXES`) to the lobby and the others to the shard, as nginx would. The CPU figure is
then the lobby's worker alone; the shard's is printed beside it.

Before the measured players, one full table of players per game is seated at once with no
thinking (the warm-up: templates compiled, caches filled), outside every figure.

The players arrive at random moments over --seconds (seeded), and each does what a person
does, waiting like one between steps:

1. opens the home page (its CSRF token), types a name for 2-6 s, takes it (POST /me/name as
   the form posts it: 303, the player's cookies), and lands on the home page again;
2. picks a public game for 1-4 s (GAMES: weighted toward classic) and presses "Play"
   (POST /play/), which sends it to the waiting page (GET /play/);
3. polls the waiting part every second (GET /play/queue, as htmx does: `data-queue`,
   `data-waited`) until it is sent to its seat grant (HX-Redirect);
4. follows the grant (GET /r/<room>/grant?token=...: 303, the seat's cookie) to the room's
   page, which must be a public table (`data-public`) showing the player's own hand
   (`data-hand`) at the seat the grant named (`data-fair-seat`), every computer seat marked
   (`data-computer`: as many as the table's seats less the bench's players the lobby seated
   there).

Printed: the seating time, from pressing "Play" to that room page, seated (p50 / p99 / max);
how long each player waited in the queue by the lobby's own record (when the wave that seated
them ran, `queue_seated.at` in the lobby's database, less when they joined the queue, `since`,
which the bench reads from that database every half second; for a player seated before it
was read, when "Play" was pressed); the tables
opened by game and the share with at least one computer seat; the CPU time of the serving
process over the run (from /proc: the gunicorn worker, user and system, all its threads; the
computer's process pool apart), per seated player; this client's own CPU. A table, then one
JSON line:

    {"players", "seated", "errors", "late", "seat_p50_s", "seat_p99_s", "seat_max_s",
     "wait_max_s", "tables", "tables_by_game", "computer_tables", "computer_share",
     "cpu_process", "cpu_s", "cpu_ms_per_player", "pool_cpu_s", "client_cpu_s"}, and with
     --split "shard_cpu_s" before "pool_cpu_s"

Exits 1 if any error happened, any player was not seated, or any waited longer than the fill
plus one wave (`late`): the lobby promises nobody waits longer (domino/players/pairing.py);
one wave is its interval, WAVE_SECONDS, plus WAVE_SLACK for the wave before it to run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from itsdangerous import URLSafeTimedSerializer

from bench.load import quantile, raise_open_files
from bench.loadclient import CSRF_FIELD, Browser, Tally
from bench.loadcluster import children, cpu_seconds, worker_pid
from domino.players.pairing import SEATS
from domino.web import LOBBY_PREFIXES
from tests.support.faults import Server, free_port

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
# The public games (SPEC §12) and how often a player picks each: classic most.
GAMES = {"classic": 40, "match-100": 12, "block": 12, "international": 12, "three": 12, "pairs": 12}
WAVE_SECONDS = 2.0  # the lobby's waves (DOMINO_WAVE_SECONDS), set so for the run
# A wave runs every WAVE_SECONDS after the last one ended: a player due at the fill may wait
# the interval, the run of the wave before and the timer's lateness. WAVE_SLACK bounds the last
# two in a run's check of the fill (the longest wait is printed as it was).
WAVE_SLACK = 0.5
QUEUE_READ_SECONDS = 0.5  # how often the bench reads the lobby's queue (when each joined)
POLL_SECONDS = 1.0  # the waiting page asks again every second (partials/queue.html)
NAME_THINK = (2.0, 6.0)  # seconds a person takes to type a name
GAME_THINK = (1.0, 4.0)  # ... and to pick a game and press "Play"
CLOCK_OFF = "1000000"  # seconds a move, a bank and an absence may take: no timeouts in a run
GIVE_UP = 30.0  # seconds past the fill and a wave after which a waiting player gives up
PROGRESS_SECONDS = 10.0
CONNECTIONS = 96  # the client's pool of keep-alive connections, shared by all players
WAITED = re.compile(r'data-waited="(\d+)"')
FAIR_SEAT = re.compile(r'<div id="table"[^>]*\bdata-fair-seat="(\d+)"')
ROOM_PATH = re.compile(r"^/r/([^/?]+)/grant\?token=")


@dataclass
class Player:
    """One simulated person and what happened to them."""

    number: int
    arrives: float  # seconds after the start
    game: str
    name: str
    pressed: float = 0.0  # perf_counter when "Play" was pressed
    pressed_wall: float = 0.0  # time.time() then (the lobby's clock is the same machine's)
    sent: float = 0.0  # perf_counter when the poll sent it to its seat grant
    landed: float = 0.0  # perf_counter when its room page came, seated
    shown_waited: int = 0  # the most `data-waited` the waiting page showed
    id: str = ""  # the lobby's player id (the grant names it)
    room: str = ""
    seat: int = -1
    marked: int = 0  # computer seats marked on the room page
    polls: int = 0

    @property
    def seated(self) -> bool:
        return self.landed > 0


@dataclass
class Results:
    players: list[Player]
    tally: Tally
    started: float = 0.0
    finished: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds over the run, by process
    client_cpu: float = 0.0
    # the lobby's record: by player id, the room and when the wave that seated them ran
    seated_at: dict[str, tuple[str, float]] = field(default_factory=dict)
    since: dict[str, float] = field(default_factory=dict)  # by player id: joined the queue
    warm: list[Player] = field(default_factory=list)  # the warm-up's players
    requests: Counter[str] = field(default_factory=Counter)  # the players' requests, by step


def make_players(count: int, seconds: float, rng: random.Random) -> list[Player]:
    """`count` players arriving at uniform random moments over `seconds`, each with a game."""
    games, weights = zip(*GAMES.items(), strict=True)
    tag = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz") for _ in range(3))
    found = []
    for number, at in enumerate(sorted(rng.uniform(0, seconds) for _ in range(count))):
        name = f"q{tag}{number}"  # letters and digits, 3-20 characters, unique in the run
        found.append(Player(number, at, rng.choices(games, weights)[0], name))
    return found


class Routed(Browser):
    """A browser in front of a cluster without nginx: the lobby's paths (LOBBY_PREFIXES) go
    to the lobby's process, every other to the shard, as nginx would send them."""

    def __init__(self, url: str, http, lobby_url: str) -> None:
        super().__init__(url, http)
        self.shard_url, self.lobby_url = url, lobby_url

    async def request(self, method: str, path: str, data=None, headers=None):
        self.url = self.lobby_url if path.startswith(LOBBY_PREFIXES) else self.shard_url
        return await super().request(method, path, data, headers)


class Bench:
    """The players' client: one aiohttp session with a bounded pool of keep-alive
    connections, each player a coroutine holding its own cookies and address."""

    def __init__(
        self, url: str, rng: random.Random, fill: float, tally: Tally, lobby_url: str = ""
    ) -> None:
        self.url = url
        self.lobby_url = lobby_url  # with --split: the lobby's process, apart from the shard
        self.rng = rng
        self.fill = fill
        self.tally = tally
        self.pace = 1.0  # 0: the warm-up's players think not at all
        self.requests: Counter[str] = Counter()  # by step, for the players measured

    async def ask(
        self, browser: Browser, kind: str, method: str, path: str, data=None, headers=None
    ):
        """One request of a step (counted by kind once the warm-up is over)."""
        if self.pace:
            self.requests[kind] += 1
        return await browser.request(method, path, data, headers)

    def error(self, player: Player, kind: str, detail: str) -> None:
        self.tally.error(kind, f"player {player.number} ({player.game}): {detail}")

    async def think(self, span: tuple[float, float]) -> None:
        await asyncio.sleep(self.pace * self.rng.uniform(*span))

    async def run(self, players: list[Player], start: float) -> None:
        http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=CONNECTIONS),
            cookie_jar=aiohttp.DummyCookieJar(),
            timeout=aiohttp.ClientTimeout(total=30),
        )
        progress = asyncio.create_task(self.progress(players, start)) if self.pace else None
        try:
            await asyncio.gather(*(self.play(http, p, start) for p in players))
        finally:
            if progress is not None:
                progress.cancel()
            await http.close()

    async def progress(self, players: list[Player], start: float) -> None:
        """Every PROGRESS_SECONDS, on stderr: who pressed Play, waits, is seated; the errors."""
        while True:
            await asyncio.sleep(PROGRESS_SECONDS)
            pressed = sum(1 for p in players if p.pressed)
            seated = sum(1 for p in players if p.seated)
            print(
                f"{time.monotonic() - start:5.0f} s: {pressed} pressed Play, "
                f"{pressed - seated} not yet seated, {seated} seated, {self.tally.errors} errors",
                file=sys.stderr,
                flush=True,
            )

    async def play(self, http, player: Player, start: float) -> None:
        await asyncio.sleep(max(0.0, start + player.arrives - time.monotonic()))
        browser = (
            Routed(self.url, http, self.lobby_url) if self.lobby_url else Browser(self.url, http)
        )
        try:
            await self.seat(browser, player)
        except (TimeoutError, aiohttp.ClientError) as error:
            self.error(player, "request failed", repr(error))
        except Refused as refused:
            self.error(player, refused.kind, refused.detail)

    async def seat(self, browser: Browser, player: Player) -> None:
        """Take a name, press "Play", wait, follow the grant, land on the room page."""
        status, home, _h = await self.ask(browser, "home page", "GET", "/")
        expect(status == 200, "home page", status)
        await self.think(NAME_THINK)
        form = {"csrf_token": token(home), "name": player.name}
        status, text, headers = await self.ask(browser, "take a name", "POST", "/me/name", form)
        expect(status == 303, "taking a name", f"{status} {text[:200]!r}")
        status, home, _h = await self.ask(browser, "home page", "GET", headers["Location"])
        expect(status == 200 and "data-quick-match" in home, "home page signed in", status)
        await self.think(GAME_THINK)
        player.pressed, player.pressed_wall = time.perf_counter(), time.time()
        form = {"csrf_token": token(home), "game": player.game}
        status, text, headers = await self.ask(browser, "Play", "POST", "/play/", form)
        expect(status == 303, "pressing Play", f"{status} {text[:200]!r}")
        status, page, headers = await self.ask(browser, "waiting page", "GET", headers["Location"])
        if status == 303:  # a wave seated them while the redirect was on its way
            grant = headers["Location"]
        else:
            expect(status == 200 and "data-queue" in page, "the waiting page", status)
            player.shown_waited = waited(page)
            grant = await self.wait(browser, player)
        player.sent = time.perf_counter()
        await self.land(browser, player, grant)

    async def wait(self, browser: Browser, player: Player) -> str:
        """Poll the waiting part every second, as htmx does, until sent to a seat grant."""
        give_up = time.perf_counter() + self.fill + WAVE_SECONDS + GIVE_UP
        while time.perf_counter() < give_up:
            await asyncio.sleep(POLL_SECONDS)
            player.polls += 1
            status, text, headers = await self.ask(
                browser, "poll", "GET", "/play/queue", headers={"HX-Request": "true"}
            )
            expect(status == 200, "polling the queue", status)
            if "HX-Redirect" in headers:
                target = headers["HX-Redirect"]
                expect(ROOM_PATH.match(target) is not None, "sent out of the queue", target)
                return target
            expect("data-queue" in text, "the queue's part", text[:200])
            player.shown_waited = max(player.shown_waited, waited(text))
        raise Refused("never seated", f"still waiting after {player.polls} polls")

    async def land(self, browser: Browser, player: Player, grant: str) -> None:
        """Follow the seat grant to the room's page and check the seat there."""
        found = ROOM_PATH.match(grant)
        expect(found is not None, "a seat grant", grant)
        player.room = found.group(1)
        named = grant_payload(grant)
        player.id, player.seat = named["p"], int(named["s"])
        status, text, headers = await self.ask(browser, "seat grant", "GET", grant)
        expect(status == 303, "following the seat grant", f"{status} {text[:200]!r}")
        status, page, _h = await self.ask(browser, "room page", "GET", headers["Location"])
        expect(status == 200, "the room page", status)
        player.landed = time.perf_counter()
        seat = FAIR_SEAT.search(page)
        expect("data-public" in page and "data-hand" in page, "a public table, seated", page[:200])
        expect(seat is not None and int(seat.group(1)) == player.seat, "the grant's seat", seat)
        player.marked = page.count(" data-computer")


class Refused(Exception):
    """A step did not answer as a browser expects: an error of the run."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(kind)
        self.kind, self.detail = kind, detail


def expect(ok: bool, kind: str, detail) -> None:
    if not ok:
        raise Refused(kind, str(detail))


def token(page: str) -> str:
    found = CSRF_FIELD.search(page)
    expect(found is not None, "a form's CSRF token", page[:200])
    return found.group(1)


def waited(part: str) -> int:
    found = WAITED.search(part)
    return int(found.group(1)) if found else 0


def grant_payload(path: str) -> dict:
    """What a grant's token names (room, seat, player), read without its key: the token is
    signed, not secret (web/live/grants.py)."""
    token = path.split("token=", 1)[1]
    _valid, data = URLSafeTimedSerializer("unknown").loads_unsafe(token)
    return data


def queued_since(lobby_db: Path) -> dict[str, float]:
    """When each player now waiting joined the queue, by the lobby's clock (its database)."""
    conn = sqlite3.connect(f"file:{lobby_db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT player, since FROM queue"))
    finally:
        conn.close()


async def watch_queue(lobby_db: Path, since: dict[str, float]) -> None:
    """Read the lobby's queue every QUEUE_READ_SECONDS (a read-only connection of this
    process: no request to the server), keeping when each player joined it."""
    while True:
        with contextlib.suppress(sqlite3.Error):  # e.g. a checkpoint under way: next time
            for player, joined in queued_since(lobby_db).items():
                since.setdefault(player, joined)
        await asyncio.sleep(QUEUE_READ_SECONDS)


def seated_at(lobby_db: Path) -> dict[str, tuple[str, float]]:
    """Where and when (the wave's time) the lobby seated each player, from its database."""
    conn = sqlite3.connect(f"file:{lobby_db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT player, room, at FROM queue_seated")
        return {player: (room, at) for player, room, at in rows}
    finally:
        conn.close()


# --- the server, and the run ------------------------------------------------------------------


def server_env(fill: float) -> dict[str, str]:
    """The bench's settings: behind one proxy, the fill, the waves, and the clock off."""
    return {
        "DOMINO_PROXIES": "1",
        "DOMINO_FILL_SECONDS": f"{fill:g}",
        "DOMINO_WAVE_SECONDS": f"{WAVE_SECONDS:g}",
        "DOMINO_MOVE_SECONDS": CLOCK_OFF,
        "DOMINO_BANK_SECONDS": CLOCK_OFF,
        "DOMINO_ABANDON_SECONDS": CLOCK_OFF,
        "DOMINO_AWAY_SECONDS": CLOCK_OFF,
    }


def descendants(pid: int) -> list[int]:
    """A process's children, theirs, and so on (the computer's pool runs under a forkserver)."""
    found = []
    try:
        for child in children(pid):
            found += [child, *descendants(child)]
    except FileNotFoundError:  # it just ended
        pass
    return found


def process_cpu(worker: int) -> dict[str, float]:
    """CPU seconds so far: the worker's, and its descendants' (the computer's pool)."""
    pool = 0.0
    for process in descendants(worker):
        with contextlib.suppress(FileNotFoundError):  # a pool process that just ended
            pool += cpu_seconds(process)
    return {"worker": cpu_seconds(worker), "pool": pool}


def run_one_server(args, tmp: Path) -> tuple[Results, str]:
    """The run against one server (lobby and rooms in its one worker)."""
    db = tmp / "lobby-bench.sqlite3"
    server = Server(db, free_port(), app="app:create_app()", env=server_env(args.fill))
    server.start()
    try:
        worker = worker_pid(server.proc.pid)
        label = f"the gunicorn worker (pid {worker}), lobby and rooms in one process"
        lobby_db = db.with_name("lobby.sqlite3")
        results = drive(args, server.url, lambda: process_cpu(worker), lobby_db)
        results.seated_at = seated_at(lobby_db)
    finally:
        server.kill()
    return results, label


def run_split(args, tmp: Path) -> tuple[Results, str]:
    """The run against the lobby's own process (DOMINO_LOBBY=only), which opens the tables on
    one shard (DOMINO_LOBBY=elsewhere) over HTTP (DOMINO_SHARD_URLS, POST /internal/tables)."""
    (tmp / "lobby").mkdir()
    (tmp / "shard").mkdir()
    env = server_env(args.fill)
    shard_port, lobby_port = free_port(), free_port()
    lobby_url = f"http://127.0.0.1:{lobby_port}"
    shard = Server(
        tmp / "shard" / "s1.sqlite3",
        shard_port,
        app="app:create_app()",
        env={
            **env,
            "DOMINO_LOBBY": "elsewhere",
            "DOMINO_SHARD": "s1",
            "DOMINO_LOBBY_URL": lobby_url,
        },
    )
    lobby = Server(
        tmp / "lobby" / "rooms.sqlite3",  # no rooms are opened there: its lobby.sqlite3 beside
        lobby_port,
        app="app:create_app()",
        env={**env, "DOMINO_LOBBY": "only", "DOMINO_SHARD_URLS": shard.url},
    )
    shard.start()
    try:
        lobby.start()
        try:
            workers = worker_pid(lobby.proc.pid), worker_pid(shard.proc.pid)
            label = f"the lobby's gunicorn worker (pid {workers[0]}, DOMINO_LOBBY=only), alone"

            def cpu() -> dict[str, float]:
                found = process_cpu(workers[1])
                return {
                    "worker": cpu_seconds(workers[0]),
                    "shard": found["worker"],
                    "pool": found["pool"],
                }

            lobby_db = tmp / "lobby" / "lobby.sqlite3"
            results = drive(args, shard.url, cpu, lobby_db, lobby_url)
            results.seated_at = seated_at(lobby_db)
        finally:
            lobby.kill()
    finally:
        shard.kill()
    return results, label


def warm_players(rng: random.Random) -> list[Player]:
    """One full table of players for each public game, arriving at once: they run every path
    of the server once (templates compiled, caches filled) before the CPU is measured."""
    games = [game for game in GAMES for _ in range(SEATS[game])]
    return [
        Player(-1 - n, 0.0, game, f"warm{rng.randrange(10**6)}x{n}") for n, game in enumerate(games)
    ]


def drive(args, url: str, cpu, lobby_db: Path, lobby_url: str = "") -> Results:
    """Warm the server up, then run the players against `url`, measuring `cpu()` meanwhile."""
    rng = random.Random(args.seed)
    players = make_players(args.players, args.seconds, rng)
    results = Results(players, Tally())
    bench = Bench(url, rng, args.fill, results.tally, lobby_url)
    results.requests = bench.requests

    async def go() -> None:
        bench.pace = 0.0
        results.warm = warm_players(rng)
        await bench.run(results.warm, time.monotonic())
        bench.pace = 1.0
        await asyncio.sleep(1.0)
        before, client = cpu(), time.process_time()
        start = time.monotonic() + 0.5
        results.started = time.perf_counter() + 0.5
        watching = asyncio.create_task(watch_queue(lobby_db, results.since))
        await bench.run(players, start)
        watching.cancel()
        results.finished = time.perf_counter()
        after = cpu()
        results.cpu = {name: after[name] - before[name] for name in after}
        results.client_cpu = time.process_time() - client

    asyncio.run(go())
    return results


def report(args, results: Results, label: str) -> dict:
    """Check what the lobby recorded, print the table, return the JSON line's figures."""
    players, tally = results.players, results.tally
    seated = [p for p in players if p.seated]
    record = results.seated_at
    waits, late = [], []
    for p in seated:
        if p.id not in record or record[p.id][0] != p.room:
            tally.error("not in the lobby's record", f"player {p.number} {p.id} at {p.room}")
            continue
        # Since it joined by the lobby's clock; one seated before the queue was read again,
        # since "Play" was pressed (a little earlier: the longer wait).
        waits.append(record[p.id][1] - results.since.get(p.id, p.pressed_wall))
        if waits[-1] > args.fill + WAVE_SECONDS + WAVE_SLACK:
            late.append(p)
    late_count = len(late) + (len(players) - len(seated))
    # Every table the lobby opened for the measured players, its people by the lobby's record
    # (a player who gave up waiting may have been seated after all: no computer in that seat).
    warm_rooms = {p.room for p in results.warm}
    people = Counter(room for room, _at in record.values() if room not in warm_rooms)
    landed: dict[str, list[Player]] = {}
    for p in seated:
        landed.setdefault(p.room, []).append(p)
    by_game: Counter[str] = Counter()
    with_computer: Counter[str] = Counter()
    unlanded = 0  # tables none of whose players landed (their game is unknown here)
    for room, count in people.items():
        there = landed.get(room, [])
        games = {p.game for p in there}
        if not there:
            unlanded += 1
            continue
        if len(games) != 1 or len({p.seat for p in there}) != len(there):
            tally.error("a table of two games or a seat twice", f"{room}: {there}")
            continue
        game = games.pop()
        computer = SEATS[game] - count
        by_game[game] += 1
        with_computer[game] += computer > 0
        for p in there:
            if p.marked != computer:
                tally.error("computer seats marked", f"{room}: {p.marked} of {computer} marked")
    tables = sum(by_game.values()) + unlanded
    computer_tables = sum(with_computer.values())
    seconds = [p.landed - p.pressed for p in seated]
    sent = [p.sent - p.pressed for p in seated]
    span = results.finished - results.started
    cpu_s, pool_s = results.cpu["worker"], results.cpu.get("pool", 0.0)
    per_player = cpu_s * 1000 / max(len(seated), 1)
    pool_of = "shard's" if "shard" in results.cpu else "one"
    shard_s = results.cpu.get("shard", 0.0)
    shard_cpu = f"{shard_s:.2f} s, {shard_s * 1000 / max(len(seated), 1):.2f} ms per seated player"
    chosen = Counter(p.game for p in players)
    s = lambda values, q: f"{quantile(values, q):.2f}"  # noqa: E731
    share = computer_tables / tables if tables else 0.0
    rows = [
        ("players seated", f"{len(seated)} of {len(players)}, arriving over {args.seconds:g} s"),
        ("run (first arrival to last seated)", f"{span:.1f} s"),
        ("games chosen", ", ".join(f"{g} {chosen[g]}" for g in GAMES)),
        (
            "seating time, Play -> seated on the room page, p50 / p99 / max",
            f"{s(seconds, 0.5)} / {s(seconds, 0.99)} / {s(seconds, 1.0)} s",
        ),
        (
            "  of which Play -> sent to the seat grant, p50 / p99 / max",
            f"{s(sent, 0.5)} / {s(sent, 0.99)} / {s(sent, 1.0)} s",
        ),
        (
            "queue wait by the lobby's record, p50 / p99 / max",
            f"{s(waits, 0.5)} / {s(waits, 0.99)} / {s(waits, 1.0)} s",
        ),
        (
            f"waited past fill {args.fill:g} s + one wave {WAVE_SECONDS:g} s (+{WAVE_SLACK:g} s)",
            str(late_count),
        ),
        (
            "tables opened (with a computer seat)",
            f"{tables} ({computer_tables}): "
            + ", ".join(f"{g} {by_game[g]} ({with_computer[g]})" for g in GAMES),
        ),
        *([("tables none of whose players landed", str(unlanded))] if unlanded else []),
        ("share of tables filled by the computer", f"{share:.1%}"),
        (
            "the players' requests",
            f"{sum(results.requests.values())}: "
            + ", ".join(f"{kind} {n}" for kind, n in results.requests.items()),
        ),
        (
            "longest wait a waiting page showed (data-waited)",
            f"{max((p.shown_waited for p in players), default=0)} s",
        ),
        (f"CPU of {label}", f"{cpu_s:.2f} s, {cpu_s / span:.0%} of one core"),
        ("  per seated player", f"{per_player:.2f} ms"),
        *(
            [("CPU of the shard's gunicorn worker (DOMINO_LOBBY=elsewhere)", shard_cpu)]
            if "shard" in results.cpu
            else []
        ),
        (
            f"CPU of the computer's process pool (the {pool_of} worker's descendants)",
            f"{pool_s:.2f} s",
        ),
        ("CPU of this load client", f"{results.client_cpu:.2f} s"),
        ("errors", str(tally.errors)),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    for kind, examples in tally.examples.items():
        print(f"  {kind}: {tally.kinds[kind]}, e.g. {examples[0]}")
    for p in late[:3]:
        print(
            f"  late: player {p.number} ({p.game}) waited {record[p.id][1] - p.pressed_wall:.1f} s"
        )
    return {
        "players": len(players),
        "seated": len(seated),
        "errors": tally.errors,
        "late": late_count,
        "seat_p50_s": round(quantile(seconds, 0.5), 3),
        "seat_p99_s": round(quantile(seconds, 0.99), 3),
        "seat_max_s": round(quantile(seconds, 1.0), 3),
        "wait_max_s": round(quantile(waits, 1.0), 3),
        "tables": tables,
        "tables_by_game": {g: by_game[g] for g in GAMES},
        "computer_tables": computer_tables,
        "computer_share": round(share, 4),
        "cpu_process": label,
        "cpu_s": round(cpu_s, 3),
        "cpu_ms_per_player": round(per_player, 3),
        **({"shard_cpu_s": round(shard_s, 3)} if "shard" in results.cpu else {}),
        "pool_cpu_s": round(pool_s, 3),
        "client_cpu_s": round(results.client_cpu, 3),
    }


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=60.0, help="players arrive over this")
    parser.add_argument(
        "--fill", type=float, default=30.0, help="DOMINO_FILL_SECONDS: the computer fills then"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--split",
        action="store_true",
        help="the lobby as its own process (DOMINO_LOBBY=only) opening tables on one shard",
    )
    args = parser.parse_args(argv)
    if args.players < 1 or args.seconds <= 0 or args.fill < 0:
        parser.error("--players and --seconds must be positive, --fill not negative")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    raise_open_files(CONNECTIONS + 1000)
    with tempfile.TemporaryDirectory() as tmp:
        run = run_split if args.split else run_one_server
        results, label = run(args, Path(tmp))
        result = report(args, results, label)
    print(json.dumps(result))
    ok = result["errors"] == 0 and result["late"] == 0 and result["seated"] == result["players"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
