"""Drawing the table: tile faces, and renders that leave nothing for the garbage collector."""

from __future__ import annotations

import gc
import os
import random
import re
import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po
from flask import current_app
from flask_babel import force_locale
from flask_babel import gettext as babel_gettext
from flask_babel import ngettext as babel_ngettext
from flask_babel import pgettext as babel_pgettext

from domino import game
from domino.events import Play
from domino.views import table_view
from domino.web.view.faces import face
from domino.web.view.i18n import words
from domino.web.view.render import choices, links, render_table
from tests.support import drive
from tests.support.webkit import Table, friends, make_app, seat_on_turn


def test_a_face_shows_each_half_with_its_pips_and_is_drawn_once():
    for a in range(7):
        for b in range(7):
            for vertical in (False, True):
                svg = face(a, b, vertical)
                assert svg.count('class="pip"') == a + b
                box = "0 0 50 100" if vertical else "0 0 100 50"
                assert f'viewBox="{box}"' in svg and 'aria-hidden="true"' in svg
                assert face(a, b, vertical) is svg  # cached
    # a vertical 1|0: the single pip sits in the top half; horizontally, in the left half
    assert re.search(r'cx="25" cy="25"', face(1, 0, True))
    assert re.search(r'cx="25" cy="25"', face(1, 0, False))
    assert re.search(r'cx="75" cy="25"', face(0, 1, False))


def cyclic_garbage_of_renders(db: str) -> int:
    """How many objects the collector finds in cycles after a table is rendered again, once
    with no tile selected and once with each tile that fits both ends selected."""
    app = make_app(db)
    host = Table(app)
    host.create_room()
    Table(app, host.room).join()
    room = app.extensions["domino"].rooms.get(host.room)
    view = table_view(room, room.round.turn, {0, 1})
    both_ends = [tile for tile, choice in choices(view).items() if choice.direct is None]
    with app.test_request_context(f"/r/{host.room}"):
        where = links(room)
        render_table(view, where)  # the first render compiles templates and fills caches
        gc.collect()
        gc.disable()
        try:
            for selected in [None, *both_ends]:
                render_table(view, where, selected=selected, notice="x")
            return gc.collect()
        finally:
            gc.enable()


def test_rendering_a_table_makes_no_reference_cycles(tmp_path):
    """Cyclic garbage waits for the collector, whose pauses grow with every open socket.
    Counted in an interpreter of its own: here, other tests' threads make garbage meanwhile."""
    root = Path(__file__).resolve().parents[2]
    db = str(tmp_path / "domino.sqlite3")
    code = (
        f"from tests.web import test_render; print(test_render.cyclic_garbage_of_renders({db!r}))"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) == 0, "rendering a table left objects in cycles"


def _links(html: str) -> list[tuple[str, str, str]]:
    """Every (attribute, method, path) a table sends the browser to."""
    found = []
    for attr, method in (("hx-post", "POST"), ("hx-get", "GET"), ("href", "GET")):
        for url in re.findall(rf'\s{attr}="([^"]*)"', html):
            found.append((attr, method, url))
    return found


def test_every_link_of_a_table_reaches_the_route_it_means(tmp_path):
    """The templates write the room's action paths under its URL: they must match the routes."""
    app = make_app(tmp_path / "domino.sqlite3")
    rooms = app.extensions["domino"].rooms
    alone, _secret = rooms.create("friend")
    computer, _secret = rooms.create("computer", "easy")
    host = Table(app)
    host.create_room()
    Table(app, host.room).join()
    seen = set()
    with app.test_request_context("/", base_url="https://example.org/sub/"):
        adapter = app.url_map.bind("example.org", script_name="/sub")
        views = [table_view(rooms.get(alone.id), 0, {0})]
        views.append(table_view(rooms.get(computer.id), 0, {0}))
        for _turn in range(200):
            room = rooms.get(host.room)
            views += [table_view(room, seat, {0, 1}) for seat in (0, 1)]
            if room.round.over:
                break
            seat = room.round.turn
            action = sorted(game.legal_actions(room.round, seat), key=str)[0]
            name, params = (
                ("play", {"tile": str(action.tile), "end": action.end})
                if isinstance(action, Play)
                else (str(action).lower(), {})
            )
            drive.act(rooms, host.room, seat, name, params, frozenset({0, 1}), room.seq)
        room = drive.act(rooms, host.room, 0, "new-round", {}, frozenset({0, 1}), room.seq)
        views.append(table_view(room, 1, {0, 1}))  # asked: accept or decline
        for view in views:
            where = links(rooms.get(view.room))
            pages = [render_table(view, where)]
            pages += [render_table(view, where, selected=tile) for tile in choices(view)]
            for html in pages:
                for attr, method, url in _links(html):
                    path, _, query = url.partition("?")
                    assert path.startswith("/sub/r/"), url
                    endpoint, args = adapter.match(path.removeprefix("/sub"), method)
                    assert args["room_id"] == view.room, url
                    if endpoint == "pages.act":
                        seen.add(args["action"])
                    else:
                        seen.add(endpoint)
                        assert endpoint in (
                            "pages.room",
                            "pages.level",
                            "pages.record",
                            "review.latest",
                        )
                    if query:
                        assert attr == "hx-get" and re.fullmatch(r"select=\d+-\d+", query)
            if not view.full and view.kind == "friend":
                invite = f'value="https://example.org/sub/r/{view.room}" data-invite'
                assert invite in pages[0]
    wanted = {"play", "draw", "draw-until", "new-round", "accept-new-round", "decline-new-round"}
    wanted |= {"rematch", "pages.room", "pages.level", "pages.record", "review.latest"}
    assert wanted <= seen <= wanted | {"pass"}


def test_only_the_newest_play_is_marked_and_a_draw_or_pass_clears_the_mark(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3")
    tables = friends(app)
    rng = random.Random(3)
    seen = {"play": 0, "draw": 0, "pass": 0}
    for _ in range(200):
        state = tables[0].state
        if state.over:
            break
        seat_on_turn(tables).send(rng.choice(game.legal_actions(state, state.turn)))
        last = tables[0].state.history[-1]
        for table in tables:
            doc = table.doc
            marked = doc.find_all("data-last")
            if last.action == "play":
                line = doc.one("data-chain").find_all("data-tile")
                newest = line[0] if last.end == "left" else line[-1]
                assert len(marked) == 1 and marked[0] is newest, last
            else:
                assert marked == [], last
        seen[last.action] += 1
    assert seen["play"] and seen["draw"] + seen["pass"]


def _placeholders(text: str) -> dict:
    """A value for each `%(name)s` / `%(name)d` of a message."""
    return {
        name: (3 if kind == "d" else "V") for name, kind in re.findall(r"%\((\w+)\)([sd])", text)
    }


def test_each_language_s_words_are_flask_babel_s(tmp_path):
    """web/view/i18n.py looks each catalog up once per language: every message comes out as
    Flask-Babel words it, in Python and in a template."""
    pot = Path(__file__).resolve().parents[2] / "domino" / "translations" / "messages.pot"
    with pot.open("rb") as file:
        messages = [message for message in read_po(file) if message.id]
    app = make_app(tmp_path / "domino.sqlite3")
    with app.test_request_context("/"):
        env = current_app.jinja_env
        plain = env.from_string("{{ _(m, **kw) }}")
        for lang in ("en", "nl", "pl", "fr"):
            with force_locale(lang):
                said = words()
                assert said.lang == lang
                for message in messages:
                    if isinstance(message.id, tuple):
                        kw = _placeholders(message.id[1])
                        kw.pop("num", None)  # the count itself
                        for num in (0, 1, 2, 5, 22):
                            want = babel_ngettext(*message.id, num, **kw)
                            assert said.ngettext(*message.id, num, **kw) == want
                    elif message.context:
                        want = babel_pgettext(message.context, message.id)
                        assert said.pgettext(message.context, message.id) == want
                    else:
                        assert said.gettext(message.id) == babel_gettext(message.id)
                        kw = _placeholders(message.id)
                        assert said.gettext(message.id, **kw) == babel_gettext(message.id, **kw)
                        theirs = plain.render(m=message.id, kw=kw)
                        assert plain.render(m=message.id, kw=kw, **said.jinja) == theirs
                        if not kw:  # looked up once, then kept
                            assert plain.render(m=message.id, kw={}, **said.jinja) == theirs
