"""A player's name, as SPEC §11 fixes it (domino/players/names.py): 3 to 20 letters of any
script, digits, "_", "-", "."; one name after NFKC case folding ("Ana" is "ana", "ＡＢＣ" is
"abc"); refused when it would pass for the site, the computer or a seat, or holds an invisible
character. Each refusal is a stable code, never a sentence."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domino.players.names import (
    CODES,
    MAX_LENGTH,
    MIN_LENGTH,
    NameRefused,
    canonical,
    check,
    refusal,
    shown,
)

ACCEPTED = [
    "Ana",
    "ana",
    "Bob_2",
    "jean-luc",
    "m.ocean",
    "abc",  # exactly 3
    "a" * 20,  # exactly 20
    "Zoë",
    "Łukasz",
    "Ærøskøbing",
    "Иван",  # Cyrillic
    "Ελένη",  # Greek
    "राम",  # Devanagari, with a vowel sign (a combining mark)
    "e\u0301lodie",  # a decomposed "é": its accent follows its letter
    "東京太郎",  # Han
    "محمد",  # Arabic
    "١٢٣abc",  # Arabic-Indic digits are digits
    "Abbot",  # holds "bot" but not as a word
    "Hardy",  # holds "hard" but not as a word
    "Robotnik",
    "Youssef",  # "you" only as a seat word passed by the caller, and not as a word here
    "  Ana  ",  # spaces around are trimmed
    "Jun_山田",  # Latin and Han do not look alike: a mix stays a name
    "山田たろう",  # kanji and hiragana
    "ΑΝΑ",  # Greek capitals throughout: one script (a whole-script lookalike is not caught)
]

REFUSED = {
    "name-length": ["", "ab", "a" * 21, "   ", "x" * 100, "ﬁ", "ß" * 11],  # "ﬁ" keeps as "fi"
    "name-characters": [
        "Ana Bo",  # a space inside
        "ana!",
        "a@b.c",
        "ana+bob",
        "<b>hi</b>",
        "ana's",
        "ana😀",
        "\u0301abc",  # a mark starting the name
        "1\u0301ab",  # a mark after a digit
        "a\u00a0bc",  # a no-break space
        "½ab",  # NFKC makes it "1⁄2ab": a fraction slash is no sign of ours
    ],
    "name-scripts": [
        "\u0410na",  # a Cyrillic "А" in a Latin name: it would pass for "Ana"
        "An\u0430",  # a Cyrillic "а" at its end
        "p\u0430ypal",
        "Zoe_\u0396\u03c9\u03ae",  # Latin and Greek
        "\u0391\u043d\u0430",  # Greek and Cyrillic
    ],
    "name-control": [
        "ana\u202ebob",  # right-to-left override
        "\u202aana",  # left-to-right embedding
        "ana\u2066x\u2069",  # isolates
        "ana\u200f",  # right-to-left mark
        "ana\u061cb",  # Arabic letter mark
        "an\u200da",  # zero-width joiner
        "an\u200ba",  # zero-width space
        "ana\ufeff",  # byte-order mark
        "ana\x00b",
        "ana\nbob",
        "ana\tbob",
        "ana\x1fbob",
        "ana\x7f",
        "ana\u2028b",  # line separator
        "ana\ue000",  # private use
        "ana\U000e0041",  # a tag character
    ],
    "name-reserved": [
        "Computer",
        "computer",
        "COMPUTER",
        "Cómputer",  # an accent makes it no other word
        "ＣＯＭＰＵＴＥＲ",  # full-width letters
        "Computer2",  # digits part words
        "the_computer",
        "computer.bot",
        "Bot",
        "bot-ana",
        "Robot",
        "admin",
        "Admin_1",
        "Administrator",
        "easy",
        "Medium",
        "HARD",
        "komputer",
        "Ordinateur",
        "domino",
    ],
}


@pytest.mark.parametrize("name", ACCEPTED)
def test_a_name_spec_11_allows_is_accepted_as_kept(name):
    assert refusal(name) is None
    assert check(name) == unicodedata.normalize("NFKC", name).strip(" ")


@pytest.mark.parametrize(
    ("code", "name"), [(code, name) for code, names in REFUSED.items() for name in names]
)
def test_each_refusal_has_its_own_code(code, name):
    with pytest.raises(NameRefused) as refused:
        check(name)
    assert refused.value.code == code
    assert str(refused.value) == code  # a code, never a sentence


def test_every_code_is_listed_and_each_is_seen():
    assert set(REFUSED) | {"name-taken"} == set(CODES)
    assert check("Ana", taken={"bob"}) == "Ana"
    assert refusal("ANA", taken={canonical("ana")}) == "name-taken"


def test_the_length_is_counted_on_the_kept_name():
    assert (MIN_LENGTH, MAX_LENGTH) == (3, 20)
    assert check("ﬁn") == "fin"  # the ligature is two letters
    assert refusal("ﬁ" * 10) is None and refusal("ﬁ" * 11) == "name-length"
    assert check("ＡＢＣ") == "ABC"  # kept in NFKC form, its case as given


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Ana", "ana"),
        ("ＡＢＣ", "abc"),  # full-width letters
        ("ﬁnn", "Finn"),  # a ligature
        ("Straße", "STRASSE"),  # case folding, not lowering
        ("ǅemal", "DŽEMAL"),  # a title-case digraph
        ("e\u0301lodie", "Élodie"),  # decomposed and composed
        ("Ｂｏｂ＿１", "bob_1"),  # full-width signs and digits
        ("ℌ𝔞𝔫𝔰", "hans"),  # mathematical letters
        ("Ⅻab", "xiiab"),  # a Roman numeral
        ("ｶﾀｶﾅ", "カタカナ"),  # half-width katakana
    ],
)
def test_a_homoglyph_after_nfkc_collides_with_the_taken_name(one, other):
    assert canonical(one) == canonical(other)
    taken = {canonical(other)}
    assert refusal(one, taken=taken) == "name-taken"
    assert refusal(other, taken={canonical(one)}) == "name-taken"


@pytest.mark.parametrize(("one", "other"), [("Ana", "Anna"), ("Jose", "José"), ("ana", "аna")])
def test_different_names_do_not_collide(one, other):
    """An accent makes another name; so does a Cyrillic "а" (NFKC keeps scripts apart)."""
    assert canonical(one) != canonical(other)
    assert refusal(one, taken={canonical(other)}) is None


def test_the_callers_seat_words_are_refused_as_whole_words():
    seats = ("You", "your partner", "East", "De computer", "L’ordinateur")
    for name in (
        "you",
        "YOU",
        "Your_partner",
        "YourPartner",
        "YOURPARTNER2",
        "your-partner-2",
        "Ｅａｓｔ",
        "de.computer",
    ):
        assert refusal(name, reserved=seats) == "name-reserved", name
    for name in ("Youssef", "Partner", "Easton", "Bob", "PartnerYour", "Eastyou"):
        assert refusal(name, reserved=seats) is None, name


def test_invisible_characters_that_look_like_nothing_are_refused():
    """A name with an invisible character would look like the name without it."""
    assert refusal("ana\u200b") == "name-control"
    assert refusal("\u00adana") == "name-control"  # a soft hyphen (NFKC keeps it; it is Cf)
    assert refusal("ana\u2060") == "name-control"  # a word joiner


NAME_CHARS = st.characters(
    categories=("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Nd", "Pc", "Pd", "Po", "Zs", "Cf")
)


@settings(max_examples=600, deadline=None)
@given(st.text(NAME_CHARS, max_size=24) | st.text(max_size=24))
def test_the_canonical_form_is_idempotent_and_an_accepted_name_keeps_it_accepted(text):
    once = canonical(text)
    assert canonical(once) == once
    if refusal(text) is None:
        kept = check(text)
        assert shown(kept) == kept
        assert canonical(kept) == canonical(text)
        assert refusal(once) is None, "the canonical form of an accepted name is a name"
        assert refusal(kept, taken={canonical(text)}) == "name-taken"
        assert refusal(once, taken={canonical(kept)}) == "name-taken"


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(categories=("Cc", "Cf", "Zl", "Zp", "Co")), min_size=1, max_size=3))
def test_any_invisible_character_anywhere_is_refused(hidden):
    for name in (hidden + "ana", "ana" + hidden, "an" + hidden + "a"):
        assert refusal(name) == "name-control", repr(name)


# Pieces of names that NFKC case folding unifies or that the rules single out.
PIECES = st.sampled_from(
    [
        "a",
        "B",
        "é",
        "e\u0301",
        "ß",
        "SS",
        "ﬁ",
        "Ａ",
        "ｂ",
        "Ｃｏｍｐｕｔｅｒ",
        "computer",
        "BOT",
        "Easy",
        "ｈａｒｄ",
        "admin",
        "ǅ",
        "İ",
        "ς",
        "Σ",
        "_",
        "-",
        ".",
        "１",
        "7",
        "ℌ",
        " ",
        "\u0301",
        "!",
        "\u202e",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_a_name_and_its_canonical_form_get_the_same_answer(text):
    """Whatever NFKC case folding unifies is judged alike: a name refused as an impersonation
    or for its characters cannot come back in full-width letters, another case or a
    ligature, and an accepted name's canonical form is a name. Only the length may differ,
    counted on both forms ("aİ" has two letters; its canonical form "ai̇" has three)."""
    once = canonical(text)
    assert canonical(once) == once
    code = refusal(text)
    if code != "name-length":
        assert refusal(once) == code
