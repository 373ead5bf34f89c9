"""A player's name, sessions and account through the web (SPEC §11, hooks §14, issue 30).

Taking a name signs the browser in with two cookies (a session secret the lobby keeps only the
hash of, and a signed player cookie); every refusal says why and changes nothing; the player
page lists the sessions, ends one, signs out; deleting the account leaves its old cookies
signing nobody in; no session secret appears in a page or a log line.
"""

from __future__ import annotations

import logging

import pytest

from domino.web.signin import PLAYER_COOKIE, SESSION_COOKIE
from tests.support.players import lobby_rows, secret, signed, take_name, token
from tests.support.webkit import make_app, parse


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=30)


def lobby(app):
    return app.extensions["lobby"]


def players(app) -> int:
    return lobby_rows(app, "SELECT count(*) AS n FROM players")[0]["n"]


def sessions(app) -> int:
    return lobby_rows(app, "SELECT count(*) AS n FROM sessions")[0]["n"]


def shown_player(client, path: str = "/") -> str | None:
    """The text of the page's `data-player` element, None without one."""
    found = parse(client.get(path).get_data(as_text=True)).find("data-player")
    return None if found is None else found.text


def test_taking_a_name_signs_the_browser_in_with_two_safe_cookies(app):
    client = app.test_client()
    assert shown_player(client) is None
    home = parse(client.get("/").get_data(as_text=True))
    form = home.one("data-name-form")
    assert form.find(tag="input", attr="name", value="name") is not None
    assert form.find("data-action", "take-name") is not None

    response = take_name(client, "Ana")
    assert response.status_code == 303 and response.headers["Location"] == "/"
    set_cookies = {c.split("=", 1)[0]: c for c in response.headers.getlist("Set-Cookie")}
    for name in (SESSION_COOKIE, PLAYER_COOKIE):
        assert "HttpOnly" in set_cookies[name] and "SameSite=Lax" in set_cookies[name]
        assert "Secure" not in set_cookies[name]  # plain HTTP here
    assert "Max-Age=34560000" in set_cookies[SESSION_COOKIE]  # 400 days
    assert shown_player(client) == "Ana"
    assert parse(client.get("/").get_data(as_text=True)).find("data-name-form") is None
    # The lobby keeps the secret's hash only: the secret is nowhere in its database file.
    stored = lobby_rows(app, "SELECT hash FROM sessions")[0]["hash"]
    assert stored != secret(client) and len(stored) == 64
    data = b"".join(p.read_bytes() for p in lobby(app).path.parent.glob("lobby.sqlite3*"))
    assert secret(client).encode() not in data


def test_over_https_both_cookies_are_secure(app):
    client = app.test_client()
    client.get("/", base_url="https://localhost")
    response = client.post(
        "/me/name",
        data={"name": "Ana", "csrf_token": token(client)},
        base_url="https://localhost",
        headers={"Referer": "https://localhost/"},
    )
    assert response.status_code == 303
    for cookie in response.headers.getlist("Set-Cookie"):
        assert "; Secure" in cookie, cookie


REFUSED = [
    ("ab", "name-length", 400),
    ("a" * 21, "name-length", 400),
    ("Ana Bel", "name-characters", 400),
    ("<b>x</b>", "name-characters", 400),
    ("Ana\u202e", "name-control", 400),  # a bidi override
    ("An\u200ba", "name-control", 400),  # a zero-width space
    ("Ana\x07", "name-control", 400),
    ("Computer", "name-reserved", 400),
    ("KOMPUTER", "name-reserved", 400),
    ("admin", "name-reserved", 400),
    ("Expert_bot", "name-reserved", 400),
    ("YourPartner", "name-reserved", 400),
    ("\u0410na", "name-scripts", 400),  # a Cyrillic "А": it would pass for Ana
    ("ａｎａ", "name-taken", 409),  # fullwidth letters: Ana's name after NFKC case folding
    ("\U0001d400\U0001d427\U0001d41a", "name-taken", 409),  # mathematical bold "𝐀𝐧𝐚"
    ("ANA", "name-taken", 409),
]


@pytest.mark.parametrize(("name", "code", "status"), REFUSED)
def test_a_refused_name_says_why_and_changes_nothing(app, name, code, status):
    from domino.web.view.messages import REFUSALS

    take_name(app.test_client(), "Ana")
    before = (players(app), sessions(app))
    client = app.test_client()
    response = take_name(client, name)
    assert response.status_code == status
    page = parse(response.get_data(as_text=True))
    assert page.one("data-error").text == REFUSALS[code].replace("\n", " ")
    assert page.one("data-name-form").find(tag="input", attr="name", value="name") is not None
    assert (players(app), sessions(app)) == before
    assert secret(client) is None and signed(client) is None
    assert "<b>" not in response.get_data(as_text=True)  # what was typed comes back escaped


def test_a_refusal_reads_in_the_pages_language(app):
    client = app.test_client()
    client.set_cookie("lang", "pl")
    response = take_name(client, "Komputer", **{"HX-Request": "true"})
    fragment = parse(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "komputer" in fragment.one("data-error").text.lower()
    assert fragment.one("data-name-form") is not None  # htmx swaps the form itself
    assert fragment.find(tag="html") is None


def test_a_signed_in_browser_cannot_take_a_second_name(app):
    client = app.test_client()
    take_name(client, "Ana")
    response = take_name(client, "Bea")
    assert response.status_code == 409 and players(app) == 1
    assert lobby(app).player_named("Bea") is None


def test_the_player_page_lists_the_sessions_to_the_player_alone(app):
    ana, bea = app.test_client(), app.test_client()
    take_name(ana, "Ana")
    take_name(bea, "Bea")
    own = parse(ana.get("/p/ana").get_data(as_text=True))
    assert own.one(tag="h1").text.strip() == "Ana"
    (mine,) = own.find_all("data-session")
    assert mine.has("data-current") and mine.find("data-action", "sign-out") is not None
    seen = ana.get("/p/Bea")
    other = parse(seen.get_data(as_text=True))
    assert seen.status_code == 200 and other.find_all("data-session") == []
    assert other.find("data-action", "sign-out") is None
    assert ana.get("/p/nobody").status_code == 404


def test_ending_the_other_session_signs_that_browser_out(app):
    ana = app.test_client()
    take_name(ana, "Ana")
    who = lobby(app).player_named("Ana")
    other_secret, other = lobby(app).new_session(who.id, "Firefox · Android")
    phone = app.test_client()
    phone.set_cookie(SESSION_COOKIE, other_secret)
    assert shown_player(phone) == "Ana"

    page = parse(ana.get("/p/Ana").get_data(as_text=True))
    rows = {row.get("data-session"): row for row in page.find_all("data-session")}
    assert set(rows) == {other.id, lobby(app).sessions(who.id)[-1].id} and len(rows) == 2
    assert rows[other.id].find("data-action", "end-session") is not None
    response = ana.post(f"/me/sessions/{other.id}/end", data={"csrf_token": token(ana)})
    assert response.status_code == 303
    assert shown_player(phone) is None  # the phone's cookie signs nobody in any more
    assert shown_player(ana) == "Ana"
    assert [s.id for s in lobby(app).sessions(who.id)] != [other.id]
    bar = phone.get("/me/bar")
    assert parse(bar.get_data(as_text=True)).find("data-player") is None
    assert any(c.startswith(f"{SESSION_COOKIE}=;") for c in bar.headers.getlist("Set-Cookie"))


def test_signing_out_ends_this_session_for_good(app):
    client = app.test_client()
    take_name(client, "Ana")
    old = secret(client)
    response = client.post("/me/sign-out", data={"csrf_token": token(client)})
    assert response.status_code == 303 and secret(client) is None
    assert shown_player(client) is None and sessions(app) == 0
    replay = app.test_client()
    replay.set_cookie(SESSION_COOKIE, old)
    assert shown_player(replay) is None
    assert lobby(app).player_named("Ana") is not None  # the account stays


def test_deleting_the_account_needs_its_name_and_then_frees_it(app):
    client = app.test_client()
    take_name(client, "Ana")
    old, old_signed = secret(client), signed(client)
    refused = client.post("/me/delete", data={"confirm": "Bea", "csrf_token": token(client)})
    assert refused.status_code == 400
    assert parse(refused.get_data(as_text=True)).find("data-error") is not None
    assert players(app) == 1 and sessions(app) == 1

    done = client.post("/me/delete", data={"confirm": "ana", "csrf_token": token(client)})
    assert done.status_code == 303 and players(app) == 0 and sessions(app) == 0
    ghost = app.test_client()  # the deleted account's cookies, kept by a browser
    ghost.set_cookie(SESSION_COOKIE, old)
    ghost.set_cookie(PLAYER_COOKIE, old_signed)
    assert shown_player(ghost) is None
    assert ghost.get("/p/Ana").status_code == 404
    assert (
        ghost.post("/me/delete", data={"confirm": "Ana", "csrf_token": token(ghost)}).status_code
        == 403
    )
    assert ghost.post("/me/sessions/x/end", data={"csrf_token": token(ghost)}).status_code == 403
    assert take_name(app.test_client(), "Ana").status_code == 303  # the name is free again


@pytest.mark.parametrize(
    ("path", "form"),
    [
        ("/me/name", {"name": "Ana"}),
        ("/me/sign-out", {}),
        ("/me/sessions/SESSION/end", {}),
        ("/me/delete", {"confirm": "Cyd"}),
    ],
)
def test_every_players_form_refuses_a_post_without_its_csrf_token(app, path, form):
    client = app.test_client()
    take_name(client, "Cyd")
    who = lobby(app).player_named("Cyd")
    _secret, other = lobby(app).new_session(who.id)
    before = (players(app), sessions(app))
    response = client.post(path.replace("SESSION", other.id), data=form)
    assert response.status_code == 400
    assert (players(app), sessions(app)) == before
    assert shown_player(client) == "Cyd"


def test_no_session_secret_in_a_page_or_a_log_line(app, caplog):
    caplog.set_level(logging.DEBUG)
    client = app.test_client()
    take_name(client, "Ana")
    kept = secret(client)
    pages = [
        client.get(path).get_data(as_text=True) for path in ("/", "/p/Ana", "/me/bar", "/help")
    ]
    assert all(kept not in page for page in pages)
    assert kept not in caplog.text


def test_names_are_rate_limited_per_address(tmp_path):
    app = make_app(
        tmp_path / "domino.sqlite3", RATELIMIT_ENABLED=True, RATELIMIT_NAME="2 per minute"
    )
    for name in ("Ana", "Bea"):
        assert take_name(app.test_client(), name).status_code == 303
    client = app.test_client()
    response = take_name(client, "Cyd")
    assert response.status_code == 429 and "Retry-After" in response.headers
    assert parse(response.get_data(as_text=True)).one("data-error").text.strip()
    assert lobby(app).player_named("Cyd") is None and players(app) == 2


def test_no_session_secret_in_a_socket_frame(app):
    """Two signed-in players at a friend table: nothing their browsers are sent, the pushes
    of their socket included, holds a session secret or a signed player cookie."""
    import random

    from tests.support.webkit import Table, advance_until

    host, guest = Table(app), Table(app)
    take_name(host.client, "Ana")
    take_name(guest.client, "Bea")
    host.create_room()
    guest.room = host.room
    guest.open()
    assert guest.join().status_code == 303
    host.connect("100.a")
    guest.connect("100.b")
    host.fragment()
    guest.fragment()
    advance_until((host, guest), lambda state: len(state.line) >= 4, random.Random(30))
    assert host.ws.frames and guest.ws.frames
    kept = [secret(host.client), secret(guest.client), signed(host.client), signed(guest.client)]
    assert all(kept)
    for text in host.seen + guest.seen:
        for value in kept:
            assert value not in text
