"""The abuse bench's honest room: a friend room played from 127.0.0.1 while an attack runs.

It runs in its own process so that the attackers' work does not delay it: two seats with real
websockets, a move every 0.2-0.5 s through the real endpoints (bench/load.py's Run), and
GET /healthz 20 times a second. Its figures are the latencies it saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import multiprocessing
import time
from collections import Counter
from types import SimpleNamespace

import aiohttp

from bench.load import Run, quantile
from bench.wire import session


def ms(values: list[float], q: float) -> float | None:
    """The `q` quantile of durations in seconds, in milliseconds (None if none)."""
    return None if not values else round(quantile(values, q) * 1000, 2)


def honest_main(url: str, pipe) -> None:
    """The honest room's process: run it until told to stop."""
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
    """Play the room's moves, refreshing its seats whenever it is stuck."""
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
        """What the room's process sent, waiting at most `seconds` (None if nothing)."""
        try:
            return self.pipe.recv() if self.pipe.poll(seconds) else None
        except (EOFError, OSError):
            return None

    def go(self) -> None:
        """Start timing (once)."""
        if not self.started:
            self.started = True
            with contextlib.suppress(OSError):
                self.pipe.send("go")

    def stop(self) -> dict:
        """Stop the room; its samples, or empty ones if it did not answer."""
        self.go()
        with contextlib.suppress(OSError):
            self.pipe.send("stop")
        found = self.receive(30)
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.terminate()
        return found or {"health": [], "health_failed": 0, "push": [], "moves": 0, "errors": {}}


def honest_figures(found: dict, ready: str) -> dict:
    """The honest room's latencies and errors, as figures of the attack."""
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
