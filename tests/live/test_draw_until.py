"""'Draw until I can play': one press, one stored and pushed draw per tile (issue 14).

Friends play random legal moves through HTTP (tests/support/webkit.py) until the seat on turn has
nothing to play; the press is then made from that seat's own table, and the room's log, both
tables and the other seat's socket are read.
"""

from __future__ import annotations

import random
import threading

import pytest

from domino import game
from domino.events import DRAW, Play
from domino.web.view.messages import refusal
from tests.support.webkit import (
    advance_until,
    button,
    enabled,
    friends,
    make_app,
    notice,
    parse,
    seat_on_turn,
    tile_mentions,
    vals,
)

RNG_SEED = 3


def must_draw(state: game.State) -> bool:
    """The seat on turn has nothing to play, and tiles are left to draw."""
    return not state.over and game.legal_actions(state, state.turn) == (DRAW,)


def fitting_at(state: game.State) -> int | None:
    """Where in the boneyard the first tile that fits the open ends lies (None: none does)."""
    left, right = state.ends
    return next(
        (i for i, tile in enumerate(state.boneyard) if tile.has(left) or tile.has(right)), None
    )


def needs_draws(state: game.State) -> bool:
    """A seat must draw, the first tile will not fit, a later one will."""
    return must_draw(state) and (fitting_at(state) or 0) >= 1


def draws_it_dry(state: game.State) -> bool:
    """A seat must draw two tiles or more, and none of them fits."""
    return must_draw(state) and fitting_at(state) is None and len(state.boneyard) >= 2


def press(table):
    """Press "Draw until I can play" on the table's newest page, as htmx would."""
    control = button(table.doc, "draw-until")
    assert enabled(control), "no enabled draw-until button"
    assert control.get("hx-post") == f"{table.url}/draw-until"
    return table.post("draw-until", **vals(control))


def other_of(tables, table):
    return next(t for t in tables if t is not table)


@pytest.fixture
def tables(tmp_path):
    return friends(make_app(tmp_path / "db.sqlite3"))


def test_each_tile_is_a_draw_of_its_own_until_one_fits(tables):
    state = advance_until(tables, needs_draws, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    seat, count = state.turn, fitting_at(state) + 1
    logged = len(mover.log)
    response = press(mover)
    assert response.status_code == 200, response.get_data(as_text=True)
    added = mover.log[logged:]
    assert [kind for _seq, kind, _data in added] == ["draw"] * count
    expected = [str(tile) for tile in state.boneyard[:count]]
    assert [data for _seq, _kind, data in added] == [
        {"seat": seat, "action": "draw", "tile": tile} for tile in expected
    ]
    after = mover.state
    assert after.turn == seat and len(after.hands[seat]) == len(state.hands[seat]) + count
    doc = mover.doc
    assert doc.find("data-playable") is not None, "the tile that fits is not playable"
    assert button(doc, "draw") is None and button(doc, "draw-until") is None
    assert notice(doc) == f"You drew {count} tiles."


def test_drawing_the_boneyard_dry_stops_there_and_offers_the_pass(tables):
    state = advance_until(tables, draws_it_dry, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    logged = len(mover.log)
    assert press(mover).status_code == 200
    added = [kind for _seq, kind, _data in mover.log[logged:]]
    assert added == ["draw"] * len(state.boneyard)
    assert mover.state.boneyard == () and mover.state.turn == state.turn
    doc = mover.doc
    assert enabled(button(doc, "pass"))
    assert button(doc, "draw-until") is None and doc.find("data-playable") is None
    assert int(doc.one("data-boneyard-count").text) == 0


def test_the_other_seat_is_sent_each_draw_and_sees_none_of_the_tiles(tables):
    state = advance_until(tables, needs_draws, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    other, count = other_of(tables, mover), fitting_at(state) + 1
    frames = len(other.ws.frames)
    seq = mover.seq
    assert press(mover).status_code == 200
    pushed = [parse(frame) for frame in other.ws.frames[frames:]]
    assert [int(doc.one("data-seq").get("data-seq")) for doc in pushed] == [
        seq + n for n in range(1, count + 1)
    ]
    assert [int(doc.one("data-boneyard-count").text) for doc in pushed] == [
        len(state.boneyard) - n for n in range(1, count + 1)
    ]
    assert [int(doc.one("data-opponent-count").text) for doc in pushed] == [
        len(state.hands[state.turn]) + n for n in range(1, count + 1)
    ]
    drawn = {str(tile) for tile in state.boneyard[:count]}
    for doc in pushed:
        assert not drawn & {tile for tile, _node in tile_mentions(doc)}


def test_refused_while_a_tile_fits_and_nothing_changes(tables):
    def can_play(state):
        legal = game.legal_actions(state, state.turn) if not state.over else ()
        plays = any(isinstance(action, Play) for action in legal)
        return plays and bool(state.line) and bool(state.boneyard)

    advance_until(tables, can_play, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    other = other_of(tables, mover)
    assert button(mover.doc, "draw-until") is None  # not offered
    log, frames, seq = mover.log, len(other.ws.frames), mover.seq
    response = mover.post("draw-until")
    assert response.status_code == 409
    assert notice(parse(response.get_data(as_text=True))) == refusal("must-play")
    assert mover.log == log and mover.seq == seq and len(other.ws.frames) == frames


def test_refused_on_the_other_seats_turn_and_with_an_old_seq(tables):
    advance_until(tables, needs_draws, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    other, log = other_of(tables, mover), mover.log
    response = other.post("draw-until")
    assert response.status_code == 409
    assert notice(parse(response.get_data(as_text=True))) == refusal("not-your-turn")
    response = mover.post("draw-until", seq=mover.seq - 1)
    assert response.status_code == 409
    assert notice(parse(response.get_data(as_text=True))) == refusal("stale")
    assert mover.log == log


def test_another_action_between_two_draws_ends_the_press(tables):
    """Should the room move under the press (here the other seat's request, made while the
    first draw is pushed to it), the next draw is not made: the press stops at once."""
    state = advance_until(tables, needs_draws, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    other = other_of(tables, mover)
    services, pushed = mover.services, other.ws.send

    def meanwhile(text):
        pushed(text)
        if len(other.ws.frames) == frames + 1:  # the first draw reached the other seat
            seq = services.get(other.room).seq
            with other.app.app_context():
                services.act(other.room, other.seat, "new-round", {}, seq)

    frames, logged = len(other.ws.frames), len(mover.log)
    other.ws.send = meanwhile
    assert press(mover).status_code == 200
    added = [(kind, data.get("seat")) for _seq, kind, data in mover.log[logged:]]
    assert added == [("draw", state.turn), ("ask", other.seat)]
    assert len(mover.state.boneyard) == len(state.boneyard) - 1


class WatchedLock:
    """A room lock that counts how often it is let go entirely."""

    def __init__(self) -> None:
        self.inner = threading.RLock()
        self.depth = 0
        self.freed = 0

    def __enter__(self):
        self.inner.acquire()
        self.depth += 1
        return self

    def __exit__(self, *_exc) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.freed += 1
        self.inner.release()


def test_the_room_is_held_from_the_first_draw_to_the_last(tmp_path, monkeypatch):
    """Nobody can act between the draws of one press: the room's lock is never let go."""
    made: list[WatchedLock] = []

    def room_lock() -> WatchedLock:  # the app makes each room's lock with this
        made.append(WatchedLock())
        return made[-1]

    tables = friends(make_app(tmp_path / "db.sqlite3", ROOM_LOCK=room_lock))
    state = advance_until(tables, needs_draws, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    services = mover.services
    (lock,) = made  # one room, one lock
    seen = []
    commit = services.rooms.commit

    def watched(*args, **kw):
        seen.append((lock.depth, lock.freed))
        return commit(*args, **kw)

    monkeypatch.setattr(services.rooms, "commit", watched)
    assert press(mover).status_code == 200
    assert len(seen) == fitting_at(state) + 1 >= 2
    assert all(depth >= 1 for depth, _freed in seen)
    assert len({freed for _depth, freed in seen}) == 1, f"the lock was let go: {seen}"


def test_one_press_spends_one_request_of_the_seats_budget(tmp_path):
    app = make_app(tmp_path / "db.sqlite3", RATELIMIT_ENABLED=True, RATELIMIT_HEADERS_ENABLED=True)
    tables = friends(app)
    state = advance_until(tables, needs_draws, random.Random(RNG_SEED))
    mover = seat_on_turn(tables)
    spent = mover.post("decline-new-round")  # refused (nothing to answer), but counted
    assert spent.status_code == 409
    before = int(spent.headers["X-RateLimit-Remaining"])
    response = press(mover)
    assert len(mover.state.hands[state.turn]) >= len(state.hands[state.turn]) + 2
    assert int(response.headers["X-RateLimit-Remaining"]) == before - 1
