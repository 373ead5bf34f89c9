"""The rules card at three and four seats (issue 29, item 8): the page carries, for every table
the card can ask for, the most tiles a hand may hold as the core's own checks allow them
(data-most-tiles, for static/rules.js to offer only what fits), with the words for each; and
without the script the server still refuses what does not fit, saying what does.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from domino.rules import DEFAULT, Rules, RulesError
from domino.web.view import rules_text
from tests.support.webkit import Node, Table, make_app, parse

SETUPS = [(seats, game) for seats in (2, 3, 4) for game in ("draw", "block")]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return make_app(tmp_path_factory.mktemp("card") / "domino.sqlite3", seed=3)


def core_accepts(seats: int, game: str, size: int) -> bool:
    """Whether the core plays hands of `size` at this table (pairs exactly at four)."""
    try:
        Rules(seats=seats, teams=seats == 4, boneyard=game == "draw", hand_size=size)
    except RulesError:
        return False
    return True


def card(app, lang: str = "en") -> Node:
    browser = Table(app)
    browser.client.set_cookie("lang", lang)
    return parse(browser.home().get_data(as_text=True)).one("data-rules-form")


def test_the_most_tiles_of_every_table_are_the_cores(app):
    size = card(app).one("name", "hand_size")
    most = json.loads(size.get("data-most-tiles"))
    assert set(most) == {f"{seats} {game}" for seats, game in SETUPS}
    for seats, game in SETUPS:
        top = most[f"{seats} {game}"]
        assert core_accepts(seats, game, top), (seats, game, top)
        assert not core_accepts(seats, game, top + 1), (seats, game, top)
    # what that means at the tables of issue 29
    assert (most["3 draw"], most["3 block"], most["4 draw"], most["4 block"]) == (9, 9, 6, 7)
    offered = [int(option.get("value")) for option in size.find_all(tag="option")]
    assert offered == list(range(2, max(most.values()) + 1))  # the script disables the rest


@pytest.mark.parametrize("lang", ["en", "nl", "pl", "fr"])
def test_the_script_has_words_for_every_table(app, lang):
    form = card(app, lang)
    messages = json.loads(form.get("data-messages"))
    most = json.loads(form.one("name", "hand_size").get("data-most-tiles"))
    for key in most:
        refused, lowered = messages["hand_size"][key], messages["adjusted"][key]
        seats = key.split()[0]
        for words in (refused, lowered):
            assert str(most[key]) in words, (key, words)
            if seats != "2":
                assert seats in words, (key, words)  # it names the table it speaks of
        assert refused != lowered
    assert len(set(messages["adjusted"].values())) == len(most)
    assert messages["target"]


REFUSED_AT = [
    ({"seats": "3", "boneyard": "draw", "hand_size": "10"}, 3, 9),
    ({"seats": "3", "boneyard": "block", "hand_size": "10"}, 3, 9),
    ({"seats": "4", "boneyard": "draw", "hand_size": "7"}, 4, 6),
    ({"seats": "4", "boneyard": "block", "hand_size": "8"}, 4, 7),
    ({"preset": "pairs", "hand_size": "13"}, 4, 7),
    ({"preset": "three", "boneyard": "block", "hand_size": "13"}, 3, 9),
]


@pytest.mark.parametrize(("fields", "seats", "most"), REFUSED_AT)
@pytest.mark.parametrize("path", ["/rooms", "/computer"])
def test_without_the_script_the_server_refuses_and_says_what_fits(app, path, fields, seats, most):
    browser = Table(app)
    browser.home()
    response = browser.client.post(path, data={"csrf_token": browser.csrf, **fields})
    assert response.status_code == 400
    assert not [h for h in response.headers.getlist("Set-Cookie") if h.startswith("seat=")]
    doc = parse(response.get_data(as_text=True))
    alert = doc.one("id", "rules-error").text
    with app.test_request_context():
        name = rules_text.setting_name("hand_size")
    assert f"“{name}”" in alert and f"table of {seats}" in alert and f" {most} " in alert
    size = doc.one("data-rules-form").one("name", "hand_size")
    assert size.get("aria-invalid") == "true"


@pytest.mark.parametrize(("seats", "game"), SETUPS)
def test_the_most_that_fits_is_accepted(app, seats, game):
    most = json.loads(card(app).one("name", "hand_size").get("data-most-tiles"))
    size = most[f"{seats} {game}"]
    browser = Table(app)
    browser.create_room("/rooms", seats=str(seats), boneyard=game, hand_size=str(size))
    rules = browser.services.rooms.get(browser.room).rules
    draw = game == "draw"
    assert rules == replace(DEFAULT, seats=seats, teams=seats == 4, boneyard=draw, hand_size=size)
