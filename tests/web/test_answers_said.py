"""Every answer said (issue 29, item 4): whoever asked for a new round, a "Continue", a new
match or a rematch is told when another player answers "Not now", "Not yet" or "Keep
playing", or when a move is played instead, in the table's notice and in the live region
(`#announce`), through Flask's test client and the pushes a socket would carry."""

from __future__ import annotations

import random

import pytest

from domino import game
from domino.web.view.messages import notice as notice_of
from tests.support.webkit import Table, friends, make_app, notice, parse


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=7)


def told(app, table: Table, code: str) -> None:
    """The newest table pushed to `table` says the notice `code`, on the page and in the
    live region."""
    pushed = parse(table.ws.frames[-1])
    with app.test_request_context():
        words = notice_of(code)
    assert notice(pushed) == words
    announce = pushed.find("id", "announce")
    assert announce is not None and words in announce.text


def finish(tables, rng: random.Random) -> None:
    """Play random legal moves until the round is over."""
    while not tables[0].state.over:
        state = tables[0].state
        mover = tables[state.turn]
        assert mover.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200


def test_keep_playing_is_said_to_the_asker_of_a_new_round(app):
    a, b = friends(app)
    assert a.post("new-round").status_code == 200
    assert b.post("decline-new-round").status_code == 200
    told(app, a, "kept-round")


def test_not_now_is_said_to_the_asker_of_a_new_round_after_the_round(app):
    tables = friends(app)
    finish(tables, random.Random(1))
    a, b = tables
    assert b.post("new-round").status_code == 200
    assert a.post("decline-new-round").status_code == 200
    told(app, b, "declined-round")


def test_a_move_that_cancels_the_request_is_said_to_the_asker(app):
    tables = friends(app)
    state = tables[0].state
    mover, asker = tables[state.turn], tables[1 - state.turn]
    assert asker.post("new-round").status_code == 200
    assert mover.send(game.legal_actions(state, state.turn)[0]).status_code == 200
    assert mover.services.rooms.get(mover.room).request is None
    told(app, asker, "cancelled-round")


def test_not_yet_is_said_to_the_one_who_pressed_continue(app):
    tables = friends(app, preset="match-100")
    finish(tables, random.Random(2))
    a, b = tables
    assert a.post("new-round").status_code == 200  # "Continue"
    assert b.doc.one("data-next").get("data-next") == "continue"
    assert b.post("decline-new-round").status_code == 200  # "Not yet"
    told(app, a, "declined-continue")


def test_keep_playing_is_said_to_the_asker_of_a_new_match(app):
    a, b = friends(app, preset="match-100")
    assert a.post("new-round").status_code == 200  # mid-round in a match: a new match
    assert b.doc.one("data-next").get("data-next") == "match"
    assert b.post("decline-new-round").status_code == 200
    told(app, a, "kept-match")


def test_a_move_that_cancels_a_new_match_request_is_said(app):
    tables = friends(app, preset="match-100")
    state = tables[0].state
    mover, asker = tables[state.turn], tables[1 - state.turn]
    assert asker.post("new-round").status_code == 200
    assert mover.send(game.legal_actions(state, state.turn)[0]).status_code == 200
    told(app, asker, "cancelled-match")


def test_not_now_is_said_to_the_asker_of_a_rematch(app):
    tables = friends(app)
    finish(tables, random.Random(3))
    a, b = tables
    assert a.post("rematch").status_code == 200
    assert b.post("decline-new-round").status_code == 200
    told(app, a, "declined-rematch")


def test_at_three_seats_every_other_player_is_told_of_a_decline(app):
    host = Table(app)
    host.create_room(preset="three")
    tables = [host]
    for _ in range(2):
        guest = Table(app, host.room)
        guest.open()
        assert guest.join().status_code == 303
        tables.append(guest)
    for index, table in enumerate(tables):
        table.connect(f"100.{index}")
    for table in tables:
        table.fragment()
    assert tables[0].post("new-round").status_code == 200  # a new match, mid-round
    assert tables[2].post("decline-new-round").status_code == 200
    told(app, tables[0], "kept-match-many")
    told(app, tables[1], "kept-match-many")
