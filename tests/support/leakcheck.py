"""What the leak scanner (bench/leaks.py) checks with: browsers whose every answer and frame
is checked by the one leak rule (tests/support/webkit.py `leaked_tiles`), against the room as it
stood at that table's `data-seq`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path

from domino.room import apply, fold
from tests.support.webkit import FakeSocket, Table, connection, leaked_tiles, parse

ROOT = Path(__file__).resolve().parents[2]


SEQ = re.compile(r'data-seq="(\d+)"')


class Scanner:
    """Counts what was checked and what leaked."""

    def __init__(self) -> None:
        self.responses = 0
        self.frames = 0
        self.leaks = 0
        self.examples: list[str] = []
        self.partnered = 0  # tables checked while the seat's partner still held tiles
        self._lock = threading.RLock()
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
        """Check one answer or frame sent to `table` (frames may come from the computer's
        thread while an answer is checked)."""
        with self._lock:
            self._check(table, html, frame)

    def _check(self, table: Table, html: str, frame: bool) -> None:
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
        self.partnered += seat is not None and state.rules.teams and not state.over
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


def check_kept(db: Path, rooms) -> tuple[int, int]:
    """Check every table each seat of `rooms` (bench/load.py's, by seat, each seat's `kept`
    tables as (seq, html)) received, against the stored log of database `db`, for tiles it
    may not see: (tables checked, leaks)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    checked = leaked = 0
    try:
        for room in rooms:
            kind = conn.execute("SELECT kind FROM rooms WHERE id = ?", [room.id]).fetchone()[0]
            rows = conn.execute(
                "SELECT seq, type, data FROM events WHERE room = ? ORDER BY seq", [room.id]
            )
            events = [(seq, type_, json.loads(data)) for seq, type_, data in rows]
            _room, states = fold_rounds(room.id, kind, events)
            for seat, browser in enumerate(room.seats):
                for seq, text in browser.kept:
                    if states.get(seq) is None:
                        continue
                    checked += 1
                    leaked += bool(leaked_tiles(text, states[seq], seat))
    finally:
        conn.close()
    return checked, leaked
