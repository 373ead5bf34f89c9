"""How long a computer level thinks over a real choice, preset by preset.

    .venv/bin/python -m bench.decisions [--bots hard,hard-before] [--positions 60]
        [--presets classic,block,...] [--seed 1]

The simulator's decision times count every move, forced ones too (they take no thought), so
its p50 is near zero. This bench times only the decisions with two or more distinct plays:
`--positions` of them per preset, taken from rounds `medium` plays (the same seed gives the
same positions), each bot deciding each position in turn in one process, so that a busy
machine slows all of them alike. Prints p50, p90, p99 and the slowest, in milliseconds;
asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from domino import bots
from domino.rules import PRESETS
from tests.support.scenario import choice_views

PRESETS_TIMED = ("classic", "block", "international", "goat", "three", "pairs")


def quantile(times: list[float], q: float) -> float:
    """The `q` quantile of `times` (nearest rank)."""
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def names_argument(text: str) -> list[str]:
    """A list separated by commas."""
    return [name.strip() for name in text.split(",") if name.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=names_argument, default=["hard", "hard-before"])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--presets", type=names_argument, default=list(PRESETS_TIMED))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name in args.presets:
        if name not in PRESETS:
            parser.error(f"unknown preset {name!r}: choose from {', '.join(PRESETS)}")
    for name in args.bots:
        if name not in bots.NAMES:
            parser.error(f"unknown bot {name!r}: choose from {', '.join(bots.NAMES)}")
    print(f"{'preset':<15}{'bot':<13}{'n':>4}{'p50':>8}{'p90':>8}{'p99':>8}{'max':>8}  (ms)")
    for preset in args.presets:
        rng = random.Random(f"{preset}-{args.seed}")
        views = choice_views(PRESETS[preset], rng, args.positions, distinct=True)
        times: dict[str, list[float]] = {name: [] for name in args.bots}
        for n, view in enumerate(views):
            for name in args.bots:
                bot = bots.get(name)
                began = time.perf_counter()
                bot(view, random.Random(n))
                times[name].append((time.perf_counter() - began) * 1000)
        for name in args.bots:
            ms = times[name]
            print(
                f"{preset:<15}{name:<13}{len(ms):>4}{statistics.median(ms):>8.1f}"
                f"{quantile(ms, 0.9):>8.1f}{quantile(ms, 0.99):>8.1f}{max(ms):>8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
