"""The attackers' connections: loopback addresses, HTTP sessions, raw sockets, websocket frames.

Attackers bind their sockets to loopback addresses other than 127.0.0.1 (the server caps each
address's connections), and speak raw HTTP and websocket frames where a client library would
refuse to send what they send.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import socket
import time

import aiohttp

from bench.loadclient import Browser


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
    """The code of the first close frame among `found`, if any."""
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
    """A socket from `address` connected to the server (non-blocking unless asked)."""
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


# -- Raw HTTP. --


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


def final_status(data: bytes) -> int | None:
    """The status of a reply, past any 100 Continue before it."""
    while found := re.match(rb"HTTP/\d\.\d (\d{3})", data):
        data = data.partition(b"\r\n\r\n")[2]
        if found[1] != b"100" or not data:
            return int(found[1])
    return None


# -- Browsers. --


async def close_browsers(seats: list[Browser]) -> None:
    """Close the seats' sockets, then their HTTP sessions."""
    await asyncio.gather(*(seat.close() for seat in seats), return_exceptions=True)
    await asyncio.gather(*(seat.http.close() for seat in seats), return_exceptions=True)
