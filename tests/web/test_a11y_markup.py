"""The table without sight, through Flask's test client: spoken tile names and the live region.

Every tile a player meets (own hand, line of play, revealed hand, end buttons) has an accessible
name in the page's language ("three–five", "double six"), and a persistent polite live region
`#announce` outside `#table` is updated out of band with each table, in replies and in pushes.
"""

from __future__ import annotations

import random

import pytest

from domino import game
from domino.events import DRAW, PASS, Play
from tests.support.webkit import (
    Node,
    Table,
    advance_until,
    friends,
    friends_in,
    make_app,
    parse,
    two_way,
)

NUMBERS = {
    "en": ("blank", "one", "two", "three", "four", "five", "six"),
    "pl": ("zero", "jeden", "dwa", "trzy", "cztery", "pięć", "sześć"),
}
DOUBLE = {"en": "double {}", "pl": "dublet {}"}
LINE = {"en": "Line of play, from left to right", "pl": "Rząd kostek na stole, od lewej do prawej"}


def spoken(a: int, b: int, lang: str = "en") -> str:
    """The accessible name of a tile showing `a` then `b`."""
    names = NUMBERS[lang]
    return DOUBLE[lang].format(names[a]) if a == b else f"{names[a]}–{names[b]}"


def spoken_text(text: str, lang: str = "en") -> str:
    """The accessible name of a tile written `a-b`, halves in that order."""
    a, b = map(int, text.split("-"))
    return spoken(a, b, lang)


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=11)


@pytest.fixture
def pair(app):
    return friends(app)


def announce_of(html: str) -> Node:
    """The out-of-band live region update of a reply or push: a sibling of `#table`."""
    doc = parse(html)
    top = doc.elements
    assert [node.get("id") for node in top] == ["table", "announce"], top
    table, announce = top
    assert announce.get("hx-swap-oob") == "innerHTML"
    assert table.get("hx-swap-oob") == "true"
    assert table.find("id", "announce") is None
    assert not announce.elements, "the live region holds text only"
    return announce


def last_push(table: Table) -> str:
    return table.ws.frames[-1]


def check_tile_names(doc: Node, state: game.State, seat: int, lang: str) -> None:
    tiles = doc.one("data-hand").find_all("data-tile")
    assert [t.get("data-tile") for t in tiles] == [str(t) for t in state.hands[seat]]
    for node in tiles:
        assert node.tag == "button"
        assert node.get("aria-label") == spoken_text(node.get("data-tile"), lang)
    chain = doc.one("data-chain")
    assert chain.tag == "ol"
    assert chain.get("aria-label") == LINE[lang]
    laid = chain.find_all("data-tile")
    assert [t.get("data-tile") for t in laid] == [str(t) for t in state.line]
    for node in laid:
        assert node.tag == "li"
        assert node.get("aria-label") == spoken_text(node.get("data-tile"), lang)


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_every_tile_has_a_spoken_name_in_the_page_language(app, lang):
    a, b = friends_in(app, lang)
    state = advance_until((a, b), lambda s: len(s.line) >= 4, random.Random(2))
    for table in (a, b):
        table.fragment()
        check_tile_names(table.doc, state, table.seat, lang)
        full = parse(table.open().get_data(as_text=True))
        check_tile_names(full, state, table.seat, lang)


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_revealed_hands_have_spoken_names(app, lang):
    a, b = friends_in(app, lang)
    rng = random.Random(6)
    while not a.state.over:
        mover = (a, b)[a.state.turn]
        mover.send(rng.choice(game.legal_actions(a.state, a.state.turn)))
    state = a.state
    for table in (a, b):
        doc = parse(table.fragment().get_data(as_text=True))
        shown = doc.one("data-opponent-hand").find_all("data-tile")
        assert [t.get("data-tile") for t in shown] == [str(t) for t in state.hands[1 - table.seat]]
        for node in shown:
            assert node.get("role") == "img"
            assert node.get("aria-label") == spoken_text(node.get("data-tile"), lang)
        # The own hand is shown once (issue 29): in the hand, its tiles named as during play.
        own = [n for n in doc.find_all("class") if "small" in n.get("class").split()]
        assert not [n for n in own if not n.inside("data-opponent-hand")]
        assert [n.get("aria-label") for n in doc.one("data-hand").find_all("data-tile")] == [
            spoken(t.low, t.high, lang) for t in state.hands[table.seat]
        ]


def test_the_end_buttons_say_how_the_tile_would_lie(pair):
    state = advance_until(pair, two_way, random.Random(3))
    mover = pair[state.turn]
    tile = two_way(state)[0]
    doc = parse(mover.fragment(select=str(tile)).get_data(as_text=True))
    left, right = state.ends
    left_end, right_end = doc.one("data-end", "left"), doc.one("data-end", "right")
    laid_left = spoken(tile.other_half(left), left)
    laid_right = spoken(right, tile.other_half(right))
    assert left_end.get("aria-label") == f"Lay it here: {laid_left} on the left"
    assert right_end.get("aria-label") == f"Lay it here: {laid_right} on the right"


def test_the_full_page_holds_the_live_region_once_outside_the_table(pair):
    a, _b = pair
    doc = parse(a.open().get_data(as_text=True))
    (region,) = doc.find_all("id", "announce")
    assert region.get("aria-live") == "polite"
    assert region.get("role") == "status"
    assert "visually-hidden" in region.get("class").split()
    assert not region.has("hx-swap-oob")
    assert not region.inside("hx-ext"), "the live region sits beside the socket's element"
    table = doc.one("id", "table")
    assert region not in table.iter()
    assert table.get("tabindex") == "-1"
    assert doc.one("data-chain").get("aria-label") == LINE["en"]


def test_replies_and_pushes_update_the_live_region_out_of_band(pair):
    a, b = pair
    state = a.state
    mover, other = (a, b) if state.turn == a.seat else (b, a)
    announce_of(mover.fragment().get_data(as_text=True))
    assert announce_of(mover.html).text == "Your turn."
    play = next(x for x in game.legal_actions(state, state.turn) if isinstance(x, Play))
    reply = mover.send(play)
    assert reply.status_code == 200
    announce_of(reply.get_data(as_text=True))
    pushed = announce_of(last_push(other))
    laid = a.state.line[0]
    assert pushed.text == f"Your friend opened with {spoken(laid.left, laid.right)}. Your turn."


def expected_move_text(state: game.State, seat: int) -> str:
    """What the other seat's live region says after `seat` made the last move."""
    move = state.history[-1]
    if move.action == "play":
        if move.left is None:
            return f"Your friend opened with {spoken(move.tile.low, move.tile.high)}."
        laid = state.line[0] if move.end == "left" else state.line[-1]
        return f"Your friend laid {spoken(laid.left, laid.right)} on the {move.end}."
    if move.action == "draw":
        return f"Your friend drew a tile ({len(state.hands[seat])} in their hand)."
    return "Your friend passed."


def test_the_other_seat_hears_every_move_and_the_result(pair):
    a, b = pair
    rng = random.Random(4)
    heard = {"play": 0, "draw": 0, "pass": 0}
    while not a.state.over:
        before = a.state
        seat = before.turn
        mover, other = (a, b)[seat], (a, b)[1 - seat]
        action = rng.choice(game.legal_actions(before, seat))
        reply = mover.send(action)
        assert reply.status_code == 200
        after = a.state
        own = announce_of(reply.get_data(as_text=True)).text
        news = announce_of(last_push(other)).text
        said = expected_move_text(after, seat)
        heard[after.history[-1].action] += 1
        assert news.startswith(said), (news, said)
        if after.over:
            continue
        if after.turn == other.seat:
            assert news == f"{said} Your turn."
        else:
            assert news == said
        if action is DRAW:
            drawn = after.hands[seat][-1]
            assert own == f"You drew {spoken(drawn.low, drawn.high)}."
            assert "Your friend" not in news.replace(said, "")
        else:
            assert own == ""
    assert heard["play"] and heard["draw"], heard
    outcome = game.outcome(a.state)
    points = f"{outcome.points} point{'' if outcome.points == 1 else 's'}"
    for table in (a, b):
        text = announce_of(table.fragment().get_data(as_text=True)).text
        if outcome.winner is None:
            assert text.endswith("A draw: nobody scores.")
        elif outcome.winner == table.seat:
            assert text.endswith(f"You win {points}.")
        else:
            assert text.endswith(f"Your friend wins {points}.")


def test_a_pass_is_announced(pair):
    state = advance_until(pair, lambda s: PASS in game.legal_actions(s, s.turn), random.Random(8))
    mover, other = pair[state.turn], pair[1 - state.turn]
    assert mover.send(PASS).status_code == 200
    news = announce_of(last_push(other)).text
    assert news.startswith("Your friend passed.")
    if not mover.state.over:
        assert news == "Your friend passed. Your turn."


def test_the_drawn_tile_is_told_to_its_owner_only(pair):
    state = advance_until(pair, lambda s: DRAW in game.legal_actions(s, s.turn), random.Random(5))
    mover, other = pair[state.turn], pair[1 - state.turn]
    reply = mover.send(DRAW)
    drawn = mover.state.hands[mover.seat][-1]
    assert announce_of(reply.get_data(as_text=True)).text == (
        f"You drew {spoken(drawn.low, drawn.high)}."
    )
    news = announce_of(last_push(other)).text
    assert spoken(drawn.low, drawn.high) not in news
    count = len(mover.state.hands[mover.seat])
    assert news == f"Your friend drew a tile ({count} in their hand)."


def test_a_refusal_is_announced_too(pair):
    a, b = pair
    idle = b if a.state.turn == a.seat else a
    response = idle.post("draw")
    assert response.status_code == 409
    assert announce_of(response.get_data(as_text=True)).text.startswith("It is not your turn.")


def test_polish_pushes_name_the_tile_in_polish(app):
    a, b = friends_in(app, "pl")
    rng = random.Random(1)
    seen_play = False
    for _ in range(12):
        state = a.state
        if state.over:
            break
        seat = state.turn
        mover, other = (a, b)[seat], (a, b)[1 - seat]
        assert mover.send(rng.choice(game.legal_actions(state, seat))).status_code == 200
        after = a.state
        move = after.history[-1]
        news = announce_of(last_push(other)).text
        if move.action == "play" and move.left is not None:
            laid = after.line[0] if move.end == "left" else after.line[-1]
            where = "lewym" if move.end == "left" else "prawym"
            name = spoken(laid.left, laid.right, "pl")
            assert news.startswith(f"Znajomy położył {name} na {where} końcu."), news
            seen_play = True
        if not after.over and after.turn == other.seat:
            assert news.endswith("Twój ruch.")
    assert seen_play
