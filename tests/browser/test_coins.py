"""Coins in Chromium (SPEC §13, hooks §14, issue 32), through the page hooks: two named players
play a friend room's round (a room without a target: the round is the match) to its end; the
result goes to the lobby through the results sender, and the winner's bar shows the new
balance without a reload (`data-coins`), and their statement `/me/coins` the reward, half the
first place, as its newest `data-ledger-entry`. The loser is paid nothing. The axe scan covers
the statement."""

from __future__ import annotations

from playwright.sync_api import expect

from domino.players.coins import GRANT, PLACES
from domino.web.live.results_sender import for_app
from tests.support.browser_friends import (
    create_room,
    expect_both_connected,
    join_room,
    over,
    play_round,
    room_id_of,
)
from tests.support.browsing import take_name

HALF = PLACES[2][0] // 2  # a friend room of two: the winner gets half the first place
REFRESH_MS = 15_000  # the bar asks again 2 s after the table's last change; a slow machine


def test_the_winner_of_a_friend_match_sees_half_the_first_place_in_the_bar_and_statement(
    server, open_context, rng_deals, scan
):
    hosts, guests = open_context(), open_context()
    take_name(hosts.new_page(), server.url, "Ana")
    take_name(guests.new_page(), server.url, "Bob")
    host, link = create_room(hosts, server.url)
    guest = join_room(guests, link)
    expect_both_connected(host, guest)
    for seat in (host, guest):
        expect(seat.page.locator("[data-coins]")).to_have_text(str(GRANT))

    play_round([host, guest])
    assert over([host, guest])
    verdicts = {seat.name: seat.view()["result"]["winner"] for seat in (host, guest)}
    assert "draw" not in verdicts.values(), f"this deal ends drawn: pick another seed {verdicts}"
    winner, loser = (host, guest) if verdicts[host.name] == "you" else (guest, host)
    # The match's result leaves the room's outbox for the lobby (the sender's loop is off here).
    assert for_app(server.app).send_due() == 1

    # The winner's bar follows without a reload; the loser's stays as it was.
    expect(winner.page.locator("#player-bar [data-coins]")).to_have_text(
        str(GRANT + HALF), timeout=REFRESH_MS
    )
    expect(loser.page.locator("#player-bar [data-coins]")).to_have_text(str(GRANT))

    lobby = server.app.extensions["lobby"]
    winner_id = lobby.player_named("Ana" if winner is host else "Bob").id
    statement = winner.page.context.new_page()
    statement.goto(f"{server.url}/me/coins")
    rows = statement.locator("[data-ledger-entry]")
    expect(rows).to_have_count(2)
    newest = rows.first
    expect(newest).to_have_attribute("data-reason", "reward")
    expect(newest).to_have_attribute("data-amount", str(HALF))
    expect(newest).to_have_attribute("data-balance", str(GRANT + HALF))
    expect(newest).to_have_attribute("data-key", f"reward:{room_id_of(link)}/1:{winner_id}")
    expect(newest).to_contain_text("Reward for a match")
    expect(rows.last).to_have_attribute("data-reason", "grant")
    expect(statement.locator("#player-bar [data-coins]")).to_have_text(str(GRANT + HALF))
    scan(statement, "coins-statement")

    other = loser.page.context.new_page()
    other.goto(f"{server.url}/me/coins")
    expect(other.locator("[data-ledger-entry]")).to_have_count(1)  # the grant alone
    scan.assert_clean()


def test_the_statement_is_refused_to_a_browser_without_a_name(server, open_context):
    page = open_context().new_page()
    answer = page.goto(f"{server.url}/me/coins")
    assert answer is not None and answer.status == 403
    expect(page.locator("[data-ledger-entry]")).to_have_count(0)
    expect(page.locator("[data-coins]")).to_have_count(0)
