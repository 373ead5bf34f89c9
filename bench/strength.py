"""Issue 33's figures: `hard` against `greedy` and against `hard-before`, row by row.

    .venv/bin/python -m bench.strength [--rounds 4000] [--seed 1] [--jobs 2] [--rows R,...]
        [--out DIR]

Each row is one `python -m domino.simulate --duplicate` run (the same seed gives the same
rounds), shared among `--jobs` processes, printed as soon as it ends, so a long series that is
stopped keeps the rows it finished. `--rows` picks rows by name (default: all, in this order):
`greedy` (hard v greedy, the default game), then hard v hard-before under `classic`, `block`,
`international`, `match-100`, `three` (hard against two hard-before) and `pairs` (hard
partners against hard-before partners). With `--out`, every row's records are written there
and checked by the independent checker (`python -m tests.support.checker`), its verdict
printed. Prints `hard`'s row of the simulator's summary; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from domino.rules import PRESETS
from domino.simulate import run, summary_rows

ROWS = {
    "greedy": ("classic", ["hard", "greedy"]),
    "classic": ("classic", ["hard", "hard-before"]),
    "block": ("block", ["hard", "hard-before"]),
    "international": ("international", ["hard", "hard-before"]),
    "match-100": ("match-100", ["hard", "hard-before"]),
    "three": ("three", ["hard", "hard-before", "hard-before"]),
    "pairs": ("pairs", ["hard", "hard-before", "hard", "hard-before"]),
}


def rows_argument(text: str) -> list[str]:
    """`--rows`: row names separated by commas."""
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in ROWS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown row {unknown[0]!r}: choose from {', '.join(ROWS)}"
        )
    return names


def checked(path: Path) -> str:
    """The independent checker's verdict on a record file, as its last line."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.checker", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = (done.stdout + done.stderr).strip().splitlines()
    return f"checker exit {done.returncode}: {lines[-1] if lines else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4000, help="rounds per row")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rows", type=rows_argument, default=list(ROWS))
    parser.add_argument("--out", help="folder for every row's round records, then checked")
    args = parser.parse_args()
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    print(
        f"{'row':<15}{'seats':<36}{'rounds':>7}{'win rate, 95% CI':>20}"
        f"{'net pts/round, 95% CI':>24}{'ms p50':>8}{'ms p99':>8}{'time':>7}",
        flush=True,
    )
    for name in args.rows:
        preset, seats = ROWS[name]
        rules = PRESETS[preset]
        rounds = args.rounds - args.rounds % rules.seats
        began = time.perf_counter()
        path = Path(args.out) / f"{name}.jsonl" if args.out else None
        if path is not None:
            with path.open("w", encoding="utf-8") as out:
                tallies = run(seats, rounds, args.seed, True, out, rules, args.jobs)
        else:
            tallies = run(seats, rounds, args.seed, True, rules=rules, jobs=args.jobs)
        row = summary_rows(tallies)[0]
        net, ci = row["net_points"], row["net_points_ci"]
        decided = row["rounds"] - row["draws"]
        won = row["wins"] / decided if decided else 0.0
        print(
            f"{name:<15}{','.join(seats):<36}{row['rounds']:>7}"
            f"{row['win_rate'] * 100:>8.1f}% ± {row['win_rate_ci'] * 100:4.1f}"
            f" ({won * 100:4.1f}% dec)"
            f"{net:>+9.2f} [{net - ci:+6.2f}, {net + ci:+6.2f}]"
            f"{row['ms_median']:>8.1f}{row['ms_p99']:>8.1f}{time.perf_counter() - began:>6.0f}s",
            flush=True,
        )
        if path is not None:
            print(f"  {path}: {checked(path)}", flush=True)


if __name__ == "__main__":
    main()
