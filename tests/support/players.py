"""Players through the Flask test client: a CSRF token, taking a name, the cookies it sets."""

from __future__ import annotations

import re
import sqlite3

from domino.web.signin import PLAYER_COOKIE, SESSION_COOKIE
from tests.support.webkit import Table, parse

TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def token(client, path: str = "/") -> str:
    """A CSRF token of `client`'s session, read from a page's form."""
    found = TOKEN.search(client.get(path).get_data(as_text=True))
    assert found, f"no form with a CSRF token on {path}"
    return found.group(1)


def take_name(client, name: str, **headers):
    """POST the home page's name form as a browser would."""
    return client.post(
        "/me/name", data={"name": name, "csrf_token": token(client)}, headers=headers
    )


def cookie(client, name: str) -> str | None:
    found = client.get_cookie(name)
    return found.value if found else None


def secret(client) -> str | None:
    """The session secret `client` holds (its session cookie)."""
    return cookie(client, SESSION_COOKIE)


def signed(client) -> str | None:
    return cookie(client, PLAYER_COOKIE)


def lobby_of(app):
    """The app's lobby (its database's API)."""
    return app.extensions["lobby"]


def last_page(browser: Table):
    """The last page this browser was shown (not a table), parsed."""
    return parse(browser.seen[-1])


def lobby_rows(app, sql: str, params=()) -> list[dict]:
    """Rows of the app's lobby database, read on a connection of the test's own (the lobby's
    reads and writes are its own business)."""
    conn = sqlite3.connect(app.config["LOBBY_DB"])
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute(sql, params)]
    finally:
        conn.close()


def named_browser(app, name: str):
    """A web tests' browser (tests.support.webkit.Table) that took `name` on the home page,
    on a page again (for its CSRF token); `.name` says which."""
    browser = Table(app)
    browser.home()
    response = browser.client.post("/me/name", data={"csrf_token": browser.csrf, "name": name})
    assert response.status_code == 303, response.get_data(as_text=True)
    browser.home()
    browser.name = name
    return browser


def player_id(browser: Table) -> str:
    """The lobby's id of a named browser's player."""
    return browser.app.extensions["lobby"].player_named(browser.name).id


def open_public(app, game: str, *people: Table | None):
    """A public room of `game` with `people` by seat (None: the computer), as quick match
    opens it (`Tables.create_public`): its `Opened`, each person's grant by player id."""
    seats = [None if b is None else (player_id(b), b.name) for b in people]
    return app.extensions["domino"].create_public(game, seats)


def follow(browser: Table, path: str):
    """Open a seat grant as the browser would; on success, keep the room and open it."""
    response = browser.client.get(path)
    if response.status_code == 303:
        browser.room = path.split("/")[2]
        browser.open()
    else:
        browser._saw(response)
    return response
