"""Rate limits: actions and downloads per seat, creating rooms and joining per address (429)."""

from __future__ import annotations

import hashlib

import pytest

from domino.web.guard import limits
from domino.web.guard.limits import client_address
from domino.web.view.messages import error_message
from tests.support.webkit import Table, friends, make_app, notice, parse

ACT = 4  # actions a seat may take in a minute here


def page(response):
    return parse(response.get_data(as_text=True))


def make(tmp_path, **config):
    """Limits on, and small: 3 rooms, 2 joins, 4 actions and 2 downloads a minute."""
    settings = {
        "RATELIMIT_ENABLED": True,
        "RATELIMIT_CREATE": "3 per minute",
        "RATELIMIT_JOIN": "2 per minute",
        "RATELIMIT_ACT": f"{ACT} per minute",
        "RATELIMIT_RECORD": "2 per minute",
    }
    settings.update(config)
    return make_app(tmp_path / "domino.sqlite3", seed=7, **settings)


@pytest.fixture
def app(tmp_path):
    return make(tmp_path)


def rooms_stored(app) -> int:
    return app.extensions["domino"].rooms.store.db["rooms"].count


def storage(app):
    """The limiter's counters."""
    limiter = app.extensions["limiter"]
    return limiter.storage


def create(browser: Table, **environ):
    return browser.client.post("/rooms", data={"csrf_token": browser.csrf}, environ_base=environ)


def spend(table: Table, times: int, **environ) -> list[int]:
    """`times` actions the rules refuse (a pass while a tile must be laid), counted all the same."""
    statuses = []
    for _ in range(times):
        response = table.client.post(
            f"{table.url}/pass",
            data={"seq": str(table.seq)},
            headers={"X-CSRFToken": table.csrf, "X-Tab": table.tab},
            environ_base=environ,
        )
        statuses.append(response.status_code)
    return statuses


# --- creating rooms: per address, IPv6 by /64 -------------------------------------------------


def test_limits_are_off_in_testing_mode_unless_asked_for(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3")
    browser = Table(app)
    browser.home()
    for _ in range(30):
        assert create(browser).status_code == 303


def test_creating_rooms_beyond_the_limit_is_refused_and_creates_nothing(app):
    browser = Table(app)
    browser.home()
    form = {"csrf_token": browser.csrf}
    made = [create(browser).status_code for _ in range(2)]
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


def test_the_refusal_is_translated_and_other_addresses_keep_their_own_budget(app):
    browser = Table(app)
    browser.home()
    headers = {"Accept-Language": "fr"}
    form = {"csrf_token": browser.csrf}
    made = [browser.client.post("/rooms", data=form, headers=headers) for _ in range(4)]
    assert [response.status_code for response in made] == [303, 303, 303, 429]
    assert "Trop de demandes" in made[-1].get_data(as_text=True)
    assert create(browser, REMOTE_ADDR="192.0.2.9").status_code == 303


@pytest.mark.parametrize(
    "address, key",
    [
        ("192.0.2.9", "192.0.2.9"),
        ("2001:db8:a:b:1:2:3:4", "2001:db8:a:b::/64"),
        ("2001:db8:a:b::ffff", "2001:db8:a:b::/64"),
        ("2001:db8:a:c::1", "2001:db8:a:c::/64"),
        ("::ffff:192.0.2.9", "192.0.2.9"),  # an IPv4 client of a dual-stack socket
        ("fe80::1%eth0", "fe80::/64"),
        ("not-an-address", "not-an-address"),
    ],
)
def test_an_address_counts_as_itself_and_ipv6_by_its_64(app, address, key):
    with app.test_request_context(environ_base={"REMOTE_ADDR": address}):
        assert client_address() == key


def test_ipv6_addresses_in_one_64_share_a_creation_budget_and_another_64_does_not(app):
    browser = Table(app)
    browser.home()
    first, second = "2001:db8:a:b::1", "2001:db8:a:b:ffff:ffff:ffff:fffe"
    made = [create(browser, REMOTE_ADDR=first).status_code for _ in range(2)]
    made += [create(browser, REMOTE_ADDR=second).status_code for _ in range(2)]
    assert made == [303, 303, 303, 429]
    assert create(browser, REMOTE_ADDR="2001:db8:a:c::1").status_code == 303


def test_behind_a_proxy_the_forwarded_address_counts_by_its_64(tmp_path):
    app = make(tmp_path, PROXIES=1)
    browser = Table(app)
    browser.home()

    def create_from(address):
        headers = {"X-Forwarded-For": address}
        return browser.client.post("/rooms", data={"csrf_token": browser.csrf}, headers=headers)

    made = [create_from(f"2001:db8::{n}").status_code for n in range(1, 5)]
    assert made == [303, 303, 303, 429]
    assert create_from("2001:db8:0:1::1").status_code == 303
    assert create_from("198.51.100.1").status_code == 303


# --- actions: per seat ----------------------------------------------------------------------


def test_actions_beyond_the_limit_are_refused_and_change_nothing(app):
    a, b = friends(app)
    mover = (a, b)[a.state.turn]
    assert spend(mover, ACT - 1) == [409] * (ACT - 1)  # refused by the rules, still counted
    # a level switch counts too (a friend's table has no level: refused)
    assert mover.post("level", level="hard").status_code in (400, 409)
    before = mover.log
    state = mover.state
    response = mover.post("play", tile=str(state.opening), end="left")
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
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
    assert mover.post("level", level="hard").status_code == 429
    assert mover.log == before


def test_two_seats_behind_one_address_each_keep_a_full_budget(app):
    seats = [*friends(app), *friends(app)]  # two tables, every seat from 127.0.0.1
    for seat in seats:
        assert spend(seat, ACT + 1) == [409] * ACT + [429]


def test_a_seat_keeps_its_budget_when_its_address_changes(app):
    a, b = friends(app)
    assert spend(a, ACT) == [409] * ACT
    assert spend(a, 1, REMOTE_ADDR="198.51.100.7") == [429]
    assert spend(a, 1, REMOTE_ADDR="2001:db8::7") == [429]
    assert spend(b, 1, REMOTE_ADDR="198.51.100.7") == [409]


def test_a_seat_is_counted_by_its_room_and_seat_never_its_secret(app):
    a, _b = friends(app)
    spend(a, 1)
    keys = list(storage(app).counters)
    assert any(f"seat:{a.room}:{a.seat}" in key for key in keys), keys
    digest = hashlib.sha256(a.secret.encode()).hexdigest()
    assert not any(a.secret in key or digest[:16] in key for key in keys)


def test_a_made_up_seat_cookie_is_counted_by_its_address(app):
    a, _b = friends(app)
    stranger = Table(app, a.room)
    stranger.open()  # the table is full: a page with a form, so a CSRF token
    headers = {"X-CSRFToken": stranger.csrf, "X-Tab": "x"}
    statuses = []
    for n in range(ACT + 1):
        stranger.client.set_cookie("seat", f"made-up-{n}", path=a.url)
        response = stranger.client.post(f"{a.url}/pass", data={"seq": "0"}, headers=headers)
        statuses.append(response.status_code)
    assert statuses[-1] == 429 and 429 not in statuses[:-1]
    assert spend(a, 1) == [409]  # the seat itself is not held back by the stranger


# --- joining: per address, with a way to try again ---------------------------------------------


def invitation(app) -> Table:
    """A fresh room's creator (from another address) and a guest at its invitation page."""
    host = Table(app)
    host.home()
    response = create(host, REMOTE_ADDR="203.0.113.1")
    guest = Table(app, response.headers["Location"].rsplit("/", 1)[-1])
    guest.open()
    return guest


def test_joins_have_a_budget_per_address_of_their_own(app):
    first, second, third = (invitation(app) for _ in range(3))
    assert first.join().status_code == 303
    assert second.join().status_code == 303
    assert third.join().status_code == 429
    assert third.seat is None
    # joining took nothing from the seats' action budgets
    first.connect()
    first.fragment()
    assert spend(first, ACT) == [409] * ACT
    # another address may join
    response = third.client.post(
        f"{third.url}/join",
        headers={"X-CSRFToken": third.csrf},
        environ_base={"REMOTE_ADDR": "198.51.100.7"},
    )
    assert response.status_code == 303 and third.seat == 1


def refused_join(app, htmx: bool) -> Table:
    for guest in (invitation(app) for _ in range(2)):
        assert guest.join().status_code == 303
    guest = invitation(app)
    response = guest.join(htmx=htmx)
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
    assert guest.seat is None
    guest.refused = response
    return guest


def test_a_refused_join_shows_the_message_and_a_button_that_joins_again(app):
    guest = refused_join(app, htmx=False)
    doc = page(guest.refused)
    join = f"{guest.url}/join"
    form = doc.one("action", join, tag="form")
    assert form.get("method") == "post" and form.get("hx-post") == join
    assert form.get("hx-trigger") == "submit"  # not posted again by itself on load
    with app.test_request_context():
        assert form.one("data-join-refused").text == error_message(429)
    button = form.one("data-action", "join")
    assert button.tag == "button" and button.get("type") == "submit"
    token = form.one("name", "csrf_token").get("value")
    # the button posts the form again; once the window has passed, the seat is taken
    storage(app).reset()  # as if the window had passed
    response = guest.client.post(join, data={"csrf_token": token})
    assert response.status_code == 303 and guest.seat == 1


def test_a_refused_join_through_htmx_gets_the_message_and_the_button_in_its_form(app):
    guest = refused_join(app, htmx=True)
    doc = page(guest.refused)
    assert doc.find("hx-swap-oob") is None  # the join page has no #notice to swap into
    assert doc.find(tag="form") is None  # swapped into the join form, as its content
    with app.test_request_context():
        assert doc.one("data-join-refused").text == error_message(429)
    button = doc.one("data-action", "join")
    assert button.get("type") == "submit" and button.get("formaction") == f"{guest.url}/join"
    token = doc.one("name", "csrf_token").get("value")
    storage(app).reset()  # as if the window had passed
    response = guest.client.post(
        button.get("formaction"), data={"csrf_token": token}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200 and response.headers["HX-Redirect"] == guest.url
    assert guest.seat == 1


def test_a_refused_join_is_translated(app):
    guest = refused_join(app, htmx=False)
    headers = {"Accept-Language": "pl", "X-CSRFToken": guest.csrf}
    response = guest.client.post(f"{guest.url}/join", headers=headers)
    text = response.get_data(as_text=True)
    assert response.status_code == 429
    assert "Za dużo żądań" in text and "Spróbuj ponownie" in text


# --- round records: per seat ------------------------------------------------------------------


def test_record_downloads_have_a_budget_per_seat(app):
    a, b = friends(app)
    record = f"{a.url}/record.jsonl"
    statuses = [a.client.get(record).status_code for _ in range(3)]
    assert statuses == [404, 404, 429]  # no finished round yet: counted all the same
    assert b.client.get(record).status_code == 404  # the other seat has its own
    assert spend(a, 1) == [409]  # and downloads do not spend actions


# --- the limiter itself: every limit of a string, set from the environment, checked once -------


def test_every_limit_of_a_string_counts_the_shortest_window_first(tmp_path):
    app = make(tmp_path, RATELIMIT_CREATE="3 per day; 2 per minute")
    limiter = app.extensions["limiter"]
    minute, day = limiter.scopes["pages.create_room"].items
    assert (minute.amount, day.amount) == (2, 3)
    browser = Table(app)
    browser.home()
    made = [create(browser) for _ in range(3)]
    assert [response.status_code for response in made] == [303, 303, 429]
    assert 1 <= int(made[-1].headers["Retry-After"]) <= 61
    # refused by the minute, the request took nothing from the day
    assert limiter.limiter.get_window_stats(day, "127.0.0.1", "create").remaining == 1
    storage(app).clear(minute.key_for("127.0.0.1", "create"))  # as if the minute had passed
    assert create(browser).status_code == 303
    refused = create(browser)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 3600  # the day's window, not the minute's


def test_a_limit_not_in_the_config_is_read_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_RATELIMIT_ACT", "2 per minute")
    app = make_app(tmp_path / "domino.sqlite3", RATELIMIT_ENABLED=True)
    assert app.config["RATELIMIT_ACT"] == "2 per minute"
    assert app.config["RATELIMIT_JOIN"] == "60 per minute"
    a, _b = friends(app)
    assert spend(a, 3) == [409, 409, 429]
    (tmp_path / "explicit").mkdir()
    explicit = make(tmp_path / "explicit")  # the config's own setting wins
    assert explicit.config["RATELIMIT_ACT"] == f"{ACT} per minute"
    a, _b = friends(explicit)
    assert spend(a, ACT + 1) == [409] * ACT + [429]


def test_a_limited_request_works_out_its_seat_once_and_others_not_at_all(app, monkeypatch):
    a, _b = friends(app)
    asked, loaded = [], []  # the seat lookups the limits make; the rooms loaded for them

    def seat_asked(room_id):  # the lookup the limits use (web/seats.py)
        asked.append(room_id)
        return seated(room_id)

    def room_loaded(room_id):
        loaded.append(room_id)
        return get(room_id)

    seated, get = limits.seated, a.services.get
    monkeypatch.setattr(limits, "seated", seat_asked)
    monkeypatch.setattr(a.services, "get", room_loaded)
    assert spend(a, 1) == [409]
    assert set(asked) == {a.room}  # the key, and whether it deals afresh
    assert loaded == [a.room]  # worked out once, for the limits and the view alike
    limited = len(asked)
    a.fragment()  # not limited
    assert len(asked) == limited
    assert loaded == [a.room, a.room]  # the view's own look, none for the limits


def test_the_headers_show_the_budget_when_asked_for(tmp_path):
    app = make(tmp_path, RATELIMIT_HEADERS_ENABLED=True)
    a, _b = friends(app)
    answers = [a.post("pass") for _ in range(ACT + 1)]
    assert [int(r.headers["X-RateLimit-Remaining"]) for r in answers] == [3, 2, 1, 0, 0]
    assert {r.headers["X-RateLimit-Limit"] for r in answers} == {str(ACT)}
    assert answers[-1].status_code == 429
    assert int(answers[-1].headers["Retry-After"]) >= 1
    (tmp_path / "plain").mkdir()
    plain, _b = friends(make(tmp_path / "plain"))
    assert "X-RateLimit-Limit" not in plain.post("pass").headers
