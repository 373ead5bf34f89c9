"""The coins' journal (SPEC §13, docs/coins.md): double-entry and append-only, in the lobby's
database, after TigerBeetle's transfers. `domino.lobby.ledger` builds the coins' operations
on it.

- **Accounts** are `bank` (issues grants and rewards; the only one that goes below zero),
  `player:<id>` and `escrow:<table>` (a table's held stakes). Each has a cached balance
  beside the journal; tools/ledger_audit.py compares it with the journal's sums.
- **A transfer** moves a positive whole amount from its debit account to its credit account,
  with a reason (`domino.players.coins.REASONS`, each between the kinds of accounts `FLOWS`
  names), a time, an optional reference (a result's key, a table) and a unique key.
  Transfers are never changed or deleted (the schema's triggers refuse it); a mistake would
  be undone by another transfer.
- **A batch** (`post`) is all or none: it runs in a savepoint of the caller's transaction
  (the lobby writer's, which holds SQLite's write lock from `BEGIN IMMEDIATE`), so no other
  write of this process or another comes between a balance's check and its debit. A key
  seen before is skipped if the transfer is the same (replayed), and refused (`key-reused`)
  if it is not. The debit is one statement, `balance = balance - amount` only where the
  balance covers it: a transfer that would take an account but the bank below zero changes
  nothing and refuses the whole batch (`not-enough-coins`).
- **Escrows** close (`close_in`), `settled` or `expired`, only when empty; a closed one
  takes no transfer (`account-closed`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from ..players import coins

BANK = "bank"
KEY_LENGTH = 500  # a result key (up to 200 and its match), a reason and a player id fit
FLOWS = {  # reason: the kinds of (debit, credit) accounts it may move coins between
    "grant": {("bank", "player")},
    "top-up": {("bank", "player")},
    "reward": {("bank", "player")},
    "stake": {("player", "escrow")},
    "refund": {("escrow", "player")},
    "pot": {("escrow", "player")},
    "forfeit": {("escrow", "player"), ("escrow", "bank")},
}
assert set(FLOWS) == set(coins.REASONS)


def player_account(player: str) -> str:
    return f"player:{player}"


def escrow_account(table: str) -> str:
    return f"escrow:{table}"


def kind(account: str) -> str | None:
    """`bank`, `player` or `escrow`; None for a name that is no account's."""
    if account == BANK:
        return BANK
    prefix, _, rest = account.partition(":")
    return prefix if prefix in ("player", "escrow") and rest else None


class LedgerError(Exception):
    """A batch refused, nothing of it written; `code` is stable: `not-enough-coins`,
    `key-reused`, `account-closed`, `escrow-not-empty` or `bad-transfer`."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


@dataclass(frozen=True, slots=True)
class Transfer:
    key: str
    debit: str
    credit: str
    amount: int
    reason: str
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Entry:
    """A line of a statement: the signed amount, and the account's balance after it."""

    id: int
    key: str
    at: float
    reason: str
    amount: int
    balance: int
    other: str  # the account on the other side
    ref: str | None


def check(transfer: Transfer) -> None:
    """Refuse (`bad-transfer`) a transfer the ledger never writes."""
    t = transfer
    flow = (kind(t.debit), kind(t.credit))
    if not isinstance(t.key, str) or not t.key or len(t.key) > KEY_LENGTH:
        raise LedgerError("bad-transfer", f"key {t.key!r}")
    if type(t.amount) is not int or t.amount <= 0:
        raise LedgerError("bad-transfer", f"{t.key}: amount {t.amount!r}")
    if t.reason not in FLOWS or flow not in FLOWS[t.reason] or t.debit == t.credit:
        raise LedgerError("bad-transfer", f"{t.key}: {t.reason} from {t.debit} to {t.credit}")


def post(conn: sqlite3.Connection, transfers: Iterable[Transfer], now: float) -> list[bool]:
    """Apply a batch in the caller's transaction, all or none (see the module); for each
    transfer, True if it was applied now, False if its key was applied before."""
    transfers = list(transfers)
    for transfer in transfers:
        check(transfer)
    conn.execute("SAVEPOINT ledger_post")
    try:
        applied = [_post(conn, transfer, now) for transfer in transfers]
    except BaseException:
        conn.execute("ROLLBACK TO ledger_post")
        conn.execute("RELEASE ledger_post")
        raise
    conn.execute("RELEASE ledger_post")
    return applied


def _post(conn: sqlite3.Connection, t: Transfer, now: float) -> bool:
    sql = "SELECT debit, credit, amount, reason, ref FROM transfers WHERE key = ?"
    known = conn.execute(sql, [t.key]).fetchone()
    if known is not None:
        if tuple(known) != (t.debit, t.credit, t.amount, t.reason, t.ref):
            raise LedgerError("key-reused", f"{t.key} was applied to another transfer")
        return False
    for account in (t.debit, t.credit):
        _open(conn, account, now)
    sql = "SELECT name FROM ledger_accounts WHERE name IN (?, ?) AND closed IS NOT NULL"
    closed = conn.execute(sql, [t.debit, t.credit]).fetchone()
    if closed is not None:
        raise LedgerError("account-closed", f"{t.key}: {closed[0]} is closed")
    debited = conn.execute(
        "UPDATE ledger_accounts SET balance = balance - ?"
        " WHERE name = ? AND (name = 'bank' OR balance >= ?)",
        [t.amount, t.debit, t.amount],
    ).rowcount
    if debited == 0:
        raise LedgerError("not-enough-coins", f"{t.key}: {t.debit} holds less than {t.amount}")
    sql = "UPDATE ledger_accounts SET balance = balance + ? WHERE name = ?"
    conn.execute(sql, [t.amount, t.credit])
    conn.execute(
        "INSERT INTO transfers (key, debit, credit, amount, reason, ref, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [t.key, t.debit, t.credit, t.amount, t.reason, t.ref, now],
    )
    return True


def _open(conn: sqlite3.Connection, account: str, now: float) -> None:
    sql = "INSERT OR IGNORE INTO ledger_accounts (name, opened_at) VALUES (?, ?)"
    conn.execute(sql, [account, now])


def balance_in(conn: sqlite3.Connection, account: str) -> int:
    """An account's balance, in the caller's transaction (0 for an account never used)."""
    row = conn.execute("SELECT balance FROM ledger_accounts WHERE name = ?", [account]).fetchone()
    return 0 if row is None else row[0]


HELD_SQL = (
    "SELECT debit AS account, amount, id FROM transfers WHERE credit = :escrow"
    " UNION ALL SELECT credit, -amount, id FROM transfers WHERE debit = :escrow ORDER BY id"
)


STATEMENT_SQL = (  # an account's entries, newest first, each with the balance after it
    "SELECT id, key, at, reason, amount, sum(amount) OVER (ORDER BY id) AS balance,"
    " other, ref FROM ("
    " SELECT id, key, at, reason, amount, debit AS other, ref FROM transfers"
    " WHERE credit = :a UNION ALL"
    " SELECT id, key, at, reason, -amount, credit, ref FROM transfers WHERE debit = :a"
    ") ORDER BY id DESC LIMIT :limit"
)


def held_in(conn: sqlite3.Connection, table: str) -> dict[str, int]:
    """What each player has in a table's escrow now (held less paid back), in the caller's
    transaction: player -> coins, in the order they first staked, zeros left out."""
    return held_from(conn.execute(HELD_SQL, {"escrow": escrow_account(table)}).fetchall())


STAKED_SQL = (  # what a player has in escrows still open: stakes held less paid back
    "SELECT coalesce(sum(CASE WHEN t.debit = :a THEN t.amount ELSE -t.amount END), 0)"
    " FROM transfers t JOIN ledger_accounts e"
    " ON e.name = CASE WHEN t.debit = :a THEN t.credit ELSE t.debit END"
    " WHERE (t.debit = :a OR t.credit = :a) AND e.name LIKE 'escrow:%' AND e.closed IS NULL"
)


def staked_in(conn: sqlite3.Connection, player: str) -> int:
    """The coins the player has held at tables not yet settled or expired (the caller's
    transaction)."""
    return conn.execute(STAKED_SQL, {"a": player_account(player)}).fetchone()[0]


def held_from(rows) -> dict[str, int]:
    held: dict[str, int] = {}
    for account, amount, _ in rows:
        if kind(account) == "player":
            player = account.partition(":")[2]
            held[player] = held.get(player, 0) + amount
    return {player: amount for player, amount in held.items() if amount > 0}


def close_in(conn: sqlite3.Connection, table: str, how: str, now: float) -> str:
    """Close a table's escrow as `settled` or `expired` (the caller's transaction): only an
    empty escrow closes (`escrow-not-empty`); closing a closed one keeps how it closed."""
    if how not in ("settled", "expired"):
        raise LedgerError("bad-transfer", f"an escrow closes settled or expired, not {how!r}")
    escrow = escrow_account(table)
    _open(conn, escrow, now)
    row = conn.execute(
        "SELECT balance, closed FROM ledger_accounts WHERE name = ?", [escrow]
    ).fetchone()
    if row[1] is not None:
        return row[1]
    if row[0] != 0:
        raise LedgerError("escrow-not-empty", f"{escrow} holds {row[0]}")
    conn.execute(
        "UPDATE ledger_accounts SET closed = ?, closed_at = ?,"
        " closed_after = (SELECT coalesce(max(id), 0) FROM transfers) WHERE name = ?",
        [how, now, escrow],
    )
    return how
