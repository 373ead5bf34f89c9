"""The League page and the player page's ratings in Chromium (SPEC §12, §14): rows in place
order with their hooks, the viewer's own row marked, and axe over both pages with rows."""

from __future__ import annotations

import time

from playwright.sync_api import expect

from domino.players import league
from tests.support.browsing import take_name
from tests.support.results import result


def test_the_league_shows_the_standings_and_the_player_page_the_ratings(server, open_context, scan):
    base = server.url
    page = open_context().new_page()
    for name in ("Bob", "Cleo"):
        take_name(open_context().new_page(), base + "/", name)
    take_name(page, base + "/", "Ana")
    lobby = server.app.extensions["lobby"]
    ana, bob, cleo = (lobby.player_named(name).id for name in ("Ana", "Bob", "Cleo"))
    now = time.time()
    lobby.apply_result(result("a", 1, [(ana, 1), (bob, 2)], at=now))
    lobby.apply_result(result("b", 1, [(cleo, 1), (None, 2, "hard")], at=now))
    lobby.apply_result(result("c", 1, [(bob, 1), (ana, 2), (cleo, 3)], at=now, game="three"))
    week = league.week_of(now)
    lobby.apply_result(result("d", 1, [(cleo, 1), (ana, 2)], at=week - 60))

    page.goto(base + "/league")
    rows = page.locator('[data-league="this-week"] [data-league-row]')
    expect(rows).to_have_count(3)
    seen = [
        (
            row.get_attribute("data-place"),
            row.get_attribute("data-name"),
            row.get_attribute("data-points"),
            row.get_attribute("data-matches"),
        )
        for row in rows.all()
    ]
    assert seen == [
        ("1", "Ana", "5", "2"),
        ("2", "Bob", "4", "2"),
        ("3", "Cleo", "1.5", "2"),
    ], seen
    me = page.locator('[data-league="this-week"] [data-me]')
    expect(me).to_have_attribute("data-name", "Ana")
    expect(page.locator('[data-league="last-week"] [data-league-row]')).to_have_count(2)
    scan(page, "league")

    page.goto(base + "/p/Ana")
    duel = page.locator('[data-rating="duel"]')
    expect(duel).to_have_text(str(lobby.rating(ana, "duel").shown))
    expect(duel).to_have_attribute("data-provisional", "")
    expect(page.locator('[data-rating="table"]')).to_have_text(
        str(lobby.rating(ana, "table").shown)
    )
    expect(page.locator("[data-league-place]")).to_have_attribute("data-league-place", "1")
    scan(page, "player-ratings")
