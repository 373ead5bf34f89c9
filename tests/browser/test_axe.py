"""Accessibility and layout of every kind of page, in light and dark mode (docs/rules.md, at the
table).

axe-core (vendored for the tests only, tests/vendor/) scans each state; a violation of impact
"serious" or "critical" fails the test. At 360×740 and 1280×800 no page scrolls sideways, and
at 360 px every control a thumb needs is at least 44 px on its short side. A full-page
screenshot of every state, size and colour scheme goes to test-artifacts/screenshots/, whose
path is written at the end of the run; axe's full findings (every impact, and what it could
not decide) go to axe-*.json beside them.
"""

from __future__ import annotations

import hashlib
import random
import re
from functools import partial

from playwright.sync_api import expect

from tests.support import drive
from tests.support.axe import (
    AXE,
    VENDOR,
)
from tests.support.browser_computer import Player
from tests.support.browser_friends import (
    PLAYABLE,
    create_room,
    expect_both_connected,
    join_room,
    over,
    play_round,
    take_turn,
)
from tests.support.browser_matches import (
    CARD,
    agree_to_next,
    fill_card,
    play_duplicate,
    preset_rules,
    shown_rules,
)
from tests.support.browser_review import reviewed_round
from tests.support.planned_line import BLOCK_OF_14

MISSING_ROOM = "/r/AAAAAAAAAAAAAAAAAAAAAA"
# A playable tile that asks for an end when selected (a direct play posts at once instead).
CHOICE = f"{PLAYABLE}[aria-pressed]"


def test_the_vendored_axe_matches_its_checksum():
    lines = (VENDOR / "SHA256SUMS").read_text().split("\n")
    pinned = dict(reversed(line.split()) for line in lines if line.strip())
    assert set(pinned) == {p.name for p in VENDOR.glob("*.js")} == {AXE.name}
    assert hashlib.sha256(AXE.read_bytes()).hexdigest() == pinned[AXE.name]


def test_home_help_and_missing_room_pages(server, open_context, scan):
    page = open_context().new_page()
    page.goto(server.url)
    expect(page.locator('[data-action="create-room"]')).to_be_visible()
    scan(page, "home")

    page.goto(f"{server.url}/help")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    scan(page, "help-en")

    page.goto(f"{server.url}/lang/pl?next=/help")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    scan(page, "help-pl")

    response = page.goto(server.url + MISSING_ROOM)
    assert response is not None and response.status == 404
    scan(page, "missing")
    scan.assert_clean()


def test_your_tables_on_the_home_page(server, open_context, scan):
    """The home page listing this browser's tables (issue 29): one waiting for a friend, one
    against the computer."""
    context = open_context()
    create_room(context, server.url)
    page = context.new_page()
    page.goto(server.url)
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator("[data-hand] [data-tile]")).to_have_count(7)
    # The table page remembers its room once its scripts have run (static/notify.js).
    page.wait_for_function(
        "() => JSON.parse(localStorage.getItem('domino.tables') || '[]').length == 2"
    )
    page.goto(server.url)
    expect(page.locator("[data-your-table]")).to_have_count(2)
    scan(page, "your-tables")
    scan.assert_clean()


def test_the_name_form_and_the_player_page(server, open_context, scan):
    """Taking a name (issue 30): the form, a refusal beside its field, the own player page
    with its sessions and the account's deletion, and another player's page."""
    page = open_context().new_page()
    page.goto(server.url)
    form = page.locator("[data-name-form]")
    expect(form).to_be_visible()
    form.locator('input[name="name"]').fill("admin")
    form.locator('[data-action="take-name"]').click()
    expect(form.locator("[data-error]")).to_be_visible()
    scan(page, "name-refused")
    form.locator('input[name="name"]').fill("Ana")
    form.locator('[data-action="take-name"]').click()
    expect(page.locator("[data-player]")).to_have_text("Ana")
    scan(page, "home-signed-in")
    page.goto(f"{server.url}/p/Ana")
    expect(page.locator("[data-session][data-current]")).to_have_count(1)
    scan(page, "player-own")
    other = open_context().new_page()
    other.goto(f"{server.url}/p/Ana")
    expect(other.locator("h1")).to_have_text("Ana")
    scan(other, "player-other")
    scan.assert_clean()


def test_a_friend_table_from_invitation_to_result(server, open_context, scan, rng_deals):
    """Every state of a friend's table passes the scan. The deal is the seeded one (a fair
    deal takes each browser's random seed), so the round surely offers a tile both ends."""
    host, invite = create_room(open_context(), server.url)
    scan(host.page, "waiting")

    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats = [host, guest]

    stranger = open_context().new_page()
    response = stranger.goto(invite)
    assert response is not None and response.status == 403
    scan(stranger, "full")

    # Play on until a tile asks which end it goes to, and select it.
    chooser = None
    while chooser is None and not over(seats):
        chooser = next((s for s in seats if s.page.locator(CHOICE).count()), None)
        if chooser is None:
            take_turn(seats)
    assert chooser is not None, "the round ended before any tile fitted both ends"
    page = chooser.page
    page.locator(CHOICE).first.click()
    expect(page.locator("[data-end]")).to_have_count(2)
    scan(page, "selected")

    before = {seat.name: seat.signature() for seat in seats}
    page.locator("[data-end]").first.click()
    for seat in seats:
        seat.wait_changed(before[seat.name], "the play at the chosen end")
    play_round(seats)
    for seat in seats:
        scan(seat.page, f"finished-{seat.name}")
    host.page.locator('[data-action="review"]').click()  # the round's review, once analysed
    expect(host.page.locator("[data-review-ready]")).to_have_count(1, timeout=90_000)
    scan(host.page, "review")
    scan.assert_clean()


def test_the_review_on_the_felt_at_a_costly_move(server, open_context, scan):
    """The round review as it opens: at its first costly move, with the sentence saying why,
    the line on the felt and every hand; then a step swapped in by the arrow key."""
    page, room_id, _costly, _record, _k = reviewed_round(server, open_context)
    page.goto(f"{server.url}/r/{room_id}/review")
    expect(page.locator("[data-review-decision] .review-why")).to_be_visible()
    scan(page, "review-costly")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#review-said")).not_to_be_empty()
    scan(page, "review-stepped")
    scan.assert_clean()


def test_a_computer_table_with_its_level_select(server, open_context, scan):
    page = open_context().new_page()
    page.goto(server.url)
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator("[data-level]")).to_be_visible()  # SPEC 7.3's control, never folded
    expect(page.locator('[data-turn="you"]')).to_have_count(1)
    scan(page, "computer")
    scan.assert_clean()


def test_the_folded_table_settings_of_a_table_of_three(server, open_context, scan):
    """The table settings at three seats, folded and opened: the computer's levels and the
    name box (opened too)."""
    page = open_context().new_page()
    page.goto(server.url + "/?preset=three")
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator('[data-turn="you"]')).to_have_count(1)
    expect(page.locator("[data-level]").first).to_be_hidden()
    scan(page, "settings-folded")
    page.locator("#settings-summary").click()
    page.locator("#my-name-summary").click()
    expect(page.locator("[data-level]")).to_have_count(2)
    expect(page.locator("[data-name-form] input[name='name']")).to_be_visible()
    scan(page, "settings-open")
    scan.assert_clean()


def test_the_newest_tile_is_drawn_in_once(server, open_context):
    """A tile new in the line is drawn in; a table showing the same line again keeps it still."""
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    take_turn([host, guest])  # the opening tile: new on both pages
    newest = "getComputedStyle(document.querySelector('.chain .laid.last')).animationName"
    for seat in (host, guest):
        assert seat.page.evaluate(newest) == "lay-in", seat.name
    guest.page.close()  # the host's table comes again: the friend is away, the line the same
    expect(host.page.locator('[data-opponent-connected="false"]')).to_have_count(1)
    assert host.page.evaluate(newest) == "none"
    assert host.page.locator(".chain .laid.last").count() == 1


def test_nothing_moves_when_less_motion_is_asked_for(server, open_context):
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats = [host, guest]
    for seat in seats:
        seat.page.emulate_media(reduced_motion="reduce")
    take_turn(seats)  # lays a tile: the newest tile's animation is off
    for seat in seats:
        running = seat.page.evaluate("document.getAnimations().length")
        assert running == 0, f"{seat.name}: {running} animations despite reduced motion"
        timing = seat.page.evaluate(
            """() => [...document.querySelectorAll('button, .chain .laid, .hand-area')]
                 .map((el) => getComputedStyle(el))
                 .filter((s) => s.transitionDuration.split(',').some((d) => parseFloat(d) > 0)
                                || s.animationName !== 'none').length"""
        )
        assert timing == 0, f"{seat.name}: {timing} elements still animate or transition"


def test_the_rules_card_and_an_invitation_with_its_rules(server, open_context, scan):
    page = open_context().new_page()
    page.goto(server.url)
    fill_card(page, "block", target=20)  # opened, with the box for another target shown
    scan(page, "card")

    page.locator(f'{CARD} input[name="target_points"]').fill("0")
    page.locator('[data-action="create-room"]').click()
    expect(page.locator(f'{CARD} [aria-invalid="true"]')).to_have_count(1)
    expect(page.locator("#rules-error")).not_to_be_empty()
    scan(page, "card-refused")

    _host, invite = create_room(
        open_context(), server.url, partial(fill_card, preset="block", target=20)
    )
    held = []
    guest = open_context().new_page()
    guest.route(re.compile(r"/r/[A-Za-z0-9_-]+/join$"), lambda route: held.append(route))
    guest.goto(invite)  # its join is held back (not answered) until the page is scanned
    expect(guest.locator("[data-rules] li").first).to_be_visible()
    assert shown_rules(guest) == preset_rules("block", target=20)
    expect(guest.locator("[data-hand]")).to_have_count(0)
    for _poll in range(400):  # Playwright delivers the route event meanwhile
        if held:
            break
        guest.wait_for_timeout(25)
    assert held, "the invitation did not post its join"
    scan(guest, "invitation")
    held[0].continue_()
    expect(guest.locator("[data-hand] [data-tile]")).to_have_count(7)
    scan.assert_clean()


def test_a_match_table_and_the_match_result(server, open_context, scan):
    host, invite = create_room(
        open_context(), server.url, partial(fill_card, preset="block", target=20)
    )
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats, rng = [host, guest], random.Random(5)
    for played in range(12):
        if played < 2:  # mid-round, the score (0–0, then the first round's) and the target
            take_turn(seats, rng)
            take_turn(seats, rng)
            expect(host.page.locator("[data-score]")).to_have_count(2)
            scan(host.page, f"match-table-{played + 1}")
        play_round(seats, rng=rng)
        if host.page.locator("[data-match-result]").count():
            break
        agree_to_next(host.page, guest.page, "continue")
    for seat in seats:
        expect(seat.page.locator("[data-match-result]")).to_be_visible()
        scan(seat.page, f"match-result-{seat.name}")
    scan.assert_clean()


def test_the_move_list_opened_mid_round(server, open_context, scan):
    """The round's story, opened: one entry per public move, draws and passes among them."""
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats, rng = [host, guest], random.Random(3)
    actions: set[str] = set()
    for _turn in range(40):  # until the story holds a draw (the seed gives one early)
        if over(seats) or "draw" in actions:
            break
        take_turn(seats, rng)
        actions = set(
            host.page.locator("[data-move]").evaluate_all(
                "(moves) => moves.map((m) => m.getAttribute('data-action'))"
            )
        )
    assert {"play", "draw"} <= actions, f"the round told only {actions}"
    page = host.page
    page.locator("#moves summary").click()
    expect(page.locator("[data-move-list]")).to_be_visible()
    expect(page.locator("[data-move]").first).to_be_visible()
    scan(page, "move-list")
    scan.assert_clean()


def test_a_line_of_all_28_tiles_at_both_sizes(planned, open_context, scan):
    room, _secret = planned.services.rooms.create("friend", rules=BLOCK_OF_14)
    drive.join(planned.services.rooms, room.id, None)
    page = open_context().new_page()
    page.goto(f"{planned.url}/test-only/all-28/{room.id}")
    expect(page.locator("[data-chain] [data-tile]")).to_have_count(28)
    scan(page, "line-of-28")
    scan.assert_clean()


def test_a_table_of_four_in_pairs_and_of_three_against_the_computer(server, open_context, scan):
    """A pairs table waiting (the seat controls), full with two people and two computer seats
    (scanned at a person's turn, so nothing fades mid-scan), and a three-seat computer room."""
    host = open_context().new_page()
    host.goto(server.url + "/?preset=pairs")
    host.locator('[data-action="create-room"]').first.click()
    invite = host.locator("[data-invite]")
    expect(invite).to_be_visible()
    expect(host.locator("[data-name-form][data-live]")).to_have_count(1)  # its socket is open
    scan(host, "pairs-waiting")
    host.locator('[data-give="3"] button').click()
    expect(host.locator('[data-seat="3"][data-computer]')).to_have_count(1)
    guest = open_context().new_page()
    guest.goto(invite.input_value())
    expect(guest.locator('[data-seat="3"][data-computer]')).to_have_count(1)
    expect(guest.locator("[data-name-form][data-live]")).to_have_count(1)
    scan(guest, "pairs-guest-waiting")
    host.locator('[data-give="2"] button').click()
    for page in (host, guest):  # full, every other seat shown; then a person is to move
        expect(page.locator("[data-seat][data-count]")).to_have_count(3)
    expect(host.locator('[data-turn-seat="0"], [data-turn-seat="1"]')).to_have_count(1)
    scan(host, "pairs-playing")
    computer = open_context().new_page()
    computer.goto(server.url + "/?preset=three")
    computer.locator('[data-action="play-computer"]').click()
    expect(computer.locator("[data-seat][data-count][data-computer]")).to_have_count(2)
    expect(computer.locator('[data-turn="you"]')).to_have_count(1)
    scan(computer, "three-computer")
    scan.assert_clean()


def test_a_table_with_the_tile_counter_and_a_duplicate_result(server, open_context, scan):
    """A computer table with the tile counter on, scanned once a few tiles are down, and the
    result of its duplicate rematch (both rounds side by side, the duplicate score)."""
    player = Player(server, open_context())
    scanned = []

    def once(player) -> None:
        if not scanned and player.page.locator("[data-chain] [data-tile]").count() >= 2:
            scan(player.page, "tile-counter")
            scanned.append(True)

    play_duplicate(player, once)
    assert scanned, "the table with the counter was never scanned"
    expect(player.page.locator("[data-duplicate]")).to_be_visible()
    scan(player.page, "duplicate-result")
    scan.assert_clean()


def test_the_rules_panel_and_the_card_at_four_seats(server, open_context, scan):
    """The table's "The rules of this table" panel, opened, and the rules card once four seats
    have lowered the hand size (its note shown, the sizes that do not fit disabled)."""
    page = open_context().new_page()
    page.goto(server.url + "/?preset=classic")
    page.locator(f'{CARD} input[name="seats"][value="4"]').check()
    expect(page.locator(f"{CARD} [data-size-note]")).not_to_be_empty()
    scan(page, "card-four-seats")
    page.goto(server.url + "/?preset=international")
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator('[data-turn="you"]')).to_have_count(1)
    page.locator("[data-rules-panel] > summary").click()
    expect(page.locator("[data-rules-panel] li").first).to_be_visible()
    scan(page, "rules-panel")
    scan.assert_clean()
