"""Matches in a real browser: the rules card filled in and read back, a preset picked, the
next round agreed to from the result, and a duplicate rematch played against the computer."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from domino.rules import PRESETS
from tests.support.browser_computer import MAX_MOVES, Player

CARD = "[data-rules-form]"
HAND = "[data-hand] [data-tile]"
NEXT = '[data-next] [data-action="new-round"]'
ACCEPT = '[data-next] [data-action="accept-new-round"]'


def fill_card(page: Page, preset: str, target: int | None = None) -> None:
    """Open the home page's rules card, choose `preset`, and type another target if given."""
    card = page.locator(f"{CARD} details")
    expect(card).not_to_have_attribute("open", "")
    card.locator("summary").click()
    expect(card).to_have_attribute("open", "")
    button = page.locator(f'{CARD} [data-preset="{preset}"]')
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    if target is not None:
        page.locator(f'{CARD} select[name="target"]').select_option("other")
        points = page.locator(f'{CARD} input[name="target_points"]')
        expect(points).to_be_visible()
        points.fill(str(target))


def preset_rules(preset: str, **changes) -> dict:
    """The rules object of `preset`, with `changes`, as `data-rules` carries it."""
    return {**PRESETS[preset].to_json(), **changes}


def shown_rules(page: Page) -> dict:
    return json.loads(page.locator("[data-rules]").get_attribute("data-rules"))


def agree_to_next(asker: Page, other: Page, kind: str) -> None:
    """Both friends ask for the next deal (`kind` as `data-next` says); wait until it is dealt."""
    for page in (asker, other):
        expect(page.locator("[data-next]")).to_have_attribute("data-next", kind)
    asker.locator(NEXT).click()
    expect(other.locator(ACCEPT)).to_be_visible()
    expect(asker.locator(NEXT)).to_have_count(0)
    expect(asker.locator("[data-result]")).to_have_count(1)  # one word deals nothing
    other.locator(ACCEPT).click()
    for page in (asker, other):
        expect(page.locator("[data-result]")).to_have_count(0)
        expect(page.locator(HAND)).to_have_count(7)


def tick_counter(page) -> None:
    """Open the rules card and tick the tile counter's box."""
    page.locator("[data-rules-form] details > summary").click()
    page.locator('[data-rules-form] input[name="counter"]').check()


def records(player: Player) -> list[dict]:
    """The room's finished rounds, as the page's own link downloads them."""
    url = player.page.locator("#table").get_attribute("data-record-url")
    answer = player.page.request.get(player.server.url.rstrip("/") + url)
    assert answer.ok, answer.status
    return [json.loads(line) for line in answer.text().splitlines() if line.strip()]


def finish(player: Player, shown: dict, midway=None) -> dict:
    """Play the round on the page to its end, calling `midway(player)` before every move."""
    moves: list[str] = []
    while shown["result"] is None:
        assert len(moves) < MAX_MOVES, f"the round does not end: {moves[-10:]}"
        if midway is not None:
            midway(player)
        moves.append(player.take_turn(shown))
        shown = player.wait_current(moves[-1])
    return shown


def play_duplicate(player: Player, midway=None) -> tuple[dict, dict]:
    """With the tile counter on, play a round and its rematch to the end, calling
    `midway(player)` before each of the player's moves; the two rounds' records."""
    shown = player.start(tick_counter)
    finish(player, shown, midway)
    expect(player.page.locator("[data-duplicate]")).to_have_count(0)  # one round is no duplicate
    [first] = records(player)
    player.page.locator('[data-action="rematch"]').click()
    expect(player.page.locator("[data-result]")).to_have_count(0)
    shown = player.wait_current("asking for the rematch")
    # seat 0 has laid nothing yet (the computer may have opened): its whole new hand shows
    dealt = first["deal"]["hands"]
    assert sorted(shown["hand"]) == sorted(dealt[1]), (shown["hand"], dealt)
    expect(player.page.locator('[data-action="rematch"]')).to_have_count(0)
    finish(player, shown, midway)
    first_again, second = records(player)
    assert first_again == first
    return first, second
