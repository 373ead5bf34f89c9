"""Stake tables (SPEC §13, docs/coins.md) in the lobby's database: forming as players join,
seated by a wave, expired when left unfilled, settled by their match's result.

- **Joining** (`join_stake`) is one write: the player's place at a forming table of the game
  and stake (`domino.players.pairing.forming_table`: the oldest with a free seat and no block
  between them and anyone at it; else a new one), and their stake held in the table's escrow
  (`domino.lobby.ledger.hold_transfer`, keyed by this join). Too few coins, or a stake held
  already, refuse it and nothing changes (`QueueRefused`: `not-enough-coins`,
  `already-staked`). A free game's queue entry the player had is replaced.
- **Leaving** before the table is full (`leave_in`, from `Queue.leave_queue`) returns the
  stake in the same write; the last to leave closes the table's escrow `expired`.
- **Expiry** (`expire_stakes`, each wave): a table still forming `wait` seconds after it
  opened (`DOMINO_STAKE_WAIT_SECONDS`) returns every stake, closes its escrow `expired`, takes
  its players out of the queue and leaves each a notice for their waiting page.
- **Seating** (`seat_in`, from `Queue.record_wave`): a full table becomes `seated` with its
  room only if it is still forming with exactly the queue entries the wave read (one left,
  or left and came back, or it expired meanwhile: that room is nobody's, and its players
  stay as they are).
- **Settling** (`settle_result_in`, from `Results.apply_result`, in its transaction): the
  result of a seated table's room pays its escrow out by `domino.players.coins.settle`, keyed
  by the result's key, and the table is `settled`. A stake room's result the lobby did not
  seat is recorded and pays nothing.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from dataclasses import dataclass

from ..players import coins
from ..players.pairing import forming_table
from ..players.results import Result, Seat
from .journal import LedgerError, held_in
from .ledger import expire_in, hold_transfer, post, release_in, settle_in

WAIT_SECONDS = 120.0  # a stake table not full this long after it opened expires (SPEC §13)


class QueueRefused(Exception):
    """A join refused, nothing changed; `code` is the refusal's (web/view/messages.py)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class StakeTable:
    """A stake table: its game, stake a seat and seats, when it opened, its state
    (`forming`, `seated`, `expired`, `settled`) and, once seated, its room."""

    id: str
    game: str
    stake: int
    seats: int
    opened_at: float
    state: str
    room: str | None


@dataclass(frozen=True, slots=True)
class Notice:
    """What became of a player's stake table while they waited: `what` is `expired`."""

    player: str
    table_id: str
    game: str
    stake: int
    what: str
    at: float


TABLE_COLUMNS = "id, game, stake, seats, opened_at, state, room"


def new_table_id() -> str:
    return "s" + secrets.token_urlsafe(9)


def join_in(
    conn: sqlite3.Connection,
    player: str,
    game: str,
    stake: int,
    seats: int,
    now: float,
    wait: float = WAIT_SECONDS,
) -> str:
    """`join_stake` in the caller's transaction: the table joined."""
    sql = "SELECT table_id FROM queue WHERE player = ?"
    entry = conn.execute(sql, [player]).fetchone()
    if entry is not None and entry[0] is not None:
        raise QueueRefused("already-staked")
    rows = conn.execute(
        "SELECT id FROM stake_tables WHERE state = 'forming' AND game = ? AND stake = ?"
        " AND opened_at > ? ORDER BY opened_at, id",
        [game, stake, now - wait],
    ).fetchall()
    forming = [(table, _members(conn, table)) for (table,) in rows]
    blocks = {
        frozenset(pair)
        for pair in conn.execute(
            "SELECT blocker, blocked FROM blocks WHERE blocker = ? OR blocked = ?", [player, player]
        )
    }
    table = forming_table(player, forming, seats, blocks)
    if table is None:
        table = new_table_id()
        conn.execute(
            "INSERT INTO stake_tables (id, game, stake, seats, opened_at, state, changed_at)"
            " VALUES (?, ?, ?, ?, ?, 'forming', ?)",
            [table, game, stake, seats, now, now],
        )
    hold = f"stake:{table}:{player}:{secrets.token_urlsafe(6)}"
    try:
        post(conn, [hold_transfer(hold, player, table, stake)], now)
    except LedgerError as error:
        if error.code == "not-enough-coins":
            raise QueueRefused("not-enough-coins") from error
        raise
    conn.execute("DELETE FROM queue_seated WHERE player = ?", [player])
    conn.execute("DELETE FROM stake_notices WHERE player = ?", [player])
    conn.execute(
        "INSERT OR REPLACE INTO queue (player, game, stake, since, table_id, hold)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [player, game, stake, now, table, hold],
    )
    return table


def _members(conn: sqlite3.Connection, table: str) -> list[str]:
    sql = "SELECT player FROM queue WHERE table_id = ? ORDER BY since, player"
    return [row[0] for row in conn.execute(sql, [table])]


def leave_in(conn: sqlite3.Connection, player: str, now: float) -> int | None:
    """Take the player out of the queue (the caller's transaction), returning a stake held
    at a forming table; the coins returned, None if they were not queued."""
    sql = "SELECT table_id, hold FROM queue WHERE player = ?"
    entry = conn.execute(sql, [player]).fetchone()
    if entry is None:
        return None
    conn.execute("DELETE FROM queue WHERE player = ?", [player])
    table, hold = entry
    if table is None:
        return 0
    returned = release_in(conn, hold, player, table, now)
    if not _members(conn, table):  # nobody left at it: it will never fill
        _expire(conn, table, now)
    return returned


def _expire(conn: sqlite3.Connection, table: str, now: float) -> None:
    """A forming table expires: what its escrow holds goes back (`ledger.expire_in`: a stake
    of an account deleted meanwhile too), the escrow closes `expired`, and so does the table."""
    expire_in(conn, table, now)
    conn.execute(
        "UPDATE stake_tables SET state = 'expired', changed_at = ? WHERE id = ?", [now, table]
    )


def seat_in(conn: sqlite3.Connection, table: str, room: str, entries, now: float) -> bool:
    """Mark a full table seated in `room` (the caller's transaction) if it is still forming
    with exactly the queue entries `entries` (player, since) the wave read, and their stakes
    alone held (see the module); False, and nothing changed, if not (one who left and
    joined again meanwhile has a new entry: that room is nobody's)."""
    state = conn.execute("SELECT state FROM stake_tables WHERE id = ?", [table]).fetchone()
    if state is None or state[0] != "forming":
        return False
    sql = "SELECT player, since FROM queue WHERE table_id = ?"
    if {tuple(row) for row in conn.execute(sql, [table])} != set(entries):
        return False
    if set(held_in(conn, table)) != {player for player, _ in entries}:
        return False
    conn.execute(
        "UPDATE stake_tables SET state = 'seated', room = ?, changed_at = ? WHERE id = ?",
        [room, now, table],
    )
    return True


def settle_result_in(conn: sqlite3.Connection, result: Result, now: float) -> bool:
    """Pay out the escrow of the stake table seated in the result's room (the caller's
    transaction; see the module); False for a room the lobby seated no table in."""
    row = conn.execute(
        "SELECT id, stake FROM stake_tables WHERE room = ? AND state IN ('seated', 'settled')",
        [result.room],
    ).fetchone()
    if row is None or row[1] != result.stake:
        return False
    table, stake = row
    held = held_in(conn, table)
    # Only a player who holds the stake shares the pot (as every seated one does); one held
    # but not at the table (never so) is refunded rather than kept.
    seats = [
        seat
        if seat.player in held
        else Seat(seat.seat, seat.side, seat.place, None, seat.computer, seat.abandoned)
        for seat in result.seats
    ]
    payouts = coins.settle(stake, seats)
    at_table = {seat.player for seat in seats}
    payouts += [p for p in coins.refunds(held) if p.player not in at_table]
    settle_in(conn, table, result.key, payouts, now)
    conn.execute(
        "UPDATE stake_tables SET state = 'settled', changed_at = ? WHERE id = ?", [now, table]
    )
    return True


def expire_in_tables(conn: sqlite3.Connection, before: float, now: float) -> list[str]:
    """Expire every table still forming that opened at or before `before` (the caller's
    transaction): the tables expired."""
    sql = "SELECT id, game, stake FROM stake_tables WHERE state = 'forming' AND opened_at <= ?"
    expired = conn.execute(sql, [before]).fetchall()
    for table, game, stake in expired:
        for player in _members(conn, table):
            conn.execute(
                "INSERT OR REPLACE INTO stake_notices (player, table_id, game, stake, what, at)"
                " VALUES (?, ?, ?, ?, 'expired', ?)",
                [player, table, game, stake, now],
            )
        conn.execute("DELETE FROM queue WHERE table_id = ?", [table])
        _expire(conn, table, now)
    return [row[0] for row in expired]


class Stakes:
    """Mixin of `Lobby`: stake tables, each write one transaction of the lobby's writer."""

    def join_stake(
        self,
        player: str,
        game: str,
        stake: int,
        seats: int,
        now: float | None = None,
        wait: float = WAIT_SECONDS,
    ) -> str:
        """Queue `player` at a stake table of `game` (`seats` seats) with their stake held
        (see the module): the table's id; QueueRefused if it is refused."""
        now = time.time() if now is None else now
        return self._write(lambda conn: join_in(conn, player, game, stake, seats, now, wait))

    def expire_stakes(self, before: float, now: float | None = None) -> list[str]:
        """Expire the tables still forming that opened at or before `before`: their ids (a
        read first: no write when none is due)."""
        sql = "SELECT 1 FROM stake_tables WHERE state = 'forming' AND opened_at <= ? LIMIT 1"
        if self._row(sql, [before]) is None:
            return []
        now = time.time() if now is None else now
        return self._write(lambda conn: expire_in_tables(conn, before, now))

    def stake_table(self, table: str) -> StakeTable | None:
        row = self._row(f"SELECT {TABLE_COLUMNS} FROM stake_tables WHERE id = ?", [table])
        return None if row is None else StakeTable(**row)

    def stake_tables(self, state: str | None = None) -> list[StakeTable]:
        """Every stake table (in one state), the oldest first."""
        where, params = ("WHERE state = ?", [state]) if state else ("", [])
        sql = f"SELECT {TABLE_COLUMNS} FROM stake_tables {where} ORDER BY opened_at, id"
        return [StakeTable(**row) for row in self._rows(sql, params)]

    def stake_notice(self, player: str) -> Notice | None:
        """What became of the player's last stake table while they waited, if anything."""
        sql = "SELECT player, table_id, game, stake, what, at FROM stake_notices WHERE player = ?"
        row = self._row(sql, [player])
        return None if row is None else Notice(**row)
