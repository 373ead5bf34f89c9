"""A table never lost (issue 29, item 3), through Flask's test client: the card the home page
lists for each of a browser's tables (GET /r/<room>/yours, for its seat only, holding no
secret), the tab title on your turn in every language, and the small slips: a lone host is
told the truth, a tab that lost its seat can play here again, nothing sleeps in pairs, the
loser reads who won as the match names them, and the page says which seat the records name."""

from __future__ import annotations

import random

import pytest
from flask_babel import force_locale, gettext

from domino import game
from domino.web.view.render import render_superseded
from tests.support.webkit import Table, friends, make_app, parse


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=7)


def card(table: Table):
    """The home page's card of `table`'s room, as this browser is answered."""
    return table.client.get(f"{table.url}/yours")


def words(app, text: str, lang: str = "en", **values) -> str:
    with app.test_request_context(), force_locale(lang):
        return gettext(text, **values)


def title_of(response) -> str:
    return parse(response.get_data(as_text=True)).one(tag="title").text


def finish(tables, rng: random.Random) -> None:
    while not tables[0].state.over:
        state = tables[0].state
        mover = tables[state.turn]
        assert mover.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200


# -- the tab title -------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "nl", "pl", "fr"])
def test_the_title_starts_with_your_turn_on_your_turn_only(app, lang):
    a, b = friends(app)
    for table in (a, b):
        table.client.set_cookie("lang", lang)
    state = a.state
    mover, other = (a, b)[state.turn], (a, b)[1 - state.turn]
    yours = words(app, "Your turn", lang) + " · "
    assert title_of(mover.open()).startswith(yours)
    assert not title_of(other.open()).startswith(yours)
    title = parse(mover.open().get_data(as_text=True)).one(tag="title")
    assert title.get("data-title-yours").startswith(yours)  # what static/notify.js sets
    assert not title.get("data-title").startswith(yours)


def test_a_lone_host_is_not_told_it_is_anyones_turn(app):
    host = Table(app)
    host.create_room()
    doc = parse(host.open().get_data(as_text=True))
    assert doc.one(tag="title").text == words(app, "Your table") + " · Domino online"
    turn = doc.one("data-turn")
    assert turn.text.startswith(words(app, "Waiting for your friend to join"))
    assert words(app, "Their turn") not in doc.text


# -- the card of each table ---------------------------------------------------------------------


def test_a_seated_browser_gets_its_tables_card_and_a_stranger_nothing(app):
    host = Table(app)
    host.create_room()
    response = card(host)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    doc = parse(response.get_data(as_text=True))
    item = doc.one("data-your-table")
    assert item.get("data-room") == host.room and item.get("data-your-turn") == "waiting"
    assert words(app, "Waiting for your friend to join") in item.text
    assert doc.one("data-your-table-link").get("href") == host.url
    assert host.secret not in response.get_data(as_text=True)

    stranger = Table(app, host.room)
    stranger.home()
    refused = card(stranger)
    assert refused.status_code == 404 and refused.get_data(as_text=True) == ""

    guest = Table(app, host.room)
    guest.open()
    assert guest.join().status_code == 303
    host.connect("1.a")
    guest.connect("1.b")
    state = host.state
    for table in (host, guest):
        item = parse(card(table).get_data(as_text=True)).one("data-your-table")
        mine = state.turn == table.seat
        assert item.get("data-your-turn") == ("you" if mine else "other")
        assert (words(app, "Your turn") in item.text) == mine
        assert words(app, "Your friend") in item.text
        assert table.secret not in str(item.text)


def test_the_card_of_a_finished_round_says_so(app):
    tables = friends(app)
    finish(tables, random.Random(4))
    item = parse(card(tables[0]).get_data(as_text=True)).one("data-your-table")
    assert item.get("data-your-turn") == "over"


def test_the_home_page_has_the_list_and_holds_no_seat(app):
    host = Table(app)
    host.create_room()
    page = host.home().get_data(as_text=True)
    section = parse(page).one("data-your-tables")
    assert section.has("hidden")  # filled by static/notify.js
    assert section.get("data-room-url") == "/r/ROOM"
    assert host.secret not in page and host.room not in page


# -- small slips -------------------------------------------------------------------------------


def test_a_tab_that_lost_its_seat_offers_to_play_here(app):
    with app.test_request_context("/r/x"):
        doc = parse(str(render_superseded()))
    assert doc.one("data-superseded")
    link = doc.one("data-action", "play-here")
    assert link.tag == "a" and link.get("href") == ""  # this page's own address, again
    assert link.text == words(app, "Play here")


def test_nothing_is_said_to_sleep_when_every_tile_is_dealt(app):
    host = Table(app)
    host.create_room(preset="pairs")  # four hands of seven: 28 tiles dealt
    doc = parse(host.open().get_data(as_text=True))
    assert "sleeping" not in doc.text and doc.find("data-boneyard-count") is None
    block = Table(app)
    block.create_room(preset="block")  # two hands of seven: 14 sleep
    doc = parse(block.open().get_data(as_text=True))
    assert doc.one("data-boneyard-count").text == "14" and "tiles sleeping" in doc.text


def test_the_round_names_its_winner_as_the_match_does_and_the_records_seat(app):
    tables = friends(app)
    finish(tables, random.Random(5))
    outcome = game.outcome(tables[0].state)
    for table in tables:
        doc = table.doc
        names = words(app, "In these records you are “%(name)s”.", name=f"player {table.seat + 1}")
        assert names in doc.one("id", "round-details").text  # beside the records' link
        if outcome.winner is not None and outcome.winner != table.seat:
            headline = doc.one("data-result").one(tag="h2").text
            assert headline.startswith(words(app, "Your friend") + " ")
            assert "opponent" not in headline
