"""The help page explains public tables (SPEC §12, issue 31) in every language, in the same five
sections under the same ids: quick match, the computer fill, the clock, ratings and the League.
The figures it gives are this server's settings (FILL_SECONDS, MOVE_SECONDS, BANK_SECONDS,
ABANDON_SECONDS), so that the help never disagrees with the server."""

from __future__ import annotations

import re

import pytest
from flask import url_for
from flask_babel import force_locale

from domino.clock import BANK_SECONDS, MOVE_SECONDS, TIMEOUTS
from domino.lobby.ratings import PROVISIONAL
from domino.players.pairing import FILL_SECONDS, SEATS
from domino.web.view.rules_text import preset_name
from tests.support.webkit import Node, help_pages, make_app

LANGUAGES = ("en", "nl", "pl", "fr")
SECTIONS = ("quick-match", "computer-fill", "clock", "ratings", "league")
# Settings none of the defaults (30, 20, 60, 60) is, nor any other figure the sections give.
SET = {"FILL_SECONDS": 17, "MOVE_SECONDS": 23, "BANK_SECONDS": 71, "ABANDON_SECONDS": 47}
DECIMAL = {"en": ".", "nl": ",", "pl": ",", "fr": ","}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return make_app(tmp_path_factory.mktemp("help") / "db.sqlite3", **SET)


@pytest.fixture(scope="module")
def pages(app) -> dict[str, Node]:
    """Each language's help page on a server with the public tables' settings of SET."""
    return help_pages(app, LANGUAGES)


@pytest.fixture(scope="module")
def default_pages(tmp_path_factory) -> dict[str, Node]:
    """The help pages of a server whose config has no clock settings at all."""
    app = make_app(tmp_path_factory.mktemp("help-defaults") / "db.sqlite3")
    for key in ("MOVE_SECONDS", "BANK_SECONDS", "ABANDON_SECONDS"):
        app.config.pop(key, None)
    return help_pages(app, LANGUAGES)


def section(doc: Node, anchor: str) -> Node:
    node = doc.one("id", anchor)
    assert node.tag == "section", f"#{anchor} is a <{node.tag}>, not a section"
    return node


def figures(text: str) -> set[str]:
    """The numbers a text gives, as written (decimal comma or point)."""
    return set(re.findall(r"\d+(?:[.,]\d+)?", text))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_five_sections_are_there_in_order_and_in_the_contents(pages, lang):
    doc = pages[lang]
    ids = [node.get("id") for node in doc.one("class", "help").elements if node.tag == "section"]
    assert [i for i in ids if i in SECTIONS] == list(SECTIONS), f"{lang}: {ids}"
    toc = doc.one("class", "toc")
    for anchor in SECTIONS:
        node = section(doc, anchor)
        heading = node.elements[0]
        assert heading.tag == "h2" and heading.text, f"{lang} #{anchor} opens without its <h2>"
        assert not node.find_all(tag="h4"), f"{lang} #{anchor}: a heading skips a level"
        assert len(node.text) >= 300, f"{lang} #{anchor} is too short: {node.text!r}"
        link = toc.find("href", f"#{anchor}")
        assert link is not None and link.text == heading.text, f"{lang}: #{anchor} in the contents"


@pytest.mark.parametrize("anchor", SECTIONS)
def test_each_section_has_the_same_structure_and_its_own_words(pages, anchor):
    def shape(node: Node) -> list[str]:
        return [child.tag for child in node.iter() if child.tag in ("h2", "h3", "p", "ul", "li")]

    shapes = {lang: shape(section(pages[lang], anchor)) for lang in LANGUAGES}
    assert all(s == shapes["en"] for s in shapes.values()), shapes
    texts = {lang: section(pages[lang], anchor).text for lang in LANGUAGES}
    english = set(texts["en"].split())
    for lang in ("nl", "pl", "fr"):
        words = texts[lang].split()
        shared = sum(word in english for word in words) / len(words)
        assert shared < 0.5, f"{lang} #{anchor} reads like the English ({shared:.0%} of its words)"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_figures_are_the_servers_settings(pages, lang):
    fill = figures(section(pages[lang], "computer-fill").text)
    clock = figures(section(pages[lang], "clock").text)
    assert "17" in figures(section(pages[lang], "quick-match").text)
    assert "17" in fill and "30" not in fill, (lang, fill)
    assert {"23", "71", "47", str(TIMEOUTS)} <= clock, (lang, clock)
    assert not {"20", "60"} & clock, f"{lang}: the clock still gives a default: {clock}"
    assert str(PROVISIONAL) in figures(section(pages[lang], "ratings").text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_settings_the_figures_are_the_defaults(default_pages, lang):
    doc = default_pages[lang]
    assert str(int(FILL_SECONDS)) in figures(section(doc, "computer-fill").text)
    clock = figures(section(doc, "clock").text)
    assert {str(int(MOVE_SECONDS)), str(int(BANK_SECONDS)), "60"} <= clock, (lang, clock)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_setting_in_tenths_is_written_as_the_language_writes_it(tmp_path, lang):
    app = make_app(tmp_path / "db.sqlite3", BANK_SECONDS=7.5)
    doc = help_pages(app, LANGUAGES)[lang]
    assert f"7{DECIMAL[lang]}5" in figures(section(doc, "clock").text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_quick_match_names_the_public_games_as_the_site_shows_them(app, pages, lang):
    text = section(pages[lang], "quick-match").text
    with app.test_request_context(), force_locale(lang):
        names = [preset_name(game) for game in SEATS]
    missing = [name for name in names if name not in text]
    assert not missing, f"{lang} #quick-match never names {missing}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_league_links_to_its_page_and_gives_the_points(app, pages, lang):
    node = section(pages[lang], "league")
    with app.test_request_context():
        league = url_for("league.table")
    assert node.find("href", league) is not None, f"{lang} #league does not link to {league}"
    text = node.text
    assert "00:00 UTC" in text
    assert {"3", "0", "1", "4", "2"} <= figures(text)
    assert "?" in section(pages[lang], "ratings").text  # the provisional mark
