"""The lobby tier's fixtures: a lobby database in a temporary folder."""

from __future__ import annotations

import pytest

from domino.lobby import Lobby
from tests.support.lobby import fold


@pytest.fixture
def canonical():
    """The canonical form the lobby is opened with."""
    return fold


@pytest.fixture
def path(tmp_path):
    return tmp_path / "instance" / "lobby.sqlite3"


@pytest.fixture
def lobby(path, canonical):
    lobby = Lobby(path, canonical)
    yield lobby
    lobby.close()
