"""The parts of a table drawn once and reused (web/view/render.py, faces.py, story.py) never reach
a table they do not match: a table drawn with every cache warm is the one drawn with every
cache empty, whatever changed without a move (names, presence, links, the language)."""

from __future__ import annotations

import dataclasses
import random
from contextlib import contextmanager

import pytest
from flask_babel import force_locale

from domino import game
from domino.rules import PRESETS
from domino.tiles import Laid
from domino.views import table_view
from domino.web.view import faces, names, parts, render, scoring, story
from domino.web.view.render import Links, links, render_table
from tests.support.webkit import company, make_app, parse

LANGUAGES = ("en", "nl", "pl", "fr")


def caches() -> list[dict]:
    """Every cache of drawn parts and words."""
    drawn = [faces.CHAINS, parts.PILES, parts.RULES_LINES, parts.PARTS, scoring.SCORES]
    return [*drawn, parts.SEQ_VALS, story.TELLERS, faces.SPEAKERS, names.LEVEL_WORDS]


def forget() -> None:
    """Empty every cache of drawn parts and words."""
    for cache in caches():
        cache.clear()


@contextmanager
def cold():
    """Every cache empty for a while, then as it was: the warm caches go on being used."""
    kept = [(cache, dict(cache)) for cache in caches()]
    forget()
    try:
        yield
    finally:
        for cache, entries in kept:
            cache.clear()
            cache.update(entries)


def draw(app, tv, where: Links, lang: str = "en", **kw) -> str:
    """One seat's table, as a push draws it in `lang`."""
    with app.test_request_context("/"), force_locale(lang):
        return str(render_table(tv, where, **kw))


def draw_both_ways(app, tv, where: Links, lang: str = "en", **kw) -> str:
    """The table drawn with the caches as they are, checked against one drawn from none."""
    warm = draw(app, tv, where, lang, **kw)
    with cold():
        assert draw(app, tv, where, lang, **kw) == warm, "a kept part did not match this table"
    return warm


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=5, AWAY_SECONDS=120)


def three_seats(app):
    """A table of three: the creator, a guest (seat 1), the computer on seat 2."""
    rooms = app.extensions["domino"].rooms
    room, _secret = rooms.create("friend", rules=PRESETS["three"])
    rooms.join(room.id, None)
    return rooms, rooms.give(room.id, 2, "easy")


def where(app, room) -> Links:
    with app.test_request_context("/"):
        return links(room)


def test_a_new_name_shows_at_once_though_nothing_was_played(app):
    rooms, room = three_seats(app)
    path = where(app, room)
    before = draw_both_ways(app, table_view(room, 0, {0, 1}), path)
    for name in ("Ann", "Bea"):
        room = rooms.name(room.id, 1, name)
        html = draw_both_ways(app, table_view(room, 0, {0, 1}), path)
        shown = company(parse(html))[1]
        assert shown.find("class", "who").text == name
        assert ("Ann" in html) == (name == "Ann")
        assert html != before
    assert parse(html).one("data-chain") is not None


def test_a_given_name_is_kept_by_no_cache(app):
    rooms, room = three_seats(app)
    room = rooms.name(room.id, 1, "Zebedee")
    for seat in (0, 1):
        html = draw(app, table_view(room, seat, {0, 1}, away_long={1 - seat}), where(app, room))
        assert "Zebedee" in html
    tellers = story.TELLERS.values()
    kept = [*caches(), *(t._told for t in tellers), *(t._items for t in tellers)]
    assert "Zebedee" not in repr(kept)


def test_presence_shows_as_it_is_at_the_same_move(app):
    rooms = app.extensions["domino"].rooms
    room, _secret = rooms.create("friend")
    room = rooms.join(room.id, None)[0]
    path = where(app, room)
    for present in ({0, 1}, {0}, {0, 1}):
        html = draw_both_ways(app, table_view(room, 0, present), path)
        shown = parse(html).one("data-opponent-connected").get("data-opponent-connected")
        assert shown == ("true" if present == {0, 1} else "false")
    rooms, room = three_seats(app)
    path = where(app, room)
    for present, away_long in (({0, 1}, ()), ({0}, ()), ({0}, {1}), ({0, 1}, ())):
        html = draw_both_ways(app, table_view(room, 0, present, away_long=away_long), path)
        assert company(parse(html))[1].get("data-connected") == str(1 in present).lower()
        assert ('data-hand-over="1"' in html) == bool(away_long)


def test_languages_do_not_mix(app):
    rooms, room = three_seats(app)
    turn = room.round.turn
    room = rooms.commit_as(room, turn, game.legal_actions(room.round, turn)[0])
    tv, path = table_view(room, 0, {0, 1}), where(app, room)
    alone = {}
    for lang in LANGUAGES:
        forget()
        alone[lang] = draw(app, tv, path, lang)
    assert len(set(alone.values())) == len(LANGUAGES)
    for lang in [*LANGUAGES, *reversed(LANGUAGES), "nl", "en", "nl"]:
        assert draw(app, tv, path, lang) == alone[lang], lang


def test_another_state_under_the_same_move_gets_its_own_line(app):
    """The line's list is kept per room and language under the line it was drawn from: a
    view of the same room and move with another line (none happens, but nothing relies on
    it) is drawn from its own."""
    rooms, room = three_seats(app)
    seat = room.round.turn
    room = rooms.commit_as(room, seat, game.legal_actions(room.round, seat)[0])
    tv, path = table_view(room, 0, {0, 1}), where(app, room)
    first = draw(app, tv, path)
    other = dataclasses.replace(tv, game=dataclasses.replace(tv.game, line=(Laid(6, 4),)))
    html = draw(app, other, path)
    tiles = [node.get("data-tile") for node in parse(html).one("data-chain").find_all("data-tile")]
    assert tiles == ["6-4"]
    assert draw(app, tv, path) == first


def test_links_are_each_page_own(app):
    rooms = app.extensions["domino"].rooms
    room, _secret = rooms.create("friend")
    room = rooms.join(room.id, None)[0]
    tv = table_view(room, room.round.turn, {0, 1})
    _rooms, three = three_seats(app)
    creator = table_view(three, 0, {0, 1})  # sets the level of the computer's seat
    for root in ("", "/sub", "", "/other"):
        html = draw_both_ways(app, tv, Links(f"{root}/r/{room.id}"))
        assert f'hx-post="{root}/r/{room.id}/new-round"' in html
    for root in ("", "/sub", "", "/other"):
        html = draw(app, creator, Links(f"{root}/r/{three.id}"))  # the caches stay warm
        assert f'id="level-seat-2" name="level" data-level hx-post="{root}/r/{three.id}/' in html


def test_a_story_told_is_told_again_only_to_whom_it_was_told(app):
    """A seat's move list is carried on from the one told before only for the same persons:
    the same room, seat and moves told as at a computer's table name the computer."""
    rooms = app.extensions["domino"].rooms
    room, _secret = rooms.create("friend")
    room = rooms.join(room.id, None)[0]
    for _move in range(3):
        turn = room.round.turn
        room = rooms.commit_as(room, turn, game.legal_actions(room.round, turn)[0])
    tv, path = table_view(room, 0, {0, 1}), where(app, room)
    friend = draw(app, tv, path)
    other = draw(app, dataclasses.replace(tv, kind="computer"), path)
    forget()
    assert other == draw(app, dataclasses.replace(tv, kind="computer"), path)
    assert "Your friend" in parse(friend).one("data-move-list").text
    assert "The computer" in parse(other).one("data-move-list").text


def test_an_away_note_counts_the_minutes_of_its_own_app(tmp_path):
    notes = []
    for seconds in (60, 180):
        app = make_app(tmp_path / f"{seconds}.sqlite3", seed=5, AWAY_SECONDS=seconds)
        _rooms, room = three_seats(app)
        tv = dataclasses.replace(table_view(room, 0, {0}, away_long={1}), room="same")
        notes.append(parse(draw(app, tv, Links("/r/same"))).one("class", "seat-note").text)
        app.extensions["domino"].close()
    assert "1 minute" in notes[0] and "3 minutes" in notes[1]


@pytest.mark.parametrize(("preset", "kind"), [("classic", "friend"), ("pairs", "computer")])
def test_tables_drawn_warm_are_the_tables_drawn_cold(app, preset, kind):
    """Round after round, every seat in two languages, with the others there or away, a tile
    selected: no table drawn from warm caches differs from its cold drawing."""
    rooms = app.extensions["domino"].rooms
    room, _secret = rooms.create(kind, rules=PRESETS[preset])
    if kind == "friend":
        room = rooms.join(room.id, None)[0]
    rng, path = random.Random(11), where(app, room)
    for _move in range(60):
        for seat in room.humans:
            for lang in ("fr", "pl"):
                tv = table_view(room, seat, set(room.humans))
                html = draw_both_ways(app, tv, path, lang)
                for tile in render.choices(tv):
                    draw_both_ways(app, tv, path, lang, selected=tile, notice="<b>!</b>")
            draw_both_ways(app, table_view(room, seat, {seat}, live=False), path, "nl")
        if room.round.over:  # every person asks or agrees, one at a time
            seat = next(seat for seat in room.humans if seat not in room.agreed)
            answer = "new-round" if room.request is None else "accept-new-round"
            room = rooms.act(room.id, seat, answer, {}, set(room.humans), room.seq)
            continue
        turn = room.round.turn
        room = rooms.commit_as(room, turn, rng.choice(game.legal_actions(room.round, turn)))
    assert "data-chain" in html


def test_every_cache_stays_bounded():
    kept = parts.PARTS
    for number in range(faces.KEPT + 50):
        faces.remember(kept, ("filler", number), "x")
    assert len(kept) <= faces.KEPT
    assert ("filler", faces.KEPT + 49) in kept and ("filler", 0) not in kept
    forget()


def test_a_tile_of_the_hand_is_drawn_for_its_own_state(app):
    """A hand's button is kept per tile, whether it is chosen and whether it opens the round:
    the same tile that opened one round is a plain tile in the next."""
    rooms = app.extensions["domino"].rooms
    room, _secret = rooms.create("friend")
    room = rooms.join(room.id, None)[0]
    opener = next(seat for seat in (0, 1) if table_view(room, seat, {0, 1}).game.opening)
    tv, path = table_view(room, opener, {0, 1}), where(app, room)
    tile = str(tv.game.opening)
    later = dataclasses.replace(tv, game=dataclasses.replace(tv.game, opening=None))
    for view, opening in ((tv, True), (later, False), (tv, True)):
        button = parse(draw_both_ways(app, view, path)).one("id", f"tile-{tile}")
        assert button.has("data-opening") == opening
        assert ("opening" in button.get("class").split()) == opening
