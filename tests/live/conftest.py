"""The live tier's shared fixtures: the sockets a test opens and a room of two connected seats,
each on the `server` fixture of the module that asks for them (each module starts its own)."""

from __future__ import annotations

import pytest

from tests.support.sockets import Socket, Table, create_room, join_room


@pytest.fixture
def opened(server):
    """Every socket a test opens; all are closed at the end, whatever happened."""
    sockets: list[Socket] = []
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


@pytest.fixture
def table(server, opened) -> Table:
    """A room with both seats taken and both live sockets open, each past its first table."""
    host = create_room(server, opened)
    guest = join_room(server, host.room_id, opened)
    host.connect()
    guest.connect()
    host.ws.wait(lambda f: f.connected == "true", "saying the guest is connected")
    return Table(server, host.room_id, [host, guest], opened)
