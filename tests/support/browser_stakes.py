"""Stake tables in browsers (SPEC §13, hooks §14), through the page hooks alone: the quick
match form's `stake`, the waiting page of a stake table (`data-queue-stake`, `data-expires-in`), a
public match played to its end by clicking (each round, then "Continue" between rounds), and
the statement `/me/coins` read back entry by entry."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Page, expect

from tests.support.browser_friends import Seat, play_round
from tests.support.browser_matches import agree_to_next

MAX_ROUNDS = 30  # a match to 100 takes a handful of rounds; a blocked round may score little
ENTRY_JS = """() => [...document.querySelectorAll('[data-ledger-entry]')].map((row) => ({
  amount: Number(row.getAttribute('data-amount')),
  balance: Number(row.getAttribute('data-balance')),
  reason: row.getAttribute('data-reason'),
  key: row.getAttribute('data-key'),
}))"""


@dataclass(frozen=True)
class Entry:
    """One `data-ledger-entry` of a statement."""

    amount: int
    balance: int
    reason: str
    key: str


def quick_match_at(page: Page, game: str, stake: int) -> None:
    """Choose `game` and `stake` in the quick match form and press "Play"."""
    form = page.locator("form[data-quick-match]")
    form.locator('select[name="game"]').select_option(game)
    form.locator('select[name="stake"]').select_option(str(stake))
    form.locator('[data-action="quick-match"]').click()


def waiting_at_stake(page: Page, game: str, stake: int) -> int:
    """See the waiting page of a stake table of `game` at `stake`; the seconds it says the
    table has left before it expires (`data-expires-in`)."""
    queue = page.locator(f'[data-queue][data-game="{game}"][data-queue-stake="{stake}"]')
    expect(queue).to_have_count(1)
    expect(page.locator('[data-action="leave-queue"]')).to_be_visible()
    return int(queue.get_attribute("data-expires-in"))


def bar_coins(page: Page) -> str:
    return page.locator("#player-bar [data-coins]").inner_text().strip()


def statement(page: Page, base_url: str) -> list[Entry]:
    """Open `/me/coins` on `page` and read its entries, newest first."""
    page.goto(f"{base_url}/me/coins")
    expect(page.locator("h1")).to_have_count(1)
    return [Entry(**row) for row in page.evaluate(ENTRY_JS)]


def match_over(seat: Seat) -> bool:
    return seat.page.locator("[data-match-result]").count() > 0


def play_match(seats: list[Seat]) -> int:
    """Click through a public match's rounds until both pages show the match's result, the
    first seat pressing "Continue" between rounds and the other agreeing; the rounds played."""
    rounds = 0
    while True:
        assert rounds < MAX_ROUNDS, f"the match does not end after {rounds} rounds"
        play_round(seats)
        rounds += 1
        if any(match_over(seat) for seat in seats):
            for seat in seats:
                expect(seat.page.locator("[data-match-result]")).to_have_count(1)
            return rounds
        agree_to_next(seats[0].page, seats[1].page, "continue")
