"""The line of play laid as a snake inside the felt (issue 14), measured in a real browser.

At 360×740 and 1280×800 every tile of the line must lie inside the felt, no two overlapping,
each touching the next with the halves that match facing each other (a tile in a row running
right to left is turned), tiles at least 44 px long; the end buttons inside the felt, next to
their ends (the left one nearest the first tile, the right one nearest the last); and
`data-chain` still lists the room's line from left to right.

A two-seat round can never lay all 28 tiles, so the test deal is planned: a block game of 14
tiles a hand whose hands follow one long chain of the double-six set, played by clicking in two
browsers. It passes a line of 1 and of 10 tiles and ends at 27; at 10 and at 26 the tile to lay
fits both ends, so the end buttons show. The line of all 28 is served by a test-only route that
renders a real room's table (`render_table`) with the whole set in its line. A round against
the computer (the fixed seed) is checked after every move too. Screenshots of the felt are always
written to test-artifacts/line/ (line-<width>-<tiles>.png, -ends when the end buttons show).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest
from flask import render_template_string
from playwright.sync_api import Page, expect

from domino.rules import DEFAULT
from domino.tiles import Laid
from domino.web.view.render import Links, render_table
from tests.browser.line_geometry import DESKTOP, GEOMETRY_JS, PHONE, SIZES, check, problems_of
from tests.browser.test_computer_round import MAX_MOVES, Player
from tests.browser.test_friend_round import SIGNATURE_JS, TIMEOUT_MS, Seat, create_room, open_seat
from tests.browser.test_matches import CARD
from tests.support import drive
from tests.support.live import LiveServer

BLOCK_OF_14 = replace(DEFAULT, boneyard=False, hand_size=14)


def written(text: str) -> list[str]:
    """Tiles as laid ("6-5": the 6 on the left), from a text of them separated by spaces."""
    return text.split()


# The planned round: a closed chain of 27 tiles (all but the double blank) from 6 back to 6,
# laid in this order at the right end, seat 0 (holding 6-6, so opening) and seat 1 by turns.
# It starts with a run of doubles, so that rows turn next to them; the 11th tile (1-6) and the
# 27th (3-6) fit both ends of the line they meet.
TRAIL = written(
    "6-6 6-5 5-5 5-4 4-4 4-3 3-3 3-2 2-2 2-1 1-6 6-0 0-1 "
    "1-1 1-3 3-0 0-2 2-4 4-0 0-5 5-1 1-4 4-6 6-2 2-5 5-3 3-6"
)
LEFTOVER = "0-0"  # seat 1's last tile
# The whole set in one chain (it closes: every number is on eight halves), doubles in a run.
ALL_28 = written(
    "0-0 0-1 1-1 1-2 2-2 2-3 3-3 3-4 4-4 4-5 5-5 5-6 6-6 6-0 "
    "0-2 2-4 4-0 0-3 3-1 1-4 4-6 6-1 1-5 5-2 2-6 6-3 3-5 5-0"
)
BOTH_ENDS = {10, 26}  # line lengths at which seat 0's next tile fits both ends
SHOWN = {1, 10, 26, 27}  # line lengths pictured at both sizes (28 on its own page)
# Counts the line tiles still unplaced when the first frame after a swap is drawn (a reply or a
# push): line.js must have placed them all before that.
UNPLACED_JS = """
window.__unplaced = 0;
document.addEventListener('htmx:oobAfterSwap', () => requestAnimationFrame(() => {
  document.querySelectorAll('.chain .laid').forEach((li) => {
    if (!li.style.left) window.__unplaced += 1;
  });
}));
"""
PAGE = '{% extends "base.html" %}{% block main %}<div id="live">{{ table }}</div>{% endblock %}'


class PlannedDeal(random.Random):
    """Deals the planned hands every time (hands are dealt from the front of the shuffle)."""

    def __init__(self, hands: tuple[list[str], list[str]]) -> None:
        super().__init__(1)
        self.order = [Laid.parse(text).tile for hand in hands for text in hand]

    def shuffle(self, tiles) -> None:
        assert sorted(tiles) == sorted(self.order), "the plan is not the whole set"
        tiles[:] = self.order


def chain_of(texts: list[str]) -> tuple[Laid, ...]:
    """The tiles as laid, checked to be one line of different tiles whose touching halves match."""
    line = tuple(Laid.parse(text) for text in texts)
    assert len({laid.tile for laid in line}) == len(line), "a tile twice"
    assert all(a.right == b.left for a, b in itertools.pairwise(line)), "halves differ"
    return line


def planned_hands() -> tuple[list[str], list[str]]:
    return TRAIL[0::2], [*TRAIL[1::2], LEFTOVER]


def full_line(room):
    """The room's table with all 28 tiles in its line: the round over, both hands empty."""
    line = chain_of(ALL_28)
    assert len(line) == 28
    hands = tuple(() for _ in room.round.hands)
    state = replace(room.round, line=line, hands=hands, boneyard=(), turn=None, opening=None)
    return replace(room, round=state)


@pytest.fixture
def planned(tmp_path, rng_deals):
    """The app on a live server, dealing the planned hands, with a test-only page of a room's
    table whose line holds the whole set (`/test-only/all-28/<room id>`)."""
    server = LiveServer(tmp_path / "domino.sqlite3", DOMINO_RNG=PlannedDeal(planned_hands()))
    services = server.services

    @server.app.get("/test-only/all-28/<room_id>")
    def all_28(room_id: str):
        room = full_line(services.rooms.require(room_id))
        table = render_table(services.view(room, 0), Links(f"/r/{room_id}"), oob=False)
        return render_template_string(PAGE, table=table)

    server.start()
    try:
        yield server
    finally:
        server.stop()


def block_of_14(page: Page) -> None:
    """On the home page's rules card: the block game, 14 tiles a hand."""
    page.locator(f"{CARD} details summary").click()
    page.locator(f'{CARD} input[name="boneyard"][value="block"]').check()
    page.locator(f'{CARD} select[name="hand_size"]').select_option("14")


def laid_line(server, room_id: str) -> list[str]:
    return [str(laid) for laid in server.services.rooms.get(room_id).round.line]


def choose(seat: Seat, tile: str) -> None:
    """Select a tile in the hand: it fits both ends, so the two end buttons show."""
    seat.page.locator(f'[data-hand] [data-tile="{Laid.parse(tile).tile}"]').click()
    expect(seat.page.locator("[data-end]")).to_have_count(2)


def lay(seats: list[Seat], mover: Seat, tile: str) -> None:
    """Lay `tile` at the right end by clicking (and choosing the end if asked); wait until
    both pages show the move."""
    before = {seat.name: seat.signature() for seat in seats}
    page = mover.page
    if not page.locator("[data-end]").count():
        page.locator(f'[data-hand] [data-tile="{Laid.parse(tile).tile}"]').click()
        page.wait_for_function(
            f"(before) => document.querySelector('[data-end]') || {SIGNATURE_JS} !== before",
            arg=before[mover.name],
            timeout=TIMEOUT_MS,
        )
    if page.locator("[data-end]").count():
        page.locator('[data-end="right"]').click()
    for seat in seats:
        seat.wait_changed(before[seat.name], f"{mover.name} lays {tile}")


def test_a_planned_round_keeps_the_line_a_snake_at_every_length(planned, open_context):
    """The host's page (with motion) is measured at 1280 px after every move, the guest's
    (with less motion) at 360 px; at 1, 10, 26 and 27 tiles, and with the end buttons shown,
    both sizes, pictured."""
    contexts = [open_context(), open_context()]
    for context in contexts:
        context.add_init_script(UNPLACED_JS)
    host, invite = create_room(contexts[0], planned.url, block_of_14)
    guest = open_seat("B", contexts[1], invite)
    guest.page.emulate_media(reduced_motion="reduce")
    guest.page.set_viewport_size(PHONE)
    host.page.set_viewport_size(DESKTOP)
    seats = [host, guest]
    for seat in seats:
        expect(seat.page.locator("[data-hand] [data-tile]")).to_have_count(14)
        expect(seat.page.locator('[data-opponent-connected="true"]')).to_have_count(1)
    room_id = invite.rstrip("/").rsplit("/", 1)[-1]
    assert laid_line(planned, room_id) == []

    for count, tile in enumerate(TRAIL):
        mover = seats[count % 2]
        if count in BOTH_ENDS:
            choose(mover, tile)
            line = laid_line(planned, room_id)
            check(mover.page, line, f"{count} tiles, {tile} chosen", ends=2, shot=f"{count}-ends")
        lay(seats, mover, tile)
        line = laid_line(planned, room_id)
        assert line == [str(laid) for laid in chain_of(TRAIL[: count + 1])]
        pictured = len(line) in SHOWN
        where = f"{len(line)} tiles"
        shot = str(len(line)) if pictured else None
        sizes = SIZES if pictured else (DESKTOP,)
        check(host.page, line, f"A's page, {where}", shot=shot, sizes=sizes)
        check(guest.page, line, f"B's page, {where}", sizes=(PHONE,))
    expect(host.page.locator("[data-result]")).to_have_count(1)
    for seat in seats:
        assert seat.page.evaluate("window.__unplaced") == 0, f"{seat.name}: a frame unplaced"


def test_a_round_against_the_computer_keeps_the_line_a_snake(server, open_context):
    """A real deal (the fixed seed): after every move the line is checked, at 1280 and 360 px
    by turns, and at both sizes once the round is over."""
    player = Player(server, open_context())
    shown = player.start()
    lengths = []
    while shown["result"] is None:
        assert len(lengths) < MAX_MOVES, f"the round does not end: {lengths}"
        line = [str(laid) for laid in player.stored.round.line]
        lengths.append(len(line))
        size = SIZES[len(lengths) % 2]
        check(player.page, line, f"the computer's room, {len(line)} tiles", sizes=(size,))
        shown = player.wait_current(player.take_turn(shown))
    line = [str(laid) for laid in player.stored.round.line]
    check(player.page, line, f"the computer's room, over at {len(line)} tiles")
    assert max(lengths) >= 10, f"the line only reached {lengths}"
    print(f"line lengths on the player's turns: {lengths}, {len(line)} at the end")


def test_a_line_of_all_28_tiles(planned, open_context):
    room, _secret = planned.services.rooms.create("friend", rules=BLOCK_OF_14)
    drive.join(planned.services.rooms, room.id, None)
    page = open_context().new_page()
    page.goto(f"{planned.url}/test-only/all-28/{room.id}")
    check(page, [str(laid) for laid in chain_of(ALL_28)], "all 28 tiles", shot="28")


def test_without_the_script_the_line_wraps_and_the_check_sees_it(planned, new_context):
    """Without scripts the line is a wrapped row: readable (inside the felt, nothing covered),
    but not one connected line; the check above must say so."""
    room, _secret = planned.services.rooms.create("friend", rules=BLOCK_OF_14)
    drive.join(planned.services.rooms, room.id, None)
    context = new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{planned.url}/test-only/all-28/{room.id}")
    for size in SIZES:
        page.set_viewport_size(size)
        shown = page.evaluate(GEOMETRY_JS)
        assert len(shown["tiles"]) == 28
        found = problems_of(shown)
        assert any("do not touch" in p for p in found), f"{size}: {found}"
        readable = [p for p in found if "inside" in p or "overlaps" in p]
        assert not readable, f"{size}: {readable}"
    context.close()
