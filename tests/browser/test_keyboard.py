"""Two friends play a whole round with the keyboard alone (docs/rules.md, at the table), and hear
each other's moves.

Only `page.keyboard` acts: Tab/Shift+Tab to reach a control, the arrows, Home and End inside the
hand, Enter or Space to press, Escape to take a selection back. After every move focus must
still be on the table on both pages (never on the body), and the other page's live region
`#announce` must say what was played, with the tile's spoken name.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.support.browser_friends import (
    DRAW_OR_PASS,
    MAX_MOVES,
    PLAYABLE,
    SIGNATURE_JS,
    Seat,
    create_room,
    expect_both_connected,
    join_room,
    over,
    room_id_of,
)
from tests.support.browsing import TIMEOUT_MS

NUMBERS = ("blank", "one", "two", "three", "four", "five", "six")
USABLE_TILE = "[data-hand] [data-tile]:enabled"
TABLE_CONTROL = f"{PLAYABLE}, #table [data-action]:enabled"

# Which way to Tab to reach the first element matching a selector (null: none on the page).
DIRECTION_JS = """(selector) => {
  const target = document.querySelector(selector);
  if (!target) return null;
  const active = document.activeElement;
  if (!active || active === document.body) return 'Tab';
  return active.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_PRECEDING
    ? 'Shift+Tab' : 'Tab';
}"""
IS_ACTIVE_JS = "(s) => !!document.activeElement && document.activeElement.matches(s)"
ACTIVE_TILE_JS = "() => document.activeElement && document.activeElement.getAttribute('data-tile')"
FOCUS_ON_TABLE_JS = """() => {
  const active = document.activeElement;
  return !!active && active !== document.body && !!active.closest('#table');
}"""


def spoken(a: int, b: int) -> str:
    """A tile's accessible name in English, halves in the order given."""
    return f"double {NUMBERS[a]}" if a == b else f"{NUMBERS[a]}–{NUMBERS[b]}"


def is_active(page: Page, selector: str) -> bool:
    return page.evaluate(IS_ACTIVE_JS, selector)


def tab_to(page: Page, selector: str, limit: int = 60) -> None:
    """Press Tab (or Shift+Tab) until the focused element matches `selector`."""
    for _ in range(limit):
        if is_active(page, selector):
            return
        key = page.evaluate(DIRECTION_JS, selector)
        assert key, f"nothing on the page matches {selector}"
        page.keyboard.press(key)
    raise AssertionError(f"Tab never reached {selector}")


def wait_focus_on_table(seat: Seat, what: str) -> None:
    try:
        seat.page.wait_for_function(FOCUS_ON_TABLE_JS, timeout=3_000)
    except Exception as error:
        active = seat.page.evaluate("document.activeElement && document.activeElement.outerHTML")
        raise AssertionError(f"{seat.name} lost focus after {what}: {active}") from error


def playable_tiles(page: Page) -> list[str]:
    return page.eval_on_selector_all(PLAYABLE, "(tiles) => tiles.map((t) => t.dataset.tile)")


def heard(server, room_id: str) -> str | None:
    """What the other seat's live region must mention after the last move, if anything."""
    state = server.services.rooms.get(room_id).round
    move = state.history[-1]
    if move.action == "play":
        if move.left is None:
            return spoken(move.tile.low, move.tile.high)
        laid = state.line[0] if move.end == "left" else state.line[-1]
        return spoken(laid.left, laid.right)
    return "drew a tile" if move.action == "draw" else "passed"


class KeyboardRound:
    """Both pages of a friend room, played with keys only."""

    def __init__(self, server, seats: list[Seat], room_id: str) -> None:
        self.server = server
        self.seats = seats
        self.room_id = room_id
        self.moves: list[str] = []
        self.escaped = False

    def signatures(self) -> dict[str, str]:
        return {seat.name: seat.signature() for seat in self.seats}

    def mover(self) -> Seat:
        movers = [s for s in self.seats if s.page.locator('[data-turn="you"]').count()]
        assert len(movers) == 1, "exactly one page should say it is its turn"
        return movers[0]

    def choose_a_tile(self, page: Page, key: str) -> str:
        """Reach the hand, walk it with the arrows and Home/End, press the first tile."""
        tiles = playable_tiles(page)
        tab_to(page, USABLE_TILE)
        page.keyboard.press("End")
        assert page.evaluate(ACTIVE_TILE_JS) == tiles[-1]
        page.keyboard.press("Home")
        assert page.evaluate(ACTIVE_TILE_JS) == tiles[0]
        if len(tiles) > 1:
            page.keyboard.press("ArrowRight")
            assert page.evaluate(ACTIVE_TILE_JS) == tiles[1]
            page.keyboard.press("ArrowLeft")
            assert page.evaluate(ACTIVE_TILE_JS) == tiles[0]
        page.keyboard.press(key)
        return tiles[0]

    def wait_for_ends_or_change(self, page: Page, before: str) -> bool:
        """True when end buttons are offered (and focused), False when the tile was laid."""
        page.wait_for_function(
            f"(before) => document.querySelector('[data-end]') || {SIGNATURE_JS} !== before",
            arg=before,
            timeout=TIMEOUT_MS,
        )
        if not page.locator("[data-end]").count():
            return False
        page.wait_for_function(f"() => ({IS_ACTIVE_JS})('[data-end]')", timeout=TIMEOUT_MS)
        first = page.locator("[data-end]").first.get_attribute("data-end")
        assert is_active(page, f'[data-end="{first}"]'), "focus is not on the first end"
        return True

    def take_turn(self) -> str:
        mover = self.mover()
        page = mover.page
        key = "Enter" if len(self.moves) % 2 == 0 else "Space"
        before = self.signatures()
        if playable_tiles(page):
            tile = self.choose_a_tile(page, key)
            what = f"{mover.name} plays {tile}"
            if self.wait_for_ends_or_change(page, before[mover.name]):
                if not self.escaped:
                    # Escape takes the choice back and focus returns to the tile.
                    self.escaped = True
                    page.keyboard.press("Escape")
                    expect(page.locator("[data-end]")).to_have_count(0)
                    page.wait_for_function(
                        f"() => ({IS_ACTIVE_JS})('[data-tile=\"{tile}\"]')", timeout=TIMEOUT_MS
                    )
                    page.keyboard.press(key)
                    assert self.wait_for_ends_or_change(page, before[mover.name])
                end = page.evaluate("document.activeElement.getAttribute('data-end')")
                what += f" at the {end} end"
                page.keyboard.press(key)
        else:
            tab_to(page, DRAW_OR_PASS)
            action = page.evaluate("document.activeElement.getAttribute('data-action')")
            what = f"{mover.name} presses {action}"
            page.keyboard.press(key)
        for seat in self.seats:
            seat.wait_changed(before[seat.name], what)
        for seat in self.seats:
            wait_focus_on_table(seat, what)
        mention = heard(self.server, self.room_id)
        other = next(seat for seat in self.seats if seat is not mover)
        expect(other.page.locator("#announce"), f"after {what}").to_contain_text(mention)
        self.moves.append(what)
        return what

    def play(self) -> list[str]:
        while not over(self.seats):
            assert len(self.moves) < MAX_MOVES, f"the round does not end: {self.moves[-10:]}"
            self.take_turn()
        return self.moves


def start(server, open_context) -> tuple[list[Seat], str]:
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats = [host, guest]
    for seat in seats:
        expect(seat.page.locator("#announce")).to_have_count(1)
        tab_to(seat.page, TABLE_CONTROL)  # each player reaches the table with Tab
    return seats, room_id_of(invite)


def test_a_whole_round_with_the_keyboard_alone(server, open_context):
    seats, room_id = start(server, open_context)
    round_ = KeyboardRound(server, seats, room_id)
    moves = round_.play()
    assert round_.escaped or all("end" not in move for move in moves)

    state = server.services.rooms.get(room_id).round
    assert state.over
    for seat in seats:
        # The round is over: focus waits on the button that deals again.
        seat.page.wait_for_function(
            f"() => ({IS_ACTIVE_JS})('[data-action=\"new-round\"]')", timeout=TIMEOUT_MS
        )
        expect(seat.page.locator("[data-result]")).to_have_count(1)


def test_the_other_page_hears_the_move(server, open_context):
    seats, room_id = start(server, open_context)
    round_ = KeyboardRound(server, seats, room_id)
    for _ in range(4):
        if over(seats):
            break
        mover = round_.mover()
        other = next(seat for seat in seats if seat is not mover)
        before = other.page.locator("#announce").inner_text()
        round_.take_turn()
        state = server.services.rooms.get(room_id).round
        move = state.history[-1]
        region = other.page.locator("#announce")
        expect(region).to_have_attribute("aria-live", "polite")
        if move.action == "play":
            laid = state.line[0] if move.end == "left" else state.line[-1]
            if move.left is None:
                laid = move.tile
                name = spoken(laid.low, laid.high)
                expect(region).to_contain_text(f"Your friend opened with {name}.")
            else:
                name = spoken(laid.left, laid.right)
                expect(region).to_contain_text(f"Your friend laid {name} on the {move.end}.")
            assert region.inner_text() != before
        if state.turn == seats.index(other) and not state.over:
            expect(region).to_contain_text("Your turn.")
