"""The rules at the table (issue 29, item 5): the one-line summary names what differs from the
default game, the "The rules of this table" panel gives every rule as the invitation does, and
the empty line says why the seat on turn opens, for every opener of docs/contracts.md, at two,
three and four seats.

Tables are drawn by the one renderer (web/view/render.py) from rooms folded as the store would
fold them, with the round replaced by a deal chosen here (`game.deal_out`).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from itertools import combinations

import pytest

from domino import game
from domino.actions import fold_in, rules_event
from domino.match import Match
from domino.room import empty
from domino.rules import BLOCKED, DEFAULT, LEADS, NEXT_OPENERS, OPENERS, PRESETS, SCORINGS
from domino.tiles import full_set
from domino.views import table_view
from domino.web.view import rules_text
from domino.web.view.render import links, render_table
from tests.support.webkit import Table, assert_hides, make_app, parse

LANGS = ("en", "nl", "pl", "fr")
# Every setting the summary must name when it is not the default game's, one change each.
CHANGES = [
    *({"opener": v} for v in OPENERS if v != DEFAULT.opener),
    *({"lead": v} for v in LEADS if v != DEFAULT.lead),
    *({"next_opener": v} for v in NEXT_OPENERS if v != DEFAULT.next_opener),
    *({"blocked": v} for v in BLOCKED if v != DEFAULT.blocked),
    *({"scoring": v} for v in SCORINGS if v != DEFAULT.scoring),
]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return make_app(tmp_path_factory.mktemp("rules") / "domino.sqlite3", seed=7)


def in_language(app, lang: str, what):
    with app.test_request_context("/", headers={"Cookie": f"lang={lang}"}):
        return what()


def spaced(texts) -> list[str]:
    """Texts with their whitespace collapsed, as `Node.text` reads a page's."""
    return [" ".join(text.split()) for text in texts]


def line(app, rules, lang: str = "en") -> str:
    return in_language(app, lang, lambda: rules_text.rules_line(rules))


# --- the summary --------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_international_and_match_to_100_no_longer_read_the_same(app, lang):
    international, match = PRESETS["international"], PRESETS["match-100"]
    assert line(app, international, lang) != line(app, match, lang)
    lines = {name: line(app, rules, lang) for name, rules in PRESETS.items()}
    assert len(set(lines.values())) == len(lines), lines  # no two presets read alike


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("change", CHANGES, ids=lambda c: "=".join(*c.items()))
def test_each_setting_that_differs_from_the_default_is_named(app, lang, change):
    """Changed alone, every setting adds words of its own to the default game's line (the
    line still opens with the default's words), and reads unlike every other change."""
    plain = line(app, DEFAULT, lang)
    changed = line(app, replace(DEFAULT, **change), lang)
    shared = plain.rsplit(rules_text.SEPARATOR, 1)[0]  # all but "single rounds"
    assert changed.startswith(shared) and len(changed) > len(plain), (change, changed)
    for other in CHANGES:
        if other != change:
            assert line(app, replace(DEFAULT, **other), lang) != changed, (change, other)


def test_settings_changed_together_are_all_named(app):
    """Two changes read unlike either alone: the line names every difference, not the first."""
    for one, two in combinations(CHANGES, 2):
        if one.keys() == two.keys():
            continue
        both = line(app, replace(DEFAULT, **one, **two))
        if "scoring" in one | two and "blocked" in one | two:
            continue  # Goat scoring does not use the blocked rule: it goes unsaid
        assert both != line(app, replace(DEFAULT, **one)), (one, two)
        assert both != line(app, replace(DEFAULT, **two)), (one, two)


def test_the_default_game_names_no_difference(app):
    assert line(app, DEFAULT) == "Draw game · 7 tiles · single rounds"
    assert line(app, PRESETS["match-100"]) == "Draw game · 7 tiles · blocked: all pips · to 100"


# --- the panel ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["classic", "international", "goat", "pairs", "three"])
def test_the_table_shows_the_full_rules_in_a_panel_as_the_invitation_does(app, name):
    host = Table(app)
    host.create_room(preset=name)
    invitation = parse(Table(app, host.room).open().get_data(as_text=True))
    invited = [li.text for li in invitation.one("data-rules").find_all(tag="li")]
    table = parse(host.client.get(host.url).get_data(as_text=True))
    panel = table.one("data-rules-panel")
    assert panel.tag == "details" and not panel.has("open")  # folded until asked for
    assert panel.get("hx-preserve") == "true" and panel.get("id")  # kept open across swaps
    # the rules line (data-rules) is what opens it, named for what it unfolds
    summary = panel.elements[0]
    assert summary.tag == "summary"
    assert summary.one("data-rules") is table.one("data-rules")
    assert json.loads(summary.one("data-rules").get("data-rules")) == PRESETS[name].to_json()
    with app.test_request_context():
        sentences = rules_text.rules_sentences(PRESETS[name])
        one_line = rules_text.rules_line(PRESETS[name])
    assert summary.text == f"All the rules of this table: {one_line}"
    shown = [li.text for li in panel.find_all(tag="li")]
    assert shown == invited == spaced(sentences)
    assert len(shown) >= 8  # every setting, not the one-line summary
    assert table.one("id", "status").one("data-rules-panel") is panel


@pytest.mark.parametrize("lang", ["nl", "pl", "fr"])
def test_the_panel_speaks_the_page_language(app, lang):
    host = Table(app)
    host.create_room(preset="block")
    host.client.set_cookie("lang", lang)
    panel = parse(host.client.get(host.url).get_data(as_text=True)).one("data-rules-panel")
    sentences = in_language(app, lang, lambda: rules_text.rules_sentences(PRESETS["block"]))
    english = in_language(app, "en", lambda: rules_text.rules_sentences(PRESETS["block"]))
    assert [li.text for li in panel.find_all(tag="li")] == spaced(sentences) != spaced(english)
    title = in_language(app, lang, lambda: rules_text.gettext("All the rules of this table:"))
    assert title != "All the rules of this table:"
    assert panel.elements[0].text.startswith(spaced([title])[0])


# --- why you open -------------------------------------------------------------------------------

OTHERS_OPEN = {
    "highest-double": "The holder of the highest double opens; if nobody holds a double, "
    "the holder of the heaviest tile.",
    "lowest-double": "The holder of the lowest double opens, the double blank not counting; "
    "if nobody holds one, the holder of the lightest tile.",
    "heaviest-tile": "The holder of the heaviest tile opens.",
}


def rules_for(seats: int, opener: str, **more):
    """A table of `seats` (pairs at four) with this opener; five tiles each, so a deal may hold
    every double or none."""
    return replace(DEFAULT, seats=seats, teams=seats == 4, hand_size=5, opener=opener, **more)


def dealt(rules, doubles: bool, seed: int):
    """A deal of `rules`: with `doubles`, the 3-3 (a double for every opener) among the
    hands; without, every double left in the boneyard."""
    tiles = list(full_set())
    random.Random(seed).shuffle(tiles)
    if doubles:
        tiles.sort(key=lambda t: (t.low, t.high) != (3, 3))  # first: into seat 0's hand
    else:
        tiles.sort(key=lambda t: t.is_double)  # the singles first, every double undealt
    return game.deal_out(rules, tiles)


def room_with(rules, state, match=None, rounds=0):
    """A friend room of `rules`, every seat taken, playing `state`."""
    seats = [("seat", {"seat": seat, "hash": f"h{seat}"}) for seat in range(rules.seats)]
    room = fold_in(empty("A" * 22, "friend"), [rules_event(rules), *seats])
    return replace(room, round=state, match=match, rounds=rounds)


def empty_line(app, room, seat: int, lang: str = "en") -> tuple[str, str]:
    """The empty line's reason as `seat` reads it, and the whole table's HTML."""
    with app.test_request_context(f"/r/{room.id}", headers={"Cookie": f"lang={lang}"}):
        html = render_table(table_view(room, seat, set(range(room.rules.seats))), links(room))
    doc = parse(html)
    empty_p = doc.one("class", "empty")
    return empty_p.one("data-opener-reason").text, html


def mine(rules, hands) -> str:
    """What the opener reads, worked out from every hand of the deal."""
    dealt_doubles = [t for hand in hands for t in hand if t.is_double]
    if rules.opener == "heaviest-tile":
        return "You open: you hold the heaviest tile."
    if rules.opener == "lowest-double":
        if any(t.high > 0 for t in dealt_doubles):
            return "You open: you hold the lowest double, the double blank not counting."
        return (
            "You open: nobody holds a double other than the double blank, "
            "and you hold the lightest tile."
        )
    if dealt_doubles:
        return "You open: you hold the highest double."
    return "You open: nobody holds a double, and you hold the heaviest tile."


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("opener", OPENERS)
@pytest.mark.parametrize("doubles", [True, False], ids=["doubles", "no-double"])
def test_the_empty_line_says_why_the_opener_opens(app, seats, opener, doubles):
    for seed in range(3):
        rules = rules_for(seats, opener)
        started = dealt(rules, doubles, seed)
        state = game.start(started, rules)
        room = room_with(rules, state)
        for seat in range(seats):
            said, html = empty_line(app, room, seat)
            expected = mine(rules, started.hands) if seat == state.turn else OTHERS_OPEN[opener]
            assert said == expected, (seat, state.turn, started.hands)
            assert_hides(html, state, seat)  # nobody learns another seat's tile from it


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_last_winner_opens_in_a_match_and_is_told_so(app, seats):
    rules = rules_for(seats, "highest-double", next_opener="previous-winner", target=100)
    for winner in range(seats):
        started = dealt(rules, True, winner)
        state = game.start(started, rules, leader=winner)
        match = Match(rules, (0,) * seats, rounds=1, last_winner=winner)
        room = room_with(rules, state, match, rounds=1)
        for seat in range(seats):
            said, _html = empty_line(app, room, seat)
            if seat == winner:
                assert said == "You won the last round, so you open, with any tile."
            else:
                assert said == "The winner of the last round opens, with any tile."
        # a rematch replays its deal as a first round: the rule opens it again
        rematch = replace(room, round=game.start(started, rules), duplicate=state)
        opener_seat = rematch.round.turn
        said, _html = empty_line(app, rematch, (opener_seat + 1) % seats)
        assert said == OTHERS_OPEN["highest-double"]


def test_a_drawn_last_round_leaves_the_opening_to_the_rule(app):
    rules = rules_for(2, "lowest-double", next_opener="previous-winner", target=100)
    started = dealt(rules, True, 0)
    state = game.start(started, rules)  # no winner to lead: the rule picks
    room = room_with(rules, state, Match(rules, (0, 0), rounds=1, last_winner=None), rounds=1)
    said, _html = empty_line(app, room, 1 - state.turn)
    assert said == OTHERS_OPEN["lowest-double"]


@pytest.mark.parametrize("lang", ["nl", "pl", "fr"])
def test_the_reason_is_in_the_page_language(app, lang):
    rules = rules_for(3, "heaviest-tile")
    state = game.start(dealt(rules, True, 1), rules)
    room = room_with(rules, state)
    for seat in range(3):
        english, _html = empty_line(app, room, seat)
        said, _html = empty_line(app, room, seat, lang)
        assert said and english and said != english, (seat, said)


def test_once_a_tile_is_down_the_reason_is_gone(app):
    rules = rules_for(2, "highest-double")
    state = game.start(dealt(rules, True, 2), rules)
    action = game.legal_actions(state, state.turn)[0]
    state, _move = game.step(state, state.turn, action)
    with app.test_request_context("/r/x"):
        room = room_with(rules, state)
        html = render_table(table_view(room, 0, {0, 1}), links(room))
    assert "data-opener-reason" not in html
