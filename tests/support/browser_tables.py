"""Tables of two to four in browsers, through the page hooks alone: open a friend table under a
preset, sit at it, read what each page shows, wait until every page agrees, click a move; and
the set-up that plays a round to its end on the server."""

from __future__ import annotations

import random

from playwright.sync_api import Page, expect

from domino import game
from domino.events import DRAW, Play
from tests.support.browsing import TIMEOUT_MS

MAX_MOVES = 160


PLAYABLE = "[data-hand] [data-tile][data-playable]"


LIVE = "[data-name-form][data-live]"  # the table came over the page's own socket: it acts


DRAW_OR_PASS = '[data-action="draw"]:enabled, [data-action="pass"]:enabled'


# What a page shows of the table, through the hooks only.
TABLE_JS = """() => {
  const table = document.querySelector('[data-seq]');
  const turn = document.querySelector('[data-turn]');
  const result = document.querySelector('[data-result]');
  return {
    seq: table ? Number(table.getAttribute('data-seq')) : null,
    turn: turn ? turn.getAttribute('data-turn') : null,
    turnSeat: turn ? turn.getAttribute('data-turn-seat') : null,
    hand: document.querySelectorAll('[data-hand] [data-tile]').length,
    others: Object.fromEntries([...document.querySelectorAll('[data-seat][data-count]')].map(
      (el) => [el.getAttribute('data-seat'), {
        count: Number(el.getAttribute('data-count')),
        connected: el.getAttribute('data-connected'),
        partner: el.hasAttribute('data-partner'),
        computer: el.hasAttribute('data-computer'),
      }])),
    winner: result ? result.getAttribute('data-winner') : null,
  };
}"""


def shown(page: Page) -> dict:
    return page.evaluate(TABLE_JS)


def own_seat(page: Page, seats: int) -> int:
    """The seat a page holds: the one its table does not list among the others."""
    (mine,) = set(range(seats)) - {int(seat) for seat in shown(page)["others"]}
    return mine


def open_table(open_context, url: str, preset: str) -> tuple[Page, str]:
    """The creator's page of a new friend room under `preset`, and the invitation link."""
    page = open_context().new_page()
    page.goto(f"{url}/?preset={preset}")
    page.locator('[data-action="create-room"]').first.click()
    invite = page.locator("[data-invite]")
    expect(invite).to_be_visible()
    expect(page.locator(LIVE)).to_have_count(1)
    return page, invite.input_value()


def sit(open_context, invite: str) -> Page:
    """A new browser opening the invitation: it takes the next free seat."""
    page = open_context().new_page()
    page.goto(invite)
    expect(page.locator(LIVE)).to_have_count(1)
    return page


def settled(pages: list[Page], seq: int) -> list[dict]:
    """Wait until every page shows the table at `seq` or later, all at the same one."""
    for page in pages:
        page.wait_for_function(
            "(seq) => Number(document.querySelector('[data-seq]')?.getAttribute('data-seq'))"
            " >= seq",
            arg=seq,
            timeout=TIMEOUT_MS,
        )
    views = [shown(page) for page in pages]
    newest = max(view["seq"] for view in views)
    if any(view["seq"] != newest for view in views):
        return settled(pages, newest)
    return views


NEWER = "Number(document.querySelector('[data-seq]')?.getAttribute('data-seq')) > seq"


def click_a_move(page: Page, rng: random.Random) -> None:
    """Lay a playable tile (at an end chosen at random when both fit), else draw or pass;
    return once the table has moved on, so the caller never acts on the table it acted on."""
    seq = shown(page)["seq"]
    assert seq is not None, "the page shows no table to move on"
    tiles = page.locator(PLAYABLE)
    if count := tiles.count():
        tiles.nth(rng.randrange(count)).click()
        # Either the fitting ends are offered, or the tile was laid at once (a newer table).
        page.wait_for_function(
            "(seq) => document.querySelector('[data-end]') || " + NEWER,
            arg=seq,
            timeout=TIMEOUT_MS,
        )
        ends = page.locator("[data-end]")
        if count := ends.count():
            ends.nth(rng.randrange(count)).click()
    else:
        button = page.locator(DRAW_OR_PASS).filter(visible=True)
        expect(button).to_have_count(1)
        button.click()
    page.wait_for_function("(seq) => " + NEWER, arg=seq, timeout=TIMEOUT_MS)


def after_log(server, room_id: str) -> list:
    return server.services.rooms.store.load(room_id)


def play_out_on_server(server, room_id: str) -> None:
    """Play the round to its end on the server, through the room's one writer (the set-up,
    not the test: moves by clicking are tested elsewhere)."""
    tables, rng = server.services, random.Random(5)
    with server.app.app_context():
        while not (room := tables.get(room_id)).round.over:
            state = room.round
            action = rng.choice(game.legal_actions(state, state.turn))
            if isinstance(action, Play):
                name, params = "play", {"tile": str(action.tile), "end": action.end}
            else:
                name, params = ("draw" if action is DRAW else "pass"), {}
            tables.act(room_id, state.turn, name, params, room.seq)
