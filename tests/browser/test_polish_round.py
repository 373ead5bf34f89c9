"""A whole friend round in Polish, in two real browsers."""

from __future__ import annotations

import gettext
from pathlib import Path

from playwright.sync_api import expect

from tests.browser.test_friend_round import (
    create_room,
    expect_both_connected,
    join_room,
    play_round,
)

CATALOG = Path(__file__).resolve().parents[2] / "domino" / "translations"


def polish():
    """The compiled Polish catalog, as the server uses it."""
    return gettext.translation("messages", CATALOG, languages=["pl"])


def test_a_whole_friend_round_in_polish(server, open_context):
    pl = polish()
    host_browser = open_context()
    host_browser.set_extra_http_headers({"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.4"})
    guest_browser = open_context()
    guest_browser.add_cookies([{"name": "lang", "value": "pl", "url": server.url}])

    host, invite = create_room(host_browser, server.url)
    guest = join_room(guest_browser, invite)
    expect_both_connected(host, guest)
    seats = [host, guest]
    for seat in seats:
        expect(seat.page.locator("html")).to_have_attribute("lang", "pl")
        expect(seat.page.locator("#status")).to_contain_text(pl.gettext("Your friend"))

    play_round(seats)

    for seat in seats:
        page = seat.page
        expect(page.locator("html")).to_have_attribute("lang", "pl")
        result = page.locator("[data-result]")
        points = int(result.get_attribute("data-points"))
        winner = result.get_attribute("data-winner")
        if winner == "you":
            heading = pl.ngettext("You win %(num)d point", "You win %(num)d points", points)
        elif winner == "opponent":
            heading = pl.ngettext(
                "%(name)s wins %(num)d point", "%(name)s wins %(num)d points", points
            )
        else:
            heading = pl.gettext("A draw: nobody scores")
        words = {"num": points, "name": pl.gettext("Your friend")}
        expect(result.locator("h2")).to_have_text(heading % words)
        count = int(page.locator("[data-opponent-count]").inner_text())
        expect(page.locator("#status")).to_contain_text(pl.ngettext("tile", "tiles", count))
        expect(page.locator('[data-action="new-round"]')).to_have_text(pl.gettext("New round"))
