"""A lost connection said out loud (issue 14, SPEC §7.3 `data-connection`), in real browsers.

The server runs as in production (gunicorn with the gevent worker: bench/faults.py's Server)
on a free port with its database in tmp_path, so that killing it drops every socket at once,
as a crash or a restart does; it then starts again on the same port and database. The times
are Playwright expect timeouts counted from the kill (2 s) and from the restarted server's
first answer to /healthz (3 s).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from test_axe import SHOTS, Scanner
from test_friend_round import (
    DRAW_OR_PASS,
    PLAYABLE,
    create_room,
    expect_both_connected,
    join_room,
    take_turn,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from faults import Server, free_port

DROPPED_MS = 2000  # from the kill to "Reconnecting…" on every table
FIRST_TRY_MS = 1000  # from the kill to each page's first try to reconnect
BACK_MS = 3000  # from the restarted server's first answer to every table live again
FIRST_RETRY_MS = 500  # static/connection.js: the first retry comes within this
RETRIES = 4  # tries made before the restart: by then the delay between tries is at its cap
LIVE = '#live[data-connection="live"]'
RECONNECTING = '#live[data-connection="reconnecting"]'
# Counts the requests htmx really sends (a cancelled one never reaches htmx:beforeSend).
COUNT_SENT_JS = """() => {
  window.sent = 0;
  document.addEventListener('htmx:beforeSend', () => { window.sent += 1; });
}"""
# Clicks an action in script (no inert can stop that); how many requests went out.
CLICK_JS = """(selector) => {
  const before = window.sent;
  document.querySelector(selector).click();
  return window.sent - before;
}"""
# What the page's socket does, written on <html> for expect() to wait on (the page's CSP
# refuses the eval that wait_for_function needs): the close codes, in order, as data-closes,
# and, at its next message, its socket kept (the ws extension's handle) and data-kept set.
CLOSES_JS = """() => {
  const html = document.documentElement;
  document.addEventListener('htmx:wsClose', (e) => {
    const code = String(e.detail.event.code);
    html.dataset.closes = html.dataset.closes ? html.dataset.closes + ',' + code : code;
  });
}"""
KEEP_SOCKET_JS = """() => {
  document.addEventListener('htmx:wsAfterMessage', (e) => {
    window.socket = e.detail.socketWrapper;
    document.documentElement.dataset.kept = 'yes';
  });
}"""


@pytest.fixture
def production(tmp_path):
    """The production server on a free port; killed at the end, whatever happened."""
    server = Server(tmp_path / "domino.sqlite3", free_port())
    server.start()
    try:
        yield server
    finally:
        server.kill()


def left_ms(deadline: float) -> float:
    """Milliseconds until `deadline` (time.monotonic), at least 1."""
    return max(1.0, (deadline - time.monotonic()) * 1000)


def wait_sockets(seat, count: int, deadline: float) -> None:
    """Wait until the seat's page has opened `count` websockets (tries that failed count)."""
    while len(seat.sockets) < count:
        assert time.monotonic() < deadline, f"{seat.name}: {len(seat.sockets)} of {count} sockets"
        seat.page.wait_for_timeout(20)


def action_of(page: Page) -> str:
    """A selector for an action the page offers now: a playable tile, else draw or pass."""
    for selector in (PLAYABLE, DRAW_OR_PASS):
        if page.locator(selector).count():
            return selector
    raise AssertionError("the seat to move is offered nothing")


def expect_reconnecting(page: Page, deadline: float) -> None:
    """The page says the connection is lost, in sight, and its table takes no action."""
    expect(page.locator(RECONNECTING)).to_have_count(1, timeout=left_ms(deadline))
    note = page.locator("#connection")
    expect(note).to_have_text("Connection lost. Reconnecting…", timeout=left_ms(deadline))
    expect(note).not_to_have_class(re.compile(r"\bvisually-hidden\b"), timeout=left_ms(deadline))
    expect(note).to_have_attribute("role", "status")  # said politely to screen readers
    expect(page.locator("#live")).to_have_js_property("inert", True)


def expect_live(page: Page, deadline: float) -> None:
    expect(page.locator(LIVE)).to_have_count(1, timeout=left_ms(deadline))
    expect(page.locator("#live")).to_have_js_property("inert", False)
    expect(page.locator("#connection")).to_have_class(re.compile(r"\bvisually-hidden\b"))


def test_a_restart_is_said_and_both_tables_come_back_live_and_current(production, open_context):
    host, invite = create_room(open_context(), production.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats = [host, guest]
    for _ in range(3):  # mid-round
        take_turn(seats)
    for seat in seats:
        expect(seat.page.locator(LIVE)).to_have_count(1)
        seat.page.evaluate(COUNT_SENT_JS)
    seq = host.page.locator("#table").get_attribute("data-seq")
    expect(guest.page.locator("#table")).to_have_attribute("data-seq", seq)
    mover = next(seat for seat in seats if seat.view()["turn"] == "you")
    action = action_of(mover.page)
    control = mover.page.locator(action).first
    control.focus()  # a keyboard player's place in the table, kept across the drop
    focused = control.get_attribute("id")

    production.kill()
    killed = time.monotonic()
    for seat in seats:
        expect_reconnecting(seat.page, killed + DROPPED_MS / 1000)
    for seat in seats:
        wait_sockets(seat, 2, killed + FIRST_TRY_MS / 1000)
    # Nothing goes out meanwhile: a click lands on no control, and a scripted one is held.
    control.click(force=True)
    assert mover.page.evaluate(CLICK_JS, action) == 0, "a request left a reconnecting table"
    assert mover.page.evaluate("window.sent") == 0
    # The server stays down while the pages keep trying, until their tries come at the cap.
    for seat in seats:
        wait_sockets(seat, 1 + RETRIES, killed + 10)

    production.start()  # same port, same database
    deadline = time.monotonic() + BACK_MS / 1000
    for seat in seats:
        expect_live(seat.page, deadline)
    for seat in seats:
        expect(seat.page.locator("#table")).to_have_attribute("data-seq", seq)
    expect_both_connected(host, guest)
    # The note told screen readers it is over, out of sight; focus is back where it was.
    expect(host.page.locator("#connection")).to_have_text("Connected again.")
    expect(mover.page.locator(f"#{focused}")).to_be_focused()
    take_turn(seats)  # and play goes on from both tables


def test_a_tab_replaced_by_a_newer_one_does_not_reconnect(server, open_context):
    context = open_context()
    host, invite = create_room(context, server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    first = host.page
    first.evaluate(CLOSES_JS)

    second = context.new_page()
    second.goto(invite)
    expect(second.locator(LIVE)).to_have_count(1)
    expect(first.locator("[data-superseded]")).to_be_visible()
    expect(first.locator("html")).to_have_attribute("data-closes", "1000")  # a normal close
    # A retry would come within FIRST_RETRY_MS of the close: watch twice that long.
    first.wait_for_timeout(2 * FIRST_RETRY_MS)
    assert len(host.sockets) == 1, f"the replaced tab opened {len(host.sockets)} sockets"
    expect(first.locator(LIVE)).to_have_count(1)
    expect(first.locator("#connection")).to_have_text("")


def test_a_close_the_ws_extension_gives_up_on_is_retried_too(server, open_context):
    host, invite = create_room(open_context(), server.url)
    host.page.evaluate(CLOSES_JS)
    host.page.evaluate(KEEP_SOCKET_JS)
    guest = join_room(open_context(), invite)  # pushes the host a table: its socket is kept
    expect_both_connected(host, guest)
    expect(host.page.locator("html")).to_have_attribute("data-kept", "yes")
    host.page.evaluate("window.socket.send('x'.repeat(5000))")  # over 4 KB: the server closes
    # with 1009, on which the extension does not retry
    expect(host.page.locator("html")).to_have_attribute("data-closes", "1009")
    wait_sockets(host, 2, time.monotonic() + FIRST_TRY_MS / 1000)
    expect(host.page.locator(LIVE)).to_have_count(1)
    expect_both_connected(host, guest)


def test_the_reconnecting_table_passes_the_accessibility_scan(production, open_context):
    host, invite = create_room(open_context(), production.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    production.kill()
    expect_reconnecting(host.page, time.monotonic() + DROPPED_MS / 1000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    scan = Scanner(SHOTS)
    scan(host.page, "reconnecting")
    scan.assert_clean()
