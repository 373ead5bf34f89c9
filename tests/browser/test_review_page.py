"""Round review in a real browser: the link in the result, the spinner while the review pool
works, then the costly moves marked (the ones `analysis.analyze` finds), and the arrow keys."""

from __future__ import annotations

import json
import random

from playwright.sync_api import expect

from domino.bots import analysis
from domino.web.routes.review import seed_of
from tests.support.browser_friends import (
    create_room,
    expect_both_connected,
    join_room,
    play_round,
    room_id_of,
)

ROUNDS = 4  # rounds played at most until one seat made a costly move
REVIEW_MS = 90_000  # the review pool runs below everything else on a shared machine


def costly_seat(text: str):
    """The first seat with costly moves in this record's review, and their rows."""
    made = analysis.analyze(text, seed_of(text))
    for seat in (0, 1):
        rows = [row for row in made["decisions"] if row["seat"] == seat and row["costly"]]
        if rows:
            return seat, rows
    return None, []


def test_the_review_shows_a_spinner_then_the_costly_moves(server, open_context):
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats = [host, guest]
    store = server.services.rooms.store
    room_id = room_id_of(invite)
    for k in range(ROUNDS):
        play_round(seats, rng=random.Random(k))
        seq, text = store.record_rows(room_id)[k]
        seat, rows = costly_seat(text)
        if seat is not None:
            break
        host.page.locator('[data-action="new-round"]').click()
        guest.page.locator('[data-action="accept-new-round"]').click()
        expect(host.page.locator("[data-result]")).to_have_count(0)
    assert seat is not None, f"no costly move in {ROUNDS} rounds"
    page = seats[seat].page
    link = page.locator('[data-action="review"]')
    with page.expect_navigation() as went:
        link.click()
    assert "data-review-pending" in went.value.text()
    expect(page.locator('[data-review-pending][role="status"] .spinner')).to_be_visible()
    marked = page.locator("[data-decision][data-costly]")
    expect(marked).to_have_count(len(rows), timeout=REVIEW_MS)
    expect(page.locator("[data-review-pending]")).to_have_count(0)
    ranked = sorted(rows, key=lambda row: -row["cost"])
    assert [int(i) for i in marked.evaluate_all("els => els.map(e => e.dataset.index)")] == [
        row["index"] for row in ranked
    ]
    expect(marked.first.locator(".review-why")).to_contain_text("cost about")
    assert json.loads(store.review(room_id, seq))["decisions"]
    steps = int(page.locator("[data-review]").get_attribute("data-steps"))
    expect(page.locator("[data-review]")).to_have_attribute("data-step", str(steps))
    page.wait_for_load_state("domcontentloaded")  # review.js (deferred) has run by then
    page.keyboard.press("ArrowLeft")
    expect(page.locator("[data-review]")).to_have_attribute("data-step", str(steps - 1))
    page.wait_for_load_state("domcontentloaded")
    page.keyboard.press("ArrowRight")
    expect(page.locator("[data-review]")).to_have_attribute("data-step", str(steps))
    expect(page.locator("[data-decision][data-costly]")).to_have_count(len(rows))  # stored
