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

from playwright.sync_api import Page, expect

from domino.tiles import Laid
from tests.support import drive
from tests.support.browser_computer import MAX_MOVES, Player
from tests.support.browser_friends import SIGNATURE_JS, Seat, create_room, open_seat
from tests.support.browser_matches import CARD
from tests.support.browsing import TIMEOUT_MS
from tests.support.line_geometry import DESKTOP, GEOMETRY_JS, PHONE, SIZES, check, problems_of
from tests.support.planned_line import (
    ALL_28,
    BLOCK_OF_14,
    TRAIL,
    chain_of,
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
