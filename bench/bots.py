"""The computer levels against each other: duplicate deals, fixed seeds, 95% intervals.

    .venv/bin/python bench/bots.py [--rounds 4000] [--hard-rounds 2000] [--out DIR]

Each pairing plays every deal twice with the seats swapped. Pairings run in parallel, one
process per core. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from domino.simulate import run, summary_rows

PAIRINGS = [
    ("hard", "greedy"),
    ("hard", "medium"),
    ("medium", "easy"),
    ("easy", "random"),
    ("medium", "greedy"),
]


def play(pairing: tuple[str, str], rounds: int, seed: int, out: str | None) -> tuple:
    """One pairing: its summary rows and how long it took."""
    began = time.perf_counter()
    if out:
        path = Path(out) / f"{pairing[0]}-vs-{pairing[1]}.jsonl"
        with path.open("w", encoding="utf-8") as records:
            tallies = run(list(pairing), rounds, seed, True, records)
    else:
        tallies = run(list(pairing), rounds, seed, True)
    return pairing, summary_rows(tallies), time.perf_counter() - began


def main() -> None:
    """Run the ladder and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4000, help="rounds per pairing")
    parser.add_argument("--hard-rounds", type=int, default=2000, help="rounds with hard")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", help="folder for the round records of every pairing")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    jobs = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for pairing in PAIRINGS:
            rounds = args.hard_rounds if "hard" in pairing else args.rounds
            jobs.append(pool.submit(play, pairing, rounds, args.seed, args.out))
        results = [job.result() for job in jobs]
    print(
        f"{'pairing':<18}{'rounds':>7}{'win rate, 95% CI':>22}"
        f"{'net pts/round, 95% CI':>26}{'ms p50':>8}{'ms p99':>8}{'time':>7}"
    )
    for (first, second), rows, seconds in results:
        row = rows[0]
        low = row["net_points"] - row["net_points_ci"]
        high = row["net_points"] + row["net_points_ci"]
        win_low = row["win_rate"] - row["win_rate_ci"]
        win_high = row["win_rate"] + row["win_rate_ci"]
        print(
            f"{first + ' v ' + second:<18}{row['rounds']:>7}"
            f"{row['win_rate'] * 100:>8.1f}% [{win_low * 100:4.1f}, {win_high * 100:4.1f}]"
            f"{row['net_points']:>+10.2f} [{low:+6.2f}, {high:+6.2f}]"
            f"{row['ms_median']:>8.1f}{row['ms_p99']:>8.1f}{seconds:>6.0f}s"
        )


if __name__ == "__main__":
    main()
