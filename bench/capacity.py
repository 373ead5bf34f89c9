"""How many live rooms one worker holds: bench/load.py at growing room counts.

    .venv/bin/python -m bench.capacity [--start 2000] [--step 1000] [--max 8000] [--p99 100]
                                       [--repeat 1]

Runs bench/load.py (a fresh production server each time, the same human pace) at --start,
--start + --step, ... rooms, --repeat times at each count, and stops at the first count where
a run has errors, lost moves or a move -> push p99 above --p99 ms: a count holds only if every
run of it held, so one lucky run on a noisy machine does not count. Prints one line per run,
then one JSON line:

    {"rooms": largest count that held, "p99_ms": its worst p99, "limit_ms": --p99, "runs": [...]}
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_load(rooms: int, seconds: float) -> dict:
    command = [sys.executable, "-m", "bench.load", "--rooms", str(rooms), "--seconds", str(seconds)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=seconds + 1800)
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
    parser.add_argument("--repeat", type=int, default=1, help="runs per room count")
    args = parser.parse_args(argv)
    held, worst, runs = 0, None, []
    for rooms in range(args.start, args.max + 1, args.step):
        p99s = []
        for _ in range(max(1, args.repeat)):
            result = run_load(rooms, args.seconds)
            runs.append(result)
            ok = result["errors"] == 0 and result["lost"] == 0 and result["p99_ms"] <= args.p99
            p99s.append(result["p99_ms"])
            print(
                f"{rooms:>6} rooms: p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
                f"{result['moves']} moves, {result['errors']} errors, {result['lost']} lost, "
                f"{result['rss_per_room_kb']} KB/room -> {'held' if ok else 'did not hold'}",
                flush=True,
            )
            if not ok:
                break
        if not ok:
            break
        held, worst = rooms, max(p99s)
    summary = {"rooms": held, "p99_ms": worst, "limit_ms": args.p99, "runs": runs}
    print(json.dumps(summary))
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
