"""Between the rounds of a public match (partials/next.html): every seat whose player still
plays may say "Continue"; a seat whose player lost the match by leaving it is offered
nothing (the computer plays it to the match's end, and a press would only be refused), until
the match is over, when it too gets the link to play again. A stake table's #table says its
stake (`data-stake`) and its line says the pot."""

from __future__ import annotations

import random

import pytest

from domino import commands
from domino.rules import PRESETS
from domino.store import Store
from domino.store.cache import Rooms
from domino.views import table_view
from domino.web.view.render import links, render_table
from tests.support import drive
from tests.support.webkit import make_app, parse


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3")
    yield app
    app.extensions["domino"].close()


@pytest.fixture
def rooms(tmp_path):
    store = Store(tmp_path / "rooms.sqlite3")
    yield Rooms(store, random.Random(3))
    store.close()


def drawn(app, room, seat: int):
    with app.test_request_context("/"):
        tv = table_view(room, seat, present=range(room.rules.seats))
        return parse(str(render_table(tv, links(room))))


def test_a_seat_lost_by_leaving_is_offered_no_continue_between_rounds(app, rooms):
    room = rooms.create_public(PRESETS["match-100"], ["Ana", "Bob"], {0: "ana", 1: "bob"})
    room = rooms.commit(commands.abandon(room, 1, "away", random.Random(1)))
    room, _outcome = drive.finish_round(rooms, room, random.Random(2))
    assert room.round.over and not room.match_over and room.lost == {1}
    stays, left = drawn(app, room, 0), drawn(app, room, 1)
    assert stays.find("data-action", "new-round") is not None  # "Continue"
    assert left.find("data-action", "new-round") is None
    assert left.find("data-lost") is not None
    assert left.find("data-action", "play-again") is None  # not before the match is over


def test_a_stake_tables_table_says_its_stake_and_a_free_one_does_not(app, rooms):
    names, players = ["Ana", "Bob", "Cy", "Di"], {0: "a", 1: "b", 2: "c", 3: "d"}
    staked = rooms.create_public(PRESETS["pairs"], names, players, stake=250)
    free = rooms.create_public(PRESETS["pairs"], names, players)
    table = drawn(app, staked, 2).one("id", "table")
    assert table.get("data-stake") == "250" and table.has("data-public")
    assert "the winners take the pot of 1000" in table.text
    assert drawn(app, free, 2).one("id", "table").get("data-stake") is None
