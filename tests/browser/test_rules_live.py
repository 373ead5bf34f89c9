"""The rules, live (issue 29, items 5 and 8), in Chromium.

On the home page's card, choosing three or four seats (or the draw game) disables at once the
hand sizes the core refuses at that table, lowers a size that no longer fits to the most that
does, saying so, and gives the chosen size back once it fits again; the room made is the one
the card shows. At the table, the "The rules of this table" panel is reached with Tab, opened
with Enter, closed with Space, and stays open while the game goes on (the table is swapped on
every move).
"""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from domino.rules import Rules, RulesError
from tests.support.browser_computer import Player
from tests.support.browser_matches import CARD

SIZE = f'{CARD} select[name="hand_size"]'
NOTE = f"{CARD} [data-size-note]"
PANEL = "[data-rules-panel]"
ENABLED_SIZES_JS = """(select) => [...select.options]
  .filter((option) => !option.disabled).map((option) => Number(option.value))"""


def core_most(seats: int, draw: bool) -> int:
    """The most tiles a hand holds at this table, as the core decides (asked here, apart from
    the page)."""
    most = 0
    for size in range(2, 29):
        try:
            Rules(seats=seats, teams=seats == 4, boneyard=draw, hand_size=size)
        except RulesError:
            continue
        most = size
    return most


def choose(page: Page, name: str, value: str) -> None:
    page.locator(f'{CARD} input[name="{name}"][value="{value}"]').check()


def offered(page: Page) -> list[int]:
    return page.locator(SIZE).evaluate(ENABLED_SIZES_JS)


def expect_table(page: Page, seats: int, draw: bool, size: int) -> None:
    """The card offers exactly the sizes that fit this table, with `size` chosen."""
    most = core_most(seats, draw)
    expect(page.locator(SIZE)).to_have_value(str(size))
    assert offered(page) == list(range(2, most + 1)), (seats, draw, offered(page))


def test_three_or_four_seats_offer_only_the_hand_sizes_that_fit(server, open_context):
    page = open_context().new_page()
    page.goto(server.url)
    page.locator(f"{CARD} details > summary").click()
    expect_table(page, 2, True, 7)
    expect(page.locator(NOTE)).to_be_empty()

    choose(page, "seats", "4")  # four hands of 7 leave nothing to draw: 6 each
    expect_table(page, 4, True, 6)
    expect(page.locator(NOTE)).to_contain_text("6")
    expect(page.locator(NOTE)).to_contain_text("4")
    expect(page.locator(f"{CARD} #rules-error")).to_be_empty()  # lowered, not refused

    choose(page, "boneyard", "block")  # every tile dealt: 7 fit again, and come back
    expect_table(page, 4, False, 7)
    expect(page.locator(NOTE)).to_be_empty()

    choose(page, "seats", "3")
    expect_table(page, 3, False, 7)
    page.locator(SIZE).select_option("9")
    choose(page, "seats", "4")
    expect_table(page, 4, False, 7)
    choose(page, "seats", "2")  # the 9 chosen fits again
    expect_table(page, 2, False, 9)
    page.locator(SIZE).select_option("14")
    choose(page, "boneyard", "draw")
    expect_table(page, 2, True, 13)
    choose(page, "seats", "3")
    expect_table(page, 3, True, 9)

    page.locator('[data-action="create-room"]').click()
    expect(page.locator("[data-invite]")).to_be_visible()
    rules = json.loads(page.locator("[data-rules]").get_attribute("data-rules"))
    assert (rules["seats"], rules["boneyard"], rules["hand_size"]) == (3, True, 9)


def test_a_preset_sets_the_size_it_names_and_the_script_only_lowers_on_a_change(
    server, open_context
):
    page = open_context().new_page()
    page.goto(server.url + "/?preset=pairs")  # the card opened on a preset, as without script
    expect_table(page, 4, False, 7)
    page.locator(f'{CARD} [data-preset="classic"]').click()
    expect_table(page, 2, True, 7)
    page.locator(SIZE).select_option("13")
    page.locator(f'{CARD} [data-preset="three"]').click()  # a preset's own size, no note
    expect_table(page, 3, True, 7)
    expect(page.locator(NOTE)).to_be_empty()


def tab_to(page: Page, selector: str, most: int = 80) -> None:
    """Press Tab until the element `selector` names has the focus."""
    for _press in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} was not reached with Tab in {most} presses")


def test_the_rules_panel_opens_by_keyboard_and_stays_open_as_play_goes_on(server, open_context):
    player = Player(server, open_context())

    def international(page: Page) -> None:
        page.locator(f"{CARD} details > summary").click()
        page.locator(f'{CARD} [data-preset="international"]').click()

    shown = player.start(international)
    page = player.page
    panel = page.locator(PANEL)
    expect(panel).not_to_have_attribute("open", "")
    expect(panel.locator("li").first).to_be_hidden()
    tab_to(page, f"{PANEL} > summary")
    page.keyboard.press("Enter")
    expect(panel).to_have_attribute("open", "")
    items = panel.locator("li")
    expect(items.first).to_be_visible()
    assert items.count() >= 8
    expect(panel).to_contain_text("The heaviest tile opens the round")
    page.keyboard.press("Space")
    expect(panel).not_to_have_attribute("open", "")
    page.keyboard.press("Enter")
    expect(panel).to_have_attribute("open", "")

    seq = shown["seq"]
    player.take_turn(shown)  # the table is swapped for the move and the computer's answer
    shown = player.wait_current("a move with the rules open")
    assert shown["seq"] > seq
    expect(panel).to_have_attribute("open", "")
    expect(items.first).to_be_visible()
    expect(page.locator(PANEL)).to_have_count(1)
