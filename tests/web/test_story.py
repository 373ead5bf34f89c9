"""The table's story (issue 14): the move list and the other seats' recent turns.

Unit tests of domino/web/view/story.py on the rules core's own histories, then whole rounds
through the Flask test client: every table a seat is sent holds the docs/contracts.md, page hooks
move list
(`data-move-list`, one `data-move` per public move, in order, with the absolute seat, the
action and a play's tile as laid) and names no tile that seat may not see.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from domino import game
from domino.events import PublicMove
from domino.game import laid_at
from domino.rules import Rules
from domino.tiles import Laid, Tile
from domino.views import TableView, seat_view
from domino.web.view.render import Speaker
from domino.web.view.story import Recent, Step, Teller, recent, step, steps
from tests.support.webkit import (
    Table,
    assert_hides,
    friends,
    make_app,
    new_round,
    parse,
    seat_on_turn,
)


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=5)


def random_round(rules: Rules, rng: random.Random) -> list[game.State]:
    """Every state of a round played by random legal moves."""
    state = game.start(game.deal(rules, rng), rules)
    states = [state]
    while not state.over:
        state, _event = game.step(
            state, state.turn, rng.choice(game.legal_actions(state, state.turn))
        )
        states.append(state)
    return states


def view(state: game.State, seat: int, kind: str = "friend", history=None) -> TableView:
    """Seat `seat`'s table of `state` (with `history` in place of the real one, if given)."""
    seen = seat_view(state, seat)
    if history is not None:
        seen = replace(seen, history=tuple(history))
    return TableView(
        "room", kind, seat, seen, 1, True, True, None, True, seen.my_turn, rules=state.rules
    )


# -- the story as data ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "lead"), [(2, "opening-tile"), (2, "any"), (3, "any"), (4, "any")]
)
def test_the_steps_lay_the_line_as_it_lies(seats, lead):
    """Laying each play's tile as the list tells it, at its end, rebuilds the line (a free
    lead opens with any tile, not only a double)."""
    rules = Rules(
        seats=seats,
        teams=seats == 4,
        boneyard=seats < 4,
        hand_size=5 if seats < 4 else 7,
        lead=lead,
    )
    rng = random.Random(seats)
    for _round in range(20):
        final = random_round(rules, rng)[-1]
        line: list[Laid] = []
        told = steps(final.history)
        assert len(told) == len(final.history)
        for move, said in zip(final.history, told, strict=True):
            assert (said.seat, said.action) == (move.seat, move.action)
            if move.action != "play":
                assert said == Step(move.seat, move.action)  # a draw names no tile
                continue
            assert said.laid.tile == move.tile
            if not line:
                assert said.end is None
                line.append(said.laid)
            else:
                assert said.laid == laid_at(move.tile, move.end, (line[0].left, line[-1].right))
                assert said.end == move.end
                line.insert(0, said.laid) if said.end == "left" else line.append(said.laid)
        assert tuple(line) == final.line


def play(seat: int, tile: str, end: str | None, ends: tuple[int, int] | None) -> PublicMove:
    left, right = ends if ends else (None, None)
    return PublicMove(seat, "play", Tile(*map(int, tile.split("-"))), end or "right", left, right)


def draw(seat: int) -> PublicMove:
    return PublicMove(seat, "draw", None, None, 5, 3)


def passed(seat: int) -> PublicMove:
    return PublicMove(seat, "pass", None, None, 5, 3)


TWO = game.start(game.deal(Rules(), random.Random(1)), Rules())
THREE = game.start(
    game.deal(Rules(seats=3, hand_size=5), random.Random(1)), Rules(seats=3, hand_size=5)
)


def test_recent_tells_the_other_seat_since_my_last_move():
    opening = play(1, "6-6", None, None)
    assert recent(view(TWO, 0, history=[])) == ()
    assert recent(view(TWO, 0, history=[opening])) == (
        Recent(1, 0, Step(1, "play", Laid(6, 6)), 0),
    )
    assert recent(view(TWO, 1, history=[opening])) == ()  # my own move: nothing to tell
    mine = play(0, "3-6", "right", (6, 6))
    drawn = [opening, mine, draw(1), draw(1), draw(1)]
    assert recent(view(TWO, 0, history=drawn)) == (Recent(1, 3, None, 4),)
    laid = play(1, "2-3", "right", (6, 3))
    assert recent(view(TWO, 0, history=[*drawn, laid])) == (
        Recent(1, 3, Step(1, "play", Laid(3, 2), "right"), 5),
    )
    assert recent(view(TWO, 0, history=[*drawn, passed(1)])) == (Recent(1, 3, Step(1, "pass"), 5),)
    # once I move, their turn is told no more
    assert recent(view(TWO, 0, history=[*drawn, laid, draw(0)])) == ()


def test_recent_keeps_each_other_seat_apart_and_only_its_latest_turn():
    history = [
        play(0, "6-6", None, None),
        play(1, "6-2", "left", (6, 6)),
        draw(2),
        play(2, "6-4", "right", (2, 6)),
        passed(0),
    ]
    # seat 1 hears seats 0 and 2 (in seat order), each with its own turn
    assert recent(view(THREE, 1, history=history)) == (
        Recent(0, 0, Step(0, "pass"), 4),
        Recent(2, 1, Step(2, "play", Laid(6, 4), "right"), 3),
    )
    # seat 0 has not moved since its opening: seat 2's draw and play are one turn
    assert recent(view(THREE, 0, history=history[:4])) == (
        Recent(1, 0, Step(1, "play", Laid(2, 6), "left"), 1),
        Recent(2, 1, Step(2, "play", Laid(6, 4), "right"), 3),
    )
    # draws and the pass after them are one turn
    again = [*history[:4], draw(0), draw(0), passed(0), draw(1), play(1, "2-2", "left", (2, 4))]
    assert recent(view(THREE, 2, history=again)) == (
        Recent(0, 2, Step(0, "pass"), 6),
        Recent(1, 1, Step(1, "play", Laid(2, 2), "left"), 8),
    )
    # a seat with two turns since mine (no table deals that, but a history may): the latest
    twice = [play(0, "6-6", None, None), draw(0), play(0, "6-1", "right", (6, 6)), passed(0)]
    assert recent(view(THREE, 2, history=twice)) == (Recent(0, 0, Step(0, "pass"), 3),)


def test_the_opening_lies_low_half_first_like_the_line():
    assert step(play(1, "6-5", None, None)).laid == Laid(5, 6)


# -- the story in words ----------------------------------------------------------------------


def told(app, lang: str, tv: TableView):
    with app.test_request_context("/", headers={"Accept-Language": lang}):
        story = Teller.current(Speaker.current()).tell(tv)
        return parse(f"<ol>{story.items}</ol>"), story


def test_the_story_is_told_in_whole_sentences(app):
    opening = play(1, "6-6", None, None)
    mine = play(0, "6-3", "right", (6, 6))
    history = [opening, mine, draw(1), draw(1), play(1, "2-3", "right", (6, 3))]
    doc, story = told(app, "en", view(TWO, 0, history=history))
    assert [item.text for item in doc.find_all("data-move")] == [
        "Your friend opened with double six.",
        "You laid six–three on the right.",
        "Your friend drew a tile.",
        "Your friend drew a tile.",
        "Your friend laid three–two on the right.",
    ]
    assert [(n.seat, n.key, n.text) for n in story.notes] == [
        (1, "4", "Your friend drew 2 tiles and laid three–two on the right.")
    ]
    _doc, story = told(app, "en", view(TWO, 0, "computer", history=[*history[:3], passed(1)]))
    assert story.notes[0].text == "The computer drew 1 tile and passed."
    _doc, story = told(app, "en", view(TWO, 0, "computer", history=history[:4]))
    assert story.notes[0].text == "The computer drew 2 tiles."
    doc, story = told(app, "pl", view(TWO, 1, history=history))
    assert doc.find_all("data-move")[1].text == "Znajomy położył sześć–trzy na prawym końcu."
    assert story.notes == ()  # seat 1 moved last
    assert story.count == 5


def test_a_worded_item_is_kept_only_for_the_same_tile_lying_the_same_way(app):
    """Items are kept by tile, end and the value joined: the same tile joined by its other
    half lies the other way round."""
    three = [play(1, "3-3", None, None), play(0, "3-2", "right", (3, 3))]
    two = [play(1, "2-2", None, None), play(0, "2-3", "right", (2, 2))]
    for history, laid in ((three, "3-2"), (two, "2-3"), (three, "3-2")):
        doc, _story = told(app, "en", view(TWO, 0, history=history))
        assert doc.find_all("data-move")[1].get("data-tile") == laid


# -- through the server ----------------------------------------------------------------------


def check_story(table: Table) -> None:
    """The newest table `table` was sent tells the round's public history, move by move."""
    state = table.state
    html = table.html
    assert_hides(html, state, table.seat)
    doc = parse(html)
    listed = doc.one("data-move-list").find_all("data-move")
    assert len(listed) == len(state.history)
    line: list[str] = []
    for item, move in zip(listed, state.history, strict=True):
        assert item.tag == "li"
        assert item.get("data-seat") == str(move.seat)
        assert item.get("data-action") == move.action
        mine = move.seat == table.seat
        assert item.text.startswith("You " if mine else "Your friend "), item.text
        if move.action != "play":
            assert not item.has("data-tile"), item  # never a drawn tile, not even my own
            continue
        if move.left is None:
            laid = f"{move.tile.low}-{move.tile.high}"
            assert "opened" in item.text
        else:
            laid = str(laid_at(move.tile, move.end, (move.left, move.right)))
            assert item.text.endswith(f"on the {move.end}."), item.text
        assert item.get("data-tile") == laid
        line.insert(0, laid) if move.end == "left" and line else line.append(laid)
    assert line == [str(t) for t in state.line]
    summary = doc.one("id", "moves-summary")
    assert summary.text == f"Moves ({len(state.history)})"


def check_note(table: Table) -> None:
    """The other seat's latest turn, as a note, only when it moved since this seat did."""
    state = table.state
    notes = parse(table.html).find_all("data-recent")
    theirs = []
    for move in reversed(state.history):
        if move.seat == table.seat:
            break
        theirs.insert(0, move)
    if not theirs:
        assert notes == []
        return
    (note,) = notes
    assert note.get("data-recent") == str(theirs[-1].seat)
    assert note.parent.get("aria-hidden") == "true"  # the live region says it already
    drew = sum(1 for move in theirs if move.action == "draw")
    if drew:
        assert note.text.startswith(f"Your friend drew {drew} tile"), note.text
    if theirs[-1].action == "pass":
        assert note.text.endswith("passed."), note.text


@pytest.mark.slow  # every table of whole rounds, parsed
def test_every_table_tells_the_story_move_by_move(app):
    a, b = friends(app)
    rng = random.Random(3)
    kinds = set()
    for table in (a, b):
        check_story(table)  # the empty list, before any move
        assert parse(table.html).find("data-move") is None
    for _move in range(400):
        state = a.state
        if state.over:
            if len(kinds) == 3:
                break
            new_round((a, b))
            for table in (a, b):
                check_story(table)  # a new round: an empty list again
            continue
        mover = seat_on_turn((a, b))
        action = rng.choice(game.legal_actions(state, state.turn))
        assert mover.send(action).status_code == 200
        kinds.add(a.state.history[-1].action)
        for table in (a, b):
            check_story(table)
            check_note(table)
    assert kinds == {"play", "draw", "pass"}, kinds


def test_the_move_list_is_there_in_every_state_of_the_table(app):
    host = Table(app)
    host.create_room()  # alone at the table: the preview hand
    page = parse(host.html)
    assert page.one("data-move-list").find_all("data-move") == []
    assert "No moves yet." in page.one("id", "moves").text
    computer = Table(app)
    computer.create_room("/computer")
    assert app.extensions["domino"].computer.wait_idle(10), "the computer is still thinking"
    computer.connect()
    computer.fragment()
    doc = computer.doc
    moves = doc.one("data-move-list").find_all("data-move")
    history = computer.state.history
    assert history and history[0].seat == 1, "with seed 5 the computer opens"
    assert len(moves) == len(history)
    for item, move in zip(moves, history, strict=True):
        assert item.get("data-action") == move.action, item
        assert item.text.startswith("The computer "), item.text
    # the sound toggle comes hidden and off: static/feel.js shows it
    toggle = doc.one("data-sound")
    assert toggle.tag == "button" and toggle.has("hidden")
    assert toggle.get("aria-pressed") == "false"
