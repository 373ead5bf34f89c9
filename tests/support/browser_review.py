"""A reviewed round in a real browser: two friends' round played out, its analysis stored with
two of the host's decisions made costly, for the review page's tests and its axe scan."""

from __future__ import annotations

import json
import random

from playwright.sync_api import expect

from domino.bots import analysis
from domino.events import Play
from domino.tiles import Tile
from tests.support.browser_friends import (
    create_room,
    expect_both_connected,
    join_room,
    play_round,
    room_id_of,
)

ROUNDS = 4  # rounds played at most until one seat made a costly move


def play(name: str) -> Play:
    """A play as the analysis writes it ("4-6:right")."""
    tile, end = name.split(":")
    return Play(Tile.parse(tile), end)


def reviewed_round(server, open_context):
    """Two friends' finished round with its analysis stored: two of the host's decisions made
    costly ("double"), the rest as good as the best. The host's page, the room, the rows."""
    host, invite = create_room(open_context(), server.url)
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    store = server.services.rooms.store
    room_id = room_id_of(invite)
    for k in range(ROUNDS):  # the deal is fair, so not known: rarely the host has one choice
        play_round([host, guest], rng=random.Random(k))
        seq, text = store.record_rows(room_id)[k]
        if len([d for d in analysis.decisions(json.loads(text)) if d.seat == 0]) >= 2:
            break
        host.page.locator('[data-action="new-round"]').click()
        guest.page.locator('[data-action="accept-new-round"]').click()
        expect(host.page.locator("[data-result]")).to_have_count(0)
    made = analysis.analyze(text, 1, playouts=40)
    for row in made["decisions"]:
        row["costly"], row["cost"], row["best"] = False, 0.0, row["made"]
    mine = [row for row in made["decisions"] if row["seat"] == 0][:2]
    assert len(mine) == 2, f"too few choices in {ROUNDS} rounds"
    views = {d.index: d.view for d in analysis.decisions(json.loads(text))}
    for row in mine:
        other = next(play for play, _ev in row["options"] if play != row["made"])
        row["best"], row["cost"], row["costly"] = other, 13.9, True
        row["reason"] = analysis.reason(views[row["index"]], play(row["made"]), play(other))
    store.save_review(room_id, seq, json.dumps(made))
    return host.page, room_id, mine, json.loads(text), k
