"""What a player sees at a table of three or four (issue 15, docs/contracts.md, page hooks;
docs/rules.md, tables of three and four), through Flask's
test client: one element per other seat with its hooks in every state of the table, names
by place or by a display name (escaped), who did what, the seat controls, the card that makes
these tables, and the two-seat table left as it was.
"""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from domino import game
from domino.rules import PRESETS
from tests.support.webkit import (
    Node,
    Table,
    assert_hides,
    company,
    friends,
    make_app,
    parse,
    vals,
)

NAMES = {"East", "West", "North", "Your partner"}


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=7)


def seated(app, preset: str, people: int | None = None) -> list[Table]:
    """A room under `preset` with `people` browsers (all its seats by default), seated in
    order and connected."""
    host = Table(app)
    host.create_room(preset=preset)
    people = people or PRESETS[preset].seats
    tables = [host]
    for _ in range(1, people):
        guest = Table(app, host.room)
        guest.open()
        assert guest.join().status_code == 303
        tables.append(guest)
    for index, table in enumerate(tables):
        table.connect(f"100.{index}")
    for table in tables:
        table.fragment()
    assert [table.seat for table in tables] == list(range(people))
    return tables


def step(tables: list[Table], rng: random.Random) -> game.State:
    """The seat to move makes a random legal move through HTTP; the state after it."""
    state = tables[0].state
    mover = tables[state.turn]
    response = mover.send(rng.choice(game.legal_actions(state, state.turn)))
    assert response.status_code == 200, response.get_data(as_text=True)
    return tables[0].state


def announce(table: Table) -> str:
    """What the live region says in the newest table this browser was sent."""
    node = parse(table.html).find("id", "announce")
    return "" if node is None else node.text


def check_hooks(table: Table, full: bool = True) -> Node:
    """The docs/contracts.md, page hooks hooks of a table of three or four, as the room stands; its
    document."""
    doc = table.doc
    state, me = table.state, table.seat
    rules = state.rules
    shown = company(doc)
    assert set(shown) == set(range(rules.seats)) - {me}
    for seat, node in shown.items():
        assert node.get("data-count") == str(len(state.hands[seat]))
        assert node.get("data-connected") in (("true",) if full else ("true", "false"))
        assert node.has("data-partner") == (rules.teams and seat % 2 == me % 2)
    assert doc.find("data-opponent-count") is None
    assert doc.find("data-opponent-connected") is None
    turn = doc.find("data-turn")
    if state.over:
        assert turn is None
        result = doc.one("data-result")
        outcome = game.outcome(state)
        won = "draw" if not outcome.winners else ("you" if me in outcome.winners else "opponent")
        assert result.get("data-winner") == won
    else:
        assert turn.get("data-turn-seat") == str(state.turn)
        assert turn.get("data-turn") == ("you" if state.turn == me else "other")
        assert_hides(table.html, state, me)
    return doc


# -- the table for N -------------------------------------------------------------------------


def test_a_three_seat_table_shows_every_other_seat_from_waiting_to_round_over(app):
    host = Table(app)
    host.create_room(preset="three")
    host.connect()
    host.fragment()
    doc = host.doc
    shown = company(doc)
    assert set(shown) == {1, 2}
    assert all(node.get("data-connected") == "false" for node in shown.values())
    assert all(node.get("data-count") == "7" for node in shown.values())
    assert not doc.find("data-partner") and not doc.find("data-computer")
    assert doc.one("data-turn").get("data-turn-seat") == str(host.state.turn)
    assert doc.one("data-free-seats").get("data-free-seats") == "2"
    said = doc.one("data-turn").text.strip()
    assert said.startswith("Waiting for 2 more players to join"), said  # no "West to play"
    assert "to play" not in said and said.count("aiting for") == 1, said
    tables = [host]
    for _ in (1, 2):
        guest = Table(app, host.room)
        guest.open()
        assert guest.join().status_code == 303
        guest.connect(f"100.{len(tables)}")
        guest.fragment()
        tables.append(guest)
    for table in tables:  # as each page's socket opening would show it
        table.fragment()
    rng = random.Random(1)
    turns = set()
    while not host.state.over:
        for table in tables:
            check_hooks(table)
            turns.add(table.doc.one("data-turn").get("data-turn"))
        step(tables, rng)
    assert turns == {"you", "other"}
    verdicts = {check_hooks(table).one("data-result").get("data-winner") for table in tables}
    assert "opponent" in verdicts


def test_a_four_seat_table_marks_the_partner_and_keeps_the_score_per_side(app):
    tables = seated(app, "pairs")
    rng = random.Random(2)
    while True:
        for table in tables:
            doc = check_hooks(table)
            partner = (table.seat + 2) % 4
            (marked,) = [seat for seat, node in company(doc).items() if node.has("data-partner")]
            assert marked == partner
            assert company(doc)[partner].one("class", "who", tag="span").text == "Your partner"
            scores = {n.get("data-seats"): n.text for n in doc.find_all("data-score")}
            assert set(scores) == {"0,2", "1,3"}
        if tables[0].state.over:
            break
        step(tables, rng)
    outcome = game.outcome(tables[0].state)
    for table in tables:
        doc = table.doc
        mine = table.seat in outcome.winners
        assert doc.one("data-result").get("data-winner") == ("you" if mine else "opponent")
        heading = doc.one("data-result").one(tag="h2").text
        assert heading.startswith("Your pair" if mine else "The other pair")
    # partners write the same score, the side's, under data-seats="0,2"
    room = tables[0].services.rooms.get(tables[0].room)
    scores = {n.get("data-seats"): int(n.text) for n in tables[1].doc.find_all("data-score")}
    assert scores == {"0,2": room.match.scores[0], "1,3": room.match.scores[1]}


def test_seats_are_named_by_place_seen_from_each_seat(app):
    tables = seated(app, "pairs")
    expected = {
        0: {1: "East", 2: "Your partner", 3: "West"},
        1: {2: "East", 3: "Your partner", 0: "West"},
        3: {0: "East", 1: "Your partner", 2: "West"},
    }
    for seat, names in expected.items():
        shown = company(tables[seat].doc)
        assert {k: n.one("class", "who", tag="span").text for k, n in shown.items()} == names
        # laid out as seen from the South seat: West, across, East
        assert list(shown) == [
            next(k for k, v in names.items() if v == w) for w in ("West", "Your partner", "East")
        ]
    three = seated(app, "three")
    shown = company(three[0].doc)
    assert {k: n.one("class", "who", tag="span").text for k, n in shown.items()} == {
        1: "East",
        2: "West",
    }


def test_a_display_name_is_shown_escaped_in_place_of_the_place(app):
    tables = seated(app, "three")
    rng = random.Random(3)
    assert tables[1].post("name", name="<b>Zoë</b>", seq=None).status_code == 200
    html = tables[0].html
    assert "<b>Zoë" not in html and "&lt;b&gt;Zoë&lt;/b&gt;" in html
    seat = company(tables[0].doc)[1]
    assert seat.one("class", "who", tag="span").text == "<b>Zoë</b>"
    assert seat.one("class", "where", tag="span").text == "East"
    # the table says who did what by that name, in the move list and the live region
    while tables[0].state.turn != 1:
        step(tables, rng)
    step(tables, rng)
    assert announce(tables[0]).startswith("<b>Zoë</b> ")
    assert "&lt;b&gt;Zoë" in tables[2].html and "<b>Zoë" not in tables[2].html
    moves = [n.text for n in tables[2].doc.find_all("data-move") if n.get("data-seat") == "1"]
    assert moves and all(text.startswith("<b>Zoë</b> ") for text in moves)
    # the player's own box says their name
    summary = tables[1].doc.one("id", "my-name-summary").text
    assert summary == "Your name here: <b>Zoë</b>"
    assert tables[1].doc.one("id", "my-name").get("value") == "<b>Zoë</b>"


def test_the_other_seats_moves_are_told_by_name_and_summed_up_since_my_last_move(app):
    tables = seated(app, "pairs")
    rng = random.Random(4)
    seen = 0
    while not tables[0].state.over:
        before = tables[0].state
        state = step(tables, rng)
        seat = state.history[-1].seat
        move = state.history[-1]
        for table in tables:
            said = announce(table)
            if table.seat == seat:
                continue
            name = {1: "East", 2: "Your partner", 3: "West"}[(seat - table.seat) % 4]
            verb = {"play": " opened with " if not before.line else " laid ", "pass": " passed"}
            assert said.startswith(name + verb[move.action]), said
            seen += 1
        # since its own last move, each seat is told each other seat's latest turn, in the
        # order they moved (seat order would differ for every seat but 0)
        for table in tables:
            me = table.seat
            last = max((i for i, m in enumerate(state.history) if m.seat == me), default=-1)
            movers = [m.seat for m in state.history[last + 1 :]]
            latest = sorted(
                set(movers),
                key=lambda seat: max(i for i, mover in enumerate(movers) if mover == seat),
            )
            notes = table.doc.find_all("data-recent")
            assert [int(n.get("data-recent")) for n in notes] == latest
    assert seen > 20


def test_the_computer_seats_and_their_levels(app):
    host = Table(app)
    host.create_room(preset="pairs")
    host.connect()
    host.fragment()
    guest = Table(app, host.room)
    guest.open()
    guest.join()
    guest.connect("100.b")
    guest.fragment()
    # the creator is offered each free seat; the guest is not
    offered = sorted(int(n.get("data-give")) for n in host.doc.find_all("data-give"))
    assert offered == [2, 3]
    assert not guest.doc.find_all("data-give")
    form = host.doc.one("data-give", "3")
    assert form.one(tag="legend").text == "West · a free seat"
    assert form.one("name", "seat").get("value") == "3"
    assert host.post("computer", seat=3, level="hard", seq=None).status_code == 200
    shown = company(host.doc)[3]
    assert shown.has("data-computer") and shown.get("data-connected") == "true"
    assert "computer · hard" in shown.text
    level = host.doc.one("data-level")
    assert level.get("hx-post").endswith("/level") and vals(level) == {"seat": 3}
    assert level.one("selected").get("value") == "hard"
    assert not guest.doc.find("data-level")  # the level is the creator's to set
    assert company(guest.doc)[3].has("data-computer")
    assert host.post("level", level="easy", seat=3, seq=None).status_code == 200
    assert host.doc.one("data-level").one("selected").get("value") == "easy"


def offered_hand_over(table: Table, seat: int, deadline: float) -> Node:
    """The form that hands `seat` over, once the table offers it (within `deadline`)."""
    while True:
        table.fragment()
        form = table.doc.find("data-hand-over", str(seat))
        if form is not None or time.monotonic() > deadline:
            assert form is not None, "never offered"
            return form
        time.sleep(0.01)


def test_a_player_away_for_long_may_be_handed_to_the_computer_by_those_present(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=7, AWAY_SECONDS=0.2)
    tables = seated(app, "three")
    assert not any(table.doc.find("data-hand-over") for table in tables)  # all here
    tables[2].disconnect()
    deadline = time.monotonic() + 5
    for table, name in zip(tables[:2], ("West", "East"), strict=True):
        form = offered_hand_over(table, 2, deadline)
        assert form.one("id", "hand-over-2").text == f"Let the computer play for {name}"
        assert form.one(tag="legend").text == name
        assert f"{name} has been away for 1 minute." in form.text
        assert form.one("name", "seat").get("value") == "2"
        assert company(table.doc)[2].get("data-connected") == "false"
    response = tables[1].post("computer", seat=2, level="easy", seq=None)
    assert response.status_code == 200, response.get_data(as_text=True)
    doc = tables[1].doc
    shown = company(doc)[2]
    assert shown.has("data-computer") and shown.get("data-connected") == "true"
    assert "played by the computer until East is back" in shown.text
    assert not doc.find("data-hand-over")
    assert "played by the computer until West is back" in company(tables[0].doc)[2].text


def test_at_three_seats_every_answer_to_a_new_round_is_a_new_round(app):
    tables = seated(app, "three")  # a match: a new deal mid-round is a new match
    assert tables[0].post("new-round").status_code == 200
    for table in tables[1:]:
        doc = table.doc
        yes = doc.one("id", "accept-new-round")
        assert yes.get("data-action") == "new-round" and yes.get("hx-post").endswith("/new-round")
        assert "Another player asks for a new match." in doc.one("data-next").text
    assert "waiting for the other players' answers" in tables[0].doc.one("data-next").text

    def deals() -> int:
        return sum(1 for _seq, kind, _data in tables[0].log if kind == "deal")

    before = deals()
    assert tables[1].post("new-round").status_code == 200
    assert deals() == before  # every person's word is needed
    assert tables[2].post("new-round").status_code == 200
    assert deals() == before + 1


# -- the two-seat table is as it was --------------------------------------------------------------


def test_the_two_seat_table_keeps_its_hooks_and_words(app):
    a, b = friends(app)
    doc = a.doc
    assert company(doc) == {}
    assert doc.one("data-opponent-count").text == "7"
    assert doc.one("data-opponent-connected").get("data-opponent-connected") == "true"
    turn = doc.one("data-turn")
    assert turn.get("data-turn") == ("you" if a.state.turn == 0 else "opponent")
    assert turn.get("data-turn-seat") == str(a.state.turn)
    assert doc.one("class", "who", tag="span").text == "Your friend"
    assert not doc.find("id", "my-name-box") and not doc.find("class", "seat-controls")
    assert not doc.find("data-give") and not doc.find("data-hand-over")
    state = step([a, b], random.Random(5))
    other = a if state.history[-1].seat == 1 else b
    assert announce(other).startswith("Your friend ")
    computer = Table(app)
    computer.create_room("/computer")
    computer.connect()
    computer.fragment()
    level = computer.doc.one("data-level")
    assert level.get("id") == "level" and level.get("hx-vals") is None
    assert computer.doc.one("class", "who", tag="span").text == "The computer"


# -- the card and the invitation -----------------------------------------------------------------


def rooms_made(app) -> int:
    return (
        app.extensions["domino"].rooms.store.db.execute("select count(*) from rooms").fetchone()[0]
    )


@pytest.mark.parametrize(
    ("fields", "seats", "teams"),
    [
        ({"seats": "3"}, 3, False),
        ({"seats": "4", "boneyard": "block"}, 4, True),
        ({"preset": "pairs"}, 4, True),
        ({"preset": "pairs", "seats": "2"}, 2, False),  # pairs only at four
        ({"preset": "three", "seats": "4", "boneyard": "block"}, 4, True),
    ],
)
def test_the_card_makes_tables_of_three_and_four(app, fields, seats, teams):
    host = Table(app)
    host.create_room(**fields)
    room = host.services.rooms.get(host.room)
    assert (room.rules.seats, room.rules.teams) == (seats, teams)
    assert json.loads(host.doc.one("data-rules").get("data-rules"))["seats"] == seats


def test_playing_the_computer_at_four_puts_it_on_every_other_seat(app):
    player = Table(app)
    player.create_room("/computer", preset="pairs", level="hard")
    room = player.services.rooms.get(player.room)
    assert room.bots == (None, "hard", "hard", "hard")
    player.connect()
    doc = player.fragment()
    shown = company(parse(doc.get_data(as_text=True)))
    assert all(node.has("data-computer") for node in shown.values())
    assert [n.get("id") for n in parse(player.html).find_all("data-level")] == [
        "level-seat-3",
        "level-seat-2",
        "level-seat-1",
    ]


@pytest.mark.parametrize(
    ("fields", "setting", "words"),
    [
        ({"seats": "5"}, "Players", "choose a table for 2, 3 or 4 players"),
        ({"seats": "4"}, "Tiles per hand", "at a table of 4, a draw game needs"),
        ({"seats": "4", "boneyard": "block", "hand_size": "8"}, "Tiles per hand", "2 to 7"),
        ({"preset": "three", "hand_size": "10"}, "Tiles per hand", "deal from 2 to 9 tiles"),
    ],
)
def test_the_card_refuses_tables_that_cannot_be_played_saying_why(app, fields, setting, words):
    browser = Table(app)
    browser.home()
    before = rooms_made(app)
    response = browser.client.post("/rooms", data={"csrf_token": browser.csrf, **fields})
    assert response.status_code == 400
    assert rooms_made(app) == before
    alert = parse(response.get_data(as_text=True)).one("id", "rules-error")
    assert f"“{setting}”" in alert.text and words in alert.text


def test_the_card_offers_two_three_or_four_seats_and_the_n_seat_presets(app):
    doc = parse(Table(app).home().get_data(as_text=True))
    form = doc.one("data-rules-form")
    seats = form.find_all("name", "seats")
    assert [n.get("value") for n in seats] == ["2", "3", "4"]
    assert all(n.parent.tag == "label" and n.parent.text for n in seats)
    presets = json.loads(form.get("data-presets"))
    assert presets["pairs"]["seats"] == "4" and presets["three"]["seats"] == "3"
    assert {"pairs", "three"} <= {n.get("data-preset") for n in form.find_all("data-preset")}


def test_the_invitation_says_one_link_serves_every_seat(app):
    host = Table(app)
    host.create_room(preset="pairs")
    host.connect()
    invite = host.fragment()
    doc = parse(invite.get_data(as_text=True))
    note = doc.one("data-free-seats")
    assert note.get("data-free-seats") == "3"
    assert "3 seats are still free" in note.text and "same link" in note.text
    guest = Table(app, host.room)
    page = parse(guest.open().get_data(as_text=True))
    text = page.one("class", "join-seats").text
    assert "This table seats 4 players." in text and "same link serves every seat" in text
    two = Table(app)
    two.create_room()
    assert (
        parse(Table(app, two.room).open().get_data(as_text=True)).find("class", "join-seats")
        is None
    )


# -- labels and languages --------------------------------------------------------------------------


def test_every_seat_control_is_labelled(app):
    host = Table(app)
    host.create_room(preset="pairs")
    host.connect()
    host.fragment()
    assert host.post("computer", seat=2, level="easy", seq=None).status_code == 200
    doc = host.doc
    labels = {n.get("for") for n in doc.find_all(tag="label") if n.has("for")}
    controls = [n for n in doc.find_all(tag="select")] + doc.find_all("id", "my-name")
    assert len(controls) >= 3
    for control in controls:
        assert control.get("id") in labels, control
    for group in doc.one("class", "seat-controls").find_all(tag="fieldset"):
        assert group.one(tag="legend").text
    assert doc.one("id", "my-name").get("maxlength") == "20"


@pytest.mark.parametrize("lang", ["nl", "pl", "fr"])
def test_a_table_of_four_speaks_the_language(app, lang):
    from tests.support.languages import ENGLISH_WORDS, english_phrases, visible_text

    phrases = english_phrases(lang)
    tables = seated(app, "pairs", 2)
    for table in tables:
        table.client.set_cookie("lang", lang)
    tables[0].post("computer", seat=3, level="easy", seq=None)
    tables[1].post("name", name="Ola", seq=None)
    pages = [table.fragment().get_data(as_text=True) for table in tables]
    invited = Table(app, tables[0].room)
    invited.client.set_cookie("lang", lang)
    pages.append(invited.open().get_data(as_text=True))
    for html in pages:
        text = visible_text(html)
        left = [p for p in phrases if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", text)]
        assert not left, f"English in a {lang} page: {left}"
        assert not ENGLISH_WORDS.findall(text.replace("Domino online", "")), text


# -- the story in words, at three and four ---------------------------------------------------------


def test_the_notes_and_the_move_list_name_each_seat_and_sum_up_its_turn(app):
    """Unit level: one note per other seat that moved since this seat's last move, in the
    order they moved, each naming the seat and summing up its turn; names escaped."""
    from dataclasses import replace

    from domino.events import PublicMove
    from domino.tiles import Tile
    from domino.views import Company, TableView, seat_view
    from domino.web.view.render import Speaker, announcement
    from domino.web.view.story import Teller

    def told(rules, seat, history, turn, names=None):
        state = game.start(game.deal(rules, random.Random(1)), rules)
        seen = replace(seat_view(state, seat), history=tuple(history), turn=turn)
        company = tuple(
            Company(
                s, 7, True, rules.teams and s % 2 == seat % 2, None, True, (names or {}).get(s, "")
            )
            for s in ((seat + k) % rules.seats for k in range(1, rules.seats))
        )
        tv = TableView(
            "room",
            "friend",
            seat,
            seen,
            1,
            True,
            True,
            None,
            True,
            False,
            rules=rules,
            company=company,
        )
        with app.test_request_context("/"):
            speak = Speaker.current()
            return Teller.current(speak).tell(tv), announcement(tv, speak)

    def play(seat, tile, end, ends):
        left, right = ends if ends else (None, None)
        return PublicMove(seat, "play", Tile(*map(int, tile.split("-"))), end, left, right)

    def draw(seat):
        return PublicMove(seat, "draw", None, None, 6, 6)

    def passed(seat):
        return PublicMove(seat, "pass", None, None, 6, 6)

    history = [play(0, "6-6", "right", None), draw(1), draw(1), passed(1), draw(2)]
    story, said = told(PRESETS["three"], 0, history, turn=2)
    assert [note.text for note in story.notes] == [
        "East drew 2 tiles and passed.",
        "West drew 1 tile.",
    ]
    assert said == "West drew a tile (7 in their hand)."
    items = parse(f"<ol>{story.items}</ol>").find_all("data-move")
    assert [n.text for n in items] == [
        "You opened with double six.",
        "East drew a tile.",
        "East drew a tile.",
        "East passed.",
        "West drew a tile.",
    ]
    history = [play(1, "6-6", "right", None), play(2, "6-3", "left", (6, 6)), passed(3)]
    story, said = told(PRESETS["pairs"], 0, history, turn=0)
    assert [note.text for note in story.notes] == [
        "East opened with double six.",
        "Your partner laid three–six on the left.",
        "West passed.",
    ]
    assert said == "West passed. Your turn."
    story, said = told(PRESETS["pairs"], 1, history, turn=0, names={2: "<b>Zoë</b>"})
    assert [note.text for note in story.notes] == [
        "<b>Zoë</b> laid three–six on the left.",
        "Your partner passed.",
    ]
    assert said == "Your partner passed."
    assert "&lt;b&gt;Zoë" in str(story.items) and "<b>Zoë" not in str(story.items)
