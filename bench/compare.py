"""Two commits side by side under the same load: saturation, and a slow disk at a human pace.

    git worktree add /tmp/base <commit>          # the commit to compare with
    .venv/bin/python -m bench.compare --base /tmp/base [--seconds 40] [--rooms 1000]

Runs bench/load.py (this checkout's client) against the server of each checkout in turn, the
base first, one run per row and checkout:

- saturation: --rooms 50 --think 0,0 (every seat acts the moment it may; the limits are
  checked, set high): actions/s and the worker's CPU per action;
- slow disk: --rooms R --think 2,8 --sync-delay-ms 4 (each sync 4 ms longer; an older store
  is slowed by bench/shim/slowdisk.py): the move -> push p50 / p99.

A checkout with its own `.venv` is served from it (an older commit may need other packages).
Prints the table, then one JSON line: {"base": {row: figures}, "this": {row: figures}}.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
ROWS = {
    "saturation": ["--rooms", "50", "--think", "0,0"],
    "slow disk": ["--think", "2,8", "--sync-delay-ms", "4"],
}
SHOWN = ("actions_per_s", "cpu_ms_per_action", "p50_ms", "p99_ms", "errors", "lost")


def run(app_dir: Path, row: list[str], seconds: float, rooms: int) -> dict:
    """One load run against the server of `app_dir`: its JSON figures."""
    command = [sys.executable, "-m", "bench.load", "--app-dir", str(app_dir)]
    command += ["--seconds", str(seconds), *row]
    if "--rooms" not in row:
        command += ["--rooms", str(rooms)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(lines[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--rooms", type=int, default=1000, help="rooms of the slow-disk row")
    args = parser.parse_args(argv)
    found: dict[str, dict[str, dict]] = {"base": {}, "this": {}}
    for name, row in ROWS.items():
        for side, app_dir in (("base", args.base.resolve()), ("this", ROOT)):
            found[side][name] = run(app_dir, row, args.seconds, args.rooms)
            print(f"{name} / {side}: {found[side][name]}", flush=True)
    print(f"\n{'row':<12} {'figure':<18} {'base':>10} {'this':>10}")
    for name in ROWS:
        for key in SHOWN:
            base, this = found["base"][name][key], found["this"][name][key]
            print(f"{name:<12} {key:<18} {base:>10} {this:>10}")
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
