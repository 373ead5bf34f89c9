"""Friends by name in Chromium (SPEC §11, hooks §14), two browsers through the page hooks
only: both take a name on the home page; the host invites the other by name from a friend
table; the invitation appears on the guest's open home page without a reload (the lobby's
fragment, polled), is accepted, seats the guest as the link would, and the two play a round
to its end, each called by name at the table. A block: the guest blocks the host on the host's
player page, and the host's invitations are then not shown, the host reading nothing of it.
The axe scan covers the invitation on the home page, the table's invite form with what became
of an invitation, and the player page's block button and friend list."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.support.browser_friends import (
    Seat,
    create_room,
    expect_both_connected,
    over,
    play_round,
    room_id_of,
)
from tests.support.browsing import take_name

POLLS_MS = 3_000  # the home page asks the lobby for its invitations this often


def named_page(context, base_url: str, name: str):
    """A home page of `context` that took `name` (the page stays on the home page)."""
    page = context.new_page()
    take_name(page, base_url, name)
    return page


def invite(host: Seat, name: str) -> None:
    form = host.page.locator("[data-invite-player]")
    form.locator('input[name="name"]').fill(name)
    form.locator('[data-action="invite-player"]').click()


def said_to_host(host: Seat) -> str:
    """What the invite form answered: its status or its error, once one is shown."""
    answer = host.page.locator(
        "[data-invite-player] [role=status], [data-invite-player] [data-error]"
    )
    expect(answer).to_have_count(1)
    return answer.inner_text()


def polls_seen(page, count: int) -> None:
    """Wait until the page has asked the lobby for its invitations `count` more times."""
    for _ in range(count):
        with page.expect_response(
            lambda response: "/me/invitations" in response.url, timeout=POLLS_MS * 3
        ):
            pass


def test_an_invited_player_accepts_from_the_home_page_and_plays_a_round(server, open_context, scan):
    hosts, guests = open_context(), open_context()
    named_page(hosts, server.url, "Ana")
    home = named_page(guests, server.url, "Bob")
    home.evaluate("window.__not_reloaded = true")

    host, link = create_room(hosts, server.url)
    room = room_id_of(link)
    invite(host, "Bob")
    assert "Invitation sent to Bob." in said_to_host(host)
    expect(host.page.locator("[data-sent-invitation]")).to_have_text("Waiting for Bob to answer")
    scan(host.page, "invite-by-name-table")

    invitation = home.locator(f'[data-invitation][data-room="{room}"]')
    expect(invitation).to_be_visible(timeout=POLLS_MS * 3)
    expect(invitation).to_contain_text("Ana invites you to a table.")
    assert home.evaluate("window.__not_reloaded === true"), "the home page was reloaded"
    scan(home, "invitation-on-the-home-page")

    guest = Seat("B", home)  # from here on, its sockets' frames are recorded
    invitation.locator('[data-action="accept-invitation"]').click()
    home.wait_for_url(f"**/r/{room}")
    expect(home.locator("[data-hand] [data-tile]")).to_have_count(7)
    guest.wait_live()
    expect_both_connected(host, guest)
    # Each is called by the other's name, not "your friend".
    expect(host.page.locator(".opponent .who bdi")).to_have_text("Bob")
    expect(home.locator(".opponent .who bdi")).to_have_text("Ana")
    expect(host.page.locator("[data-invite-player]")).to_have_count(0)  # the table is full

    play_round([host, guest])
    assert over([host, guest])
    for seat in (host, guest):
        expect(seat.page.locator("[data-result]")).to_be_visible()

    friends = hosts.new_page()
    friends.goto(f"{server.url}/p/Ana")
    expect(friends.locator("[data-friend] a")).to_have_text("Bob")
    expect(friends.locator("[data-friend][data-online]")).to_have_count(1)
    scan(friends, "friend-list")
    scan.assert_clean()


def test_a_blocked_hosts_invitations_are_not_shown_and_the_host_is_not_told(
    server, open_context, scan
):
    hosts, guests = open_context(), open_context()
    named_page(hosts, server.url, "Ana")
    home = named_page(guests, server.url, "Bob")

    host, link = create_room(hosts, server.url)
    invite(host, "Bob")
    first = home.locator(f'[data-invitation][data-room="{room_id_of(link)}"]')
    expect(first).to_be_visible(timeout=POLLS_MS * 3)

    player_page = guests.new_page()
    player_page.goto(f"{server.url}/p/Ana")
    scan(player_page, "player-page-block")
    player_page.locator('[data-action="block"]').click()
    expect(player_page.locator('[data-action="unblock"]')).to_be_visible()
    player_page.close()

    # The invitation sent before the block is gone from the open home page, with no reload.
    expect(home.locator("[data-invitation]")).to_have_count(0, timeout=POLLS_MS * 3)
    # The host's table still reads "waiting": nothing tells of the block.
    host.page.reload()
    expect(host.page.locator("[data-sent-invitation]")).to_have_text("Waiting for Bob to answer")

    # The host's next invitation, from a new table, reads exactly as one to a made-up name.
    second, second_link = create_room(hosts, server.url)
    invite(second, "Nobody123")
    unknown = said_to_host(second)
    second.page.reload()
    invite(second, "Bob")
    assert said_to_host(second) == unknown
    polls_seen(home, 2)
    expect(home.locator("[data-invitation]")).to_have_count(0)
    expect(home.locator(f'[data-room="{room_id_of(second_link)}"]')).to_have_count(0)
    scan.assert_clean()
