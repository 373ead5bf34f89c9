"""The abuse bench's fuzz attack: malformed requests, none of which may be answered with a 500.

Raw requests (CR/LF in /lang/<code>?next=, Host headers with an empty or over-long label,
websocket handshakes without Sec-WebSocket-Version or -Key, random methods, paths, headers and
bodies), then odd but well-formed ones sent with aiohttp.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections import Counter

import aiohttp

from bench.loadclient import Browser
from bench.wire import handshake, raw_status, session, source

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
    """One HTTP/1.1 request as bytes, whatever its parts hold."""
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
    """A request with a random method, path, headers and body."""
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


# -- The attack. --


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
