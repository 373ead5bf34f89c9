"""The lobby's tables and their migrations (versioned, each applied once, in order)."""

from __future__ import annotations

from sqlite_utils import Database, Migrations

migrations = Migrations("domino-lobby")


@migrations()
def m001_players(db: Database) -> None:
    """Players, their sessions, passkeys and recovery codes, invitations and blocks (SPEC §11).

    Ids are random text, never reused: a signed cookie naming a deleted player names nobody.
    Sessions and recovery codes keep only a hash of their secret.
    """
    db["players"].create(
        {"id": str, "name": str, "canonical": str, "created_at": float},
        pk="id",
        not_null={"name", "canonical", "created_at"},
    )
    db["players"].create_index(["canonical"], unique=True)
    db["sessions"].create(
        {
            "id": str,
            "player": str,
            "hash": str,
            "label": str,
            "created_at": float,
            "used_at": float,
        },
        pk="id",
        not_null={"player", "hash", "created_at", "used_at"},
        foreign_keys=[("player", "players", "id")],
    )
    db["sessions"].create_index(["hash"], unique=True)
    db["sessions"].create_index(["player"])
    db["passkeys"].create(
        {
            "credential_id": bytes,
            "player": str,
            "public_key": bytes,
            "sign_count": int,
            "name": str,
            "created_at": float,
            "used_at": float,
        },
        pk="credential_id",
        not_null={"player", "public_key", "sign_count", "name", "created_at"},
        foreign_keys=[("player", "players", "id")],
    )
    db["passkeys"].create_index(["player"])
    db["recovery_codes"].create(
        {"player": str, "hash": str, "created_at": float, "spent_at": float},
        pk=("player", "hash"),
        not_null={"created_at"},
        foreign_keys=[("player", "players", "id")],
    )
    db["invitations"].create(
        {
            "id": str,
            "host": str,
            "guest": str,
            "room": str,
            "state": str,
            "created_at": float,
            "answered_at": float,
        },
        pk="id",
        not_null={"host", "guest", "room", "state", "created_at"},
        foreign_keys=[("host", "players", "id"), ("guest", "players", "id")],
    )
    db["invitations"].create_index(["host", "guest", "room"], unique=True)
    db["invitations"].create_index(["guest", "state"])
    db["blocks"].create(
        {"blocker": str, "blocked": str, "created_at": float},
        pk=("blocker", "blocked"),
        not_null={"created_at"},
        foreign_keys=[("blocker", "players", "id"), ("blocked", "players", "id")],
    )
    db["blocks"].create_index(["blocked"])


@migrations()
def m002_challenges(db: Database) -> None:
    """WebAuthn challenges (SPEC §11): each one sent with a ceremony's options, bound to one
    browser (its id in that browser's signed session cookie), taken once, within minutes.

    `purpose` is "register" (a signed-in player adds a passkey: `player` is theirs) or
    "sign-in" (nobody yet: `player` is NULL). Recovery codes get an index on their hash, by
    which a code signs in without its player's name.
    """
    db["challenges"].create(
        {"id": str, "purpose": str, "player": str, "challenge": bytes, "created_at": float},
        pk="id",
        not_null={"purpose", "challenge", "created_at"},
    )
    db["challenges"].create_index(["created_at"])
    db["recovery_codes"].create_index(["hash"])


@migrations()
def m003_queue(db: Database) -> None:
    """Quick match (SPEC §12): who waits for which public game (and stake), since when, one
    entry per player; and where a wave seated a player (the room, the path of their seat
    grant, when), read by their waiting page, one row per player, replaced by the next. No
    foreign keys: a deleted player's entry names nobody, and the next wave drops it."""
    db["queue"].create(
        {"player": str, "game": str, "stake": int, "since": float},
        pk="player",
        not_null={"game", "stake", "since"},
    )
    db["queue"].create_index(["since"])
    db["queue_seated"].create(
        {"player": str, "room": str, "grant": str, "at": float},
        pk="player",
        not_null={"room", "grant", "at"},
    )


@migrations()
def m004_results(db: Database) -> None:
    """Finished matches' results (ARCHITECTURE.md: results exactly once), each key applied
    once; each player's two ratings (SPEC §12: `duel`, `table`); and the League's rows, one
    per player of a counted match with the points it earned (standings are computed from
    them, never stored as totals). No links to `players`: a result outlives a deleted
    account, whose rows the pages then leave out."""
    db["results"].create(
        {
            "key": str,
            "room": str,
            "kind": str,
            "result": str,
            "finished_at": float,
            "applied_at": float,
        },
        pk="key",
        not_null={"room", "kind", "result", "finished_at", "applied_at"},
    )
    db["ratings"].create(
        {
            "player": str,
            "kind": str,
            "mu": float,
            "sigma": float,
            "matches": int,
            "updated_at": float,
        },
        pk=("player", "kind"),
        not_null={"mu", "sigma", "matches", "updated_at"},
    )
    db["league"].create(
        {"key": str, "player": str, "points": float, "week": float, "finished_at": float},
        pk=("key", "player"),
        not_null={"points", "week", "finished_at"},
    )
    db["league"].create_index(["week"])
    db["league"].create_index(["player", "week"])


@migrations()
def m005_ledger(db: Database) -> None:
    """The coins' ledger (SPEC §13, docs/coins.md): an append-only journal of transfers, each
    moving a whole positive amount from one account to another, with a unique key that makes
    it happen at most once; and the accounts (`bank`, `player:<id>`, `escrow:<table>`), each
    with its balance cached beside the journal (checked against the journal's sums by
    tools/ledger_audit.py) and, for an escrow, how it was closed (`settled`, `expired`).

    The database itself refuses what must never be: an amount below one, an unknown reason, a
    transfer changed or deleted (triggers), a balance below zero but the bank's, and a closed
    escrow holding coins. Players who exist already get their grant (key `grant:<id>`).
    `top_up_days` remembers each player's first visit of a UTC day, so the day's top-up is
    decided once. No links to `players`: the journal outlives an account.
    """
    db.execute(
        """CREATE TABLE ledger_accounts (
            name TEXT PRIMARY KEY,
            balance INTEGER NOT NULL DEFAULT 0,
            opened_at REAL NOT NULL,
            closed TEXT CHECK (closed IN ('settled', 'expired')),
            closed_at REAL,
            closed_after INTEGER,
            CHECK (name = 'bank' OR balance >= 0),
            CHECK (closed IS NULL OR (balance = 0 AND name LIKE 'escrow:%'))
        ) STRICT"""
    )
    db.execute(
        """CREATE TABLE transfers (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            debit TEXT NOT NULL REFERENCES ledger_accounts (name),
            credit TEXT NOT NULL REFERENCES ledger_accounts (name),
            amount INTEGER NOT NULL CHECK (amount > 0),
            reason TEXT NOT NULL CHECK (reason IN
                ('grant', 'top-up', 'reward', 'stake', 'refund', 'pot', 'forfeit')),
            ref TEXT,
            at REAL NOT NULL,
            CHECK (debit != credit)
        ) STRICT"""
    )
    db.execute("CREATE INDEX transfers_debit ON transfers (debit, id)")
    db.execute("CREATE INDEX transfers_credit ON transfers (credit, id)")
    for event in ("UPDATE", "DELETE"):
        db.execute(
            f"CREATE TRIGGER transfers_no_{event.lower()} BEFORE {event} ON transfers"
            " BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END"
        )
    db["top_up_days"].create(
        {"player": str, "day": str, "at": float},
        pk=("player", "day"),
        not_null={"at"},
    )
    # Players who took their name before coins existed get the new player's grant now (as
    # domino.players.coins.GRANT was when this was written: a migration never changes).
    grant = 1000
    count = db.execute("SELECT count(*) FROM players").fetchone()[0]
    if count:
        db.execute(
            "INSERT INTO ledger_accounts (name, balance, opened_at) VALUES ('bank', ?, 0)",
            [-grant * count],
        )
        db.execute(
            "INSERT INTO ledger_accounts (name, balance, opened_at)"
            " SELECT 'player:' || id, ?, created_at FROM players",
            [grant],
        )
        db.execute(
            "INSERT INTO transfers (key, debit, credit, amount, reason, at)"
            " SELECT 'grant:' || id, 'bank', 'player:' || id, ?, 'grant', created_at"
            " FROM players ORDER BY created_at, id",
            [grant],
        )


@migrations()
def m006_stakes(db: Database) -> None:
    """Stake tables (SPEC §13, `domino.lobby.stakes`): each forming, seated, expired or
    settled table of a game at a stake (its escrow is the ledger's `escrow:<id>`), with its
    room once a wave seated it; a queue entry at a stake table names it (`table_id`) and the
    key its stake was held by (`hold`); and the notice a player's waiting page shows when
    their table expired (one per player, replaced by the next)."""
    db.execute(
        """CREATE TABLE stake_tables (
            id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            stake INTEGER NOT NULL CHECK (stake > 0),
            seats INTEGER NOT NULL CHECK (seats BETWEEN 2 AND 4),
            opened_at REAL NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('forming', 'seated', 'expired', 'settled')),
            room TEXT,
            changed_at REAL NOT NULL
        ) STRICT"""
    )
    db.execute("CREATE INDEX stake_tables_forming ON stake_tables (state, game, stake, opened_at)")
    db.execute("CREATE INDEX stake_tables_room ON stake_tables (room)")
    db["queue"].add_column("table_id", str)
    db["queue"].add_column("hold", str)
    db["queue"].create_index(["table_id"])
    db["stake_notices"].create(
        {"player": str, "table_id": str, "game": str, "stake": int, "what": str, "at": float},
        pk="player",
        not_null={"table_id", "game", "stake", "what", "at"},
    )
