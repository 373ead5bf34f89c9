"""Round review: replay a round record and weigh each real choice with the `hard` engine.

Each decision is judged from the seat's own view at that moment (`views.seat_view`, the
honest view the bots get): `bots.search.estimate` gives the mean net points of every play on
the same sampled worlds, so the made play and the best one are compared fairly. A move is
costly when it cost at least COSTLY points and is among its seat's TOP costliest. The reason
names what the better play had going for it, from public knowledge only (the other seats'
shown voids). `analyze` returns plain JSON-able values, so it can run in another process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from random import Random

from ..events import LEFT, Play, TilePlayed
from ..game import State, apply, start
from ..record import _leader, from_record
from ..views import SeatView, seat_view
from .knowledge import deduce
from .search import estimate

VERSION = 1
PLAYOUTS = 4800  # per decision, shared among its plays (hard's own: `search._playouts`)
COSTLY = 2.0  # points a move must cost to be marked
TOP = 3  # at most this many marked moves per seat


@dataclass(frozen=True, slots=True)
class Decision:
    """A real choice: `seat` made play `made` as event `index`, seeing `view`."""

    index: int
    seat: int
    view: SeatView
    made: Play


def decisions(record: dict) -> list[Decision]:
    """Every play of the record made with two or more distinct plays to choose from.

    The record is checked by replaying it (`record.from_record`; a bad one raises
    RecordError); the round is then replayed from its leader, as from_record finds it.
    """
    final = from_record(record)
    state = _first(record, final)
    found = []
    for index, move in enumerate(final.moves):
        if isinstance(move, TilePlayed):
            view = seat_view(state, move.seat)
            if len(distinct(view)) >= 2:
                found.append(Decision(index, move.seat, view, Play(move.tile, move.end)))
        state = apply(state, move)
    return found


def position(record: dict, final: State, step: int) -> State:
    """The round of `record` (replayed as `final`) after its first `step` moves."""
    state = _first(record, final)
    for move in final.moves[:step]:
        state = apply(state, move)
    return state


def _first(record: dict, final: State) -> State:
    """The round as dealt, its leader as from_record finds it."""
    return start(final.start, final.rules, _leader(record, final.rules))


def distinct(view: SeatView) -> set[tuple]:
    """The seat's legal plays that differ in effect: the tile and the ends they leave."""
    return {
        (play.tile, tuple(sorted(ends_after(view, play))))
        for play in view.legal
        if isinstance(play, Play)
    }


def ends_after(view: SeatView, play: Play) -> tuple[int, int]:
    """The open ends once `play` is laid."""
    tile = play.tile
    if view.ends is None:
        return tile.low, tile.high
    left, right = view.ends
    if play.end == LEFT:
        return tile.other_half(left), right
    return left, tile.other_half(right)


def analyze(record_text: str, seed: int, playouts: int = PLAYOUTS) -> dict:
    """The review of one round record (JSON text): every decision weighed, costly ones marked."""
    record = json.loads(record_text)
    rng = Random(seed)
    rows = [_weigh(decision, rng, playouts) for decision in decisions(record)]
    _mark(rows)
    return {"version": VERSION, "playouts": playouts, "decisions": rows}


def _weigh(decision: Decision, rng: Random, playouts: int) -> dict:
    """One decision's row: the made and the best play, their values, the cost and why."""
    view = decision.view
    options = estimate(view, rng, playouts)
    made = decision.made if view.line else Play(decision.made.tile, LEFT)
    value = dict(options)
    made_ev = value[made]
    best, best_ev = max(options, key=lambda option: option[1])
    if made_ev == best_ev:
        best = made
    ranked = sorted(options, key=lambda option: -option[1])
    return {
        "index": decision.index,
        "seat": decision.seat,
        "made": _name(made),
        "made_ev": round(made_ev, 2),
        "best": _name(best),
        "best_ev": round(best_ev, 2),
        "cost": round(best_ev - made_ev, 2),
        "costly": False,
        "options": [[_name(play), round(ev, 2)] for play, ev in ranked],
        "reason": reason(view, made, best),
    }


def _name(play: Play) -> str:
    """A play as the review writes it: "4-6:right"."""
    return f"{play.tile}:{play.end}"


def _mark(rows: list[dict]) -> None:
    """Mark each seat's TOP costliest moves that cost at least COSTLY points."""
    for seat in {row["seat"] for row in rows}:
        mine = sorted((row for row in rows if row["seat"] == seat), key=lambda r: -r["cost"])
        for row in mine[:TOP]:
            row["costly"] = row["cost"] >= COSTLY


def reason(view: SeatView, made: Play, best: Play) -> list:
    """Why `best` beat `made`, as [code, details]: the best play kept open a number another
    side had shown it lacks (`leaves-void`), was a double (`double`), left the seat a tile
    to follow with where the made play left none for either open end (`no-answer`, with
    those `ends`), shed a heavier tile (`kept-heavy`), or nothing simpler than the playouts
    says why (`plain`)."""
    if made == best:
        return ["plain", {}]
    kept, closed = set(ends_after(view, best)), set(ends_after(view, made))
    for other in deduce(view).opponents:
        for number in sorted(other.voids & (kept - closed)):
            return ["leaves-void", {"number": number, "seat": other.seat}]
    if best.tile.is_double and not made.tile.is_double:
        return ["double", {"pips": best.tile.pips}]
    if not _answers(view, made) and _answers(view, best):
        return ["no-answer", {"ends": sorted(closed)}]
    if best.tile.pips > made.tile.pips:
        return ["kept-heavy", {"pips": best.tile.pips, "made_pips": made.tile.pips}]
    return ["plain", {}]


def _answers(view: SeatView, play: Play) -> bool:
    """True when, once `play` is laid, the seat still holds a tile for one of the open ends."""
    ends = ends_after(view, play)
    return any(tile != play.tile and (tile.has(ends[0]) or tile.has(ends[1])) for tile in view.hand)
