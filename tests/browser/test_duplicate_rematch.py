"""The duplicate rematch in a real browser (issue 16), against the computer, by the hooks only.

Make the room with the tile counter ticked on the rules card, play a round (the counter on
the page is the server's count), press "Rematch with hands swapped" (the computer agrees at
once), check that each seat now holds the hand the other seat was dealt (the room's
record.jsonl, and the page's own hand), play the rematch, and check the result: both rounds
side by side and the duplicate score, net points of the first round plus those of the second.
"""

from __future__ import annotations

from playwright.sync_api import expect

from domino.views import seat_view
from tests.support.browser_computer import Player
from tests.support.browser_matches import play_duplicate

SCORE = "[data-duplicate] [data-duplicate-score]"
COUNTS_JS = """() => [...document.querySelectorAll('[data-counter] [data-counter-number]')]
  .map((cell) => Number(cell.textContent))"""


def net(record: dict, seat: int) -> int:
    """What `seat` won or lost in a two-seat round of the default game."""
    result = record["result"]
    if result["winner"] is None:
        return 0
    return result["points"] if result["winner"] == seat else -result["points"]


def counted(player: Player) -> None:
    """The page's tile counter shows the server's count for seat 0."""
    expect(player.page.locator("[data-counter]")).to_be_visible()
    counter = seat_view(player.stored.round, 0, counter=True).counter
    assert player.page.evaluate(COUNTS_JS) == list(counter.unseen)
    lacks = player.page.locator('[data-lacks-seat="1"]').get_attribute("data-lacks")
    assert lacks == ",".join(map(str, counter.lacking(1)))


def test_a_rematch_with_hands_swapped_and_its_duplicate_score(server, open_context):
    player = Player(server, open_context())
    page = player.page
    first, second = play_duplicate(player, counted)
    counted(player)  # the round is over: still the same count
    dealt = first["deal"]["hands"]
    assert second["deal"]["hands"] == [dealt[1], dealt[0]], "the hands are not swapped"
    assert second["deal"]["boneyard"] == first["deal"]["boneyard"]

    part = page.locator("[data-duplicate]")
    expect(part).to_have_count(1)
    expect(part.locator("[data-duplicate-round]")).to_have_count(2)
    nets = [net(first, 0), net(second, 0)]
    for number, value in zip(("1", "2"), nets, strict=True):
        shown_net = part.locator(f'[data-duplicate-round="{number}"]')
        assert int(shown_net.get_attribute("data-duplicate-net")) == value
    written = page.locator(SCORE).get_attribute("data-duplicate-score")
    assert int(written) == sum(nets), (written, nets)
    assert written == (f"+{sum(nets)}" if sum(nets) > 0 else str(sum(nets)))
    expect(page.locator(SCORE)).to_have_text(written)
    # a rematch is not offered again for the rematch itself
    expect(page.locator('[data-action="rematch"]')).to_have_count(0)
