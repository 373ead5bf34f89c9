"""Quick match's queue (SPEC §12): who waits for which public game, and where a wave seated
them. The waves themselves run in the web layer (web/live/waves.py) with the pure pairing
(`domino.players.pairing`); this is their storage (a `LobbyDatabase` mixin)."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Queued:
    """A player's place in the queue."""

    player: str
    game: str
    stake: int
    since: float


@dataclass(frozen=True, slots=True)
class Seated:
    """Where a wave seated a player: the room, the path of their seat grant, when."""

    player: str
    room: str
    grant: str
    at: float


class Queue:
    """The queue's part of the lobby."""

    def join_queue(
        self, player: str, game: str, stake: int = 0, now: float | None = None
    ) -> Queued:
        """Queue `player` for `game`: one entry per player, so joining again replaces the
        game (the same game and stake again keeps the place). Forgets where they were last
        seated: the waiting page then waits for a new table."""
        now = time.time() if now is None else now

        def join(conn: sqlite3.Connection) -> tuple:
            conn.execute("DELETE FROM queue_seated WHERE player = ?", [player])
            conn.execute(
                "INSERT INTO queue (player, game, stake, since) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (player) DO UPDATE SET game = excluded.game,"
                " stake = excluded.stake, since = excluded.since"
                " WHERE game != excluded.game OR stake != excluded.stake",
                [player, game, stake, now],
            )
            sql = "SELECT player, game, stake, since FROM queue WHERE player = ?"
            return conn.execute(sql, [player]).fetchone()

        return Queued(*self._write(join))

    def leave_queue(self, player: str) -> bool:
        """Take `player` out of the queue; False if they were not in it."""
        sql = "DELETE FROM queue WHERE player = ?"
        return self._write(lambda conn: conn.execute(sql, [player]).rowcount) > 0

    def queued(self, player: str) -> Queued | None:
        """The player's place in the queue, if any."""
        row = self._row("SELECT player, game, stake, since FROM queue WHERE player = ?", [player])
        return Queued(**row) if row else None

    def waiting(self) -> list[Queued]:
        """Everyone in the queue, the longest-waiting first."""
        sql = "SELECT player, game, stake, since FROM queue ORDER BY since, player"
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
        again meanwhile, for another game, stays queued with it)."""
        now = time.time() if now is None else now

        def record(conn: sqlite3.Connection) -> None:
            for entry, room, grant in seated:
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
