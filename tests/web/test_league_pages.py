"""The League page and the player page's ratings (SPEC §12, hooks §14), computed from results
applied to the lobby (public results straight through its API: no public room exists yet)."""

from __future__ import annotations

import time

import pytest

from domino.lobby.ratings import NEW, rate
from domino.players import league
from tests.support.results import result
from tests.support.webkit import Table, make_app, parse


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=5)
    yield app
    app.extensions["domino"].close()


def signed(app, name: str) -> Table:
    browser = Table(app)
    browser.home()
    response = browser.client.post("/me/name", data={"csrf_token": browser.csrf, "name": name})
    assert response.status_code == 303, response.get_data(as_text=True)
    return browser


def ids(app, *names):
    lobby = app.extensions["lobby"]
    return [lobby.player_named(name).id for name in names]


def rows(doc, table: str):
    return [
        (r.get("data-place"), r.get("data-name"), r.get("data-points"), r.get("data-matches"))
        for r in doc.one("data-league", table).find_all("data-league-row")
    ]


def played(app, ana, bob, cleo):
    """Results of this week and last: Ana 4, Cleo 1.5, Bob 1 now; Cleo 3, Bob 0 last week."""
    lobby, now = app.extensions["lobby"], time.time()
    week = league.week_of(now)
    lobby.apply_result(result("a", 1, [(ana, 1), (bob, 2)], at=now))
    lobby.apply_result(result("a", 2, [(ana, 1), (bob, 1)], at=now))
    lobby.apply_result(result("b", 1, [(cleo, 1), (None, 2, "easy")], at=now))
    lobby.apply_result(result("c", 1, [(cleo, 1), (bob, 2)], at=week - 60))
    lobby.apply_result(result("f", 1, [(bob, 1), (ana, 2)], at=now, kind="friend"))


def test_the_league_lists_this_week_and_last_week_in_place_order(app):
    viewer = signed(app, "Bob")
    for name in ("Ana", "Cleo"):
        signed(app, name)
    ana, bob, cleo = ids(app, "Ana", "Bob", "Cleo")
    played(app, ana, bob, cleo)
    response = viewer.client.get("/league")
    assert response.status_code == 200
    doc = parse(response.get_data(as_text=True))
    assert rows(doc, "this-week") == [
        ("1", "Ana", "4", "2"),
        ("2", "Cleo", "1.5", "1"),
        ("3", "Bob", "1", "2"),  # the friend room's win never counts
    ]
    assert rows(doc, "last-week") == [("1", "Cleo", "3", "1"), ("2", "Bob", "0", "1")]
    mine = [r.get("data-name") for r in doc.find_all("data-me")]
    assert mine == ["Bob", "Bob"]


def test_the_league_before_any_match_says_so_and_anyone_may_see_it(app):
    response = app.test_client().get("/league")
    assert response.status_code == 200
    doc = parse(response.get_data(as_text=True))
    assert doc.find_all("data-league-row") == [] and len(doc.find_all("data-league-empty")) == 2
    assert doc.find_all("data-me") == []


def test_names_in_the_league_are_escaped_and_isolated(app):
    signed(app, "Ana")
    (ana,) = ids(app, "Ana")
    lobby = app.extensions["lobby"]
    lobby.apply_result(result("x", 1, [(ana, 1), (None, 2, "hard")], at=time.time()))
    html = app.test_client().get("/league").get_data(as_text=True)
    assert "<bdi>Ana</bdi>" in html


def test_the_player_page_shows_both_ratings_and_the_league_place(app):
    viewer = signed(app, "Ana")
    for name in ("Bob", "Cleo"):
        signed(app, name)
    ana, bob, cleo = ids(app, "Ana", "Bob", "Cleo")
    page = parse(viewer.client.get("/p/Ana").get_data(as_text=True))
    for kind in ("duel", "table"):
        shown = page.one("data-rating", kind)
        assert shown.text.strip() == str(NEW.shown) and shown.has("data-provisional")
    assert page.find_all("data-league-place") == []
    played(app, ana, bob, cleo)
    page = parse(viewer.client.get("/p/Ana").get_data(as_text=True))
    lobby = app.extensions["lobby"]
    duel = lobby.rating(ana, "duel")
    (won,), _ = rate([[NEW], [NEW]], [1, 2])
    assert duel.matches == 2 and duel.shown > won.shown > NEW.shown
    assert page.one("data-rating", "duel").text.strip() == str(duel.shown)
    assert page.one("data-rating", "table").text.strip() == str(NEW.shown)
    assert page.one("data-league-place").get("data-league-place") == "1"
    other = parse(app.test_client().get("/p/Cleo").get_data(as_text=True))  # anyone may see
    assert other.one("data-league-place").get("data-league-place") == "2"


def test_the_lobby_process_serves_the_league_and_a_shard_does_not(tmp_path):
    only = make_app(tmp_path / "l.sqlite3", LOBBY="only", LOBBY_DB=str(tmp_path / "lobby.db"))
    assert only.test_client().get("/league").status_code == 200
    shard = make_app(tmp_path / "s.sqlite3", LOBBY="elsewhere")
    try:
        assert shard.test_client().get("/league").status_code == 404
    finally:
        shard.extensions["domino"].close()
