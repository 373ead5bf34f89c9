"""No hand picked by retrying (issue 27): fresh hands a player could look at and throw away,
to fish for a good one, share a tight budget per client address (RATELIMIT_DEAL): rooms
created against the computer, the last free seat given to the computer, a new round dealt at
once mid-round. Past it, 429 with a message that says why, and nothing changes. A new round
after a round is over, and a request that only asks the others, are not counted."""

from __future__ import annotations

import random

import pytest

from domino.web.view.messages import refusal
from tests.support.drive import move_params
from tests.support.webkit import Table, friends, make_app, notice, parse

DEALS = 3  # fresh deals an address may have in a minute (the default)


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=9, RATELIMIT_ENABLED=True)


def settled(app, player: Table) -> None:
    """The computer has moved, and the player's page shows the table as it stands."""
    assert app.extensions["domino"].computer.wait_idle(10), "the computer is still thinking"
    player.fragment()


def computer_room(app, **environ) -> Table:
    """A table against the computer (one fresh deal), connected, its round in play."""
    player = Table(app)
    player.home()
    form = {"csrf_token": player.csrf, "level": "easy"}
    response = player.client.post("/computer", data=form, environ_base=environ)
    assert response.status_code == 303, response.status_code
    player.room = response.headers["Location"].rsplit("/", 1)[-1]
    player.open()
    player.connect()
    settled(app, player)
    assert not player.state.over
    return player


def deal_again(app, player: Table, **headers):
    """Press "Deal again" in the middle of the round."""
    settled(app, player)
    assert not player.state.over
    return player.client.post(
        f"{player.url}/new-round",
        data={"seq": str(player.seq)},
        headers={"X-CSRFToken": player.csrf, "X-Tab": player.tab, **headers},
    )


def refused(app, response) -> None:
    """A 429 that says the deals came too fast."""
    assert response.status_code == 429, response.get_data(as_text=True)
    assert int(response.headers["Retry-After"]) >= 1
    with app.test_request_context():
        assert refusal("too-many-deals") in response.get_data(as_text=True)


def test_dealing_again_and_again_against_the_computer_is_refused_and_changes_nothing(app):
    player = computer_room(app)  # one fresh deal
    for _ in range(DEALS - 1):
        dealt = player.state
        assert deal_again(app, player).status_code == 200
        assert player.state is not dealt
    settled(app, player)
    before, round_ = player.log, player.state
    response = deal_again(app, player, **{"HX-Request": "true"})
    refused(app, response)
    doc = parse(response.get_data(as_text=True))
    with app.test_request_context():
        assert notice(doc) == refusal("too-many-deals")
    assert player.log == before and player.state is round_


def test_the_refusal_is_translated(app):
    player = computer_room(app)
    for _ in range(DEALS - 1):
        assert deal_again(app, player).status_code == 200
    response = deal_again(app, player, **{"Accept-Language": "pl"})
    assert response.status_code == 429
    assert "To sporo nowych rozdań" in response.get_data(as_text=True)


def test_new_computer_rooms_count_as_fresh_deals(app):
    for _ in range(DEALS):
        computer_room(app)
    rooms = app.extensions["domino"].rooms.store.db["rooms"]
    before = rooms.count
    browser = Table(app)
    browser.home()
    response = browser.client.post("/computer", data={"csrf_token": browser.csrf})
    refused(app, response)
    assert "Set-Cookie" not in response.headers and rooms.count == before
    # a table with a friend deals only a preview: not counted
    assert browser.client.post("/rooms", data={"csrf_token": browser.csrf}).status_code == 303
    # another address has its own budget
    assert computer_room(app, REMOTE_ADDR="198.51.100.7")


def test_giving_the_last_free_seat_to_the_computer_counts(app):
    for _ in range(DEALS - 1):
        computer_room(app)
    host = Table(app)
    host.create_room(preset="three")
    host.connect()
    host.fragment()
    assert host.post("computer", seat=1, level="easy", seq=None).status_code == 200  # not full
    assert host.post("computer", seat=2, level="easy", seq=None).status_code == 200  # deals
    again = Table(app)
    again.create_room(preset="three")
    again.connect()
    again.fragment()
    assert again.post("computer", seat=1, level="easy", seq=None).status_code == 200
    before = again.log
    refused(app, again.post("computer", seat=2, level="easy", seq=None))
    assert again.log == before
    assert app.extensions["domino"].rooms.get(again.room).free == (2,)


def test_a_new_round_after_the_round_is_over_is_never_held_back(app):
    player = computer_room(app)
    for _ in range(DEALS - 1):
        assert deal_again(app, player).status_code == 200
    refused(app, deal_again(app, player))  # the budget is spent
    rng = random.Random(5)
    for _ in range(200):  # play the round out
        settled(app, player)
        room = app.extensions["domino"].rooms.get(player.room)
        if room.round.over:
            break
        if room.round.turn == 0:
            name, params = move_params(room, 0, rng)
            assert player.post(name, **params).status_code == 200
    assert player.state.over
    finished = player.state
    response = player.post("new-round")
    assert response.status_code == 200, response.get_data(as_text=True)
    assert player.state is not finished


def test_asking_a_friend_is_not_a_fresh_deal(app):
    a, b = friends(app)
    for _ in range(DEALS + 2):  # asked and declined, again and again: nothing dealt
        assert a.post("new-round").status_code == 200
        assert b.post("decline-new-round").status_code == 200
    assert a.post("new-round").status_code == 200
    dealt = a.state
    assert b.post("accept-new-round").status_code == 200  # every word given: a fresh deal
    assert a.state is not dealt
