"""Audit the coins' ledger of a lobby database (docs/coins.md, SPEC §13).

Usage: python -m tools.ledger_audit PATH_TO_LOBBY_DB

Reads the database (read-only, in one transaction: one moment of the journal, even while the
lobby writes) and prints one line per invariant, `ok` or `FAIL` with what breaks it:

- the sum of all accounts is zero (their cached balances; every account a transfer names
  exists);
- no balance but the bank's is negative, now or after any entry of its history;
- every settled or expired escrow is zero, and took no transfer after it closed;
- each key is applied once;
- each balance equals the sum of its entries, and each player's equals their statement's
  (the newest entry's balance after it);
- every entry is well formed (a positive whole amount, a known reason moving coins between
  the kinds of accounts it may, two different accounts).

Exit status: 0 when every invariant holds, 1 on a violation, 2 when the file cannot be read
as a lobby database with a ledger.
"""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

from domino.lobby.ledger import BANK, FLOWS, STATEMENT_SQL, kind

SHOWN = 10  # violations shown per invariant
MOVES = (
    "WITH moves AS (SELECT credit AS account, amount AS delta, id FROM transfers"
    " UNION ALL SELECT debit, -amount, id FROM transfers)"
)


@dataclass
class Check:
    name: str
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit(conn: sqlite3.Connection) -> list[Check]:
    """Every invariant's check over the ledger of the database open on `conn`."""
    conn.execute("BEGIN")  # one snapshot for every query
    try:
        cached = dict(conn.execute("SELECT name, balance FROM ledger_accounts").fetchall())
        sums = dict(conn.execute(f"{MOVES} SELECT account, sum(delta) FROM moves GROUP BY 1"))
        return [
            _zero_sum(cached, sums),
            _never_negative(conn, cached),
            _closed_escrows(conn, sums),
            _keys_once(conn),
            _balances(conn, cached, sums),
            _well_formed(conn),
        ]
    finally:
        conn.execute("ROLLBACK")


def _zero_sum(cached: dict, sums: dict) -> Check:
    check = Check("the sum of all accounts is zero")
    total = sum(cached.values())
    if total != 0:
        check.problems.append(f"the balances sum to {total}")
    check.problems += [f"{name} has entries but no account" for name in sums if name not in cached]
    return check


def _never_negative(conn: sqlite3.Connection, cached: dict) -> Check:
    check = Check("no balance but the bank's is negative, now or ever")
    check.problems += [
        f"{name} holds {balance}"
        for name, balance in cached.items()
        if balance < 0 and name != BANK
    ]
    rows = conn.execute(
        f"{MOVES}, running AS (SELECT account, id,"
        " sum(delta) OVER (PARTITION BY account ORDER BY id) AS balance FROM moves)"
        " SELECT account, id, balance FROM running WHERE account != ? AND balance < 0"
        " ORDER BY id",
        [BANK],
    )
    check.problems += [f"{name} at {balance} after transfer {id_}" for name, id_, balance in rows]
    return check


def _closed_escrows(conn: sqlite3.Connection, sums: dict) -> Check:
    check = Check("every settled or expired escrow is zero")
    rows = conn.execute(
        "SELECT name, closed, balance, closed_after FROM ledger_accounts"
        " WHERE closed IS NOT NULL ORDER BY name"
    ).fetchall()
    for name, closed, balance, after in rows:
        if balance != 0 or sums.get(name, 0) != 0:
            check.problems.append(f"{name} ({closed}) holds {sums.get(name, 0)} (cached {balance})")
        late = conn.execute(
            "SELECT id FROM transfers WHERE (debit = ? OR credit = ?) AND id > ? ORDER BY id",
            [name, name, after or 0],
        ).fetchall()
        check.problems += [
            f"{name} ({closed}) took transfer {id_} after it closed" for (id_,) in late
        ]
    return check


def _keys_once(conn: sqlite3.Connection) -> Check:
    check = Check("each key is applied once")
    rows = conn.execute("SELECT key, count(*) FROM transfers GROUP BY key HAVING count(*) > 1")
    check.problems += [f"{key} applied {count} times" for key, count in rows]
    return check


def _balances(conn: sqlite3.Connection, cached: dict, sums: dict) -> Check:
    check = Check("each balance equals the sum of its entries and its statement")
    for name in sorted(cached):
        if cached[name] != sums.get(name, 0):
            check.problems.append(f"{name}: balance {cached[name]}, entries {sums.get(name, 0)}")
        if kind(name) == "player":
            newest = conn.execute(STATEMENT_SQL, {"a": name, "limit": 1}).fetchone()
            shown = 0 if newest is None else newest[5]  # the balance after the newest entry
            if shown != cached[name]:
                check.problems.append(f"{name}: balance {cached[name]}, statement {shown}")
    return check


def _well_formed(conn: sqlite3.Connection) -> Check:
    check = Check("every entry is well formed")
    rows = conn.execute("SELECT id, debit, credit, amount, reason FROM transfers ORDER BY id")
    for id_, debit, credit, amount, reason in rows:
        flow = (kind(debit), kind(credit))
        if type(amount) is not int or amount <= 0:
            check.problems.append(f"transfer {id_}: amount {amount!r}")
        if reason not in FLOWS or flow not in FLOWS[reason] or debit == credit:
            check.problems.append(f"transfer {id_}: {reason} from {debit} to {credit}")
    return check


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        if not path.is_file():
            raise sqlite3.OperationalError(f"no file {path}")
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
        accounts, transfers = (
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("ledger_accounts", "transfers")
        )
        checks = audit(conn)
    except sqlite3.Error as error:
        print(f"ledger audit: cannot read {path}: {error}", file=sys.stderr)
        return 2
    print(f"ledger audit of {path}: {accounts} accounts, {transfers} transfers")
    for check in checks:
        print(f"{'ok  ' if check.ok else 'FAIL'}  {check.name}")
        for problem in check.problems[:SHOWN]:
            print(f"      {problem}")
        if len(check.problems) > SHOWN:
            print(f"      ... and {len(check.problems) - SHOWN} more")
    return 0 if all(check.ok for check in checks) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
