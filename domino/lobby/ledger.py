"""The coins' operations (SPEC §13, docs/coins.md) on the journal (`domino.lobby.journal`):
grants, the daily top-up, stakes held in a table's escrow, refunds, expiries, settlements and
rewards; the statement; and `Ledger`, the lobby's mixin.

Holds are transfers into a table's escrow (reason `stake`); they are settled by transfers out
of it (`pot`, `forfeit`, `refund`), and the escrow is closed `settled` or `expired` in the
same transaction: TigerBeetle's pending, then post or void, as accounts. Each `*_in` function
runs in the caller's write transaction (a result applied, a queue joined), so the coins move
in the same commit as what made them move; the mixin's methods are each a write of their own.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence

from ..players import coins
from ..players.results import Result
from .journal import (
    BANK,
    FLOWS,
    HELD_SQL,
    STATEMENT_SQL,
    Entry,
    LedgerError,
    Transfer,
    balance_in,
    check,
    close_in,
    escrow_account,
    held_from,
    held_in,
    kind,
    player_account,
    post,
    staked_in,
)

__all__ = [
    "BANK",
    "FLOWS",
    "STATEMENT_SQL",
    "Entry",
    "Ledger",
    "LedgerError",
    "Transfer",
    "balance_in",
    "check",
    "close_in",
    "escrow_account",
    "held_in",
    "kind",
    "player_account",
    "post",
]


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


def hold_transfer(key: str, player: str, table: str, stake: int) -> Transfer:
    """A player's stake held in a table's escrow, once by `key` (the hold's)."""
    return Transfer(key, player_account(player), escrow_account(table), stake, "stake", table)


def reward_transfers(key: str, paid: Mapping[str, int]) -> list[Transfer]:
    """A finished match's rewards from the bank (player -> coins, as `coins.rewards` gives
    them by seat), keyed by the result's key: at most once per player and result."""
    return [
        Transfer(f"reward:{key}:{player}", BANK, player_account(player), amount, "reward", key)
        for player, amount in paid.items()
        if amount > 0
    ]


def result_rewards(result: Result) -> list[Transfer]:
    """`reward_transfers` for a parsed result (`domino.players.results`), by `coins.rewards`."""
    paid: dict[str, int] = {}
    for seat, amount in zip(result.seats, coins.rewards(result), strict=True):
        if amount and seat.player is not None:
            paid[seat.player] = paid.get(seat.player, 0) + amount
    return reward_transfers(result.key, paid)


def top_up_in(conn: sqlite3.Connection, player: str, now: float) -> int:
    """At a player's first visit of a UTC day, bring their balance up to TOP_UP; the coins
    paid (0 on any later visit that day, and that day if they had TOP_UP or more then). What
    they hold at stake tables still open counts as theirs: a stake held at 23:59 and
    returned after midnight earns no top-up."""
    day = day_of(now)
    sql = "INSERT OR IGNORE INTO top_up_days (player, day, at) VALUES (?, ?, ?)"
    if conn.execute(sql, [player, day, now]).rowcount == 0:
        return 0  # another page of the day decided it
    # A stake held at a table counts as the player's: it comes back, or wins.
    amount = coins.top_up(balance_in(conn, player_account(player)) + staked_in(conn, player))
    if amount:
        key = f"top-up:{player}:{day}"
        post(conn, [Transfer(key, BANK, player_account(player), amount, "top-up")], now)
    return amount


def release_in(conn: sqlite3.Connection, key: str, player: str, table: str, now: float) -> int:
    """Return all a player holds at a table (leaving the queue), once by `key`; the coins
    returned (0 if they held none, or `key` was released before)."""
    amount = held_in(conn, table).get(player, 0)
    if amount:
        back = coins.Payout(None, player, amount, "refund")
        amount *= post(conn, payout_transfers(table, key, [back]), now)[0]
    return amount


def expire_in(conn: sqlite3.Connection, table: str, now: float) -> dict[str, int]:
    """An unfilled table expires: every stake held is returned and its escrow closed
    `expired`; what each player got back (nothing once it is closed)."""
    held = held_in(conn, table)
    post(conn, payout_transfers(table, f"expired:{table}", coins.refunds(held)), now)
    close_in(conn, table, "expired", now)
    return held


def settle_in(
    conn: sqlite3.Connection, table: str, key: str, payouts: Sequence[coins.Payout], now: float
) -> list[bool]:
    """Pay a finished table's escrow out (`coins.settle`'s payouts, keyed by `key`, the
    result's) and close it `settled`; `escrow-not-empty`, and nothing paid, unless the
    payouts empty it."""
    applied = post(conn, payout_transfers(table, key, payouts), now)
    close_in(conn, table, "settled", now)
    return applied


def _now(now: float | None) -> float:
    return time.time() if now is None else now


class Ledger:
    """Mixin of `Lobby` (a `LobbyDatabase`): coins, each write one transaction of the
    lobby's writer (the `*_in` functions do the same inside another write's transaction)."""

    def transfer(self, transfers: Iterable[Transfer], now: float | None = None) -> list[bool]:
        """Apply a batch, all or none (`post`); LedgerError if it is refused."""
        transfers = list(transfers)
        return self._write(lambda conn: post(conn, transfers, _now(now)))

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
        return [Entry(**row) for row in self._rows(STATEMENT_SQL, params)]

    def grant(self, player: str, now: float | None = None) -> bool:
        """Give a player the new player's coins; False if they had them already."""
        return self.transfer([grant_transfer(player)], now)[0]

    def top_up(self, player: str, now: float | None = None) -> int:
        """`top_up_in`, in a write of its own only at the day's first visit (a read before)."""
        now = _now(now)
        sql = "SELECT 1 FROM top_up_days WHERE player = ? AND day = ?"
        if self._row(sql, [player, day_of(now)]):
            return 0
        return self._write(lambda conn: top_up_in(conn, player, now))

    def hold(self, key: str, player: str, table: str, stake: int, now: float | None = None):
        """Hold a player's stake in the table's escrow (`key`: this hold's, once); False if
        the key was held before; LedgerError `not-enough-coins` if they have too few."""
        return self.transfer([hold_transfer(key, player, table, stake)], now)[0]

    def held(self, table: str) -> dict[str, int]:
        """What each player has in the table's escrow now."""
        rows = self._rows(HELD_SQL, {"escrow": escrow_account(table)})  # one statement
        return held_from([(row["account"], row["amount"], row["id"]) for row in rows])

    def release(self, key: str, player: str, table: str, now: float | None = None) -> int:
        """`release_in`, a write of its own."""
        return self._write(lambda conn: release_in(conn, key, player, table, _now(now)))

    def expire(self, table: str, now: float | None = None) -> dict[str, int]:
        """`expire_in`, a write of its own."""
        return self._write(lambda conn: expire_in(conn, table, _now(now)))

    def settle(
        self, table: str, key: str, payouts: Sequence[coins.Payout], now: float | None = None
    ) -> list[bool]:
        """`settle_in`, a write of its own."""
        return self._write(lambda conn: settle_in(conn, table, key, payouts, _now(now)))

    def reward(self, key: str, paid: Mapping[str, int], now: float | None = None) -> list[bool]:
        """Pay a finished match's rewards (`reward_transfers`), a write of its own."""
        return self.transfer(reward_transfers(key, paid), now)

    def escrow_state(self, table: str) -> str | None:
        """`settled` or `expired` for a closed escrow, None while open (or never used)."""
        sql = "SELECT closed FROM ledger_accounts WHERE name = ?"
        row = self._row(sql, [escrow_account(table)])
        return None if row is None else row["closed"]
