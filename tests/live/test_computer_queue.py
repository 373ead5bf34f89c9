"""The computer's decisions wait in a fair queue (domino/web/live/pools.py, web/live/computer.py):
one per room and seat, the newest position only, one client's rooms behind each other, and every
position answered in the end, however its first decision went."""

from __future__ import annotations

import logging
import threading

import pytest

from domino import game
from domino.events import DRAW
from tests.support.webkit import Table, make_app

PLAYER, COMPUTER = 0, 1
WAIT = 30.0


@pytest.fixture
def app(tmp_path, decider):
    return make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DECIDE=decider)


@pytest.fixture
def gate(decider):
    """Decisions counted (`gate.asked`: their levels), and held until `gate.open()` once
    `gate.close()` was called."""

    class Gate:
        def __init__(self) -> None:
            self.release: threading.Event | None = None

        @property
        def asked(self) -> list[str]:
            return decider.levels

        def close(self) -> None:
            self.release = decider.hold()

        def open(self) -> None:
            if self.release is not None:
                self.release.set()

    gate = Gate()
    yield gate
    gate.open()


def settle(app) -> None:
    assert app.extensions["domino"].computer.wait_idle(WAIT), "the computer is still thinking"


def computer_room(app, address: str = "127.0.0.1", level: str = "hard") -> Table:
    """A computer room, its player (from `address`) connected, at the player's turn."""
    player = Table(app)
    player.client.environ_base["REMOTE_ADDR"] = address
    player.home()
    response = player.client.post("/computer", data={"csrf_token": player.csrf, "level": level})
    assert response.status_code == 303
    player.room = response.headers["Location"].rsplit("/", 1)[-1]
    player.open()
    player.connect()
    settle(app)
    player.fragment()
    return player


def hand_the_turn_over(player: Table) -> None:
    """Move (drawing first if nothing fits) until the computer is to move."""
    while player.state.turn == PLAYER and not player.state.over:
        actions = game.legal_actions(player.state, PLAYER)
        action = next((a for a in actions if a is not DRAW), actions[0])
        assert player.send(action).status_code == 200
    assert player.state.turn == COMPUTER


def test_level_switches_while_the_computer_waits_leave_one_decision(app, gate):
    busy, player = computer_room(app, "203.0.113.1"), computer_room(app, "203.0.113.2")
    gate.close()
    hand_the_turn_over(busy)  # its decision holds the pool's one slot
    hand_the_turn_over(player)
    for level in ("easy", "hard", "easy", "medium", "easy", "hard"):
        assert player.post("level", level=level).status_code == 200
    waiting = app.extensions["domino"].computer.queue.jobs()
    assert [job.key for job in waiting] == [(player.room, COMPUTER)]  # the newest only
    gate.open()
    settle(app)
    assert gate.asked == ["hard", "hard"]  # not one decision per switch
    assert player.state.turn == PLAYER or player.state.over  # and the computer moved


def test_one_clients_rooms_wait_behind_each_other_not_in_front_of_anothers(app, gate):
    flood = [computer_room(app, "203.0.113.9") for _ in range(3)]
    honest = computer_room(app, "198.51.100.7")
    gate.close()
    for player in flood:
        hand_the_turn_over(player)
    hand_the_turn_over(honest)
    queue = app.extensions["domino"].computer.queue
    assert queue.running((flood[0].room, COMPUTER)) is not None
    assert queue.ahead((honest.room, COMPUTER)) == 0  # next, before the flood's other two
    assert queue.ahead((flood[2].room, COMPUTER)) == 2
    gate.open()
    settle(app)
    for player in (*flood, honest):
        assert player.state.turn == PLAYER or player.state.over


def test_a_decision_that_fails_is_asked_again_until_the_computer_moves(app, decider, caplog):
    player = computer_room(app)
    decider.fail(2)  # the next two take too long
    failures = decider.failed
    caplog.set_level(logging.WARNING, logger="domino.web.live.computer")
    hand_the_turn_over(player)
    settle(app)
    assert len(failures) == 2
    assert player.state.turn == PLAYER or player.state.over
    said = [r for r in caplog.records if r.name == "domino.web.live.computer"]
    assert len(said) == 2 and all(r.exc_info is None for r in said)  # one line each
    assert "took too long" in said[0].getMessage()


def test_a_name_change_while_the_computer_thinks_does_not_stall_the_table(app, gate):
    player = computer_room(app)
    gate.close()
    hand_the_turn_over(player)
    assert player.post("name", name="Ana").status_code == 200  # the room moves on meanwhile
    gate.open()
    settle(app)
    assert player.state.turn == PLAYER or player.state.over
    assert len(gate.asked) == 2  # the first decision was for the position before the name
