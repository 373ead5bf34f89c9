"""A public table's clock in Chromium (SPEC §12, hooks §14), through the page hooks: a player
who lets the clock run out hears the warning and sees the computer move for them, the move
marked `data-timeout`; a player who leaves loses the match, and the League and the ratings
count it; the axe scan covers a public table with its clock."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from domino.lobby.ratings import NEW
from domino.web.live.results_sender import for_app
from tests.support.browser_public import named, quick_match, quick_server, seat_of, seated
from tests.support.browser_tables import click_a_move

TURN_MS = 30_000  # the computer's first move, or a timeout, on a slow shared machine


def test_a_public_table_with_its_clock_passes_the_axe_scan(tmp_path, open_context, scan):
    """Scanned at the person's turn on a long clock: nothing moves or fades mid-scan."""
    with quick_server(tmp_path, fill=1, MOVE_SECONDS=600, BANK_SECONDS=60) as live:
        ana = named(open_context, live.url, "Ana")
        quick_match(ana, "classic")
        seated(ana)
        clock = ana.locator(f'[data-clock][data-seat="{seat_of(ana)}"]')
        expect(clock).to_have_count(1, timeout=TURN_MS)  # her move (after the computer's?)
        assert clock.get_attribute("data-bank-left") == "60"
        expect(clock).to_contain_text("Your time")
        scan(ana, "public-table-clock")
        scan.assert_clean()


def test_a_player_who_lets_the_clock_run_out_sees_the_computer_move_for_them(
    tmp_path, open_context
):
    with quick_server(tmp_path, fill=1, MOVE_SECONDS=7, BANK_SECONDS=0) as live:
        ana = named(open_context, live.url, "Ana")
        quick_match(ana, "classic")
        seated(ana)
        mine = seat_of(ana)
        clock = ana.locator(f'[data-clock][data-seat="{mine}"]')
        expect(clock).to_have_count(1, timeout=TURN_MS)  # her move (after the computer's?)
        assert 0 < int(clock.get_attribute("data-move-left")) <= 7
        assert clock.get_attribute("data-bank-left") == "0"
        # 5 s before the computer moves for her, screen readers are told
        expect(ana.locator("#announce")).to_contain_text("5 seconds left", timeout=TURN_MS)
        timed = ana.locator(f'[data-move-list] [data-move][data-timeout][data-seat="{mine}"]')
        expect(timed).not_to_have_count(0, timeout=TURN_MS)
        expect(timed.first).to_contain_text("time ran out")


def test_a_player_who_leaves_loses_the_match_and_the_league_counts_it(tmp_path, open_context):
    rng = random.Random(3)
    with quick_server(tmp_path, fill=600, ABANDON_SECONDS=2) as live:
        ana = named(open_context, live.url, "Ana")
        bob = named(open_context, live.url, "Bob")
        quick_match(ana, "classic")
        quick_match(bob, "classic")
        seated(ana)
        seated(bob)
        expect(ana.locator('[data-opponent-connected="true"]')).to_have_count(1, timeout=TURN_MS)
        bob.close()  # Bob leaves the table, and does not come back
        presence = ana.locator(".opponent .presence")
        expect(presence).to_contain_text("Bob left the match", timeout=TURN_MS)
        while not ana.locator("[data-result]").count():  # Ana plays the round to its end
            if ana.locator('[data-turn="you"]').count():
                click_a_move(ana, rng)
            else:
                ana.wait_for_timeout(100)
        lobby = live.app.extensions["lobby"]
        expect(ana.locator("[data-result]")).to_have_count(1)
        assert for_app(live.app).send_due() == 1  # the outbox's result, to the lobby
        ana.goto(live.url + "/league")
        rows = ana.locator('[data-league="this-week"] [data-league-row]')
        expect(rows).to_have_count(2, timeout=TURN_MS)  # the result reached the lobby
        seen = [(r.get_attribute("data-name"), r.get_attribute("data-points")) for r in rows.all()]
        assert seen == [("Ana", "3"), ("Bob", "0")], seen  # Bob is last, whatever the score
        me = ana.locator('[data-league="this-week"] [data-me]')
        expect(me).to_have_attribute("data-name", "Ana")
        ana.goto(live.url + "/p/Ana")
        won, lost = (lobby.rating(lobby.player_named(n).id, "duel") for n in ("Ana", "Bob"))
        assert won.matches == lost.matches == 1 and won.mu > NEW.mu > lost.mu  # they moved
        duel = ana.locator('[data-rating="duel"]')
        expect(duel).to_contain_text(str(won.shown))
        expect(duel).to_have_attribute("data-provisional", "")
