"""Rules-engine speed: random-vs-random rounds per second on one core.

Each round is dealt, then played to the end through the same path as the simulator:
seat view -> bot -> resolve -> apply. Prints figures; asserts nothing.

    .venv/bin/python -m bench.engine [--rounds 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from random import Random

from domino import bots
from domino.game import deal
from domino.rules import DEFAULT
from domino.simulate import play_round


def measure(rounds: int, seed: int) -> tuple[float, int]:
    """Seconds to deal and play `rounds` random-vs-random rounds, and the moves made."""
    rng = Random(seed)
    players = [bots.get("random")] * 2
    rngs = [Random(seed + 1), Random(seed + 2)]
    moves = 0
    began = time.perf_counter()
    for _ in range(rounds):
        state = play_round(deal(DEFAULT, rng), players, rngs)
        moves += len(state.moves)
    return time.perf_counter() - began, moves


def main() -> None:
    """Run the benchmark and print rounds per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    measure(1000, 0)  # warm up
    rates, move_rates = [], []
    for trial in range(args.repeat):
        seconds, moves = measure(args.rounds, trial + 1)
        rates.append(args.rounds / seconds)
        move_rates.append(moves / seconds)
    print(f"python {sys.version.split()[0]}, one core, {args.repeat} x {args.rounds} rounds")
    print(
        f"random vs random: {statistics.median(rates):,.0f} rounds/s (median; "
        f"min {min(rates):,.0f}, max {max(rates):,.0f})"
    )
    print(f"moves (play, draw, pass): {statistics.median(move_rates):,.0f} per second")


if __name__ == "__main__":
    main()
