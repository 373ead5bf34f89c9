"""The abuse bench's HTTP attacks: dripping requests, record downloads, busy computer rooms.

Each attack takes the run's context and returns (figures, one line of summary).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import aiohttp

from bench.honest import ms
from bench.loadclient import Browser, Tally, choose
from bench.wire import close_browsers, session, source

CLOSE_MARGIN = 5.0  # seconds past DOMINO_REQUEST_TIMEOUT a dripping connection may stay
REFUSED_WITHIN = 1.0  # a connection closed this soon after it opened was refused at once
DRIP_EVERY = 10.0
ACT_GAP = 0.55  # seconds between a computer-room human's actions: under 120 a minute


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


def refused_at_once(conn: dict) -> bool:
    """A connection closed with no answer right after it opened (a refusal whose 503 was lost)."""
    closed = conn["closed"]
    return (
        conn["status"] is None and closed is not None and closed - conn["opened"] < REFUSED_WITHIN
    )


PREPARE = """
import json, random, sys
from domino import commands, game
from domino.events import DRAW, Play
from domino.room import new_secret
from domino.store.cache import Rooms
from domino.store import Store

store = Store(sys.argv[1])
store.db.execute("PRAGMA synchronous=OFF")
rooms, rng = Rooms(store, random.Random(1)), random.Random(2)
room, secret = rooms.create("friend")
room = rooms.commit(commands.join(room, None, new_secret, None, rooms.rng)[0])
both, rounds = frozenset({0, 1}), 0


def act(room, seat, action, params):
    decision = commands.act(room, seat, action, params, both, room.seq, rooms.rng)
    return rooms.commit(decision)


while rounds < int(sys.argv[2]):
    state = room.round
    if state.over:
        room = act(room, 0, "new-round", {})
        room = act(room, 1, "accept-new-round", {})
        continue
    move = rng.choice(game.legal_actions(state, state.turn))
    if isinstance(move, Play):
        action, params = "play", {"tile": str(move.tile), "end": move.end}
    else:
        action, params = ("draw" if move == DRAW else "pass"), {}
    room = act(room, state.turn, action, params)
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
    """Act in one computer room as soon as its table and the rate limit allow."""
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
