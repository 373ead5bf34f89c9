"""Quick match's waves (SPEC §12): every few seconds, and at once when someone joins, the
lobby pairs its queue (`domino.players.pairing.pair`) and opens each table.

A wave reads the queue and the blocks among those waiting, asks the pure pairing for the
tables to open, opens each one through ONE narrow function, `open_table(game, seats)`, and
records the seated players (and takes them out of the queue) in one write. A table that
could not be opened leaves its players queued for the next wave.

`open_table` is the seam between the lobby and the rooms. In one process (LOBBY "here") it is
`in_process(tables)`: the rooms' owner (`Tables.create_public`) called directly; a stake
table (SPEC §13) passes its stake too, `open_table(game, seats, stake)`. In a cluster
the lobby's process has no rooms: `over_http(shard_urls, secret_key)` POSTs the game and
seats to a shard's own address (`DOMINO_SHARD_URLS`) at `PATH`, signed with an HMAC of the
shared secret key (itsdangerous, salt `SALT`), where the shard calls the same
`Tables.create_public` (web/routes/tables_in.py) and answers the room and its grants. Tables
are spread over the shards in turn; a shard that fails (down, slow past `TIMEOUT`, refusing)
is passed over for the next, and when every shard failed the call raises, so the wave leaves
the table's players queued. nginx never routes `PATH` from outside.

A stake table (SPEC §13) forms as its players join (`domino.lobby.stakes`); a wave opens it
once full, with its stake, and first expires every one still forming `stake_wait` seconds
after it opened (`DOMINO_STAKE_WAIT_SECONDS`), every stake returned.

A player is paired by the rating the lobby keeps for the game's kind (two seats: `duel`;
three or four: `table`), as the player page shows it (`lobby_rating`).
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from itsdangerous import URLSafeTimedSerializer

from ...lobby.ratings import kind_of
from ...lobby.stakes import WAIT_SECONDS
from ...players.pairing import FILL_SECONDS, SEATS, Waiting, pair
from .tables import Opened

RATING = 1500.0  # a rating for tests that leave ratings out (a new player's shown rating)
WAVE_SECONDS = 2.0
OPENING = 8  # a wave's tables opened at once (threads; greenlets under gevent)
# The seam over HTTP: a shard's endpoint (web/routes/tables_in.py), its signature's salt, how
# long a signed request verifies, and the seconds one attempt at one shard may take.
PATH = "/internal/tables"
SALT = "domino-tables"
MAX_AGE = 60
TIMEOUT = 3.0

log = logging.getLogger(__name__)


def in_process(tables) -> Callable:
    """The seam's in-process side: open the public room on this process's rooms' owner."""

    def open_table(game: str, seats, stake: int = 0) -> Opened:
        return tables.create_public(game, seats, stake)

    return open_table


def signer(secret_key: str) -> URLSafeTimedSerializer:
    """The serializer the lobby signs a table with and the shard checks it with."""
    return URLSafeTimedSerializer(secret_key, salt=SALT)


class NoShard(RuntimeError):
    """No shard opened the table (each one's failure is in the message)."""


def over_http(
    shard_urls: Sequence[str], secret_key: str, timeout: float = TIMEOUT
) -> Callable[..., Opened]:
    """The seam's side in a cluster: open the public room on a shard (its own address, e.g.
    http://10.0.0.2:8001), each table on the next shard in turn, passing over one that fails;
    NoShard if none opened it. `timeout` bounds each attempt's connection and each read."""
    urls = [url.rstrip("/") for url in shard_urls if url.strip()]
    if not urls:
        raise ValueError("over_http needs at least one shard's URL")
    sign = signer(secret_key)
    turns = itertools.count()
    turn_lock = threading.Lock()

    def open_table(game: str, seats, stake: int = 0) -> Opened:
        payload = {"game": game, "seats": [None if s is None else list(s) for s in seats]}
        if stake:
            payload["stake"] = stake
        people = {s[0] for s in seats if s is not None}
        with turn_lock:
            first = next(turns) % len(urls)
        failures = []
        for url in urls[first:] + urls[:first]:
            try:
                return _post_table(url + PATH, sign.dumps(payload), people, timeout)
            except _Refused as error:  # the table itself was refused: so would it be anywhere
                raise NoShard(f"{url}: {error}") from error
            except Exception as error:  # down, slow, or a wrong answer: the next shard
                log.warning("opening a %s table on %s failed (%s)", game, url, error)
                failures.append(f"{url}: {error}")
        raise NoShard("no shard opened the table: " + "; ".join(failures))

    return open_table


class _Refused(Exception):
    """A shard's 400: the payload is wrong, not the shard."""


def _post_table(target: str, body: str, people: set, timeout: float) -> Opened:
    """One attempt: POST the signed table to one shard; its answer, checked, as Opened."""
    request = urllib.request.Request(
        target, data=body.encode(), method="POST", headers={"Content-Type": "text/plain"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.loads(response.read(64 * 1024))
    except urllib.error.HTTPError as error:
        with error:
            detail = error.read(1024).decode(errors="replace")
        if error.code == 400:
            raise _Refused(f"400 {detail}") from error
        raise RuntimeError(f"HTTP {error.code} {detail[:200]}") from error
    if not isinstance(answer, dict):
        raise RuntimeError(f"not a room and its grants: {str(answer)[:200]}")
    room, grants = answer.get("room"), answer.get("grants")
    if not isinstance(room, str) or not isinstance(grants, dict) or set(grants) != people:
        raise RuntimeError(f"not a room and its grants: {str(answer)[:200]}")
    own = f"/r/{room}/"
    if not all(isinstance(path, str) and path.startswith(own) for path in grants.values()):
        raise RuntimeError(f"grants not of room {room}: {grants}")
    return Opened(room, dict(grants))


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
        stake_wait: float = WAIT_SECONDS,
    ) -> None:
        self.lobby = lobby
        self.open_table = open_table
        self.fill = fill
        self.stake_wait = stake_wait
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
        self.lobby.expire_stakes(now - self.stake_wait, now)
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
            Waiting(e.player, e.game, self.rating(e.player, e.game), e.since, e.stake, e.table)
            for e in entries.values()
        ]
        blocks = self.lobby.blocks_among(entries)
        tables = pair(waiting, now, blocks, fill=self.fill)
        opened, seated = [], []
        for table, room in zip(tables, self._open(tables, names), strict=True):
            if room is None:  # logged; its players stay queued for the next wave
                continue
            opened.append(room)
            seated += [(entries[p], room.room, room.grants[p]) for p in table.people]
        if seated:
            self.lobby.record_wave(seated, now)
        return opened

    def _open(self, tables, names) -> list[Opened | None]:
        """Open the wave's tables, OPENING at a time: their rooms' commits share the store's
        group commits (in a cluster, their shards' requests run side by side), where one by
        one each waited for its own. None for a table that could not be opened."""

        def open_one(table) -> Opened | None:
            seats = [None if p is None else (p, names[p]) for p in table.seats]
            try:
                if table.stake:
                    return self.open_table(table.game, seats, table.stake)
                return self.open_table(table.game, seats)
            except Exception:
                log.exception("opening a %s table failed", table.game)
                return None

        if len(tables) <= 1 or OPENING <= 1:
            return [open_one(table) for table in tables]
        with ThreadPoolExecutor(min(OPENING, len(tables)), "quick-match-open") as pool:
            return list(pool.map(open_one, tables))

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
