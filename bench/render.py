"""How long one table takes to render: CPU µs per `render_table` over the render corpus.

    .venv/bin/python -m bench.render [--repeat 5]

Takes the positions of tools/render_corpus.py (the same rooms and moves) and renders, for
each position, every seated seat's table once, as a move's reply and pushes do: connected,
live, out of band, all seats of a room in one language (each room its own, in turn). Prints
the tables per pass and the CPU time per table of the fastest of `--repeat` passes (process
time: other work on the machine counts less), for all of them and by kind of table. To
measure another checkout, run it as a script with PYTHONPATH at that one (`PYTHONPATH=/tmp/base
.venv/bin/python bench/render.py`: as a module, this checkout's domino would come first).
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from flask_babel import force_locale

from domino.web.view.render import render_table
from tools.render_corpus import LANGUAGES, app_for_corpus, corpus


def tables() -> list:
    """Each position's tables, every seat once, in its room's language."""
    rooms = []
    chosen = []
    for case in corpus():
        room, _seq, rest = case.label.partition(" seq ")
        if room not in rooms:
            rooms.append(room)
        seat_and_variant = rest.split(" seat ")[1].split()
        lang = LANGUAGES[rooms.index(room) % len(LANGUAGES)]
        if seat_and_variant[1] == "all" and case.lang == lang:
            chosen.append(case)
    return chosen


def kind(case) -> str:
    """A table's kind, for the figures by kind."""
    tv = case.tv
    return f"{tv.rules.seats} seats, {tv.kind}, {'over' if tv.game.over else 'in play'}"


def one_pass(cases) -> dict[str, float]:
    """CPU seconds spent per kind of table, rendering every case once."""
    spent: dict[str, float] = defaultdict(float)
    for case in cases:
        with force_locale(case.lang):
            start = time.process_time()
            render_table(case.tv, case.links)
            spent[kind(case)] += time.process_time() - start
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    app = app_for_corpus()
    with app.test_request_context("/", base_url="https://example.org/"):
        cases = tables()
        one_pass(cases)  # templates compiled, tiles drawn once: as in a server that has run
        passes = [one_pass(cases) for _ in range(args.repeat)]
    counts: dict[str, int] = defaultdict(int)
    for case in cases:
        counts[kind(case)] += 1
    best = min(passes, key=lambda spent: sum(spent.values()))
    total = sum(best.values())
    print(f"{len(cases)} tables per pass, fastest of {args.repeat} passes")
    print(f"all tables: {total / len(cases) * 1e6:8.1f} µs per table")
    for name in sorted(counts):
        print(f"{name:28s} {best[name] / counts[name] * 1e6:8.1f} µs  ({counts[name]} tables)")


if __name__ == "__main__":
    main()
