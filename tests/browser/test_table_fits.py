"""A table that fits (issue 29), in Chromium at 390×844 and at 1280×900.

For two seats (a computer table), three seats (against the computer) and a pairs table with
two computers and two people, in a round's first state, mid-round on a person's turn and
after the round: the line's first tile, the hand's first tile, the turn indicator and the
enabled action (a playable tile, Draw or Pass; after the round the next-round control) all
lie inside the first viewport, the page (and a long hand) scrolled to its start. After the
round the next-round control stands above the result; at 1280×900 every action of the
table (the `data-action` buttons in #table but those of the round's details, checking the
deal and the review, which come after the result) and the table settings are above the
fold. A screenshot of the first screen of each state, at both sizes, goes to
test-artifacts/screenshots/fits-*.png.

A hand of 13 tiles on a phone shows that it scrolls (a fade and an arrow at the side with
more tiles), and scrolls by the mouse wheel and the keyboard (touch: it is a native scroller).
A player away shows, in the seat strip, the countdown to the hand-over. A friend's request
stands at the top of the table and is said; the name box closes once its name is saved; a
won match shows the score sheet of its rounds.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.browser_friends import (
    create_room,
    expect_both_connected,
    join_room,
    room_id_of,
)
from tests.support.browser_matches import CARD, fill_card
from tests.support.browser_tables import (
    DRAW_OR_PASS,
    MAX_MOVES,
    PLAYABLE,
    click_a_move,
    open_table,
    play_out_on_server,
    settled,
    sit,
)
from tests.support.live import live_server

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
COMPUTER_MS = 30_000
AWAY_SECONDS = 8.0  # the hand-over waits this long here (two minutes in production)
TWO_FRAMES_JS = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => done())))"""
FIRST_SCREEN_JS = """() => {
  window.scrollTo(0, 0);
  const hand = document.querySelector('[data-hand]');
  if (hand) hand.scrollLeft = 0;
}"""
# Where the parts a player needs lie on the first screen (page scrolled to its top).
BOXES_JS = """() => {
  const box = (el) => {
    if (!el || !el.checkVisibility()) return null;
    const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};
  };
  const one = (selector) => document.querySelector(selector);
  const usable = (el) => el.checkVisibility() && !el.disabled;
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  };
  // the first usable one on the screen (a long hand's tiles beyond its edge are not), else
  // the first usable one
  const first = (selector) => {
    const found = [...document.querySelectorAll(selector)].filter(usable);
    return found.find(shown) || found[0] || null;
  };
  const outsideMoves = (el) => !el.closest('[data-move-list]');
  // The table's own controls; the round's details (check the deal, the review) come after,
  // and the page's own switches (the desktop notification) stay out of the table's way.
  const actions = [...document.querySelectorAll('#table button[data-action]')]
    .filter((el) => usable(el) && outsideMoves(el) && !el.closest('.round-details'))
    .map((el) => ({name: el.getAttribute('data-action') || 'level', box: box(el)}));
  return {
    view: {width: window.innerWidth, height: window.innerHeight},
    line: box(one('[data-chain] [data-tile]') || one('[data-chain]')),
    hand: box(one('[data-hand] [data-tile]') || one('[data-hand]')),
    turn: box(one('[data-turn]')),
    move: box(first('[data-hand] [data-tile][data-playable]') ||
              first('button[data-action="draw"], button[data-action="pass"]')),
    next: box(first('[data-next] button')),
    result: box(one('[data-result]')),
    settings: box(one('#settings-summary') || one('select[data-level]')),
    actions: actions,
  };
}"""


@pytest.fixture(scope="module")
def shots():
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


def inside(box: dict | None, view: dict) -> bool:
    return (
        box is not None
        and box["top"] >= -0.5
        and box["left"] >= -0.5
        and box["bottom"] <= view["height"] + 0.5
        and box["right"] <= view["width"] + 0.5
    )


def check_fits(page: Page, table: str, state: str, shots: Path) -> None:
    """At both sizes, the first screen holds what the state needs (see the module's doc)."""
    problems = []
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        page.evaluate(FIRST_SCREEN_JS)  # the page, and a long hand, at their start
        page.evaluate(TWO_FRAMES_JS)  # static/line.js lays the line out again
        where = f"{table}, {state}, {size['width']}x{size['height']}"
        page.screenshot(path=shots / f"fits-{table}-{state}-{size['width']}x{size['height']}.png")
        boxes = page.evaluate(BOXES_JS)
        view = boxes["view"]
        over = state.startswith("after")
        wanted = ["line", "hand"] + (["next"] if over else ["turn", "move"])
        for part in wanted:
            if not inside(boxes[part], view):
                problems.append(f"{where}: the {part} is not on the first screen: {boxes[part]}")
        if over:
            if boxes["next"] is None or boxes["result"] is None:
                problems.append(f"{where}: no next-round control or result: {boxes}")
            elif boxes["next"]["bottom"] > boxes["result"]["top"] + 0.5:
                problems.append(f"{where}: the next-round control is not above the result")
        if size is DESKTOP:
            for action in boxes["actions"]:
                if not inside(action["box"], view):
                    problems.append(f"{where}: {action['name']} is below the fold: {action}")
            if boxes["settings"] is not None and not inside(boxes["settings"], view):
                problems.append(f"{where}: the table settings are below the fold")
    page.set_viewport_size(PHONE)
    assert not problems, "\n".join(problems)


class Table:
    """A table's pages (the first is the creator's), played by clicking on the page on turn."""

    def __init__(self, pages: list[Page], seats: int) -> None:
        self.pages, self.seats, self.rng = pages, seats, random.Random(29)

    def views(self) -> list[dict]:
        return settled(self.pages, 0)

    def on_turn(self) -> Page | None:
        """The page whose turn it is, once every page shows the same table."""
        views = self.views()
        movers = [p for p, v in zip(self.pages, views, strict=True) if v["turn"] == "you"]
        return movers[0] if movers else None

    def over(self) -> bool:
        return self.views()[0]["winner"] is not None

    def move(self) -> None:
        """One move by the page on turn (a computer seat moves by itself), then settle."""
        seq = self.views()[0]["seq"]
        mover = self.on_turn()
        if mover is not None:
            click_a_move(mover, self.rng)
        else:  # the computer's turn: on a busy machine its first decision may take a while
            self.pages[0].wait_for_function(
                "(seq) => Number(document.querySelector('[data-seq]')?.getAttribute('data-seq'))"
                " > seq",
                arg=seq,
                timeout=COMPUTER_MS,
            )
        settled(self.pages, seq + 1)

    def until_turn(self, laid: int) -> Page:
        """Play on until a person is on turn with at least `laid` tiles in the line."""
        for _ in range(MAX_MOVES):
            assert not self.over(), "the round ended before the state was reached"
            mover = self.on_turn()
            if mover is not None and mover.locator("[data-chain] [data-tile]").count() >= laid:
                return mover
            self.move()
        raise AssertionError("no person's turn came")

    def play_out(self) -> None:
        for _ in range(MAX_MOVES):
            if self.over():
                for page in self.pages:
                    expect(page.locator("[data-result]")).to_have_count(1)
                return
            self.move()
        raise AssertionError("the round did not end")


def computer_table(open_context, url: str, preset: str) -> Table:
    page = open_context().new_page()
    page.set_viewport_size(PHONE)
    page.goto(f"{url}/?preset={preset}")
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator("[data-hand] [data-tile]").first).to_be_visible()
    expect(page.locator('[data-turn="you"]')).to_have_count(1)  # the computer opened, if it did
    # The table acts once it came over the page's own socket: until then no tile is playable
    # and no Draw or Pass is enabled (the name form's data-live says so only at three seats).
    page.wait_for_selector(f"{PLAYABLE}, {DRAW_OR_PASS}", timeout=COMPUTER_MS)
    return Table([page], 3 if preset == "three" else 2)


def pairs_with_two_computers(open_context, url: str) -> Table:
    host, invite = open_table(open_context, url, "pairs")
    host.set_viewport_size(PHONE)
    for seat in (1, 3):  # the other pair is the computer's
        host.locator(f'[data-give="{seat}"] button').click()
        expect(host.locator(f'[data-seat="{seat}"][data-computer]')).to_have_count(1)
    guest = sit(open_context, invite)
    guest.set_viewport_size(PHONE)
    for page in (host, guest):
        expect(page.locator("[data-seat][data-count]")).to_have_count(3)
    return Table([host, guest], 4)


TABLES = {
    "two": lambda open_context, url: computer_table(open_context, url, "classic"),
    "three": lambda open_context, url: computer_table(open_context, url, "three"),
    "pairs": pairs_with_two_computers,
}


@pytest.mark.parametrize("kind", list(TABLES))
def test_the_line_the_hand_the_turn_and_the_action_are_on_the_first_screen(
    server, open_context, shots, kind
):
    table = TABLES[kind](open_context, server.url)
    first = table.until_turn(0)  # the round's first state, on a person's turn
    check_fits(first, kind, "first", shots)

    middle = table.until_turn(4)  # mid-round, on a person's turn
    check_fits(middle, kind, "middle", shots)

    table.play_out()  # after the round: the next step first, above the result
    page = table.pages[0]
    expect(page.locator("[data-turn]")).to_have_count(0)
    check_fits(page, kind, "after", shots)


def test_the_table_settings_fold_the_level_and_open_with_the_keyboard(server, open_context):
    """The computer's level waits in the folded settings, which the keyboard opens, and which
    stay open across the tables the moves bring."""
    table = computer_table(open_context, server.url, "three")
    page = table.pages[0]
    expect(page.locator("[data-level]")).to_have_count(2)
    expect(page.locator("[data-level]").first).to_be_hidden()
    expect(page.locator("[data-name-form]")).to_have_count(1)
    page.locator("#settings-summary").focus()
    page.keyboard.press("Enter")
    expect(page.locator("[data-level]").first).to_be_visible()
    table.move()
    table.until_turn(2)
    expect(page.locator("#settings")).to_have_attribute("open", "")
    expect(page.locator("[data-level]").first).to_be_visible()


def test_a_long_hand_shows_that_it_scrolls_and_scrolls(server, open_context, shots):
    page = open_context().new_page()
    page.set_viewport_size(PHONE)
    page.goto(server.url)
    page.locator(f"{CARD} details summary").click()
    page.locator(f'{CARD} select[name="hand_size"]').select_option("13")
    page.locator('[data-action="play-computer"]').click()
    hand, area = page.locator("[data-hand]"), page.locator(".hand-area")
    expect(page.locator('[data-turn="you"]')).to_have_count(1)
    expect(hand.locator("[data-tile]")).to_have_count(13)
    # Read in the page, polled until laid out (a table pushed meanwhile replaces the hand):
    # the 13 tiles overflow the hand by more than 40 px, or the last reading says how not.
    measure = """() => { const h = document.querySelector('[data-hand]');
        return h && {left: h.scrollLeft, width: h.scrollWidth, shown: h.clientWidth}; }"""
    try:
        page.wait_for_function(
            f"() => {{ const m = ({measure})(); return m && m.width > m.shown + 40; }}",
            timeout=5000,
        )
    except PlaywrightTimeout:
        pytest.fail(f"13 tiles fit unscrolled: {page.evaluate(measure)}")
    expect(area).to_have_attribute("data-more", "end")  # more to the right: a fade and an arrow
    fade = page.evaluate(
        "() => getComputedStyle(document.querySelector('.hand-area'), '::after').opacity"
    )
    assert fade == "1", f"no fade at the end with more tiles ({fade})"
    expect(page.locator(".hand-scroll.end")).to_be_visible()
    expect(page.locator(".hand-scroll.start")).to_be_hidden()
    assert hand.evaluate("(el) => getComputedStyle(el).overflowX") == "auto"  # touch scrolls
    page.screenshot(path=shots / "fits-long-hand-390x844.png")

    box = hand.bounding_box()  # the mouse wheel, over the hand, scrolls it sideways
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, 120)
    page.wait_for_function("() => document.querySelector('[data-hand]').scrollLeft > 20")
    expect(area).to_have_attribute("data-more", "start end")
    expect(page.locator(".hand-scroll.start")).to_be_visible()
    assert page.evaluate("window.scrollY") == 0, "the wheel scrolled the page, not the hand"

    hand.evaluate("(el) => { el.scrollLeft = 0; }")  # the keyboard: the hand takes focus
    hand.focus()
    page.keyboard.press("End")
    page.wait_for_function(
        "() => { const h = document.querySelector('[data-hand]');"
        " return h.scrollLeft + h.clientWidth >= h.scrollWidth - 2; }"
    )
    expect(area).to_have_attribute("data-more", "start")
    page.keyboard.press("ArrowLeft")  # a tile's width back
    page.wait_for_function(
        "() => { const h = document.querySelector('[data-hand]');"
        " return h.scrollLeft + h.clientWidth < h.scrollWidth - 20; }"
    )
    expect(area).to_have_attribute("data-more", "start end")


@pytest.fixture
def away_server(tmp_path):
    """The app on a live server where a seat away for `AWAY_SECONDS` may be handed over."""
    with live_server(tmp_path / "domino.sqlite3", seed=5, AWAY_SECONDS=AWAY_SECONDS) as live:
        yield live


def test_an_away_seat_counts_down_to_the_hand_over_in_the_strip(away_server, open_context):
    host, invite = open_table(open_context, away_server.url, "three")
    host.locator('[data-give="2"] button').click()
    expect(host.locator('[data-seat="2"][data-computer]')).to_have_count(1)
    guest = sit(open_context, invite)
    expect(host.locator('[data-seat="1"][data-connected="true"]')).to_have_count(1)
    expect(host.locator("[data-countdown]")).to_have_count(0)  # nobody away: no countdown
    guest.close()
    countdown = host.locator('[data-seat="1"][data-count] [data-countdown]')
    expect(countdown).to_be_visible()
    first = countdown.text_content() or ""
    assert re.fullmatch(r"hand-over in 0:0[1-8]", first), first
    host.wait_for_function(  # it ticks down by itself, with no new table
        "(first) => { const el = document.querySelector('[data-countdown]');"
        " return el && el.textContent !== first; }",
        arg=first,
    )
    later = countdown.text_content() or ""
    assert int(later[-1]) < int(first[-1]), (first, later)
    expect(host.locator('[data-hand-over="1"] button')).to_be_visible()  # time is up
    expect(host.locator("[data-countdown]")).to_have_count(0)


def test_a_friends_request_shows_at_the_top_and_is_said(server, open_context, shots):
    """After a round, a friend's request for a new round stands at the top of the table,
    above the seats and the result, on the first screen, and the live region says it."""
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    play_out_on_server(server, room_id_of(invite))
    for seat in (host, guest):
        seat.page.set_viewport_size(PHONE)
        seat.page.reload()  # the pages were pushed the other seat's moves only
        seat.wait_live(more_than=1)
        expect(seat.page.locator("[data-result]")).to_have_count(1)
    expect(guest.page.locator(".request-top")).to_have_count(0)
    host.page.locator('[data-next] [data-action="new-round"]').click()
    accept = guest.page.locator('.request-top [data-action="accept-new-round"]')
    expect(accept).to_be_visible()
    expect(guest.page.locator("#announce")).to_contain_text("Your friend asks for a new round.")
    guest.page.evaluate("window.scrollTo(0, 0)")
    boxes = guest.page.evaluate(
        """() => Object.fromEntries(['.request-top', '#status', '[data-result]'].map((s) =>
             [s, document.querySelector(s).getBoundingClientRect().toJSON()]))"""
    )
    top, status, result = boxes[".request-top"], boxes["#status"], boxes["[data-result]"]
    assert top["bottom"] <= status["top"] + 0.5 and top["bottom"] <= result["top"], boxes
    assert top["top"] >= 0 and top["bottom"] <= PHONE["height"], boxes
    guest.page.screenshot(path=shots / "fits-request-at-the-top-390x844.png")
    expect(host.page.locator(".request-top")).to_contain_text("waiting for your friend")


def test_the_name_box_closes_once_the_name_is_saved(server, open_context):
    table = computer_table(open_context, server.url, "three")
    page = table.pages[0]
    page.locator("#settings-summary").click()
    page.locator("#my-name-summary").click()
    page.locator("#my-name").fill("Zoë")
    page.locator('[data-action="save-name"]').click()
    expect(page.locator("#my-name-summary")).to_have_text("Your name here: Zoë")
    expect(page.locator("#my-name-box")).not_to_have_attribute("open", "")
    expect(page.locator("#settings")).not_to_have_attribute("open", "")


def test_a_won_match_shows_its_score_sheet(server, open_context, shots):
    """A match to 20 against the computer: its result holds a score sheet, one row per round
    (read from the room's records), under the totals, which the rows add up to."""
    page = open_context().new_page()
    page.set_viewport_size(PHONE)
    page.goto(server.url)
    fill_card(page, "block", target=20)
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator('[data-turn="you"]')).to_have_count(1)
    table, rounds = Table([page], 2), 0
    for _ in range(30):
        table.play_out()
        rounds += 1
        if page.locator("[data-match-result]").count():
            break
        page.locator('[data-next] [data-action="new-round"]').click()  # Continue
        expect(page.locator("[data-result]")).to_have_count(0)
    expect(page.locator("[data-result] [data-match-result]")).to_be_visible()
    sheet = page.locator("[data-match-sheet]")
    expect(sheet).to_be_visible()
    expect(sheet.locator("[data-sheet-round]")).to_have_count(rounds)
    cells = sheet.evaluate(
        """(table) => ({
             rounds: [...table.querySelectorAll('[data-sheet-round]')].map((row) =>
               [...row.querySelectorAll('td')].map((td) => Number(td.textContent))),
             totals: [...table.querySelectorAll('.total td')].map((td) => Number(td.textContent)),
           })"""
    )
    sums = [sum(column) for column in zip(*cells["rounds"], strict=True)]
    assert sums == cells["totals"], cells
    assert max(cells["totals"]) >= 20, cells
    check_fits(page, "two", "after-match", shots)  # the line and the hand still on the first screen
    sheet.scroll_into_view_if_needed()
    page.screenshot(path=shots / "fits-match-sheet-390x844.png")
