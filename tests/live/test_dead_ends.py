"""No dead ends (issue 14): a press that throws a round away asks first, and a late guest
gets the full-table page whole, never a page inside the invitation."""

from __future__ import annotations

import random

import pytest

from tests.support.computer_room import computer_room, newest, until
from tests.support.webkit import Table, button, friends, make_app, parse

ASK_ROUND = "Deal again? This round will be lost."
ASK_MATCH = "Start a new match? The match in progress will be lost."
ASK_ROUND_FR = "Redistribuer\u00a0? Cette manche sera perdue."


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "db.sqlite3", seed=7)


def new_round_button(html: str):
    control = button(parse(html), "new-round")
    assert control is not None, "no new-round button"
    return control


def said(node) -> str:
    return " ".join(node.text.split())


# --- "Deal again" asks first, only when a round in progress would be lost ---------------------


def test_deal_again_against_the_computer_mid_round_asks_first(app):
    player = computer_room(app)
    assert not player.state.over
    control = new_round_button(newest(player))
    assert said(control) == "Deal again"
    assert control.get("hx-confirm") == ASK_ROUND


def test_once_the_round_is_over_a_new_round_is_dealt_without_asking(app):
    player = computer_room(app)
    until(player, lambda state: state.over, random.Random(1))
    control = new_round_button(newest(player))
    assert said(control) == "New round"
    assert not control.has("hx-confirm")


def test_a_computer_match_asks_before_a_new_match_but_not_to_continue(app):
    player = computer_room(app, card={"preset": "match-100"})
    control = new_round_button(newest(player))
    assert said(control) == "New match"
    assert control.get("hx-confirm") == ASK_MATCH
    until(player, lambda state: state.over, random.Random(1))
    control = new_round_button(newest(player))
    assert said(control) == "Continue"
    assert not control.has("hx-confirm")


def test_the_question_is_asked_in_the_page_language(app):
    player = computer_room(app)
    headers = {"HX-Request": "true", "Accept-Language": "fr"}
    html = player.client.get(player.url, headers=headers).get_data(as_text=True)
    assert new_round_button(html).get("hx-confirm") == ASK_ROUND_FR


def test_a_friend_room_never_asks_first(app):
    """A preview before the guest sits loses nothing; with the guest seated a press is only
    a request, and accepting answers the friend's own question."""
    host = Table(app)
    host.create_room()
    preview = new_round_button(host.html)
    assert said(preview) == "Deal again" and not preview.has("hx-confirm")
    host, guest = friends(app)
    asking = new_round_button(host.html)
    assert said(asking) == "Ask for a new round" and not asking.has("hx-confirm")
    assert host.post("new-round").status_code == 200
    doc = guest.doc
    assert not button(doc, "accept-new-round").has("hx-confirm")
    assert said(button(doc, "decline-new-round")) == "Keep playing"


# --- a late "Take the seat" ------------------------------------------------------------------


def late_guest(app) -> Table:
    """A late guest with the invitation open (its automatic join lost) while another guest
    takes the seat."""
    host = Table(app)
    host.create_room()
    late = Table(app, host.room)
    assert late.open().status_code == 200  # the invitation, with its "Take the seat" form
    quick = Table(app, host.room)
    quick.open()
    assert quick.join().status_code == 303
    return late


def one_page(html: str) -> None:
    """`html` is one whole page: one site header, one heading."""
    doc = parse(html)
    assert len(doc.find_all("class", "site", tag="header")) == 1
    assert len(doc.find_all(tag="html")) == 1
    assert len(doc.find_all(tag="h1")) == 1


def test_a_late_take_the_seat_by_htmx_is_sent_to_the_full_table_page(app):
    late = late_guest(app)
    response = late.join(htmx=True)
    assert response.status_code == 403
    assert response.headers["HX-Redirect"] == late.url
    assert response.get_data(as_text=True) == ""  # nothing to swap into the invitation
    assert late.secret is None
    shown = late.open()  # where htmx sends the browser
    assert shown.status_code == 403
    html = shown.get_data(as_text=True)
    one_page(html)
    assert html.count("This table is full") == 2  # the title and the heading
    assert parse(html).one(tag="h1").text == "This table is full"


def test_without_htmx_a_late_take_the_seat_gets_the_full_table_page(app):
    late = late_guest(app)
    response = late.join()
    assert response.status_code == 403 and "HX-Redirect" not in response.headers
    html = response.get_data(as_text=True)
    one_page(html)
    assert parse(html).one(tag="h1").text == "This table is full"


def test_a_take_the_seat_after_the_room_is_gone_is_sent_to_the_missing_page(app):
    host = Table(app)
    host.create_room()
    late = Table(app, host.room)
    late.open()
    assert app.extensions["domino"].purge(-1) == [host.room]
    response = late.join(htmx=True)
    assert response.status_code == 404
    assert response.headers["HX-Redirect"] == late.url
    assert response.get_data(as_text=True) == ""
    shown = late.open()
    assert shown.status_code == 404
    one_page(shown.get_data(as_text=True))
