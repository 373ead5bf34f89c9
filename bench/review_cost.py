"""How long a round's review takes on one process: p50 and p99 over rounds of `hard`.

    .venv/bin/python -m bench.review_cost [--rounds 50] [--seed 1] [--playouts 4800] [--rules P]

Plays `--rounds` rounds of hard against hard (simulate's deals and random sources), then
times `analysis.analyze` on each record, one after the other in this process, as the review
pool's one process would. Prints the decisions per round and the seconds per review
(median, 99th percentile, most); asserts nothing.
"""

from __future__ import annotations

import argparse
import time

from domino import bots
from domino.bots import analysis
from domino.game import deal
from domino.record import dumps, to_record
from domino.rules import DEFAULT, PRESETS
from domino.simulate import deal_rng, percentile, play_round, round_rngs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=analysis.PLAYOUTS)
    parser.add_argument("--rules", default=None, help="a preset name (docs/rules.md, presets)")
    args = parser.parse_args()
    rules = PRESETS[args.rules] if args.rules else DEFAULT
    hard = [bots.get("hard")] * rules.seats
    texts = []
    for number in range(args.rounds):
        started = deal(rules, deal_rng(args.seed, number))
        state = play_round(started, hard, round_rngs(args.seed, number, rules.seats), rules)
        texts.append(dumps(to_record(state, ["hard"] * rules.seats)))
    seconds, decisions = [], []
    for number, text in enumerate(texts):
        began = time.perf_counter()
        made = analysis.analyze(text, number, args.playouts)
        seconds.append(time.perf_counter() - began)
        decisions.append(len(made["decisions"]))
    print(f"{args.rounds} rounds of hard, {args.playouts} playouts per decision")
    print(f"decisions per round: mean {sum(decisions) / len(decisions):.1f}, most {max(decisions)}")
    print(
        f"seconds per review: p50 {percentile(seconds, 50):.2f}  "
        f"p99 {percentile(seconds, 99):.2f}  max {max(seconds):.2f}"
    )


if __name__ == "__main__":
    main()
