"""The markup the snake layout of the line (static/line.js) stands on, through the test client.

The line stays an ordered list of named tiles, left to right; each end button sits in a slot of
its own (no id, so htmx's settling never resets the place line.js gives it), the left one
before the list and the right one after it; the arrows are pictures only, the names say the
end; and every page loads the script deferred, with no inline style anywhere.
"""

from __future__ import annotations

import random

import pytest

from tests.support.webkit import Node, advance_until, friends, friends_in, make_app, parse, two_way

VISIBLE = {"en": "Lay it here", "nl": "Hier leggen", "pl": "Połóż tutaj", "fr": "Poser ici"}


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=11)


def classes(node: Node) -> list[str]:
    return (node.get("class") or "").split()


def chosen(tables, lang: str = "en") -> Node:
    """The felt of the seat on turn, with a tile chosen that fits both (different) ends."""
    state = advance_until(tables, two_way, random.Random(3))
    mover = tables[state.turn]
    tile = two_way(state)[0]
    return parse(mover.fragment(select=str(tile)).get_data(as_text=True)).one("id", "line")


def test_the_end_buttons_sit_in_slots_before_and_after_the_chain(app):
    felt = chosen(friends(app))
    order = [node for node in felt.iter() if node.has("data-chain") or "end-slot" in classes(node)]
    assert [n.get("class") for n in order] == ["end-slot left", "chain", "end-slot right"]
    for slot, end in ((order[0], "left"), (order[2], "right")):
        assert slot.get("id") is None
        (button,) = slot.elements
        assert button.get("data-end") == end
        assert button.get("id") == f"end-{end}"
        assert button.get("aria-label").startswith("Lay it here: ")
        (arrow,) = button.find_all("class", "arrow")
        assert arrow.get("aria-hidden") == "true"
        assert arrow.text == ("◀" if end == "left" else "▶")
        assert button.text == ("◀ Lay it here" if end == "left" else "Lay it here ▶")


@pytest.mark.parametrize("lang", ["nl", "pl", "fr"])
def test_the_end_buttons_say_lay_it_here_in_the_pages_language(app, lang):
    felt = chosen(friends_in(app, lang), lang)
    for button in felt.find_all("data-end"):
        words = button.text.replace("◀", "").replace("▶", "").strip()
        assert words == VISIBLE[lang]
        assert button.get("aria-label").startswith(VISIBLE[lang]), "the name starts as shown"


def test_the_line_is_an_ordered_list_of_named_tiles_without_inline_styles(app):
    a, _b = friends(app)
    advance_until((a, _b), lambda state: len(state.line) >= 5, random.Random(5))
    html = a.open().get_data(as_text=True)
    doc = parse(html)
    chain = doc.one("data-chain")
    assert chain.tag == "ol"
    items = chain.elements
    assert [item.get("data-tile") for item in items] == [str(laid) for laid in a.state.line]
    for item in items:
        assert item.tag == "li" and item.get("aria-label")
    assert not doc.find_all("style"), "inline styles break the Content-Security-Policy"
    scripts = [n for n in doc.find_all("src", tag="script") if n.get("src").endswith("/line.js")]
    assert len(scripts) == 1 and scripts[0].has("defer")
