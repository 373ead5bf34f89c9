"""The one owner of a room's changes: its lock, the commit, and the pushes in commit order.

Pages, sockets and the computer change a room only through `Tables`: each change takes the
room's lock, commits (stored before anything is acknowledged), then sends every other
connected seat its own freshly rendered table before the lock is let go, so pushes leave in
the order the changes were made. Nothing else in the web layer takes the lock. `Tables` decides
nothing: each change is a pure command of `domino.commands`, given who is connected and who is
away long; `Tables` takes the lock, commits what it decided, pushes and nudges (`_change`).

A public table's clock (SPEC §12) is the room's too: every change is stamped with the moment
it was decided (`commands.clocked`), and `nudge` arms the room's one timer (web/live/clocks.py)
for its deadline; when it fires, `time_out` lets the computer move for the seat.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from dataclasses import dataclass, replace

from ... import commands
from ...clock import ABANDON_SECONDS, BANK_SECONDS, MOVE_SECONDS, Timing
from ...commands import Decision
from ...events import DRAW
from ...game import IllegalMove, legal_actions
from ...room import DRAW_UNTIL, Room, RoomError, new_secret
from ...rules import DEFAULT, PRESETS, Rules
from ...store.cache import Rooms
from ...views import table_view
from ..view.messages import answered
from ..view.render import render_pushed, render_superseded
from .away import Away
from .clocks import Clocks
from .grants import grant_token, seat_secret
from .hub import Connection, Hub, Superseded


@dataclass(frozen=True, slots=True)
class Opened:
    """A public room just opened: its id, and each person's seat grant as a path under the
    app's root (`/r/<room>/grant?token=...`), by player id."""

    room: str
    grants: dict[str, str]


class Tables:
    """Rooms, their live connections, and the computer, changed one writer per room."""

    def __init__(self, app, rooms: Rooms, hub: Hub) -> None:
        self.app = app
        self.rooms = rooms
        self.hub = hub
        # Makes each room's lock (re-entrant); a test passes one that watches itself.
        self._new_lock = app.config.get("ROOM_LOCK")
        self.computer = None  # set by init_app: it plays through `computer_moves`
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()
        self.away = Away(hub, self._away_seconds_of, self._still_away)
        self.now = app.config.get("WALL_CLOCK", time.time)  # the moments the clocks store
        self.clocks = Clocks(self.time_out, self.now)
        self.closed = False  # the process is stopping: a socket closing now tells no one

    # -- reading (no lock: a room is a frozen value)

    def get(self, room_id: str) -> Room | None:
        """The room, or None if there is no such room."""
        return self.rooms.get(room_id)

    def view(self, room: Room, seat: int, live: bool = True):
        """What `seat` sees of `room` now, its company's presence included."""
        present = self.hub.present(room.id)
        left = self.away_left(room, present)
        tv = table_view(room, seat, present, live, self.away_long(room), left, self.now())
        if room.kind == "public":  # worded as the room it is like (data-public: web/view/render.py)
            tv = replace(tv, kind=public_words(room, seat))
        return tv

    def away_seconds(self, room: Room) -> float:
        """How long a room's player may be away: AWAY_SECONDS until the others may hand the
        seat to the computer, at a public table ABANDON_SECONDS until the match is lost."""
        if room.kind == "public":
            return self.app.config.get("ABANDON_SECONDS", ABANDON_SECONDS)
        return self.app.config["AWAY_SECONDS"]

    def _away_seconds_of(self, room_id: str) -> float:
        """`away_seconds` for the away timers, which know only the room's id."""
        room = self.rooms.get(room_id)
        return self.app.config["AWAY_SECONDS"] if room is None else self.away_seconds(room)

    def timing(self) -> Timing:
        """A public table's clock settings, as the app is configured now."""
        config = self.app.config
        return Timing(
            config.get("MOVE_SECONDS", MOVE_SECONDS), config.get("BANK_SECONDS", BANK_SECONDS)
        )

    def away_long(self, room: Room) -> frozenset[int]:
        """The seats whose players have been away long enough to hand them to the computer
        (never at a public table: its clock hands an away seat over, `_still_away`)."""
        if room.kind == "public":
            return frozenset()
        wait = self.away_seconds(room)
        return frozenset(s for s in room.humans if self.hub.away_for(room.id, s) >= wait)

    def away_left(self, room: Room, present) -> dict[int, int]:
        """For each player away (but not long enough yet), the whole seconds until their seat
        may be handed to the computer: the away seats' countdown (issue 29)."""
        wait, left = self.away_seconds(room), {}
        for s in room.humans:
            if s not in present:
                gone = self.hub.away_for(room.id, s)
                if gone < wait:
                    left[s] = math.ceil(wait - gone)
        return left

    # -- changing

    def create(
        self, kind: str, level: str = "medium", rules: Rules = DEFAULT, counter=False, first=None
    ) -> tuple[Room, str]:
        """A new room under `rules` and its creator's secret; the computer starts if it opens
        (`counter`, `first`: see `Rooms.create`)."""
        room, secret = self.rooms.create(kind, level, rules, counter, first)
        self.nudge(room)
        return room, secret

    def create_public(self, game: str, seats, stake: int = 0) -> Opened:
        """A public room of the public game `game` (SPEC §12: `PRESETS[game]`), full at once:
        `seats` lists by seat a person's (player id, name), or None for the computer (at
        "hard"); `stake` the coins each person staked at a stake table (SPEC §13: people
        only). Each person gets a single-use seat grant (web/live/grants.py). The one narrow
        function the lobby's waves call (web/live/waves.py)."""
        rules = PRESETS[game]
        names = [None if s is None else s[1] for s in seats]
        players = {seat: held[0] for seat, held in enumerate(seats) if held is not None}
        room = self.rooms.create_public(rules, names, players, self.timing(), self.now(), stake)
        key = self.app.config["SECRET_KEY"]
        grants = {}
        for seat, held in enumerate(seats):
            if held is not None:
                token = grant_token(key, room.id, seat, held[0])
                grants[held[0]] = f"/r/{room.id}/grant?token={token}"
        self.away.watch(room.id, room.humans)  # nobody is here yet: a no-show abandons too
        self.nudge(room)
        return Opened(room.id, grants)

    def redeem(self, room_id: str, seat: int, grant: str) -> tuple[Room, str]:
        """Give a public room's seat to the player who brought its grant (checked by the
        caller): the grant's secret (`seat_secret`) replaces the seat's, and the grant id is
        spent in the same write. The seat holding that secret already (the answer that set
        its cookie was lost): the same secret, nothing written. RoomError("grant-used") if
        the grant was spent otherwise (then nothing changes)."""
        secret = seat_secret(self.app.config["SECRET_KEY"], grant)
        with self._lock(room_id):
            room = self.rooms.require(room_id)
            if room.seat_of(secret) == seat:
                return room, secret
            decision = commands.reseat(room, seat, secret)
            room = self.rooms.commit(decision, grant)
            self._push(room, seat)
        self.nudge(room)
        return room, secret

    def join(self, room_id: str, secret: str | None, params=None):
        """Seat a browser (its own seat, the free one, or none), telling the others; `params`
        may carry its client seed for the deal a last free seat makes."""
        seated = []

        def join(room: Room) -> Decision:
            decision, _seat, given = commands.join(room, secret, new_secret, params, self.rng)
            seated.append(given)
            return decision

        decision = self._change(room_id, join, news=dealt_afresh)
        return decision.room, decision.seat, seated[0]

    def act(self, room_id: str, seat: int, action: str, params, seq) -> Room:
        """A seat's move (a press of "Draw until I can play" too) or new-round answer;
        refusals raise RoomError or IllegalMove."""
        if action == DRAW_UNTIL:
            return self.draw_until(room_id, seat, seq)[0]
        return self._change(room_id, self._act, seat, action, params, seq, news=answered).room

    def draw_until(self, room_id: str, seat: int, seq) -> tuple[Room, int]:
        """Draw for `seat` until a tile fits or the boneyard is empty; the room and how many
        tiles were drawn.

        Each tile is a draw of its own, stored and pushed before the next, like a press of
        "Draw a tile". The lock is held from the first draw to the last, so nobody acts in
        between (the pushes never wait on the network: web/live/outbox.py). The first draw is
        refused like any draw (a tile fits, not this seat's turn, a stale `seq`) and then
        nothing changes; a later one the room refuses (the other seat went away, the room
        changed elsewhere) ends the press with the draws made so far.
        """
        with self._lock(room_id):
            first = self._decided(room_id, self._act, seat, "draw", {}, seq, news=answered)
            room, drawn = first.room, 1
            while must_draw(room, seat):
                try:
                    room = self._decided(room_id, self._act, seat, "draw", {}, room.seq).room
                except (RoomError, IllegalMove):
                    room = self.rooms.get(room_id) or room
                    break
                drawn += 1
        self.nudge(room)
        return room, drawn

    def _act(self, room: Room, seat: int, action: str, params, seq) -> Decision:
        """`commands.act` with who is connected now."""
        present = self.hub.present(room.id)
        return commands.act(room, seat, action, params, present, seq, self.rng)

    def set_level(self, room_id: str, by: int, level: str, seat: int | None = None) -> Room:
        """Seat `by` switches the level of a seat the computer plays (by default every seat
        it plays that nobody holds); it decides anew if it is to move."""
        # another switch may follow: the computer decides once it settles
        return self._change(room_id, commands.set_level, by, level, seat, settle=True).room

    def give(self, room_id: str, by: int, seat: int, level: str, params=None) -> Room:
        """The creator (seat 0) gives a free seat to the computer; if that fills the table,
        it is dealt afresh (with the client seed in `params`)."""
        decision = self._change(
            room_id, commands.give, by, seat, level, params, self.rng, news=dealt_afresh
        )
        return decision.room

    def hand_over(self, room_id: str, by: int, seat: int) -> Room:
        """A player at the table lets the computer stand in for a player away for
        AWAY_SECONDS, at the level the room gives it (`commands.hand_over`), never one they
        pick; everyone is told. Its player takes it back on return (`nudge`)."""

        def hand_over(room: Room) -> Decision:
            present, away = self.hub.present(room_id), self.away_long(room)
            return commands.hand_over(room, by, seat, present, away, self.rng)

        return self._change(room_id, hand_over, news="handed-over").room

    def name(self, room_id: str, seat: int, name: str, reserved=()) -> Room:
        """Set a seat's display name (none of the `reserved` words); the others see it at once
        (and a decision the computer was asked for before is no longer wanted: `nudge`)."""
        return self._change(room_id, commands.name, seat, name, reserved).room

    def computer_moves(self, room_id: str, seq: int, action) -> Room | None:
        """Play the computer's chosen action for the seat to move, if the room is still at
        `seq` (else None: whoever changed it nudged anew; a draw keeps the turn)."""

        def computer_move(room: Room) -> Decision | None:
            return commands.computer_move(room, seq, action, self.hub.present(room_id))

        decision = self._change(room_id, computer_move, load=self.rooms.get, news=answered)
        return None if decision is None else decision.room

    def _change(self, room_id: str, command, *args, news=None, settle=False, load=None):
        """Decide `command(room, *args)` on the room as it stands and commit it (pushing the
        other seats their tables), then `nudge`: the one shape of every change."""
        decision = self._decided(room_id, command, *args, news=news, load=load)
        if decision is not None:
            self.nudge(decision.room, settle)
        return decision

    def _decided(self, room_id: str, command, *args, news=None, load=None) -> Decision | None:
        """Under the room's lock: load the room (`load`, by default `Rooms.require`), decide
        `command(room, *args)`, commit it and, if it changed the room, push every other seat
        its table, with the notice `news` (a code, or a function of the decision's rooms
        before and after). None if the command decided there was nothing to do."""
        with self._lock(room_id):
            decision = command((load or self.rooms.require)(room_id), *args)
            if decision is None:
                return None
            decision = commands.clocked(decision, self.now())
            room = self.rooms.commit(decision)
            if decision.events:
                told = news(decision.before, room) if callable(news) else news
                self._push(room, decision.seat, told)
        return decision

    @property
    def rng(self):
        """The random source of deals."""
        return self.rooms.rng

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
        if not self.hub.detach(room_id, seat, conn) or self.closed:
            return  # replaced by a newer tab, or the server is stopping (its store may be shut)
        if self.rooms.get(room_id) is None:
            return  # the room was deleted meanwhile
        with contextlib.suppress(RoomError), self._lock(room_id):
            room = None if self.closed else self.rooms.get(room_id)  # closed meanwhile?
            if room is not None:
                self._push(room, seat)
        self.away.watch(room_id, (seat,))

    def close(self) -> None:
        """Stop the away timers and the clocks still waiting (before the store closes, e.g.
        in tests)."""
        self.closed = True
        self.away.close()
        self.clocks.close()

    # -- the clock of a public table

    def time_out(self, room_id: str, seq: int) -> Room | None:
        """A room's clock ran out (its timer, armed at `seq`): the computer moves for the
        seat on move, or the next round is dealt (`commands.time_out`). A timer that woke
        early, or for a room that moved on, is armed again for the room as it is."""
        with self.app.app_context():
            try:
                decision = self._change(room_id, self._timed_out, seq, news=timeout_news)
            except RoomError:  # the room was deleted meanwhile
                return None
            if decision is not None:
                return decision.room
            room = self.rooms.get(room_id)
            if room is not None:
                self.nudge(room)
            return room

    def _timed_out(self, room: Room, seq: int) -> Decision | None:
        return commands.time_out(room, seq, self.now(), self.rng)

    def resume_clocks(self, within: float = 86400.0) -> int:
        """Arm again the clocks of the public rooms changed in the last `within` seconds
        (after a restart: their deadlines come from the stored times), and let the
        computer move where it is to; how many rooms were looked at."""
        ids = self.rooms.store.rooms_of_kind("public", self.now() - within)
        for room_id in ids:
            room = self.rooms.get(room_id)
            if room is not None:
                self.nudge(room)
                here = self.hub.present(room_id)
                self.away.watch(room_id, [s for s in room.humans if s not in here])
        return len(ids)

    def _still_away(self, room_id: str, seat: int) -> None:
        """Tell the others a seat's player is away long enough to hand it over (`Away`'s
        timer found them so); at a public table, the seat abandons the match."""
        room = self.rooms.get(room_id)
        if room is not None and room.kind == "public":
            with self.app.app_context(), contextlib.suppress(RoomError):
                self._change(room_id, self._abandoned, seat, news="abandoned")
            return
        with contextlib.suppress(RoomError), self._lock(room_id):
            room = self.rooms.get(room_id)
            if room is not None and seat in self.away_long(room):
                with self.app.app_context():
                    self._push(room, seat)

    def purge(self, idle_seconds: float) -> list[str]:
        """Delete idle rooms, and forget the locks of rooms that are gone (by any process)."""
        removed = self.rooms.purge(idle_seconds)
        for room_id in removed:
            self.hub.forget(room_id)
            self.clocks.forget(room_id)
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
            lock = self._locks.get(room_id)
            if lock is None:
                lock = self._locks[room_id] = (self._new_lock or threading.RLock)()
            return lock

    def _push(self, room: Room, skip: int | None, news: str | None = None) -> None:
        """Send every connected seat but `skip` (None: every one) its own table (the caller
        holds the lock); `news` names a notice to show with it."""
        for seat in range(room.rules.seats):
            conn = None if seat == skip else self.hub.live(room.id, seat)
            if conn is not None:
                conn.send(self._render(conn, room, seat, news))
        here = self.hub.present(room.id)
        self.away.watch(room.id, [seat for seat in room.humans if seat not in here])

    def _render(self, conn: Connection, room: Room, seat: int, news: str | None = None) -> str:
        """A seat's table as its socket's page shows it: in its language, with its links."""
        return render_pushed(self.view(room, seat), conn.links, conn.locale, news)

    def _abandoned(self, room: Room, seat: int) -> Decision | None:
        """A public seat's player is still away, ABANDON_SECONDS on: `commands.abandon`."""
        if self.hub.live(room.id, seat) is not None:
            return None  # back meanwhile
        return commands.abandon(room, seat, "away", self.rng)

    def nudge(self, room: Room, settle: bool = False) -> None:
        """Give a seat back to its returning player when due, arm a public table's clock,
        then let the computer move if it is to (after a restart, nothing else would);
        `settle`: after a level switch."""
        room = self._give_back(room)
        if room.kind == "public":
            self.clocks.arm(room.id, room.seq, commands.deadline(room))
        if self.computer is not None and self.everyone_here(room):
            self.computer.nudge(room, settle)

    def everyone_here(self, room: Room) -> bool:
        """True when play may go on (`commands.everyone_here`)."""
        return commands.everyone_here(room, self.hub.present(room.id))

    def _give_back(self, room: Room) -> Room:
        """A seat handed to the computer goes back to its player, when they are here, at
        the seat's turn, once the round is over, or while a request waits for their word
        (`commands.due_back`)."""
        if not commands.due_back(room, self.hub.present(room.id)):
            return room
        with self._lock(room.id):
            room = self.rooms.require(room.id)
            for seat in commands.due_back(room, self.hub.present(room.id)):
                room = self.rooms.commit(commands.take_back(room, seat))
                self._push(room, None, "taken-back")
        return room


def public_words(room: Room, seat: int) -> str:
    """The kind a public room's table is worded as: at two seats against the computer, a
    computer room's ("the computer", never a person's words); otherwise a friend room's
    (each person is called by their player's name)."""
    if room.rules.seats == 2:
        other = 1 - seat
        if room.bots[other] is not None and not room.handed(other):
            return "computer"
    return "friend"


def timeout_news(before: Room, after: Room) -> str | None:
    """The notice for a clock that ran out: a seat abandoned on its last timeout, a move the
    computer makes for a seat, or (between rounds) none: the next round is simply dealt."""
    if after.lost - before.lost:
        return "abandoned"
    return "timed-out" if after.overdue is not None else None


def dealt_afresh(before: Room, after: Room) -> str | None:
    """The notice for a seat taken: the last free seat deals afresh (the preview is gone)."""
    if after.round is before.round:
        return None
    return "dealt-afresh" if after.rules.seats == 2 else "all-seated"


def must_draw(room: Room, seat: int) -> bool:
    """True while drawing is all `seat` may do: its turn, no tile fits, tiles left to draw."""
    return legal_actions(room.round, seat) == (DRAW,)
