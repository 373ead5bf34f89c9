"""Stake tables under SIGKILL (SPEC §13, issue 32): the lobby and two shards killed at random
moments during stakes, expiries, payouts and refunds; after each restart the ledger holds.

Named players (a thread each, over HTTP through nginx, as bench/results_drill.py's players)
join stake tables through quick match (POST /play/ with a game and a stake: `match-100` or
`pairs`, at 100 or 250 coins), each join one of three kinds, chosen at random:

- `play`: wait on the waiting page until a wave seats the table, follow the seat grant, and
  play the match over HTTP from the page hooks (bench/results_drill.py's `play_table`), to its
  end: the pot (or, when others did not come, the pot with their stakes as `forfeit`);
- `leave`: leave the queue (POST /play/leave) at a random moment while the table forms: the
  stake comes back at once (`refund`), unless a wave seated the table first;
- `no-show`: never look again until the table is long decided: if it filled, the seat is
  abandoned after DOMINO_ABANDON_SECONDS and forfeits its stake (the computer plays it to the
  match's end, so matches end without a click); if it did not, it expires after
  DOMINO_STAKE_WAIT_SECONDS and every stake comes back.

A player refused with fewer coins than the smallest stake retires; a new one, under a new name
and with a fresh grant, takes their place.
Every player reads their statement (/me/coins) after each table and notes every entry it shows
(`data-ledger-entry`: key, amount, balance after).

The cluster is tests/support/shards.py's: the lobby's process (DOMINO_LOBBY=only), shards s1 and
s2, and nginx, each server running bench/results_drill_app.py's app (the product's, without rate
limits, its results sender looking every 0.2 s). Each kill first aims at one moment, chosen at
random, and waits for it (at most AIM_SECONDS, else it kills where it is):

- `stake`: a player is about to send a join (the hold);
- `refund`: a player is about to leave the queue;
- `expiry`: a forming table's wait ends within the next wave or so (the lobby's wave expires it);
- `payout`: a player sends the last tile of a round, or a shard's outbox holds a result not yet
  applied in the lobby (the settlement);
- `any`: no aim;

then sleeps 0-50 ms, SIGKILLs the lobby or a shard (the lobby mostly for the lobby's own
moments), starts it again on the same files, and checks, with the restarted cluster live:

- the audit (tools/ledger_audit.py's `audit`, read-only, one snapshot): the sum of all accounts
  is zero, no player negative now or ever, every settled or expired escrow zero, each key once,
  every balance equal to its entries' sum and to its statement, every entry well formed;
- every entry any page showed before the kill is in the journal with the amount the page showed,
  and on each player's statement again with the same amount and balance after (where the
  statement is not cut at its newest 200 entries);
- each statement's entries add up to the balance it shows after its newest.

At the end the players join no more tables but finish those in hand, then stop; every stake
table is waited for until it is settled or expired (and each shard's outbox is sent), the checks
run once more, and no escrow may still hold coins. The drill prints `python -m
tools.ledger_audit <the lobby's database>`'s output, then one JSON object (its last line); the
exit status is 1 on any violation, and the drill's folder (the databases, the servers' logs) is
kept then, or with --keep.

    .venv/bin/python -m bench.stakes_drill --kills 100 --players 16 --seed 1
"""

from __future__ import annotations

import argparse
import html
import json
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter
from http.cookiejar import CookieJar
from pathlib import Path

from bench import results_drill
from bench.results_drill import outbox_rows
from tests.support.client import csrf_field
from tests.support.faults import ServerDown
from tools.ledger_audit import audit

ROOT = Path(__file__).resolve().parents[1]
TABLES = (("match-100", 100), ("match-100", 250), ("pairs", 100), ("pairs", 250))
KINDS = ("play", "play", "leave", "no-show")  # a join's kind, drawn at random
AIMS = ("stake", "refund", "expiry", "payout", "any")
AIM_SECONDS = 8.0  # a kill waits this long at most for the moment it aims at
CLOSING_SECONDS = 120.0  # at the end, how long the players may finish the tables in hand
STATEMENT_CUT = 200  # /me/coins shows the newest 200 entries
ENTRY = re.compile(
    r'<tr data-ledger-entry data-amount="(-?\d+)" data-balance="(-?\d+)"'
    r' data-reason="([\w-]+)" data-key="([^"]*)"'
)
COINS = re.compile(r"<span data-coins>(\d+)</span>")
# The refusal ("match-lost") of a move from a seat gone to the computer, its match lost.
LOST = "so it counts as lost"


class Player(results_drill.Player):
    """One named person at stake tables: joins, leaves, stays away or plays, reads the
    statement; retires when too poor for a stake, a new person taking the place."""

    def __init__(self, drill: Drill, index: int) -> None:
        super().__init__(drill, index)
        self.name = f"stakes-{drill.seed}-{index}"
        self.signed = False
        self.leave_at: float | None = None
        self.shown: dict[str, tuple[int, int]] = {}  # key -> (amount, balance), as shown
        self.look_lock = threading.Lock()

    def retire(self) -> None:
        """Too poor for any stake: a new person with a new browser and name."""
        self.jar = CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.name += "n"
        self.signed = False
        self.shown = {}
        self.drill.count("players retired")

    # -- the statement ----------------------------------------------------------------------

    def statement(self) -> tuple[list[tuple[str, int, int, str]], str]:
        """The entries /me/coins shows, newest first: (key, amount, balance, reason)."""
        status, page, _u = self.request("/me/coins")
        if status != 200:
            raise ServerDown(f"/me/coins: {status}")
        entries = [
            (html.unescape(key), int(amount), int(balance), reason)
            for amount, balance, reason, key in ENTRY.findall(page)
        ]
        return entries, page

    def look(self) -> None:
        """Read the statement and note what it shows; what an earlier page showed of an
        entry must not have changed, and the entries must add up to the balance."""
        entries, _page = self.statement()
        with self.look_lock:
            for key, amount, balance, _reason in entries:
                before = self.shown.get(key)
                if before is not None and before != (amount, balance):
                    self.drill.violation("entry changed", f"{self.name} {key} {before}")
                self.shown[key] = (amount, balance)
                self.drill.shown[key] = amount
        self.drill.count("statements read")
        self.drill.check_sum(self.name, entries)

    # -- quick match at a stake -------------------------------------------------------------

    def join(self) -> None:
        """Join a stake table of a random game and stake, as a random kind of player."""
        game, stake = self.rng.choice(TABLES)
        kind = self.rng.choice(KINDS)
        _s, home, _u = self.request("/")
        self.queued = True  # from here on, whether the join was taken or not
        self.leave_at = None
        self.drill.moment("stake")
        form = {"game": game, "stake": str(stake), "csrf_token": csrf_field(home)}
        status, page, url = self.request("/play/", form)
        if status == 409:  # refused, nothing changed
            self.queued = False
            coins = COINS.search(page)
            if "enough coins" in page:
                self.drill.count("joins refused: not enough coins")
                if coins is not None and int(coins.group(1)) < min(s for _g, s in TABLES):
                    self.retire()
            else:
                self.drill.count("joins refused: stake held already")
                time.sleep(0.5)
            return
        if status != 200:
            raise AssertionError(f"{self.name}: join answered {status}: {page[:300]}")
        self.drill.count("joins answered")
        self.drill.count(f"joins as {kind}")
        if urllib.parse.urlparse(url).path != "/play/":
            self.wait_seat()  # seated at once: the redirect went on to the grant
            return
        if kind == "no-show":
            self.queued = False  # gone: never looks at the waiting page again
            self.drill.closing.wait(
                self.rng.uniform(1.0, 2.0) * self.drill.wait + self.drill.abandon
            )
            return
        if kind == "leave":
            self.leave_at = time.monotonic() + self.rng.uniform(0.0, 0.9) * self.drill.wait
        self.wait_seat()

    def wait_seat(self) -> None:
        """Wait on the waiting page until seated (then the room is ours to play), out of the
        queue (the table expired), or the moment to leave (then leave)."""
        while not self.drill.stop.is_set():
            _s, page, url = self.request("/play/")
            if urllib.parse.urlparse(url).path != "/play/":
                super().quick_match()  # seated: the grant (results_drill's handling)
                return
            if "data-queue" not in page:
                self.queued = False
                if "data-stake-expired" in page:
                    self.drill.count("expiries seen")
                return
            if self.leave_at is not None and time.monotonic() >= self.leave_at:
                self.leave_at = None
                self.drill.moment("refund")
                status, _t, _u = self.request("/play/leave", {"csrf_token": csrf_field(page)})
                if status != 200:
                    raise AssertionError(f"{self.name}: leaving answered {status}")
                self.queued = False
                self.drill.count("leaves answered")
                return
            time.sleep(0.25)

    def run(self) -> None:
        """The person's life: a name, then stake tables one after another, the statement
        read after each; once the drill closes, the table in hand is played or waited out
        and no other joined, until the drill stops."""
        while not self.drill.stop.is_set():
            try:
                if not self.signed:
                    self.sign_in()
                    self.signed = True
                    self.look()
                if self.room:
                    self.play_table()
                    if not self.drill.stop.is_set():
                        self.drill.count("tables left after play")
                        self.room = ""
                        self.close()
                elif self.queued:  # back after a kill while queued: the waiting page again
                    self.wait_seat()
                elif self.drill.closing.is_set():
                    return
                else:
                    self.join()
                if not self.room and not self.drill.stop.is_set():
                    self.look()
            except SeatLost:
                self.drill.count("tables left, the seat lost")
                self.room = ""
                self.close()
            except ServerDown:  # a program killed: nginx answers for it until it is back
                self.stale = True
                self.close()
                time.sleep(0.2)
            except BaseException as error:
                self.drill.failures.append(f"{self.name}: {error!r}")
                return

    def send(self, action: str, fields: dict) -> tuple[int, str]:
        """results_drill's, but a seat whose match is lost (abandoned: away longer than
        DOMINO_ABANDON_SECONDS, e.g. while its shard restarted) leaves the table: the
        computer plays it to the end."""
        status, text = super().send(action, fields)
        if status == 403 and LOST in text:
            raise SeatLost(action)
        return status, text


class SeatLost(Exception):
    """The table refused our move: our seat is the computer's, the match lost."""


class Drill:
    """Players, kills, and the checks after each restart and at the end."""

    def __init__(self, args) -> None:
        self.kills_wanted = args.kills
        self.seed = args.seed
        self.wait = args.stake_wait
        self.abandon = args.abandon
        self.rng = random.Random(args.seed)
        self.deadline = time.monotonic() + args.deadline
        self.quiet = args.quiet
        self.keep = args.keep
        self.closing = threading.Event()  # the players join no more tables
        self.stop = threading.Event()  # the players stop at once
        self.failures: list[str] = []
        self.stuck: list[dict] = []  # results_drill's players note stalled tables here
        self.violations: list[dict] = []
        self.counts: Counter[str] = Counter()
        self.shown: dict[str, int] = {}  # every entry key a page showed -> its amount
        self.lock = threading.Lock()
        self.moments = threading.Condition(self.lock)
        self.last_moment: str | None = None
        self.matches_per_table = 10**9  # a public match is the table's last (results_drill)
        self.fill = 1.0
        self.folder = folder = Path(tempfile.mkdtemp(prefix="domino-stakes-drill-"))
        env = {
            "DOMINO_STAKE_WAIT_SECONDS": str(args.stake_wait),
            "DOMINO_ABANDON_SECONDS": str(args.abandon),
            "DOMINO_AWAY_SECONDS": str(args.abandon),
            "DOMINO_MOVE_SECONDS": str(args.move),
            "DOMINO_BANK_SECONDS": str(args.bank),
            "DOMINO_WAVE_SECONDS": "0.5",
            "DOMINO_DRILL_SENDER_EVERY": "0.2",
        }
        self.cluster = results_drill.Cluster(folder, env, shards=2)
        self.server = self.cluster.front  # what players talk to: nginx
        self.lobby_db = self.cluster.lobby_db
        self.players = [Player(self, i) for i in range(args.players)]

    def say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    def count(self, what: str, n: int = 1) -> None:
        with self.lock:
            self.counts[what] += n

    def violation(self, what: str, detail) -> None:
        with self.lock:
            self.violations.append({"what": what, "detail": detail, "kill": self.counts["kills"]})

    def idle(self, seconds: float) -> None:
        self.stop.wait(seconds)

    def moment(self, what: str) -> None:
        """A player is about to send a join (`stake`), a leave (`refund`), or a last tile
        (`payout`): a moment to kill at."""
        with self.moments:
            self.last_moment = what
            self.moments.notify_all()

    def match_end(self, seen: bool) -> None:
        """results_drill's players: a last tile sent (or a round's end seen)."""
        if not seen:
            self.moment("payout")

    def check_sum(self, name: str, entries: list[tuple[str, int, int, str]]) -> None:
        """A statement's entries add up to the balance after its newest (uncut ones)."""
        if entries and len(entries) < STATEMENT_CUT:
            total = sum(amount for _k, amount, _b, _r in entries)
            if total != entries[0][2]:
                self.violation("statement sum", f"{name}: entries {total}, balance {entries[0][2]}")

    # -- the moments ------------------------------------------------------------------------

    def aim(self, aim: str, seconds: float = AIM_SECONDS) -> tuple[str, str | None]:
        """Wait for the moment aimed at (at most `seconds`): what came, and the victim it
        suggests (None: the caller chooses)."""
        end = time.monotonic() + seconds
        with self.moments:
            self.last_moment = None
        while time.monotonic() < end and not self.failures:
            if aim in ("stake", "refund", "payout"):
                with self.moments:
                    self.moments.wait(0.1)
                    if self.last_moment == aim:
                        return aim, None
            else:
                time.sleep(0.1)
            if aim == "expiry" and self.expiry_due():
                time.sleep(self.rng.uniform(0, 0.6))  # around the wave that expires it
                return "expiry", "lobby"
            if aim == "payout":
                shard = self.result_unsent()
                if shard is not None:
                    return "payout", self.rng.choice(("lobby", shard))
            if aim == "any":
                return "any", None
        return f"{aim}, timed out", None

    def expiry_due(self) -> bool:
        """A forming table whose wait ends within the next half second."""
        now = time.time()
        rows = read(self.lobby_db, "SELECT opened_at FROM stake_tables WHERE state = 'forming'")
        return any(-0.2 <= opened + self.wait - now <= 0.5 for (opened,) in rows)

    def result_unsent(self) -> str | None:
        """A shard whose outbox holds a result not yet sent to the lobby."""
        for shard, db in self.cluster.shard_dbs.items():
            if any(sent is None for _k, _r, sent in outbox_rows(db)):
                return shard
        return None

    # -- kills ------------------------------------------------------------------------------

    def kill_once(self) -> None:
        """Aim at a moment, SIGKILL the lobby or a shard there, start it again, check."""
        if time.monotonic() > self.deadline:
            raise TimeoutError("the drill ran out of time")
        aim = self.rng.choice(AIMS)
        came, victim = self.aim(aim)
        time.sleep(self.rng.uniform(0, 0.05))
        if victim is None:
            lobby_first = came in ("stake", "refund", "expiry")
            if lobby_first and self.rng.random() < 0.7:
                victim = "lobby"
            else:
                victim = self.rng.choice(("lobby", "s1", "s2"))
        if self.result_unsent() is not None:
            self.count("at a kill: a result not yet applied")
        if read(self.lobby_db, "SELECT 1 FROM stake_tables WHERE state = 'forming' LIMIT 1"):
            self.count("at a kill: a table forming")
        self.cluster.kill(victim)
        self.count("kills")
        self.count(f"kills of {victim}")
        self.count(f"kills at {came}")
        time.sleep(self.rng.uniform(0, 0.3))
        self.cluster.start(victim)
        self.check(f"after kill {self.counts['kills']} ({victim} at {came})")
        self.idle(self.rng.uniform(0.3, 1.5))

    # -- the checks -------------------------------------------------------------------------

    def check(self, when: str) -> None:
        """The audit, the entries pages showed, and each player's statement again."""
        shown = dict(self.shown)
        failing = audited(self.lobby_db)
        self.count("audits")
        if failing:
            self.violation("audit", {"when": when, "failing": failing})
        else:
            self.count("audits ok")
        journal = dict(read(self.lobby_db, "SELECT key, amount FROM transfers"))
        missing = [key for key in shown if key not in journal]
        changed = [key for key in shown if key in journal and abs(shown[key]) != journal[key]]
        self.count("shown entries checked", len(shown))
        if missing:
            self.violation("entries missing", {"when": when, "keys": missing[:10]})
        if changed:
            self.violation("entries changed", {"when": when, "keys": changed[:10]})
        for player in self.players:
            if player.signed and player.shown:
                self.statement_again(player, when)

    def statement_again(self, player: Player, when: str) -> None:
        """Every entry this player's pages showed is on their statement again, unchanged."""
        with player.look_lock:
            shown = dict(player.shown)
        try:
            entries, _page = player.statement()
        except ServerDown:
            return  # a player's cookie whose session a kill cut (sign_in's lost answer)
        now = {key: (amount, balance) for key, amount, balance, _r in entries}
        full = len(entries) >= STATEMENT_CUT
        lost = [k for k in shown if k not in now and not full]
        differ = [k for k in shown if k in now and now[k] != shown[k]]
        self.count("statements checked")
        if lost:
            self.violation(
                "statement lost entries", {"when": when, "player": player.name, "keys": lost[:5]}
            )
        if differ:
            self.violation(
                "statement changed", {"when": when, "player": player.name, "keys": differ[:5]}
            )
        self.check_sum(player.name, entries)

    def settled(self, seconds: float = 240.0) -> list[dict]:
        """Wait until every stake table is settled or expired and every outbox is sent; the
        tables still open then."""
        end = time.monotonic() + seconds
        while True:
            open_ = read(
                self.lobby_db,
                "SELECT id, state, room, stake, seats, opened_at FROM stake_tables"
                " WHERE state NOT IN ('settled', 'expired')",
            )
            unsent = self.result_unsent()
            if (not open_ and unsent is None) or time.monotonic() > end:
                break
            time.sleep(0.5)
        fields = ("table", "state", "room", "stake", "seats", "opened_at")
        return [dict(zip(fields, row, strict=True)) for row in open_]

    def figures(self) -> dict:
        """What the journal and the tables say happened."""
        db = self.lobby_db
        reasons = dict(read(db, "SELECT reason, count(*) FROM transfers GROUP BY reason"))
        states = dict(read(db, "SELECT state, count(*) FROM stake_tables GROUP BY state"))
        one = lambda sql: read(db, sql)[0][0]  # noqa: E731
        seated = [
            room for (room,) in read(db, "SELECT room FROM stake_tables WHERE room IS NOT NULL")
        ]
        held = read(
            db,
            "SELECT name, balance FROM ledger_accounts WHERE name LIKE 'escrow:%' AND balance != 0",
        )
        return {
            "joins": reasons.get("stake", 0),
            "leaves": one("SELECT count(*) FROM transfers WHERE key LIKE 'refund:stake:%'"),
            "expiries": states.get("expired", 0),
            "expiry_refunds": one(
                "SELECT count(*) FROM transfers WHERE key LIKE 'refund:expired:%'"
            ),
            "settlements": states.get("settled", 0),
            "pots": reasons.get("pot", 0),
            "forfeits": reasons.get("forfeit", 0),
            "forfeits_to_bank": one(
                "SELECT count(*) FROM transfers WHERE reason = 'forfeit' AND credit = 'bank'"
            ),
            "draw_refunds": one(
                "SELECT count(*) FROM transfers WHERE reason = 'refund'"
                " AND key NOT LIKE 'refund:stake:%' AND key NOT LIKE 'refund:expired:%'"
            ),
            "grants": reasons.get("grant", 0),
            "transfers": sum(reasons.values()),
            "tables": sum(states.values()),
            "escrows_holding": [f"{name} {balance}" for name, balance in held][:10],
            "rooms_nobodys": len(self.stake_rooms() - set(seated)),
        }

    def stake_rooms(self) -> set[str]:
        """The stake rooms the shards opened (a room's `stake` event): one more than the
        lobby seated is a room opened by a wave whose record a kill cut off (nobody's)."""
        rooms = set()
        for db in self.cluster.shard_dbs.values():
            rooms |= {room for (room,) in read(db, "SELECT room FROM events WHERE type = 'stake'")}
        return rooms

    # -- the run ----------------------------------------------------------------------------

    def run(self) -> dict:
        started = time.monotonic()
        threads = []
        try:
            self.cluster.start_all()
            threads = [threading.Thread(target=p.run, daemon=True) for p in self.players]
            for thread in threads:
                thread.start()
            while self.counts["kills"] < self.kills_wanted and not self.failures:
                self.kill_once()
                if self.counts["kills"] % 10 == 0:
                    self.say(
                        f"kills {self.counts['kills']}, audits ok {self.counts['audits ok']},"
                        f" joins {self.counts['joins answered']}, entries shown"
                        f" {len(self.shown)}, violations {len(self.violations)}"
                        f" ({round(time.monotonic() - started)} s)"
                    )
            self.idle(1.0)  # the players go on a moment after the last restart
            self.closing.set()  # each plays the table in hand to its end (or waits it out)
            end = time.monotonic() + CLOSING_SECONDS
            for thread in threads:
                thread.join(timeout=max(0.0, end - time.monotonic()))
            self.stop.set()
            for thread in threads:
                thread.join(timeout=30)
            for player in self.players:
                player.close()
            settling = time.monotonic()
            still_open = self.settled()
            self.counts["settle seconds"] = round(time.monotonic() - settling)
            self.check("at the end")
            figures = self.figures()
        finally:
            self.stop.set()
            self.cluster.stop_all()
        audit_run = subprocess.run(
            [sys.executable, "-m", "tools.ledger_audit", str(self.lobby_db)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        print(audit_run.stdout, end="", flush=True)
        if still_open:
            self.violation("tables never decided", still_open[:10])
        if figures["escrows_holding"]:
            self.violation("escrows still holding", figures["escrows_holding"])
        if audit_run.returncode != 0:
            self.violation("final audit", audit_run.returncode)
        summary = {
            "kills": self.counts["kills"],
            "kills_with_a_result_unapplied": self.counts["at a kill: a result not yet applied"],
            "kills_with_a_table_forming": self.counts["at a kill: a table forming"],
            "kills_by": {
                k.removeprefix("kills "): v
                for k, v in sorted(self.counts.items())
                if k.startswith("kills ")
            },
            **{k: v for k, v in figures.items() if k != "escrows_holding"},
            "joins_answered": self.counts["joins answered"],
            "joins_by_kind": {
                k.removeprefix("joins as "): v
                for k, v in sorted(self.counts.items())
                if k.startswith("joins as ")
            },
            "joins_refused": {
                k.removeprefix("joins refused: "): v
                for k, v in sorted(self.counts.items())
                if k.startswith("joins refused")
            },
            "leaves_answered": self.counts["leaves answered"],
            "expiries_seen": self.counts["expiries seen"],
            "seated": self.counts["seated"],
            "players_retired": self.counts["players retired"],
            "audits": self.counts["audits"],
            "audits_ok": self.counts["audits ok"],
            "entries_shown": len(self.shown),
            "statements_read": self.counts["statements read"],
            "statements_checked": self.counts["statements checked"],
            "missing_entries": sum(
                len(v["detail"]["keys"]) for v in self.violations if v["what"] == "entries missing"
            ),
            "audit_exit": audit_run.returncode,
            "lobby_db": str(self.lobby_db),
            "violations": self.violations[:10],
            "stuck_tables_left": self.counts["stuck tables left"],
            "stuck": self.stuck[:3],
            "player_failures": self.failures[:5],
            "settle_seconds": self.counts["settle seconds"],
            "seconds": round(time.monotonic() - started, 1),
        }
        summary["ok"] = not self.violations and not self.failures and audit_run.returncode == 0
        if summary["ok"] and not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)
        else:  # the databases and the servers' logs, for a look
            summary["kept"] = str(self.folder)
        return summary


def read(db: Path, sql: str) -> list[tuple]:
    """Rows of the live database, read-only (nothing yet: no rows)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error) or "unable to open" in str(error):
            return []
        raise
    finally:
        conn.close()


def audited(db: Path) -> list[str]:
    """The failing invariants of tools/ledger_audit.py's audit, each with its problems."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None, timeout=10)
    try:
        return [f"{c.name}: {c.problems[:3]}" for c in audit(conn) if not c.ok]
    finally:
        conn.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stake-wait", type=float, default=4.0, help="DOMINO_STAKE_WAIT_SECONDS")
    parser.add_argument("--abandon", type=float, default=5.0, help="DOMINO_ABANDON_SECONDS")
    parser.add_argument("--move", type=float, default=2.0, help="DOMINO_MOVE_SECONDS")
    parser.add_argument("--bank", type=float, default=4.0, help="DOMINO_BANK_SECONDS")
    parser.add_argument("--deadline", type=float, default=3600, help="seconds, in all")
    parser.add_argument("--keep", action="store_true", help="keep the folder even when ok")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.kills < 0 or args.players < 2:
        parser.error("--kills >= 0, --players >= 2")
    summary = Drill(args).run()
    print(json.dumps(summary))
    return 0 if summary["ok"] and summary["joins"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
