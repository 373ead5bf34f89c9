"""The lobby's storage: players, sessions, passkeys, recovery codes, invitations and blocks
(SPEC §11), quick match's queue, stake tables, results and the coins' ledger (§12, §13), in
a SQLite database of its own (`DOMINO_LOBBY_DB`, `instance/lobby.sqlite3`).

Nothing here imports the web (pyproject.toml, the `lobby-below-the-web` contract).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .accounts import Accounts, NameTaken, Player, Session
from .database import LobbyDatabase
from .friends import Friends, Invitation
from .keys import Challenge, Challenges, Keys, KnownCredential, LastPasskey, Passkey
from .ledger import Ledger
from .queue import Queue, Queued, Seated
from .results import Applied, Results
from .stakes import Notice, QueueRefused, Stakes, StakeTable

__all__ = [
    "Applied",
    "Challenge",
    "Invitation",
    "KnownCredential",
    "LastPasskey",
    "Lobby",
    "NameTaken",
    "Notice",
    "Passkey",
    "Player",
    "QueueRefused",
    "Queued",
    "Seated",
    "Session",
    "StakeTable",
]


class Lobby(Accounts, Keys, Challenges, Friends, Queue, Stakes, Results, Ledger, LobbyDatabase):
    """The lobby's database. `canonical(name)` gives a name's unique form (the app passes
    `domino.players.names`'s); `key` makes stored secret hashes HMACs under it."""

    def __init__(
        self,
        path: str | Path,
        canonical: Callable[[str], str],
        key: bytes | None = None,
        sync_delay: float = 0.0,
    ) -> None:
        self.canonical = canonical
        super().__init__(path, key=key, sync_delay=sync_delay)
