"""Leak scanner: whole rounds played through the server, every answer and frame checked.

    .venv/bin/python -m bench.leaks [--rounds 1000] [--seed 2026] [--seats 2|3|4|mix] [--counter]

Bots sit on the seats of friend rooms (and on the player's seat of some computer rooms);
each chooses from its own seat view, and every move goes through the real HTTP endpoints
(Flask test client, CSRF token and X-Tab header as htmx sends them, buttons' `hx-vals`).
Every seat's socket is a fake connection attached to the hub, so pushes are captured.
Every HTML answer and every frame a seat receives is checked, against the room as it stood
at that table's `data-seq`, for tiles that seat may not see (tests/support/webkit.py `leaked_tiles`,
the one leak rule): another seat's hand (a partner's too) before the end, or outside that
seat's revealed hand after it; the boneyard or the sleeping tiles ever.

`--seats 2` (the default) plays two-seat rooms, every fourth against the computer. `--seats 3`
and `--seats 4` (`three` and `pairs`) cycle through four kinds of room: two with a browser on
every seat, one against the computer (one browser, the computer on every other seat), and one
whose creator gives one or two free seats to the computer before the others join. At the end
of a round every browser presses its own "new-round" button (at two seats the second one
accepts). `--seats mix` takes the rooms' sizes in turn, 2, 3, 4. `--counter` makes every room
with the tile counter on (the rules card's box), so every table carries its `data-counter`.

Every answer and frame is also checked for a server seed of a fair deal (docs/fair-deals.md) shown
too
soon: a `data-server-seed` before its round is over, or any seed the room committed to,
anywhere in the text, before its deal's round is over (a seed for a deal not yet made, never).
Prints a summary, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from flask import current_app

from domino import bots
from domino.views import seat_view
from domino.web import seats
from domino.web.routes import pages
from domino.web.view import render
from tests.support.leakcheck import SEQ, ScannedTable, Scanner
from tests.support.webkit import button, enabled, make_app, vals

ROOT = Path(__file__).resolve().parents[2]


FRIEND_BOTS = ("random", "greedy", "medium")
COMPUTER_LEVELS = ("easy", "medium")
ROUNDS_PER_ROOM = 5
WAIT = 15.0
SHOWN_SEED = re.compile(r'data-server-seed="([0-9a-f]*)"')
HEX64 = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
COUNTER = re.compile(r"\sdata-counter[\s>]")


class SeedScanner(Scanner):
    """The leak scanner, also counting server seeds shown before their round is over."""

    def __init__(self) -> None:
        super().__init__()
        self.early_seeds = 0
        self.seeds_shown = 0  # tables that showed their server seed, the round being over
        self.tables = 0  # answers and frames that carried a table
        self.counters = 0  # ... and of those, the ones with a tile counter
        self._logs: dict[str, tuple[int, list]] = {}  # room: (last seq read, its events)

    def check(self, table, html: str, frame: bool) -> None:
        super().check(table, html, frame)
        with self._lock:
            if SEQ.search(html):
                self.tables += 1
                self.counters += bool(COUNTER.search(html))
            problem = self._early_seed(table, html)
            if problem:
                self.early_seeds += 1
                self.leaks += 1
                if len(self.examples) < 5:
                    self.examples.append(f"to seat {table.seat} in {table.room}: {problem}")

    def _early_seed(self, table, html: str) -> str | None:
        """What `html` shows of a server seed it must not, or None."""
        if table.room is None or table.services.rooms.get(table.room) is None:
            return None
        found = SEQ.search(html)
        seq = int(found.group(1)) if found is not None else table.services.rooms.get(table.room).seq
        state = self.state_at(table, seq) if found is not None else table.state
        events = self._events(table, seq)
        commits = {data["seed"] for _, type_, data in events if type_ == "commit"}
        deals = [data for s, type_, data in events if type_ == "deal" and s <= seq]
        shuffled = [data.get("fairness") for data in deals if "rematch" not in data]
        seeds = [block["server_seed"] for block in shuffled if block]
        current = shuffled[-1]["server_seed"] if shuffled and shuffled[-1] else None
        over = state is not None and state.over
        replayed = bool(deals) and "rematch" in deals[-1]  # its original round is over
        revealed = set(seeds) - ({current} if current and not (over or replayed) else set())
        for shown in SHOWN_SEED.findall(html):
            if not over or shown != current:
                return f"data-server-seed {shown[:12]}… with the round {'over' if over else 'on'}"
            self.seeds_shown += 1
        early = {text for text in HEX64.findall(html) if text in commits} - revealed
        return f"server seed {sorted(early)[0][:12]}… before its round is over" if early else None

    def _events(self, table, seq: int) -> list:
        """The room's stored events, read again once `seq` is newer than the last read."""
        last, events = self._logs.get(table.room, (-1, []))
        if seq > last:
            events = table.log
            self._logs[table.room] = (max((e[0] for e in events), default=-1), events)
        return events

    def forget(self, room_id: str) -> None:
        super().forget(room_id)
        self._logs.pop(room_id, None)


def _ok(response) -> None:
    assert response.status_code == 200, (response.status_code, response.get_data(as_text=True))


def card(preset: str, counter: bool) -> dict:
    """The rules card's fields for a room under `preset` ("": untouched), with the tile
    counter's box ticked or not."""
    return {**({"preset": preset} if preset else {}), **({"counter": "on"} if counter else {})}


def friend_room(
    app,
    scanner: Scanner,
    rounds: int,
    rng: random.Random,
    preset: str = "",
    given: int = 0,
    counter: bool = False,
) -> int:
    """A friend room (under `preset`; "": the default two seats; with the tile `counter`)
    whose creator first gives `given` free seats to the computer; browsers with bots take the
    others, in order. Returns the rounds finished."""
    host = ScannedTable(app, scanner)
    host.create_room(**card(preset, counter))
    host.connect("100.0")
    host.fragment()
    seats = host.services.rooms.get(host.room).rules.seats
    for seat in sorted(rng.sample(range(1, seats), given)):
        offered = host.doc.find("data-give", str(seat))
        assert offered is not None, f"seat {seat} is not offered to the computer"
        _ok(host.post("computer", seq=None, seat=seat, level=rng.choice(COMPUTER_LEVELS)))
    tables = {0: host}
    for _ in range(seats - 1 - given):
        guest = ScannedTable(app, scanner, host.room)
        guest.open()
        assert guest.join().status_code == 303
        tables[guest.seat] = guest
    for seat, table in tables.items():
        if seat:
            table.connect(f"100.{seat}")
    for table in tables.values():
        table.fragment()
    return play_rounds(app, scanner, tables, rounds, rng)


def computer_room(
    app, scanner: Scanner, rounds: int, rng: random.Random, preset: str = "", counter=False
) -> int:
    """A computer room (under `preset`, with the tile `counter`) with a bot in the player's
    seat; returns the rounds finished."""
    p = ScannedTable(app, scanner)
    p.home()
    form = {"csrf_token": p.csrf, "level": rng.choice(COMPUTER_LEVELS)}
    response = p.client.post("/computer", data={**form, **card(preset, counter)})
    assert response.status_code == 303, response.status_code
    p.room = response.headers["Location"].rsplit("/", 1)[-1]
    p.connect("100.a")
    p.open()  # nudges the computer if it opens
    return play_rounds(app, scanner, {0: p}, rounds, rng)


def play_rounds(app, scanner: Scanner, tables: dict, rounds: int, rng: random.Random) -> int:
    """Play `rounds` rounds: each browser in `tables` (by seat) moves by its bot, the computer
    plays the other seats; at each end every browser agrees to the next deal."""
    computer = app.extensions["domino"].computer
    assert computer.wait_idle(WAIT)
    for table in tables.values():
        table.fragment()
    players = {seat: bots.get(rng.choice(FRIEND_BOTS)) for seat in tables}
    rngs = {seat: random.Random(rng.getrandbits(64)) for seat in tables}
    first = tables[0]
    done = 0
    while True:
        state = first.state
        while not state.over:
            seat = state.turn
            if seat in tables:
                _ok(tables[seat].click(players[seat](seat_view(state, seat), rngs[seat])))
            else:
                first.open()  # the computer is due: nudge it as a reload would
            assert computer.wait_idle(WAIT), "the computer is still thinking"
            before, state = state, first.state
            assert state is not before, f"seat {seat} did not move"
        done += 1
        for table in tables.values():  # the finished table, as a fragment and as a full page
            table.fragment()
            table.open()
        if done == rounds:
            for table in tables.values():  # the hub would keep the sockets (and all they saw)
                table.disconnect()
            scanner.forget(first.room)
            return done
        agree(list(tables.values()), rng)
        assert computer.wait_idle(WAIT)


def agree(tables: list, rng: random.Random) -> None:
    """Every browser, from a random one on, presses the next deal's button its table offers
    ("new-round"; at two seats the second one is "accept-new-round")."""
    start = rng.randrange(len(tables)) if len(tables) > 1 else 0
    for table in tables[start:] + tables[:start]:
        doc = table.doc
        control = button(doc, "new-round") or button(doc, "accept-new-round")
        assert enabled(control), f"seat {table.seat} is offered no next deal"
        _ok(table.post(control.get("data-action"), **vals(control)))


# The rooms a run cycles through, by size: (kind, computer seats given), kind "friend" or
# "computer" (one browser, the computer on every other seat).
PLANS = {
    2: (("friend", 0), ("friend", 0), ("friend", 0), ("computer", 0)),
    3: (("friend", 0), ("friend", 0), ("computer", 0), ("friend", 1)),
    4: (("friend", 0), ("friend", 0), ("computer", 0), ("friend", 1), ("friend", 2)),
}
PRESET = {2: "", 3: "three", 4: "pairs"}


def plan(index: int, seats: str) -> tuple[int, str, int]:
    """The room to play `index`th: (seats, kind, computer seats given)."""
    size = (2, 3, 4)[index % 3] if seats == "mix" else int(seats)
    turn = index // 3 if seats == "mix" else index
    kind, given = PLANS[size][turn % len(PLANS[size])]
    return size, kind, given


def scan(
    rounds: int = 1000,
    seed: int = 2026,
    db_dir: str | None = None,
    per_room: int = ROUNDS_PER_ROOM,
    seats: str = "2",
    counter: bool = False,
) -> dict:
    """Play at least `rounds` whole rounds through the server (rooms of `seats`: "2", "3",
    "4" or "mix"; with the tile `counter` on); the counts of what was seen."""
    rng = random.Random(seed)
    scanner = SeedScanner()
    played = rooms = computer = given = 0
    by_size = dict.fromkeys((2, 3, 4), 0)
    with tempfile.TemporaryDirectory(dir=db_dir) as folder:
        app = make_app(Path(folder) / "leaks.sqlite3", seed)
        try:
            while played < rounds:
                want = min(per_room, rounds - played)
                size, kind, gives = plan(rooms, seats)
                if kind == "computer":
                    done = computer_room(app, scanner, want, rng, PRESET[size], counter)
                else:
                    done = friend_room(app, scanner, want, rng, PRESET[size], gives, counter)
                played, rooms, by_size[size] = played + done, rooms + 1, by_size[size] + done
                computer += kind == "computer"
                given += gives > 0
        finally:
            app.extensions["domino"].close()
            app.extensions["domino"].rooms.store.close()
    return {
        "rounds": played,
        "responses": scanner.responses,
        "frames": scanner.frames,
        "leaks": scanner.leaks,
        "rooms": rooms,
        "computer_rooms": computer,
        "given_rooms": given,
        "rounds_by_seats": by_size,
        "partnered": scanner.partnered,
        "early_seeds": scanner.early_seeds,
        "seeds_shown": scanner.seeds_shown,
        "tables": scanner.tables,
        "counters": scanner.counters,
        "examples": scanner.examples,
    }


def leak_into_tables(monkeypatch, extra, modules=(render, pages, seats)) -> None:
    """Make every table the server renders (in `modules`: `render` alone draws the hub's
    pushes, through its `render_pushed`) end with `extra(tv, state)`, some markup."""
    original = render.render_table

    def leaky(tv, *args, **kwargs):
        html = original(tv, *args, **kwargs)
        return html + extra(tv, current_app.extensions["domino"].rooms.get(tv.room).round)

    for module in modules:
        monkeypatch.setattr(module, "render_table", leaky)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--seats",
        default="2",
        choices=("2", "3", "4", "mix"),
        help="the rooms' size: 2, 3 (three), 4 (pairs), or each in turn (mix)",
    )
    parser.add_argument(
        "--counter", action="store_true", help="make every room with the tile counter on"
    )
    args = parser.parse_args()
    began = time.perf_counter()
    result = scan(args.rounds, args.seed, seats=args.seats, counter=args.counter)
    seconds = time.perf_counter() - began
    sizes = ", ".join(f"{n} at {size} seats" for size, n in result["rounds_by_seats"].items() if n)
    print(
        f"{result['rounds']} rounds ({sizes}) in {result['rooms']} rooms "
        f"({result['computer_rooms']} against the computer, {result['given_rooms']} with "
        f"seats given to it), {seconds:.1f}s"
    )
    print(f"checked {result['responses']} responses and {result['frames']} socket frames")
    if result["partnered"]:
        print(f"of which {result['partnered']} sent while the seat's partner held tiles")
    if args.counter:
        print(f"{result['counters']} of the {result['tables']} tables carried the tile counter")
    print(
        f"server seeds shown once their round was over: {result['seeds_shown']}; "
        f"shown too soon: {result['early_seeds']}"
    )
    print(f"leaks: {result['leaks']}")
    for example in result["examples"]:
        print(f"  {example}")
    keys = ("rounds", "responses", "frames", "leaks", "early_seeds", "seeds_shown", "tables")
    keys += ("counters",)
    print(json.dumps({key: result[key] for key in keys}))
    sys.exit(1 if result["leaks"] else 0)


if __name__ == "__main__":
    main()
