"""Public tables in browsers (SPEC §12, hooks §14), through the page hooks alone: a live server
with quick match's waves running, a browser that took a name, pressing "Play" for a game,
waiting, and landing seated at a public table."""

from __future__ import annotations

import re
from contextlib import contextmanager

from playwright.sync_api import expect

from tests.support.browsing import SEED, take_name
from tests.support.live import live_server

SEATED_MS = 60_000  # a wave every half second, on a slow shared machine: generous
ROOM = re.compile(r".*/r/[A-Za-z0-9_-]+$")


@contextmanager
def quick_server(tmp_path, fill: float, **config):
    """The app on a live server with its quick match waves running (every 0.5 s); `config`
    may set the clock (MOVE_SECONDS, BANK_SECONDS, ABANDON_SECONDS)."""
    settings = {"FILL_SECONDS": fill, "WAVE_SECONDS": 0.5, **config}
    with live_server(tmp_path / "domino.sqlite3", seed=SEED, **settings) as live:
        waves = live.app.extensions["waves"]
        waves.start()
        try:
            yield live
        finally:
            waves.stop()


def named(open_context, base_url: str, name: str):
    """A new browser's home page, signed in as `name`."""
    page = open_context().new_page()
    take_name(page, base_url, name)
    return page


def quick_match(page, game: str) -> None:
    """Press "Play" for `game`, and see the waiting page."""
    form = page.locator("form[data-quick-match]")
    form.locator('select[name="game"]').select_option(game)
    form.locator('[data-action="quick-match"]').click()


def waiting(page, game: str) -> None:
    queue = page.locator(f'[data-queue][data-game="{game}"]')
    expect(queue).to_have_count(1)
    expect(page.locator('[data-action="leave-queue"]')).to_be_visible()


def seated(page) -> str:
    """Wait until the page is a public table's, seated; its room's address."""
    expect(page).to_have_url(ROOM, timeout=SEATED_MS)
    expect(page.locator("#table[data-public]")).to_have_count(1, timeout=SEATED_MS)
    expect(page.locator("[data-hand]")).to_be_visible()
    return page.url


def seat_of(page) -> str:
    return page.locator("#table").get_attribute("data-fair-seat")
