"""The duplicate rematch in a real browser (issue 16), against the computer, by the hooks only.

Make the room with the tile counter ticked on the rules card, play a round (the counter on
the page is the server's count), press "Rematch with hands swapped" (the computer agrees at
once), check that each seat now holds the hand the other seat was dealt (the room's
record.jsonl, and the page's own hand), play the rematch, and check the result: both rounds
side by side and the duplicate score, net points of the first round plus those of the second.
"""

from __future__ import annotations

import json

from playwright.sync_api import expect

from domino.views import seat_view
from tests.browser.test_computer_round import MAX_MOVES, Player

SCORE = "[data-duplicate] [data-duplicate-score]"
COUNTS_JS = """() => [...document.querySelectorAll('[data-counter] [data-counter-number]')]
  .map((cell) => Number(cell.textContent))"""


def tick_counter(page) -> None:
    """Open the rules card and tick the tile counter's box."""
    page.locator("[data-rules-form] details > summary").click()
    page.locator('[data-rules-form] input[name="counter"]').check()


def records(player: Player) -> list[dict]:
    """The room's finished rounds, as the page's own link downloads them."""
    url = player.page.locator("#table").get_attribute("data-record-url")
    answer = player.page.request.get(player.server.url.rstrip("/") + url)
    assert answer.ok, answer.status
    return [json.loads(line) for line in answer.text().splitlines() if line.strip()]


def net(record: dict, seat: int) -> int:
    """What `seat` won or lost in a two-seat round of the default game."""
    result = record["result"]
    if result["winner"] is None:
        return 0
    return result["points"] if result["winner"] == seat else -result["points"]


def finish(player: Player, shown: dict, midway=None) -> dict:
    """Play the round on the page to its end, calling `midway(player)` before every move."""
    moves: list[str] = []
    while shown["result"] is None:
        assert len(moves) < MAX_MOVES, f"the round does not end: {moves[-10:]}"
        if midway is not None:
            midway(player)
        moves.append(player.take_turn(shown))
        shown = player.wait_current(moves[-1])
    return shown


def counted(player: Player) -> None:
    """The page's tile counter shows the server's count for seat 0."""
    expect(player.page.locator("[data-counter]")).to_be_visible()
    counter = seat_view(player.stored.round, 0, counter=True).counter
    assert player.page.evaluate(COUNTS_JS) == list(counter.unseen)
    lacks = player.page.locator('[data-lacks-seat="1"]').get_attribute("data-lacks")
    assert lacks == ",".join(map(str, counter.lacking(1)))


def play_duplicate(player: Player, midway=None) -> tuple[dict, dict]:
    """With the tile counter on, play a round and its rematch to the end, calling
    `midway(player)` before each of the player's moves; the two rounds' records."""
    shown = player.start(tick_counter)
    finish(player, shown, midway)
    expect(player.page.locator("[data-duplicate]")).to_have_count(0)  # one round is no duplicate
    [first] = records(player)
    player.page.locator('[data-action="rematch"]').click()
    expect(player.page.locator("[data-result]")).to_have_count(0)
    shown = player.wait_current("asking for the rematch")
    # seat 0 has laid nothing yet (the computer may have opened): its whole new hand shows
    dealt = first["deal"]["hands"]
    assert sorted(shown["hand"]) == sorted(dealt[1]), (shown["hand"], dealt)
    expect(player.page.locator('[data-action="rematch"]')).to_have_count(0)
    finish(player, shown, midway)
    first_again, second = records(player)
    assert first_again == first
    return first, second


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
