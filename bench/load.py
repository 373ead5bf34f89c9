"""Load bench: many friend rooms played for real against the production server, with figures.

    .venv/bin/python -m bench.load [--rooms 2000] [--seconds 60] [--think 2,8] [--seed 2026]
                                   [--computer N] [--level hard] [--four N]
                                   [--sync-delay-ms N] [--app-dir DIR] [--cluster N]

Starts the server as `make serve` does (gunicorn.conf.py: one gevent worker) on a free loopback
port and a temporary database, configured as behind one reverse proxy (DOMINO_PROXIES=1) with
its rate limits on; each browser sends its own address in X-Forwarded-For, as the proxy would
(--unlimited turns the limits off, to see what they cost). --think 0,0 plays at saturation:
every seat acts the moment its table lets it, and the limits stay checked, set high enough
never to refuse (SATURATION_LIMITS). --sync-delay-ms N makes every sync of the store's writer
take N ms longer (DOMINO_SYNC_DELAY_MS: a slow disk). --app-dir runs the server of another
checkout (e.g. a git worktree of an older commit) with this client: bench/compare.py does so
to put two commits side by side; an older store without the setting is slowed down by
bench/shim/slowdisk.py instead. Then, as browsers would:

1. seats R friend rooms: the home page, POST /rooms, the invitation page and its join, each
   seat's room page (its tab id and CSRF token), then each seat's websocket, offering
   permessage-deflate like a browser;
2. reads the worker's RSS with every room idle (both sockets open, nobody moving);
3. plays for --seconds: in each room the seat to move waits a think time (uniform over --think
   seconds) and acts through the real HTTP endpoint, choosing among the buttons its own table
   offers (a tile that fits both ends is selected first, as a click does, then laid). The
   time from sending the action to the other seat's socket receiving the table with the new
   seq is the push latency. Finished rounds are asked for and accepted again. Meanwhile a probe
   requests GET /healthz, a bare Flask endpoint, 20 times a second: the floor;
4. waits for the pushes in flight, then reads the stored log: every acknowledged action's
   event must be there. With --leaks, every table each seat received (pages, replies, pushed
   frames) is also checked, against the round as it stood at that table's seq, for tiles that
   seat may not see (bench/leaks.py's rule); a leak counts as an error.

With --cluster N the same load goes through nginx in front of N shards, each with its
Litestream replication, as `make cluster` runs them (bench/loadcluster.py): nginx believes the
client's X-Forwarded-For, so each browser still counts under the limits on its own. The worker
figures are then the shards' workers' together (RSS, cpu_ms_per_action), the stored log is
every shard's, and the JSON line adds "shards", "per_shard" (by name: its "rooms", "moves",
its worker's "cpu_pct" of one core and "cpu_ms_per_action" for its rooms' actions),
"nginx_cpu_pct" (its workers), "litestream_cpu_pct" (all shards') and "client_cpu_pct".

With --computer N, N computer rooms (at --level) are seated beside the friend rooms, one
browser each, its player thinking as a friend room's seats do. The computer decides in the
server's process pool and moves after the server's pause (DOMINO_BOT_DELAY_MS, 0 here); the
time from the player's move to the computer's move reaching the player's socket is reported
apart (computer_p50_ms, computer_p99_ms, with computer_moves), never mixed into p50_ms/p99_ms.

With --four N, N four-seat rooms (the `pairs` preset: partners opposite, a block game played
to 100) are seated beside them, four browsers each: the host creates the room with the preset,
three guests join through the invitation in turn, each opens its page and its socket. They play
as the two-seat rooms do; at a round's end every seat presses its own "new-round". Every move
is pushed to the three other seats, and each of those pushes is timed, reported apart
(four_p50_ms, four_p99_ms over four_pushes, for four_moves actions). Without --four nothing
changes: p50_ms, p99_ms and --trace are the two-seat rooms' own in any case.

cost_ratio is the median move -> push latency over the median bare-endpoint round trip, both
measured from this client in the same run; rss_per_room_kb is the worker's growth per room
after play (the table also gives it with every room idle); cpu_ms_per_action is the worker's
CPU time (user and system, all its threads) over the play, divided by the actions it
acknowledged, and actions_per_s their rate. Prints a table, then one JSON line:

    {"rooms", "moves", "errors", "lost", "p50_ms", "p99_ms", "floor_p50_ms", "cost_ratio",
     "rss_per_room_kb", "actions_per_s", "cpu_ms_per_action"}, and with --computer:
     "computer_rooms", "computer_moves", "computer_p50_ms", "computer_p99_ms"; with --four:
     "four_rooms", "four_moves", "four_pushes", "four_p50_ms", "four_p99_ms"; with --cluster:
     "shards", "per_shard", "nginx_cpu_pct", "litestream_cpu_pct", "client_cpu_pct"
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.loadclient import Browser, Tally, choose
from bench.loadcluster import (
    Target,
    cluster_env,
    cpu_seconds,
    one_server,
    rss_kb,
    shard_report,
    sharded,
    worker_pid,
)
from tests.support.faults import Server, free_port
from tests.support.shards import SATURATION_LIMITS

PUSH_WAIT = 10.0  # seconds a push may take before it counts as missed
SETUP_AT_ONCE = 32
BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
# At saturation every seat acts as fast as it can: each limit is still checked on every
# request, set far above what the run can reach (shards.SATURATION_LIMITS).


class Room:
    """The browsers at one table, by seat: two or four, or one against the computer."""

    def __init__(self, seats: list[Browser]) -> None:
        self.id = seats[0].room
        self.seats = tuple(seats)

    @property
    def seq(self) -> int:
        return max(seat.seq for seat in self.seats)


# bench/abuse.py, honest.py and socket_attacks.py take these from here.
__all__ = ["Run", "cpu_seconds", "quantile", "raise_open_files", "rss_kb", "worker_pid"]


class Run:
    """One load run: set up, measure idle, play, check."""

    def __init__(self, args, url: str) -> None:
        self.args = args
        self.url = url
        self.rng = random.Random(args.seed)
        self.tally = Tally()
        self.acknowledged: set[tuple[str, int]] = set()
        self.floor: list[float] = []
        self.lag: list[float] = []
        self.workers = "worker"  # whose CPU and RSS the table gives: "shards' workers"
        self.cpu = 0.0  # share of one core while playing
        self.cpu_s = 0.0  # CPU seconds while playing
        self.client_cpu = 0.0  # this client's share of one core while playing
        self.leaks: tuple[int, int] | None = None  # (tables checked, leaks), with --leaks
        self.trace: list[tuple[float, float]] = []  # (wall clock, push latency), for --trace
        self.computer: list[float] = []  # player's move -> the computer's move pushed
        self.four: list[float] = []  # a four-seat room's move -> each other seat's push
        self.four_moves = 0

    async def seat_room(self, http, sockets, gate, size: int = 2) -> Room | None:
        """A friend room of `size` browsers (4: the `pairs` preset), seated in order."""
        async with gate:
            seats = [Browser(self.url, http) for _ in range(size)]
            for seat in seats if self.args.leaks else ():
                seat.kept = []
            try:
                await seats[0].create_room(preset="pairs" if size == 4 else None)
                for guest in seats[1:]:
                    await guest.join(seats[0].room)
                for seat in seats:
                    await seat.open_page()
                for seat in seats:
                    await seat.connect(sockets, self.args.deflate, self.tally)
                return Room(seats)
            except (TimeoutError, aiohttp.ClientError, AssertionError) as error:
                self.tally.error("setup", repr(error))
                for seat in seats:
                    await seat.close()
                return None

    async def seat_computer_room(self, http, sockets, gate) -> Room | None:
        async with gate:
            player = Browser(self.url, http)
            if self.args.leaks:
                player.kept = []
            try:
                await player.create_room(computer=self.args.level)
                await player.open_page()
                await player.connect(sockets, self.args.deflate, self.tally)
                return Room([player])
            except (TimeoutError, aiohttp.ClientError, AssertionError) as error:
                self.tally.error("setup", repr(error))
                await player.close()
                return None

    async def play(self, room: Room, until: float) -> None:
        """Take turns at a human pace until the deadline."""
        low, high = self.args.think
        await asyncio.sleep(self.rng.uniform(0, high))  # rooms do not start in step
        while time.monotonic() < until:
            found = choose(room.seats, self.rng)
            if found is None:  # the other seat's (or the computer's) move is due
                if not await self.wait_change(room, room.seq):
                    self.tally.error("stuck", f"{room.id}: no seat can act at seq {room.seq}")
                    return
                continue
            mover, action, fields = found
            await asyncio.sleep(self.rng.uniform(low, high))
            if time.monotonic() >= until:
                return
            await self.act(room, mover, action, fields)

    async def act(self, room: Room, mover: int, action: str, fields: dict) -> None:
        """One action; then time the push it causes: to the other seat, or the computer's."""
        seat = room.seats[mover]
        before = room.seq
        action, status, seq, start = await self.send(seat, action, fields)
        if status is None:
            return  # a selection that offered no end (counted as an error already)
        if status != 200:
            kind = f"{action} {status if isinstance(status, int) else 'failed'}"
            self.tally.error(kind, f"{room.id} {fields} at {before}: {status}")
            await asyncio.gather(*(s.refresh(self.tally) for s in room.seats))
            return
        self.acknowledged.add((room.id, seq))
        self.tally.actions[action] += 1
        if len(room.seats) == 1:  # against the computer: its answer, if its move is due
            acked = time.perf_counter()
            if choose(room.seats, self.rng) is None and await self.wait_push(seat, seq):
                self.computer.append(seat.changed_at - acked)
            return
        if len(room.seats) > 2:
            await self.time_pushes(room, mover, before, start)
            return
        other = next(seat for index, seat in enumerate(room.seats) if index != mover)
        if not await self.wait_push(other, before):
            self.tally.error("missed push", f"{room.id}: seq {seq} did not reach the other seat")
            await other.refresh(self.tally)
            return
        self.tally.latency.append(other.changed_at - start)
        self.trace.append((time.time(), other.changed_at - start))

    async def time_pushes(self, room: Room, mover: int, before: int, start: float) -> None:
        """Time a four-seat room's move to each other seat's socket."""
        others = [seat for index, seat in enumerate(room.seats) if index != mover]
        arrived = await asyncio.gather(*(self.wait_push(other, before) for other in others))
        self.four_moves += 1
        for other, came in zip(others, arrived, strict=True):
            if not came:
                self.tally.error("missed push", f"{room.id}: seq {before} + 1 missed a seat")
                await other.refresh(self.tally)
                continue
            self.four.append(other.changed_at - start)

    async def send(self, seat: Browser, action: str, fields: dict):
        """Act as a click does (a tile that fits both ends is selected first, then laid at an
        end): (action, status or None, the new seq, when the action was sent)."""
        start = time.perf_counter()
        try:
            if action == "select":
                found = await seat.select(fields["tile"], self.tally, self.rng)
                if found is None:
                    return action, None, None, start
                action, fields = found
                start = time.perf_counter()
            status, seq = await seat.post(action, fields, self.tally)
        except (TimeoutError, aiohttp.ClientError) as error:
            status, seq = repr(error), None
        return action, status, seq, start

    async def wait_push(self, seat: Browser, before: int) -> bool:
        end = time.monotonic() + PUSH_WAIT
        while seat.seq <= before:
            left = end - time.monotonic()
            if left <= 0 or seat.closed:
                return False
            seat.changed.clear()
            try:
                await asyncio.wait_for(seat.changed.wait(), left)
            except TimeoutError:
                return False
        return True

    async def wait_change(self, room: Room, seq: int) -> bool:
        end = time.monotonic() + PUSH_WAIT
        while room.seq <= seq and time.monotonic() < end:
            await asyncio.sleep(0.05)
        return room.seq > seq

    async def probe_floor(self, http, until: float) -> None:
        """GET /healthz 20 times a second: the bare endpoint's round trip."""
        while time.monotonic() < until:
            start = time.perf_counter()
            async with http.get(self.url + "/healthz") as reply:
                await reply.read()
                if reply.status == 200:
                    self.floor.append(time.perf_counter() - start)
            await asyncio.sleep(0.05)

    async def watch_loop(self, until: float) -> None:
        """How late this client's own event loop wakes (it adds to every latency it measures)."""
        while time.monotonic() < until:
            start = time.perf_counter()
            await asyncio.sleep(0.1)
            self.lag.append(time.perf_counter() - start - 0.1)


async def main_async(args, target: Target) -> dict:
    run = Run(args, target.url)
    if target.sharded:
        run.workers = f"{len(target.workers)} shards' workers"
    http = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=128),
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=aiohttp.ClientTimeout(total=30),
    )
    sockets = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0), cookie_jar=aiohttp.DummyCookieJar()
    )
    gate = asyncio.Semaphore(SETUP_AT_ONCE)
    try:
        warm = [
            r
            for r in await asyncio.gather(*(run.seat_room(http, sockets, gate) for _ in range(10)))
            if r
        ]
        for room in warm:
            for seat in room.seats:
                await seat.close()
        await asyncio.sleep(1)
        base = target.rss_kb()
        started = time.monotonic()
        rooms = await asyncio.gather(
            *(run.seat_room(http, sockets, gate) for _ in range(args.rooms))
        )
        rooms = [room for room in rooms if room is not None]
        against = await asyncio.gather(
            *(run.seat_computer_room(http, sockets, gate) for _ in range(args.computer))
        )
        against = [room for room in against if room is not None]
        fours = await asyncio.gather(
            *(run.seat_room(http, sockets, gate, 4) for _ in range(args.four))
        )
        fours = [room for room in fours if room is not None]
        setup_s = time.monotonic() - started
        # This client's own collector must not pause the loop that times the server: it
        # collects now, then not at all while it plays (a minute's garbage is some MB).
        gc.collect()
        gc.disable()
        await asyncio.sleep(2)
        idle = target.rss_kb()
        until = time.monotonic() + args.seconds
        play_start, cpu_start = time.monotonic(), target.cpu()
        client_start = time.process_time()
        probes = [run.probe_floor(http, until), run.watch_loop(until)]
        await asyncio.wait_for(
            asyncio.gather(
                *(run.play(room, until) for room in rooms),
                *(run.play(room, until) for room in against),
                *(run.play(room, until) for room in fours),
                *probes,
            ),
            args.seconds + 3 * PUSH_WAIT,
        )
        played_s = time.monotonic() - play_start
        gc.enable()
        used = {name: seconds - cpu_start[name] for name, seconds in target.cpu().items()}
        run.cpu_s = sum(used[name] for name in target.workers)
        run.cpu = run.cpu_s / played_s
        run.client_cpu = (time.process_time() - client_start) / played_s
        after = target.rss_kb()
        for room in rooms + against + fours:
            run.tally.errors += sum(seat.dropped for seat in room.seats)
    finally:
        for session in (http, sockets):
            await session.close()
    if args.trace:
        with open(args.trace, "w") as out:
            out.writelines(f"{when:.4f} {took * 1000:.2f}\n" for when, took in run.trace)
    if args.leaks:  # the leak scanner's rule, on what each seat kept
        run.leaks = target.leaks(rooms + against + fours)
        run.tally.errors += run.leaks[1]
    lost = target.lost(run.acknowledged)
    seated = (len(rooms), len(fours))
    result = report(args, run, seated, setup_s, played_s, base, idle, after, lost)
    if args.computer:
        result.update(computer_report(run, len(against)))
    if args.four:
        result.update(four_report(run, len(fours)))
    if target.sharded:
        result.update(shard_report(target, used, played_s, run, rooms + against + fours))
    return result


def computer_report(run: Run, rooms: int) -> dict:
    """The computer rooms' figures: how soon the computer's move reached its player."""
    p50, p99 = (round(quantile(run.computer, q) * 1000, 2) for q in (0.5, 0.99))
    print(f"computer rooms {rooms}: {len(run.computer)} replies, p50 / p99 {p50} / {p99} ms")
    return {
        "computer_rooms": rooms,
        "computer_moves": len(run.computer),
        "computer_p50_ms": p50,
        "computer_p99_ms": p99,
    }


def four_report(run: Run, rooms: int) -> dict:
    """The four-seat rooms' figures: how soon a move reached each of the other three seats."""
    return {
        "four_rooms": rooms,
        "four_moves": run.four_moves,
        "four_pushes": len(run.four),
        "four_p50_ms": round(quantile(run.four, 0.5) * 1000, 2),
        "four_p99_ms": round(quantile(run.four, 0.99) * 1000, 2),
    }


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(args, run: Run, seated, setup_s, played_s, base, idle, after, lost) -> dict:
    """Print the table; the figures of the JSON line. `seated`: the two- and four-seat rooms
    seated (the RSS per room counts both)."""
    t = run.tally
    ms = lambda values, q: round(quantile(values, q) * 1000, 2)  # noqa: E731
    p50, p99, floor = ms(t.latency, 0.5), ms(t.latency, 0.99), ms(run.floor, 0.5)
    rooms, fours = seated
    per_idle = (idle - base) / max(rooms + fours, 1)
    per_room = (after - base) / max(rooms + fours, 1)
    four = f"{fours} of {args.four}" if args.four else None
    cpu_ms = run.cpu_s * 1000 / max(t.moves, 1)
    rows = [
        ("rooms seated (2 sockets each)", f"{rooms} of {args.rooms} in {setup_s:.1f} s"),
        *([("four-seat rooms seated (4 sockets each)", four)] if four else []),
        ("think time per action", f"{args.think[0]:g}-{args.think[1]:g} s"),
        ("actions acknowledged", f"{t.moves} in {played_s:.1f} s ({t.moves / played_s:.1f}/s)"),
        ("actions by kind", ", ".join(f"{k} {n}" for k, n in sorted(t.actions.items()))),
        ("move -> other seat's push p50 / p99 / max", f"{p50} / {p99} / {ms(t.latency, 1.0)} ms"),
        *(
            [("four seats: move -> each push p50 / p99 / max", _spread(ms, run.four))]
            if four
            else []
        ),
        ("move reply (HTTP) p50 / p99", f"{ms(t.reply, 0.5)} / {ms(t.reply, 0.99)} ms"),
        ("bare endpoint p50 / p99", f"{floor} / {ms(run.floor, 0.99)} ms ({len(run.floor)})"),
        (
            "client loop lag p50 / p99 / max",
            f"{ms(run.lag, 0.5)} / {ms(run.lag, 0.99)} / {ms(run.lag, 1.0)} ms",
        ),
        (f"{run.workers} CPU while playing", f"{run.cpu:.0%} of one core"),
        (f"{run.workers} CPU per acknowledged action", f"{cpu_ms:.3f} ms"),
        ("this load client's CPU while playing", f"{run.client_cpu:.0%} of one core"),
        *(
            [("tables checked for hidden tiles / leaks", f"{run.leaks[0]} / {run.leaks[1]}")]
            if run.leaks is not None
            else []
        ),
        ("errors / lost", f"{t.errors} / {lost}"),
        (f"{run.workers} RSS base / idle / after play", f"{base} / {idle} / {after} KB"),
        ("RSS per idle room / per room after play", f"{per_idle:.1f} / {per_room:.1f} KB"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    for kind, examples in t.examples.items():
        print(f"  {kind}: {t.kinds[kind]}, e.g. {examples[0]}")
    return {
        "rooms": rooms,
        "moves": t.moves,
        "errors": t.errors,
        "lost": lost,
        "p50_ms": p50,
        "p99_ms": p99,
        "floor_p50_ms": floor,
        "cost_ratio": round(p50 / floor, 2) if floor else None,
        "rss_per_room_kb": round(per_room, 1),
        "actions_per_s": round(t.moves / played_s, 1),
        "cpu_ms_per_action": round(cpu_ms, 3),
    }


def _spread(ms, values: list[float]) -> str:
    return f"{ms(values, 0.5)} / {ms(values, 0.99)} / {ms(values, 1.0)} ms"


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--think",
        type=lambda text: tuple(float(x) for x in text.split(",")),
        default=(2.0, 8.0),
        help="low,high seconds a seat thinks before each action (uniform)",
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--trace", help="write each move's wall-clock time and push latency (ms) here"
    )
    parser.add_argument(
        "--leaks",
        action="store_true",
        help="keep every table each seat receives and check it for tiles it may not see",
    )
    parser.add_argument(
        "--unlimited", action="store_true", help="run the server without its rate limits"
    )
    parser.add_argument("--no-deflate", dest="deflate", action="store_false")
    parser.add_argument(
        "--sync-delay-ms",
        type=float,
        default=0.0,
        help="add this many ms to every sync of the store's writer (a slow disk)",
    )
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="the checkout to serve")
    parser.add_argument(
        "--computer", type=int, default=0, help="computer rooms to seat beside the friend rooms"
    )
    parser.add_argument(
        "--cluster",
        type=int,
        default=0,
        metavar="N",
        help="load N shards behind nginx (with their Litestream), not the one server",
    )
    parser.add_argument("--level", default="hard", choices=("easy", "medium", "hard"))
    parser.add_argument(
        "--four", type=int, default=0, help="four-seat (pairs) rooms to seat beside the others"
    )
    args = parser.parse_args(argv)
    if args.rooms < 1 or args.seconds <= 0 or len(args.think) != 2:
        parser.error("--rooms and --seconds must be positive, --think is low,high")
    if args.four < 0 or args.computer < 0 or args.sync_delay_ms < 0:
        parser.error("--four, --computer and --sync-delay-ms cannot be negative")
    if args.cluster < 0:
        parser.error("--cluster takes a number of shards")
    args.app_dir = args.app_dir.resolve()
    if args.cluster and (args.unlimited or args.app_dir != ROOT):
        parser.error("--cluster runs this checkout's shards, with their rate limits")
    if not (args.app_dir / "gunicorn.conf.py").is_file():
        parser.error(f"--app-dir {args.app_dir} holds no gunicorn.conf.py")
    return args


def server_for(args, db: Path) -> Server:
    """The server to load: as in production behind one proxy (rate limits on, counted per
    player's address: each browser here sends its own X-Forwarded-For)."""
    env = {"DOMINO_PROXIES": "1", "PYTHONPATH": f"{args.app_dir}{os.pathsep}{BENCH / 'shim'}"}
    config = dict(SATURATION_LIMITS) if args.think[1] == 0 else {}
    if args.unlimited:
        config = {"RATELIMIT_ENABLED": False}
    factory = "app:create_app"
    if args.sync_delay_ms:
        env["DOMINO_SYNC_DELAY_MS"] = str(args.sync_delay_ms)
        factory = "slowdisk:create_app"  # the setting itself, or a stand-in for older code
    return Server(db, free_port(), app=f"{factory}({config!r})", env=env, root=args.app_dir)


def raise_open_files(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


def main(argv=None) -> int:
    args = parse_args(argv)
    raise_open_files(4 * args.rooms + 2 * args.computer + 8 * args.four + 2000)
    with tempfile.TemporaryDirectory() as tmp:
        if args.cluster:
            served = sharded(args.cluster, Path(tmp), cluster_env(args))
        else:
            served = one_server(server_for(args, Path(tmp) / "load.sqlite3"))
        with served as target:
            result = asyncio.run(main_async(args, target))
    print(json.dumps(result))
    return 0 if result["errors"] == 0 and result["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
