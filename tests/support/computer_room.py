"""A room against the computer through the web tests' Table: started from the home page, its
moves sent with the seq of the newest table seen, played until a wanted position, and waited
on until the computer has made every move it is due."""

from __future__ import annotations

import random

from domino import game
from domino.events import DRAW, Play
from tests.support.webkit import Table, parse

PLAYER = 0
COMPUTER = 1  # the computer's seat in a two-seat computer room
WAIT = 15.0  # seconds a computer move may take at most (the hard level included)


def computer(app):
    return app.extensions["domino"].computer


def settle(app) -> None:
    """Wait until the computer has made every move it is due."""
    assert computer(app).wait_idle(WAIT), "the computer is still thinking"


def start_computer(table: Table, level: str | None = None, card: dict | None = None):
    """POST /computer from the home page (with the rules card's `card` fields), as its button
    does; returns the answer."""
    table.home()
    data = {"csrf_token": table.csrf, **(card or {})}
    if level is not None:
        data["level"] = level
    response = table.client.post("/computer", data=data)
    if response.status_code == 303:
        table.room = response.headers["Location"].rsplit("/", 1)[-1]
    return response


def computer_room(app, level: str | None = None, tab: str = "100.a", card=None) -> Table:
    """A computer room with its player's page open and its fake socket connected."""
    player = Table(app)
    response = start_computer(player, level, card)
    assert response.status_code == 303, response.get_data(as_text=True)
    settle(app)
    player.open()
    player.connect(tab)
    player.fragment()
    return player


def seq_of(html: str) -> int:
    return int(parse(html).one("data-seq").get("data-seq"))


def newest(table: Table) -> str:
    """The most recent table the player was sent (highest `data-seq`).

    A move's HTTP answer and the computer's reply pushed over the socket are produced on
    different threads, so the order they were recorded in says nothing; their seq does.
    """
    tables = [(seq_of(html), n, html) for n, html in enumerate(table.seen) if "data-seq=" in html]
    assert tables, "the player has seen no table"
    return max(tables)[2]  # of equal seqs, the later one (a page, then its live fragment)


def act(table: Table, action: str, **fields):
    """POST an action from the player's live tab with the seq of its newest table."""
    return table.post(action, seq=seq_of(newest(table)), **fields)


def move(table: Table, action):
    """Send the player's rules action (a Play, DRAW or PASS)."""
    if isinstance(action, Play):
        return act(table, "play", tile=str(action.tile), end=action.end)
    return act(table, "draw" if action is DRAW else "pass")


def until(table: Table, wanted, rng: random.Random, limit: int = 200) -> game.State:
    """Play the player's random legal moves (the computer answering) until `wanted(state)`."""
    for _ in range(limit):
        state = table.state
        if wanted(state):
            return state
        assert not state.over, "the round ended before the wanted position"
        assert state.turn == PLAYER, "the computer did not move"
        response = move(table, rng.choice(game.legal_actions(state, PLAYER)))
        assert response.status_code == 200, response.get_data(as_text=True)
        settle(table.app)
    raise AssertionError("the wanted position never came up")
