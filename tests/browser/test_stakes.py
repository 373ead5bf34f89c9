"""Stake tables in Chromium (SPEC §13, hooks §14, issue 32), through the page hooks: two named
players choose a stake of 100 in the quick match form, are seated at `#table[data-stake]`,
play the `match-100` match to its end, and once the results sender has delivered, the winner's
statement shows the whole pot (no reward) and the loser's only the stake; a table left
unfilled expires, its waiting page lands on the form with `data-stake-expired`, and the stake
comes back; leaving the queue gives it back at once; a game against the computer pays
nothing."""

from __future__ import annotations

import time

from playwright.sync_api import expect

from domino.players.coins import GRANT
from domino.web.live.results_sender import for_app
from tests.support.browser_computer import Player
from tests.support.browser_friends import Seat
from tests.support.browser_matches import finish
from tests.support.browser_public import SEATED_MS, named, quick_server, seated
from tests.support.browser_stakes import (
    bar_coins,
    play_match,
    quick_match_at,
    statement,
    waiting_at_stake,
)
from tests.support.browsing import take_name

STAKE = 100
GAME = "match-100"
REFRESH_MS = 15_000  # the bar asks again 2 s after the table's last change; a slow machine
# A long clock: nobody's time runs out while the pages are clicked (a timeout hands a seat
# to the computer after three, and the seat's stake would be forfeit).
LONG_CLOCK = {"MOVE_SECONDS": 120, "BANK_SECONDS": 120, "ABANDON_SECONDS": 3600}


def player_id(live, name: str) -> str:
    return live.app.extensions["lobby"].player_named(name).id


def test_the_winner_of_a_stake_match_takes_the_pot_and_the_loser_loses_the_stake(
    tmp_path, open_context, rng_deals
):
    with quick_server(tmp_path, fill=600, **LONG_CLOCK) as live:
        ana, bob = named(open_context, live.url, "Ana"), named(open_context, live.url, "Bob")
        for page in (ana, bob):
            expect(page.locator("#player-bar [data-coins]")).to_have_text(str(GRANT))
        quick_match_at(ana, GAME, STAKE)
        waiting_at_stake(ana, GAME, STAKE)
        # the stake is held at once: the waiting page's bar shows it gone
        expect(ana.locator("#player-bar [data-coins]")).to_have_text(str(GRANT - STAKE))
        quick_match_at(bob, GAME, STAKE)
        rooms = {seated(ana), seated(bob)}
        assert len(rooms) == 1, f"Ana and Bob sit at different tables: {rooms}"
        for page in (ana, bob):
            expect(page.locator(f'#table[data-public][data-stake="{STAKE}"]')).to_have_count(1)
            expect(page.locator("[data-clock]")).to_have_count(1)
        seats = [Seat("Ana", ana), Seat("Bob", bob)]

        started = time.monotonic()
        rounds = play_match(seats)
        took = time.monotonic() - started
        print(f"the match to 100 took {rounds} rounds, {took:.1f} s of clicking")
        verdicts = {
            seat.name: seat.page.locator("[data-match-result]").get_attribute("data-winner")
            for seat in seats
        }
        assert sorted(verdicts.values()) == ["opponent", "you"], (
            f"this match ends drawn or unclear: pick another seed {verdicts}"
        )
        winner, loser = sorted(seats, key=lambda seat: verdicts[seat.name] != "you")
        assert for_app(live.app).send_due() == 1  # the match's result, to the lobby

        # The winner's bar follows without a reload: the whole pot, and no reward beside it.
        pot = 2 * STAKE
        expect(winner.page.locator("#player-bar [data-coins]")).to_have_text(
            str(GRANT - STAKE + pot), timeout=REFRESH_MS
        )
        expect(loser.page.locator("#player-bar [data-coins]")).to_have_text(str(GRANT - STAKE))

        room = next(iter(rooms)).rstrip("/").rsplit("/", 1)[-1]
        won = statement(winner.page.context.new_page(), live.url)
        winner_id = player_id(live, winner.name)
        assert [(e.reason, e.amount, e.balance) for e in won] == [
            ("pot", pot, GRANT - STAKE + pot),
            ("stake", -STAKE, GRANT - STAKE),
            ("grant", GRANT, GRANT),
        ], won
        assert won[0].key == f"pot:{room}/1:{winner_id}"
        assert won[1].key.startswith("stake:") and f":{winner_id}:" in won[1].key

        lost = statement(loser.page.context.new_page(), live.url)
        assert [(e.reason, e.amount, e.balance) for e in lost] == [
            ("stake", -STAKE, GRANT - STAKE),
            ("grant", GRANT, GRANT),
        ], lost
        # one table, one escrow: both stakes went into the one the winner's pot came from
        table = won[1].key.split(":")[1]
        assert lost[0].key.startswith(f"stake:{table}:{player_id(live, loser.name)}:")
        assert bar_coins(loser.page) == str(GRANT - STAKE)
        for page in [*ana.context.pages, *bob.context.pages]:  # their sockets, before the server
            page.close()


def test_a_stake_table_left_unfilled_expires_and_gives_the_stake_back(tmp_path, open_context):
    wait = 4
    with quick_server(tmp_path, fill=600, STAKE_WAIT_SECONDS=wait) as live:
        ana = named(open_context, live.url, "Ana")
        quick_match_at(ana, GAME, STAKE)
        assert 0 < waiting_at_stake(ana, GAME, STAKE) <= wait
        expect(ana.locator("#player-bar [data-coins]")).to_have_text(str(GRANT - STAKE))
        # the waiting page asks every second; after the expiry it lands on the form, told
        notice = ana.locator(f'[data-stake-expired="{STAKE}"]')
        expect(notice).to_have_count(1, timeout=SEATED_MS)
        expect(ana).to_have_url(f"{live.url}/play/")
        expect(ana.locator("[data-queue]")).to_have_count(0)
        expect(ana.locator("form[data-quick-match]")).to_have_count(1)
        expect(ana.locator("#player-bar [data-coins]")).to_have_text(str(GRANT))

        entries = refunded(ana, live.url)
        table = entries[1].key.split(":")[1]
        assert entries[0].key == f"refund:expired:{table}:{player_id(live, 'Ana')}"


def refunded(page, base_url: str):
    """The statement of a player whose one stake came back: refund, stake, grant."""
    entries = statement(page.context.new_page(), base_url)
    assert [(e.reason, e.amount, e.balance) for e in entries] == [
        ("refund", STAKE, GRANT),
        ("stake", -STAKE, GRANT - STAKE),
        ("grant", GRANT, GRANT),
    ], entries
    return entries


def test_leaving_a_stake_queue_before_it_fills_gives_the_stake_back_at_once(tmp_path, open_context):
    with quick_server(tmp_path, fill=600) as live:  # the table would wait two minutes
        ana = named(open_context, live.url, "Ana")
        quick_match_at(ana, GAME, STAKE)
        waiting_at_stake(ana, GAME, STAKE)
        expect(ana.locator("#player-bar [data-coins]")).to_have_text(str(GRANT - STAKE))
        ana.locator('[data-action="leave-queue"]').click()
        expect(ana).to_have_url(f"{live.url}/")
        expect(ana.locator("#player-bar [data-coins]")).to_have_text(str(GRANT))

        entries = refunded(ana, live.url)
        assert entries[0].key == f"refund:{entries[1].key}:{player_id(live, 'Ana')}"
        # nothing waits any more: the waiting page is the form again, with no expiry notice
        ana.goto(f"{live.url}/play/")
        expect(ana.locator("[data-queue]")).to_have_count(0)
        expect(ana.locator("[data-stake-expired]")).to_have_count(0)


def test_a_round_against_the_computer_pays_nothing(server, open_context):
    context = open_context()
    take_name(context.new_page(), server.url, "Ana")
    player = Player(server, context)
    shown = finish(player, player.start())
    assert shown["result"] in ("you", "opponent", "draw"), shown
    # The results sender's pass: whatever the room left in its outbox reaches the lobby now
    # (a room against the computer notes no player, so it leaves none: nothing can be paid).
    for_app(server.app).send_due()
    entries = statement(player.page, server.url)
    assert [(e.reason, e.amount, e.balance) for e in entries] == [("grant", GRANT, GRANT)], entries
    assert entries[0].key == f"grant:{player_id(server, 'Ana')}"
    assert bar_coins(player.page) == str(GRANT)
