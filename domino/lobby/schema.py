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
