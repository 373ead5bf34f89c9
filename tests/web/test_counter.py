"""The fair tile counter (issue 16): what it counts, that it reads public facts only, the rules
card's box that turns it on, and the table's `data-counter` part (hooks, four languages)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from flask import current_app
from werkzeug.datastructures import MultiDict

from domino.counter import TileCounter, tile_counter
from domino.rules import DEFAULT, PRESETS
from domino.tiles import tiles
from domino.views import seat_view, table_view
from domino.web.forms.rules_form import CardError, card_for, counter_from_form
from domino.web.view.render import links, render_table
from tests.support import leaks
from tests.support.leaks import leak_into_tables
from tests.support.scenario import play, round_of
from tests.support.webkit import Table, friends, make_app, parse

# Seat 0 holds six of the seven sixes; the last one, 3-6, lies second in the boneyard.
SIXES = ("6-6 0-6 1-6 2-6 4-6 5-6 4-4", "0-0 0-1 0-2 0-3 0-4 0-5 1-1")


def test_at_the_deal_a_number_counts_the_tiles_showing_it_outside_the_hand():
    state = round_of(*SIXES)
    counter = seat_view(state, 0, counter=True).counter
    # Seat 0 holds 4-4, 0-6 .. 6-6: one six is unseen (3-6); of the fours, 4-4 and 4-6 are held.
    assert counter.unseen == (6, 6, 6, 7, 5, 6, 1)
    mine = seat_view(state, 1, counter=True).counter
    assert mine.unseen == (1, 5, 6, 6, 6, 6, 7)  # 0-6 is the other hand's
    assert counter.lacks == ((1, ()),) and mine.lacks == ((0, ()),)


def test_a_double_counts_once_and_the_line_counts_as_seen():
    state = play(round_of(*SIXES, boneyard="1-2 3-6"), "0: 6-6 left")
    counter = seat_view(state, 1, counter=True).counter
    # Seat 1 sees its own seven tiles and 6-6 on the line: all seven sixes but six unseen.
    assert counter.unseen[6] == 6
    assert sum(counter.unseen) == sum(1 if t.is_double else 2 for t in unseen(state, 1))


def unseen(state, seat):
    seen = set(state.hands[seat]) | {laid.tile for laid in state.line}
    return [t for t in DEFAULT.full_set() if t not in seen]


def test_drawing_shows_the_open_ends_lacking_once_the_run_of_draws_ends():
    state = play(round_of(*SIXES, boneyard="1-2 3-6"), "0: 6-6 left", "1: draw")
    assert seat_view(state, 0, counter=True).counter.lacks == ((1, ()),)  # it may lay 1-2 now
    state = play(state, "1: draw", "1: 3-6 left")
    assert seat_view(state, 0, counter=True).counter.lacking(1) == (6,)
    # the same for the seat that drew: its counter shows what the other has shown, nothing more
    assert seat_view(state, 1, counter=True).counter.lacks == ((0, ()),)


def test_a_pass_in_the_block_game_shows_both_ends_lacking_for_good():
    rules = PRESETS["block"]  # the lowest double other than 0-0 leads, with any tile
    hands = ("1-1 1-6 6-6 5-6 5-5 4-5 4-4", "0-2 0-3 2-3 2-2 3-3 0-4 2-4")
    state = play(round_of(*hands, rules=rules), "0: 6-6 left", "1: pass")
    assert seat_view(state, 0, counter=True).counter.lacking(1) == (6,)
    state = play(state, "0: 5-6 right", "1: pass")
    assert state.ends == (6, 5)
    assert seat_view(state, 0, counter=True).counter.lacking(1) == (5, 6)
    state = play(state, "0: 1-6 left")
    assert seat_view(state, 0, counter=True).counter.lacking(1) == (5, 6)  # no draw: it holds
    assert seat_view(state, 1, counter=True).counter.lacking(0) == ()


def test_the_counter_is_made_for_a_seat_only_when_asked():
    state = round_of(*SIXES)
    assert seat_view(state, 0).counter is None
    asked = seat_view(state, 0, counter=True)
    assert asked.counter == tile_counter(DEFAULT, 0, state.hands[0], state.line, state.history)
    assert replace(asked, counter=None) == seat_view(state, 0)


def test_the_counter_of_a_smaller_set_has_a_number_per_pip():
    rules = replace(DEFAULT, max_pip=3, hand_size=3)
    counter = tile_counter(rules, 0, tiles("0-0 0-1 3-3"), (), ())
    assert counter == TileCounter((2, 3, 4, 3), ((1, ()),))


# -- the rules card -------------------------------------------------------------------------


def test_the_card_box_is_off_unless_ticked_and_refuses_other_values():
    assert counter_from_form(MultiDict()) is False
    assert counter_from_form(MultiDict({"counter": ""})) is False
    assert counter_from_form(MultiDict({"counter": "on"})) is True
    with pytest.raises(CardError) as refused:
        counter_from_form(MultiDict({"counter": "yes please"}))
    assert refused.value.field == "counter" and "Tile counter" in refused.value.message


def test_a_card_shown_again_keeps_its_box(tmp_path):
    assert card_for(MultiDict({"counter": "on", "seats": "3"})).counter is True
    assert card_for(MultiDict({"seats": "3"})).counter is False
    assert card_for().counter is False


def test_the_home_card_offers_the_box_unticked_outside_the_rules(tmp_path):
    app = make_app(tmp_path / "home.sqlite3")
    doc = parse(Table(app).home().get_data(as_text=True))
    form = doc.one("data-rules-form")
    box = form.one("name", "counter", tag="input")
    assert box.get("type") == "checkbox" and box.get("value") == "on"
    assert not box.has("checked")
    label = form.one("for", box.get("id"), tag="label")
    assert label.text.strip() == "Tile counter"


# -- the table's part -----------------------------------------------------------------------


def counted_table(app, seat: int = 0, **card) -> str:
    """Seat `seat`'s table of a fresh friend room, drawn with the counter on."""
    a, _b = friends(app, **card)
    room = a.services.rooms.get(a.room)
    tv = table_view(room, seat, present={0, 1})
    tv = replace(tv, game=seat_view(room.round, seat, counter=True))
    with app.test_request_context():
        return render_table(tv, links(room), oob=False), room


def test_the_table_shows_every_number_and_the_other_seat(tmp_path):
    app = make_app(tmp_path / "t.sqlite3")
    html, room = counted_table(app)
    part = parse(html).one("data-counter")
    counter = seat_view(room.round, 0, counter=True).counter
    cells = part.find_all("data-counter-number")
    assert [c.get("data-counter-number") for c in cells] == [str(n) for n in range(7)]
    assert [int(c.text) for c in cells] == list(counter.unseen)
    lacks = part.find_all("data-lacks-seat")
    assert [(n.get("data-lacks-seat"), n.get("data-lacks")) for n in lacks] == [("1", "")]
    assert part.find(tag="caption") is not None and part.find(tag="h2") is not None


def test_the_lacks_read_as_a_list_of_numbers(tmp_path):
    app = make_app(tmp_path / "t.sqlite3")
    _html, room = counted_table(app)
    counter = TileCounter((1,) * 7, ((1, (4, 6)),))
    tv = table_view(room, 0, present={0, 1})
    tv = replace(tv, game=replace(tv.game, counter=counter))
    with app.test_request_context():
        doc = parse(render_table(tv, links(room), oob=False))
    item = doc.one("data-lacks-seat", "1")
    assert item.get("data-lacks") == "4,6"
    assert "4, 6" in item.text


def test_the_table_has_no_counter_when_it_is_off(tmp_path):
    app = make_app(tmp_path / "t.sqlite3")
    a, _b = friends(app)
    assert a.doc.find("data-counter") is None
    assert "data-lacks" not in a.html


@pytest.mark.parametrize("lang", ["en", "nl", "pl", "fr"])
def test_the_counter_speaks_every_language(tmp_path, lang):
    app = make_app(tmp_path / "t.sqlite3")
    a, _b = friends(app)
    room = a.services.rooms.get(a.room)
    counter = TileCounter((1,) * 7, ((1, (4, 6)),))
    tv = table_view(room, 0, present={0, 1})
    tv = replace(tv, game=replace(tv.game, counter=counter))
    with app.test_request_context(headers={"Accept-Language": lang}):
        a.client.set_cookie("lang", lang)
        part = parse(render_table(tv, links(room), oob=False)).one("data-counter")
    words = (part.one(tag="h2").text, part.one(tag="caption").text)
    english = ("Tile counter", "Tiles of each number you have not seen yet")
    if lang == "en":
        assert words[0] == english[0]
    else:
        assert words[0] != english[0] and not words[1].startswith(english[1]), words


# -- through the server (the lead's Room.counter) -------------------------------------------


def test_a_room_made_with_the_box_ticked_shows_every_seat_its_counter(tmp_path):
    app = make_app(tmp_path / "t.sqlite3")
    a, b = friends(app, counter="on")
    assert a.services.rooms.get(a.room).counter is True
    assert a.services.rooms.get(a.room).rules == DEFAULT  # the rules object does not change
    for table in (a, b):
        doc = table.doc
        assert doc.one("data-counter") is not None
        assert "counter" not in doc.one("data-rules").get("data-rules")
        state, seat = table.state, table.seat
        counter = seat_view(state, seat, counter=True).counter
        shown = [int(c.text) for c in doc.find_all("data-counter-number")]
        assert shown == list(counter.unseen)


# -- the leak scanner with the counter on, and its server-seed rule -------------------------


@pytest.mark.slow  # a leak scan of whole rounds through the app
def test_a_short_scan_with_the_counter_on_finds_no_leak_and_counters_everywhere(tmp_path):
    result = leaks.scan(
        rounds=3, seed=7, db_dir=str(tmp_path), per_room=1, seats="mix", counter=True
    )
    assert result["rounds"] == 3 and result["tables"] > 0
    assert result["counters"] == result["tables"], "a table without its counter"
    assert result["leaks"] == 0 and result["early_seeds"] == 0, result["examples"]


@pytest.mark.slow  # a leak scan of whole rounds through the app
def test_a_scan_without_the_counter_shows_none(tmp_path):
    result = leaks.scan(rounds=1, seed=7, db_dir=str(tmp_path), per_room=1)
    assert result["tables"] > 0 and result["counters"] == 0
    assert result["leaks"] == 0, result["examples"]


def fair_of(tv):
    return current_app.extensions["domino"].rooms.get(tv.room).fair


@pytest.mark.slow  # a leak scan of whole rounds through the app
@pytest.mark.parametrize(
    "shown",
    [
        lambda tv, state: "" if state.over else f"<p>{fair_of(tv).current['server_seed']}</p>",
        lambda tv, state: f'<p data-server-seed="{fair_of(tv).pending}"></p>',
        lambda tv, state: f"<!-- {fair_of(tv).pending} -->",
    ],
    ids=["current-seed-mid-round", "next-seed-as-the-hook", "next-seed-anywhere"],
)
def test_the_scanner_flags_a_server_seed_shown_too_soon(tmp_path, monkeypatch, shown):
    def extra(tv, state) -> str:
        fair = fair_of(tv)
        return shown(tv, state) if fair.current and fair.pending else ""

    leak_into_tables(monkeypatch, extra)
    result = leaks.scan(rounds=1, seed=7, db_dir=str(tmp_path), per_room=1)
    assert result["early_seeds"] > 0 and result["leaks"] >= result["early_seeds"]
    assert any("seed" in example for example in result["examples"]), result["examples"]
