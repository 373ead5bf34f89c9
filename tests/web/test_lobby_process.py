"""The lobby as a process of its own (DOMINO_LOBBY=only) beside shards without a lobby
(DOMINO_LOBBY=elsewhere), as a cluster runs them: one secret key, two apps, one browser whose
cookies go to whichever nginx would send each path to (docs/cluster.md)."""

from __future__ import annotations

import pytest

from domino.web import is_lobby_path
from tests.support.split import Browser, lobby_process, shard_process, take_name
from tests.support.webkit import parse


@pytest.fixture
def lobby_app(tmp_path):
    """The lobby's process: its database alone, the cluster's secret key."""
    return lobby_process(tmp_path)


@pytest.fixture
def shard_app(tmp_path):
    """Shard s1: its rooms, no lobby database."""
    return shard_process(tmp_path)


def test_the_lobby_process_opens_no_rooms_and_runs_no_computer(lobby_app, tmp_path):
    assert "lobby" in lobby_app.extensions and "domino" not in lobby_app.extensions
    assert not (tmp_path / "never.sqlite3").exists()
    assert (tmp_path / "lobby.sqlite3").exists()


def test_a_shard_of_a_cluster_has_no_lobby_database(shard_app, tmp_path):
    assert "lobby" not in shard_app.extensions and "domino" in shard_app.extensions
    assert not (tmp_path / "not-the-shards.sqlite3").exists()


@pytest.mark.parametrize(
    "path", ["/", "/help", "/r/s1-abc", "/r/s1-abc/record.jsonl", "/r/s1-abc/yours"]
)
def test_the_lobby_process_answers_no_shards_path(lobby_app, path):
    assert lobby_app.test_client().get(path).status_code == 404


@pytest.mark.parametrize("path", ["/rooms", "/computer", "/r/s1-abc/join"])
def test_the_lobby_process_refuses_a_shards_form_before_its_csrf_check(lobby_app, path):
    assert lobby_app.test_client().post(path).status_code == 404


@pytest.mark.parametrize("path", ["/healthz", "/static/style.css", "/lang/fr?next=/p/x"])
def test_the_lobby_process_answers_its_probe_its_files_and_the_language_switch(lobby_app, path):
    assert lobby_app.test_client().get(path).status_code in (200, 303)


def test_every_lobby_route_is_under_the_lobby_prefixes(lobby_app):
    """The app's players routes are all lobby paths (nginx routes by these prefixes)."""
    for rule in lobby_app.url_map.iter_rules():
        if rule.endpoint.startswith("players."):
            assert is_lobby_path(rule.rule, rule.endpoint), rule.rule


def test_a_name_taken_at_the_lobby_shows_on_the_shards_pages(lobby_app, shard_app):
    browser = Browser(lobby_app, shard_app)
    taken = take_name(browser, "Ada_Lobby")
    assert taken.status_code == 303, taken.get_data(as_text=True)
    assert taken.headers["Location"].endswith("/")
    home = parse(browser.get("/").get_data(as_text=True))  # the shard's page
    bar = home.one("id", "player-bar")
    assert bar.get("hx-get") == "/me/bar"  # checked at the lobby
    assert bar.one("data-player").text == "Ada_Lobby"
    assert home.find("data-name-form") is None
    checked = browser.get("/me/bar")  # the lobby: the session is there
    assert checked.status_code == 200
    assert parse(checked.get_data(as_text=True)).one("data-player").text == "Ada_Lobby"
    page = browser.get("/p/Ada_Lobby")
    assert page.status_code == 200 and "Ada_Lobby" in page.get_data(as_text=True)


def test_a_shard_answers_no_lobby_path(lobby_app, shard_app):
    browser = Browser(lobby_app, shard_app)
    assert take_name(browser, "Bo_Shard").status_code == 303
    assert browser.shard.get("/p/Bo_Shard").status_code == 404  # nginx never sends it there
    bar = browser.shard.get("/me/bar")  # nor this: the shard cannot check a session
    assert parse(bar.get_data(as_text=True)).find("data-player") is None


def test_quick_match_in_the_lobbys_process_says_it_is_not_open_and_queues_nobody(
    lobby_app, shard_app
):
    """The lobby's own process opens no rooms yet (issue 31's cluster path is to come): its
    quick match refuses clearly rather than keep a player waiting for ever."""
    browser = Browser(lobby_app, shard_app)
    assert take_name(browser, "Ana").status_code == 303
    home = parse(browser.get("/").get_data(as_text=True))
    form = home.one("data-quick-match")
    token = form.one("name", "csrf_token", tag="input").get("value")
    answer = browser.post(form.get("action"), data={"game": "classic", "csrf_token": token})
    assert answer.status_code == 503
    assert "not open" in parse(answer.get_data(as_text=True)).one("data-error").text
    assert lobby_app.extensions["lobby"].waiting() == []
