"""The ledger's invariants as tests read them (tools/ledger_audit.py's checks)."""

from __future__ import annotations

import sqlite3

from tools.ledger_audit import audit


def audited(path) -> list[str]:
    """The failing invariants' names, by tools/ledger_audit.py's checks."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        return [f"{c.name}: {c.problems}" for c in audit(conn) if not c.ok]
    finally:
        conn.close()
