"""Bots play each other: `python -m domino.simulate --rounds N --seed S --seats A,B`."""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random

from . import bots
from .game import State, apply, deal, outcome, resolve, start
from .record import dumps, to_record
from .rules import DEFAULT, Rules
from .views import seat_view


def play_round(
    started,
    players: Sequence,
    rngs: Sequence[Random],
    rules: Rules = DEFAULT,
    timings: Sequence[list] | None = None,
) -> State:
    """Play one deal to the end; `timings[seat]` collects each decision's nanoseconds."""
    state = start(started, rules)
    clock = time.perf_counter_ns
    while state.turn is not None:
        seat = state.turn
        view = seat_view(state, seat)
        began = clock()
        action = players[seat](view, rngs[seat])
        if timings is not None:
            timings[seat].append(clock() - began)
        state = apply(state, resolve(state, seat, action))
    return state


def round_rngs(seed: int, number: int, seats: int) -> list[Random]:
    """The bots' random sources for round `number`, independent of every other round."""
    return [Random(f"{seed}:round:{number}:seat:{seat}") for seat in range(seats)]


def deal_rng(seed: int, number: int) -> Random:
    """The random source of deal `number`."""
    return Random(f"{seed}:deal:{number}")


@dataclass
class Tally:
    """What one bot did over a run."""

    label: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    points: dict[int, list[int]] = field(default_factory=dict)
    won: dict[int, list[int]] = field(default_factory=dict)
    decisions_ns: list[int] = field(default_factory=list)

    def add(self, unit: int, result, seat: int) -> None:
        """Count one round; `unit` groups rounds that share a deal when duplicating."""
        if result.winner is None:
            self.draws += 1
            net = 0
        elif result.winner == seat:
            self.wins += 1
            net = result.points
        else:
            self.losses += 1
            net = -result.points
        self.points.setdefault(unit, []).append(net)
        self.won.setdefault(unit, []).append(int(result.winner == seat))

    @property
    def rounds(self) -> int:
        return self.wins + self.losses + self.draws


def mean_ci(samples: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% confidence interval (normal approximation)."""
    n = len(samples)
    mean = statistics.fmean(samples)
    if n < 2:
        return mean, math.inf
    return mean, 1.96 * statistics.stdev(samples) / math.sqrt(n)


def percentile(values: Sequence[int], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank."""
    ordered = sorted(values)
    rank = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return ordered[rank]


def summary_rows(tallies: Sequence[Tally]) -> list[dict]:
    """Per bot: rounds, win rate and net points per round with 95% CIs, decision times."""
    rows = []
    for tally in tallies:
        units = list(tally.points.values())
        wins_per_unit = _win_units(tally)
        net_mean, net_ci = mean_ci([statistics.fmean(u) for u in units])
        win_mean, win_ci = mean_ci(wins_per_unit)
        times = tally.decisions_ns or [0]
        rows.append(
            {
                "bot": tally.label,
                "rounds": tally.rounds,
                "wins": tally.wins,
                "draws": tally.draws,
                "win_rate": win_mean,
                "win_rate_ci": win_ci,
                "net_points": net_mean,
                "net_points_ci": net_ci,
                "ms_median": statistics.median(times) / 1e6,
                "ms_p99": percentile(times, 99) / 1e6,
            }
        )
    return rows


def _win_units(tally: Tally) -> list[float]:
    """Share of rounds won per unit (a deal when duplicating, else a round)."""
    return [sum(unit) / len(unit) for unit in tally.won.values()]


def format_summary(rows: Sequence[dict]) -> str:
    """The summary as a plain table."""
    lines = [
        f"{'bot':<18}{'rounds':>8}{'win rate (95% CI)':>22}"
        f"{'net pts/round (95% CI)':>26}{'ms/decision p50':>17}{'p99':>9}"
    ]
    for r in rows:
        lines.append(
            f"{r['bot']:<18}{r['rounds']:>8}"
            f"{r['win_rate'] * 100:>12.1f}% ± {r['win_rate_ci'] * 100:4.1f}%"
            f"{r['net_points']:>+16.2f} ± {r['net_points_ci']:5.2f}"
            f"{r['ms_median']:>17.3f}{r['ms_p99']:>9.3f}"
        )
    return "\n".join(lines)


def run(
    names: Sequence[str], rounds: int, seed: int, duplicate: bool, out=None, rules: Rules = DEFAULT
) -> list[Tally]:
    """Play the rounds and return a tally per seat of `names`; write records to `out`."""
    players = [bots.get(name) for name in names]
    labels = list(names)
    if len(set(labels)) < len(labels):
        labels = [f"{name} (seat {seat})" for seat, name in enumerate(names)]
    tallies = [Tally(label) for label in labels]
    for number in range(rounds):
        deal_number = number // 2 if duplicate else number
        order = list(range(len(names)))
        if duplicate and number % 2:
            order = order[1:] + order[:1]
        started = deal(rules, deal_rng(seed, deal_number))
        seated = [players[who] for who in order]
        timings = [tallies[who].decisions_ns for who in order]
        state = play_round(started, seated, round_rngs(seed, number, len(order)), rules, timings)
        result = outcome(state)
        for seat, who in enumerate(order):
            tallies[who].add(deal_number, result, seat)
        if out is not None:
            out.write(dumps(to_record(state, [names[who] for who in order])) + "\n")
    return tallies


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m domino.simulate", description=__doc__)
    parser.add_argument("--rounds", type=int, required=True, help="rounds to play in all")
    parser.add_argument("--seed", type=int, required=True, help="makes the run reproducible")
    parser.add_argument("--seats", required=True, help=f"two bots, A,B, from {bots.NAMES}")
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="play every deal twice, seats swapped the second time",
    )
    parser.add_argument("--out", help="write one round record per line to this .jsonl file")
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.seats.split(",")]
    if len(names) != DEFAULT.seats:
        parser.error(f"--seats names {DEFAULT.seats} bots, like random,greedy")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.duplicate and args.rounds % 2:
        parser.error("--duplicate needs an even number of rounds")
    try:
        for name in names:
            bots.get(name)
    except bots.UnknownBot as error:
        parser.error(str(error))
    began = time.perf_counter()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            tallies = run(names, args.rounds, args.seed, args.duplicate, out)
    else:
        tallies = run(names, args.rounds, args.seed, args.duplicate)
    elapsed = time.perf_counter() - began
    mode = "duplicate deals" if args.duplicate else "independent deals"
    print(f"{args.rounds} rounds, seed {args.seed}, {mode}, {elapsed:.1f} s")
    print(format_summary(summary_rows(tallies)))
    if args.out:
        print(f"records written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
