"""No dead ends, in real browsers (issue 14): "Deal again" asks before it throws a round away,
a finished round's request is answered "Not now", a late guest gets one whole page, the
status bar keeps its height, and "Draw until I can play" draws as a player would by hand.
"""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import Page, expect

from domino import bots
from tests.support.browser_computer import Player
from tests.support.browser_friends import (
    create_room,
    expect_both_connected,
    join_room,
    room_id_of,
)
from tests.support.browser_tables import after_log, play_out_on_server
from tests.support.live import live_server

NEW_ROUND = '[data-action="new-round"]'
ASK_ROUND = "Deal again? This round will be lost."
FULL = "This table is full"
HAND = "[data-hand] [data-tile]"
DRAW_UNTIL = '[data-action="draw-until"]'
# Counts the requests the page sends, at the moment it sends them.
COUNT_SENT_JS = """
window.__sent = 0;
(() => {
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    window.__sent += 1;
    return send.apply(this, args);
  };
})();
"""
BOX_JS = """() => {
  const top = (selector) => document.querySelector(selector).getBoundingClientRect().top;
  const status = document.querySelector('#status').getBoundingClientRect();
  const root = document.documentElement;
  return {status: status.height, turn: document.querySelector('#status .turn')
            .getBoundingClientRect().height,
          line: top('#line'), hand: top('#hand'),
          overflow: root.scrollWidth - root.clientWidth};
}"""


def accept_dialogs(page: Page, asked: list[str]) -> None:
    """Accept every dialog the page opens, noting its message in `asked`."""

    def answer(dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)


def test_deal_again_mid_round_asks_and_only_an_accepted_question_deals(server, open_context):
    player = Player(server, open_context())
    player.page.add_init_script(COUNT_SENT_JS)
    shown = player.start()
    page, before = player.page, player.stored
    assert not before.round.over

    questions: list[str] = []
    page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.dismiss()))
    sent = page.evaluate("window.__sent")
    page.locator(NEW_ROUND).click()
    assert questions == [ASK_ROUND]
    assert page.evaluate("window.__sent") == sent, "a dismissed question sent a request"
    expect(page.locator("#table")).to_have_attribute("data-seq", str(before.seq))
    assert player.view()["hand"] == shown["hand"]
    assert player.stored.seq == before.seq

    page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.accept()))
    page.locator(NEW_ROUND).click()
    player.wait_answered(shown["answered"], "dealing again")
    shown = player.wait_current("dealing again")
    assert questions == [ASK_ROUND, ASK_ROUND]
    after = player.stored
    assert after.rounds == before.rounds + 1 and shown["seq"] > before.seq
    added = [kind for seq, kind, _data in after_log(server, after.id) if seq > before.seq]
    assert added[:2] == ["seed", "deal"] and added.count("deal") == 1, added  # the browser's seed


def test_after_a_round_the_request_is_answered_not_now_and_nobody_is_asked_twice(
    server, open_context
):
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    play_out_on_server(server, room_id_of(invite))
    for seat in (host, guest):
        seat.page.reload()  # the pages were pushed the other seat's moves only
        seat.wait_live(more_than=1)
        expect(seat.page.locator("[data-result]")).to_have_count(1)
    questions: list[str] = []
    for seat in (host, guest):
        accept_dialogs(seat.page, questions)
    host.page.locator(NEW_ROUND).click()  # the round is over: no question
    decline = guest.page.locator('[data-action="decline-new-round"]')
    expect(decline).to_have_text("Not now")
    decline.click()
    expect(host.page.locator(NEW_ROUND)).to_be_visible()
    for seat in (host, guest):
        expect(seat.page.locator("[data-result]")).to_have_count(1)
    assert questions == []


def test_a_late_take_the_seat_gets_one_whole_full_table_page(server, open_context):
    host, invite = create_room(open_context(), server.url)
    late = open_context().new_page()
    late.route("**/join", lambda route: route.abort())  # the automatic join is lost
    with late.expect_event("requestfailed"):
        late.goto(invite)
    late.unroute("**/join")
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    late.locator('[data-action="join"]').click()  # "Take the seat", too late
    expect(late.locator("h1")).to_have_text(FULL)
    expect(late.locator("header.site")).to_have_count(1)
    expect(late.get_by_text(FULL)).to_have_count(1)
    expect(late.locator("form[hx-post]")).to_have_count(0)  # the invitation is gone
    assert late.title().startswith(FULL)
    assert late.url == invite
    expect(guest.page.locator(HAND)).to_have_count(7)  # the seated guest keeps the seat


@pytest.fixture
def held(tmp_path, rng_deals):
    """A live server whose computer moves only when the test lets it (`held.permits`)."""
    permits = threading.Semaphore(0)

    def decide(level, view, seed):  # the computer's decider, passed in: one move a permit
        permits.acquire(timeout=60)
        return bots.decide(level, view, seed)

    with live_server(tmp_path / "domino.sqlite3", seed=5, BOT_DECIDE=decide) as live:
        live.permits = permits
        yield live
        permits.release(100)
        live.services.computer.wait_idle(10)


def both_states(page: Page, permits) -> dict[str, dict]:
    """The status bar measured on the player's turn and while the computer thinks."""
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator(HAND)).to_have_count(7)
    turn = page.locator("[data-turn]")
    expect(turn).to_have_count(1)
    found = {}
    for _ in range(2):
        if turn.get_attribute("data-turn") == "you":
            expect(page.locator("[data-hand] [data-playable]").first).to_be_enabled()
            found["you"] = page.evaluate(BOX_JS)
            if "thinking" not in found:
                page.locator("[data-hand] [data-playable]").first.click()
                expect(page.locator("#status .thinking")).to_be_visible()
        else:
            expect(page.locator("#status .thinking")).to_be_visible()
            found["thinking"] = page.evaluate(BOX_JS)
            if "you" not in found:
                permits.release()
                expect(turn).to_have_attribute("data-turn", "you")
    return found


@pytest.mark.parametrize("width", [1280, 360])
def test_the_status_bar_keeps_its_height_while_the_computer_thinks(held, open_context, width):
    page = open_context().new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(held.url)
    found = both_states(page, held.permits)
    mine, thinking = found["you"], found["thinking"]
    assert mine == thinking, f"at {width} px: {found}"
    assert mine["overflow"] <= 0, f"the page is wider than {width} px: {found}"


def test_the_status_bar_keeps_its_height_while_waiting_for_a_friend(server, open_context):
    host, invite = create_room(open_context(), server.url)
    host.page.set_viewport_size({"width": 1280, "height": 900})
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    note = host.page.locator("#status .waiting-note")
    expect(note).to_have_count(0)
    together = host.page.evaluate(BOX_JS)
    guest.page.close()
    expect(note).to_have_text("waiting for your friend to come back")
    waiting = host.page.evaluate(BOX_JS)
    assert together == waiting, {"together": together, "waiting": waiting}


def test_draw_until_i_can_play_in_the_browser(server, open_context):
    player = Player(server, open_context())
    shown = player.start()
    page = player.page
    for _ in range(60):
        if page.locator(f"{DRAW_UNTIL}:enabled").count():
            break
        if shown["result"] is not None:
            page.locator(NEW_ROUND).click()  # the round is over: dealt without a question
            player.wait_answered(shown["answered"], "a new round")
        else:
            player.take_turn(shown)
        shown = player.wait_current("a move")
    button = page.locator(DRAW_UNTIL)
    expect(button).to_have_text("Draw until I can play")
    before = player.stored
    button.click()
    player.wait_answered(shown["answered"], "drawing until a tile fits")
    shown = player.wait_current("drawing until a tile fits")
    added = [(kind, data) for seq, kind, data in after_log(server, before.id) if seq > before.seq]
    assert added and all(kind == "draw" and data["seat"] == 0 for kind, data in added), added
    drawn = [data["tile"] for _kind, data in added]
    assert shown["hand"][: len(before.round.hands[0])] == [str(t) for t in before.round.hands[0]]
    assert sorted(shown["hand"][len(before.round.hands[0]) :]) == sorted(drawn)
    count = len(drawn)
    expect(page.locator("#notice")).to_have_text(
        f"You drew {count} tile." if count == 1 else f"You drew {count} tiles."
    )
    if not shown["playable"]:  # the boneyard ran dry without a tile that fits
        expect(page.locator("[data-boneyard-count]")).to_have_text("0")
        expect(page.locator('[data-action="pass"]')).to_be_enabled()
    expect(button).to_have_count(0)
