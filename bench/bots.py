"""The computer levels against each other: duplicate deals, fixed seeds, 95% intervals.

    .venv/bin/python -m bench.bots [--rounds 4000] [--hard-rounds 2000] [--out DIR]
    .venv/bin/python -m bench.bots --presets two-seat [--rounds 2000] [--seed 1]

Without `--presets`: the default game, every pairing below. With `--presets` (names of
docs/rules.md, presets separated by commas, or `two-seat` for every preset of two seats): per
preset,
hard against medium and medium against random, as `python -m domino.simulate --rules P
--duplicate` plays them (the same seed gives the same rounds). Each pairing plays every deal
once per seat, the bots rotated. Pairings run in parallel, one process per core. Prints a
table (net points: the first bot's side against the other, higher better; under goat
scoring penalties count against); asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from domino.rules import DEFAULT, PRESETS
from domino.simulate import run, summary_rows

PAIRINGS = [
    ("hard", "greedy"),
    ("hard", "medium"),
    ("medium", "easy"),
    ("easy", "random"),
    ("medium", "greedy"),
]
PRESET_PAIRINGS = [("hard", "medium"), ("medium", "random")]
TWO_SEAT = [name for name, rules in PRESETS.items() if rules.seats == 2]


def play(preset: str | None, pairing: tuple[str, str], rounds: int, seed: int, out: str | None):
    """One pairing under a preset (None: the default game): its summary rows and seconds."""
    began = time.perf_counter()
    rules = PRESETS[preset] if preset else DEFAULT
    if out:
        prefix = f"{preset}-" if preset else ""
        path = Path(out) / f"{prefix}{pairing[0]}-vs-{pairing[1]}.jsonl"
        with path.open("w", encoding="utf-8") as records:
            tallies = run(list(pairing), rounds, seed, True, records, rules)
    else:
        tallies = run(list(pairing), rounds, seed, True, rules=rules)
    return preset, pairing, summary_rows(tallies), time.perf_counter() - began


def presets_argument(text: str) -> list[str]:
    """`--presets`: preset names separated by commas, or `two-seat`."""
    names = TWO_SEAT if text == "two-seat" else [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in PRESETS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown preset {unknown[0]!r}: choose from {', '.join(PRESETS)} or two-seat"
        )
    wide = [name for name in names if PRESETS[name].seats != 2]
    if wide:
        raise argparse.ArgumentTypeError(f"{wide[0]!r} is not a two-seat preset")
    return names


def row_text(preset: str | None, pairing: tuple[str, str], row: dict, seconds: float) -> str:
    """One line of the table: the first bot's figures."""
    first, second = pairing
    low, high = row["net_points"] - row["net_points_ci"], row["net_points"] + row["net_points_ci"]
    win_low = row["win_rate"] - row["win_rate_ci"]
    win_high = row["win_rate"] + row["win_rate_ci"]
    matches = f"{row['match_wins']}/{row['matches']}" if row["matches"] else "-"
    return (
        f"{preset or 'default':<15}{first + ' v ' + second:<18}{row['rounds']:>7}"
        f"{row['win_rate'] * 100:>8.1f}% [{win_low * 100:4.1f}, {win_high * 100:4.1f}]"
        f"{row['net_points']:>+10.2f} [{low:+6.2f}, {high:+6.2f}]{matches:>9}"
        f"{row['ms_median']:>8.1f}{row['ms_p99']:>8.1f}{seconds:>6.0f}s"
    )


def main() -> None:
    """Run the ladder and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4000, help="rounds per pairing")
    parser.add_argument("--hard-rounds", type=int, default=2000, help="rounds with hard")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--presets", type=presets_argument, help="e.g. block,goat or two-seat")
    parser.add_argument("--out", help="folder for the round records of every pairing")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.presets:
        plan = [(preset, pairing) for preset in args.presets for pairing in PRESET_PAIRINGS]
    else:
        plan = [(None, pairing) for pairing in PAIRINGS]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        jobs = []
        for preset, pairing in plan:
            rounds = args.hard_rounds if "hard" in pairing else args.rounds
            jobs.append(pool.submit(play, preset, pairing, rounds, args.seed, args.out))
        results = [job.result() for job in jobs]
    print(
        f"{'rules':<15}{'pairing':<18}{'rounds':>7}{'win rate, 95% CI':>22}"
        f"{'net pts/round, 95% CI':>26}{'matches':>9}{'ms p50':>8}{'ms p99':>8}{'time':>7}"
    )
    for preset, pairing, rows, seconds in results:
        print(row_text(preset, pairing, rows[0], seconds))


if __name__ == "__main__":
    main()
