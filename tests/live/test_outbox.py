"""The outbox of a websocket's socket: a send never waits, order holds, a close waits for what
is queued, and a page that falls behind or stops reading is let go."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from domino.web.live.outbox import MAX_QUEUED, Outbox

ROOT = Path(__file__).resolve().parents[2]
FRAMES = [bytes([n % 251]) * 20_000 for n in range(10)]  # far more than the buffers hold


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


def read_all(sock, within: float = 5.0) -> bytes:
    """Everything until the other side closes (or `within` passes)."""
    sock.settimeout(within)
    data = b""
    while more := sock.recv(65536):
        data += more
    return data


def sent_without_waiting(box: Outbox, frames) -> bool:
    sender = threading.Thread(target=lambda: [box.send(f) for f in frames], daemon=True)
    sender.start()
    sender.join(2)
    return not sender.is_alive()


def test_a_send_to_a_page_that_reads_nothing_does_not_wait(pair):
    ours, theirs = pair
    ours.settimeout(5)  # as the server may leave it: the outbox decides when to wait
    box = Outbox(ours, in_thread, cooperative=False, seconds=5)
    assert sent_without_waiting(box, FRAMES), "a send waited for the page to read"
    assert sent_without_waiting(box, FRAMES[:1])  # and again, with the buffer still full
    box.close()  # once the queue is out
    assert read_all(theirs) == b"".join(FRAMES + FRAMES[:1])  # whole, in order, then the end


def test_a_page_too_far_behind_is_let_go(pair):
    ours, theirs = pair
    box = Outbox(ours, in_thread, cooperative=False, seconds=5)
    frame = b"x" * 50_000
    with pytest.raises(BrokenPipeError):
        for _ in range(MAX_QUEUED // len(frame) + 5):
            box.send(frame)
    with pytest.raises(BrokenPipeError):
        box.send(b"more")
    assert len(read_all(theirs)) < MAX_QUEUED + 2 * len(frame)  # then the end: it was shut


def test_a_socket_that_takes_nothing_for_its_seconds_is_given_up(pair):
    ours, _theirs = pair
    box = Outbox(ours, in_thread, cooperative=False, seconds=0.3)
    box.send(b"y" * 100_000)  # the rest waits for a reader that never comes
    assert any(box.flush() for _ in range(15)), "the writer kept waiting for a page that never read"
    with pytest.raises(BrokenPipeError):
        box.send(b"z")


GEVENT_SCRIPT = """
from gevent import monkey
monkey.patch_all()
import socket, sys, time
import gevent
from domino.web.live.outbox import Outbox

ours, theirs = socket.socketpair()
ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
box = Outbox(ours, gevent.spawn_raw, cooperative=True, seconds=5)
frames = [bytes([n]) * 20_000 for n in range(10)]
started = time.monotonic()
for frame in frames:
    box.send(frame)  # no greenlet switch: nothing reads yet
waited = time.monotonic() - started
box.close()
got = b""
while more := theirs.recv(65536):
    got += more
print("waited %.3f whole %s" % (waited, got == b"".join(frames)))
"""


def test_under_gevent_a_send_never_waits_and_a_close_flushes_first():
    done = subprocess.run(
        [sys.executable, "-c", GEVENT_SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    words = done.stdout.split()
    assert words[:1] == ["waited"], done.stdout + done.stderr
    assert float(words[1]) < 0.5 and words[3] == "True", done.stdout
