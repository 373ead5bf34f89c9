"""A refused player's name explains itself in every language (SPEC §11, issue 30): each code
of domino/players/names.py has its own sentence in domino/web/view/messages.py, translated in
en, nl, pl and fr, and the table's seat words of all four catalogs, passed to the core by the
web layer, are refused as names."""

from __future__ import annotations

import pytest
from flask_babel import force_locale

from domino.players.names import CODES
from domino.players.names import refusal as name_refusal
from domino.web.view.i18n import LANGUAGES
from domino.web.view.messages import FALLBACK, REFUSALS, refusal, status_of
from domino.web.view.names import reserved_words
from tests.support.webkit import make_app


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=13)


def sentences(app, lang: str) -> dict[str, str]:
    with app.test_request_context(), force_locale(lang):
        return {code: refusal(code) for code in CODES}


def test_the_four_languages_are_those_we_speak():
    assert set(LANGUAGES) == {"en", "nl", "pl", "fr"}


@pytest.mark.parametrize("lang", ["en", "nl", "pl", "fr"])
def test_every_name_refusal_has_its_own_sentence_in_every_language(app, lang):
    said = sentences(app, lang)
    english = sentences(app, "en")
    assert set(CODES) <= set(REFUSALS)
    for code, sentence in said.items():
        assert sentence.strip(), (lang, code)
        assert sentence != refusal("no-such-code") and REFUSALS[code] != FALLBACK, (lang, code)
        if lang != "en":
            assert sentence != english[code], f"{lang}: {code} is not translated"
    assert len(set(said.values())) == len(CODES), f"{lang}: two refusals read alike"


def test_a_refused_name_is_bad_input_and_a_taken_one_a_conflict():
    for code in CODES:
        assert status_of(code) == (409 if code == "name-taken" else 400), code


@pytest.mark.parametrize(
    "name",
    ["You", "Oost", "Wschód", "votre_partenaire", "twój-partner", "jij", "Vous", "Ouest", "Noord"],
)
def test_the_tables_seat_words_of_every_catalog_are_refused_as_names(app, name):
    with app.test_request_context():
        words = reserved_words()
    assert name_refusal(name) is None  # the core alone does not know the catalogs' words
    assert name_refusal(name, reserved=words) == "name-reserved"


@pytest.mark.parametrize("name", ["Youssef", "Eastwood", "Northampton", "Estelle"])
def test_names_that_only_start_like_a_seat_word_are_names(app, name):
    with app.test_request_context():
        assert name_refusal(name, reserved=reserved_words()) is None
