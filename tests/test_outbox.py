"""The outbox of a websocket's socket: a send never waits, order holds, a laggard is let go."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from domino.web.outbox import MAX_QUEUED, Outbox


def in_thread(function) -> None:
    threading.Thread(target=function, daemon=True).start()


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    yield ours, theirs
    ours.close()
    theirs.close()


def read_all(sock, size: int, within: float = 5.0) -> bytes:
    sock.settimeout(within)
    data = b""
    while len(data) < size:
        more = sock.recv(65536)
        if not more:
            break
        data += more
    return data


@pytest.mark.parametrize("cooperative", [False, True])
def test_a_send_to_a_page_that_reads_nothing_does_not_wait(pair, cooperative):
    ours, theirs = pair
    box = Outbox(ours, in_thread, cooperative=cooperative)
    frames = [bytes([n % 251]) * 20_000 for n in range(10)]  # far more than the buffers hold
    sender = threading.Thread(target=lambda: [box.send(frame) for frame in frames], daemon=True)
    sender.start()
    sender.join(2)
    assert not sender.is_alive(), "a send waited for the page to read"
    assert read_all(theirs, sum(map(len, frames))) == b"".join(frames)  # whole, in order


def test_a_page_too_far_behind_is_let_go(pair):
    ours, theirs = pair
    box = Outbox(ours, in_thread, cooperative=False)
    frame = b"x" * 50_000
    with pytest.raises(BrokenPipeError):
        for _ in range(MAX_QUEUED // len(frame) + 5):
            box.send(frame)
    with pytest.raises(BrokenPipeError):
        box.send(b"more")
    theirs.settimeout(5)
    received = b""
    while chunk := theirs.recv(65536):  # what got out, then the end: the socket was shut
        received += chunk
    assert len(received) < MAX_QUEUED + 2 * len(frame)


def test_a_write_that_times_out_gives_the_socket_up(pair):
    ours, _theirs = pair
    ours.settimeout(0.3)
    box = Outbox(ours, in_thread, cooperative=False)
    box.send(b"y" * 100_000)  # the rest waits for a reader that never comes
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            box.send(b"z")
        except BrokenPipeError:
            return
        time.sleep(0.05)
    raise AssertionError("the outbox kept waiting for a page that never read")
