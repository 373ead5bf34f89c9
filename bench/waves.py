"""How long one quick match wave takes to open its tables (SPEC §12, web/live/waves.py).

N named players wait in the `classic` queue of an app in one process (lobby and rooms, a
real SQLite store, synced commits); one wave pairs them and opens N/2 tables. Prints the
wave's seconds and per table. The lobby's waves open OPENING tables at once, so that their
rooms' commits share the store's group commits.

    .venv/bin/python -m bench.waves [--players 400] [--repeat 3] [--opening N]

`--opening 1` opens them one at a time, as waves did before (the ratio of the two is the
figure; run both in one session on a quiet machine).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from domino.web.live import waves as wave_module
from domino.web.live.waves import Waves, in_process
from tests.support.webkit import make_app


def one_wave(players: int) -> tuple[int, float]:
    """The tables one wave opened for `players` waiting, and its seconds."""
    with tempfile.TemporaryDirectory() as folder:
        app = make_app(Path(folder) / "domino.sqlite3", seed=5)
        tables = app.extensions["domino"]
        try:
            lobby = app.extensions["lobby"]
            for n in range(players):
                player = lobby.take_name(f"p{n:05d}")[0]
                lobby.join_queue(player.id, "classic")
            waves = Waves(lobby, in_process(tables), fill=30)
            began = time.perf_counter()
            opened = waves.wave()
            return len(opened), time.perf_counter() - began
        finally:
            tables.close()
            tables.rooms.store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--opening", type=int, default=wave_module.OPENING)
    args = parser.parse_args()
    wave_module.OPENING = max(1, args.opening)
    runs = [one_wave(args.players) for _ in range(args.repeat)]
    seconds = [took for _opened, took in runs]
    opened = runs[0][0]
    median = statistics.median(seconds)
    at_once = wave_module.OPENING
    print(f"players {args.players}, tables a wave {opened}, opened {at_once} at once")
    print("wave seconds " + " ".join(f"{s:.3f}" for s in seconds) + f" (median {median:.3f})")
    print(f"per table {1000 * median / max(opened, 1):.2f} ms")


if __name__ == "__main__":
    main()
