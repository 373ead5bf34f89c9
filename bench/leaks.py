"""Leak scanner: whole rounds played through the server, every answer and frame checked.

    .venv/bin/python bench/leaks.py [--rounds 1000] [--seed 2026]

Bots sit on both seats of friend rooms (and on the player's seat of some computer rooms);
each chooses from its own seat view, and every move goes through the real HTTP endpoints
(Flask test client, CSRF token and X-Tab header as htmx sends them, buttons' `hx-vals`).
Both seats' sockets are fake connections attached to the hub, so pushes are captured.
Every HTML answer and every frame a seat receives is checked, against the room as it stood
at that table's `data-seq`, for tiles that seat may not see: the other hand or the boneyard
before the end, the boneyard ever. Prints a summary, then one JSON line.
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

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from webkit import (  # noqa: E402
    FakeSocket,
    Table,
    connection,
    make_app,
    norm,
    parse,
    tile_mentions,
)

from domino import bots  # noqa: E402
from domino.room import apply, fold  # noqa: E402
from domino.views import seat_view  # noqa: E402

# A tile written anywhere in the raw text, but not inside a longer token (room ids, CSRF
# tokens and URLs are random text that may hold "2-5").
BARE_TILE = re.compile(r"(?<![\w.\-/])[0-6]-[0-6](?![\w.\-/])")
SEQ = re.compile(r'data-seq="(\d+)"')
FRIEND_BOTS = ("random", "greedy", "medium")
COMPUTER_LEVELS = ("easy", "medium")
ROUNDS_PER_ROOM = 5
COMPUTER_EVERY = 4  # every fourth room is a computer room
WAIT = 15.0


def leaked_tiles(html: str, state, seat: int | None) -> set[str]:
    """The tiles `html`, sent to `seat` while the round was `state`, must not have named."""
    own = set() if seat is None else {str(t) for t in state.hands[seat]}
    other = set() if seat is None else {str(t) for t in state.hands[1 - seat]}
    laid = {norm(str(t)) for t in state.line}
    mentions = tile_mentions(parse(html))
    if not state.over:
        bad = {tile for tile, _node in mentions} - own - laid
        allowed = own | laid
    else:  # the opponent's hand may be shown, in its own place; the boneyard never
        inside = {tile for tile, node in mentions if node.inside("data-opponent-hand")}
        outside = {tile for tile, node in mentions if not node.inside("data-opponent-hand")}
        bad = (outside - own - laid) | (inside - other)
        allowed = own | laid | other
    bad |= {norm(m.group(0)) for m in BARE_TILE.finditer(html)} - allowed
    return bad


class Scanner:
    """Counts what was checked and what leaked."""

    def __init__(self) -> None:
        self.responses = 0
        self.frames = 0
        self.leaks = 0
        self.examples: list[str] = []
        self._states: dict[tuple[str, int], object] = {}
        self._folded: dict[str, tuple[object, int]] = {}

    def state_at(self, table: Table, seq: int):
        """The round as it stood right after event `seq` of the table's room."""
        key = (table.room, seq)
        if key not in self._states:
            room, last = self._folded.get(table.room, (None, -1))
            kind = table.services.rooms.get(table.room).kind
            newer = [event for event in table.log if event[0] > last]
            room, rounds = fold_rounds(table.room, kind, newer, room)
            self._states.update(((table.room, s), state) for s, state in rounds.items())
            self._folded[table.room] = (room, max(rounds, default=last))
        return self._states[key]

    def forget(self, room_id: str) -> None:
        """Drop the folded states of a room that is done with."""
        self._folded.pop(room_id, None)
        self._states = {key: state for key, state in self._states.items() if key[0] != room_id}

    def check(self, table: Table, html: str, frame: bool) -> None:
        if frame:
            self.frames += 1
        else:
            self.responses += 1
        if table.room is None or table.services.rooms.get(table.room) is None:
            return
        found = SEQ.search(html)
        state = self.state_at(table, int(found.group(1))) if found is not None else table.state
        if state is None:
            return
        seat = table.seat
        bad = leaked_tiles(html, state, seat)
        if bad:
            self.leaks += 1
            if len(self.examples) < 5:
                where = "frame" if frame else "response"
                self.examples.append(f"{where} to seat {seat} in {table.room}: {sorted(bad)}")


def fold_rounds(room_id: str, kind: str, events, room=None):
    """Fold stored events `(seq, type, data)` onto `room` (None: from the start): the room
    after them, and the round as it stood right after each event, by seq."""
    rounds = {}
    for seq, type_, data in events:
        room = (
            fold(room_id, kind, [(seq, type_, data)])
            if room is None
            else apply(room, type_, data, seq)
        )
        rounds[seq] = room.round
    return room, rounds


class Probe(FakeSocket):
    """A fake socket that checks every frame the moment it is pushed."""

    def __init__(self, table: ScannedTable) -> None:
        super().__init__([])
        self.table = table

    def send(self, text: str) -> None:
        super().send(text)
        self.table.note(str(text))
        self.table.scanner.check(self.table, str(text), frame=True)


class ScannedTable(Table):
    """A browser whose every HTML answer is checked; its newest table is the highest seq."""

    def __init__(self, app, scanner: Scanner, room: str | None = None) -> None:
        super().__init__(app, room)
        self.scanner = scanner
        self.newest: tuple[int, int, str] | None = None
        self._parsed = None

    def note(self, text: str) -> None:
        found = SEQ.search(text)
        if found is not None:
            entry = (int(found.group(1)), len(self.seen), text)
            if self.newest is None or entry[:2] >= self.newest[:2]:
                self.newest = entry

    def _saw(self, response):
        response = super()._saw(response)
        if response.mimetype == "text/html" and not 300 <= response.status_code < 400:
            text = response.get_data(as_text=True)
            self.note(text)
            self.scanner.check(self, text, frame=False)
        return response

    def _read_csrf(self, text: str) -> None:
        if "X-CSRFToken" in text or "csrf_token" in text:  # parse only pages that carry one
            super()._read_csrf(text)

    @property
    def html(self) -> str:
        assert self.newest is not None, "this browser has seen no table"
        return self.newest[2]

    @property
    def doc(self):
        html = self.html
        if self._parsed is None or self._parsed[0] is not html:
            self._parsed = (html, parse(html))
        return self._parsed[1]

    def connect(self, tab: str = "100.a") -> Probe:
        self.tab = tab
        self.ws = Probe(self)
        self.conn = connection(self.app, self.room, self.ws, tab)
        self.services.hub.attach(self.room, self.seat, self.conn)
        return self.ws


def _ok(response) -> None:
    assert response.status_code == 200, (response.status_code, response.get_data(as_text=True))


def friend_room(app, scanner: Scanner, rounds: int, rng: random.Random) -> int:
    """A friend room of two bots playing `rounds` rounds; returns the rounds finished."""
    a = ScannedTable(app, scanner)
    a.create_room()
    b = ScannedTable(app, scanner, a.room)
    b.open()
    assert b.join().status_code == 303
    tables = (a, b)
    a.connect("100.a")
    b.connect("100.b")
    for table in tables:
        table.fragment()
    players = [bots.get(rng.choice(FRIEND_BOTS)) for _ in tables]
    rngs = [random.Random(rng.getrandbits(64)) for _ in tables]
    done = 0
    while True:
        state = a.state
        while not state.over:
            seat = state.turn
            action = players[seat](seat_view(state, seat), rngs[seat])
            _ok(tables[seat].click(action))
            state = a.state
        done += 1
        for table in tables:  # the finished table, as a fragment and as a full page
            table.fragment()
            table.open()
        if done == rounds:
            for table in tables:  # the hub would keep the room's sockets (and all they saw)
                table.disconnect()
            scanner.forget(a.room)
            return done
        asker = rng.randrange(2)
        _ok(tables[asker].post("new-round"))
        _ok(tables[1 - asker].post("accept-new-round"))


def computer_room(app, scanner: Scanner, rounds: int, rng: random.Random) -> int:
    """A computer room with a bot in the player's seat; returns the rounds finished."""
    computer = app.extensions["domino"].computer
    p = ScannedTable(app, scanner)
    p.home()
    level = rng.choice(COMPUTER_LEVELS)
    response = p.client.post("/computer", data={"csrf_token": p.csrf, "level": level})
    assert response.status_code == 303, response.status_code
    p.room = response.headers["Location"].rsplit("/", 1)[-1]
    p.connect("100.a")
    p.open()  # nudges the computer if it opens
    assert computer.wait_idle(WAIT)
    p.fragment()
    player = bots.get(rng.choice(FRIEND_BOTS))
    own_rng = random.Random(rng.getrandbits(64))
    done = 0
    while True:
        state = p.state
        while not state.over:
            if state.turn != 0:
                p.open()  # the computer is due: nudge it as a reload would
                assert computer.wait_idle(WAIT), "the computer is still thinking"
                state = p.state
                assert state.over or state.turn == 0, "the computer did not move"
                continue
            _ok(p.click(player(seat_view(state, 0), own_rng)))
            assert computer.wait_idle(WAIT), "the computer is still thinking"
            state = p.state
        done += 1
        p.fragment()
        p.open()
        if done == rounds:
            p.disconnect()
            scanner.forget(p.room)
            return done
        _ok(p.post("new-round"))
        assert computer.wait_idle(WAIT)


def scan(
    rounds: int = 1000, seed: int = 2026, db_dir: str | None = None, per_room: int = ROUNDS_PER_ROOM
) -> dict:
    """Play at least `rounds` whole rounds through the server; the counts of what was seen."""
    rng = random.Random(seed)
    scanner = Scanner()
    played = rooms = computer = 0
    with tempfile.TemporaryDirectory(dir=db_dir) as folder:
        app = make_app(Path(folder) / "leaks.sqlite3", seed)
        try:
            while played < rounds:
                want = min(per_room, rounds - played)
                if rooms % COMPUTER_EVERY == COMPUTER_EVERY - 1:
                    played += computer_room(app, scanner, want, rng)
                    computer += 1
                else:
                    played += friend_room(app, scanner, want, rng)
                rooms += 1
        finally:
            app.extensions["domino"].rooms.store.close()
    return {
        "rounds": played,
        "responses": scanner.responses,
        "frames": scanner.frames,
        "leaks": scanner.leaks,
        "rooms": rooms,
        "computer_rooms": computer,
        "examples": scanner.examples,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    began = time.perf_counter()
    result = scan(args.rounds, args.seed)
    seconds = time.perf_counter() - began
    print(
        f"{result['rounds']} rounds in {result['rooms']} rooms "
        f"({result['computer_rooms']} against the computer), {seconds:.1f}s"
    )
    print(f"checked {result['responses']} responses and {result['frames']} socket frames")
    print(f"leaks: {result['leaks']}")
    for example in result["examples"]:
        print(f"  {example}")
    keys = ("rounds", "responses", "frames", "leaks")
    print(json.dumps({key: result[key] for key in keys}))
    sys.exit(1 if result["leaks"] else 0)


if __name__ == "__main__":
    main()
