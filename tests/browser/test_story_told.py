"""The table tells the story (issue 14), in two real browsers at a friend's table.

The other player's draws, passes and plays show on my table as a brief note and in the
move list (`data-move-list`, one `data-move` per public move), the newest tile carries
`data-last` only after a play, and a little feel: a tile sound that is off until turned on
and remembered, and a flourish when the round ends, both gone when less motion is asked for.

The live server deals with seed 3: clicking the first playable tile at its first end, that
round has draws and passes by both seats (checked at the end, so the test means something).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from domino.game import laid_at
from tests.support.browser_friends import (
    Seat,
    create_room,
    expect_both_connected,
    join_room,
    take_turn,
)
from tests.support.browsing import TIMEOUT_MS
from tests.support.live import live_server

STORY_SEED = 3
MAX_MOVES = 120
# Counts what the page asks of Web Audio: contexts made and sounds (one oscillator each).
AUDIO_SPY_JS = """
window.__audio = {contexts: 0, sounds: 0};
(() => {
  const Real = window.AudioContext;
  if (!Real) return;
  window.AudioContext = class extends Real {
    constructor(...args) { super(...args); window.__audio.contexts += 1; }
  };
  const make = BaseAudioContext.prototype.createOscillator;
  BaseAudioContext.prototype.createOscillator = function (...args) {
    window.__audio.sounds += 1;
    return make.apply(this, args);
  };
})();
"""
SOUND_ON_JS = "localStorage.setItem('domino.sound', 'on');"
STORY_JS = """() => ({
  moves: [...document.querySelectorAll('[data-move-list] [data-move]')].map((el) => [
    el.getAttribute('data-seat'), el.getAttribute('data-action'), el.getAttribute('data-tile'),
    el.textContent.trim()]),
  last: [...document.querySelectorAll('[data-chain] [data-last]')].map((el) => [
    [...el.parentElement.children].indexOf(el), el.getAttribute('data-tile')]),
  notes: [...document.querySelectorAll('[data-recent]')].map((el) => [
    el.getAttribute('data-recent'), el.textContent.trim(), getComputedStyle(el).animationName,
    el.closest('[aria-hidden="true"]') !== null]),
  open: document.querySelector('details.move-log').open,
})"""
MOVES = "[data-move-list] [data-move]"
AUDIO_JS = "() => window.__audio"


@pytest.fixture
def story_server(tmp_path, rng_deals):
    """The app on a live server that deals with `STORY_SEED`."""
    with live_server(tmp_path / "domino.sqlite3", seed=STORY_SEED) as live:
        yield live


def seat_up(server, open_context, init: str = "", calm: bool = False) -> tuple[Seat, Seat, str]:
    """Host and guest at a new friend table (each context runs `init` first on every page)."""
    contexts = [open_context(), open_context()]
    for context in contexts:
        if init:
            context.add_init_script(init)
    host, invite = create_room(contexts[0], server.url, fill=calm_page if calm else None)
    guest = join_room(contexts[1], invite)
    if calm:
        calm_page(guest.page)
    expect_both_connected(host, guest)
    return host, guest, invite.rstrip("/").rsplit("/", 1)[-1]


def calm_page(page: Page) -> None:
    page.emulate_media(reduced_motion="reduce")


def expected_moves(history) -> list[list]:
    """What the move list must hold for `history`: seat, action, tile as laid."""
    found = []
    for move in history:
        tile = None
        if move.action == "play":
            if move.left is None:
                tile = f"{move.tile.low}-{move.tile.high}"
            else:
                tile = str(laid_at(move.tile, move.end, (move.left, move.right)))
        found.append([str(move.seat), move.action, tile])
    return found


def their_turn(history, seat: int) -> list:
    """The moves made since `seat`'s own last move."""
    moves = []
    for move in reversed(history):
        if move.seat == seat:
            break
        moves.insert(0, move)
    return moves


def play_out(server, room_id: str, seats: list[Seat]):
    """Take turns until the round ends, yielding the round as the server holds it after each."""
    room = server.services.rooms
    for _move in range(MAX_MOVES):
        if room.get(room_id).round.turn is None:
            return
        take_turn(seats)
        yield room.get(room_id).round
    raise AssertionError("the round does not end")


def check_table(seat: Seat, number: int, state) -> None:
    """Seat `number`'s page tells the round as the server holds it."""
    history = state.history
    expect(seat.page.locator(MOVES)).to_have_count(len(history))
    shown = seat.page.evaluate(STORY_JS)
    assert [move[:3] for move in shown["moves"]] == expected_moves(history), seat.name
    for (who, _action, _tile, text), move in zip(shown["moves"], history, strict=True):
        assert text.startswith("You " if move.seat == number else "Your friend "), text
        assert int(who) == move.seat
    last = history[-1]
    if last.action == "play":
        at = 0 if last.end == "left" else len(state.line) - 1
        assert shown["last"] == [[at, str(state.line[at])]], (seat.name, shown["last"])
    else:
        assert shown["last"] == [], f"{seat.name}: data-last after a {last.action}"
    theirs = their_turn(history, number)
    if not theirs:
        assert shown["notes"] == [], f"{seat.name} moved last, yet: {shown['notes']}"
        return
    ((other, text, animation, hidden),) = shown["notes"]
    assert int(other) == theirs[-1].seat and hidden, shown["notes"]
    assert animation == "recent-fade"
    drew = sum(1 for move in theirs if move.action == "draw")
    if drew:
        assert re.match(rf"Your friend drew {drew} tiles?\b", text), text
    if theirs[-1].action == "pass":
        assert text.endswith("passed."), text
    elif theirs[-1].action == "play":
        assert re.search(r"(opened with|laid) .+\.$", text), text
    expect(seat.page.locator(f'[data-recent="{other}"]')).to_be_visible()


def test_the_other_players_turn_is_told_on_my_table(story_server, open_context):
    host, guest, room_id = seat_up(story_server, open_context)
    seats = [host, guest]
    for number, seat in enumerate(seats):  # before any move: the hook, empty, and folded
        expect(seat.page.locator("[data-move-list]")).to_have_count(1)
        check_empty = seat.page.evaluate(STORY_JS)
        assert check_empty["moves"] == [] and check_empty["open"] is False, number
    for state in play_out(story_server, room_id, seats):
        for number, seat in enumerate(seats):
            check_table(seat, number, state)
    history = story_server.services.rooms.get(room_id).round.history
    for number in (0, 1):
        done = {move.action for move in history if move.seat == number}
        assert done == {"play", "draw", "pass"}, f"seed {STORY_SEED}: seat {number} did {done}"
    # The round ended here: the result had its flourish on both pages, once.
    for seat in seats:
        result = seat.page.locator("[data-result]")
        expect(result).to_have_class(re.compile(r"\bflourish\b"))
        assert result.evaluate("(el) => getComputedStyle(el).animationName") == "flourish"
    guest.page.close()  # the host's table comes again (the friend is away): no new flourish
    expect(host.page.locator('[data-opponent-connected="false"]')).to_have_count(1)
    expect(host.page.locator("[data-result]")).not_to_have_class(re.compile(r"\bflourish\b"))


def test_the_move_list_stays_open_and_leaves_focus_alone(story_server, open_context):
    host, guest, room_id = seat_up(story_server, open_context)
    seats = [host, guest]
    summary = host.page.locator("#moves-summary")
    summary.click()
    expect(host.page.locator("details.move-log")).to_have_attribute("open", "")
    room = story_server.services.rooms
    for _move in range(12):
        turn = room.get(room_id).round.turn
        if turn == 1:  # the guest moves: the host's table is replaced under its focus
            summary.focus()
        take_turn(seats)
        expect(host.page.locator(MOVES)).to_have_count(len(room.get(room_id).round.history))
        expect(host.page.locator("details.move-log")).to_have_attribute("open", "")
        if turn == 1:
            expect(summary).to_be_focused()
    # the newest move is in sight in the list
    at_end = """() => { const list = document.querySelector('[data-move-list]');
      return list.scrollTop + list.clientHeight >= list.scrollHeight - 4; }"""
    assert host.page.evaluate(at_end)
    sockets = host.live_sockets()
    host.page.reload()
    expect(host.page.locator("[data-hand] [data-tile]").first).to_be_visible()
    expect(host.page.locator("details.move-log")).to_have_attribute("open", "")
    host.page.locator("#moves-summary").click()  # folded again: stays folded
    expect(host.page.locator("details.move-log")).not_to_have_attribute("open", "")
    host.wait_live(more_than=sockets)
    take_turn(seats)
    expect(host.page.locator(MOVES)).to_have_count(len(room.get(room_id).round.history))
    expect(host.page.locator("details.move-log")).not_to_have_attribute("open", "")
    # the guest's own list was never opened
    expect(guest.page.locator("details.move-log")).not_to_have_attribute("open", "")


def test_the_tile_sound_is_off_until_turned_on_and_is_remembered(story_server, open_context):
    host, guest, room_id = seat_up(story_server, open_context, init=AUDIO_SPY_JS)
    seats = [host, guest]
    toggle = host.page.locator("[data-sound]")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    room = story_server.services.rooms
    for _move in range(3):
        take_turn(seats)
    assert host.page.evaluate(AUDIO_JS) == {"contexts": 0, "sounds": 0}
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert host.page.evaluate("localStorage.getItem('domino.sound')") == "on"
    sample = host.page.evaluate(AUDIO_JS)
    assert sample["contexts"] == 1 and sample["sounds"] == 1, sample  # a sample when turned on
    kinds = set()
    for _move in range(30):
        before = host.page.evaluate(AUDIO_JS)["sounds"]
        take_turn(seats)  # a choice of end shows the same line again first: no sound for it
        history = room.get(room_id).round.history
        kinds.add(history[-1].action)
        laid = 1 if history[-1].action == "play" else 0
        assert host.page.evaluate(AUDIO_JS)["sounds"] == before + laid, history[-1]
        if kinds == {"play", "draw"} and laid:
            break
    assert kinds == {"play", "draw"}, kinds
    assert guest.page.evaluate(AUDIO_JS) == {"contexts": 0, "sounds": 0}  # its own choice: off
    # remembered after a reload; turned off, it is quiet again
    sockets = host.live_sockets()
    host.page.reload()
    expect(host.page.locator("[data-sound]")).to_have_attribute("aria-pressed", "true")
    host.wait_live(more_than=sockets)
    host.page.locator("[data-sound]").click()
    expect(host.page.locator("[data-sound]")).to_have_attribute("aria-pressed", "false")
    assert host.page.evaluate("localStorage.getItem('domino.sound')") == "off"
    while room.get(room_id).round.history[-1].action != "play" or not their_turn(
        room.get(room_id).round.history, 0
    ):
        take_turn(seats)  # until the guest has laid a tile on the host's table
    assert host.page.evaluate(AUDIO_JS)["sounds"] == 0


def test_nothing_sounds_or_moves_when_less_motion_is_asked_for(story_server, open_context):
    host, guest, room_id = seat_up(
        story_server, open_context, init=AUDIO_SPY_JS + SOUND_ON_JS, calm=True
    )
    seats = [host, guest]
    for seat in seats:
        expect(seat.page.locator("[data-sound]")).to_be_hidden()
    for _state in play_out(story_server, room_id, seats):
        for seat in seats:
            notes = seat.page.evaluate(STORY_JS)["notes"]
            assert all(animation == "none" for _s, _t, animation, _h in notes), notes
    for seat in seats:
        result = seat.page.locator("[data-result]")
        expect(result).to_be_visible(timeout=TIMEOUT_MS)
        assert "flourish" not in (result.get_attribute("class") or "")
        assert result.evaluate("(el) => getComputedStyle(el).animationName") == "none"
        assert seat.page.evaluate("document.getAnimations().length") == 0
        assert seat.page.evaluate(AUDIO_JS) == {"contexts": 0, "sounds": 0}, seat.name
