"""The ledger killed with SIGKILL at random moments (issue 32): after each restart every
invariant holds, and every transfer a call confirmed before the kill is in the journal.

A small drill, one process: the lobby's and shards' drill (bench/) is a later step.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from domino.lobby import Lobby
from domino.lobby.ledger import LedgerError, payout_transfers
from domino.players.coins import Payout
from tests.support.ledger import audited
from tests.support.lobby import fold

ROOT = Path(__file__).resolve().parents[2]
KILLS = 6


def work(path: str, seed: int, players: list[str]) -> None:
    """The killed process: four threads hold stakes, settle and expire tables, and top up,
    printing each confirmed transfer's key once its call has returned."""
    lobby = Lobby(path, fold)
    out = threading.Lock()

    def confirmed(*keys: str) -> None:
        with out:
            for key in keys:
                sys.stdout.write(f"{key}\n")
            sys.stdout.flush()

    def loop(thread: int) -> None:
        rng = random.Random(seed * 10 + thread)
        for n in range(10**6):
            table, player, other = f"s{seed}-{thread}-{n}", *rng.sample(players, 2)
            try:
                holds = [f"stake:{table}:{p}" for p in (player, other)]
                for key, who in zip(holds, (player, other), strict=True):
                    if lobby.hold(key, who, table, rng.choice((100, 250))):
                        confirmed(key)
                if rng.random() < 0.5:
                    gone = lobby.expire(table)
                    confirmed(*(f"refund:expired:{table}:{p}" for p in gone))
                else:
                    pot = sum(lobby.held(table).values())
                    paid = [Payout(0, player, pot, "pot")]
                    lobby.settle(table, f"{table}/1", paid)
                    confirmed(*(t.key for t in payout_transfers(table, f"{table}/1", paid)))
                top = lobby.top_up(player, now=time.time() + n * 86400)
                if top:
                    confirmed(f"top-up:{player}:")  # a prefix: the day is the call's
            except LedgerError:
                lobby.expire(table)  # too few coins: give back what was held

    threads = [threading.Thread(target=loop, args=(t,), daemon=True) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.slow
def test_a_killed_lobby_loses_no_confirmed_transfer_and_keeps_every_invariant(path):
    lobby = Lobby(path, fold)
    players = [lobby.take_name(f"P{n}")[0].id for n in range(4)]
    lobby.close()
    rng = random.Random(32)
    seen: list[str] = []
    for kill in range(KILLS):
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from tests.lobby.test_ledger_kill import work;"
                " work(sys.argv[1], int(sys.argv[2]), sys.argv[3:])",
                str(path),
                str(kill),
                *players,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        lines: list[str] = []
        reader = threading.Thread(target=lambda c=child, ls=lines: ls.extend(c.stdout))
        reader.start()
        deadline = time.monotonic() + 20
        while len(lines) < 5 and time.monotonic() < deadline:  # started writing
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.3))
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        reader.join(10)
        assert child.returncode == -signal.SIGKILL
        assert len(lines) >= 5, "the worker never wrote"
        seen += [line.strip() for line in lines]
        assert audited(path) == [], f"after kill {kill + 1}"
        Lobby(path, fold).close()  # it opens again after the kill
    conn = sqlite3.connect(path)
    keys = [key for (key,) in conn.execute("SELECT key FROM transfers")]
    conn.close()
    exact = set(keys)
    missing = [
        key
        for key in seen
        if key not in exact and not (key.endswith(":") and any(k.startswith(key) for k in keys))
    ]
    assert missing == []
    assert len(seen) > KILLS * 5
