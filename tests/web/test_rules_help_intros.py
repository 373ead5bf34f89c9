"""The help page's introduction speaks of two to four players in every language (issue 29,
item 9): it names tables of three and four and links to their section, and no longer says the
game is for two."""

from __future__ import annotations

import pytest

from tests.support.webkit import Node, make_app, parse

# Per language: words for three and for four as the intro writes them, the section on tables
# of three and four, and how the old intro said "for two players".
INTROS = {
    "en": (("three",), ("four",), "#seats", ("for two players",)),
    "nl": (("drieën", "drie"), ("vier",), "#met-meer", ("domino voor twee:",)),
    "pl": (("trzech", "trójkę"), ("czterech", "czwórkę"), "#wiecej-graczy", ("dla dwóch osób –",)),
    "fr": (("trois",), ("quatre",), "#a-plusieurs", ("se joue à deux,",)),
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Node]:
    app = make_app(tmp_path_factory.mktemp("help") / "db.sqlite3")
    found = {}
    for lang in INTROS:
        client = app.test_client()
        client.set_cookie("lang", lang)
        response = client.get("/help")
        assert response.status_code == 200
        found[lang] = parse(response.get_data(as_text=True))
    return found


def intro(doc: Node) -> Node:
    """The help article's first paragraph."""
    article = doc.one("class", "help")
    return next(node for node in article.elements if node.tag == "p")


@pytest.mark.parametrize("lang", INTROS)
def test_the_intro_speaks_of_two_to_four_players(pages, lang):
    three, four, section, old = INTROS[lang]
    first = intro(pages[lang])
    text = first.text.lower()
    assert any(word in text for word in three), (lang, first.text)
    assert any(word in text for word in four), (lang, first.text)
    assert not any(words in text for words in old), (lang, first.text)
    link = first.find("href", section)
    assert link is not None and link.text, f"{lang}: the intro does not link to {section}"
    assert pages[lang].find("id", section[1:]) is not None  # and that section is there
