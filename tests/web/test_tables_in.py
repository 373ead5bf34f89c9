"""A shard's end of quick match's seam in a cluster, POST /internal/tables
(web/routes/tables_in.py), through the Flask test client: a table signed with the shared key
opens a public room whose grants seat their players; a bad signature is 403, a payload that is
not a table of a public game 400 with its code, and neither creates a room; the lobby's own
process never answers it. And quick match in the lobby's process: open once it knows the
shards (SHARD_URLS), closed (503) while it knows none."""

from __future__ import annotations

import sqlite3
import time

import itsdangerous.timed
import pytest
from itsdangerous import URLSafeTimedSerializer

from domino.web.live.waves import MAX_AGE, PATH, Waves, signer
from tests.support.players import named_browser
from tests.support.webkit import make_app, parse

KEY = "one-cluster"


@pytest.fixture
def app(tmp_path):
    """One process with rooms and the lobby (LOBBY "here"): its browsers can take names."""
    app = make_app(tmp_path / "domino.sqlite3", seed=3, SECRET_KEY=KEY)
    yield app
    app.extensions["domino"].close()


@pytest.fixture
def shard_app(tmp_path):
    """Shard s1 of a cluster: rooms, no lobby."""
    app = make_app(
        tmp_path / "s1.sqlite3",
        SHARD="s1",
        LOBBY="elsewhere",
        LOBBY_DB=str(tmp_path / "not-the-shards.sqlite3"),
        SECRET_KEY=KEY,
    )
    yield app
    app.extensions["domino"].close()


def lobby_app(tmp_path, **config):
    """The lobby's process of a cluster (LOBBY "only"); CSRF off, as its browser here has
    no shard to draw the pages that carry the forms' tokens."""
    return make_app(
        tmp_path / "never.sqlite3",
        LOBBY="only",
        LOBBY_DB=str(tmp_path / "lobby.sqlite3"),
        SECRET_KEY=KEY,
        WTF_CSRF_ENABLED=False,
        **config,
    )


def send(app, payload, key: str = KEY):
    return app.test_client().post(PATH, data=signer(key).dumps(payload))


def room_count(app) -> int:
    conn = sqlite3.connect(app.config["DOMINO_DB"])
    try:
        return conn.execute("SELECT count(*) FROM rooms").fetchone()[0]
    finally:
        conn.close()


def player_id(app, browser) -> str:
    return app.extensions["lobby"].player_named(browser.name).id


def test_a_signed_table_opens_a_public_room_whose_grants_seat_their_players(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    seats = [[player_id(app, ana), "Ana"], [player_id(app, bob), "Bob"]]
    answer = send(app, {"game": "classic", "seats": seats})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body = answer.get_json()
    room = app.extensions["domino"].get(body["room"])
    assert room.kind == "public" and room.full and room.names == ("Ana", "Bob")
    assert set(body["grants"]) == {seats[0][0], seats[1][0]}
    for seat, browser in enumerate((ana, bob)):
        followed = browser.client.get(body["grants"][player_id(app, browser)])
        assert followed.status_code == 303, followed.get_data(as_text=True)
        assert followed.headers["Location"].endswith(f"/r/{body['room']}")
        page = browser.client.get(f"/r/{body['room']}")
        assert parse(page.get_data(as_text=True)).one("id", "table").has("data-public")
        assert browser.client.get_cookie("seat", path=f"/r/{body['room']}") is not None, seat


def test_a_shard_opens_the_room_as_its_own_and_fills_the_computers_seats(shard_app):
    answer = send(shard_app, {"game": "pairs", "seats": [None, ["p1_x-Y", "Cy"], None, None]})
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["room"].startswith("s1-")
    assert list(body["grants"]) == ["p1_x-Y"]
    assert body["grants"]["p1_x-Y"].startswith(f"/r/{body['room']}/grant?token=")
    room = shard_app.extensions["domino"].get(body["room"])
    assert room.bots == ("hard", None, "hard", "hard") and room.names[1] == "Cy"


TABLE = {"game": "classic", "seats": [["p1", "Ana"], None]}


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(lambda: signer("another key").dumps(TABLE), id="another-key"),
        pytest.param(
            lambda: URLSafeTimedSerializer(KEY, salt="domino-results").dumps(TABLE),
            id="the-results-salt",
        ),
        pytest.param(lambda: signer(KEY).dumps(TABLE)[:-3] + "abc", id="tampered"),
        pytest.param(lambda: "", id="empty"),
        pytest.param(lambda: '{"game": "classic", "seats": [["p1", "Ana"], null]}', id="unsigned"),
    ],
)
def test_a_bad_signature_is_refused_and_creates_nothing(shard_app, body):
    answer = shard_app.test_client().post(PATH, data=body())
    assert answer.status_code == 403
    assert answer.get_json() == {"error": "bad-signature"}
    assert room_count(shard_app) == 0


def test_an_old_signature_is_refused(shard_app, monkeypatch):
    signed_at = time.time() - MAX_AGE - 5  # a table signed too long ago (a replay)
    with monkeypatch.context() as past:
        past.setattr(itsdangerous.timed.time, "time", lambda: signed_at)
        old = signer(KEY).dumps(TABLE)
    assert shard_app.test_client().post(PATH, data=old).status_code == 403
    assert room_count(shard_app) == 0
    assert send(shard_app, TABLE).status_code == 200  # the same table signed now


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"game": "no-such-game", "seats": [["p1", "Ana"], None]}, "bad-game"),
        ({"game": "default", "seats": [["p1", "Ana"], None]}, "bad-game"),  # not a public one
        ({"game": 7, "seats": [["p1", "Ana"], None]}, "bad-game"),
        ({"game": "classic", "seats": [["p1", "Ana"]]}, "bad-seats"),  # one seat short
        ({"game": "classic", "seats": [["p1", "Ana"], None, None]}, "bad-seats"),  # one over
        ({"game": "three", "seats": [["p1", "Ana"], None]}, "bad-seats"),
        ({"game": "classic", "seats": "p1,Ana"}, "bad-seats"),
        ({"game": "classic", "seats": [["p1"], None]}, "bad-seats"),
        ({"game": "classic", "seats": [["p1", "Ana", "x"], None]}, "bad-seats"),
        ({"game": "classic", "seats": [["p1", 5], None]}, "bad-seats"),
        ({"game": "classic", "seats": [["", "Ana"], None]}, "bad-seats"),
        ({"game": "classic", "seats": [["p 1", "Ana"], None]}, "bad-seats"),
        ({"game": "classic", "seats": [["p1", "  "], None]}, "bad-seats"),
        ({"game": "classic", "seats": [["p1", "A" * 21], None]}, "bad-seats"),
        ({"game": "classic", "seats": [None, None]}, "no-person"),
        ({"game": "pairs", "seats": [None, None, None, None]}, "no-person"),
        ({"game": "classic", "seats": [["p1", "Ana"], ["p1", "Ana"]]}, "same-player-twice"),
        ({"game": "classic"}, "bad-payload"),
        ({"game": "classic", "seats": [["p1", "Ana"], None], "more": 5}, "bad-payload"),
        ({"game": "classic", "seats": [["p1", "Ana"], ["p2", "Bea"]], "stake": 100}, "bad-stake"),
        ({"game": "match-100", "seats": [["p1", "Ana"], None], "stake": 100}, "bad-stake"),
        ({"game": "match-100", "seats": [["p1", "Ana"], ["p2", "Bea"]], "stake": 5}, "bad-stake"),
        (
            {
                "game": "pairs",
                "seats": [["p1", "A"], ["p2", "B"], ["p3", "C"], ["p4", "D"]],
                "stake": True,
            },
            "bad-stake",
        ),
        (["classic", [["p1", "Ana"], None]], "bad-payload"),
    ],
)
def test_what_is_not_a_table_of_a_public_game_is_refused_with_its_code(shard_app, payload, code):
    answer = send(shard_app, payload)
    assert answer.status_code == 400
    assert answer.get_json() == {"error": code}
    assert room_count(shard_app) == 0


def test_the_lobbys_own_process_never_answers_it(tmp_path):
    lobby = lobby_app(tmp_path / "lobby", SHARD_URLS=("http://127.0.0.1:9",))
    answer = send(lobby, TABLE)
    assert answer.status_code == 404
    assert "domino" not in lobby.extensions


def quick_match(lobby, name: str):
    """A browser at the lobby's process alone takes `name` and presses quick match's
    `classic`."""
    client = lobby.test_client()
    taken = client.post("/me/name", data={"name": name})
    assert taken.status_code == 303, taken.get_data(as_text=True)
    return client.post("/play/", data={"game": "classic"})


def test_quick_match_in_the_lobbys_process_queues_once_it_knows_the_shards(tmp_path):
    lobby = lobby_app(tmp_path, SHARD_URLS=("http://127.0.0.1:9", "http://127.0.0.1:10"))
    assert isinstance(lobby.extensions["waves"], Waves)
    answer = quick_match(lobby, "Ana")
    assert answer.status_code == 303, answer.get_data(as_text=True)
    assert [entry.game for entry in lobby.extensions["lobby"].waiting()] == ["classic"]


def test_quick_match_in_the_lobbys_process_is_closed_while_it_knows_no_shard(tmp_path):
    lobby = lobby_app(tmp_path)
    assert "waves" not in lobby.extensions
    answer = quick_match(lobby, "Ana")
    assert answer.status_code == 503
    assert "not open" in parse(answer.get_data(as_text=True)).one("data-error").text
    assert lobby.extensions["lobby"].waiting() == []


def test_the_shards_urls_are_read_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_SHARD_URLS", " http://10.0.0.1:8001, ,http://10.0.0.2:8002/ ")
    lobby = lobby_app(tmp_path)
    assert lobby.config["SHARD_URLS"] == ("http://10.0.0.1:8001", "http://10.0.0.2:8002/")
    assert "waves" in lobby.extensions
