"""The help page explains fair deals, the round review, the tile counter, the rematch and a
player's name, passkeys and recovery codes (and what clearing site data does) in every
language, under the same ids, each linked from the page's table of contents."""

from __future__ import annotations

import pytest

from tests.support.webkit import Node, help_pages, make_app

LANGUAGES = ("en", "nl", "pl", "fr")
SECTIONS = ("fair-deals", "review", "tile-counter", "rematch", "players", "league")
HEADINGS = ("h2",)


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Node]:
    """Each language's help page, fetched as a browser with that language chosen would."""
    app = make_app(tmp_path_factory.mktemp("help") / "db.sqlite3")
    return help_pages(app, LANGUAGES)


def section_text(doc: Node, anchor: str) -> str:
    """The words of the part of the page that `#anchor` names.

    The pages mark a part up in three ways: a `<section id>`, a `<section>` whose heading has
    the id, or a bare heading with the id followed by its paragraphs up to the next heading.
    """
    node = doc.one("id", anchor)
    if node.tag == "section":
        return node.text
    assert node.tag in HEADINGS, f"#{anchor} is a <{node.tag}>, not a section or a heading"
    parent = node.parent
    if parent.tag == "section" and parent.find(tag=node.tag) is node:
        return parent.text
    siblings = parent.elements
    words = [node.text]
    for sibling in siblings[siblings.index(node) + 1 :]:
        if sibling.tag in HEADINGS:
            break
        words.append(sibling.text)
    return " ".join(words)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("anchor", SECTIONS)
def test_each_section_is_there_and_says_something(pages, lang, anchor):
    text = section_text(pages[lang], anchor)
    assert len(text) >= 400, f"{lang} #{anchor} is too short to explain anything: {text!r}"
    toc = pages[lang].one("class", "toc")
    assert toc.find("href", f"#{anchor}") is not None, f"{lang}: #{anchor} is not in the contents"


@pytest.mark.parametrize("anchor", SECTIONS)
def test_each_section_is_written_in_each_language(pages, anchor):
    texts = {lang: section_text(pages[lang], anchor) for lang in LANGUAGES}
    assert len(set(texts.values())) == len(LANGUAGES), f"#{anchor} is the same in two languages"
    english = set(texts["en"].split())
    for lang in ("nl", "pl", "fr"):
        words = texts[lang].split()
        shared = sum(word in english for word in words) / len(words)
        assert shared < 0.5, f"{lang} #{anchor} reads like the English ({shared:.0%} of its words)"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_fair_deals_names_what_anyone_needs_to_check_a_deal(pages, lang):
    text = section_text(pages[lang], "fair-deals")
    for needed in ("SHA-256", "HMAC-SHA256", "tools/check_deal.py", "HTTPS"):
        assert needed in text, f"{lang}: #fair-deals never mentions {needed}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_link_inside_the_page_lands_somewhere(pages, lang):
    doc = pages[lang]
    ids = {node.get("id") for node in doc.find_all("id")}
    targets = {a.get("href")[1:] for a in doc.find_all("href") if a.get("href").startswith("#")}
    assert targets - ids == set()
