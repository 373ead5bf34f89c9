"""Quick match's queue (SPEC §12): who waits for which public game, and where a wave seated
them. The waves themselves run in the web layer (web/live/waves.py) with the pure pairing
(`domino.players.pairing`); this is their storage (a `LobbyDatabase` mixin)."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from .stakes import QueueRefused, leave_in, seat_in


@dataclass(frozen=True, slots=True)
class Queued:
    """A player's place in the queue."""

    player: str
    game: str
    stake: int
    since: float
    table: str | None = None  # a stake table's id (domino.lobby.stakes)


COLUMNS = "player, game, stake, since, table_id AS `table`"


@dataclass(frozen=True, slots=True)
class Seated:
    """Where a wave seated a player: the room, the path of their seat grant, when."""

    player: str
    room: str
    grant: str
    at: float


class Queue:
    """The queue's part of the lobby."""

    def join_queue(self, player: str, game: str, now: float | None = None) -> Queued:
        """Queue `player` for the free table of `game`: one entry per player, so joining
        again replaces the game (the same game again keeps the place). Forgets where they
        were last seated: the waiting page then waits for a new table. QueueRefused
        (`already-staked`) while they wait at a stake table (`Stakes.join_stake`): they
        leave it first, and get their stake back."""
        now = time.time() if now is None else now

        def join(conn: sqlite3.Connection) -> tuple:
            sql = "SELECT 1 FROM queue WHERE player = ? AND table_id IS NOT NULL"
            if conn.execute(sql, [player]).fetchone():
                raise QueueRefused("already-staked")
            conn.execute("DELETE FROM queue_seated WHERE player = ?", [player])
            conn.execute(
                "INSERT INTO queue (player, game, stake, since) VALUES (?, ?, 0, ?)"
                " ON CONFLICT (player) DO UPDATE SET game = excluded.game,"
                " since = excluded.since WHERE game != excluded.game",
                [player, game, now],
            )
            return conn.execute(
                f"SELECT {COLUMNS} FROM queue WHERE player = ?", [player]
            ).fetchone()

        return Queued(*self._write(join))

    def leave_queue(self, player: str, now: float | None = None) -> int | None:
        """Take `player` out of the queue, with the stake they held at a table still forming
        returned in the same write: the coins returned (0 at a free table), None if they
        were not in it."""
        now = time.time() if now is None else now
        return self._write(lambda conn: leave_in(conn, player, now))

    def queued(self, player: str) -> Queued | None:
        """The player's place in the queue, if any."""
        row = self._row(f"SELECT {COLUMNS} FROM queue WHERE player = ?", [player])
        return Queued(**row) if row else None

    def waiting(self) -> list[Queued]:
        """Everyone in the queue, the longest-waiting first."""
        sql = f"SELECT {COLUMNS} FROM queue ORDER BY since, player"
        return [Queued(**row) for row in self._rows(sql)]

    def seated(self, player: str) -> Seated | None:
        """Where the latest wave that seated `player` seated them, if one did since they
        last joined the queue."""
        sql = "SELECT player, room, grant, at FROM queue_seated WHERE player = ?"
        row = self._row(sql, [player])
        return Seated(**row) if row else None

    def blocks_among(self, players) -> set[frozenset[str]]:
        """The pairs of `players` of whom one blocks the other (never seated together)."""
        players = list(players)
        if not players:
            return set()
        marks = ",".join("?" * len(players))
        sql = (
            f"SELECT blocker, blocked FROM blocks WHERE blocker IN ({marks})"
            f" AND blocked IN ({marks})"
        )
        return {frozenset((r["blocker"], r["blocked"])) for r in self._rows(sql, players * 2)}

    def record_wave(self, seated, now: float | None = None) -> None:
        """A wave's tables, in one write: for each (entry, room, grant) the player is seated
        there and their entry leaves the queue (only the entry the wave paired: one joined
        again meanwhile, for another game, stays queued with it). A stake table's players
        are seated only if it is still forming with exactly them (`stakes.seat_in`)."""
        now = time.time() if now is None else now
        stake_rooms: dict[str, tuple[str, list[tuple[str, float]]]] = {}
        for entry, room, _grant in seated:
            if entry.table is not None:
                stake_rooms.setdefault(entry.table, (room, []))[1].append(
                    (entry.player, entry.since)
                )

        def record(conn: sqlite3.Connection) -> None:
            seats_taken = {
                table
                for table, (room, entries) in stake_rooms.items()
                if seat_in(conn, table, room, entries, now)
            }
            for entry, room, grant in seated:
                if entry.table is not None and entry.table not in seats_taken:
                    continue  # its table changed while the room opened: that room is nobody's
                conn.execute(
                    "DELETE FROM queue WHERE player = ? AND game = ? AND since = ?",
                    [entry.player, entry.game, entry.since],
                )
                conn.execute(
                    "INSERT OR REPLACE INTO queue_seated (player, room, grant, at)"
                    " VALUES (?, ?, ?, ?)",
                    [entry.player, room, grant, now],
                )

        self._write(record)

    def drop_queued(self, players) -> None:
        """Take players out of the queue who are no longer players (a deleted account)."""
        players = list(players)

        def drop(conn: sqlite3.Connection) -> None:
            conn.executemany("DELETE FROM queue WHERE player = ?", [[p] for p in players])

        if players:
            self._write(drop)
