"""The coins' ledger (SPEC §13, docs/coins.md): a double-entry, append-only journal in the
lobby's database, after TigerBeetle's transfers.

- **Accounts** are `bank` (issues grants and rewards; the only one that goes below zero),
  `player:<id>` and `escrow:<table>` (a table's held stakes). Each has a cached balance
  beside the journal; tools/ledger_audit.py compares it with the journal's sums.
- **A transfer** moves a positive whole amount from its debit account to its credit account,
  with a reason (`domino.players.coins.REASONS`), a time, an optional reference (a result's
  key, a table) and a unique key. Transfers are never changed or deleted (the schema's
  triggers refuse it); a mistake would be undone by another transfer.
- **A batch** (`post`) is all or none: it runs in a savepoint of the caller's transaction
  (the lobby writer's, which holds SQLite's write lock from `BEGIN IMMEDIATE`), so no other
  write of this process or another comes between a balance's check and its debit. A key
  seen before is skipped if the transfer is the same (replayed), and refused (`key-reused`)
  if it is not. The debit is one statement, `balance = balance - amount` only where the
  balance covers it: a transfer that would take an account but the bank below zero changes
  nothing and refuses the whole batch (`not-enough-coins`).
- **Holds** are transfers into a table's escrow (reason `stake`); they are settled by
  transfers out of it (`pot`, `forfeit`, `refund`) and the escrow is then closed, `settled`
  or `expired`, in the same transaction: only an empty escrow closes, and a closed one takes
  no transfer (`account-closed`): TigerBeetle's pending, then post or void, as accounts.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..players import coins

BANK = "bank"
FLOWS = {  # reason: the kinds of (debit, credit) accounts it may move coins between
    "grant": {("bank", "player")},
    "top-up": {("bank", "player")},
    "reward": {("bank", "player")},
    "stake": {("player", "escrow"), ("escrow", "escrow")},
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
    if not isinstance(t.key, str) or not t.key or len(t.key) > 300:
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
    return _held(conn.execute(HELD_SQL, {"escrow": escrow_account(table)}).fetchall())


def _held(rows) -> dict[str, int]:
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


def grant_transfer(player: str) -> Transfer:
    """The 1,000 coins of taking a name, once per player."""
    return Transfer(f"grant:{player}", BANK, player_account(player), coins.GRANT, "grant")


def day_of(now: float) -> str:
    """The UTC day holding `now`, as YYYY-MM-DD."""
    return time.strftime("%Y-%m-%d", time.gmtime(now))


def payout_transfers(table: str, key: str, payouts: Sequence[coins.Payout]) -> list[Transfer]:
    """The transfers out of a table's escrow that `coins.settle` (or `coins.refunds`) gave,
    each keyed by `key` (the settlement's: a result's key), its reason and its receiver."""
    escrow = escrow_account(table)
    return [
        Transfer(
            f"{p.reason}:{key}:{p.player or BANK}",
            escrow,
            player_account(p.player) if p.player else BANK,
            p.amount,
            p.reason,
            key,
        )
        for p in payouts
        if p.amount > 0
    ]


class Ledger:
    """Mixin of `Lobby` (a `LobbyDatabase`): coins, each write one transaction of the
    lobby's writer."""

    def transfer(self, transfers: Iterable[Transfer], now: float | None = None) -> list[bool]:
        """Apply a batch, all or none (`post`); LedgerError if it is refused."""
        transfers, now = list(transfers), time.time() if now is None else now
        return self._write(lambda conn: post(conn, transfers, now))

    def balance(self, account: str) -> int:
        """An account's balance (0 for one never used)."""
        row = self._row("SELECT balance FROM ledger_accounts WHERE name = ?", [account])
        return 0 if row is None else row["balance"]

    def coins(self, player: str) -> int:
        """A player's balance."""
        return self.balance(player_account(player))

    def statement(self, player: str, limit: int | None = None) -> list[Entry]:
        """The player's entries, newest first, each with the balance after it (read in one
        statement, so from one moment of the journal)."""
        params = {"a": player_account(player), "limit": -1 if limit is None else limit}
        rows = self._rows(STATEMENT_SQL, params)
        return [Entry(**row) for row in rows]

    def grant(self, player: str, now: float | None = None) -> bool:
        """Give a player the new player's coins; False if they had them already."""
        return self.transfer([grant_transfer(player)], now)[0]

    def top_up(self, player: str, now: float | None = None) -> int:
        """At a player's first visit of a UTC day, bring their balance up to TOP_UP; the coins
        paid (0 on any later visit that day, or at TOP_UP or more then). One write a day."""
        now = time.time() if now is None else now
        day = day_of(now)
        sql = "SELECT 1 FROM top_up_days WHERE player = ? AND day = ?"
        if self._row(sql, [player, day]):
            return 0

        def visit(conn: sqlite3.Connection) -> int:
            sql = "INSERT OR IGNORE INTO top_up_days (player, day, at) VALUES (?, ?, ?)"
            if conn.execute(sql, [player, day, now]).rowcount == 0:
                return 0  # another page of the same visit decided it
            amount = coins.top_up(balance_in(conn, player_account(player)))
            if amount:
                key = f"top-up:{player}:{day}"
                post(conn, [Transfer(key, BANK, player_account(player), amount, "top-up")], now)
            return amount

        return self._write(visit)

    def hold(self, key: str, player: str, table: str, stake: int, now: float | None = None):
        """Hold a player's stake in the table's escrow (`key`: this hold's, once); False if
        the key was held before; LedgerError `not-enough-coins` if they have too few."""
        hold = Transfer(key, player_account(player), escrow_account(table), stake, "stake", table)
        return self.transfer([hold], now)[0]

    def held(self, table: str) -> dict[str, int]:
        """What each player has in the table's escrow now."""
        rows = self._rows(HELD_SQL, {"escrow": escrow_account(table)})  # one statement
        return _held([(row["account"], row["amount"], row["id"]) for row in rows])

    def release(self, key: str, player: str, table: str, now: float | None = None) -> int:
        """Return all a player holds at a table (leaving the queue); the coins returned."""
        now = time.time() if now is None else now

        def release(conn: sqlite3.Connection) -> int:
            amount = held_in(conn, table).get(player, 0)
            if amount:
                back = coins.Payout(None, player, amount, "refund")
                amount *= post(conn, payout_transfers(table, key, [back]), now)[0]
            return amount

        return self._write(release)

    def expire(self, table: str, now: float | None = None) -> dict[str, int]:
        """An unfilled table expires: every stake held is returned and its escrow closed
        `expired`, in one transaction; what each player got back."""
        now = time.time() if now is None else now

        def expire(conn: sqlite3.Connection) -> dict[str, int]:
            held = held_in(conn, table)
            post(conn, payout_transfers(table, f"expired:{table}", coins.refunds(held)), now)
            close_in(conn, table, "expired", now)
            return held

        return self._write(expire)

    def settle(
        self, table: str, key: str, payouts: Sequence[coins.Payout], now: float | None = None
    ) -> list[bool]:
        """Pay a finished table's escrow out (`coins.settle`'s payouts, keyed by `key`, the
        result's) and close it `settled`, in one transaction; `escrow-not-empty` (and nothing
        paid) unless the payouts empty it."""
        now = time.time() if now is None else now
        transfers = payout_transfers(table, key, payouts)

        def settle(conn: sqlite3.Connection) -> list[bool]:
            applied = post(conn, transfers, now)
            close_in(conn, table, "settled", now)
            return applied

        return self._write(settle)

    def reward(self, key: str, paid: Mapping[str, int], now: float | None = None) -> list[bool]:
        """Pay a finished match's rewards from the bank (player -> coins, `coins.rewards`),
        keyed by the result's key: at most once per player and result."""
        transfers = [
            Transfer(f"reward:{key}:{player}", BANK, player_account(player), amount, "reward", key)
            for player, amount in paid.items()
            if amount > 0
        ]
        return self.transfer(transfers, now)

    def escrow_state(self, table: str) -> str | None:
        """`settled` or `expired` for a closed escrow, None while open (or never used)."""
        row = self._row(
            "SELECT closed FROM ledger_accounts WHERE name = ?", [escrow_account(table)]
        )
        return None if row is None else row["closed"]
