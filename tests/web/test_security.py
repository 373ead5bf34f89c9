"""Malformed requests get a clear 400, every answer carries protective headers, files are private.

Through Flask's test client: a line break in the language switch's `next`, a Host header no
URL can be built for, a websocket handshake without key or version; the Content-Security-
Policy and the other headers; the session cookie's flags; the modes of the instance folder
and the database files; the language switch under a script root.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask_babel import force_locale
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import escape
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.wrappers import Response

from app import create_app
from domino.web.guard import security
from domino.web.view.messages import error_message
from tests.support.webkit import WEBSOCKET_HEADERS, Table, make_app

BAD_HOSTS = [
    "a..b",
    ".example",
    "example..com:8000",
    "a" * 64 + ".example",
    ("x" * 62 + ".") * 3 + "x" * 57 + ".example",  # 254 characters, every label fits
    # characters no host name has: Werkzeug reads these as no host at all
    "ex ample",
    "[::1",
    "under_score.example",
    "\u00e9..t".encode().decode("latin-1"),
    "",
]
GOOD_HOSTS = [
    ("x" * 62 + ".") * 3 + "x" * 56 + ".example",  # 253 characters
    "localhost",
    "example.com",
    "example.com.",
    "127.0.0.1:8000",
    "[::1]:8000",
    "a" * 63 + ".example",
]


@pytest.fixture
def app(tmp_path):
    """The app with CSRF protection on, as in production."""
    return make_app(tmp_path / "domino.sqlite3")


@pytest.fixture
def seated(app):
    """A browser holding seat 1 of a fresh friend room."""
    table = Table(app)
    table.create_room()
    return table


def in_french(app, status: int) -> str:
    """The error page's message for `status`, in French, as the page writes it."""
    with app.test_request_context(), force_locale("fr"):
        return str(escape(error_message(status)))


# --- clear errors, never a 500 ------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        {"next": "/\r\nSet-Cookie: lang=nl"},  # encoded as %0D%0A
        {"next": "/help\n"},
        {"next": "\r/"},
        {"next": "/a\x00b"},
        {"next": "/a\tb"},
        {"next": "/a\x7fb"},
        {"next": "/a\x85b"},  # a C1 control (NEL)
        "next=/help\r\nSet-Cookie:%20lang=nl",  # raw, as a client may send it
        "next=/a\rb",
    ],
)
def test_a_control_character_in_next_is_a_clear_400(app, query):
    client = app.test_client()
    response = client.get("/lang/nl", query_string=query, headers={"Accept-Language": "fr"})
    assert response.status_code == 400
    assert "Location" not in response.headers
    assert not response.headers.getlist("Set-Cookie"), "a refused switch changes nothing"
    html = response.get_data(as_text=True)
    assert in_french(app, 400) in html and '<html lang="fr">' in html
    assert "Traceback" not in html


@pytest.mark.parametrize(
    "target", ["/\\evil.example", "/\\/evil.example", "\\\\evil.example", "//evil.example/x"]
)
def test_the_switch_never_leaves_the_site_even_by_a_backslash(app, target):
    response = app.test_client().get("/lang/fr", query_string={"next": target})
    assert response.status_code == 303
    assert response.headers["Location"] == "/"


@pytest.mark.parametrize("host", BAD_HOSTS)
@pytest.mark.parametrize(("method", "path"), [("GET", "/"), ("GET", "/nope"), ("POST", "/rooms")])
def test_a_host_no_url_can_be_built_for_is_a_clear_400(app, host, method, path):
    headers = {"Host": host, "Accept-Language": "fr"}
    response = app.test_client().open(path, method=method, headers=headers)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert in_french(app, 400) in html
    assert 'href="/static/style.css"' in html and 'class="brand" href="/"' in html  # usual page
    assert not host or host not in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize("host", GOOD_HOSTS)
def test_sound_hosts_are_served(app, host):
    assert app.test_client().get("/", headers={"Host": host}).status_code == 200


def test_the_error_page_never_raises(app, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("no template today")

    monkeypatch.setattr(security, "render_template", broken)
    response = app.test_client().get("/nope", headers={"Accept-Language": "fr"})
    assert response.status_code == 404
    assert in_french(app, 404) in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "missing",
    [
        {"Sec-WebSocket-Key": None},
        {"Sec-WebSocket-Version": None},
        {"Sec-WebSocket-Key": None, "Sec-WebSocket-Version": None},
        {"Sec-WebSocket-Version": "8"},
        {"Sec-WebSocket-Key": "not base64!"},
        {"Sec-WebSocket-Key": "c2hvcnQ="},  # valid base64 of 5 bytes, not 16
    ],
)
def test_a_handshake_without_a_valid_key_or_version_is_a_400(seated, missing):
    headers = {**WEBSOCKET_HEADERS, "Origin": "http://localhost", **missing}
    headers = {name: value for name, value in headers.items() if value is not None}
    response = seated.client.get(f"{seated.url}/ws?tab=1.a", headers=headers)
    assert response.status_code == 400
    assert "Traceback" not in response.get_data(as_text=True)


def test_the_handshake_checks_leave_other_refusals_alone(seated):
    stranger = Table(seated.app, seated.room)
    headers = {**WEBSOCKET_HEADERS, "Origin": "http://localhost"}
    assert stranger.client.get(f"{seated.url}/ws", headers=headers).status_code == 403


HOST_TEXT = st.text(alphabet=st.sampled_from("ab0.-:[]_ \t\x00é" + "a" * 5), max_size=300)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(host=st.one_of(HOST_TEXT, st.text(max_size=80).filter(lambda t: t.isprintable())))
def test_no_host_header_makes_a_server_error(app, host):
    try:
        host.encode("latin-1")
    except UnicodeEncodeError:
        host = host.encode("utf-8").decode("latin-1")  # what a WSGI server would pass on
    client = app.test_client()
    for path in ("/", "/nope", "/lang/fr?next=/help"):
        assert client.get(path, headers={"Host": host}).status_code < 500


ANY_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
PATH_TEXT = st.text(st.sampled_from("/\\\r\n\t\x00\x7f\x85 .:?#%@aé"), max_size=12)
NEXT = st.one_of(ANY_TEXT, (PATH_TEXT | ANY_TEXT).map(lambda text: "/" + text))


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=NEXT)
def test_next_never_makes_a_server_error_nor_leaves_the_site(app, target):
    response = app.test_client().get("/lang/fr", query_string={"next": target})
    assert response.status_code in (303, 400)
    if response.status_code == 303:
        location = response.headers["Location"]
        assert location.startswith("/") and not location.startswith("//")
        assert "\\" not in location and not urlsplit(location).netloc


# --- headers --------------------------------------------------------------------------------


def policy(response) -> dict[str, list[str]]:
    """The Content-Security-Policy's directives, by name."""
    header = response.headers["Content-Security-Policy"]
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {words[0]: words[1:] for words in directives}


def test_the_policy_allows_this_site_its_socket_and_nothing_inline(seated):
    response = seated.open(headers={"Host": "play.example:8443"})
    csp = policy(response)
    assert csp["script-src"] == ["'self'"]
    assert csp["style-src"] == ["'self'"]
    assert csp["default-src"] == ["'self'"]
    assert csp["connect-src"] == ["'self'", "ws://play.example:8443", "wss://play.example:8443"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["form-action"] == ["'self'"]
    assert "unsafe" not in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/", "/help", "/nope", "/static/style.css", "/lang/fr?next=/"])
def test_every_answer_carries_the_protective_headers(app, path):
    response = app.test_client().get(path)
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert policy(response)["frame-ancestors"] == ["'none'"]


def test_nothing_under_a_room_is_stored_by_a_cache(seated):
    url, stranger = seated.url, Table(seated.app, seated.room)
    answers = {
        "page": seated.open(),
        "fragment": seated.fragment(),
        "refused action": seated.post("draw"),  # no live socket: refused with the table
        "unknown action": seated.client.post(f"{url}/fly", headers={"X-CSRFToken": seated.csrf}),
        "record": seated.client.get(f"{url}/record.jsonl"),
        "join page": stranger.open(),
        "socket refusal": stranger.client.get(f"{url}/ws", headers=WEBSOCKET_HEADERS),
        "missing room": seated.client.get("/r/" + "x" * 22),
    }
    for what, response in answers.items():
        assert response.headers.get("Cache-Control") == "no-store", what
    static = seated.client.get("/static/style.css")  # the same for everybody: cacheable
    assert "no-store" not in static.headers.get("Cache-Control", "")


def test_the_room_url_says_it_varies_with_htmx(seated):
    for response in (seated.open(), seated.fragment()):
        assert "HX-Request" in response.vary


def session_cookie(response) -> str:
    (header,) = [h for h in response.headers.getlist("Set-Cookie") if h.startswith("session=")]
    return header


def test_the_session_cookie_is_lax_and_http_only(app):
    cookie = session_cookie(app.test_client().get("/"))  # the page holds a CSRF token
    assert "SameSite=Lax" in cookie and "HttpOnly" in cookie
    assert "Secure" not in cookie


def test_without_proxies_a_forwarded_https_does_not_make_it_secure(app):
    response = app.test_client().get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in session_cookie(response)


def test_behind_a_trusted_proxy_over_https_the_session_cookie_is_secure(tmp_path):
    app = make_app(tmp_path / "p.sqlite3", PROXIES=1)
    client = app.test_client()
    cookie = session_cookie(client.get("/", headers={"X-Forwarded-Proto": "https"}))
    assert "Secure" in cookie and "SameSite=Lax" in cookie and "HttpOnly" in cookie
    assert "Secure" not in session_cookie(app.test_client().get("/"))


def test_over_https_a_post_needs_the_same_origin_referer_that_the_policy_sends(tmp_path):
    """Why the policy is `same-origin`, not `no-referrer`: Flask-WTF wants a Referer."""
    app = make_app(tmp_path / "p.sqlite3", PROXIES=1)
    client = app.test_client()
    https = {"X-Forwarded-Proto": "https"}
    page = client.get("/", headers=https)
    assert page.headers["Referrer-Policy"] == "same-origin"
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True))[1]
    without = client.post("/rooms", data={"csrf_token": token}, headers=https)
    assert without.status_code == 400
    referred = {**https, "Referer": "https://localhost/"}
    assert client.post("/rooms", data={"csrf_token": token}, headers=referred).status_code == 303


# --- private files --------------------------------------------------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    """A umask that hides nothing, so only the code decides the modes."""
    before = os.umask(0)
    yield
    os.umask(before)


@pytest.fixture
def instance(tmp_path, monkeypatch):
    """Flask's instance folder moved into tmp_path, and the database kept in it."""
    folder = tmp_path / "instance"
    monkeypatch.setattr(Flask, "auto_find_instance_path", lambda self: str(folder))
    monkeypatch.delenv("DOMINO_DB", raising=False)
    return folder


def written(app) -> None:
    """Make the app write to its database: create a room."""
    Table(app).create_room()


def assert_private(folder: Path) -> None:
    db = folder / "domino.sqlite3"
    files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    assert mode(folder) == 0o700
    assert all(file.exists() for file in files)
    assert {file.name: mode(file) for file in files} == {file.name: 0o600 for file in files}


def test_a_new_instance_folder_and_database_are_private(instance, open_umask):
    app = create_app({"TESTING": True, "SECRET_KEY": "x"})
    written(app)
    assert_private(instance)
    app.extensions["domino"].close()
    app.extensions["domino"].rooms.store.close()


def test_an_existing_open_folder_and_database_are_made_private(instance, open_umask):
    instance.mkdir(mode=0o777)
    db = instance / "domino.sqlite3"
    other = sqlite3.connect(db)  # kept open: its -wal and -shm files stay
    other.execute("PRAGMA journal_mode=WAL")
    other.execute("CREATE TABLE t (x)")
    other.execute("INSERT INTO t VALUES (1)")
    other.commit()
    for path in (instance, db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        path.chmod(0o777 if path.is_dir() else 0o666)
    app = create_app({"TESTING": True, "SECRET_KEY": "x"})
    written(app)
    assert_private(instance)
    other.close()
    app.extensions["domino"].close()
    app.extensions["domino"].rooms.store.close()


# --- under a script root --------------------------------------------------------------------


def mount(app):
    """A client for the app mounted at /games, as a proxy or a WSGI dispatcher would."""
    app.wsgi_app = DispatcherMiddleware(Response("not here", 404), {"/games": app.wsgi_app})
    return app.test_client()


@pytest.fixture
def mounted(app):
    return mount(app)


def language_links(html: str) -> list[str]:
    return [link.replace("&amp;", "&") for link in re.findall(r'href="([^"]*/lang/[^"]*)"', html)]


def test_under_a_script_root_the_switch_comes_back_to_the_same_page(mounted):
    links = language_links(mounted.get("/games/help?x=1").get_data(as_text=True))
    assert len(links) == 3
    assert all(link.startswith("/games/lang/") for link in links)
    french = next(link for link in links if "/lang/fr" in link)
    response = mounted.get(french)
    assert response.status_code == 303
    assert response.headers["Location"] == "/games/help?x=1"
    assert '<html lang="fr">' in mounted.get(response.headers["Location"]).get_data(as_text=True)


@pytest.mark.parametrize("target", [None, "https://evil.example/", "//evil.example", "/\\evil"])
def test_under_a_script_root_a_foreign_next_goes_to_the_root_home(mounted, target):
    query = {} if target is None else {"next": target}
    response = mounted.get("/games/lang/fr", query_string=query)
    assert response.headers["Location"] == "/games/"


def test_a_page_answering_a_form_switches_back_home(tmp_path):
    mounted = mount(make_app(tmp_path / "f.sqlite3", WTF_CSRF_ENABLED=False))
    page = mounted.post("/games/r/" + "x" * 22 + "/join")
    assert page.status_code == 404  # the full "no such room" page, at the form's address
    links = language_links(page.get_data(as_text=True))
    assert links and all(link.endswith("?next=/") for link in links)
