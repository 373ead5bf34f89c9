"""Abuse bench: issue 12's attacks against the production server, another room timed meanwhile.

    .venv/bin/python bench/abuse.py [--only NAME[,NAME]] [--small] [--json-only] [--app-dir DIR]

For each attack it starts the production server afresh (gunicorn -c gunicorn.conf.py, one gevent
worker, run in --app-dir) on a free loopback port with a temporary database, as `make serve`
does: not behind a proxy, rate limits on, DOMINO_BOT_DELAY_MS=0, DOMINO_PING_SECONDS and
DOMINO_REQUEST_TIMEOUT set small enough for a short run. A separate process plays an honest
friend room from 127.0.0.1 (two seats with real websockets, a move every 0.2-0.5 s through the
real endpoints, bench/loadclient.py's Browser) and probes GET /healthz 20 times a second; the
attackers bind their sockets to other loopback addresses (the server caps each address's
connections). Each attack is bounded in count and time:

- supersede: tabs whose raw socket never reads and never answers a ping are replaced by newer
  tabs (a new page load, then its socket) once the server has sent them a ping; the worker's
  descriptors (/proc/<worker>/fd) must be back to their baseline within 60 s;
- big_message: one 256 MB text message from a seated tab's socket, streamed in chunks: it must
  be refused (the socket closed) with the worker's RSS growing by less than 10 MB;
- slow_bodies: 2,000 POSTs from one address whose body drips in a byte every 10 s (and a few
  hundred whose headers drip): capped, each closed within DOMINO_REQUEST_TIMEOUT (+5 s), the
  other room's move -> push p99 under 100 ms;
- record_downloads: four loops downloading a 600-round record for 15 s: p99 under 100 ms;
  record_downloads_unlimited: the same with the server's rate limits off, so that nearly every
  download is served, not refused: what serving a record costs;
- computer_rooms: 20 computer rooms at `hard`, each human acting as soon as its table and the
  rate limit allow, for 20 s: the other room's p99 under 50 ms;
- fuzz: a few thousand malformed requests (CR/LF in /lang/<code>?next=, Host headers with an
  empty or over-long label, websocket handshakes without Sec-WebSocket-Version or -Key, random
  methods, paths, headers and bodies): no response may be a 500.

Prints a table, then one JSON line with a key per attack, each with its `ok`. The exit code is
0 whatever the figures (it is a measurement), unless the bench itself fails.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import multiprocessing
import os
import random
import re
import select
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from faults import ROOT, Server, free_port
from load import Run, quantile, raise_open_files, rss_kb, worker_pid
from loadclient import Browser, Tally, choose

ATTACKS = (
    "supersede",
    "big_message",
    "slow_bodies",
    "record_downloads",
    "record_downloads_unlimited",
    "computer_rooms",
    "fuzz",
)
FULL = SimpleNamespace(
    seats=100, rounds=3, message_mb=256, bodies=2000, header_drips=300, timeout=10, cap=None,
    record_rounds=600, download_s=15, computer_rooms=20, computer_s=20, fuzz=3000,
)  # fmt: skip
SMALL = SimpleNamespace(
    seats=10, rounds=2, message_mb=16, bodies=200, header_drips=60, timeout=3, cap=50,
    record_rounds=100, download_s=4, computer_rooms=4, computer_s=5, fuzz=300,
)  # fmt: skip
PING_SECONDS = 2.0  # DOMINO_PING_SECONDS for the server
FD_TOLERANCE = 10
CLOSE_MARGIN = 5.0  # seconds past DOMINO_REQUEST_TIMEOUT a dripping connection may stay
REFUSED_WITHIN = 1.0  # a connection closed this soon after it opened was refused at once
DRIP_EVERY = 10.0
ACT_GAP = 0.55  # seconds between a computer-room human's actions: under 120 a minute
MB = 1024 * 1024


def source(block: int, index: int = 0) -> str:
    """An attacker's loopback address: 127.<block>.x.y, never 127.0.0.1."""
    return f"127.{block}.{index // 250}.{index % 250 + 1}"


def session(address: str | None = None, total: float = 15.0) -> aiohttp.ClientSession:
    """An HTTP client from one address (no keep-alive for attackers, so no idle sockets)."""
    if address is None:
        connector = aiohttp.TCPConnector(limit=0)
    else:
        connector = aiohttp.TCPConnector(limit=0, local_addr=(address, 0), force_close=True)
    return aiohttp.ClientSession(
        connector=connector,
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=aiohttp.ClientTimeout(total=total),
    )


def ms(values: list[float], q: float) -> float | None:
    return None if not values else round(quantile(values, q) * 1000, 2)


# -- The honest room, in its own process so that the attackers' work does not delay it. --


def honest_main(url: str, pipe) -> None:
    asyncio.run(honest(url, pipe))


async def honest(url: str, pipe) -> None:
    """Seat one friend room from 127.0.0.1; play and probe /healthz between "go" and "stop"."""
    run = Run(SimpleNamespace(think=(0.2, 0.5), seed=12, leaks=False, deflate=False), url)
    http, sockets = session(total=10), session()
    room = await run.seat_room(http, sockets, asyncio.Semaphore(1))
    pipe.send("ready" if room else f"failed: {dict(run.tally.examples)}")
    await asyncio.to_thread(pipe.recv)
    health: list[float] = []
    failed = Counter()
    tasks = [asyncio.create_task(probe(http, url, health, failed))]
    if room is not None:
        tasks.append(asyncio.create_task(keep_playing(run, room)))
    await asyncio.to_thread(pipe.recv)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    tally = run.tally
    pipe.send(
        {
            "health": health,
            "health_failed": sum(failed.values()),
            "push": tally.latency,
            "moves": tally.moves,
            "errors": dict(tally.kinds),
        }
    )
    closing = [asyncio.wait_for(seat.close(), 5) for seat in (room.seats if room else ())]
    await asyncio.gather(*closing, http.close(), sockets.close(), return_exceptions=True)


async def keep_playing(run: Run, room) -> None:
    while True:
        await run.play(room, math.inf)  # returns only when the room is stuck for 10 s
        await asyncio.gather(*(seat.refresh(run.tally) for seat in room.seats))


async def probe(http, url: str, samples: list[float], failed: Counter) -> None:
    """GET /healthz 20 times a second; a failure counts with the time it took."""
    while True:
        start = time.perf_counter()
        try:
            async with http.get(url + "/healthz") as reply:
                await reply.read()
                if reply.status != 200:
                    failed[reply.status] += 1
        except (TimeoutError, aiohttp.ClientError) as error:
            failed[type(error).__name__] += 1
        samples.append(time.perf_counter() - start)
        await asyncio.sleep(0.05)


class Honest:
    """The honest room's process: started with the server, timed only during the attack."""

    def __init__(self, url: str) -> None:
        spawn = multiprocessing.get_context("spawn")
        self.pipe, child = spawn.Pipe()
        self.proc = spawn.Process(target=honest_main, args=(url, child), daemon=True)
        self.proc.start()
        self.started = False
        self.ready = self.receive(60) or "no answer"

    def receive(self, seconds: float):
        try:
            return self.pipe.recv() if self.pipe.poll(seconds) else None
        except (EOFError, OSError):
            return None

    def go(self) -> None:
        if not self.started:
            self.started = True
            with contextlib.suppress(OSError):
                self.pipe.send("go")

    def stop(self) -> dict:
        self.go()
        with contextlib.suppress(OSError):
            self.pipe.send("stop")
        found = self.receive(30)
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.terminate()
        return found or {"health": [], "health_failed": 0, "push": [], "moves": 0, "errors": {}}


def honest_figures(found: dict, ready: str) -> dict:
    return {
        "healthz_p50_ms": ms(found["health"], 0.5),
        "healthz_p99_ms": ms(found["health"], 0.99),
        "healthz_failed": found["health_failed"],
        "push_p50_ms": ms(found["push"], 0.5),
        "push_p99_ms": ms(found["push"], 0.99),
        "honest_moves": found["moves"],
        "honest_errors": found["errors"] if ready == "ready" else {"setup": ready},
    }


def honest_ok(result: dict, limit_ms: float) -> bool:
    """The other room played, every push arrived, and its p99 stayed under the limit."""
    p99 = result["push_p99_ms"]
    missed = result["honest_errors"].get("missed push", 0)
    return result["honest_moves"] > 0 and not missed and p99 is not None and p99 < limit_ms


# -- Raw websockets. --


def handshake(port: int, room: str, tab: str, cookie: str, drop: tuple = ()) -> bytes:
    """A websocket upgrade request for a seat, without the headers named in `drop`."""
    headers = {
        "Host": f"127.0.0.1:{port}",
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
        "Sec-WebSocket-Version": "13",
        "Origin": f"http://127.0.0.1:{port}",
        "Cookie": f"seat={cookie}",
    }
    lines = [f"GET /r/{room}/ws?tab={tab} HTTP/1.1"]
    lines += [f"{name}: {value}" for name, value in headers.items() if name not in drop]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def frames(data: bytes) -> tuple[int | None, list[tuple[int, bytes]]]:
    """The status of an upgrade response and the whole frames after it."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    found = re.match(rb"HTTP/1\.1 (\d{3})", head)
    status = int(found[1]) if found else None
    out, i = [], 0
    while sep and len(rest) - i >= 2:
        size, j = rest[i + 1] & 127, i + 2
        if size >= 126:
            width = 2 if size == 126 else 8
            if len(rest) < j + width:
                break
            size, j = int.from_bytes(rest[j : j + width], "big"), j + width
        j += 4 if rest[i + 1] & 128 else 0
        if len(rest) < j + size:
            break
        out.append((rest[i] & 15, rest[j : j + size]))
        i = j + size
    return status, out


def close_code(found: list[tuple[int, bytes]]) -> int | None:
    for opcode, payload in found:
        if opcode == 8:
            return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
    return None


def peek(sock: socket.socket) -> bytes | None:
    """What the server has sent, left unread; None once it has closed."""
    try:
        data = sock.recv(1 << 20, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return b""
    except OSError:
        return None
    return data or None


async def peek_until(sock: socket.socket, opcode: int, seconds: float) -> bool:
    """Wait until a frame with `opcode` is in the socket's buffer (it is never read)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        data = peek(sock)
        if data is None:
            return False
        status, found = frames(data)
        if status not in (None, 101):
            return False
        if any(code == opcode for code, _ in found):
            return True
        await asyncio.sleep(0.1)
    return False


async def raw_socket(port: int, address: str, blocking: bool = False) -> socket.socket:
    sock = socket.socket()
    sock.setblocking(False)
    sock.bind((address, 0))
    try:
        await asyncio.wait_for(
            asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port)), 5
        )
    except BaseException:
        sock.close()
        raise
    sock.setblocking(blocking)
    return sock


async def seat_browsers(url: str, addresses: list[str], gate=None) -> list[Browser]:
    """Friend rooms with both seats taken, each seat a browser from its own address."""
    gate = gate or asyncio.Semaphore(16)

    async def one(host_at: str, guest_at: str):
        async with gate:
            host = Browser(url, session(host_at))
            guest = Browser(url, session(guest_at))
            await host.create_room()
            await guest.join(host.room)
            return [host, guest]

    pairs = zip(addresses[::2], addresses[1::2], strict=False)
    rooms = await asyncio.gather(*(one(a, b) for a, b in pairs))
    return [seat for room in rooms for seat in room]


async def close_browsers(seats: list[Browser]) -> None:
    await asyncio.gather(*(seat.close() for seat in seats), return_exceptions=True)
    await asyncio.gather(*(seat.http.close() for seat in seats), return_exceptions=True)


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


# -- The attacks. Each takes the run's context and returns (figures, one line of summary). --


async def supersede(ctx) -> tuple[dict, str]:
    """Tabs that missed a ping, replaced by newer tabs; the worker's descriptors after."""
    size = ctx.size
    addresses = [source(3, i) for i in range(size.seats)]
    seats = await seat_browsers(ctx.url, addresses)
    kept: list[socket.socket] = []
    done = Counter()
    last = [time.monotonic()]

    async def open_tab(seat: Browser, address: str) -> socket.socket | None:
        await seat.open_page()  # a new page load: a new, later tab id
        sock = await raw_socket(ctx.port, address)
        kept.append(sock)
        await asyncio.get_running_loop().sock_sendall(
            sock, handshake(ctx.port, seat.room, seat.tab, seat.cookies["seat"])
        )
        return sock if await peek_until(sock, 1, 10) else None

    async def chain(seat: Browser, address: str) -> None:
        try:
            old = await open_tab(seat, address)
            for _ in range(size.rounds):
                if old is None:
                    done["failed"] += 1
                    return
                pinged = await peek_until(old, 9, 3 * PING_SECONDS + 30)
                done["ping seen"] += pinged
                old = await open_tab(seat, address)
                done["supersedes"] += old is not None
                last[0] = time.monotonic()
            if old is not None:  # the newest tab leaves as a browser does
                with contextlib.suppress(OSError):
                    old.send(b"\x88\x82\0\0\0\0\x03\xe8")  # close, 1000
                kept.remove(old)
                old.close()
        except (OSError, TimeoutError, AssertionError, aiohttp.ClientError) as error:
            done[f"error {type(error).__name__}"] += 1

    fds_before = open_fds(ctx.worker)
    peak = [fds_before]

    async def sample() -> None:
        while True:
            peak[0] = max(peak[0], open_fds(ctx.worker))
            await asyncio.sleep(0.25)

    ctx.watch()
    sampler = asyncio.create_task(sample())
    await asyncio.gather(*(chain(seat, addresses[i]) for i, seat in enumerate(seats)))
    peak[0] = max(peak[0], open_fds(ctx.worker))
    deadline = last[0] + 60 + 2 * PING_SECONDS
    took = None
    while time.monotonic() < deadline:
        now = open_fds(ctx.worker)
        if 0 <= now <= fds_before + FD_TOLERANCE:
            took = round(max(0.0, time.monotonic() - last[0]), 2)
            break
        await asyncio.sleep(0.25)
    sampler.cancel()
    fds_after = open_fds(ctx.worker)
    for sock in kept:
        sock.close()
    await close_browsers(seats)
    result = {
        "supersedes": done["supersedes"],
        "pings_seen": done["ping seen"],
        "failed": sum(n for k, n in done.items() if k not in ("supersedes", "ping seen")),
        "fds_before": fds_before,
        "fds_peak": peak[0],
        "fds_after": fds_after,
        "seconds_to_baseline": took,
    }
    result["ok"] = took is not None and done["supersedes"] == size.seats * size.rounds
    line = (
        f"{done['supersedes']} supersedes ({done['ping seen']} after a ping); worker fds "
        f"{fds_before} -> peak {peak[0]} -> {fds_after}; back to baseline: "
        + (f"after {took} s" if took is not None else "not within 60 s")
    )
    return result, line


async def big_message(ctx) -> tuple[dict, str]:
    """One huge text frame from a seated tab; is it refused, and what does it cost in memory?"""
    size = ctx.size.message_mb * MB
    seat = Browser(ctx.url, session(source(4)))
    await seat.create_room()
    await seat.open_page()
    sock = await raw_socket(ctx.port, source(4), blocking=True)
    sock.settimeout(10)
    sock.sendall(handshake(ctx.port, seat.room, seat.tab, seat.cookies["seat"]))
    data = b""
    while not frames(data)[1]:  # the 101 and the whole table
        more = sock.recv(65536)
        if not more:
            raise ConnectionError(f"the socket closed before its table: {data[:100]!r}")
        data += more
    await seat.http.close()
    base = rss_kb(ctx.worker)
    peak = [base]
    ctx.watch()
    sending = asyncio.create_task(asyncio.to_thread(send_big, sock, size))

    async def sample(until_done) -> None:
        while not until_done():
            try:
                peak[0] = max(peak[0], rss_kb(ctx.worker))
            except (OSError, RuntimeError):
                return
            await asyncio.sleep(0.05)

    await sample(sending.done)
    settle = time.monotonic() + 2
    await sample(lambda: time.monotonic() > settle)
    sent = sending.result()
    sock.close()
    growth = round((peak[0] - base) / 1024, 1)
    result = {
        "sent_mb": round(sent["sent"] / MB, 1),
        "closed": sent["closed"],
        "close_code": sent["code"],
        "rss_growth_mb": growth,
    }
    result["ok"] = sent["closed"] and growth < 10
    line = (
        f"{result['sent_mb']} of {size // MB} MB sent; "
        + (f"closed by the server (code {sent['code']})" if sent["closed"] else "not refused")
        + f"; worker RSS +{growth} MB"
    )
    return result, line


def send_big(sock: socket.socket, size: int) -> dict:
    """Stream one masked text frame of `size` bytes; stop when the server closes."""
    chunk = b"a" * (256 * 1024)
    sent, closed, data = 0, False, b""
    end = time.monotonic() + 120
    try:
        sock.sendall(b"\x81\xff" + size.to_bytes(8, "big") + b"\0\0\0\0")  # mask key 0
        while sent < size and time.monotonic() < end:
            sock.sendall(chunk[: size - sent])
            sent += min(len(chunk), size - sent)
            if select.select([sock], [], [], 0)[0]:
                more = sock.recv(65536)
                data += more
                if not more or close_code(frames(b"\r\n\r\n" + data)[1]) is not None:
                    closed = True
                    break
        wait = time.monotonic() + 3
        while not closed and time.monotonic() < wait:
            if select.select([sock], [], [], 0.2)[0]:
                more = sock.recv(65536)
                data += more
                closed = not more or close_code(frames(b"\r\n\r\n" + data)[1]) is not None
    except (BrokenPipeError, ConnectionResetError):
        closed = True
        with contextlib.suppress(OSError):  # the close frame may still be buffered
            data += sock.recv(65536, socket.MSG_DONTWAIT)
    except TimeoutError:
        pass  # the server stopped reading but kept the socket
    return {"sent": sent, "closed": closed, "code": close_code(frames(b"\r\n\r\n" + data)[1])}


async def slow_bodies(ctx) -> tuple[dict, str]:
    """Connections from one address dripping a body (then others dripping headers)."""
    room = Browser(ctx.url, session(source(1, 1)))
    await room.create_room()
    await room.http.close()
    host = f"Host: 127.0.0.1:{ctx.port}\r\n"
    post = f"POST /r/{room.room}/play HTTP/1.1\r\n{host}"
    body_head = f"{post}Content-Type: application/x-www-form-urlencoded\r\n"
    body_head += "Content-Length: 1000\r\n\r\ns"
    ctx.watch()
    bodies = await drip(ctx, source(1), ctx.size.bodies, body_head.encode(), b"s")
    headers = await drip(ctx, source(2), ctx.size.header_drips, (post + "X-Drip: ").encode(), b"a")
    bound = ctx.size.timeout + CLOSE_MARGIN
    capped = bodies["refused"] > 0 and (ctx.size.cap is None or bodies["accepted"] <= ctx.size.cap)
    within = bodies["closed_within_s"]
    bodies["capped"] = capped
    bodies["headers"] = headers
    bodies["ok"] = capped and within is not None and within <= bound
    line = (
        f"bodies: {bodies['accepted']} accepted, {bodies['refused']} refused, "
        + (f"all closed within {within} s" if within is not None else "some still open")
        + f"; headers: {headers['accepted']} accepted, {headers['refused']} refused, "
        + (
            f"all closed within {headers['closed_within_s']} s"
            if headers["closed_within_s"] is not None
            else "some still open"
        )
    )
    return bodies, line


async def drip(ctx, address: str, count: int, first: bytes, byte: bytes) -> dict:
    """Open `count` connections from `address`, each sending `first` then a byte now and then."""
    gate = asyncio.Semaphore(100)
    conns: list[dict] = []
    opened: list[bool] = []

    async def one() -> None:
        async with gate:
            conn = {"opened": time.monotonic(), "closed": None, "status": None}
            conns.append(conn)
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", ctx.port, local_addr=(address, 0)), 5
                )
                writer.write(first)
            except (OSError, TimeoutError):
                conn["closed"] = time.monotonic()
                return
            finally:
                opened.append(True)
        try:
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(4096), DRIP_EVERY)
                except TimeoutError:
                    writer.write(byte)
                    continue
                if not data:
                    break
                found = re.match(rb"HTTP/1\.[01] (\d{3})", data)
                conn["status"] = conn["status"] or (int(found[1]) if found else None)
        except OSError:
            pass
        finally:
            if conn["closed"] is None and not asyncio.current_task().cancelling():
                conn["closed"] = time.monotonic()
            writer.close()

    tasks = [asyncio.create_task(one()) for _ in range(count)]
    end = time.monotonic() + 60
    while len(opened) < count and time.monotonic() < end:
        await asyncio.sleep(0.1)
    await asyncio.wait(tasks, timeout=ctx.size.timeout + CLOSE_MARGIN + 5)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    refused = [c for c in conns if c["status"] == 503 or refused_at_once(c)]
    accepted = [c for c in conns if c not in refused]
    still = sum(c["closed"] is None for c in accepted)
    lasted = [c["closed"] - c["opened"] for c in accepted if c["closed"] is not None]
    return {
        "connections": count,
        "accepted": len(accepted),
        "refused": len(refused),
        "still_open": still,
        "closed_within_s": round(max(lasted, default=0), 2) if not still else None,
        "statuses": dict(Counter(str(c["status"]) for c in conns)),
    }


PREPARE = """
import json, random, sys
from domino import game
from domino.events import DRAW, Play
from domino.rooms import Rooms
from domino.store import Store

store = Store(sys.argv[1])
store.db.execute("PRAGMA synchronous=OFF")
rooms, rng = Rooms(store, random.Random(1)), random.Random(2)
room, secret = rooms.create("friend")
room = rooms.join(room.id, None)[0]
both, rounds = frozenset({0, 1}), 0
while rounds < int(sys.argv[2]):
    state = room.round
    if state.over:
        room = rooms.act(room.id, 0, "new-round", {}, both, room.seq)
        room = rooms.act(room.id, 1, "accept-new-round", {}, both, room.seq)
        continue
    move = rng.choice(game.legal_actions(state, state.turn))
    if isinstance(move, Play):
        action, params = "play", {"tile": str(move.tile), "end": move.end}
    else:
        action, params = ("draw" if move == DRAW else "pass"), {}
    room = rooms.act(room.id, state.turn, action, params, both, room.seq)
    rounds += room.round.over
store.close()
print(json.dumps({"room": room.id, "secret": secret}))
"""


def prepare_records(db: Path, app_dir: Path, rounds: int) -> dict:
    """A friend room with `rounds` finished rounds, stored by the app's own code."""
    env = dict(os.environ, PYTHONPATH=str(app_dir))
    done = subprocess.run(
        [sys.executable, "-c", PREPARE, str(db), str(rounds)],
        cwd=app_dir, env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


async def record_downloads(ctx) -> tuple[dict, str]:
    """Four loops downloading a long record."""
    room, secret = ctx.prepared["room"], ctx.prepared["secret"]
    http = session(source(5), total=30)
    url, cookie = f"{ctx.url}/r/{room}/record.jsonl", {"Cookie": f"seat={secret}"}
    async with http.get(url, headers=cookie) as reply:
        first, lines = reply.status, (await reply.text()).count("\n")
    took: list[float] = []
    seen = Counter()
    ctx.watch()
    until = time.monotonic() + ctx.size.download_s

    async def loop() -> None:
        while time.monotonic() < until:
            start = time.perf_counter()
            try:
                async with http.get(url, headers=cookie) as reply:
                    await reply.read()
                    seen[reply.status] += 1
                    if reply.status == 200:
                        took.append(time.perf_counter() - start)
            except (TimeoutError, aiohttp.ClientError) as error:
                seen[type(error).__name__] += 1

    await asyncio.gather(*(loop() for _ in range(4)))
    await http.close()
    result = {
        "rounds": ctx.size.record_rounds,
        "first_status": first,
        "records_served": lines if first == 200 else 0,
        "downloads": seen[200],
        "download_p50_ms": ms(took, 0.5),
        "status_429": seen[429],
        "other": {str(k): n for k, n in seen.items() if k not in (200, 429)},
    }
    line = (
        f"first download {first} ({lines} lines); {seen[200]} downloads, p50 "
        f"{result['download_p50_ms']} ms, {seen[429]} refused with 429"
    )
    return result, line


async def computer_rooms(ctx) -> tuple[dict, str]:
    """Computer rooms at `hard`, each human acting as soon as it may."""
    humans = []
    for i in range(ctx.size.computer_rooms):
        human = Browser(ctx.url, session(source(6, i)))
        await human.create_room(computer="hard")
        await human.open_page()
        humans.append(human)
    tally = Tally()
    for human in humans:
        await human.connect(human.http, False, tally)
    ctx.watch()
    started = time.time()
    until = time.monotonic() + ctx.size.computer_s
    rng = random.Random(5)
    await asyncio.gather(*(play_computer(human, until, tally, rng) for human in humans))
    await close_browsers(humans)
    moves = computer_moves(ctx.db, started)
    result = {"rooms": len(humans), "computer_moves": moves, "human_moves": tally.moves}
    result["human_errors"] = dict(tally.kinds)
    line = f"{len(humans)} rooms: {moves} computer moves, {tally.moves} human moves"
    return result, line


async def play_computer(human: Browser, until: float, tally: Tally, rng) -> None:
    last = 0.0
    while time.monotonic() < until and not human.closed:
        seq = human.seq
        found = choose([human], rng)
        if found is None:  # the computer's turn
            if not await newer(human, seq, min(5, until - time.monotonic())):
                await human.refresh(tally)
            continue
        _seat, action, fields = found
        await asyncio.sleep(max(0.0, last + ACT_GAP - time.monotonic()))
        last = time.monotonic()
        try:
            if action == "select":
                picked = await human.select(fields["tile"], tally, rng)
                if picked is None:
                    continue
                action, fields = picked
            status, _seq = await human.post(action, fields, tally)
        except (TimeoutError, aiohttp.ClientError) as error:
            status = type(error).__name__
        if status == 200:
            tally.actions[action] += 1
        else:
            tally.error(f"{action} {status}", human.room)
            await human.refresh(tally)


async def newer(seat: Browser, seq: int, seconds: float) -> bool:
    """Wait until the seat shows a table newer than `seq`."""
    end = time.monotonic() + seconds
    while seat.seq <= seq and not seat.closed:
        seat.changed.clear()
        left = end - time.monotonic()
        if seat.seq > seq or left <= 0:
            break
        try:
            await asyncio.wait_for(seat.changed.wait(), left)
        except TimeoutError:
            break
    return seat.seq > seq


def computer_moves(db: Path, since: float) -> int | None:
    """The computer's moves stored since `since` (wall clock)."""
    sql = """SELECT COUNT(*) FROM events JOIN rooms ON rooms.id = events.room
             WHERE rooms.kind = 'computer' AND events.type IN ('play', 'draw', 'pass')
             AND json_extract(events.data, '$.seat') = 1 AND events.at >= ?"""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return conn.execute(sql, [since]).fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return None


async def fuzz(ctx) -> tuple[dict, str]:
    """Malformed requests, raw and through aiohttp; responses by status class."""
    seat = Browser(ctx.url, session(source(7)))
    await seat.create_room()
    await seat.http.close()
    rng = random.Random(7)
    raw = raw_requests(rng, ctx.size.fuzz, ctx.port, seat.room, seat.cookies["seat"])
    ctx.watch()
    statuses: list[tuple[str, int | None, bytes]] = []
    gate = asyncio.Semaphore(16)

    async def send(index: int, kind: str, data: bytes) -> None:
        async with gate:
            statuses.append((kind, await raw_status(ctx.port, source(7, index % 4), data), data))

    await asyncio.gather(*(send(i, kind, data) for i, (kind, data) in enumerate(raw)))
    http = session(source(7, 5), total=10)
    for kind, method, path, options in aiohttp_requests(rng, ctx.size.fuzz // 10, seat.room):
        try:
            async with http.request(method, ctx.url + path, **options) as reply:
                await reply.read()
                statuses.append((kind, reply.status, f"{method} {path}".encode()))
        except (TimeoutError, aiohttp.ClientError):
            statuses.append((kind, None, f"{method} {path}".encode()))
        except ValueError:
            pass  # aiohttp itself would not send it
    await http.close()
    classes = Counter(f"{s // 100}xx" if s else "none" for _k, s, _d in statuses)
    by_kind: dict[str, Counter] = {}
    for kind, status, _data in statuses:
        by_kind.setdefault(kind, Counter())[str(status)] += 1
    errors = [data[:100].decode("latin-1") for _k, status, data in statuses if status == 500]
    result = {
        "requests": len(statuses),
        "by_class": dict(sorted(classes.items())),
        "status_500": len(errors),
        "by_kind": {kind: dict(found) for kind, found in by_kind.items()},
        "examples_500": errors[:3],
    }
    result["ok"] = not errors
    line = f"{len(statuses)} requests: " + ", ".join(f"{k} {n}" for k, n in sorted(classes.items()))
    return result, line + f"; {len(errors)} answered 500"


CRLF_NEXT = [
    "/%0d%0aSet-Cookie:%20a=b", "%0d%0a", "/%0aX-A:%20b", "/%0d", "/r/x%0D%0A%0D%0A<b>",
    "%0D%0ALocation:%20//evil.test", "/%E5%98%8A%E5%98%8D", "/%c0%8d%c0%8a", "/\\%0d%0a",
]  # fmt: skip
BAD_HOSTS = [
    "a..b", "a..b:{port}", "..", ".", "a.", ".a", "x" * 64 + ".test", "a." + "b" * 63, "c" * 300,
    "c" * 300 + ":{port}", "127.0.0.1..:{port}", "a" * 64, "a" * 254, "127.0.0.1:{port}:1",
    "[::1", "ex ample", "", "\u00e9..t", "a.b.:{port}",
]  # fmt: skip
WS_DROPS = [
    ("Sec-WebSocket-Version",), ("Sec-WebSocket-Key",),
    ("Sec-WebSocket-Version", "Sec-WebSocket-Key"), ("Upgrade",), ("Connection",),
]  # fmt: skip
METHODS = [
    "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "PROPFIND", "get", "G T",
    "\x00",
]  # fmt: skip
PATHS = [
    "/", "/help", "/healthz", "/rooms", "/computer", "/r/{room}", "/r/{room}/play",
    "/r/{room}/join", "/r/{room}/level", "/r/{room}/record.jsonl", "/r/{room}/ws",
    "/r/{room}/new-round", "/lang/fr", "/static/app.js", "/r/x", "/nope",
]  # fmt: skip
JUNK_HEADERS = [
    "Cookie: seat={junk}; lang={junk}; session={junk}", "Accept-Language: {junk}",
    "Content-Type: {junk}", "X-Tab: {junk}", "X-CSRFToken: {junk}", "HX-Request: {junk}",
    "Origin: {junk}", "Content-Length: -1", "Content-Length: abc", "Content-Length: 99999999999",
    "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked", "Expect: 100-continue",
    "Range: bytes={junk}", "X-Forwarded-For: {junk}", "NoColon", " Folded: x", "Bad Name: x",
    "X-Big: " + "b" * 9000, "Connection: {junk}", "Upgrade: websocket",
]  # fmt: skip


def junk(rng: random.Random, longest: int = 40) -> str:
    """Random text: printable, percent signs, quotes, unicode, control characters."""
    alphabet = "abcXYZ019%;,=/\\.?#&'\"<> \t\u00e9\u2028\U0001f600\x7f"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(longest)))


def request_bytes(method: str, target: str, headers: list[str], body: bytes = b"") -> bytes:
    head = f"{method} {target} HTTP/1.1\r\n" + "".join(h + "\r\n" for h in headers)
    return head.encode("utf-8", "surrogateescape") + b"\r\n" + body


def raw_requests(rng: random.Random, count: int, port: int, room: str, cookie: str) -> list:
    """(kind, bytes) of malformed requests: the three of issue 12, then random ones."""
    host, close = f"Host: 127.0.0.1:{port}", "Connection: close"
    out = []
    for i in range(count // 15):
        nxt = CRLF_NEXT[i % len(CRLF_NEXT)]
        code = rng.choice(["en", "fr", "nl", "pl", "xx", "e%0d%0an"])
        out.append(("lang_crlf", request_bytes("GET", f"/lang/{code}?next={nxt}", [host, close])))
    for i in range(count // 10):
        bad = BAD_HOSTS[i % len(BAD_HOSTS)].format(port=port)
        path = rng.choice(
            ["/", "/nope", "/help", "/r/zzzzzzzzzzzzzzzzzz", f"/r/{room}", "/lang/fr"]
        )
        out.append(
            (
                "host_label",
                request_bytes(rng.choice(["GET", "POST"]), path, [f"Host: {bad}", close]),
            )
        )
    for i in range(count // 15):
        drop = WS_DROPS[i % len(WS_DROPS)]
        out.append(("ws_handshake", handshake(port, room, "1.a", cookie, drop)))
    while len(out) < count - count // 10:
        out.append(("random", random_request(rng, host, room)))
    return out


def random_request(rng: random.Random, host: str, room: str) -> bytes:
    path = rng.choice(PATHS).format(room=room)
    if rng.random() < 0.5:
        path += rng.choice(["?", "/", "%", "?seq=", "/..", "%00", "%ff%fe", "?select="]) + junk(rng)
    if rng.random() < 0.05:
        path += "x" * rng.randrange(2000, 10000)
    headers = [host] if rng.random() < 0.9 else []
    headers += [h.format(junk=junk(rng)) for h in rng.sample(JUNK_HEADERS, rng.randrange(4))]
    body = b""
    if rng.random() < 0.5:
        body = rng.choice([b"seq=abc&tile=9-9&end=up", b"\xff\xfe\x00", os.urandom(64), b"0\r\n"])
        if not any(h.startswith(("Content-Length", "Transfer-Encoding")) for h in headers):
            headers.append(f"Content-Length: {len(body)}")
    method = rng.choice(METHODS)
    data = request_bytes(method, path, headers, body)
    if rng.random() < 0.05:  # an old or a made-up protocol version
        data = data.replace(b"HTTP/1.1", rng.choice([b"HTTP/1.0", b"HTTP/2.0", b"HTTP/9", b""]), 1)
    return data


def aiohttp_requests(rng: random.Random, count: int, room: str) -> list:
    """(kind, method, path, options) of odd but well-formed requests, sent with aiohttp."""
    out = []
    for _ in range(count):
        path = rng.choice(PATHS).format(room=room).replace("/ws", "/play")
        fields = {junk(rng, 10): junk(rng) for _ in range(rng.randrange(4))}
        fields |= rng.choice([{}, {"seq": junk(rng, 5)}, {"tile": junk(rng, 5), "end": "up"}])
        headers = {"Cookie": f"seat={junk(rng)}", "X-Tab": junk(rng), "HX-Request": "true"}
        headers = {k: "".join(c for c in v if " " <= c < "\x7f") for k, v in headers.items()}
        options = {"data": fields, "headers": headers, "params": {junk(rng, 8): junk(rng)}}
        if rng.random() < 0.3:
            options = {"json": fields, "headers": headers}
        out.append(("aiohttp", rng.choice(["GET", "POST", "PUT", "DELETE"]), path, options))
    return out


async def raw_status(port: int, address: str, data: bytes) -> int | None:
    """Send one raw request, then end the stream; the status of the reply, if any."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), 5
        )
    except (OSError, TimeoutError):
        return None
    try:
        writer.write(data)
        writer.write_eof()
        return final_status(await read_reply(reader, 5))
    except OSError:
        return None
    finally:
        writer.close()


async def read_reply(reader: asyncio.StreamReader, seconds: float) -> bytes:
    """What the server sends until it closes, for at most `seconds` (and 64 KB)."""
    data, end = b"", time.monotonic() + seconds
    while len(data) < 65536 and not data.startswith(b"HTTP/1.1 101"):
        try:
            more = await asyncio.wait_for(reader.read(65536), end - time.monotonic())
        except (OSError, TimeoutError):  # e.g. reset after a reply, for a body left unread
            break
        if not more:
            break
        data += more
    return data


def refused_at_once(conn: dict) -> bool:
    """A connection closed with no answer right after it opened (a refusal whose 503 was lost)."""
    closed = conn["closed"]
    return (
        conn["status"] is None and closed is not None and closed - conn["opened"] < REFUSED_WITHIN
    )


def final_status(data: bytes) -> int | None:
    """The status of a reply, past any 100 Continue before it."""
    while found := re.match(rb"HTTP/\d\.\d (\d{3})", data):
        data = data.partition(b"\r\n\r\n")[2]
        if found[1] != b"100" or not data:
            return int(found[1])
    return None


RUNS = {f.__name__: f for f in (supersede, big_message, slow_bodies, record_downloads,
                                computer_rooms, fuzz)}  # fmt: skip
# The same downloads with the server's rate limits off: what serving a record costs.
RUNS["record_downloads_unlimited"] = record_downloads
PUSH_LIMIT_MS = {
    "slow_bodies": 100,
    "record_downloads": 100,
    "record_downloads_unlimited": 100,
    "computer_rooms": 50,
}


def run_attack(name: str, args) -> tuple[dict, list[str]]:
    """Start a fresh server and the honest room, run one attack, stop both."""
    with tempfile.TemporaryDirectory(prefix="domino-abuse-") as tmp:
        db = Path(tmp) / "abuse.sqlite3"
        prepared = None
        if name.startswith("record_downloads"):
            prepared = prepare_records(db, args.app_dir, args.size.record_rounds)
        env = {
            "DOMINO_PING_SECONDS": f"{PING_SECONDS:g}",
            "DOMINO_REQUEST_TIMEOUT": str(args.size.timeout),
            "DOMINO_BOT_DELAY_MS": "0",
            "PYTHONPATH": str(args.app_dir),
        }
        if args.size.cap is not None:
            env["DOMINO_MAX_CONNECTIONS_PER_ADDRESS"] = str(args.size.cap)
        app = Server.UNLIMITED if name.endswith("_unlimited") else "app:create_app()"
        server = Server(db, free_port(), app=app, env=env, root=args.app_dir)
        server.start()
        honest = None
        started = time.monotonic()
        try:
            honest = Honest(server.url)
            ctx = SimpleNamespace(
                url=server.url, port=server.port, worker=worker_pid(server.proc.pid),
                size=args.size, db=db, prepared=prepared, watch=honest.go,
            )  # fmt: skip
            try:
                result, line = asyncio.run(RUNS[name](ctx))
            except Exception as error:  # the attack could not run to its end: a finding too
                result, line = {"ok": False, "error": repr(error)[:300]}, f"failed: {error!r}"
            found = honest.stop()
        finally:
            if honest is not None and honest.proc.is_alive():
                honest.proc.terminate()
            server.kill()
    result["seconds"] = round(time.monotonic() - started, 1)
    result.update(honest_figures(found, honest.ready))
    if name in PUSH_LIMIT_MS:
        result["ok"] = result.get("ok", True) and honest_ok(result, PUSH_LIMIT_MS[name])
    h = result
    lines = [
        line,
        f"healthz p50/p99 {h['healthz_p50_ms']}/{h['healthz_p99_ms']} ms "
        f"({h['healthz_failed']} failed); other room's push p50/p99 {h['push_p50_ms']}/"
        f"{h['push_p99_ms']} ms over {h['honest_moves']} moves",
    ]
    if h["honest_errors"]:
        lines.append(f"other room's errors: {h['honest_errors']}")
    return result, lines


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated attacks: " + ", ".join(ATTACKS))
    parser.add_argument("--small", action="store_true", help="a quick version (under a minute)")
    parser.add_argument("--json-only", action="store_true", help="print only the JSON line")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="where gunicorn runs")
    args = parser.parse_args(argv)
    args.attacks = ATTACKS
    if args.only:
        args.attacks = tuple(name.strip() for name in args.only.split(",") if name.strip())
        unknown = [name for name in args.attacks if name not in ATTACKS]
        if unknown or not args.attacks:
            parser.error(f"unknown attack(s) {unknown}; choose from {', '.join(ATTACKS)}")
    args.app_dir = args.app_dir.resolve()
    if not (args.app_dir / "gunicorn.conf.py").is_file() or not (args.app_dir / "app.py").is_file():
        parser.error(f"--app-dir {args.app_dir} holds no gunicorn.conf.py and app.py")
    args.size = SMALL if args.small else FULL
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    raise_open_files(4 * args.size.bodies + 4000)
    os.environ.pop("DOMINO_PROXIES", None)  # not behind a proxy: the server sees each address
    results = {}
    for name in args.attacks:
        result, lines = run_attack(name, args)
        results[name] = result
        if not args.json_only:
            verdict = "ok" if result["ok"] else "FAILED"
            print(f"{name:<17} {verdict:<6} {lines[0]} ({result['seconds']} s)")
            for more in lines[1:]:
                print(f"{'':<24} {more}")
            sys.stdout.flush()
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
