"""Against the computer in a real browser (docs/rules.md, the computer; docs/rules.md, at the
table), by the page hooks (docs/contracts.md) only.

The live server runs with BOT_DELAY_MS 0, so the computer's reply is pushed over the page's
websocket right after each move. Every wait is on the page: an init script counts the
answers htmx has finished handling (`window.__answered`, bumped on `loadend`, which comes
after htmx's own `onload` swap), and the table's `data-seq` tells which table is shown.
After each action the page must end up showing the server's newest table.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.browser_computer import (
    ACTIONS,
    DRAW_OR_PASS,
    MAX_MOVES,
    PLAYABLE,
    PLAYER,
    SEQ_JS,
    Player,
)
from tests.support.browsing import SEED, TIMEOUT_MS
from tests.support.live import live_server
from tests.support.webkit import TABLE_SEQ, leaked_tiles, round_at

SWITCH_AFTER = 3  # the player's move after which the level is switched


@pytest.fixture
def counted(tmp_path, decider):
    """The real app on 127.0.0.1 (as `server`), its computer asking `decider`, which keeps the
    level of each decision (`decider.levels`)."""
    with live_server(tmp_path / "domino.sqlite3", seed=SEED, BOT_DECIDE=decider) as live:
        yield live


def test_a_whole_round_against_the_computer_with_a_level_switch(counted, decider, open_context):
    server = counted
    player = Player(server, open_context())
    page = player.page
    shown = player.start()
    expect(page.locator('[data-opponent-connected="true"]')).to_have_count(1)
    expect(page.locator("[data-invite]")).to_have_count(0)
    expect(page.locator("[data-level]")).to_have_value("medium")

    moves: list[str] = []
    switched_at: int | None = None
    while shown["result"] is None:
        assert len(moves) < MAX_MOVES, f"the round does not end: {moves[-10:]}"
        moves.append(player.take_turn(shown))
        shown = player.wait_current(moves[-1])
        if switched_at is not None:
            # every table since the switch, answered or pushed, keeps the level chosen
            expect(page.locator("[data-level]")).to_have_value("hard")
        if len(moves) == SWITCH_AFTER and shown["result"] is None:
            before = shown
            page.select_option("[data-level]", "hard")
            player.wait_answered(before["answered"], "switching the level")
            shown = player.wait_current("switching the level")
            expect(page.locator("[data-level]")).to_have_value("hard")
            assert shown["seq"] == before["seq"] + 1
            assert shown["chain"] == before["chain"], "the switch changed the line"
            assert shown["hand"] == before["hand"], "the switch changed the hand"
            assert shown["opponentCount"] == before["opponentCount"]
            assert shown["playable"] == before["playable"]
            assert player.stored.level == "hard"
            switched_at = len(decider.asked)

    assert switched_at is not None, f"the round ended before the level switch: {moves}"
    decisions = decider.levels
    since = decisions[switched_at:]
    assert since, "the computer did not move after the switch"
    assert set(since) == {"hard"}, f"decisions after the switch: {since}"
    assert set(decisions[:switched_at]) == {"medium"}

    state = player.stored.round
    assert state.over
    assert shown["chain"] == [str(laid) for laid in state.line]
    assert shown["hand"] == [str(t) for t in state.hands[0]]
    expect(page.locator("[data-result]")).to_have_count(1)
    expect(page.locator("[data-opponent-hand] [data-tile]")).to_have_count(len(state.hands[1]))
    expect(page.locator("[data-level]")).to_have_value("hard")

    # Every frame, by the one leak rule, against the round at that table's own seq.
    events, checked = player.server.services.rooms.store.load(player.room), 0
    for text in player.frames:
        at = round_at(events, player.room, "computer", text)
        if at is not None:
            leaked = leaked_tiles(text, at, PLAYER)
            assert not leaked, f"a frame showed hidden tiles {sorted(leaked)}"
            checked += not at.over
    assert checked >= 3, f"only {checked} frames arrived while the round was on"


def test_a_late_answer_does_not_hide_the_computers_reply(server, open_context):
    """The answer to a move may reach the page after the computer's reply was pushed.

    The page must keep the newest table (the player's turn again), not fall back to the
    older one the answer carries ("the computer is thinking…", nothing to click). Here the
    answer to each move is held back until the pushed reply is on the page.
    """
    player = Player(server, open_context())
    page = player.page
    shown = player.start()
    held = []

    def hold(route) -> None:
        held.append((route, route.fetch()))  # the server has made the move; the page waits

    page.route(ACTIONS, hold)
    for _ in range(MAX_MOVES):
        assert shown["result"] is None, "the round ended without a reply to a held answer"
        count = len(held)
        if shown["playable"]:
            tile = page.locator(PLAYABLE).first
            what = f"playing {tile.get_attribute('data-tile')}"
            tile.click()
        else:
            button = page.locator(DRAW_OR_PASS).first
            what = f"clicking {button.get_attribute('data-action')}"
            button.click()
        ends = page.locator("[data-end]")
        for _poll in range(TIMEOUT_MS // 25):  # Playwright delivers the route event meanwhile
            if len(held) > count:
                break
            if ends.count():  # the tile fits both ends: choose one
                ends.first.click()
            page.wait_for_timeout(25)
        assert len(held) == count + 1, f"the page sent no request for {what}"
        assert server.services.computer.wait_idle(TIMEOUT_MS / 1000)
        room = player.stored
        route, answer = held[-1]
        answer_seq = int(TABLE_SEQ.search(answer.text())[1])
        replied = room.seq > answer_seq
        if replied:  # the computer's reply reaches the page before the answer to the move
            page.wait_for_function(f"(seq) => {SEQ_JS} === seq", arg=room.seq, timeout=TIMEOUT_MS)
        answered = player.view()["answered"]
        route.fulfill(response=answer)
        player.wait_answered(answered, what)
        late = ", answered after the computer's reply" if replied else ""
        shown = player.wait_current(what + late)
        if replied:
            return  # one late answer is enough
    raise AssertionError("the computer never replied to a move")
