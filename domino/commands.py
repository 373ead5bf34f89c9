"""Every command on a room, decided once (no store, no Flask): a `Decision` holds the events
to store, the room they fold to and the records of the rounds they finish; a refused command
raises RoomError or IllegalMove. Each event is folded in exactly once, here: the store keeps
the events and caches the room decided (`domino.store.cache`), and the web layer passes in
what only it knows (who is connected, who is away long, the seat acting) and decides nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from . import dealing, game
from .actions import (
    agree,
    check_rematch,
    fresh_deal,
    game_action,
    granted,
    level_event,
    name_event,
    rules_event,
    seed_events,
    stand_in_event,
)
from .clock import Timing
from .dealing import FirstDeal
from .record import move_to_dict
from .room import ACCEPTS, ASKS, MOVES, PUBLIC_LEVEL, Room, RoomError, empty, secret_hash
from .room_records import fold_finishing
from .rules import DEFAULT, Rules


@dataclass(frozen=True, slots=True)
class Decision:
    """What a command decided: `events` to store after `before`, the `room` they fold to,
    the `(seq, record)` of each round they finish, and the `seat` that acted (its table is
    the reply; the others are pushed theirs). No events: nothing changes."""

    before: Room
    room: Room
    events: tuple[tuple[str, dict], ...] = ()
    records: tuple[tuple[int, str], ...] = ()
    seat: int | None = None

    @classmethod
    def of(cls, room: Room, seat: int | None = None) -> Decision:
        """Nothing decided yet on `room`."""
        return cls(room, room, seat=seat)

    def then(self, events: Iterable[tuple[str, dict]]) -> Decision:
        """This decision and `events` after it, each folded in once (numbered on)."""
        events = tuple(events)
        numbered = [(self.room.seq + 1 + i, kind, data) for i, (kind, data) in enumerate(events)]
        room, records = fold_finishing(self.room, numbered)
        return replace(
            self, room=room, events=self.events + events, records=self.records + tuple(records)
        )


# -- moves and requests


def act(room: Room, seat: int, action: str, params: dict, present, seq, rng) -> Decision:
    """A seat's action (`decide`) if `seq` is the room's latest, else RoomError("stale")."""
    if seq != room.seq:
        raise RoomError("stale")
    return decide(room, seat, action, params, present, rng)


def decide(room: Room, seat: int, action: str, params: dict, present, rng) -> Decision:
    """A seat's move or request; refused actions raise RoomError/IllegalMove.

    `present` holds the seats with a live connection: play goes on only while every seat a
    person plays is there. A new round or match needs the word of every person at a full
    table (`Room.voices`: mid-round, that of a player the computer stands in for too; a
    preview is dealt again at once); any move cancels an open request.
    """
    if room.bots[seat] is not None:
        if seat in room.lost:
            raise RoomError("match-lost")  # abandoned: the computer plays it to the match's end
        raise RoomError("computer-plays")  # handed over while away: taken back at its turn
    if room.overdue == seat:
        raise RoomError("timed-out")  # the computer makes this move for the seat
    if action in MOVES:
        if not room.full:
            raise RoomError("no-guest")
        if not everyone_here(room, set(present) | {seat}):
            raise RoomError("opponent-away")
        return move(room, seat, game_action(action, params))
    seeded = Decision.of(room, seat).then(seed_events(room, seat, params))
    if action in ASKS:
        what = ASKS[action]
        if room.kind == "public" and what == "round":
            _public_next(room)
        if seat in room.agreed:
            raise RoomError("already-asked")
        if room.request is not None and room.request_kind != what:
            raise RoomError("other-request")
        if what == "rematch":
            if room.kind == "public":
                raise RoomError("public-rematch")  # a rematch counts for nothing: not in public
            check_rematch(room)
        return seeded.then(agree(seeded.room, seat, what, rng))
    if action in ACCEPTS or action == "decline-new-round":
        if room.request is None or seat in room.agreed:
            raise RoomError("no-request")
        if action == "decline-new-round":
            return Decision.of(room, seat).then([("decline", {"seat": seat})])
        if ACCEPTS[action] != room.request_kind:
            raise RoomError("other-request")
        return seeded.then(agree(seeded.room, seat, room.request_kind, rng))
    raise RoomError("unknown-action")


def _public_next(room: Room) -> None:
    """At a public table the next deal is only a match's next round ("Continue"): no round
    is given up midway (it would reset the match's clock and timeouts), and a match over is
    the table's last (the players go back to quick match; SPEC §12)."""
    if room.match_over:
        raise RoomError("public-over")
    if room.match is None or not room.between_rounds:
        raise RoomError("public-round")


def move(room: Room, seat: int, action) -> Decision:
    """A seat's play, draw or pass, applied once; an illegal one raises IllegalMove."""
    data = move_to_dict(game.resolve(room.round, seat, action))
    return Decision.of(room, seat).then([(data["action"], data)])


def everyone_here(room: Room, present) -> bool:
    """True when play may go on: every person at the table is connected (a person alone
    against the computer need not be: nobody else waits on them). At a public table play
    never waits: the clock runs for whoever is away (SPEC §12)."""
    if room.kind == "public":
        return True
    humans = room.humans
    return len(humans) < 2 or set(humans) <= set(present)


def computer_move(room: Room | None, seq: int, action, present) -> Decision | None:
    """The computer's chosen action for the seat to move, if the room is still at `seq`,
    that seat is the computer's and every person is here; else None (whatever changed
    meanwhile nudges the computer anew)."""
    if room is None or room.seq != seq or not room.computer_to_move:
        return None
    if not everyone_here(room, present):
        return None
    return move(room, room.round.turn, action)


# -- seats


def create(
    room_id: str,
    kind: str,
    secret: str,
    rng,
    level: str = "medium",
    rules: Rules = DEFAULT,
    counter: bool = False,
    first: FirstDeal | None = None,
) -> Decision:
    """A new room: its rules, its creator in seat 0 (holding `secret`; in a computer room,
    the computer on every other seat, at `level`) and the first deal, of the seed the home
    page committed to (`first`) and the creator's."""
    events = [rules_event(rules), ("seat", {"seat": 0, "hash": secret_hash(secret)})]
    if counter:
        events.append(("options", {"counter": True}))
    if kind == "computer":
        events += [level_event(seat, level) for seat in range(1, rules.seats)]
    decision = Decision.of(empty(room_id, kind), 0).then(events)
    if first is not None:
        decision = decision.then([dealing.commit_of(first.server_seed, first.nonce)])
        commitment = decision.room.fair.next_commitment
        params = {"client_seed": first.client_seed or "", "commitment": commitment}
        decision = decision.then(seed_events(decision.room, 0, params))
    return decision.then(fresh_deal(decision.room, rng))


def create_public(
    room_id: str,
    rules: Rules,
    seats,
    rng,
    timing: Timing | None = None,
    now: float = 0.0,
    stake: int = 0,
) -> Decision:
    """A public room (SPEC §12), full at once: `seats` gives by seat a person's (secret
    hash, name) or None for the computer, at PUBLIC_LEVEL; then the first deal and, with
    `timing`, its clock from `now` (`clocked`). The same events as every room's ("rules",
    "seat", "name", "level", the deal), so it folds as they do; only its kind differs. A
    stake table (SPEC §13: `stake` coins each, people only) says so in a "stake" event."""
    if len(seats) != rules.seats or all(seat is None for seat in seats):
        raise RoomError("bad-seat")
    if stake < 0 or (stake and any(seat is None for seat in seats)):
        raise RoomError("bad-seat")
    events = [rules_event(rules)]
    if stake:
        events.append(("stake", {"coins": stake}))
    for seat, held in enumerate(seats):
        if held is None:
            events.append(level_event(seat, PUBLIC_LEVEL))
        else:
            digest, shown = held
            events += [("seat", {"seat": seat, "hash": digest}), name_event(seat, shown)]
    decision = Decision.of(empty(room_id, "public"), 0).then(events)
    decision = decision.then(fresh_deal(decision.room, rng))
    if timing is None:
        return decision
    start = {"seat": decision.room.round.turn, "at": now, "move": timing.move, "bank": timing.bank}
    return decision.then([("clock", start)])


def reseat(room: Room, seat: int, secret: str) -> Decision:
    """A public room's person seat is given to the browser that holds `secret` (its seat
    grant was checked and is spent with this event): the seat's hash is replaced."""
    if room.kind != "public" or room.seats[seat] is None:
        raise RoomError("bad-seat")
    return Decision.of(room, seat).then([("seat", {"seat": seat, "hash": secret_hash(secret)})])


def join(room: Room, secret: str | None, fresh: Callable[[], str], params: dict | None, rng):
    """Seat a browser: its own seat back, else the first free seat (with the secret `fresh()`
    makes, called only then), else none; the decision, the seat and its secret.

    The seat that makes the table full gets a fresh deal, with the client seed in `params`:
    what was dealt while seats were free (and could be dealt again at will) was only a
    preview.
    """
    seat = room.seat_of(secret)
    if seat is not None or room.full:
        return Decision.of(room, seat), seat, secret
    seat, secret = room.free[0], fresh()
    seated = Decision.of(room, seat).then([("seat", {"seat": seat, "hash": secret_hash(secret)})])
    seated = seated.then(seed_events(seated.room, seat, params or {}))
    return _fresh_if_full(seated, rng), seat, secret


def give(room: Room, by: int, seat: int, level: str, params: dict | None, rng) -> Decision:
    """The creator (seat `by`, 0) gives a free seat to the computer, at `level`; the table,
    if now full, is dealt (with the client seed of seat `by` in `params`)."""
    if by != 0:
        raise RoomError("not-creator")
    if seat not in room.free:
        raise RoomError("seat-taken")
    given = Decision.of(room, by).then([level_event(seat, level)])
    given = given.then(seed_events(given.room, by, params or {}))
    return _fresh_if_full(given, rng)


def _fresh_if_full(decision: Decision, rng) -> Decision:
    """A fresh deal after `decision` if it filled the last free seat."""
    if decision.room.full and not decision.before.full:
        return decision.then(fresh_deal(decision.room, rng))
    return decision


def hand_over(room: Room, by: int, seat: int, present, away_long, rng) -> Decision:
    """Seat `by`, at the table and connected (`present`), lets the computer stand in for
    the player of `seat`, away long (`away_long`), at the level `stand_in_event` gives it.
    Not at a public table: its clock hands over an away seat (`abandon`)."""
    if room.kind == "public":
        raise RoomError("public-clock")
    if by not in room.humans or by not in present:
        raise RoomError("not-seated")
    if seat == by or seat not in away_long or seat not in room.humans:
        raise RoomError("not-away")
    handed = Decision.of(room, by).then([stand_in_event(room, seat)])
    after = handed.room
    if after.request is not None and set(after.voices) <= after.agreed:
        # Between rounds, the seat was the last whose word a request waited for: the
        # computer gives it ("Continue" goes on). Mid-round the stand-in gives no word
        # (`Room.voices`): the request waits for its player.
        return handed.then(granted(after, after.request_kind, rng))
    return handed


def take_back(room: Room, seat: int) -> Decision:
    """The seat's player plays it again."""
    if not room.handed(seat):
        raise RoomError("not-handed")
    return Decision.of(room, seat).then([("back", {"seat": seat})])


def due_back(room: Room, present) -> list[int]:
    """The handed seats whose players are here (`present`) and may take them back now: at
    the seat's turn, once the round is over, or while a request waits for their word."""
    if room.round is None:
        return []
    return [
        seat
        for seat in present
        if room.handed(seat)
        and seat not in room.lost  # abandoned: the computer's to the match's end
        and (room.round.over or room.round.turn == seat or room.request is not None)
    ]


def set_level(room: Room, by: int, level: str, seat: int | None = None) -> Decision:
    """Seat `by` switches the level of a seat the computer plays (by default, every such
    seat that nobody holds); hands and line stay. Levels are the creator's to switch (or
    the one person's at the table); the level of a seat the computer plays for an away
    player is not the others' to switch."""
    if room.kind == "public":
        raise RoomError("public-table")  # the computer plays "hard" there, always
    if not any(room.bots):
        raise RoomError("not-computer")
    if by not in room.humans or (by != 0 and len(room.humans) > 1):
        raise RoomError("not-your-level")  # the page offers levels to the creator only
    unheld = [s for s, (held, bot) in enumerate(room.taken) if bot and not held]
    seats = [seat] if seat is not None else unheld
    if not seats or any(room.bots[s] is None for s in seats):
        raise RoomError("not-computer")
    if any(room.handed(s) for s in seats):
        raise RoomError("stand-in-level")
    return Decision.of(room, by).then(
        [level_event(s, level) for s in seats if room.bots[s] != level]
    )


def name(room: Room, seat: int, text: str, reserved: Iterable[str] = ()) -> Decision:
    """A seat's display name ("" for none; see `name_event`), if it changes."""
    if room.kind == "public":
        raise RoomError("public-table")  # a public seat is called by its player's name
    event = name_event(seat, text, reserved)
    if room.names[seat] == event[1]["name"]:
        return Decision.of(room, seat)
    return Decision.of(room, seat).then([event])


# -- the clock of a public table (SPEC §12, domino/clock.py)


def clocked(decision: Decision, now: float) -> Decision:
    """`decision` and, at a clocked public table whose turn it passed (to a seat, or to
    nobody once the round is over), the "clock" event that starts the new turn's time at
    `now` (the match's clock starts with the room: `create_public`; a public table plays
    one match). Draws keep the turn: the time runs on."""
    room = decision.room
    if room.kind != "public" or room.clock is None or not decision.events:
        return decision
    seat = room.round.turn
    if room.clock.seat == seat:
        return decision
    return decision.then([("clock", {"seat": seat, "at": now})])


def deadline(room: Room) -> float | None:
    """When the room's clock runs out (None: it is not running): the time of the person on
    move, or between two rounds of a match the wait for the next round. The computer's own
    seats, and a seat it is already moving for, have none."""
    clock = room.clock
    if room.kind != "public" or clock is None or clock.overdue or room.round is None:
        return None
    if clock.seat is None:
        return clock.deadline if room.match is not None and room.between_rounds else None
    if room.round.turn != clock.seat or room.bots[clock.seat] is not None:
        return None
    return clock.deadline


def time_out(room: Room, seq: int, now: float, rng) -> Decision | None:
    """The room's clock ran out at `now` (its timer was armed at `seq`): the seat on move
    times out, the computer making its move ("timeout"; the TIMEOUTS-th (domino.clock) of its match
    abandons the seat), or between rounds the next round is dealt. None if the room moved
    on or its deadline is not reached (a timer that woke early: armed again)."""
    due = deadline(room)
    if room.seq != seq or due is None or now < due:
        return None
    seat = room.clock.seat
    if seat is None:
        return Decision.of(room).then(granted(room, "round", rng))
    events = [("timeout", {"seat": seat})]
    if room.clock.timed_out().handed(seat):
        events += _abandoned(room, seat, "timeouts")
    return Decision.of(room).then(events)


def abandon(room: Room, seat: int, why: str, rng) -> Decision | None:
    """A public table's person `seat` abandons the match in play (`why`: "away" for
    ABANDON_SECONDS): the computer plays it to the match's end and its player loses the
    match (last place, `domino.players.results`). A request that waited only for their word
    is granted, as when a seat is handed over. None when there is no match to lose."""
    if room.kind != "public" or seat not in room.humans or room.round is None:
        return None
    if not room.full or not room.rounds or room.match_over:
        return None
    decision = Decision.of(room).then(_abandoned(room, seat, why))
    after = decision.room
    if after.request is not None and set(after.voices) <= after.agreed:
        return decision.then(granted(after, after.request_kind, rng))
    return decision


def _abandoned(room: Room, seat: int, why: str) -> list:
    """The events of a seat abandoned: the computer's at PUBLIC_LEVEL, its match lost."""
    events = [] if room.bots[seat] is not None else [level_event(seat, PUBLIC_LEVEL)]
    return [*events, ("abandon", {"seat": seat, "why": why})]
