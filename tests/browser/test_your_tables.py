"""A table never lost (issue 29, item 3), in Chromium: the home page lists the tables this
browser holds seats at, with the right turn, and no seat secret anywhere in the page; another
browser sees none of them, even knowing their addresses. The tab title says "Your turn ·" and
follows the turns the socket brings. The desktop notification is asked for only on a click,
and shown only while the tab is in the background."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from playwright.sync_api import expect

from tests.support.browser_friends import (
    create_room,
    expect_both_connected,
    join_room,
    room_id_of,
    take_turn,
)

YOURS = re.compile(r"^Your turn · ")

# A stand-in for the browser's Notification (installed before any page script): it records
# whether permission was asked for and what was shown; `window.__focused` plays the tab's
# focus (document.hasFocus).
FAKE_NOTIFICATION_JS = """(() => {
  window.__asked = 0;
  window.__shown = [];
  window.__focused = true;
  function Fake(title, options) { window.__shown.push({title: title, body: options.body}); }
  Fake.permission = 'default';
  Fake.requestPermission = function () {
    window.__asked += 1;
    Fake.permission = 'granted';
    return Promise.resolve('granted');
  };
  window.Notification = Fake;
  document.hasFocus = function () { return window.__focused; };
})()"""


def seat_secrets(context) -> dict[str, str]:
    """The seat cookie of each room this browser context holds, by room id."""
    return {
        cookie["path"].rstrip("/").rsplit("/", 1)[-1]: cookie["value"]
        for cookie in context.cookies()
        if cookie["name"] == "seat"
    }


def expected_turn(server, room_id: str, secret: str) -> str:
    """The turn the card should show: as the server's room stands, seen from the seat."""
    room = server.services.rooms.get(room_id)
    seat = room.seat_of(secret)
    assert seat is not None
    if not room.full:
        return "waiting"
    if room.round.over:
        return "over"
    return "you" if room.round.turn == seat else "other"


def test_the_home_page_lists_this_browsers_tables_and_no_secret(server, open_context):
    mine, friend = open_context(), open_context()
    # 1. a friend's table, both seated and playing
    host, invite = create_room(mine, server.url)
    guest = join_room(friend, invite)
    expect_both_connected(host, guest)
    take_turn([host, guest])
    played = room_id_of(invite)
    # 2. a table waiting for its friend
    lone, lone_invite = create_room(mine, server.url)
    waiting = room_id_of(lone_invite)
    # 3. a table against the computer
    page = mine.new_page()
    page.goto(server.url)
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator("[data-hand] [data-tile]")).to_have_count(7)
    computer = urlparse(page.url).path.rstrip("/").rsplit("/", 1)[-1]
    assert server.services.computer.wait_idle(10)
    # Each table page remembers its room once its scripts have run (static/notify.js).
    page.wait_for_function(
        "() => JSON.parse(localStorage.getItem('domino.tables') || '[]').length == 3"
    )

    secrets = seat_secrets(mine)
    assert set(secrets) == {played, waiting, computer}
    home = mine.new_page()
    home.goto(server.url)
    cards = home.locator("[data-your-table]")
    expect(cards).to_have_count(3)
    expect(home.locator("[data-your-tables]")).to_be_visible()
    shown = {card.get_attribute("data-room"): card for card in cards.all()}
    assert set(shown) == {played, waiting, computer}
    for room_id, card in shown.items():
        turn = expected_turn(server, room_id, secrets[room_id])
        assert card.get_attribute("data-your-turn") == turn, room_id
        link = card.locator("[data-your-table-link]")
        assert link.get_attribute("href") == f"/r/{room_id}"
    expect(shown[waiting]).to_contain_text("Waiting for your friend to join")
    expect(shown[played]).to_contain_text("Your friend")
    expect(shown[computer]).to_contain_text("The computer")
    # newest first
    assert [card.get_attribute("data-room") for card in cards.all()] == [
        computer,
        waiting,
        played,
    ]

    # no seat secret in the page, its storage or the cards' answers
    html = home.content()
    stored = home.evaluate("JSON.stringify(Object.assign({}, window.localStorage))")
    for secret in secrets.values():
        assert secret not in html and secret not in stored
    # ...nor any of the other browser's (its seat at the first table)
    for secret in seat_secrets(friend).values():
        assert secret not in html

    # the link goes back to the table
    shown[waiting].locator("[data-your-table-link]").click()
    expect(home.locator("[data-invite]")).to_be_visible()
    assert home.url.endswith(f"/r/{waiting}")
    lone.page.close()
    host.page.close()


def test_another_browser_sees_none_of_them_even_knowing_their_addresses(server, open_context):
    mine = open_context()
    _host, invite = create_room(mine, server.url)
    room_id = room_id_of(invite)

    stranger = open_context()
    page = stranger.new_page()
    page.goto(server.url)
    expect(page.locator('[data-action="create-room"]')).to_be_visible()
    expect(page.locator("[data-your-tables]")).to_be_hidden()
    assert page.locator("[data-your-table]").count() == 0

    # A browser that has the room's address in its storage but no seat: the server says
    # nothing, and the page forgets the room.
    remember = "(room) => localStorage.setItem('domino.tables', JSON.stringify([room]))"
    page.evaluate(remember, room_id)
    with page.expect_response(re.compile(rf"/r/{room_id}/yours$")) as answer:
        page.reload()
    assert answer.value.status == 404
    expect(page.locator("[data-your-tables]")).to_be_hidden()
    page.wait_for_function("() => localStorage.getItem('domino.tables') === '[]'")
    assert page.locator("[data-your-table]").count() == 0


def test_the_tab_title_follows_the_turns_over_the_socket(server, open_context):
    host, invite = create_room(open_context(), server.url)
    expect(host.page).not_to_have_title(YOURS)  # alone: nobody's turn yet
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    seats = [host, guest]
    for _ in range(3):
        views = {seat.name: seat.view()["turn"] for seat in seats}
        mover = next(seat for seat in seats if views[seat.name] == "you")
        waiter = next(seat for seat in seats if seat is not mover)
        expect(mover.page).to_have_title(YOURS)
        expect(waiter.page).not_to_have_title(YOURS)
        take_turn(seats)  # the next title comes with the socket's push, or the reply
        if {seat.view()["turn"] for seat in seats} == {"you"}:
            break
        if mover.view()["turn"] != "you":
            expect(waiter.page).to_have_title(YOURS)
            expect(mover.page).not_to_have_title(YOURS)


def test_a_notification_is_asked_for_on_a_click_and_shown_only_in_the_background(
    server, open_context
):
    mine = open_context()
    mine.add_init_script(FAKE_NOTIFICATION_JS)
    host, invite = create_room(mine, server.url)
    page = host.page
    button = page.locator('[data-action="notify"]')
    expect(button).to_be_visible()
    assert page.evaluate("window.__asked") == 0  # never asked on load
    expect(button).to_have_attribute("aria-pressed", "false")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("window.__asked") == 1

    page.evaluate("window.__focused = false")  # the player looks at another tab
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    page.wait_for_function("window.__shown.length > 0")
    shown = page.evaluate("window.__shown")
    assert shown[0]["body"] == "Your friend joined the table."

    # a focused tab is told nothing
    seats = [host, guest]
    page.evaluate("window.__focused = true; window.__shown = []")
    for _ in range(4):
        take_turn(seats)
    assert page.evaluate("window.__shown") == []

    # in the background, the turn coming back is told
    page.evaluate("window.__focused = false")
    for _ in range(8):  # the host gives the turn away (a draw keeps it)
        if host.view()["turn"] != "you":
            break
        take_turn(seats)
    page.evaluate("window.__shown = []")
    for _ in range(8):  # the friend plays (or draws) until the host's turn is back
        if host.view()["turn"] == "you":
            break
        take_turn(seats)
    assert host.view()["turn"] == "you"
    page.wait_for_function("window.__shown.some((n) => n.body === 'Your turn')")


def test_tables_on_every_shard_are_listed_and_a_shard_down_breaks_nothing(
    cluster,
    open_context,
):
    """Behind nginx (docs/cluster.md) the home page comes from any shard, and each card from
    its room's own shard: a browser's tables on two shards are all listed; with one shard
    down the page still loads, lists the other's, and remembers the unreachable ones."""
    page = open_context().new_page()
    rooms: list[str] = []
    for _ in range(10):  # new rooms go to the least busy shard: a few land on both
        page.goto(cluster.url)
        page.locator('[data-action="create-room"]').click()
        expect(page.locator("[data-invite]")).to_be_visible()
        rooms.append(urlparse(page.url).path.rstrip("/").rsplit("/", 1)[-1])
        if len({room.split("-", 1)[0] for room in rooms}) == 2:
            break
    assert {room.split("-", 1)[0] for room in rooms} == {"s1", "s2"}, rooms
    page.goto(cluster.url)
    cards = page.locator("[data-your-table]")
    expect(cards).to_have_count(len(rooms))
    assert {card.get_attribute("data-room") for card in cards.all()} == set(rooms)

    cluster.stop("shard-s2")
    page.goto(cluster.url)
    expect(page.locator('[data-action="create-room"]')).to_be_visible()
    alive = {room for room in rooms if room.startswith("s1-")}
    expect(cards).to_have_count(len(alive))
    assert {card.get_attribute("data-room") for card in cards.all()} == alive
    stored = page.evaluate("JSON.parse(localStorage.getItem('domino.tables'))")
    assert set(stored) == set(rooms)  # a shard down is not a room gone
