"""A room's round records (docs/contracts.md, the round record): who sat where, and the record of
each round its events finish (no store, no Flask: `domino.store.cache` stores what these make).
Named apart from `domino.record`, which writes and reads one record."""

from __future__ import annotations

from .record import dumps, match_to_dict, to_record
from .room import Room, apply, empty


def record_names(room: Room) -> tuple[str, ...]:
    """Who sat where, as a round record names them (docs/contracts.md, the round record):
    "computer" on the seats the computer played at the end, "player" for a computer room's
    person, else "player k"."""
    people = ("player",) * room.rules.seats if room.kind == "computer" else None
    return tuple(
        "computer" if bot else (people[seat] if people else f"player {seat + 1}")
        for seat, bot in enumerate(room.bots)
    )


def record_text(before: Room, after: Room) -> str:
    """The round record of the round a move finished (`before` it, `after` it), one JSON line."""
    if after.duplicate is not None:  # a rematch: counted in no match, its deal proven before
        return dumps(to_record(after.round, record_names(after)))
    match = None
    if after.match is not None:
        match = match_to_dict(after.matches, before.match, after.match)
    return dumps(to_record(after.round, record_names(after), match, after.fair.current))


def fold_finishing(room: Room, events) -> tuple[Room, list[tuple[int, str]]]:
    """`room` after the events `(seq, type, data)`, and the `(seq, record)` of each round
    they finish."""
    records = []
    for seq, kind, data in events:
        before = room
        room = apply(room, kind, data, seq)
        if room.round is not before.round and room.round.over:  # a move that ended the round
            records.append((seq, record_text(before, room)))
    return room, records


def finished_records(room: Room, events) -> list[tuple[int, str]]:
    """The `(seq, record)` of every round a room's stored `events` finish."""
    return fold_finishing(empty(room.id, room.kind), events)[1]
