"""The coins a player sees (SPEC §13, hooks §14, issue 32), through the Flask test client: the
balance beside the name in the player bar (`data-coins`), the daily top-up at the first page of
a UTC day, and the statement `/me/coins` (`data-ledger-entry`, newest first)."""

from __future__ import annotations

import pytest

from domino.players import coins
from domino.players.coins import Payout
from domino.web.routes import players as players_routes
from tests.support.players import take_name
from tests.support.results import MONDAY, result
from tests.support.split import Browser, lobby_process, shard_process
from tests.support.split import take_name as take_name_in_cluster
from tests.support.webkit import help_pages, make_app, parse

DAY = 24 * 3600
PAGES = ("/", "/help", "/p/Ana", "/league", "/me/coins", "/me/bar")


@pytest.fixture
def clock(monkeypatch):
    """The coins' clock of the web layer, set by the test (a Monday at noon, UTC, first)."""
    now = [MONDAY + 12 * 3600]
    monkeypatch.setattr(players_routes, "clock", lambda: now[0])
    return now


@pytest.fixture
def app(tmp_path, clock):
    return make_app(tmp_path / "domino.sqlite3", seed=32)


def lobby(app):
    return app.extensions["lobby"]


def signed_in(app, name="Ana"):
    client = app.test_client()
    assert take_name(client, name).status_code == 303
    return client, lobby(app).player_named(name).id


def bar(client, path="/"):
    return parse(client.get(path).get_data(as_text=True)).one("id", "player-bar")


def entries(client, path="/me/coins"):
    page = parse(client.get(path).get_data(as_text=True))
    return [
        (
            int(row.get("data-amount")),
            int(row.get("data-balance")),
            row.get("data-reason"),
            row.get("data-key"),
        )
        for row in page.find_all("data-ledger-entry")
    ]


def test_the_bar_shows_the_balance_beside_the_name_on_every_page(app):
    client, _ana = signed_in(app)
    for path in PAGES:
        shown = bar(client, path)
        assert shown.one("data-player").text == "Ana", path
        assert shown.one("data-coins").text == "1000", path
    stranger = app.test_client()
    assert parse(stranger.get("/").get_data(as_text=True)).find("data-coins") is None
    assert parse(stranger.get("/me/bar").get_data(as_text=True)).find("data-coins") is None


def test_the_bar_asks_again_once_the_table_has_changed_and_shows_a_reward(app):
    client, ana = signed_in(app)
    shown = bar(client)
    assert shown.get("hx-get") == "/me/bar"
    assert shown.get("hx-trigger") == "htmx:oobAfterSwap from:#live delay:2s"
    bob = signed_in(app, "Bob")[1]
    lobby(app).apply_result(result("r1", 1, [(ana, 1), (bob, 2)]))
    assert bar(client, "/me/bar").one("data-coins").text == "1040"
    link = bar(client).one("data-coins").parent
    assert link.get("href") == "/me/coins"


def test_the_statement_lists_every_entry_newest_first_with_its_hooks(app):
    client, ana = signed_in(app)
    bob = signed_in(app, "Bob")[1]
    lobby(app).apply_result(result("r1", 1, [(ana, 1), (bob, 2)]))
    lobby(app).apply_result(result("f1", 1, [(ana, 1), (bob, 2)], kind="friend", game=None))
    lobby(app).apply_result(result("f1", 1, [(ana, 1), (bob, 2)], kind="friend", game=None))
    assert entries(client) == [
        (20, 1060, "reward", f"reward:f1/1:{ana}"),
        (40, 1040, "reward", f"reward:r1/1:{ana}"),
        (1000, 1000, "grant", f"grant:{ana}"),
    ]
    page = parse(client.get("/me/coins").get_data(as_text=True))
    rows = page.find_all("data-ledger-entry")
    assert [row.find(tag="th").text for row in rows] == [
        "Reward for a match",
        "Reward for a match",
        "Coins for taking a name",
    ]
    assert [row.find_all(tag="td")[1].text for row in rows] == ["+20", "+40", "+1000"]
    assert rows[0].one(tag="time").get("datetime").endswith("+00:00")
    assert page.find("data-coins").text == "1060"


def test_the_statement_reads_in_the_pages_language(app):
    client, _ana = signed_in(app)
    said = {}
    for code in ("en", "nl", "pl", "fr"):
        client.get(f"/lang/{code}?next=/me/coins")
        page = parse(client.get("/me/coins").get_data(as_text=True))
        row = page.one("data-ledger-entry")
        said[code] = (page.one(tag="h1").text, row.find(tag="th").text, row.one(tag="time").text)
    assert len({words[0] for words in said.values()}) == 4  # the title, in four languages
    assert len({words[1] for words in said.values()}) == 4  # the reason, too
    assert "2026" in said["nl"][2]  # the time as the page's language writes it


def test_the_player_page_links_to_the_statement(app):
    client, _ana = signed_in(app)
    page = parse(client.get("/p/Ana").get_data(as_text=True))
    assert page.one("data-coins-statement").get("href") == "/me/coins"
    other = app.test_client()
    assert parse(other.get("/p/Ana").get_data(as_text=True)).find("data-coins-statement") is None


def test_the_statement_is_refused_to_a_browser_signed_in_as_nobody(app):
    answer = app.test_client().get("/me/coins")
    assert answer.status_code == 403
    assert parse(answer.get_data(as_text=True)).find("data-ledger-entry") is None


def test_the_daily_top_up_is_paid_once_however_many_pages_load(app, clock):
    client, ana = signed_in(app)
    client.get("/")  # where taking the name goes: the day's first page, at 1,000
    lobby(app).hold(f"stake:t1:{ana}", ana, "t1", 900)  # down to 100: a stake, then lost
    lobby(app).settle("t1", "t1/1", [Payout(None, None, 900, "forfeit")])
    for path in PAGES:  # the same day: decided already
        client.get(path)
    assert lobby(app).coins(ana) == 100
    clock[0] += DAY  # the next day, UTC
    for path in PAGES * 3:
        assert bar(client, path).one("data-coins").text == "200"
    top_ups = [entry for entry in entries(client) if entry[2] == "top-up"]
    day = "2026-01-06"
    assert top_ups == [(100, 200, "top-up", f"top-up:{ana}:{day}")]
    clock[0] += DAY  # at 200 the next day: nothing to top up
    client.get("/")
    assert [entry[2] for entry in entries(client)].count("top-up") == 1


def test_in_a_cluster_the_bar_gets_the_balance_from_the_lobby(tmp_path, clock):
    lobby_app, shard_app = lobby_process(tmp_path), shard_process(tmp_path)
    browser = Browser(lobby_app, shard_app)
    assert take_name_in_cluster(browser, "Ada").status_code == 303
    shard_bar = parse(browser.get("/").get_data(as_text=True)).one("id", "player-bar")
    assert shard_bar.one("data-player").text == "Ada"
    assert shard_bar.find("data-coins") is None  # the shard has no ledger: it asks the lobby
    assert shard_bar.get("hx-get") == "/me/bar"
    assert shard_bar.get("hx-trigger").startswith("load, ")
    from_lobby = parse(browser.get("/me/bar").get_data(as_text=True))
    assert from_lobby.one("data-coins").text == "1000"
    statement = parse(browser.get("/me/coins").get_data(as_text=True))
    assert [row.get("data-reason") for row in statement.find_all("data-ledger-entry")] == ["grant"]


@pytest.mark.parametrize("lang", ("en", "nl", "pl", "fr"))
def test_the_help_says_what_coins_are_with_the_figures_of_the_rules(tmp_path, lang):
    app = make_app(tmp_path / "help.sqlite3")
    text = help_pages(app, (lang,))[lang].one("id", "coins").text
    toc = help_pages(app, (lang,))[lang].one("class", "toc")
    assert toc.find("href", "#coins") is not None
    figures = [coins.GRANT, coins.TOP_UP, *coins.PLACES[2], *coins.PLACES[3], *coins.PAIRS]
    halves = [coins.PLACES[2][0] // 2, coins.PLACES[3][0] // 2, coins.PAIRS[0] // 2]
    for figure in figures + halves:
        assert f" {figure} " in f" {text} ".replace(",", " ").replace(";", " "), (lang, figure)
    stakes = help_pages(app, (lang,))[lang].one("id", "stakes")  # stake tables (SPEC §13)
    said = " " + stakes.parent.text.replace(",", " ") + " "
    for figure in (*coins.STAKES, 2):  # the stakes, and the two minutes to fill
        assert f" {figure} " in said, (lang, figure)
