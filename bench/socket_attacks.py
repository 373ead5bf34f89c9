"""The abuse bench's websocket attacks: tabs superseded after a missed ping, one huge message.

Each attack takes the run's context and returns (figures, one line of summary).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import socket
import time
from collections import Counter

import aiohttp

from bench.load import rss_kb
from bench.loadclient import Browser
from bench.wire import (
    close_browsers,
    close_code,
    frames,
    handshake,
    peek_until,
    raw_socket,
    session,
    source,
)

PING_SECONDS = 2.0  # DOMINO_PING_SECONDS for the server
FD_TOLERANCE = 10
MB = 1024 * 1024


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


def open_fds(pid: int) -> int:
    """How many descriptors the process has open (-1 if they cannot be read)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1
