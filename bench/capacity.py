"""How many live rooms one worker holds: bench/load.py at growing room counts.

    .venv/bin/python bench/capacity.py [--start 2000] [--step 1000] [--max 8000] [--p99 100]

Runs bench/load.py (a fresh production server each time, the same human pace) at --start,
--start + --step, ... rooms, and stops at the first count that has errors, lost moves or a
move -> push p99 above --p99 ms. Prints one line per count, then one JSON line:

    {"rooms": largest count that held, "p99_ms": its p99, "limit_ms": --p99, "runs": [...]}
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

LOAD = Path(__file__).resolve().parent / "load.py"


def run_load(rooms: int, seconds: float) -> dict:
    command = [sys.executable, str(LOAD), "--rooms", str(rooms), "--seconds", str(seconds)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 1800)
    lines = done.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        raise RuntimeError(f"load.py --rooms {rooms} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(lines[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=2000)
    parser.add_argument("--step", type=int, default=1000)
    parser.add_argument("--max", type=int, default=8000)
    parser.add_argument("--p99", type=float, default=100.0, help="the p99 limit in ms")
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args(argv)
    held, runs = None, []
    for rooms in range(args.start, args.max + 1, args.step):
        result = run_load(rooms, args.seconds)
        runs.append(result)
        ok = result["errors"] == 0 and result["lost"] == 0 and result["p99_ms"] <= args.p99
        print(
            f"{rooms:>6} rooms: p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
            f"{result['moves']} moves, {result['errors']} errors, {result['lost']} lost, "
            f"{result['rss_per_room_kb']} KB/room -> {'held' if ok else 'did not hold'}",
            flush=True,
        )
        if not ok:
            break
        held = result
    summary = {
        "rooms": held["rooms"] if held else 0,
        "p99_ms": held["p99_ms"] if held else None,
        "limit_ms": args.p99,
        "runs": runs,
    }
    print(json.dumps(summary))
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
