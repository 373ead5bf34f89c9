"""A join refused by the rate limit shows why and a button that joins again, with or without JS."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.live import live_server

REFUSED = "Too many requests. Wait a moment and try again."


@pytest.fixture
def limited(tmp_path):
    """The app with its limits on and one join a minute per address."""
    with live_server(
        tmp_path / "domino.sqlite3", RATELIMIT_ENABLED=True, RATELIMIT_JOIN="1 per minute"
    ) as live:
        yield live


def new_room(context, server) -> str:
    page = context.new_page()
    page.goto(server.url + "/")
    page.click('[data-action="create-room"]')
    page.wait_for_url("**/r/*")
    return page.url


def guest_seat(server, url: str):
    return server.services.rooms.get(url.rsplit("/", 1)[-1]).seats[1]


def reset_limits(server) -> None:
    limiter = server.app.extensions["limiter"]
    limiter.storage.reset()


def spend_the_join(open_context, server) -> str:
    """Take the address's one join at one table; the invitation to a second table."""
    host = open_context()
    first, second = new_room(host, server), new_room(host, server)
    page = open_context().new_page()
    page.goto(first)
    expect(page.locator("[data-seq]")).to_have_count(1)
    return second


def test_a_refused_join_shows_the_message_and_try_again_joins(limited, open_context):
    invitation = spend_the_join(open_context, limited)
    guest = open_context().new_page()
    guest.goto(invitation)  # htmx posts the join at once: refused
    expect(guest.locator("[data-join-refused]")).to_have_text(REFUSED)
    retry = guest.locator('button[data-action="join"]')
    expect(retry).to_have_text("Try again")
    assert guest_seat(limited, invitation) is None
    reset_limits(limited)
    retry.click()
    expect(guest.locator("[data-seq]")).to_have_count(1)
    assert guest.url == invitation and guest_seat(limited, invitation) is not None


def test_without_javascript_a_refused_join_can_be_tried_again(limited, open_context, new_context):
    invitation = spend_the_join(open_context, limited)
    guest = new_context(java_script_enabled=False).new_page()
    guest.goto(invitation)
    guest.click('button[data-action="join"]')  # "Take the seat"
    expect(guest.locator("[data-join-refused]")).to_have_text(REFUSED)
    assert guest_seat(limited, invitation) is None
    reset_limits(limited)
    guest.click('button[data-action="join"]')  # "Try again"
    expect(guest.locator("[data-seq]")).to_have_count(1)
    assert guest.url == invitation and guest_seat(limited, invitation) is not None
