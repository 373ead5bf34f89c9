"""Quick match in Chromium (SPEC §12, hooks §14), through the page hooks only: named players
press "Play" for a public game on the home page, wait on the queue page, and land on the same
room's page, each at their own seat, the others called by their names; one player alone is
seated against the computer once the fill time is past, the seat marked `data-computer`; four
players quick match `pairs`. The background waves run as the server runs them. The axe scan
covers the waiting page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser_public import (
    SEATED_MS,
    named,
    quick_match,
    quick_server,
    seat_of,
    seated,
    waiting,
)


@pytest.fixture
def patient(tmp_path):
    """Nobody is filled by the computer while the test's players join."""
    with quick_server(tmp_path, fill=600) as live:
        yield live


@pytest.fixture
def hasty(tmp_path):
    """A player alone is filled by the computer after two seconds."""
    with quick_server(tmp_path, fill=2) as live:
        yield live


def test_two_players_are_seated_together(patient, open_context, scan):
    ana = named(open_context, patient.url, "Ana")
    bob = named(open_context, patient.url, "Bob")
    quick_match(ana, "classic")
    waiting(ana, "classic")
    waited = ana.locator("[data-queue]")
    expect(waited).not_to_have_attribute("data-waited", "0", timeout=SEATED_MS)
    expect(waited).to_contain_text("Waited")
    scan(ana, "quick-match-waiting")
    quick_match(bob, "classic")
    room = seated(ana)
    assert seated(bob) == room
    assert {seat_of(ana), seat_of(bob)} == {"0", "1"}
    expect(ana.locator(".opponent .who")).to_have_text("Bob")
    expect(bob.locator(".opponent .who")).to_have_text("Ana")
    expect(ana.locator("[data-computer]")).to_have_count(0)
    expect(ana.locator('[data-opponent-connected="true"]')).to_have_count(1, timeout=SEATED_MS)
    scan.assert_clean()


def test_one_alone_is_seated_against_the_computer_after_the_fill_time(hasty, open_context):
    ana = named(open_context, hasty.url, "Ana")
    quick_match(ana, "classic")
    seated(ana)
    opponent = ana.locator(".opponent[data-computer]")
    expect(opponent).to_have_count(1)
    expect(opponent.locator(".who")).to_have_text("The computer")
    expect(ana.locator("[data-level]")).to_have_count(0)


def test_four_players_quick_match_pairs(patient, open_context):
    names = ("Ana", "Bob", "Cleo", "Dan")
    pages = [named(open_context, patient.url, name) for name in names]
    for page in pages:
        quick_match(page, "pairs")
    rooms = {seated(page) for page in pages}
    assert len(rooms) == 1
    assert sorted(seat_of(page) for page in pages) == ["0", "1", "2", "3"]
    for page, name in zip(pages, names, strict=True):
        expect(page.locator("[data-seat][data-count]")).to_have_count(3)
        expect(page.locator("[data-computer]")).to_have_count(0)
        others = page.locator(".company")
        for other in names:
            if other != name:
                expect(others).to_contain_text(other)
