"""The abuse bench's pool attacks: the computer's decisions, round reviews, a stand-in's re-deals.

Each attack takes the run's context (bench/abuse.py) and returns (figures, one line of summary).

- decision_flood: one address with `flood_rooms` computer rooms at `hard` switches each room's
  level (easy, hard, easy...) whenever the computer is to move, and moves when it may, as fast
  as each seat's rate limit allows (one request after another until a 429, then its
  Retry-After: RATELIMIT_ACT's 120 a minute come in bursts, one per window); every switch is a
  new position for the computer to decide. Meanwhile an honest player from 127.0.0.1 plays a
  room of its own at `hard` and times each computer reply: from its move's acknowledgement to
  the table (on its socket) in which the turn comes back (or the round is over). After the
  flood every room is polled (GET /r/<id> with HX-Request, never a reload, which would nudge
  the computer): a room whose table does not come back to its player (or to the round's end)
  within SETTLE_S is stuck. The decisions' pool's idle time after the flood is a figure too.
- review_flood: one address with `reviews` finished rounds (computer rooms at `easy` played to
  the end) asks for every review and polls every one each second; another address asks for
  `abandoned` reviews once and never polls. The honest player's review (127.0.0.1, its own
  round) is timed alone first (twice: the first also starts the review pool; the second, on a
  warm pool, is the figure), then under the flood: the bench deletes its stored review from
  the database between runs, so the server weighs the very same round again. The flood lasts
  until the honest review is ready (at most `review_cap_s`) and `review_min_s` at least (so
  that the pollers' reviews were wanted a while), then the pollers stop at once;
  the review pool is idle once the CPU time of its processes (the worker's descendants at the
  review pool's niceness) has not grown for QUIET_S. The times are as the page sees them
  (polled each second, so in whole polls: 1.0, 2.0, 3.0 s...); the server's own record of when
  it stored the review (reviews.at) gives them without that rounding too (`*_stored_s`).
- stand_in_redeal: a friend table of two, both seated with live sockets, on a server whose
  AWAY_SECONDS is short; the guest's socket closes; once the host's table offers to hand the
  seat over, the host does (POST /r/<id>/computer seat=1 level=hard), then asks for a new
  round (`redeals` times, each with the table's current seq) and switches the stand-in's level
  (`level_switches` times). What was granted is read from the stored events (a "deal", a
  "level" of seat 1 after the hand-over), what was refused from the answers (a 4xx; a 200
  that dealt nothing, e.g. a request left waiting for the away player's word, is counted
  apart, with the "ask" events stored): nothing may be granted.

In both floods each attacker's room is created from an address of its own (a server may limit
the computer rooms one address creates: RATELIMIT_DEAL), then played and flooded from the
attacker's one address: the pools serve their work by the address that asked for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import re
import sqlite3
import time
from collections import Counter, defaultdict
from pathlib import Path

import aiohttp

from bench.http_attacks import ACT_GAP, computer_moves
from bench.load import quantile
from bench.loadclient import OVER, Browser, Tally, choose, seq_of
from bench.wire import close_browsers, session, source

TURN = re.compile(r'data-turn="(\w+)"')
STALE = "The table changed in the meantime"  # the "stale" refusal's words (English pages)
BUSY = "Many rounds are being reviewed"  # the review's "busy" words
ACT_LIMIT, LIMIT_WINDOW_S = 120, 60.0  # RATELIMIT_ACT, per seat (domino/web/guard/limits.py)
SETTLE_S = 30.0  # after a flood, every table is back to its player within this (the target)
REPLY_P99_S = 2.0  # the honest computer reply's p99 target under the decision flood
REVIEW_RATIO = 3.0  # the honest review under the flood may take this many times its time alone
IDLE_AFTER_S = 60.0  # the review pool is idle this soon after the flood's end (the target)
QUIET_S = 3.0  # a pool is idle once its processes' CPU time has not grown for this long
SAMPLE_S = 0.2
POLL_S = 1.0  # a review page polls its analysis every second (hx-trigger="every 1s")
STOP_POLLING = 286  # the analysis poll's answer once the review is ready
AWAY_SECONDS = 2.0  # DOMINO_AWAY_SECONDS for stand_in_redeal's server
SETUP_S = 180.0  # at most this long to play the review flood's rounds to their end
# The pools' processes lower their priority by these (domino/web/live/pools.py: NICENESS and
# REVIEW_NICENESS), from the worker's own niceness: that is how the bench tells them apart.
DECIDE_NICENESS, REVIEW_NICENESS = 10, 15


# -- The table, as a player sees it. --


def settled(text: str) -> bool:
    """True when the table waits on its own player: their turn, or the round over."""
    if OVER.search(text):
        return True
    found = TURN.search(text)
    return found is not None and found[1] == "you"


class Pace:
    """At most one action every `gap` seconds (a seat's rate limit)."""

    def __init__(self, gap: float) -> None:
        self.gap, self.last = gap, -math.inf

    async def wait(self) -> None:
        await asyncio.sleep(max(0.0, self.last + self.gap - time.monotonic()))
        self.last = time.monotonic()


async def send(human: Browser, action: str, fields: dict) -> tuple[int | str, str]:
    """POST an action as htmx does; (the status or the error's name, the answer's text). A
    refusal's Retry-After is kept in `human.retry_after`."""
    human.retry_after = 0.0
    try:
        status, text, headers = await human.request(
            "POST", f"/r/{human.room}/{action}", data=fields, headers=human._headers()
        )
    except (TimeoutError, aiohttp.ClientError) as error:
        return type(error).__name__, ""
    if status == 200:
        human.take(text, time.perf_counter())
    elif status == 429:
        human.retry_after = float(headers.get("Retry-After") or 1)
    return status, text


async def get(human: Browser, path: str, htmx: bool = False) -> tuple[int | str, str]:
    """GET one of the seat's pages; (the status or the error's name, its text)."""
    headers = {"HX-Request": "true"} if htmx else None
    try:
        status, text, _h = await human.request("GET", path, headers=headers)
    except (TimeoutError, aiohttp.ClientError) as error:
        return type(error).__name__, ""
    return status, text


async def move(human: Browser, found, tally: Tally, rng) -> tuple[int | str, str]:
    """Do what `choose` found (a tile that fits both ends is selected first)."""
    _seat, action, fields = found
    if action == "select":
        picked = await human.select(fields["tile"], tally, rng)
        if picked is None:
            return "select", ""
        action, fields = picked
    status, text = await send(human, action, fields)
    if status == 200:
        tally.actions[action] += 1
    else:
        tally.error(f"{action} {status}", human.room)
    return status, text


async def seat_computer_rooms(
    url: str, http, count: int, level: str, tally: Tally, made_from: int | None = None
):
    """`count` computer rooms at `level`, played from one HTTP session (one address), their
    sockets open. With `made_from`, each room is created from an address of its own in that
    block (a server may limit the computer rooms one address creates: RATELIMIT_DEAL), then
    played from `http`'s; else created from `http`'s too."""
    humans = [Browser(url, http) for _ in range(count)]
    for index, human in enumerate(humans):
        maker = http if made_from is None else session(source(made_from, index), total=30)
        human.http = maker
        try:
            await human.create_room(computer=level)
        finally:
            human.http = http
            if maker is not http:
                await maker.close()
        await human.open_page()
    for human in humans:
        await human.connect(http, False, tally)
    return humans


async def wait_settled(seat: Browser, seq: int, deadline: float) -> bool:
    """Wait until the seat's socket brings a table newer than `seq` that waits on the seat."""
    while not (seat.seq > seq and settled(seat.html)):
        left = deadline - time.monotonic()
        if left <= 0 or seat.closed:
            return False
        seat.changed.clear()
        if seat.seq > seq and settled(seat.html):
            break
        try:
            await asyncio.wait_for(seat.changed.wait(), left)
        except TimeoutError:
            return False
    return True


async def settle(human: Browser, deadline: float) -> tuple[float | None, bool]:
    """Poll the room's table (htmx's GET: no reload) until it waits on its player; (seconds it
    took, or None if it never did before `deadline`; whether it waited on the computer)."""
    start = time.monotonic()
    for polls in range(int(SETTLE_S / 0.5) + 3):
        status, text = await get(human, f"/r/{human.room}", htmx=True)
        if status == 200 and settled(text):
            return round(time.monotonic() - start, 2), polls > 0
        if time.monotonic() >= deadline:
            break
        await asyncio.sleep(0.5)
    return None, True


# -- The pools' processes. --


def processes() -> dict[int, tuple[int, int, float]]:
    """Every process: pid -> (parent pid, niceness, CPU seconds used)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat.rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick
        found[int(entry.name)] = (int(fields[1]), int(fields[16]), cpu)
    return found


def pool_nice(worker: int, offset: int) -> int:
    """The niceness of a pool's processes: the worker's, lowered by `offset` (at most 19)."""
    return min(19, processes()[worker][1] + offset)


def pool_cpu(worker: int, niceness: int) -> dict[int, float]:
    """The CPU seconds of each of the worker's descendants that runs at `niceness`."""
    table = processes()
    kids = defaultdict(list)
    for pid, (parent, _nice, _cpu) in table.items():
        kids[parent].append(pid)
    found, todo = {}, list(kids[worker])
    while todo:
        pid = todo.pop()
        todo.extend(kids[pid])
        if table[pid][1] == niceness:
            found[pid] = table[pid][2]
    return found


async def idle_after(worker: int, niceness: int, since: float, limit: float) -> float | None:
    """Seconds from `since` (monotonic) to the pool's last CPU growth, once it has not grown
    for QUIET_S; None if it still grew `limit` s after `since`."""
    before, grew = pool_cpu(worker, niceness), since
    for _ in range(int((limit + QUIET_S) / SAMPLE_S) + 10):
        await asyncio.sleep(SAMPLE_S)
        now, after = time.monotonic(), pool_cpu(worker, niceness)
        if any(cpu > before.get(pid, 0.0) for pid, cpu in after.items()):
            grew = now
        before = after
        if now - grew >= QUIET_S:
            return round(max(0.0, grew - since), 2)
        if now - since > limit + QUIET_S:
            break
    return None


# -- decision_flood --


async def decision_flood(ctx) -> tuple[dict, str]:
    """Level switches in computer rooms from one address; another room's computer replies."""
    size = ctx.size
    tally, honest_tally = Tally(), Tally()
    http = session(source(8), total=30)
    attackers = await seat_computer_rooms(ctx.url, http, size.flood_rooms, "hard", tally, 12)
    honest_http = session(total=30)  # 127.0.0.1
    honest = (await seat_computer_rooms(ctx.url, honest_http, 1, "hard", honest_tally))[0]
    decide_nice = pool_nice(ctx.worker, DECIDE_NICENESS)
    rng = random.Random(27)
    counts: Counter[str] = Counter()
    replies: dict = {"s": [], "unanswered": 0, "waited_s": 0.0}
    ctx.watch()
    started, began = time.time(), time.monotonic()
    until = began + size.flood_s
    honest_task = asyncio.create_task(honest_replies(honest, until, honest_tally, rng, replies))
    await asyncio.gather(
        *(flood_room(h, until, size.flood_s, tally, rng, counts) for h in attackers)
    )
    ended = time.monotonic()
    rooms = [honest, *attackers]
    _, settled_rooms, decide_idle = await asyncio.gather(
        honest_task,
        asyncio.gather(*(settle(room, ended + SETTLE_S) for room in rooms)),
        idle_after(ctx.worker, decide_nice, ended, size.pool_watch_s),
    )
    await close_browsers(rooms)
    await honest_http.close()
    stuck = sum(took is None for took, _waited in settled_rooms)
    waiting = sum(waited for _took, waited in settled_rooms)
    took = [t for t, _waited in settled_rooms if t is not None]
    got = replies["s"]
    figure = lambda q: None if not got else round(quantile(got, q), 3)  # noqa: E731
    result = {
        "rooms": len(attackers),
        "flood_s": size.flood_s,
        "level_requests": sum(n for k, n in counts.items() if k.startswith("level ")),
        "level_switches": counts["level 200"],
        "level_refused": {k[6:]: n for k, n in counts.items() if k.startswith("level ") and
                          k != "level 200"},
        "attacker_moves": counts["move 200"],
        "computer_moves": computer_moves(ctx.db, started),
        "honest_replies": len(got),
        "honest_reply_p50_s": figure(0.5),
        "honest_reply_p99_s": figure(0.99),
        "honest_reply_max_s": None if not got else round(max(got), 3),
        "honest_unanswered": replies["unanswered"],
        "honest_unanswered_waited_s": round(replies["waited_s"], 1),
        "honest_computer_moves": honest_tally.moves,
        "honest_computer_errors": dict(honest_tally.kinds),
        "waiting_at_end": waiting,
        "stuck": stuck,
        "settle_max_s": max(took, default=None),
        "decide_pool_idle_after_s": decide_idle,
        "decide_pool_watch_s": size.pool_watch_s,
    }  # fmt: skip
    p99 = result["honest_reply_p99_s"]
    result["ok"] = bool(got) and not replies["unanswered"] and p99 < REPLY_P99_S and not stuck
    line = (
        f"{len(attackers)} rooms, {counts['level 200']} level switches; honest reply "
        f"p50/p99/max {figure(0.5)}/{p99}/{result['honest_reply_max_s']} s over {len(got)} "
        f"replies ({replies['unanswered']} unanswered); {stuck} of {len(rooms)} tables stuck "
        f"({waiting} waited on the computer); decisions' pool idle "
        + (f"{decide_idle} s after" if decide_idle is not None else f"> {size.pool_watch_s} s")
    )
    return result, line


async def flood_room(human: Browser, until: float, seconds: float, tally, rng, counts) -> None:
    """As fast as the seat's rate limit allows (one request after another; after a 429, its
    Retry-After): switch the room's level whenever the computer is to move, else move."""
    level = "easy"
    windows = int(seconds / LIMIT_WINDOW_S) + 1
    for _ in range(windows * (ACT_LIMIT + 10)):
        if time.monotonic() >= until or human.closed:
            return
        found = choose([human], rng)
        if found is None:  # the computer's move: make it think again
            status, _text = await send(human, "level", {"level": level})
            counts[f"level {status}"] += 1
            if status == 200:
                level = "hard" if level == "easy" else "easy"
        else:
            status, _text = await move(human, found, tally, rng)
            counts[f"move {status}"] += 1
        if status == 429:
            await asyncio.sleep(min(human.retry_after, max(0.0, until - time.monotonic())))
        elif status != 200:
            await human.refresh(tally)


async def honest_replies(honest: Browser, until: float, tally, rng, replies: dict) -> None:
    """Play at a person's pace until `until`; time each computer reply from the move's
    acknowledgement. A reply not there SETTLE_S after `until` is unanswered (the room stuck)."""
    pace = Pace(ACT_GAP)
    deadline = until + SETTLE_S
    for _ in range(int((until - time.monotonic()) / ACT_GAP) + 2):
        if time.monotonic() >= until or honest.closed:
            return
        if not settled(honest.html):  # the computer opens the round: not timed
            if not await wait_settled(honest, honest.seq - 1, deadline):
                replies["unanswered"] += 1
                return
            continue
        await asyncio.sleep(rng.uniform(0.2, 0.5))
        await pace.wait()
        found = choose([honest], rng)
        if time.monotonic() >= until or found is None:
            continue
        status, text = await move(honest, found, tally, rng)
        acked = time.perf_counter()
        if status != 200:
            await honest.refresh(tally)
            continue
        if settled(text):  # e.g. a draw that keeps the turn
            continue
        if await wait_settled(honest, seq_of(text), deadline):
            replies["s"].append(max(0.0, honest.changed_at - acked))
        else:
            replies["unanswered"] += 1
            replies["waited_s"] = time.perf_counter() - acked
            return


# -- review_flood --


async def review_flood(ctx) -> tuple[dict, str]:
    """Many reviews asked for (and polled) from one address; the honest review timed."""
    size = ctx.size
    tally = Tally()
    honest_http = session(total=30)  # 127.0.0.1
    polling_http, leaving_http = session(source(9), total=30), session(source(10), total=30)
    honest = (await seat_computer_rooms(ctx.url, honest_http, 1, "easy", tally))[0]
    pollers = await seat_computer_rooms(ctx.url, polling_http, size.reviews, "easy", tally, 13)
    leavers = await seat_computer_rooms(ctx.url, leaving_http, size.abandoned, "easy", tally, 14)
    everyone = [honest, *pollers, *leavers]
    rng = random.Random(28)
    setup = time.monotonic() + SETUP_S
    finished = await asyncio.gather(*(play_round(h, setup, tally, rng) for h in everyone))
    await asyncio.gather(*(seat.close() for seat in everyone), return_exceptions=True)
    try:
        if not all(finished):
            raise RuntimeError(f"{finished.count(False)} rounds unfinished: {dict(tally.kinds)}")
        nice = pool_nice(ctx.worker, REVIEW_NICENESS)
        cold, cached, _stored = await review_time(honest, size.review_cap_s, ctx.db)
        if cold is None or cached:
            raise RuntimeError(f"the honest review alone: {cold} s (ready at once: {cached})")
        await idle_after(ctx.worker, nice, time.monotonic(), IDLE_AFTER_S)
        forget_review(ctx.db, honest.room)
        alone, cached, alone_stored = await review_time(honest, size.review_cap_s, ctx.db)
        if alone is None or cached:
            raise RuntimeError(f"the honest review alone, again: {alone} s (at once: {cached})")
        seen = len(pool_cpu(ctx.worker, nice))
        await idle_after(ctx.worker, nice, time.monotonic(), IDLE_AFTER_S)
        forget_review(ctx.db, honest.room)
        result = await flood_reviews(ctx, honest, pollers, leavers, nice)
    finally:
        for http in (honest_http, polling_http, leaving_http):
            await http.close()
    flood = result["honest_flood_s"]
    ratio = None if flood is None else round(flood / alone, 2)
    idle = result["pool_idle_after_s"]
    flood_stored = result.pop("flood_stored")
    result.update(
        honest_cold_s=round(cold, 2), honest_alone_s=round(alone, 2), ratio=ratio,
        honest_alone_stored_s=finite(alone_stored), honest_flood_stored_s=finite(flood_stored),
        ratio_stored=finite(flood_stored / alone_stored if alone_stored > 0 else math.nan),
        review_processes_seen=max(seen, result.pop("processes_seen")),
    )  # fmt: skip
    result["ok"] = (
        not result["honest_flood_cached"]
        and ratio is not None
        and ratio < REVIEW_RATIO
        and idle is not None
        and idle <= IDLE_AFTER_S
    )
    line = (
        f"{size.reviews} polled + {size.abandoned} left reviews: honest review alone "
        f"{result['honest_alone_s']} s (cold {result['honest_cold_s']} s), under the flood "
        f"{flood} s (x{ratio}; stored after {result['honest_alone_stored_s']} s alone, "
        f"{result['honest_flood_stored_s']} s under the flood); review pool idle "
        + (f"{idle} s after the flood" if idle is not None else f"> {IDLE_AFTER_S:g} s after")
        + f"; {result['attacker_ready']} of the poller's reviews ready by then"
    )
    return result, line


async def flood_reviews(ctx, honest: Browser, pollers, leavers, nice: int) -> dict:
    """Ask for every review at once, poll the pollers' each second while the honest review is
    timed (and `review_min_s` at least), then stop at once; the review pool's idle time after."""
    stop = asyncio.Event()
    counts: Counter[str] = Counter()
    ready: set[str] = set()
    cpu_before = sum(pool_cpu(ctx.worker, nice).values())
    ctx.watch()
    asked = await asyncio.gather(
        *(get(seat, f"/r/{seat.room}/review/0") for seat in [*pollers, *leavers])
    )
    counts.update(f"page {status}" for status, _text in asked)
    cap = ctx.size.review_cap_s
    polling = [poll_review(seat, stop, cap, counts, ready) for seat in pollers]
    polling = [asyncio.create_task(task) for task in polling]
    began = time.monotonic()
    try:
        flood, cached, flood_stored = await review_time(honest, cap, ctx.db)
        await asyncio.sleep(max(0.0, began + ctx.size.review_min_s - time.monotonic()))
    finally:
        stop.set()
        await asyncio.gather(*polling)
    ended = time.monotonic()
    cpu_flood = sum(pool_cpu(ctx.worker, nice).values())
    seen = len(pool_cpu(ctx.worker, nice))
    idle = await idle_after(ctx.worker, nice, ended, IDLE_AFTER_S)
    cpu_after = sum(pool_cpu(ctx.worker, nice).values())
    return {
        "reviews": len(pollers),
        "abandoned": len(leavers),
        "honest_flood_s": None if flood is None else round(flood, 2),
        "honest_flood_cached": cached,
        "flood_lasted_s": round(ended - began, 2),
        "flood_stored": flood_stored,
        "pool_idle_after_s": idle,
        "attacker_pages": {k[5:]: n for k, n in counts.items() if k.startswith("page ")},
        "attacker_polls": {k[5:]: n for k, n in counts.items() if k.startswith("poll ")},
        "attacker_busy": counts["busy"],
        "attacker_ready": len(ready),
        "review_cpu_flood_s": round(cpu_flood - cpu_before, 2),
        "review_cpu_after_s": round(cpu_after - cpu_flood, 2),
        "reviews_stored": stored_reviews(ctx.db),
        "processes_seen": seen,
    }


async def poll_review(seat: Browser, stop: asyncio.Event, cap: float, counts, ready) -> None:
    """Poll a review's analysis every second, as its page does, until told to stop (or for
    `cap` seconds at most)."""
    for _ in range(int(cap / POLL_S) + 5):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), POLL_S)
            return
        status, text = await get(seat, f"/r/{seat.room}/review/0/analysis")
        counts[f"poll {status}"] += 1
        counts["busy"] += BUSY in text
        if status == STOP_POLLING:
            ready.add(seat.room)


async def review_time(seat: Browser, cap: float, db: Path) -> tuple[float | None, bool, float]:
    """Open the first round's review and poll its analysis every second until it is ready;
    (seconds from the page's request to the ready answer, or None past `cap`; whether the page
    was ready at once, i.e. already stored; seconds from the request to the review's storing,
    by the server's own record of it, or NaN)."""
    asked, start = time.time(), time.perf_counter()
    status, text = await get(seat, f"/r/{seat.room}/review/0")
    if status != 200:
        raise RuntimeError(f"the review page: {status}")
    if "data-review-ready" in text:
        return time.perf_counter() - start, True, math.nan
    for _ in range(int(cap / POLL_S) + 2):
        await asyncio.sleep(POLL_S)
        status, _text = await get(seat, f"/r/{seat.room}/review/0/analysis")
        if status == STOP_POLLING:
            took = time.perf_counter() - start
            return took, False, stored_at(db, seat.room) - asked
        if time.perf_counter() - start > cap:
            break
    return None, False, math.nan


def stored_at(db: Path, room: str) -> float:
    """When the server stored the room's latest review (its wall clock), or NaN."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            found = conn.execute("SELECT MAX(at) FROM reviews WHERE room = ?", [room]).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return math.nan
    return math.nan if found[0] is None else found[0]


async def play_round(human: Browser, deadline: float, tally: Tally, rng) -> bool:
    """Play the room's round to its end as fast as the rate limit allows; True if it ended."""
    pace = Pace(ACT_GAP)
    for _ in range(int(SETUP_S / ACT_GAP) + 2):
        if OVER.search(human.html):
            return True
        if time.monotonic() >= deadline or human.closed:
            return False
        found = choose([human], rng)
        if found is None:  # the computer's move
            await wait_settled(human, human.seq, min(deadline, time.monotonic() + 10))
            if not settled(human.html):
                await human.refresh(tally)
            continue
        await pace.wait()
        status, _text = await move(human, found, tally, rng)
        if status != 200:
            await human.refresh(tally)
    return bool(OVER.search(human.html))


def finite(value: float) -> float | None:
    """A figure rounded to 3 places, or None if it could not be had (NaN)."""
    return None if math.isnan(value) else round(value, 3)


def forget_review(db: Path, room: str) -> None:
    """Delete a room's stored reviews, so that the server weighs its round again."""
    conn = sqlite3.connect(db, timeout=10)
    try:
        with conn:
            deleted = conn.execute("DELETE FROM reviews WHERE room = ?", [room]).rowcount
    finally:
        conn.close()
    if deleted != 1:
        raise RuntimeError(f"{deleted} stored reviews deleted, not 1")


def stored_reviews(db: Path) -> int | None:
    """How many reviews the server has stored."""
    return _count(db, "SELECT COUNT(*) FROM reviews", [])


def _count(db: Path, sql: str, params: list) -> int | None:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return conn.execute(sql, params).fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return None


# -- stand_in_redeal --


def events_since(db: Path, room: str, since: int, kind: str, seat: int | None = None) -> int:
    """How many events of `kind` (of `seat`, if given) the room stored after seq `since`."""
    sql = "SELECT COUNT(*) FROM events WHERE room = ? AND seq > ? AND type = ?"
    params: list = [room, since, kind]
    if seat is not None:
        sql += " AND json_extract(data, '$.seat') = ?"
        params.append(seat)
    found = _count(db, sql, params)
    if found is None:
        raise RuntimeError("the database could not be read")
    return found


def last_seq(db: Path, room: str) -> int:
    """The room's latest stored seq."""
    found = _count(db, "SELECT MAX(seq) FROM events WHERE room = ?", [room])
    if found is None:
        raise RuntimeError("the database could not be read")
    return found


async def stand_in_redeal(ctx) -> tuple[dict, str]:
    """The seat of a player away handed to the computer; the host re-deals through it."""
    tally = Tally()
    host_http, guest_http = session(source(11), total=30), session(source(11, 1), total=30)
    host, guest = Browser(ctx.url, host_http), Browser(ctx.url, guest_http)
    try:
        await host.create_room()
        await guest.join(host.room)
        for seat in (host, guest):
            await seat.open_page()
        for seat in (host, guest):
            await seat.connect(seat.http, False, tally)
        ctx.watch()
        result = await redeal_through(ctx, host, guest)
    finally:
        await close_browsers([host, guest])
    tried, granted = result["redeals_tried"], result["redeals_granted"]
    levels, level_granted = result["levels_tried"], result["levels_granted"]
    result["ok"] = tried > 0 and levels > 0 and not granted and not level_granted
    line = (
        f"handed over after {result['offered_after_s']} s away; re-deals: {granted} of {tried} "
        f"granted, {result['redeals_refused']} refused, {result['redeals_other']} answered "
        f"without a deal ({result['requests_waiting']} left waiting as a request); the "
        f"stand-in's level: {level_granted} of {levels} switches granted, "
        f"{result['levels_refused']} refused"
    )
    return result, line


async def redeal_through(ctx, host: Browser, guest: Browser) -> dict:
    """Close the guest's socket, hand its seat over once offered, then try the re-deals and the
    level switches."""
    db, room, size = ctx.db, host.room, ctx.size
    tally = Tally()
    await guest.close()
    left = time.monotonic()
    offer = 'data-hand-over="1"'
    while offer not in host.html and time.monotonic() < left + AWAY_SECONDS + 20:
        host.changed.clear()
        if offer in host.html:
            break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(host.changed.wait(), 1)
    offered = round(time.monotonic() - left, 2)
    if offer not in host.html:
        raise RuntimeError(f"the hand-over was not offered {offered} s after the guest left")
    pace = Pace(ACT_GAP)
    await pace.wait()
    status, _text = await send(host, "computer", {"seat": "1", "level": "hard"})
    if status != 200:
        raise RuntimeError(f"the hand-over was refused: {status}")
    handed = last_seq(db, room)
    statuses: Counter[str] = Counter()
    redeals = {"tried": 0, "granted": 0, "refused": 0, "other": 0, "stale": 0}
    for _ in range(size.redeals):
        for _attempt in range(5):  # the stand-in moved meanwhile: again, with the new seq
            await pace.wait()
            before = events_since(db, room, handed, "deal")
            status, text = await send(host, "new-round", {"seq": str(host.seq)})
            if not (status == 409 and STALE in text):
                break
            redeals["stale"] += 1
            await host.refresh(tally)
        redeals["tried"] += 1
        statuses[f"new-round {status}"] += 1
        if events_since(db, room, handed, "deal") > before:
            redeals["granted"] += 1
        elif isinstance(status, int) and 400 <= status < 500 and STALE not in text:
            redeals["refused"] += 1
        else:
            redeals["other"] += 1
    levels = {"tried": 0, "granted": 0, "refused": 0, "other": 0}
    for i in range(size.level_switches):
        await pace.wait()
        before = events_since(db, room, handed, "level", seat=1)
        status, _text = await send(host, "level", {"seat": "1", "level": ("easy", "medium")[i % 2]})
        levels["tried"] += 1
        statuses[f"level {status}"] += 1
        if events_since(db, room, handed, "level", seat=1) > before:
            levels["granted"] += 1
        elif isinstance(status, int) and 400 <= status < 500:
            levels["refused"] += 1
        else:
            levels["other"] += 1
    return {
        "offered_after_s": offered,
        "requests_waiting": events_since(db, room, handed, "ask"),
        **{f"redeals_{k}": n for k, n in redeals.items()},
        **{f"levels_{k}": n for k, n in levels.items()},
        "statuses": dict(statuses),
    }
