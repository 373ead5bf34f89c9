"""A person against the computer in a real browser (a Playwright page on a live server, with
BOT_DELAY_MS 0: the computer's reply is pushed over the page's websocket right after each
move), by the page hooks only (docs/contracts.md). Every wait is on the page: an init script
counts the answers htmx has finished handling (`window.__answered`, bumped on `loadend`,
which comes after htmx's own `onload` swap), and the table's `data-seq` tells which table
is shown."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from playwright.sync_api import expect

from tests.support.browsing import TIMEOUT_MS

PLAYER = 0  # the person's seat; the computer plays seat 1
MAX_MOVES = 80  # the player makes at most 7 + 14 plays and draws, and a few passes
COUNT_ANSWERS_JS = """
window.__answered = 0;
(() => {
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    this.addEventListener('loadend', () => { window.__answered += 1; });
    return send.apply(this, args);
  };
})();
"""
VIEW_JS = """(() => {
  const one = (selector) => document.querySelector(selector);
  const tiles = (selector) =>
    [...document.querySelectorAll(selector)].map((el) => el.getAttribute('data-tile'));
  const table = one('#table');
  const result = one('[data-result]');
  const level = one('[data-level]');
  const actionable = !!document.querySelector(
    '[data-hand] [data-tile][data-playable], [data-action="draw"]:enabled, ' +
    '[data-action="pass"]:enabled');
  return {
    seq: table ? Number(table.getAttribute('data-seq')) : -1,
    chain: tiles('[data-chain] [data-tile]'),
    hand: tiles('[data-hand] [data-tile]'),
    playable: tiles('[data-hand] [data-tile][data-playable]'),
    actionable,
    turn: one('[data-turn]') ? one('[data-turn]').getAttribute('data-turn') : null,
    opponentCount: one('[data-opponent-count]')
      ? one('[data-opponent-count]').textContent.trim() : null,
    level: level ? level.value : null,
    result: result ? result.getAttribute('data-winner') : null,
    answered: window.__answered,
  };
})()"""
# The page lets the player act (its socket is open), or shows the result.
READY_JS = """(!!document.querySelector('[data-result]') || (
  !!document.querySelector('[data-turn="you"]') && !!document.querySelector(
    '[data-hand] [data-tile][data-playable], [data-action="draw"]:enabled, ' +
    '[data-action="pass"]:enabled')))"""
SEQ_JS = "Number(document.querySelector('#table').getAttribute('data-seq'))"
PLAYABLE = "[data-hand] [data-tile][data-playable]"
DRAW_OR_PASS = '[data-action="draw"]:enabled, [data-action="pass"]:enabled'
ACTIONS = re.compile(r"/r/[A-Za-z0-9_-]+/(play|draw|pass)$")


class Player:
    """The player's page, the live server behind it, and the room's websocket frames."""

    def __init__(self, server, context) -> None:
        self.server = server
        self.page = context.new_page()
        self.page.add_init_script(COUNT_ANSWERS_JS)
        self.room: str | None = None
        self.frames: list[str] = []
        self.page.on("websocket", self._opened)

    def _opened(self, ws) -> None:
        self.room = urlparse(ws.url).path.split("/")[2]  # /r/<id>/ws

        def received(payload) -> None:
            text = payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
            self.frames.append(text)

        ws.on("framereceived", received)

    @property
    def stored(self):
        return self.server.services.rooms.get(self.room)

    def view(self) -> dict:
        return self.page.evaluate(VIEW_JS)

    def start(self, fill=None) -> dict:
        """From the home page, play the computer (after `fill(page)`, e.g. filling in the rules
        card); wait until the table is live."""
        self.page.goto(self.server.url)
        if fill is not None:
            fill(self.page)
        self.page.locator('[data-action="play-computer"]').click()
        expect(self.page.locator("[data-hand] [data-tile]")).to_have_count(7)
        self.room = urlparse(self.page.url).path.rstrip("/").rsplit("/", 1)[-1]
        return self.wait_current("opening the table")

    def wait_answered(self, before: int, what: str) -> None:
        """Wait until htmx has handled the answer to the request made after `before`."""
        try:
            self.page.wait_for_function(
                "(before) => window.__answered > before", arg=before, timeout=TIMEOUT_MS
            )
        except Exception as error:
            raise AssertionError(f"no answer to {what}: {self.view()}") from error

    def wait_current(self, what: str) -> dict:
        """Wait until the computer is done and the page shows the server's newest table."""
        assert self.server.services.computer.wait_idle(TIMEOUT_MS / 1000)
        room = self.stored
        try:
            self.page.wait_for_function(
                f"(seq) => {SEQ_JS} === seq && {READY_JS}", arg=room.seq, timeout=TIMEOUT_MS
            )
        except Exception as error:
            shown = self.view()
            turn = "over" if room.round.over else ("you" if room.round.turn == 0 else "opponent")
            raise AssertionError(
                f"after {what} the page shows table {shown['seq']} (turn {shown['turn']!r}), "
                f"but the server is at {room.seq} (turn {turn!r}), or nothing can be clicked; "
                f"page: {shown}"
            ) from error
        return self.view()

    def take_turn(self, shown: dict) -> str:
        """Make the player's move by clicking, as a person would."""
        page = self.page
        if shown["playable"]:
            tile = page.locator(PLAYABLE).first
            label = tile.get_attribute("data-tile")
            before = shown["answered"]
            tile.click()
            self.wait_answered(before, f"clicking {label}")
            ends = page.locator("[data-end]")
            if ends.count():
                end = ends.first.get_attribute("data-end")
                before = self.view()["answered"]
                ends.first.click()
                what = f"playing {label} at the {end} end"
            else:
                what = f"playing {label}"
        else:
            button = page.locator(DRAW_OR_PASS).filter(visible=True)
            expect(button, "no playable tile, draw nor pass").to_have_count(1)
            what = f"clicking {button.get_attribute('data-action')}"
            before = shown["answered"]
            button.click()
        self.wait_answered(before, what)
        return what
