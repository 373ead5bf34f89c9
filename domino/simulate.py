"""Bots play each other: `python -m domino.simulate --rounds N --seed S --seats A,B`.

`--rules R` plays under a preset or a rules object written as JSON (docs/rules.md); `--seats`
then names one bot per seat. With a target, the rounds are played as matches back to back:
a match that ends is followed by a new one, the previous winner leads where the rules say
so, and each record carries the match's running score (the last match may stop unfinished).

`--duplicate` cancels the luck of the deal: the run is played once per seat, the bots
rotated one seat on each time (seat s holds bot (s + r) mod seats in rotation r), and
round k of every rotation gets the same deal k. Without a target every deal is played
in all rotations before the next deal; with one each rotation plays its whole sequence of
matches over deals 0, 1, 2, ... in turn, so every bot meets every hand of the sequence
from every seat, and the records of one rotation's matches follow each other. The rounds
sharing a deal form one sample of the confidence intervals.

`--jobs J` shares the rounds among J processes: every round has its own random sources
(`round_rngs`, `deal_rng`), so a round plays the same wherever it runs; a match's rounds stay
in one process. The records and figures are put together in playing order.

The summary gives, per bot: rounds, round win rate (its side won the round), net points
per round and milliseconds per decision. Net points are what the bot's side wrote minus
the mean of what the other sides wrote, so higher is always better: under goat scoring
the points written are penalties, and the sign is turned (the others' penalties minus its
own). A match run adds matches won per bot.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from random import Random

from . import bots
from .duplicate import net_points
from .game import Outcome, State, apply, deal, outcome, resolve, start
from .match import Match, add, new_match
from .record import dumps, match_to_dict, to_record
from .rules import DEFAULT, PRESETS, Rules, RulesError, named
from .views import seat_view


def play_round(
    started,
    players: Sequence,
    rngs: Sequence[Random],
    rules: Rules = DEFAULT,
    timings: Sequence[list] | None = None,
    leader: int | None = None,
) -> State:
    """Play one deal to the end; `timings[seat]` collects each decision's nanoseconds.

    `leader` is a match's previous winner, who leads freely (see `game.start`).
    """
    state = start(started, rules, leader)
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
    points: dict[int, list[float]] = field(default_factory=dict)
    won: dict[int, list[int]] = field(default_factory=dict)
    decisions_ns: list[int] = field(default_factory=list)
    matches: int = 0
    match_wins: int = 0
    match_draws: int = 0

    def add(self, unit: int, result: Outcome, seat: int, rules: Rules = DEFAULT) -> None:
        """Count one round; `unit` groups rounds that share a deal when duplicating."""
        if not result.winners:
            self.draws += 1
        elif seat in result.winners:
            self.wins += 1
        else:
            self.losses += 1
        self.points.setdefault(unit, []).append(net_points(rules, result, seat))
        self.won.setdefault(unit, []).append(int(seat in result.winners))

    def add_match(self, winners: Sequence[int], seat: int) -> None:
        """Count a finished match."""
        self.matches += 1
        self.match_wins += seat in winners
        self.match_draws += not winners

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
        net_mean, net_ci = mean_ci([statistics.fmean(u) for u in tally.points.values()])
        win_mean, win_ci = mean_ci([sum(u) / len(u) for u in tally.won.values()])
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
                "matches": tally.matches,
                "match_wins": tally.match_wins,
                "match_draws": tally.match_draws,
            }
        )
    return rows


def format_summary(rows: Sequence[dict]) -> str:
    """The summary as a plain table (and the matches, if any finished)."""
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
    for r in rows:
        if r["matches"]:
            lines.append(
                f"matches: {r['bot']} won {r['match_wins']} of {r['matches']} finished"
                f" ({r['match_draws']} drawn)"
            )
    return "\n".join(lines)


def schedule(rounds: int, seats: int, duplicate: bool, matches: bool) -> list[tuple[int, int]]:
    """The rounds in playing order, as (rotation, deal); see the module's docstring."""
    rotations = seats if duplicate else 1
    deals = range(rounds // rotations)
    if matches:
        return [(r, k) for r in range(rotations) for k in deals]
    return [(r, k) for k in deals for r in range(rotations)]


def run(
    names: Sequence[str],
    rounds: int,
    seed: int,
    duplicate: bool,
    out=None,
    rules: Rules = DEFAULT,
    jobs: int = 1,
) -> list[Tally]:
    """Play the rounds and return a tally per seat of `names`; write records to `out`.

    With `jobs` above one the rounds are shared among that many processes (whole rotations
    when the rounds form matches, since a match's rounds follow each other); the tallies and
    records are then put together in playing order, the same as one process gives.
    """
    seats = rules.seats
    labels = list(names)
    if len(set(labels)) < len(labels):
        labels = [f"{name} (seat {seat})" for seat, name in enumerate(names)]
    tallies = [Tally(label) for label in labels]
    parts = max(1, min(jobs, len(schedule(rounds, seats, duplicate, rules.target is not None))))
    work = [(list(names), rounds, seed, duplicate, rules, part, parts) for part in range(parts)]
    if parts == 1:
        played = [_part(*work[0])]
    else:
        with ProcessPoolExecutor(parts) as pool:
            played = list(pool.map(_part, *zip(*work, strict=True)))
    for times, _rounds in played:
        for who, spent in enumerate(times):
            tallies[who].decisions_ns.extend(spent)
    rounds_played = sorted((r for _times, part in played for r in part), key=lambda r: r.index)
    numbers: dict[tuple[int, int], int] = {}  # (rotation, match within it) -> match number
    for r in rounds_played:
        for seat, who in enumerate(r.order):
            tallies[who].add(r.deal, r.result, seat, rules)
            if r.match_over is not None:
                tallies[who].add_match(r.match_over, seat)
        if out is not None:
            record = r.record
            if "match" in record:
                number = numbers.setdefault((r.rotation, r.match), len(numbers) + 1)
                record["match"]["number"] = number
            out.write(dumps(record) + "\n")
    return tallies


@dataclass(frozen=True, slots=True)
class Played:
    """One round of a run as a process played it: where it falls in the playing order, who
    sat where, the outcome, the record (its match numbered within the rotation)."""

    index: int
    rotation: int
    deal: int
    order: list[int]
    result: Outcome
    record: dict
    match: int  # the match's number within its rotation (0: no target)
    match_over: list[int] | None  # the winners, when this round ended its match


def _part(names, rounds: int, seed: int, duplicate: bool, rules: Rules, part: int, parts: int):
    """The rounds of part `part` of `parts`: each seat's decision times, and the rounds."""
    seats = rules.seats
    players = [bots.get(name) for name in names]
    times: list[list[int]] = [[] for _ in names]
    rotations = seats if duplicate else 1
    matches = rules.target is not None
    current: list[tuple[int, Match | None]] = [(0, None)] * rotations  # (number, match)
    played = []
    for index, (rotation, k) in enumerate(schedule(rounds, seats, duplicate, matches)):
        if (rotation if matches else index) % parts != part:
            continue
        order = [(seat + rotation) % seats for seat in range(seats)]
        number, match = current[rotation]
        if matches and (match is None or match.over):
            number, match = number + 1, new_match(rules)
        state = play_round(
            deal(rules, deal_rng(seed, k)),
            [players[who] for who in order],
            round_rngs(seed, k * rotations + rotation, seats),
            rules,
            [times[who] for who in order],
            match.leader if match is not None else None,
        )
        result = outcome(state)
        written, over = None, None
        if match is not None:
            before, match = match, add(match, result)
            current[rotation] = number, match
            written = match_to_dict(number, before, match)
            over = list(match.winners) if match.over else None
        record = to_record(state, [names[who] for who in order], written)
        played.append(Played(index, rotation, k, order, result, record, number, over))
    return times, played


def rules_argument(text: str) -> Rules:
    """`--rules`: a preset's name or a rules object as JSON."""
    try:
        return named(text)
    except RulesError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


EPILOG = """Net points per round: what the bot's side wrote minus the mean of what the other
sides wrote, so higher is better; under goat scoring the points are penalties and the sign
is turned. With --duplicate, the intervals group the rounds that share a deal."""


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, checked; a usage error exits with a clear message."""
    parser = argparse.ArgumentParser(
        prog="python -m domino.simulate", description=__doc__.splitlines()[0], epilog=EPILOG
    )
    parser.add_argument("--rounds", type=int, required=True, help="rounds to play in all")
    parser.add_argument("--seed", type=int, required=True, help="makes the run reproducible")
    parser.add_argument("--seats", required=True, help=f"one bot per seat, A,B, from {bots.NAMES}")
    parser.add_argument(
        "--rules",
        type=rules_argument,
        default=DEFAULT,
        help=f"a preset ({', '.join(PRESETS)}) or a rules object as JSON;"
        " the default game if left out",
    )
    parser.add_argument(
        "--duplicate",
        action="store_true",
        help="play every deal once per seat, the bots rotated one seat on each time"
        " (with a target: the whole sequence of matches once per rotation, same deals)",
    )
    parser.add_argument("--out", help="write one round record per line to this .jsonl file")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes to share the rounds among (the same rounds and records as one)",
    )
    args = parser.parse_args(argv)
    seats = args.rules.seats
    args.names = [name.strip() for name in args.seats.split(",")]
    if len(args.names) != seats:
        parser.error(f"--seats names {seats} bots, one per seat, like random,greedy")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.duplicate and args.rounds % seats:
        even = " (an even number)" if seats == 2 else ""
        parser.error(f"--duplicate needs a multiple of {seats} rounds{even}")
    try:
        for name in args.names:
            bots.get(name)
    except bots.UnknownBot as error:
        parser.error(str(error))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    args = parse(argv)
    began = time.perf_counter()
    play = (args.names, args.rounds, args.seed, args.duplicate)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            tallies = run(*play, out, args.rules, args.jobs)
    else:
        tallies = run(*play, rules=args.rules, jobs=args.jobs)
    elapsed = time.perf_counter() - began
    mode = "duplicate deals" if args.duplicate else "independent deals"
    print(f"{args.rounds} rounds, seed {args.seed}, {mode}, {elapsed:.1f} s")
    if args.rules != DEFAULT:
        print(f"rules: {dumps(args.rules.to_json())}")
    print(format_summary(summary_rows(tallies)))
    if args.out:
        print(f"records written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
