"""The coins' ledger in the lobby's database (SPEC §13, issue 32): domino/lobby/ledger.py."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from collections import Counter

import pytest

from domino.lobby import Lobby
from domino.lobby.ledger import BANK, Ledger, LedgerError, Transfer, player_account
from domino.players.coins import Payout
from tests.lobby.conftest import fold
from tools.ledger_audit import audit

DAY = 24 * 3600
NOON = 1767571200.0 + 12 * 3600  # Monday 2026-01-05, noon UTC


class CoinLobby(Ledger, Lobby):
    """The lobby with its ledger (the app's Lobby gains the mixin with the web part)."""


@pytest.fixture
def lobby(path):
    lobby = CoinLobby(path, fold)
    yield lobby
    lobby.close()


@pytest.fixture
def ana(lobby):
    return lobby.take_name("Ana", now=NOON)[0].id


@pytest.fixture
def bob(lobby):
    return lobby.take_name("Bob", now=NOON)[0].id


def audited(path) -> list[str]:
    """The failing invariants' names, by tools/ledger_audit.py's checks."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        return [f"{c.name}: {c.problems}" for c in audit(conn) if not c.ok]
    finally:
        conn.close()


def test_taking_a_name_grants_1000_coins_once(lobby, ana, path):
    assert lobby.coins(ana) == 1000
    assert lobby.balance(BANK) == -1000
    [entry] = lobby.statement(ana)
    assert (entry.key, entry.reason, entry.amount, entry.balance) == (
        f"grant:{ana}",
        "grant",
        1000,
        1000,
    )
    assert lobby.grant(ana) is False  # the same key again: nothing
    assert lobby.coins(ana) == 1000
    assert audited(path) == []


def test_a_name_taken_twice_grants_nothing_the_second_time(lobby, ana):
    from domino.lobby import NameTaken

    with pytest.raises(NameTaken):
        lobby.take_name("ana")
    assert lobby.balance(BANK) == -1000  # the refused player's grant went with it


def test_a_batch_is_all_or_none(lobby, ana, bob):
    fine = Transfer("s1", player_account(ana), "escrow:t", 600, "stake")
    too_much = Transfer("s2", player_account(bob), "escrow:t", 1001, "stake")
    with pytest.raises(LedgerError) as refused:
        lobby.transfer([fine, too_much])
    assert refused.value.code == "not-enough-coins"
    assert (lobby.coins(ana), lobby.coins(bob), lobby.balance("escrow:t")) == (1000, 1000, 0)
    assert [e.key for e in lobby.statement(ana)] == [f"grant:{ana}"]
    # two stakes in one batch are checked in turn: the second sees the first's debit
    again = Transfer("s3", player_account(ana), "escrow:u", 600, "stake")
    with pytest.raises(LedgerError, match="not-enough-coins"):
        lobby.transfer([fine, again])
    assert lobby.coins(ana) == 1000


def test_a_key_is_applied_once_and_never_for_another_transfer(lobby, ana):
    hold = Transfer("hold-1", player_account(ana), "escrow:t", 100, "stake", "t")
    assert lobby.transfer([hold]) == [True]
    assert lobby.transfer([hold]) == [False]
    assert lobby.coins(ana) == 900
    for other in (
        Transfer("hold-1", player_account(ana), "escrow:t", 200, "stake", "t"),
        Transfer("hold-1", player_account(ana), "escrow:u", 100, "stake", "t"),
    ):
        with pytest.raises(LedgerError) as refused:
            lobby.transfer([other])
        assert refused.value.code == "key-reused"
    assert lobby.coins(ana) == 900


@pytest.mark.parametrize(
    "transfer",
    [
        Transfer("k", "player:a", "escrow:t", 0, "stake"),
        Transfer("k", "player:a", "escrow:t", -5, "stake"),
        Transfer("k", "player:a", "escrow:t", 1.5, "stake"),
        Transfer("k", "player:a", "escrow:t", 10, "gift"),
        Transfer("k", "player:a", "player:b", 10, "stake"),  # coins are never sent
        Transfer("k", "bank", "escrow:t", 10, "grant"),
        Transfer("k", "escrow:t", "escrow:t", 10, "stake"),
        Transfer("k", "player:", "escrow:t", 10, "stake"),
        Transfer("", "bank", "player:a", 10, "grant"),
    ],
)
def test_a_transfer_the_ledger_never_writes_is_refused(lobby, transfer):
    with pytest.raises(LedgerError) as refused:
        lobby.transfer([transfer])
    assert refused.value.code == "bad-transfer"
    assert lobby.balance(BANK) == 0


def test_the_daily_top_up_is_paid_at_the_first_visit_of_a_utc_day(lobby, ana):
    lobby.hold("h1", ana, "t1", 900, now=NOON)
    assert lobby.top_up(ana, now=NOON) == 100  # 100 left: up to 200
    assert lobby.top_up(ana, now=NOON + 60) == 0  # another page the same day
    assert lobby.coins(ana) == 200
    lobby.hold("h2", ana, "t2", 150, now=NOON)
    assert lobby.top_up(ana, now=NOON + 11 * 3600) == 0  # 23:00, still that day
    assert lobby.top_up(ana, now=NOON + 12 * 3600) == 150  # midnight UTC: a new day
    assert lobby.top_up(ana, now=NOON + DAY + 1) == 0
    assert [e.key for e in lobby.statement(ana) if e.reason == "top-up"] == [
        f"top-up:{ana}:2026-01-06",
        f"top-up:{ana}:2026-01-05",
    ]


def test_a_player_with_200_or_more_at_the_first_visit_gets_nothing_that_day(lobby, ana):
    assert lobby.top_up(ana, now=NOON) == 0
    lobby.hold("h1", ana, "t1", 1000, now=NOON)
    assert lobby.top_up(ana, now=NOON + 60) == 0  # the day's first visit decided it
    assert lobby.top_up(ana, now=NOON + DAY) == 200


def test_pages_loading_at_once_pay_the_top_up_once(lobby, ana):
    lobby.hold("h1", ana, "t1", 1000, now=NOON)
    paid = []
    threads = [
        threading.Thread(target=lambda: paid.append(lobby.top_up(ana, now=NOON)))
        for _ in range(20)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(paid) == [0] * 19 + [200]
    assert lobby.coins(ana) == 200


def test_leaving_the_queue_refunds_at_once(lobby, ana, bob):
    lobby.hold("h-ana", ana, "t", 250)
    lobby.hold("h-bob", bob, "t", 250)
    assert lobby.held("t") == {ana: 250, bob: 250}
    assert lobby.release("leave-1", ana, "t") == 250
    assert lobby.release("leave-1", ana, "t") == 0  # twice: nothing more
    assert (lobby.coins(ana), lobby.held("t")) == (1000, {bob: 250})
    assert [(e.reason, e.amount) for e in lobby.statement(ana)[:2]] == [
        ("refund", 250),
        ("stake", -250),
    ]


def test_an_unfilled_table_expires_every_stake_returned_and_then_takes_no_stake(lobby, ana, bob):
    lobby.hold("h-ana", ana, "t", 500)
    lobby.hold("h-bob", bob, "t", 500)
    assert lobby.expire("t") == {ana: 500, bob: 500}
    assert lobby.expire("t") == {}  # expired already
    assert (lobby.coins(ana), lobby.coins(bob), lobby.balance("escrow:t")) == (1000, 1000, 0)
    assert lobby.escrow_state("t") == "expired"
    with pytest.raises(LedgerError) as refused:
        lobby.hold("h-late", ana, "t", 500)  # a join racing the expiry
    assert refused.value.code == "account-closed"
    assert lobby.coins(ana) == 1000


def test_a_settlement_must_empty_the_escrow(lobby, ana, bob, path):
    lobby.hold("h-ana", ana, "t", 100)
    lobby.hold("h-bob", bob, "t", 100)
    with pytest.raises(LedgerError) as refused:
        lobby.settle("t", "t/1", [Payout(0, ana, 150, "pot")])
    assert refused.value.code == "escrow-not-empty"
    assert (lobby.coins(ana), lobby.escrow_state("t")) == (900, None)  # nothing paid
    assert lobby.settle("t", "t/1", [Payout(0, ana, 200, "pot")]) == [True]
    assert lobby.settle("t", "t/1", [Payout(0, ana, 200, "pot")]) == [False]  # redelivered
    assert (lobby.coins(ana), lobby.coins(bob), lobby.escrow_state("t")) == (1100, 900, "settled")
    assert audited(path) == []


def test_rewards_are_paid_from_the_bank_once_per_result(lobby, ana, bob):
    assert lobby.reward("r/1", {ana: 40, bob: 10}) == [True, True]
    assert lobby.reward("r/1", {ana: 40, bob: 10}) == [False, False]
    assert (lobby.coins(ana), lobby.coins(bob), lobby.balance(BANK)) == (1040, 1010, -2050)
    assert lobby.statement(ana)[0].ref == "r/1"


def test_the_statement_is_newest_first_with_the_balance_after_each(lobby, ana):
    lobby.hold("h1", ana, "t", 100, now=NOON + 1)
    lobby.release("l1", ana, "t", now=NOON + 2)
    lobby.hold("h2", ana, "u", 1000, now=NOON + 3)
    entries = lobby.statement(ana)
    assert [(e.reason, e.amount, e.balance) for e in entries] == [
        ("stake", -1000, 0),
        ("refund", 100, 1000),
        ("stake", -100, 900),
        ("grant", 1000, 1000),
    ]
    assert [e.other for e in entries] == ["escrow:u", "escrow:t", "escrow:t", BANK]
    assert lobby.statement(ana, limit=2) == entries[:2]
    assert lobby.statement("nobody") == []


def test_the_database_refuses_changing_the_journal_or_overdrawing(lobby, ana, path):
    conn = sqlite3.connect(path)
    for sql in ("UPDATE transfers SET amount = 5", "DELETE FROM transfers"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(sql)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE ledger_accounts SET balance = -1 WHERE name = ?", [f"player:{ana}"])
    conn.close()
    assert audited(path) == []


# Concurrency: 200 joins at once, coins for one stake.

ATTEMPTS = 200


def test_200_simultaneous_stakes_with_coins_for_one_hold_exactly_one(lobby, ana, path):
    start = threading.Barrier(ATTEMPTS)
    answers: list[object] = []

    def join(n: int) -> None:
        start.wait()
        try:
            answers.append(lobby.hold(f"stake:t{n}:{ana}", ana, f"t{n}", 1000))
        except LedgerError as error:
            answers.append(error.code)

    threads = [threading.Thread(target=join, args=(n,)) for n in range(ATTEMPTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Counter(answers) == {True: 1, "not-enough-coins": ATTEMPTS - 1}
    assert lobby.coins(ana) == 0
    assert sum(lobby.balance(f"escrow:t{n}") for n in range(ATTEMPTS)) == 1000
    assert audited(path) == []


def _join_from_a_process(path, player: str, first: int, count: int, start, answers) -> None:
    """A process of its own with its own lobby on the same file: `count` joins at once."""
    lobby = CoinLobby(path, fold)
    gate = threading.Barrier(count)
    mine: list[object] = []

    def join(n: int) -> None:
        gate.wait()
        try:
            mine.append(lobby.hold(f"stake:t{n}:{player}", player, f"t{n}", 1000))
        except LedgerError as error:
            mine.append(error.code)

    threads = [threading.Thread(target=join, args=(first + n,)) for n in range(count)]
    start.wait()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lobby.close()
    answers.extend(mine)


def test_200_stakes_from_four_processes_at_once_hold_exactly_one(lobby, ana, path):
    spawn = multiprocessing.get_context("spawn")
    with spawn.Manager() as manager:
        start, answers = manager.Barrier(4), manager.list()
        share = ATTEMPTS // 4
        processes = [
            spawn.Process(
                target=_join_from_a_process, args=(path, ana, n * share, share, start, answers)
            )
            for n in range(4)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(120)
        assert [process.exitcode for process in processes] == [0] * 4
        assert Counter(answers) == {True: 1, "not-enough-coins": ATTEMPTS - 1}
    assert lobby.coins(ana) == 0
    assert audited(path) == []
