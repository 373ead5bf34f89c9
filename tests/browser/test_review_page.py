"""Round review in a real browser: the link in the result, the spinner while the review pool
works, then the costly moves marked (the ones `analysis.analyze` finds) and the review moved
to the first of them; the position on the felt with the table's tiles, the costly move's
sentence, "Move N" landing on move N, and the arrow keys stepping without a reload."""

from __future__ import annotations

import json
import random
from pathlib import Path

from playwright.sync_api import expect

from domino.bots import analysis
from domino.events import Play
from domino.tiles import Tile
from domino.web.live.analyses import seed_of
from tests.browser.test_friend_round import (
    create_room,
    expect_both_connected,
    join_room,
    play_round,
    room_id_of,
)

SETTLED_JS = """() => document.getAnimations().every(
  (a) => a.playState === 'finished' || a.playState === 'idle')"""
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
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
    # The page opened at the first move while the pool worked; the analysis in, it moves to
    # the first costly move (static/review.js), without a reload.
    first = min(row["index"] for row in rows) + 1
    expect(page.locator("[data-review]")).to_have_attribute("data-step", str(first))
    page.evaluate("window.stillHere = true")
    expect(page.locator("[data-review-decision] .review-why")).to_contain_text("cost about")
    steps = int(page.locator("[data-review]").get_attribute("data-steps"))
    if first < steps:
        page.keyboard.press("ArrowRight")
        expect(page.locator("[data-review]")).to_have_attribute("data-step", str(first + 1))
    page.keyboard.press("ArrowLeft")
    expect(page.locator("[data-review]")).to_have_attribute(
        "data-step", str(first if first < steps else first - 1)
    )
    assert page.evaluate("window.stillHere === true")  # no reload
    expect(page.locator("[data-decision][data-costly]")).to_have_count(len(rows))  # stored


def play(name: str) -> Play:
    """A play as the analysis writes it ("4-6:right")."""
    tile, end = name.split(":")
    return Play(Tile.parse(tile), end)


def reviewed_round(server, open_context):
    """Two friends' finished round with its analysis stored: two of the host's decisions made
    costly ("double"), the rest as good as the best. The host's page, the room, the rows."""
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    store = server.services.rooms.store
    room_id = room_id_of(invite)
    for k in range(ROUNDS):  # the deal is fair, so not known: rarely the host has one choice
        play_round([host, guest], rng=random.Random(k))
        seq, text = store.record_rows(room_id)[k]
        if len([d for d in analysis.decisions(json.loads(text)) if d.seat == 0]) >= 2:
            break
        host.page.locator('[data-action="new-round"]').click()
        guest.page.locator('[data-action="accept-new-round"]').click()
        expect(host.page.locator("[data-result]")).to_have_count(0)
    made = analysis.analyze(text, 1, playouts=40)
    for row in made["decisions"]:
        row["costly"], row["cost"], row["best"] = False, 0.0, row["made"]
    mine = [row for row in made["decisions"] if row["seat"] == 0][:2]
    assert len(mine) == 2, f"too few choices in {ROUNDS} rounds"
    views = {d.index: d.view for d in analysis.decisions(json.loads(text))}
    for row in mine:
        other = next(play for play, _ev in row["options"] if play != row["made"])
        row["best"], row["cost"], row["costly"] = other, 13.9, True
        row["reason"] = analysis.reason(views[row["index"]], play(row["made"]), play(other))
    store.save_review(room_id, seq, json.dumps(made))
    return host.page, room_id, mine, json.loads(text), k


def test_the_review_draws_the_felt_opens_at_the_first_costly_move_and_steps_by_key(
    server, open_context
):
    page, room_id, costly, record, _k = reviewed_round(server, open_context)
    steps = len(record["events"])
    first, second = (row["index"] + 1 for row in costly)
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/r/{room_id}/review")
    review = page.locator("[data-review]")
    expect(review).to_have_attribute("data-step", str(first))
    expect(page.locator("#review-step-title")).to_have_text(f"Move {first} of {steps}")
    # The felt and the table's tiles: the line as the table draws it, laid out as a snake.
    felt = page.locator(".line-area [data-review-line]")
    laid = felt.locator(".laid[data-tile] svg.face")
    expect(laid.first).to_be_visible()
    assert page.locator("html.snake").count() == 1
    named = felt.locator(".laid").evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    assert named and all(name and "-" not in name for name in named)  # "three–five", not "3-5"
    expect(felt.locator(".laid[data-last]")).to_have_count(1)
    hand_tiles = page.locator("[data-review-hand] [data-tile][role=img]")
    expect(hand_tiles.first.locator("svg.face")).to_be_visible()
    assert all(hand_tiles.evaluate_all("els => els.map(e => !!e.getAttribute('aria-label'))"))
    # The costly move's sentence, in words; no bare "-13.9" anywhere on the page.
    expect(page.locator("[data-review-decision] .review-why")).to_contain_text(
        "here cost about 14 points on average: "
    )
    assert "13.9" not in page.locator("main").inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_function(SETTLED_JS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=SHOTS / "review-costly-390x844.png")
    page.set_viewport_size(DESKTOP)
    page.wait_for_function(SETTLED_JS)
    page.screenshot(path=SHOTS / "review-costly-1280x900.png")
    page.screenshot(path=SHOTS / "review-costly-1280x900-full.png", full_page=True)
    # "Move N" lands on move N, without a reload, and the address follows.
    page.evaluate("window.stillHere = true")
    link = page.locator(f"[data-decision][data-index='{second - 1}'] a")
    expect(link).to_have_text(f"Move {second}")
    link.click()
    expect(review).to_have_attribute("data-step", str(second))
    assert page.evaluate("window.scrollY") < 200  # the step is in sight, not the list
    expect(page.locator("#review-step-title")).to_have_text(f"Move {second} of {steps}")
    expect(page.locator(".review-moves a[aria-current=step]")).to_have_text(f"Move {second}")
    assert page.url.endswith(f"?step={second}")
    # The arrow keys step, without a reload either; the move list, opened, stays open.
    page.locator("#review-moves summary").click()
    page.keyboard.press("ArrowLeft")
    expect(review).to_have_attribute("data-step", str(second - 1))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(review).to_have_attribute("data-step", str(min(second + 1, steps)))
    expect(page.locator("#review-step-title")).to_have_text(
        f"Move {min(second + 1, steps)} of {steps}"
    )
    expect(page.locator("#review-said")).to_contain_text(f"Move {min(second + 1, steps)} of")
    assert page.evaluate("window.stillHere === true")
    assert page.url.endswith(f"?step={min(second + 1, steps)}")
    expect(page.locator("#review-moves")).to_have_attribute("open", "")
    page.set_viewport_size(PHONE)
    page.wait_for_function(SETTLED_JS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=SHOTS / "review-stepped-390x844.png")
    page.go_back()
    expect(review).to_have_attribute("data-step", str(second))
