"""The coins' ledger in the lobby's database (SPEC §13, issue 32): domino/lobby/ledger.py."""

from __future__ import annotations

import multiprocessing
import shutil
import sqlite3
import tempfile
import threading
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from domino.lobby import Lobby
from domino.lobby.ledger import BANK, LedgerError, Transfer, player_account
from domino.players.coins import STAKES, Payout, rewards, settle
from domino.players.results import parse
from tests.support import results
from tests.support.ledger import audited
from tests.support.lobby import fold

DAY = 24 * 3600
NOON = 1767571200.0 + 12 * 3600  # Monday 2026-01-05, noon UTC


@pytest.fixture
def lobby(path):
    lobby = Lobby(path, fold)
    yield lobby
    lobby.close()


@pytest.fixture
def ana(lobby):
    return lobby.take_name("Ana", now=NOON)[0].id


@pytest.fixture
def bob(lobby):
    return lobby.take_name("Bob", now=NOON)[0].id


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


def test_players_from_before_the_ledger_get_their_grant_by_its_migration(path):
    from sqlite_utils import Database

    from domino.lobby.schema import migrations

    path.parent.mkdir(parents=True)
    db = Database(path)
    migrations.apply(db, stop_before="m005_ledger")
    for n, name in enumerate(("Ana", "Bob")):
        db["players"].insert({"id": f"old{n}", "name": name, "canonical": name, "created_at": n})
    db.close()
    lobby = Lobby(path, fold)
    assert (lobby.coins("old0"), lobby.coins("old1"), lobby.balance(BANK)) == (1000, 1000, -2000)
    assert lobby.grant("old0") is False  # the same key as taking a name now
    assert [e.key for e in lobby.statement("old1")] == ["grant:old1"]
    lobby.close()
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


def lose(lobby, player: str, table: str, coins: int, now: float = NOON) -> None:
    """The player stakes `coins` at `table` and loses them (forfeit to the bank)."""
    lobby.hold(f"h-{table}", player, table, coins, now=now)
    lobby.settle(table, f"{table}/1", [Payout(None, None, coins, "forfeit")], now=now)


def test_the_daily_top_up_is_paid_at_the_first_visit_of_a_utc_day(lobby, ana):
    lose(lobby, ana, "t1", 900)
    assert lobby.top_up(ana, now=NOON) == 100  # 100 left: up to 200
    assert lobby.top_up(ana, now=NOON + 60) == 0  # another page the same day
    assert lobby.coins(ana) == 200
    lose(lobby, ana, "t2", 150)
    assert lobby.top_up(ana, now=NOON + 11 * 3600) == 0  # 23:00, still that day
    assert lobby.top_up(ana, now=NOON + 12 * 3600) == 150  # midnight UTC: a new day
    assert lobby.top_up(ana, now=NOON + DAY + 1) == 0
    assert [e.key for e in lobby.statement(ana) if e.reason == "top-up"] == [
        f"top-up:{ana}:2026-01-06",
        f"top-up:{ana}:2026-01-05",
    ]


def test_a_player_with_200_or_more_at_the_first_visit_gets_nothing_that_day(lobby, ana):
    assert lobby.top_up(ana, now=NOON) == 0
    lose(lobby, ana, "t1", 1000)
    assert lobby.top_up(ana, now=NOON + 60) == 0  # the day's first visit decided it
    assert lobby.top_up(ana, now=NOON + DAY) == 200


def test_a_stake_still_held_counts_as_the_players_for_the_top_up(lobby, ana):
    lobby.hold("h1", ana, "t1", 1000, now=NOON)  # held at a table not yet settled
    assert lobby.top_up(ana, now=NOON) == 0
    lobby.expire("t1", now=NOON + 60)
    assert lobby.coins(ana) == 1000  # back, and no top-up on top of it


def test_pages_loading_at_once_pay_the_top_up_once(lobby, ana):
    lose(lobby, ana, "t1", 1000)
    paid = []
    threads = [
        threading.Thread(target=lambda: paid.append(lobby.top_up(ana, now=NOON))) for _ in range(20)
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
    lobby = Lobby(path, fold)
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


# Properties: random sequences of grants, top-ups, joins, leaves, expiries, match ends and
# abandonments at stake and free tables, each followed by every invariant; any operation
# replayed with its key changes nothing.


class Table:
    def __init__(self, stake: int, seats: int):
        self.stake, self.seats = stake, seats
        self.members: list[str] = []  # in seat order
        self.state: str | None = None  # "settled" or "expired" once closed

    @property
    def waiting(self) -> bool:
        return self.state is None and len(self.members) < self.seats


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        # in memory where the system has it: these steps test the ledger's logic, not the
        # disk's syncs (the SIGKILL drill does), and each step commits several times
        memory = "/dev/shm" if Path("/dev/shm").is_dir() else None
        self.folder = Path(tempfile.mkdtemp(prefix="ledger-", dir=memory))
        self.path = self.folder / "lobby.sqlite3"
        self.lobby = Lobby(self.path, fold)
        self.coins: dict[str, int] = {}  # the model: each player's balance (ids are random:
        # drawn from in the order taken, never sorted, so a replayed case draws alike)
        self.tables: dict[str, Table] = {}
        self.visited: set[tuple[str, int]] = set()
        self.replays: list = []  # operations done, to do again: each must change nothing
        self.count = 0

    def teardown(self):
        self.lobby.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def next(self) -> int:
        self.count += 1
        return self.count

    @initialize()
    def four_players(self):
        for _ in range(4):
            self.take_a_name()

    @precondition(lambda self: len(self.coins) < 6)
    @rule()
    def take_a_name(self):
        player = self.lobby.take_name(f"P{self.next()}", now=NOON)[0].id
        self.coins[player] = 1000
        self.replays.append(lambda: self.lobby.grant(player) is False)

    @precondition(lambda self: sum(t.waiting for t in self.tables.values()) < 2)
    @rule(stake=st.sampled_from((0, *STAKES)), pairs=st.booleans())
    def open_a_table(self, stake, pairs):
        self.tables[f"t{self.next()}"] = Table(stake, 4 if pairs else 2)

    @rule(data=st.data())
    def visit(self, data):
        player = data.draw(st.sampled_from(list(self.coins)))
        day = data.draw(st.integers(0, 3))
        staked = sum(
            table.stake
            for table in self.tables.values()
            if table.state is None and player in table.members
        )  # held at tables still open: the player's too
        owned = self.coins[player] + staked
        expected = 0 if (player, day) in self.visited else max(0, 200 - owned)
        assert self.lobby.top_up(player, now=NOON + day * DAY) == expected
        self.visited.add((player, day))
        self.coins[player] += expected
        self.replays.append(lambda: self.lobby.top_up(player, now=NOON + day * DAY) == 0)

    def joinable(self, table: Table) -> bool:
        return table.waiting and len(table.members) < len(self.coins)

    @precondition(lambda self: self.any(self.joinable))
    @rule(data=st.data())
    def join(self, data):
        self.join_one(data, *self.draw_table(data, self.joinable))

    @precondition(lambda self: self.any(self.joinable))
    @rule(data=st.data())
    def fill(self, data):
        """Players join one table until it is full (or somebody is refused)."""
        name, table = self.draw_table(data, self.joinable)
        while self.joinable(table) and self.join_one(data, name, table):
            pass

    def join_one(self, data, name: str, table: Table) -> bool:
        player = data.draw(st.sampled_from([p for p in self.coins if p not in table.members]))
        if not table.stake:
            table.members.append(player)
            return True
        key = f"stake:{name}:{player}:{self.next()}"
        if self.coins[player] < table.stake:
            with pytest.raises(LedgerError) as refused:
                self.lobby.hold(key, player, name, table.stake)
            assert refused.value.code == "not-enough-coins"
            event("a stake refused: not enough coins")
            return False
        assert self.lobby.hold(key, player, name, table.stake) is True
        self.coins[player] -= table.stake
        table.members.append(player)
        self.replays.append(lambda: self.lobby.hold(key, player, name, table.stake) is False)
        return True

    @precondition(lambda self: self.any(lambda t: t.state is not None and t.stake > 0))
    @rule(data=st.data())
    def join_a_closed_table(self, data):
        name, table = self.draw_table(data, lambda t: t.state is not None and t.stake > 0)
        player = data.draw(st.sampled_from(list(self.coins)))
        with pytest.raises(LedgerError) as refused:
            self.lobby.hold(f"late:{self.next()}", player, name, min(table.stake, 100))
        assert refused.value.code in ("account-closed", "not-enough-coins")

    @precondition(lambda self: self.any(lambda t: t.waiting and t.members))
    @rule(data=st.data())
    def leave(self, data):
        name, table = self.draw_table(data, lambda t: t.waiting and t.members)
        player = data.draw(st.sampled_from(table.members))
        table.members.remove(player)
        if table.stake:
            key = f"leave:{self.next()}"
            assert self.lobby.release(key, player, name) == table.stake
            self.coins[player] += table.stake
            self.replays.append(lambda: self.lobby.release(key, player, name) == 0)

    @precondition(lambda self: self.any(lambda t: t.waiting))
    @rule(data=st.data())
    def expire(self, data):
        name, table = self.draw_table(data, lambda t: t.waiting)
        held = {player: table.stake for player in table.members} if table.stake else {}
        assert self.lobby.expire(name) == held
        for player, coins in held.items():
            self.coins[player] += coins
        table.state = "expired"
        event(f"a table expired holding {len(held)} stakes")
        self.replays.append(lambda: self.lobby.expire(name) == {})

    @precondition(lambda self: self.any(lambda t: t.state is None and not t.waiting))
    @rule(data=st.data(), sides=st.sampled_from([(1, 2), (2, 1), (1, 1)]))
    def finish(self, data, sides):
        """A full table's match ends, some seats perhaps abandoned: the pot to the winners at
        a stake table (a draw refunds), the rewards by place at a free one."""
        name, table = self.draw_table(data, lambda t: t.state is None and not t.waiting)
        gone = data.draw(st.sets(st.integers(0, table.seats - 1), max_size=table.seats))
        members = enumerate(table.members)
        rows = [(player, sides[seat % 2], None, seat in gone) for seat, player in members]
        result = parse(results.result(name, 1, rows, teams=table.seats == 4))
        key = result.key
        if table.stake:
            payouts = settle(table.stake, result.seats)
            assert all(self.lobby.settle(name, key, payouts))
            reasons = "+".join(sorted({p.reason for p in payouts}))
            event(f"a stake table of {table.seats} settled: {reasons}")
            for payout in payouts:
                if payout.player:
                    self.coins[payout.player] += payout.amount
            self.replays.append(lambda: not any(self.lobby.settle(name, key, payouts)))
        else:
            paid: dict[str, int] = {}
            for seat, coins in zip(result.seats, rewards(result), strict=True):
                if coins:
                    paid[seat.player] = paid.get(seat.player, 0) + coins
                    self.coins[seat.player] += coins
            assert all(self.lobby.reward(key, paid))
            event(f"a free table paid rewards to {len(paid)}")
            assert self.lobby.settle(name, key, []) == []  # its escrow, never used, closes
            self.replays.append(lambda: not any(self.lobby.reward(key, paid)))
        table.state = "settled"

    @precondition(lambda self: self.replays)
    @rule(data=st.data())
    def replay(self, data):
        again = data.draw(st.sampled_from(self.replays))
        before = self.snapshot()
        assert again()
        event("an operation replayed")
        assert self.snapshot() == before

    def draw_table(self, data, which) -> tuple[str, Table]:
        names = [name for name, table in self.tables.items() if which(table)]
        name = data.draw(st.sampled_from(names))
        return name, self.tables[name]

    def any(self, which) -> bool:
        return any(which(table) for table in self.tables.values())

    def snapshot(self):
        accounts = [BANK, *map(player_account, self.coins), *(f"escrow:{t}" for t in self.tables)]
        entries = {player: self.lobby.statement(player) for player in self.coins}
        return {account: self.lobby.balance(account) for account in accounts}, entries

    @invariant()
    def the_ledger_holds_every_invariant(self):
        assert audited(self.path) == []
        balances, statements = self.snapshot()
        assert sum(balances.values()) == 0
        for player, coins in self.coins.items():
            assert balances[player_account(player)] == coins  # as the model says
            entries = statements[player]
            assert sum(entry.amount for entry in entries) == coins
            assert entries[0].balance == coins
            assert all(entry.balance >= 0 for entry in entries)
        assert len({e.key for es in statements.values() for e in es}) == sum(
            map(len, statements.values())
        )
        for name, table in self.tables.items():
            assert self.lobby.escrow_state(name) == table.state
            if table.state is not None:
                assert balances[f"escrow:{name}"] == 0
            elif table.stake:
                assert self.lobby.held(name) == {p: table.stake for p in table.members}


TestLedgerProperties = LedgerMachine.TestCase
TestLedgerProperties.settings = settings(
    max_examples=30, stateful_step_count=40, deadline=None, suppress_health_check=list(HealthCheck)
)


def test_a_results_rewards_are_transfers_from_the_bank_once(lobby, ana, bob):
    from domino.lobby.ledger import result_rewards

    public = parse(results.result("r", 1, [(ana, 2), (bob, 1)]))
    assert lobby.transfer(result_rewards(public)) == [True, True]
    assert lobby.transfer(result_rewards(public)) == [False, False]  # delivered again
    assert (lobby.coins(ana), lobby.coins(bob)) == (1010, 1040)
    assert lobby.statement(bob)[0].key == f"reward:r/1:{bob}"
    computer = parse(results.result("c", 1, [(ana, 1), (None, 2, "hard")], kind="computer"))
    assert result_rewards(computer) == []
    friend = parse(results.result("f", 1, [(ana, 1), (bob, 2)], kind="friend"))
    assert [(t.credit, t.amount) for t in result_rewards(friend)] == [(f"player:{ana}", 20)]
