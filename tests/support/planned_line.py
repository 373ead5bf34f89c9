"""The planned round of the line's layout tests: hands dealt so that the line closes from 6 back
to 6 over 27 tiles, a room's table with the whole set in its line, and the block game of 14
tiles a hand."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from flask import render_template_string

from domino.rules import DEFAULT
from domino.tiles import Laid
from domino.web.view.render import Links, render_table
from tests.support.live import LiveServer

BLOCK_OF_14 = replace(DEFAULT, boneyard=False, hand_size=14)


def written(text: str) -> list[str]:
    """Tiles as laid ("6-5": the 6 on the left), from a text of them separated by spaces."""
    return text.split()


# The planned round: a closed chain of 27 tiles (all but the double blank) from 6 back to 6,
# laid in this order at the right end, seat 0 (holding 6-6, so opening) and seat 1 by turns.
# It starts with a run of doubles, so that rows turn next to them; the 11th tile (1-6) and the
# 27th (3-6) fit both ends of the line they meet.
TRAIL = written(
    "6-6 6-5 5-5 5-4 4-4 4-3 3-3 3-2 2-2 2-1 1-6 6-0 0-1 "
    "1-1 1-3 3-0 0-2 2-4 4-0 0-5 5-1 1-4 4-6 6-2 2-5 5-3 3-6"
)
LEFTOVER = "0-0"  # seat 1's last tile
# The whole set in one chain (it closes: every number is on eight halves), doubles in a run.
ALL_28 = written(
    "0-0 0-1 1-1 1-2 2-2 2-3 3-3 3-4 4-4 4-5 5-5 5-6 6-6 6-0 "
    "0-2 2-4 4-0 0-3 3-1 1-4 4-6 6-1 1-5 5-2 2-6 6-3 3-5 5-0"
)
PAGE = '{% extends "base.html" %}{% block main %}<div id="live">{{ table }}</div>{% endblock %}'


class PlannedDeal(random.Random):
    """Deals the planned hands every time (hands are dealt from the front of the shuffle)."""

    def __init__(self, hands: tuple[list[str], list[str]]) -> None:
        super().__init__(1)
        self.order = [Laid.parse(text).tile for hand in hands for text in hand]

    def shuffle(self, tiles) -> None:
        assert sorted(tiles) == sorted(self.order), "the plan is not the whole set"
        tiles[:] = self.order


def chain_of(texts: list[str]) -> tuple[Laid, ...]:
    """The tiles as laid, checked to be one line of different tiles whose touching halves match."""
    line = tuple(Laid.parse(text) for text in texts)
    assert len({laid.tile for laid in line}) == len(line), "a tile twice"
    assert all(a.right == b.left for a, b in itertools.pairwise(line)), "halves differ"
    return line


def planned_hands() -> tuple[list[str], list[str]]:
    return TRAIL[0::2], [*TRAIL[1::2], LEFTOVER]


def full_line(room):
    """The room's table with all 28 tiles in its line: the round over, both hands empty."""
    line = chain_of(ALL_28)
    assert len(line) == 28
    hands = tuple(() for _ in room.round.hands)
    state = replace(room.round, line=line, hands=hands, boneyard=(), turn=None, opening=None)
    return replace(room, round=state)


def planned_server(db_path) -> LiveServer:
    """The app on a live server (not started yet), dealing the planned hands, with a test-only
    page of a room's table whose line holds the whole set (`/test-only/all-28/<room id>`)."""
    server = LiveServer(db_path, DOMINO_RNG=PlannedDeal(planned_hands()))
    services = server.services

    @server.app.get("/test-only/all-28/<room_id>")
    def all_28(room_id: str):
        room = full_line(services.rooms.require(room_id))
        table = render_table(services.view(room, 0), Links(f"/r/{room_id}"), oob=False)
        return render_template_string(PAGE, table=table)

    return server
