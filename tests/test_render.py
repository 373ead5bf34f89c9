"""Drawing the table: tile faces, and renders that leave nothing for the garbage collector."""

from __future__ import annotations

import gc
import re

from webkit import Table, make_app

from domino.rooms import table_view
from domino.web.faces import face
from domino.web.render import choices, render_table


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


def test_rendering_a_table_makes_no_reference_cycles(tmp_path):
    """Cyclic garbage waits for the collector, whose pauses grow with every open socket."""
    app = make_app(tmp_path / "domino.sqlite3")
    host = Table(app)
    host.create_room()
    Table(app, host.room).join()
    room = app.extensions["domino"].rooms.get(host.room)
    view = table_view(room, room.round.turn, True)
    both_ends = [tile for tile, choice in choices(view).items() if choice.direct is None]
    with app.test_request_context(f"/r/{host.room}"):
        render_table(view)  # the first render compiles templates and fills caches
        gc.collect()
        gc.disable()
        try:
            for selected in [None, *both_ends]:
                render_table(view, selected=selected, notice="x")
            cyclic = gc.collect()
        finally:
            gc.enable()
    assert cyclic == 0
