"""The lobby tier's shared pieces: the canonical form lobbies are opened with in tests."""

from __future__ import annotations

import unicodedata


def fold(name: str) -> str:
    """A stand-in for `domino.players.names`'s canonical form: NFKC, then case folded."""
    return unicodedata.normalize("NFKC", name).casefold()
