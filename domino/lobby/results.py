"""Results applied once (ARCHITECTURE.md "Growing the house"), ratings and the League
(SPEC §12), in the lobby's database.

`apply_result` takes a shard's report of a finished match (`domino.players.results`) in one
write job: a key already applied changes nothing; otherwise the result is stored, and for a
public room each signed-in player's rating of the table's kind moves as `ratings.rate` says
(partners rated as a team, a computer seat at its level's fixed rating, half as far with a
computer at the table, an abandoned seat's side placed last) and each earns the League points
`league.points` gives. Friend rooms never count (SPEC §12): their results are recorded, once,
with no rating or League change.

The match's coins (SPEC §13, `domino.players.coins.rewards`) are paid in the same write, by
the result's key: a public match pays every place, a friend room with at least two players
its winning side half the first place, the computer alone nothing. A result applied twice
pays once, and a write that fails pays nothing (the journal's batch is in its transaction).
Only players the lobby knows are paid (a deleted player's seat earns nothing).

A stake table's match (SPEC §13) pays no reward: its escrow's pot is the prize, paid out in
the same write (`domino.lobby.stakes.settle_result_in`). The result of a stake room the lobby
never seated (opened while its table changed: nobody's) is recorded and counts for nothing.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass

from ..players import league
from ..players.results import Result, parse
from .ledger import player_account, post, result_rewards
from .ratings import KINDS, NEW, Rating, kind_of, rate
from .stakes import settle_result_in

COUNTED = ("public",)  # the kinds of room whose matches move ratings and earn League points


@dataclass(frozen=True, slots=True)
class Applied:
    """What applying a result did: `new` False if its key was known (nothing changed)."""

    key: str
    new: bool
    counted: bool


class Results:
    """Mixin of `Lobby`: results, ratings and the League."""

    def apply_result(self, data: object, now: float | None = None) -> Applied:
        """Apply a finished match's result at most once (see the module); BadResult (a
        ValueError) if it is not one, and then nothing changes."""
        result = parse(data)
        now = time.time() if now is None else now
        counted = result.kind in COUNTED

        def apply(conn: sqlite3.Connection) -> Applied:
            known = conn.execute("SELECT 1 FROM results WHERE key = ?", [result.key]).fetchone()
            if known:
                return Applied(result.key, False, counted)
            conn.execute(
                "INSERT INTO results (key, room, kind, result, finished_at, applied_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [
                    result.key,
                    result.room,
                    result.kind,
                    json.dumps(data, sort_keys=True),
                    result.finished_at,
                    now,
                ],
            )
            if result.stake and not settle_result_in(conn, result, now):
                return Applied(result.key, True, False)  # a room nobody's
            if counted:
                _count(conn, result, now)
            _reward(conn, result, now)
            return Applied(result.key, True, counted)

        return self._write(apply)

    def result_keys(self) -> list[str]:
        """Every applied result's key, in the order applied."""
        return [row["key"] for row in self._rows("SELECT key FROM results ORDER BY rowid")]

    def rating(self, player: str, kind: str) -> Rating:
        """The player's `duel` or `table` rating (a new one before their first match)."""
        row = self._row(
            "SELECT mu, sigma, matches FROM ratings WHERE player = ? AND kind = ?", [player, kind]
        )
        return NEW if row is None else Rating(row["mu"], row["sigma"], row["matches"])

    def ratings(self, player: str) -> dict[str, Rating]:
        """Both of the player's ratings, by kind."""
        return {kind: self.rating(player, kind) for kind in KINDS}

    def league_results(self, week: float) -> list[league.Result]:
        """Each player's share of each counted match of the week starting at `week`, with
        the player's name now (a deleted player's rows left out)."""
        rows = self._rows(
            "SELECT league.player, players.name, league.points, league.finished_at"
            " FROM league JOIN players ON players.id = league.player"
            " WHERE league.week = ? ORDER BY league.finished_at, league.key",
            [week],
        )
        return [
            league.Result(row["player"], row["name"], row["points"], row["finished_at"])
            for row in rows
        ]

    def standings(self, week: float | None = None) -> list[league.Row]:
        """The League table of the week starting at `week` (this week by default)."""
        week = league.week_of(time.time()) if week is None else week
        return league.standings(self.league_results(week), week)

    def league_row(self, player: str, week: float | None = None) -> league.Row | None:
        """The player's row of the week's League table, if they played in it."""
        return next((row for row in self.standings(week) if row.player == player), None)


def _count(conn: sqlite3.Connection, result: Result, now: float) -> None:
    """Move the players' ratings and write their League rows (the caller's transaction)."""
    kind = kind_of(len(result.seats))
    known = {
        player
        for player in result.players()
        if conn.execute("SELECT 1 FROM players WHERE id = ?", [player]).fetchone()
    }
    sides = sorted({seat.side for seat in result.seats})
    members = {side: [seat for seat in result.seats if seat.side == side] for side in sides}
    # An abandoned seat's side is placed last: below every side with no abandoned seat.
    gone = {side for side in sides if any(seat.abandoned for seat in members[side])}
    key = {side: (side in gone, members[side][0].place) for side in sides}
    place = {side: 1 + sum(key[other] < key[side] for other in sides) for side in sides}
    before = {player: _rating(conn, player, kind) for player in known}
    entries = [
        [
            seat.computer
            if seat.computer
            else before.get(seat.player, NEW)  # a guest: rated as new, kept nowhere
            for seat in members[side]
        ]
        for side in sides
    ]
    after = rate(entries, [place[side] for side in sides])
    for side, row in zip(sides, after, strict=True):
        for seat, rating in zip(members[side], row, strict=True):
            if seat.player in known:
                conn.execute(
                    "INSERT INTO ratings (player, kind, mu, sigma, matches, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (player, kind) DO UPDATE SET"
                    " mu = excluded.mu, sigma = excluded.sigma, matches = excluded.matches,"
                    " updated_at = excluded.updated_at",
                    [seat.player, kind, rating.mu, rating.sigma, rating.matches, now],
                )
    earned = league.points(
        [place[seat.side] for seat in result.seats], result.teams, result.computer
    )
    week = league.week_of(result.finished_at)
    for seat, points in zip(result.seats, earned, strict=True):
        if seat.player in known:
            conn.execute(
                "INSERT OR IGNORE INTO league (key, player, points, week, finished_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [result.key, seat.player, points, week, result.finished_at],
            )


def _reward(conn: sqlite3.Connection, result: Result, now: float) -> None:
    """Pay the match's rewards to the players the lobby knows (the caller's transaction)."""
    known = {
        player_account(player)
        for player in result.players()
        if conn.execute("SELECT 1 FROM players WHERE id = ?", [player]).fetchone()
    }
    post(conn, [t for t in result_rewards(result) if t.credit in known], now)


def _rating(conn: sqlite3.Connection, player: str, kind: str) -> Rating:
    row = conn.execute(
        "SELECT mu, sigma, matches FROM ratings WHERE player = ? AND kind = ?", [player, kind]
    ).fetchone()
    return NEW if row is None else Rating(*row)
