"""The one owner of a room's changes: its lock, the commit, and the pushes in commit order.

Pages, sockets and the computer change a room only through `Tables`: each change takes the
room's lock, commits (stored before anything is acknowledged), then sends every other
connected seat its own freshly rendered table before the lock is let go, so pushes leave in
the order the changes were made. Nothing else in the web layer takes the lock.
"""

from __future__ import annotations

import contextlib
import threading

from flask_babel import force_locale

from ..events import DRAW
from ..game import IllegalMove, legal_actions
from ..room import COMPUTER, DRAW_UNTIL, Room, RoomError, others
from ..rooms import Rooms
from ..rules import DEFAULT, Rules
from ..tableview import table_view
from .hub import Connection, Hub, Superseded
from .messages import notice
from .render import render_superseded, render_table


class Tables:
    """Rooms, their live connections, and the computer, changed one writer per room."""

    def __init__(self, app, rooms: Rooms, hub: Hub) -> None:
        self.app = app
        self.rooms = rooms
        self.hub = hub
        self.computer = None  # set by init_app: it plays through `computer_moves`
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    # -- reading (no lock: a room is a frozen value)

    def get(self, room_id: str) -> Room | None:
        """The room, or None if there is no such room."""
        return self.rooms.get(room_id)

    def view(self, room: Room, seat: int, live: bool = True):
        """What `seat` sees of `room` now, its company's presence included."""
        here = self.hub.present(room.id)
        return table_view(room, seat, all(s in here for s in others(room, seat)), live)

    # -- changing

    def create(self, kind: str, level: str = "medium", rules: Rules = DEFAULT) -> tuple[Room, str]:
        """A new room under `rules` and its creator's secret; the computer starts if it opens."""
        room, secret = self.rooms.create(kind, level, rules)
        self.nudge(room)
        return room, secret

    def join(self, room_id: str, secret: str | None):
        """Seat a browser (its own seat, the free one, or none), telling the others."""
        with self._lock(room_id):
            before = self.rooms.require(room_id)
            room, seat, secret = self.rooms.join(room_id, secret)
            if room.seq != before.seq:  # a guest took the seat: the round was dealt afresh
                self._push(room, seat, "dealt-afresh")
        return room, seat, secret

    def act(self, room_id: str, seat: int, action: str, params, seq) -> Room:
        """A seat's move (a press of "Draw until I can play" too) or new-round answer;
        refusals raise RoomError or IllegalMove."""
        if action == DRAW_UNTIL:
            return self.draw_until(room_id, seat, seq)[0]
        with self._lock(room_id):
            present = self.hub.present(room_id)
            room = self.rooms.act(room_id, seat, action, params, present, seq)
            self._push(room, seat)
        self.nudge(room)
        return room

    def draw_until(self, room_id: str, seat: int, seq) -> tuple[Room, int]:
        """Draw for `seat` until a tile fits or the boneyard is empty; the room and how many
        tiles were drawn.

        Each tile is a draw of its own, stored and pushed before the next, like a press of
        "Draw a tile". The lock is held from the first draw to the last, so nobody acts in
        between (the pushes never wait on the network: web/outbox.py). The first draw is
        refused like any draw (a tile fits, not this seat's turn, a stale `seq`) and then
        nothing changes; a later one the room refuses (the other seat went away, the room
        changed elsewhere) ends the press with the draws made so far.
        """
        with self._lock(room_id):
            room, drawn = self._draw(room_id, seat, seq), 1
            while must_draw(room, seat):
                try:
                    room = self._draw(room_id, seat, room.seq)
                except (RoomError, IllegalMove):
                    room = self.rooms.get(room_id) or room
                    break
                drawn += 1
        self.nudge(room)
        return room, drawn

    def set_level(self, room_id: str, level: str) -> Room:
        """Switch the computer's level; it decides anew if it is to move."""
        with self._lock(room_id):
            room = self.rooms.set_level(room_id, level)
        self.nudge(room)
        return room

    def computer_moves(self, room_id: str, seq: int, action) -> Room | None:
        """Play the computer's chosen action, if the room is still at `seq`."""
        with self._lock(room_id):
            room = self.rooms.get(room_id)
            if room is None or room.seq != seq or not room.computer_to_move:
                return None  # something happened meanwhile; whoever did it nudged anew
            room = self.rooms.commit_as(room, COMPUTER, action)
            self._push(room, COMPUTER)
        self.nudge(room)  # a draw keeps the turn
        return room

    # -- connections

    def connect(self, room_id: str, seat: int, conn: Connection) -> bool:
        """Make `conn` the seat's live socket and send it the table; False if a newer tab
        holds the seat (the socket is told so and let go). Under the room's lock, so that no
        push to a replaced tab can follow the news that it was replaced."""
        with self._lock(room_id):
            try:
                replaced = self.hub.attach(room_id, seat, conn)
            except Superseded:
                conn.send(render_superseded())
                conn.close()
                return False
            if replaced is not None:
                replaced.send(render_superseded())
                replaced.close()
            room = self.rooms.require(room_id)
            conn.send(self._render(conn, room, seat))
            self._push(room, seat)
        self.nudge(room)
        return True

    def disconnect(self, room_id: str, seat: int, conn: Connection) -> None:
        """Forget a closed socket; if it was the seat's live one, tell the others."""
        if not self.hub.detach(room_id, seat, conn) or self.rooms.get(room_id) is None:
            return  # replaced by a newer tab, or the room was deleted meanwhile
        with contextlib.suppress(RoomError), self._lock(room_id):
            room = self.rooms.get(room_id)
            if room is not None:
                self._push(room, seat)

    def purge(self, idle_seconds: float) -> list[str]:
        """Delete idle rooms, and forget the locks of rooms that are gone (by any process)."""
        removed = self.rooms.purge(idle_seconds)
        with self._guard:
            known = list(self._locks)
        gone = [room_id for room_id in known if self.rooms.get(room_id) is None]
        with self._guard:
            for room_id in gone:
                self._locks.pop(room_id, None)
        return removed

    # -- inside

    def _lock(self, room_id: str) -> threading.RLock:
        """The room's lock (re-entrant); made only for a room that exists."""
        with self._guard:
            lock = self._locks.get(room_id)
            if lock is not None:
                return lock
        self.rooms.require(room_id)  # no lock is made for a made-up id
        with self._guard:
            return self._locks.setdefault(room_id, threading.RLock())

    def _draw(self, room_id: str, seat: int, seq) -> Room:
        """One draw for `seat`, stored and pushed to the other seats (the caller holds the
        lock)."""
        room = self.rooms.act(room_id, seat, "draw", {}, self.hub.present(room_id), seq)
        self._push(room, seat)
        return room

    def _push(self, room: Room, skip: int, news: str | None = None) -> None:
        """Send every connected seat but `skip` its own table (the caller holds the lock);
        `news` names a notice to show with it."""
        for seat in others(room, skip):
            conn = self.hub.live(room.id, seat)
            if conn is not None:
                conn.send(self._render(conn, room, seat, news))

    def _render(self, conn: Connection, room: Room, seat: int, news: str | None = None) -> str:
        """A seat's table as its socket's page shows it: in its language, with its links."""
        with force_locale(conn.locale):
            text = notice(news) if news else None
            return render_table(self.view(room, seat), conn.links, notice=text)

    def nudge(self, room: Room) -> None:
        """Let the computer move if it is due (after a restart, nothing else would)."""
        if self.computer is not None:
            self.computer.nudge(room)


def must_draw(room: Room, seat: int) -> bool:
    """True while drawing is all `seat` may do: its turn, no tile fits, tiles left to draw."""
    return legal_actions(room.round, seat) == (DRAW,)
