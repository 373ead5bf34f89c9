"""Two friends' browsers at one table (Playwright pages on a live server), driven through the
page hooks only (docs/contracts.md): a seat's page and what it shows, a room created and
joined, a turn taken by clicking, a whole round played. Every wait is on the DOM (or on a
websocket frame)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from urllib.parse import urlparse

from playwright.sync_api import Page, expect

from tests.support.browsing import TIMEOUT_MS

HOST, GUEST = 0, 1  # the seats of the room's creator and of the friend who joins
MAX_MOVES = 120  # a round has at most 14 draws, 28 plays and a few passes
# One JSON snapshot of what a page shows through the page hooks (docs/contracts.md).
VIEW_JS = """(() => {
  const one = (selector) => document.querySelector(selector);
  const tiles = (selector) =>
    [...document.querySelectorAll(selector)].map((el) => el.getAttribute('data-tile'));
  const text = (selector) => (one(selector) ? one(selector).textContent.trim() : null);
  const attr = (selector, name) => (one(selector) ? one(selector).getAttribute(name) : null);
  const result = one('[data-result]');
  return {
    chain: tiles('[data-chain] [data-tile]'),
    hand: tiles('[data-hand] [data-tile]'),
    playable: tiles('[data-hand] [data-tile][data-playable]'),
    opponentCount: text('[data-opponent-count]'),
    boneyardCount: text('[data-boneyard-count]'),
    turn: attr('[data-turn]', 'data-turn'),
    connected: attr('[data-opponent-connected]', 'data-opponent-connected'),
    result: result
      ? {winner: result.getAttribute('data-winner'), points: result.getAttribute('data-points')}
      : null,
    opponentHand: tiles('[data-opponent-hand] [data-tile]'),
  };
})()"""
# The part of a view that every move changes on both pages.
SIGNATURE_JS = f"""(() => {{
  const view = {VIEW_JS};
  return JSON.stringify([view.chain, view.hand, view.opponentCount, view.boneyardCount,
                         view.turn, view.result]);
}})()"""
PLAYABLE = "[data-hand] [data-tile][data-playable]"
DRAW_OR_PASS = '[data-action="draw"]:enabled, [data-action="pass"]:enabled'


@dataclass
class Seat:
    """A player's page, with every websocket frame it received (handler set before loading)."""

    name: str
    page: Page
    sockets: list[list[str]] = field(default_factory=list)
    on_frame: object = None

    def __post_init__(self) -> None:
        self.page.on("websocket", self._opened)

    def _opened(self, ws) -> None:
        frames: list[str] = []
        self.sockets.append(frames)

        def received(payload) -> None:
            text = payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
            frames.append(text)
            if self.on_frame is not None:
                self.on_frame(text)

        ws.on("framereceived", received)

    def view(self) -> dict:
        """What the page shows now, through the page hooks (docs/contracts.md)."""
        return self.page.evaluate(VIEW_JS)

    def signature(self) -> str:
        return self.page.evaluate(SIGNATURE_JS)

    def live_sockets(self) -> int:
        """How many of the page's sockets have received the server's first table."""
        return sum(1 for frames in self.sockets if frames)

    def wait_live(self, more_than: int = 0) -> None:
        """Wait until a socket beyond the first `more_than` has received its first frame.

        The server sends a seat its table only once the seat's socket is attached, so this
        is the moment the seat may act. Polls via Playwright, which delivers the events.
        """
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while self.live_sockets() <= more_than:
            assert time.monotonic() < deadline, f"{self.name}: no websocket frame arrived"
            self.page.wait_for_timeout(25)

    def wait_changed(self, before: str, what: str) -> None:
        """Wait until the page shows something other than the signature `before`."""
        try:
            self.page.wait_for_function(
                f"(before) => {SIGNATURE_JS} !== before", arg=before, timeout=TIMEOUT_MS
            )
        except Exception as error:
            raise AssertionError(
                f"{self.name}'s page did not change after {what}; it shows {self.view()}"
            ) from error


def open_seat(name: str, context, url: str | None = None, **kwargs) -> Seat:
    seat = Seat(name, context.new_page(), **kwargs)
    if url is not None:
        seat.page.goto(url)
    return seat


def create_room(context, base_url: str, fill=None) -> tuple[Seat, str]:
    """The creator's seat and the invitation URL (after `fill(page)` on the home page, e.g.
    filling in the rules card)."""
    host = open_seat("A", context, base_url)
    if fill is not None:
        fill(host.page)
    host.page.locator('[data-action="create-room"]').first.click()
    invite = host.page.locator("[data-invite]")
    expect(invite).to_be_visible()
    url = invite.input_value() or invite.get_attribute("href")
    assert url and url.startswith("http://127.0.0.1:"), f"invitation link is {url!r}"
    expect(host.page.locator('[data-action="copy-invite"]')).to_have_count(1)
    host.wait_live()
    return host, url


def join_room(context, invite: str, **kwargs) -> Seat:
    """The guest's seat: opening the invitation takes the seat and shows the table."""
    guest = open_seat("B", context, invite, **kwargs)
    expect(guest.page.locator("[data-hand] [data-tile]")).to_have_count(7)
    guest.wait_live()
    return guest


def room_id_of(invite: str) -> str:
    return urlparse(invite).path.rstrip("/").rsplit("/", 1)[-1]


def expect_both_connected(*seats: Seat) -> None:
    for seat in seats:
        expect(seat.page.locator('[data-opponent-connected="true"]')).to_have_count(1)


def over(seats) -> bool:
    return all(seat.view()["result"] is not None for seat in seats)


def take_turn(seats: list[Seat], rng: random.Random | None = None) -> str:
    """Make the one move due, by clicking, and wait until both pages show it.

    The first playable tile and end are clicked, or with `rng` one of them at random.
    """
    pick = rng.randrange if rng is not None else (lambda _count: 0)
    views = {seat.name: seat.view() for seat in seats}
    movers = [seat for seat in seats if views[seat.name]["turn"] == "you"]
    assert len(movers) == 1, f"exactly one page should say it is its turn: {views}"
    mover = movers[0]
    page = mover.page
    before = {seat.name: seat.signature() for seat in seats}
    if views[mover.name]["playable"]:
        tile = page.locator(PLAYABLE).nth(pick(len(views[mover.name]["playable"])))
        label = tile.get_attribute("data-tile")
        tile.click()
        # Either the tile is laid at once, or the fitting ends are offered.
        page.wait_for_function(
            f"(before) => document.querySelector('[data-end]') || {SIGNATURE_JS} !== before",
            arg=before[mover.name],
            timeout=TIMEOUT_MS,
        )
        ends = page.locator("[data-end]")
        if ends.count():
            chosen = ends.nth(pick(ends.count()))
            end = chosen.get_attribute("data-end")
            chosen.click()
            what = f"{mover.name} plays {label} at the {end} end"
        else:
            what = f"{mover.name} plays {label}"
    else:
        button = page.locator(DRAW_OR_PASS).filter(visible=True)
        expect(button, f"{mover.name} has no playable tile, draw nor pass").to_have_count(1)
        what = f"{mover.name} clicks {button.get_attribute('data-action')}"
        button.click()
    for seat in seats:
        seat.wait_changed(before[seat.name], what)
    return what


def play_round(seats: list[Seat], after_move=None, rng: random.Random | None = None) -> list[str]:
    """Click through the round until both pages show the result (random choices with `rng`)."""
    moves = []
    while not over(seats):
        assert len(moves) < MAX_MOVES, f"the round does not end: {moves[-10:]}"
        moves.append(take_turn(seats, rng))
        if after_move is not None:
            after_move(len(moves))
    return moves


def laid(line) -> list[str]:
    return [str(tile) for tile in line]
