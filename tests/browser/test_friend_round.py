"""Two friends at one table, in two real browsers (docs/rules.md, playing with friends;
docs/rules.md, at the table), using only the page hooks (docs/contracts.md).

Every move is made by clicking, and every wait is on the DOM (or on a websocket frame):
after a move, both pages must show something new before the next move is looked for.
"""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.support.browser_friends import (
    DRAW_OR_PASS,
    GUEST,
    HOST,
    create_room,
    expect_both_connected,
    join_room,
    laid,
    open_seat,
    over,
    play_round,
    room_id_of,
    take_turn,
)
from tests.support.webkit import leaked_tiles, parse, round_at, tile_mentions, tiles_of


def test_two_friends_play_a_whole_round_with_a_reload(server, open_context):
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    room_id = room_id_of(invite)
    seats = [host, guest]
    reloaded = []

    def reload_guest(moves: int) -> None:
        if moves != 6 or over(seats):
            return
        before = guest.view()
        sockets = guest.live_sockets()
        guest.page.reload()
        expect(guest.page.locator("[data-hand] [data-tile]")).to_have_count(len(before["hand"]))
        guest.wait_live(more_than=sockets)
        expect_both_connected(host, guest)
        after = guest.view()
        assert after["chain"] == before["chain"], "the line changed across the reload"
        assert after["hand"] == before["hand"], "the hand changed across the reload"
        assert after["turn"] == before["turn"]
        reloaded.append(after["chain"])

    moves = play_round(seats, reload_guest)
    assert reloaded, f"the round ended before the reload: {moves}"

    state = server.services.rooms.get(room_id).round
    assert state.over
    views = [host.view(), guest.view()]
    for seat, view in enumerate(views):
        assert view["chain"] == laid(state.line), f"seat {seat} shows another line"
        assert view["opponentHand"] == [str(t) for t in state.hands[1 - seat]]
    winners = sorted(view["result"]["winner"] for view in views)
    assert winners in (["opponent", "you"], ["draw", "draw"]), winners
    assert views[0]["result"]["points"] == views[1]["result"]["points"]
    for seat, view in enumerate(views):
        if state.hands[1 - seat]:
            assert view["opponentHand"], f"seat {seat} is not shown the other hand"


def test_a_seat_never_sees_hidden_tiles_in_page_or_socket_frames(server, open_context):
    """Every page and frame the guest got is checked by the one leak rule (tests/support/webkit.py)
    against the round as it stood at that table's own seq, however late it was read."""
    host, invite = create_room(open_context(), server.url)
    room_id = room_id_of(invite)
    captured: list[tuple[str, str]] = []
    guest = join_room(
        open_context(), invite, on_frame=lambda text: captured.append(("frame", text))
    )
    expect_both_connected(host, guest)
    captured.append(("page", guest.page.content()))
    play_round([host, guest], lambda _moves: captured.append(("page", guest.page.content())))

    events = server.services.rooms.store.load(room_id)
    checked = {"frame": 0, "page": 0}
    for kind, text in captured:
        state = round_at(events, room_id, "friend", text)
        if state is None:
            continue  # no table in it (e.g. a presence notice)
        leaked = leaked_tiles(text, state, GUEST)
        assert not leaked, f"the guest's {kind} shows hidden tiles {sorted(leaked)}:\n{text}"
        checked[kind] += not state.over
    # (how many depends on the length of the seeded round, dealt when the guest joins)
    assert checked["frame"] > 5, f"only {checked} captures were made while the round was on"
    assert checked["page"] > 10, f"only {checked} captures were made while the round was on"

    # The same reading does find the host's tiles once they may be shown.
    state = server.services.rooms.get(room_id).round
    assert state.over
    shown = {tile for tile, _node in tile_mentions(parse(guest.page.content()))}
    assert tiles_of(state, HOST) <= shown, "the host's hand is not shown at the end"


def test_a_second_tab_takes_over(server, open_context):
    host_context = open_context()
    host, invite = create_room(host_context, server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)

    second = open_seat("A (second tab)", host_context, invite)
    expect(second.page.locator("[data-hand] [data-tile]")).to_have_count(7)
    second.wait_live()

    first = host.page
    expect(first.locator("[data-superseded]")).to_be_visible()
    expect(first.locator("[data-playable]")).to_have_count(0)
    expect(first.locator(DRAW_OR_PASS)).to_have_count(0)
    expect_both_connected(second, guest)

    # The server refuses the first tab's actions too.
    status = first.evaluate(
        """async (url) => {
          const headers = JSON.parse(document.body.getAttribute('hx-headers') || '{}');
          const response = await fetch(url, {method: 'POST', headers,
                                             body: new URLSearchParams({seq: '0'})});
          return response.status;
        }""",
        invite.rstrip("/") + "/draw",
    )
    assert status == 409, f"the superseded tab's draw was answered {status}"

    # The second tab plays on: moves until it has made one, both pages following.
    seats = [second, guest]
    moves = []
    while not any(move.startswith(second.name) for move in moves):
        assert len(moves) < 4, moves
        moves.append(take_turn(seats))
    expect(first.locator("[data-superseded]")).to_be_visible()
    expect(first.locator("[data-tile]")).to_have_count(0)
    assert json.loads(second.signature())[0], "the second tab's line is empty after a play"
