"""Quick match's waves (SPEC §12): every few seconds, and at once when someone joins, the
lobby pairs its queue (`domino.players.pairing.pair`) and opens each table.

A wave reads the queue and the blocks among those waiting, asks the pure pairing for the
tables to open, opens each one through ONE narrow function, `open_table(game, seats)`, and
records the seated players (and takes them out of the queue) in one write. A table that
could not be opened leaves its players queued for the next wave.

`open_table` is the seam between the lobby and the rooms. In one process (LOBBY "here") it is
`in_process(tables)`: the rooms' owner (`Tables.create_public`) called directly. In a cluster
the lobby's process has no rooms: the same function would POST the game and seats to a shard,
proved with an HMAC of the shared secret key, and return what the shard answered (not built
yet; issue 31's cluster part).

A player is paired by the rating the lobby keeps for the game's kind (two seats: `duel`;
three or four: `table`), as the player page shows it (`lobby_rating`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ...lobby.ratings import kind_of
from ...players.pairing import FILL_SECONDS, SEATS, Waiting, pair
from .tables import Opened

RATING = 1500.0  # a rating for tests that leave ratings out (a new player's shown rating)
WAVE_SECONDS = 2.0

log = logging.getLogger(__name__)


def in_process(tables) -> Callable:
    """The seam's in-process side: open the public room on this process's rooms' owner."""

    def open_table(game: str, seats) -> Opened:
        return tables.create_public(game, seats)

    return open_table


def lobby_rating(lobby) -> Callable[[str, str], float]:
    """A player's rating for a game's queue: the shown rating of the game's kind."""

    def rating(player: str, game: str) -> float:
        return float(lobby.rating(player, kind_of(SEATS[game])).shown)

    return rating


class Waves:
    """The lobby's waves over its queue. `wave()` runs one (tests call it with a fake clock);
    `start()` runs them in the background every `every` seconds, and at once after `poke()`."""

    def __init__(
        self,
        lobby,
        open_table: Callable,
        fill: float = FILL_SECONDS,
        every: float = WAVE_SECONDS,
        clock: Callable[[], float] = time.time,
        rating: Callable[[str, str], float] = lambda player, game: RATING,
    ) -> None:
        self.lobby = lobby
        self.open_table = open_table
        self.fill = fill
        self.every = every
        self.clock = clock
        self.rating = rating
        self._poked = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._one = threading.Lock()  # one wave at a time

    def wave(self) -> list[Opened]:
        """Pair the queue now and open its tables; the tables opened."""
        with self._one:
            return self._wave(self.clock())

    def _wave(self, now: float) -> list[Opened]:
        queued = self.lobby.waiting()
        if not queued:
            return []
        names, gone = {}, []
        for entry in queued:
            found = self.lobby.player(entry.player)
            if found is None:
                gone.append(entry.player)
            else:
                names[entry.player] = found.name
        if gone:  # deleted accounts
            self.lobby.drop_queued(gone)
        entries = {e.player: e for e in queued if e.player in names}
        waiting = [
            Waiting(e.player, e.game, self.rating(e.player, e.game), e.since, e.stake)
            for e in entries.values()
        ]
        blocks = self.lobby.blocks_among(entries)
        opened, seated = [], []
        for table in pair(waiting, now, blocks, fill=self.fill):
            seats = [None if p is None else (p, names[p]) for p in table.seats]
            try:
                room = self.open_table(table.game, seats)
            except Exception:  # logged; its players stay queued for the next wave
                log.exception("opening a %s table failed", table.game)
                continue
            opened.append(room)
            seated += [(entries[p], room.room, room.grants[p]) for p in table.people]
        if seated:
            self.lobby.record_wave(seated, now)
        return opened

    def poke(self) -> None:
        """Run a wave soon (someone joined): the loop wakes at once."""
        self._poked.set()

    def start(self) -> None:
        """Run waves in the background (a thread; a greenlet under gevent's patching)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="quick-match-waves", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._poked.wait(self.every)
            self._poked.clear()
            if self._stop.is_set():
                break
            try:
                self.wave()
            except Exception:  # logged; the next wave tries again
                log.exception("a quick match wave failed")

    def stop(self) -> None:
        """Stop the background waves (the wave under way finishes first)."""
        self._stop.set()
        self._poked.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
