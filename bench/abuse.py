"""Abuse bench: issues 12's and 27's attacks against the production server, others timed meanwhile.

    .venv/bin/python -m bench.abuse [--only NAME[,NAME]] [--small] [--json-only] [--app-dir DIR]

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
  methods, paths, headers and bodies): no response may be a 500;
- decision_flood: one address with 10 computer rooms at `hard` switches each room's level
  (easy, hard, ...) whenever the computer is to move, and moves when it may, as fast as each
  seat's rate limit allows (RATELIMIT_ACT's 120 a minute, spent at once: one request after
  another until a 429, then its Retry-After), for 70 s, while a player from 127.0.0.1 plays a
  computer room at `hard`, timing each reply from its move's acknowledgement to the table in
  which its turn comes back: the reply's p99 under 2 s, none unanswered, and no table stuck
  (after the flood every room's table, polled without a reload, is back to its player within
  30 s). Also printed: how long the decisions' pool stays busy after the flood;
- review_flood: one address asks for the reviews of 16 finished rounds and polls them every
  second until the honest review is ready (at most 120 s, at least 10 s), then stops at once;
  another asks for 4 once and never polls. The honest review (127.0.0.1, its own round) is
  timed alone, on a warm pool, then again under the flood (its stored review deleted from the
  database between, so the same round is weighed again): under the flood it may take less
  than 3 times as long (as the page sees it, polling each second; the times by the server's
  own storing of the review are printed too), and the review pool (the worker's descendants
  at its niceness) must be idle (no CPU time for 3 s) within 60 s of the flood's end;
- stand_in_redeal: a friend table of two, seated with live sockets, the server's
  DOMINO_AWAY_SECONDS 2; the guest's socket closes, the host hands its seat to the computer
  once offered, then asks 5 times for a new round (the table's seq each time) and switches
  the stand-in's level 4 times: none may be granted (what was granted is read from the stored
  events: a "deal", a "level" of the stand-in's seat; refused means a 4xx, and a 200 that
  dealt nothing, e.g. a request left waiting for the away player's word, is counted apart).

In both floods each attacker's room is created from an address of its own (a server may limit
the computer rooms one address creates), then played and flooded from the attacker's one.

Each attack's figures include the machine's 1-minute load average at its end (`load_1m`): the
machine is shared, and timings mean little without it.

Prints a table, then one JSON line with a key per attack, each with its `ok`. The exit code is
0 whatever the figures (it is a measurement), unless the bench itself fails.

This module is the command line and the per-attack server; the rest lives beside it: honest.py
(the other room and its figures), socket_attacks.py (supersede, big_message), http_attacks.py
(slow_bodies, record_downloads, computer_rooms), fuzz.py, pool_attacks.py (decision_flood,
review_flood, stand_in_redeal, each timing an honest room or review of its own), and wire.py
(the attackers' addresses, HTTP sessions, raw sockets and websocket frames).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from bench.fuzz import fuzz
from bench.honest import Honest, honest_figures, honest_ok
from bench.http_attacks import computer_rooms, prepare_records, record_downloads, slow_bodies
from bench.load import raise_open_files, worker_pid
from bench.pool_attacks import AWAY_SECONDS, decision_flood, review_flood, stand_in_redeal
from bench.socket_attacks import PING_SECONDS, big_message, supersede
from tests.support.faults import ROOT, Server, free_port

ATTACKS = (
    "supersede",
    "big_message",
    "slow_bodies",
    "record_downloads",
    "record_downloads_unlimited",
    "computer_rooms",
    "fuzz",
    "decision_flood",
    "review_flood",
    "stand_in_redeal",
)
FULL = SimpleNamespace(
    seats=100, rounds=3, message_mb=256, bodies=2000, header_drips=300, timeout=10, cap=None,
    record_rounds=600, download_s=15, computer_rooms=20, computer_s=20, fuzz=3000,
    flood_rooms=10, flood_s=70, pool_watch_s=60, reviews=16, abandoned=4, review_cap_s=120,
    review_min_s=10, redeals=5, level_switches=4,
)  # fmt: skip
SMALL = SimpleNamespace(
    seats=10, rounds=2, message_mb=16, bodies=200, header_drips=60, timeout=3, cap=50,
    record_rounds=100, download_s=4, computer_rooms=4, computer_s=5, fuzz=300,
    flood_rooms=3, flood_s=6, pool_watch_s=20, reviews=4, abandoned=1, review_cap_s=60,
    review_min_s=3, redeals=3, level_switches=2,
)  # fmt: skip
RUNS = {f.__name__: f for f in (supersede, big_message, slow_bodies, record_downloads,
                                computer_rooms, fuzz, decision_flood, review_flood,
                                stand_in_redeal)}  # fmt: skip
# The same downloads with the server's rate limits off: what serving a record costs.
RUNS["record_downloads_unlimited"] = record_downloads
PUSH_LIMIT_MS = {
    "slow_bodies": 100,
    "record_downloads": 100,
    "record_downloads_unlimited": 100,
    "computer_rooms": 50,
}
# Settings of one attack's server only.
ATTACK_ENV = {"stand_in_redeal": {"DOMINO_AWAY_SECONDS": f"{AWAY_SECONDS:g}"}}


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
        env.update(ATTACK_ENV.get(name, {}))
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
    result["load_1m"] = round(os.getloadavg()[0], 2)
    result.update(honest_figures(found, honest.ready))
    if name in PUSH_LIMIT_MS:
        result["ok"] = result.get("ok", True) and honest_ok(result, PUSH_LIMIT_MS[name])
    h = result
    lines = [
        line,
        f"healthz p50/p99 {h['healthz_p50_ms']}/{h['healthz_p99_ms']} ms "
        f"({h['healthz_failed']} failed); other room's push p50/p99 {h['push_p50_ms']}/"
        f"{h['push_p99_ms']} ms over {h['honest_moves']} moves; load {h['load_1m']}",
    ]
    if h["honest_errors"]:
        lines.append(f"other room's errors: {h['honest_errors']}")
    return result, lines


def parse_args(argv=None):
    """The command line: which attacks, how big, where the app is."""
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
    """Run the attacks one after another; print the table and the JSON line."""
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
