"""Rate limits per client address: creating rooms and acting are refused beyond them (429)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from webkit import Table, friends, make_app, notice, parse

from domino.web.messages import error_message


def page(response):
    return parse(response.get_data(as_text=True))


@pytest.fixture
def app(tmp_path):
    """Limits on, and small: 3 rooms, 4 actions a minute."""
    return make_app(
        tmp_path / "domino.sqlite3",
        seed=7,
        RATELIMIT_ENABLED=True,
        RATELIMIT_CREATE="3 per minute",
        RATELIMIT_ACT="4 per minute",
    )


def rooms_stored(app) -> int:
    return app.extensions["domino"].rooms.store.db["rooms"].count


def test_limits_are_off_in_testing_mode_unless_asked_for(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3")
    browser = Table(app)
    browser.home()
    for _ in range(30):
        response = browser.client.post("/rooms", data={"csrf_token": browser.csrf})
        assert response.status_code == 303


def test_creating_rooms_beyond_the_limit_is_refused_and_creates_nothing(app):
    browser = Table(app)
    browser.home()
    form = {"csrf_token": browser.csrf}
    made = [browser.client.post("/rooms", data=form).status_code for _ in range(2)]
    made.append(browser.client.post("/computer", data={**form, "level": "easy"}).status_code)
    assert made == [303, 303, 303]
    before = rooms_stored(app)
    for path in ("/rooms", "/computer"):
        response = browser.client.post(path, data=form)
        assert response.status_code == 429
        assert "Set-Cookie" not in response.headers
        assert int(response.headers["Retry-After"]) >= 1
        with app.test_request_context():
            assert error_message(429) in response.get_data(as_text=True)
    assert rooms_stored(app) == before


def test_the_refusal_is_translated(app):
    browser = Table(app)
    browser.home()
    headers = {"Accept-Language": "fr"}
    for _ in range(3):
        browser.client.post("/rooms", data={"csrf_token": browser.csrf}, headers=headers)
    response = browser.client.post("/rooms", data={"csrf_token": browser.csrf}, headers=headers)
    assert response.status_code == 429
    assert "Trop de demandes" in response.get_data(as_text=True)


def test_other_addresses_keep_their_own_allowance(app):
    browser = Table(app)
    browser.home()
    form = {"csrf_token": browser.csrf}
    for _ in range(3):
        assert browser.client.post("/rooms", data=form).status_code == 303
    assert browser.client.post("/rooms", data=form).status_code == 429
    other = {"REMOTE_ADDR": "192.0.2.9"}
    assert browser.client.post("/rooms", data=form, environ_base=other).status_code == 303


def test_actions_beyond_the_limit_are_refused_and_change_nothing(app):
    a, b = friends(app)  # b's join was one action of 127.0.0.1
    mover = (a, b)[a.state.turn]
    other = (a, b)[1 - a.state.turn]
    assert mover.post("new-round").status_code in (200, 409)  # 2
    assert other.post("decline-new-round").status_code in (200, 409)  # 3
    assert mover.post("pass").status_code == 409  # 4: refused by the rules, still counted
    before = mover.log
    state = mover.state
    response = mover.post("play", tile=str(state.opening), end="left")
    assert response.status_code == 429
    assert mover.log == before
    # an htmx request gets the #notice fragment, like the other refusals
    response = mover.client.post(
        f"{mover.url}/play",
        data={"tile": str(state.opening), "end": "left", "seq": str(mover.seq)},
        headers={"X-CSRFToken": mover.csrf, "X-Tab": mover.tab, "HX-Request": "true"},
    )
    assert response.status_code == 429
    doc = page(response)
    assert doc.one("id", "notice").get("hx-swap-oob") == "true"
    with app.test_request_context():
        assert notice(doc) == error_message(429)
    # joining and the computer's level share the allowance
    assert other.join().status_code == 429
    assert mover.post("level", level="hard").status_code == 429
    assert mover.log == before
