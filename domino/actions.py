"""The events a room's commands are made of, and the checks they share (no store, no Flask):
`domino.commands` decides each command with these and folds the events in once."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from . import dealing
from .events import DRAW, PASS, Play
from .room import (
    ACCEPTS,
    ASKS,
    LEVELS,
    NAME_LENGTH,
    STAND_IN_LEVEL,
    Room,
    RoomError,
    apply,
)
from .rules import DEFAULT, Rules
from .tiles import Tile


def redeals(room: Room, seat: int, action: str) -> bool:
    """True when `seat`'s `action` would deal a fresh hand at once in place of a round still in
    play: a new round or match asked for, or agreed to, mid-round by the last seat whose word
    it waited for (against the computer: the one person, at once). Dealing again and again
    like this is how a hand is fished for; the web counts these requests against a tight
    budget (web/guard/limits.py). A new round after the round is over is not one of them."""
    if ASKS.get(action, ACCEPTS.get(action)) != "round" or room.bots[seat] is not None:
        return False
    if not room.full or room.round is None or room.round.over:
        return False
    return set(room.voices) <= room.agreed | {seat}


def fills(room: Room, seat: int) -> bool:
    """True when giving `seat` to the computer takes the table's last free seat: the table is
    then dealt afresh, its first round that counts (a room of one person and the computer,
    like a computer room)."""
    return room.free == (seat,)


def seed_events(room: Room, seat: int, params: dict) -> list:
    """The "seed" of a seat's request that may lead to a deal: its browser's client seed, kept
    if sent for the commitment pending now (a seed for an older one counts for nothing)."""
    seed = params.get("client_seed")
    if not seed:
        return []
    try:
        event = dealing.seed_event(seat, seed)
    except ValueError as error:
        raise RoomError("bad-seed") from error
    pending = room.fair.next_commitment
    if seat not in room.humans or pending is None or params.get("commitment") != pending:
        return []
    return [event]


def fold_in(room: Room, events: list) -> Room:
    """`room` after events not stored yet (numbered on from its latest)."""
    for offset, (kind, data) in enumerate(events, 1):
        room = apply(room, kind, data, room.seq + offset)
    return room


def check_rematch(room: Room) -> None:
    """A rematch replays the round just finished, at a full table, never a rematch itself."""
    if not room.full or not room.rounds or not room.round.over or room.duplicate is not None:
        raise RoomError("no-rematch")


def agree(room: Room, seat: int, what: str, rng) -> list:
    """A seat's word for a new round (`what` "round") or a rematch: the deal once every seat
    whose word it needs has given it (`Room.voices`; while seats are free a new deal is a
    preview, dealt again at once)."""
    if set(room.voices) <= room.agreed | {seat} or (what == "round" and not room.full):
        return granted(room, what, rng)
    data = {"seat": seat} if what == "round" else {"seat": seat, "what": what}
    return [("ask", data)]


def granted(room: Room, what: str, rng) -> list:
    """The events of a request every person agreed to."""
    if what == "rematch":
        return [dealing.rematch_deal(room.round)]
    return next_round(room, rng)


def next_round(room: Room, rng) -> list:
    """The events of the next deal: the match's next round between rounds, else (a round
    given up, or a match over) a new match, if the room plays matches."""
    deal = fresh_deal(room, rng)
    if room.round is None or room.match is None or not room.full or room.between_rounds:
        return deal
    return [("match", {}), *deal]


def fresh_deal(room: Room, rng) -> list:
    """The events of a fresh fair deal for the seats as they are now."""
    return dealing.deal_events(room.fair, room.rules, room.humans, rng)


def level_event(seat: int, level: str) -> tuple[str, dict]:
    """The computer plays `seat` at `level`, checked."""
    if level not in LEVELS:
        raise RoomError("bad-level")
    return ("level", {"seat": seat, "level": level})


def stand_in_event(room: Room, seat: int) -> tuple[str, dict]:
    """The computer plays a held seat while its player is away, at the level it stood in for
    them at before in this room, else STAND_IN_LEVEL: never a level the others choose, so
    nobody picks a weak or a strong stand-in for the absent player."""
    return level_event(seat, room.stand_ins[seat] or STAND_IN_LEVEL)


def name_event(seat: int, name: str, reserved: Iterable[str] = ()) -> tuple[str, dict]:
    """A seat's display name: trimmed, one line, at most NAME_LENGTH characters ("" for none),
    and none of the `reserved` words (`is_reserved`: the table's own words for a seat)."""
    name = " ".join(str(name).split())
    if len(name) > NAME_LENGTH or not name.isprintable():
        raise RoomError("bad-name")
    if is_reserved(name, reserved):
        raise RoomError("reserved-name")
    return ("name", {"seat": seat, "name": name})


WORD = re.compile(r"[^\W_]+")  # a run of letters and digits: "_", "-", "’" and spaces part words


def name_words(text: str) -> tuple[str, ...]:
    """The words of `text` as names are compared: NFKC, case-folded, accents dropped ("Yóu",
    "ＹＯＵ" and "you" are one word)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    bare = "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))
    return tuple(WORD.findall(unicodedata.normalize("NFKC", bare)))


def is_reserved(name: str, reserved: Iterable[str]) -> bool:
    """True when `name` is, or holds as whole words in a row, one of the `reserved` words or
    phrases: with "you" and "your partner" reserved, "You" and "Your partner Bob" are, and
    "Youssef" and "Partner" are not."""
    words = name_words(name)
    for phrase in reserved:
        wanted = name_words(phrase)
        size = len(wanted)
        if size and any(words[i : i + size] == wanted for i in range(len(words) - size + 1)):
            return True
    return False


def rules_event(rules: Rules) -> tuple[str, dict]:
    """The room's rules, its first event; rooms play double-six."""
    if rules.max_pip != DEFAULT.max_pip:
        raise RoomError("bad-rules")
    return ("rules", rules.to_json())


def game_action(action: str, params: dict):
    """Read a play, draw or pass from request parameters."""
    if action == "draw":
        return DRAW
    if action == "pass":
        return PASS
    try:
        tile = Tile.parse(params.get("tile", ""))
    except ValueError as error:
        raise RoomError("bad-tile") from error
    end = params.get("end")
    if end not in ("left", "right"):
        raise RoomError("bad-end")
    return Play(tile, end)
