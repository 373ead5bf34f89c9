"""The computer's moves: after a pause, off the request thread, pushed like a person's."""

from __future__ import annotations

import logging
import random
import threading
import time

from flask_babel import force_locale

from .. import bots
from ..game import IllegalMove
from ..rooms import COMPUTER, RoomError, table_view
from ..views import seat_view
from .render import render_table

log = logging.getLogger(__name__)


class Autoplayer:
    """Moves for seat 2 of computer rooms, through the same `Rooms` path as a person."""

    def __init__(self, app, services, delay_ms: int) -> None:
        self.app = app
        self.services = services
        self.delay = max(delay_ms, 0) / 1000
        self._busy = 0
        self._idle = threading.Condition()

    def nudge(self, room, base_url: str) -> None:
        """If the computer is to move in `room`, move after the pause (in the background)."""
        if room is None or room.round is None or not room.computer_to_move:
            return
        with self._idle:
            self._busy += 1
        thread = threading.Thread(
            target=self._move, args=(room.id, room.seq, base_url), daemon=True
        )
        thread.start()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no computer move is pending (for tests)."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def _move(self, room_id: str, seq: int, base_url: str) -> None:
        try:
            time.sleep(self.delay)
            with self.app.test_request_context("/", base_url=base_url):
                self._play(room_id, seq, base_url)
        except Exception:
            log.exception("the computer could not move in room %s", room_id)
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def _play(self, room_id: str, seq: int, base_url: str) -> None:
        """One decision, if the room is still where it was when the move was planned."""
        rooms, hub = self.services.rooms, self.services.hub
        with rooms.lock(room_id):
            room = rooms.get(room_id)
            if room is None or room.seq != seq or not room.computer_to_move:
                return  # something happened meanwhile; whoever did it plans anew
            bot = bots.get(room.level or "medium")
            rng = random.Random(rooms.rng.getrandbits(64))
            action = bot(seat_view(room.round, COMPUTER), rng)
            try:
                room = rooms.commit_as(room, COMPUTER, action)
            except (IllegalMove, RoomError):
                log.exception("the computer chose an illegal move in room %s", room_id)
                return
            conn = hub.live(room_id, 0)
            if conn is not None:
                with force_locale(conn.locale):
                    conn.send(render_table(table_view(room, 0, True)))
        self.nudge(room, base_url)  # a draw keeps the turn
