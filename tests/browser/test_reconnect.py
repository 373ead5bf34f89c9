"""A lost connection said out loud (issue 14, docs/contracts.md, page hooks `data-connection`), in
real browsers.

The server runs as in production (gunicorn with the gevent worker: bench/faults.py's Server)
on a free port with its database in tmp_path, so that killing it drops every socket at once,
as a crash or a restart does; it then starts again on the same port and database. Each page
logs, from before its own scripts run and on its own clock (performance.now()), when it made,
opened and closed every websocket and when it said the connection was lost: the times are
checked on that log, so a slow test process or a late Playwright event does not count, and
what the test waits for it waits for with the usual generous timeout.
"""

from __future__ import annotations

import itertools
import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.support.axe import SHOTS, Scanner
from tests.support.browser_friends import (
    DRAW_OR_PASS,
    PLAYABLE,
    create_room,
    expect_both_connected,
    join_room,
    take_turn,
)
from tests.support.browsing import TIMEOUT_MS
from tests.support.faults import Server, free_port

DROPPED_MS = 2000  # from the kill to "Reconnecting…" on every table
FIRST_MS = 500  # static/connection.js: the first try comes within this of the close
CAP_MS = 2000  # and every later one within this of the failed try before it
LATE_MS = 400  # how late a page's timer may run on a loaded machine
RETRIES = 4  # tries made before the restart: by then the delay between tries is at its cap
LIVE = '#live[data-connection="live"]'
RECONNECTING = '#live[data-connection="reconnecting"]'
# Added to a context before its pages load. socketLog: every websocket the page made, in order,
# with when it was made, opened and closed (and the close code); said: every change of
# data-connection, with when. Times are the page's performance.now(), in ms.
PAGE_LOG_JS = """(() => {
  const Native = window.WebSocket;
  window.socketLog = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      const entry = {made: performance.now(), opened: null, closed: null, code: null};
      window.socketLog.push(entry);
      this.addEventListener('open', () => { entry.opened = performance.now(); });
      this.addEventListener('close', (e) => {
        entry.closed = performance.now();
        entry.code = e.code;
      });
    }
  };
  window.said = [];
  new MutationObserver((records) => {
    for (const record of records) {
      window.said.push({state: record.target.dataset.connection, at: performance.now()});
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-connection']});
})();"""
# Resolves after `ms` of the page's own time: every timer of the page due earlier has run.
PAGE_WAIT_JS = "(ms) => new Promise((done) => setTimeout(done, ms))"
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


def logged_context(open_context):
    """A player's browser whose pages keep PAGE_LOG_JS's log."""
    context = open_context()
    context.add_init_script(PAGE_LOG_JS)
    return context


def socket_log(page: Page) -> list[dict]:
    return page.evaluate("window.socketLog")


def wait_made(page: Page, count: int) -> list[dict]:
    """Wait until the page has made `count` websockets (tries that failed count); its log."""
    deadline = time.monotonic() + 2 * TIMEOUT_MS / 1000
    while len(log := socket_log(page)) < count:
        assert time.monotonic() < deadline, f"the page made {len(log)} of {count} sockets"
        page.wait_for_timeout(50)
    return log


def assert_cadence(tries: list[dict]) -> None:
    """After the drop of tries[0], each try came as static/connection.js promises, in page
    time: the first within FIRST_MS of the close, each later one within CAP_MS of the failed
    one before it, and none sooner than FIRST_MS / 2 (the upper half of the first delay)."""
    for number, (before, after) in enumerate(itertools.pairwise(tries), 1):
        assert before["closed"] is not None, f"try {number} was made before a close: {tries}"
        gap = after["made"] - before["closed"]
        most = FIRST_MS if number == 1 else CAP_MS
        assert FIRST_MS / 2 - 1 <= gap <= most + LATE_MS, (
            f"try {number} came {gap:.0f} ms after its close"
        )


def action_of(page: Page) -> str:
    """A selector for an action the page offers now: a playable tile, else draw or pass."""
    for selector in (PLAYABLE, DRAW_OR_PASS):
        if page.locator(selector).count():
            return selector
    raise AssertionError("the seat to move is offered nothing")


def expect_reconnecting(page: Page) -> None:
    """The page says the connection is lost, in sight, and its table takes no action."""
    expect(page.locator(RECONNECTING)).to_have_count(1)
    note = page.locator("#connection")
    expect(note).to_have_text("Connection lost. Reconnecting…")
    expect(note).not_to_have_class(re.compile(r"\bvisually-hidden\b"))
    expect(note).to_have_attribute("role", "status")  # said politely to screen readers
    expect(page.locator("#live")).to_have_js_property("inert", True)


def said_at(page: Page, state: str, since: float) -> float:
    """When (page time) the page first set data-connection to `state` after `since`."""
    times = [e["at"] for e in page.evaluate("window.said") if e["state"] == state]
    return next((at for at in times if at >= since), float("inf"))


def expect_live(page: Page) -> None:
    expect(page.locator(LIVE)).to_have_count(1)
    expect(page.locator("#live")).to_have_js_property("inert", False)
    expect(page.locator("#connection")).to_have_class(re.compile(r"\bvisually-hidden\b"))


def test_a_restart_is_said_and_both_tables_come_back_live_and_current(production, open_context):
    host, invite = create_room(logged_context(open_context), production.url)
    guest = join_room(logged_context(open_context), invite)
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

    # Each page's time just before the kill, and its socket then (the last it made).
    before = [seat.page.evaluate("[performance.now(), window.socketLog.length]") for seat in seats]
    production.kill()
    for seat, (killed, made) in zip(seats, before, strict=True):
        expect_reconnecting(seat.page)
        dropped = said_at(seat.page, "reconnecting", killed) - killed
        assert dropped <= DROPPED_MS, f"{seat.name} said it {dropped:.0f} ms after the kill"
        wait_made(seat.page, made + 1)  # its first try
    # Nothing goes out meanwhile: a click lands on no control, and a scripted one is held.
    control.click(force=True)
    assert mover.page.evaluate(CLICK_JS, action) == 0, "a request left a reconnecting table"
    assert mover.page.evaluate("window.sent") == 0
    # The server stays down while the pages keep trying, until their tries come at the cap.
    for seat, (_, made) in zip(seats, before, strict=True):
        wait_made(seat.page, made + RETRIES)

    production.start()  # same port, same database
    ready = [seat.page.evaluate("performance.now()") for seat in seats]  # in each page's time
    for seat in seats:
        expect_live(seat.page)
    for seat, (_, made), up in zip(seats, before, ready, strict=True):
        tries = socket_log(seat.page)[made - 1 :]  # the dropped socket, then every try
        assert_cadence(tries)
        back = tries[-1]  # the try that came live: made soon after the server was back
        assert back["opened"] is not None and back["closed"] is None, f"{seat.name}: {tries}"
        assert back["made"] - up <= CAP_MS + LATE_MS, f"{seat.name} came back late: {tries}"
    for seat in seats:
        expect(seat.page.locator("#table")).to_have_attribute("data-seq", seq)
    expect_both_connected(host, guest)
    # The note told screen readers it is over, out of sight; focus is back where it was.
    expect(host.page.locator("#connection")).to_have_text("Connected again.")
    expect(mover.page.locator(f"#{focused}")).to_be_focused()
    take_turn(seats)  # and play goes on from both tables


def test_a_tab_replaced_by_a_newer_one_does_not_reconnect(server, open_context):
    context = logged_context(open_context)
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
    # A retry would be due within FIRST_MS of the close: the page waits twice that on its own
    # clock, so its retry timer, had it one, has run by then.
    first.evaluate(PAGE_WAIT_JS, 2 * FIRST_MS)
    log = socket_log(first)
    assert [entry["code"] for entry in log] == [1000], f"the replaced tab made {log}"
    expect(first.locator(LIVE)).to_have_count(1)
    expect(first.locator("#connection")).to_have_text("")


def test_a_close_the_ws_extension_gives_up_on_is_retried_too(server, open_context):
    host, invite = create_room(logged_context(open_context), server.url)
    host.page.evaluate(CLOSES_JS)
    host.page.evaluate(KEEP_SOCKET_JS)
    guest = join_room(open_context(), invite)  # pushes the host a table: its socket is kept
    expect_both_connected(host, guest)
    expect(host.page.locator("html")).to_have_attribute("data-kept", "yes")
    made = len(socket_log(host.page))
    host.page.evaluate("window.socket.send('x'.repeat(5000))")  # over 4 KB: the server closes
    # with 1009, on which the extension does not retry
    expect(host.page.locator("html")).to_have_attribute("data-closes", "1009")
    tries = wait_made(host.page, made + 1)[made - 1 :]
    assert tries[0]["code"] == 1009, f"the kept socket is not the one closed: {tries}"
    assert_cadence(tries)
    expect(host.page.locator(LIVE)).to_have_count(1)
    expect_both_connected(host, guest)


def test_the_reconnecting_table_passes_the_accessibility_scan(production, open_context):
    host, invite = create_room(open_context(), production.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    production.kill()
    expect_reconnecting(host.page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    scan = Scanner(SHOTS)
    scan(host.page, "reconnecting")
    scan.assert_clean()
