"""Tables of three and four (issue 15, docs/rules.md, tables of three and four) in real browsers,
read through the page hooks (docs/contracts.md).

Every page must agree, after every move, on the table's `data-seq`, whose turn it is
(`data-turn` / `data-turn-seat`) and each other seat's tile count (`data-seat` with
`data-count`, checked against the hand that seat's own page shows). Rounds are played to
their end by clicking; the computer plays the seats it was given.
"""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser_tables import (
    LIVE,
    MAX_MOVES,
    click_a_move,
    open_table,
    own_seat,
    settled,
    shown,
    sit,
)
from tests.support.browsing import TIMEOUT_MS
from tests.support.live import live_server

AWAY_SECONDS = 3.0  # the hand-over waits this long here (two minutes in production)


@pytest.fixture
def away_server(tmp_path):
    """The app on a live server where a seat away for `AWAY_SECONDS` may be handed over."""
    with live_server(tmp_path / "domino.sqlite3", seed=5, AWAY_SECONDS=AWAY_SECONDS) as live:
        yield live


def check_agreement(pages: list[Page], seats: int, views: list[dict]) -> None:
    """Every page names the same seat to move, and every count matches that seat's hand."""
    mine = [own_seat(page, seats) for page in pages]
    hands = dict(zip(mine, (view["hand"] for view in views), strict=True))
    over = views[0]["winner"] is not None
    turns = {view["turnSeat"] for view in views}
    if not over:
        assert len(turns) == 1, f"the pages disagree on whose turn it is: {views}"
        (turn,) = turns
        for seat, view in zip(mine, views, strict=True):
            expected = "you" if str(seat) == turn else ("opponent" if seats == 2 else "other")
            assert view["turn"] == expected, (seat, view)
    for view in views:
        for seat, other in view["others"].items():
            if int(seat) in hands and not over:
                assert other["count"] == hands[int(seat)], (seat, other, hands)


def play_out(pages: list[Page], seats: int, rng: random.Random) -> list[dict]:
    """Click through the round, the seat to move on its own page, until it ends; the final
    views."""
    views = settled(pages, 0)
    for _move in range(MAX_MOVES):
        check_agreement(pages, seats, views)
        if all(view["winner"] is not None for view in views):
            return views
        seq = views[0]["seq"]
        movers = [page for page, view in zip(pages, views, strict=True) if view["turn"] == "you"]
        assert len(movers) <= 1, views
        if movers:
            click_a_move(movers[0], rng)
        views = settled(pages, seq + 1)  # a computer seat's move comes by itself
    raise AssertionError("the round did not end")


def check_result(pages: list[Page], views: list[dict], teams: bool) -> None:
    """Partners read the same verdict; two sides read opposite ones (or both a draw)."""
    mine = [own_seat(page, len(views[0]["others"]) + 1) for page in pages]
    verdict = {seat: view["winner"] for seat, view in zip(mine, views, strict=True)}
    assert set(verdict.values()) <= {"you", "opponent", "draw"}, verdict
    if "draw" in verdict.values():
        assert set(verdict.values()) == {"draw"}, verdict
    elif teams:
        for seat, word in verdict.items():
            if seat + 2 in verdict:
                assert verdict[seat + 2] == word, verdict  # partners
            if seat + 1 in verdict:
                assert verdict[seat + 1] != word, verdict  # the other side
    else:
        assert list(verdict.values()).count("you") <= 1, verdict


def test_four_browsers_play_a_round_in_pairs(server, open_context):
    host, invite = open_table(open_context, server.url, "pairs")
    pages = [host] + [sit(open_context, invite) for _ in range(3)]
    assert [own_seat(page, 4) for page in pages] == [0, 1, 2, 3]
    late = open_context().new_page()
    late.goto(invite)  # a fifth browser: the table is full
    expect(late.locator("[data-hand]")).to_have_count(0)
    views = settled(pages, 0)
    for seat, view in enumerate(views):  # partners sit opposite, marked as such
        partner = (seat + 2) % 4
        assert view["others"][str(partner)]["partner"], view
        assert not any(o["partner"] for s, o in view["others"].items() if s != str(partner))
        assert all(o["connected"] == "true" and not o["computer"] for o in view["others"].values())
    final = play_out(pages, 4, random.Random(1))
    check_result(pages, final, teams=True)


def test_two_browsers_and_two_computer_seats_play_a_round(server, open_context):
    host, invite = open_table(open_context, server.url, "pairs")
    for seat in (1, 3):  # the other side is the computer's
        host.locator(f'[data-give="{seat}"] button').click()
        expect(host.locator(f'[data-seat="{seat}"][data-computer]')).to_have_count(1)
    partner = sit(open_context, invite)
    assert own_seat(partner, 4) == 2  # the one free seat
    pages = [host, partner]
    views = settled(pages, 0)
    assert views[0]["others"]["2"]["partner"] and views[1]["others"]["0"]["partner"]
    final = play_out(pages, 4, random.Random(2))
    check_result(pages, final, teams=True)


def test_three_browsers_play_a_round_of_three(server, open_context):
    host, invite = open_table(open_context, server.url, "three")
    pages = [host, sit(open_context, invite), sit(open_context, invite)]
    assert [own_seat(page, 3) for page in pages] == [0, 1, 2]
    views = settled(pages, 0)
    assert not any(o["partner"] for view in views for o in view["others"].values())
    final = play_out(pages, 3, random.Random(3))
    check_result(pages, final, teams=False)


def test_a_seat_away_for_long_is_handed_to_the_computer_and_taken_back(away_server, open_context):
    host, invite = open_table(open_context, away_server.url, "three")
    host.locator('[data-give="2"] button').click()
    expect(host.locator('[data-seat="2"][data-computer]')).to_have_count(1)
    guest_context = open_context()
    guest = guest_context.new_page()
    guest.goto(invite)
    expect(guest.locator(LIVE)).to_have_count(1)
    room = away_server.services.rooms
    room_id = invite.rstrip("/").rsplit("/", 1)[-1]
    expect(host.locator('[data-seat="1"][data-connected="true"]')).to_have_count(1)
    guest.close()  # the guest's browser goes away
    expect(host.locator('[data-seat="1"][data-connected="false"]')).to_have_count(1)
    hand_over = host.locator('[data-hand-over="1"] button')
    expect(hand_over).to_have_count(0)  # not before AWAY_SECONDS
    expect(hand_over).to_be_visible(timeout=TIMEOUT_MS)  # pushed once the time is up
    expect(host.locator('[data-hand-over="1"] select')).to_have_count(0)  # no level to pick
    moved = len(room.get(room_id).round.history)
    hand_over.click()
    expect(host.locator('[data-seat="1"][data-computer]')).to_have_count(1)
    assert room.get(room_id).handed(1) and room.get(room_id).bots[1] == "medium"
    # The host plays on; the computer plays seats 1 and 2 meanwhile, until it has played 1.
    rng = random.Random(4)
    for _ in range(MAX_MOVES):
        if any(move.seat == 1 for move in room.get(room_id).round.history[moved:]):
            break
        views = settled([host], 0)
        assert views[0]["winner"] is None, "the round ended before the computer played seat 1"
        if views[0]["turn"] == "you":
            click_a_move(host, rng)
        settled([host], views[0]["seq"] + 1)
    else:
        raise AssertionError("the computer did not play the handed seat")
    # The guest comes back in the same browser: the seat is theirs again at its next turn.
    back = guest_context.new_page()
    back.goto(invite)
    expect(back.locator("[data-hand]")).to_have_count(1)
    for _ in range(MAX_MOVES):
        state = room.get(room_id)
        if not state.handed(1):
            break
        view = settled([host, back], 0)[0]
        if view["turn"] == "you":
            click_a_move(host, rng)
        settled([host, back], view["seq"] + 1)  # a move, or the seat taken back
    state = room.get(room_id)
    assert not state.handed(1), "the seat was never taken back"
    assert state.round.over or state.round.turn == 1
    expect(host.locator('[data-seat="1"][data-count]:not([data-computer])')).to_have_count(1)
    if not state.round.over:
        expect(back.locator('[data-turn="you"][data-turn-seat="1"]')).to_have_count(1)
        seq, moved = shown(back)["seq"], len(state.round.history)
        click_a_move(back, rng)  # and it plays its own turn
        settled([host, back], seq + 1)
        assert room.get(room_id).round.history[moved].seat == 1
