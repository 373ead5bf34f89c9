"""A display name may not pass for a seat (issue 27): a name that is, or holds as whole words,
one of the table's own words for a seat ("you", "your partner", "the computer", "your friend",
East, North, West) in any of the four languages, compared after NFKC case folding without
accents, is refused with its own message and changes nothing. "Youssef" is a name; "You" and
"Your partner Bob" are not. The words come from the catalogs, so a new translation counts."""

from __future__ import annotations

import random

import pytest
from flask_babel import force_locale

from domino.actions import is_reserved, name_event
from domino.room import RoomError
from domino.rules import PRESETS
from domino.store import Store
from domino.store.cache import Rooms
from domino.views import table_view
from domino.web.view.i18n import LANGUAGES, gettext, pgettext
from domino.web.view.messages import refusal
from domino.web.view.names import name_of, place, reserved_words
from tests.support import drive
from tests.support.webkit import Table, make_app, notice, parse

REFUSED = [
    "You",
    "you",
    "YOU",
    "Yóu",  # an accent does not make it another word
    "ＹＯＵ",  # full-width letters fold to the same word
    "Your partner",
    "Your partner Bob",
    "your_partner",
    "Bob-you",
    "The computer",
    "the Computer 2",
    "Your friend",
    "East",
    "north",
    "West wind",
    "Jij",  # Dutch
    "Je partner",
    "Noord",
    "Ty",  # Polish
    "Twoj partner",  # accent dropped
    "Wschód",
    "Zachod",
    "Północ",
    "Vous",  # French
    "L'ordinateur",
    "Votre partenaire",
    "Ouest",
    "Est",
]
ACCEPTED = ["Youssef", "Ann Lee", "Eastwood", "Northampton", "Tyler", "Vousseau", "Estelle", ""]


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=13)


@pytest.fixture
def words(app):
    with app.test_request_context():
        return reserved_words()


@pytest.mark.parametrize("name", REFUSED)
def test_the_tables_words_for_a_seat_are_refused(words, name):
    assert is_reserved(name, words)
    with pytest.raises(RoomError) as refused:
        name_event(0, name, words)
    assert refused.value.code == "reserved-name"


@pytest.mark.parametrize("name", ACCEPTED)
def test_other_names_are_names(words, name):
    assert not is_reserved(name, words)
    assert name_event(0, name, words)[1]["name"] == name


def test_the_words_are_those_of_every_catalog(app, words):
    with app.test_request_context():
        for lang in LANGUAGES:
            with force_locale(lang):
                assert gettext("your partner") in words
                assert pgettext("seat", "North") in words


def table_views(tmp_path):
    """Every seat's view of a table of each size and kind, every seat taken."""
    store = Store(tmp_path / "views.sqlite3")
    rooms = Rooms(store, random.Random(3))
    for kind, preset in (("friend", "classic"), ("computer", "classic"), ("friend", "three")):
        room, _secret = rooms.create(kind, rules=PRESETS[preset])
        while not room.full:
            room = drive.join(rooms, room.id, None)[0]
        yield from (table_view(room, seat, set()) for seat in range(room.rules.seats))
    room, _secret = rooms.create("friend", rules=PRESETS["pairs"])
    while not room.full:
        room = drive.join(rooms, room.id, None)[0]
    yield from (table_view(room, seat, set()) for seat in range(4))
    store.close()


def test_every_word_a_table_calls_a_seat_by_is_reserved(app, words, tmp_path):
    """Whatever `name_of` and `place` say of a seat, in any language, no player may take."""
    said = set()
    with app.test_request_context():
        for tv in table_views(tmp_path):
            for lang in LANGUAGES:
                with force_locale(lang):
                    for seat in range(tv.rules.seats):
                        name = name_of(tv, seat)
                        said |= {name.label, name.inline}
                        if seat != tv.seat and tv.rules.seats > 2:
                            said.add(place(tv, seat))
    assert len(said) > 30
    assert [text for text in said if not is_reserved(text, words)] == []


def test_a_name_that_passes_for_a_seat_is_refused_at_the_table_and_changes_nothing(app):
    host = Table(app)
    host.create_room(preset="pairs")
    host.connect()
    host.fragment()
    assert host.post("name", name="Youssef", seq=None).status_code == 200
    before = host.log
    for name in ("Your partner", "Votre partenaire Bob", "  east "):
        response = host.post("name", name=name, seq=None)
        assert response.status_code == 400, name
        with app.test_request_context():
            assert notice(parse(response.get_data(as_text=True))) == refusal("reserved-name")
        assert host.log == before
    assert app.extensions["domino"].rooms.get(host.room).names[0] == "Youssef"
    assert host.post("name", name="Jij", seq=None).status_code == 400  # Dutch, on any table


def test_the_refusal_is_translated(app):
    host = Table(app)
    host.create_room()
    host.connect()
    host.fragment()
    response = host.client.post(
        f"{host.url}/name",
        data={"name": "Ty"},
        headers={"X-CSRFToken": host.csrf, "X-Tab": host.tab, "Accept-Language": "nl"},
    )
    assert response.status_code == 400
    assert "De tafel gebruikt die naam al voor een plaats" in response.get_data(as_text=True)
