"""The rules card on the home page, the invitation's rules and the rules in words
(docs/contracts.md, page hooks; docs/rules.md).

Every browser is a `Table` (tests/support/webkit.py) with CSRF protection on. A card is posted as a
browser would post it: every field of the form with its current value (`card_fields`).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from domino.rules import DEFAULT, PRESETS, Rules
from domino.web.forms.rules_form import form_values
from domino.web.view import rules_text
from domino.web.view.messages import refusal
from tests.support.webkit import Node, Table, make_app, parse

CARD_PRESETS = ("classic", "match-100", "block", "goat", "international", "pairs", "three")
LANGS = ("en", "nl", "pl", "fr")
FIELDS = (
    "seats",
    "boneyard",
    "hand_size",
    "opener",
    "lead",
    "next_opener",
    "blocked",
    "scoring",
    "target",
)


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=5)


def page(response) -> Node:
    return parse(response.get_data(as_text=True))


def card_form(doc: Node) -> Node:
    return doc.one("data-rules-form")


def card_fields(doc: Node) -> dict[str, str]:
    """What a browser posts for the card as it stands: checked radios, selected options."""
    posted = {}
    for control in card_form(doc).iter():
        name = control.get("name")
        if name is None or control.has("disabled") or control.has("form"):
            continue
        if control.tag == "select":
            options = control.find_all(tag="option")
            chosen = [o for o in options if o.has("selected")] or options[:1]
            posted[name] = chosen[0].get("value")
        elif control.tag == "input" and control.get("type") in ("radio", "checkbox"):
            if control.has("checked"):
                posted[name] = control.get("value")
        elif control.tag == "input":
            posted[name] = control.get("value", "")
    return posted


def rooms_made(app) -> int:
    store = app.extensions["domino"].rooms.store
    return store.db.execute("select count(*) from rooms").fetchone()[0]


def rules_of(browser: Table) -> Rules:
    return browser.services.rooms.get(browser.room).rules


def post(browser: Table, path: str, fields: dict):
    browser.home()
    return browser.client.post(path, data={"csrf_token": browser.csrf, **fields})


def created(browser: Table, path: str, fields: dict) -> Rules:
    response = post(browser, path, fields)
    assert response.status_code == 303, response.get_data(as_text=True)
    browser.room = response.headers["Location"].rsplit("/", 1)[-1]
    return rules_of(browser)


# --- one click, as before -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/rooms", "/computer"])
def test_the_folded_card_makes_a_default_room_in_one_click(app, path):
    browser = Table(app)
    doc = page(browser.home())
    details = card_form(doc).one(tag="details")
    assert not details.has("open")
    fields = card_fields(doc)
    assert set(FIELDS) <= set(fields)
    assert created(browser, path, fields) == DEFAULT
    if path == "/computer":
        assert browser.services.rooms.get(browser.room).level == "medium"


@pytest.mark.parametrize("path", ["/rooms", "/computer"])
def test_a_bare_post_still_makes_the_default_game(app, path):
    assert created(Table(app), path, {}) == DEFAULT


def test_both_buttons_submit_the_card(app):
    doc = page(Table(app).home())
    form = card_form(doc)
    assert (form.get("action"), form.get("method")) == ("/rooms", "post")
    create = form.one("data-action", "create-room")
    play = form.one("data-action", "play-computer")
    assert create.get("formaction") is None
    assert play.get("formaction") == "/computer"
    assert create.tag == play.tag == "button"


# --- presets and fields -----------------------------------------------------------------------


@pytest.mark.parametrize("name", CARD_PRESETS)
@pytest.mark.parametrize("path", ["/rooms", "/computer"])
def test_a_posted_preset_alone_gives_that_preset(app, name, path):
    assert created(Table(app), path, {"preset": name}) == PRESETS[name]


@pytest.mark.parametrize("name", CARD_PRESETS)
def test_a_preset_chosen_without_scripts_fills_the_card(app, name):
    browser = Table(app)
    doc = page(browser.get(f"/?preset={name}"))
    assert card_form(doc).one(tag="details").has("open")
    pressed = [b.get("data-preset") for b in doc.find_all("aria-pressed", "true")]
    assert pressed == [name]
    assert created(browser, "/rooms", card_fields(doc)) == PRESETS[name]


def test_the_card_offers_the_presets_with_their_values_from_the_server(app):
    doc = page(Table(app).home())
    form = card_form(doc)
    offered = [b.get("data-preset") for b in form.find_all("data-preset")]
    assert offered == list(CARD_PRESETS)
    values = json.loads(form.get("data-presets"))
    assert set(values) == set(CARD_PRESETS)
    for name, fields in values.items():
        assert Rules.from_json(_as_rules(fields)) == PRESETS[name]
    seats = form.find_all("name", "seats")
    assert [(n.get("type"), n.get("value")) for n in seats] == [("radio", s) for s in "234"]
    assert [n.get("value") for n in seats if n.has("checked")] == ["2"]
    assert form.find("name", "max_pip") is None and form.find("name", "teams") is None


def _as_rules(fields: dict) -> dict:
    """A card's fields back into a rules object (docs/contracts.md) (what the server does, written
    again here)."""
    target = fields["target_points"] if fields["target"] == "other" else fields["target"]
    return {
        "seats": int(fields["seats"]),
        "teams": fields["seats"] == "4",
        **{k: fields[k] for k in ("opener", "lead", "next_opener", "blocked", "scoring")},
        "boneyard": fields["boneyard"] == "draw",
        "hand_size": int(fields["hand_size"]),
        "target": None if target == "none" else int(target),
    }


def test_explicit_fields_override_the_preset(app):
    rules = created(Table(app), "/rooms", {"preset": "block", "target": "20", "hand_size": "5"})
    assert rules == replace(PRESETS["block"], target=20, hand_size=5)
    rules = created(
        Table(app), "/rooms", {"preset": "goat", "target": "other", "target_points": "35"}
    )
    assert rules == replace(PRESETS["goat"], target=35)
    typed_but_not_chosen = {"preset": "match-100", "target": "none", "target_points": "35"}
    assert created(Table(app), "/rooms", typed_but_not_chosen) == replace(
        PRESETS["match-100"], target=None
    )


def test_every_field_changes_after_a_preset(app):
    browser = Table(app)
    fields = card_fields(page(browser.get("/?preset=international")))
    fields |= {
        "boneyard": "block",
        "hand_size": "9",
        "opener": "lowest-double",
        "lead": "opening-tile",
        "next_opener": "rule",
        "blocked": "all",
        "scoring": "goat",
        "target": "150",
    }
    expected = Rules(
        hand_size=9,
        boneyard=False,
        opener="lowest-double",
        blocked="all",
        scoring="goat",
        target=150,
    )
    assert created(browser, "/rooms", fields) == expected


def test_the_level_comes_from_the_card(app):
    browser = Table(app)
    fields = card_fields(page(browser.home())) | {"level": "hard", "preset": "goat"}
    fields |= form_values(PRESETS["goat"], "hard")
    assert created(browser, "/computer", fields) == PRESETS["goat"]
    assert browser.services.rooms.get(browser.room).level == "hard"


def test_unknown_fields_are_ignored_and_max_pip_is_never_set(app):
    sneaky = {"max_pip": "5", "teams": "true", "foo": "bar", "rules": '{"max_pip": 3}'}
    rules = created(Table(app), "/rooms", {"preset": "block", **sneaky})
    assert rules == PRESETS["block"]
    assert rules.max_pip == 6 and rules.set_size == 28


# --- refusals -----------------------------------------------------------------------------------

REFUSED = [
    ({"boneyard": "draw", "hand_size": "14"}, "hand_size"),
    ({"preset": "goat", "boneyard": "draw", "hand_size": "14"}, "hand_size"),
    ({"hand_size": "1"}, "hand_size"),
    ({"hand_size": "15", "boneyard": "block"}, "hand_size"),
    ({"hand_size": "seven"}, "hand_size"),
    ({"hand_size": "٧"}, "hand_size"),  # an Arabic-Indic seven is not one of ours
    ({"target": "0"}, "target"),
    ({"target": "-5"}, "target"),
    ({"target": "other", "target_points": ""}, "target"),
    ({"target": "other", "target_points": "5000"}, "target"),
    ({"target": "other", "target_points": "1e2"}, "target"),
    ({"boneyard": "maybe"}, "boneyard"),
    ({"opener": "youngest"}, "opener"),
    ({"lead": "double"}, "lead"),
    ({"next_opener": ""}, "next_opener"),
    ({"blocked": "none"}, "blocked"),
    ({"scoring": "loser"}, "scoring"),
    ({"seats": "5"}, "seats"),
    ({"seats": "1"}, "seats"),
    ({"seats": "two"}, "seats"),
    ({"preset": "pairs", "boneyard": "draw"}, "hand_size"),  # 4 × 7 leaves nothing to draw
    ({"seats": "4", "hand_size": "8", "boneyard": "block"}, "hand_size"),
    ({"preset": "three", "hand_size": "10"}, "hand_size"),
    ({"preset": "seven"}, "preset"),
]


@pytest.mark.parametrize("path", ["/rooms", "/computer"])
@pytest.mark.parametrize(("fields", "setting"), REFUSED)
def test_an_invalid_card_is_refused_naming_the_setting(app, path, fields, setting):
    browser = Table(app)
    before = rooms_made(app)
    response = post(browser, path, fields)
    assert response.status_code == 400
    assert rooms_made(app) == before
    assert not [h for h in response.headers.getlist("Set-Cookie") if h.startswith("seat=")]
    doc = page(response)
    alert = doc.one("role", "alert")
    with app.test_request_context():
        name = rules_text.setting_name(setting)
    assert f"“{name}”" in alert.text
    form = card_form(doc)
    assert form.one(tag="details").has("open")
    invalid = [n for n in form.iter() if n.get("aria-invalid") == "true"]
    described = [n for n in form.iter() if "rules-error" in n.get("aria-describedby", "").split()]
    assert described
    assert all("rules-error" in n.get("aria-describedby", "") for n in invalid)
    assert alert.get("id") == "rules-error"


def test_a_refused_card_comes_back_as_posted(app):
    browser = Table(app)
    fields = {"preset": "block", "boneyard": "draw", "hand_size": "14", "opener": "heaviest-tile"}
    doc = page(post(browser, "/rooms", fields))
    posted = card_fields(doc)
    assert {k: posted[k] for k in fields} == fields
    (size,) = [n for n in card_form(doc).iter() if n.get("name") == "hand_size"]
    assert size.get("aria-invalid") == "true"


def test_a_refused_card_never_echoes_raw_input(app):
    browser = Table(app)
    evil = '"><script>alert(1)</script>'
    response = post(browser, "/rooms", {"target": "other", "target_points": evil, "lead": evil})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "<script>alert" not in html
    assert '"><' not in html.split('name="target_points"', 1)[1].split(">", 1)[0]


@pytest.mark.parametrize("level", ["", "expert"])
def test_an_unknown_level_is_refused_on_the_card(app, level):
    browser = Table(app)
    response = post(browser, "/computer", {"level": level, "preset": "block"})
    assert response.status_code == 400
    doc = page(response)
    assert doc.one("role", "alert").text == refusal("bad-level")
    level_select = card_form(doc).one("id", "rules-level")
    assert level_select.get("aria-invalid") == "true"
    assert card_fields(doc)["preset"] == "block"


# --- the card's markup --------------------------------------------------------------------------


def test_every_field_has_a_label_and_every_group_a_legend(app):
    doc = page(Table(app).home())
    form = card_form(doc)
    labels = {n.get("for") for n in form.find_all(tag="label") if n.has("for")}
    for control in form.iter():
        name = control.get("name")
        if control.tag not in ("input", "select") or control.get("type") == "hidden":
            continue
        if control.get("type") == "radio":
            assert control.parent.tag == "label" and control.parent.text, name
            group = control.parent.parent
            assert group.tag == "fieldset" and group.one(tag="legend").text, name
        else:
            assert control.get("id") in labels, name
    visible = {n.get("name") for n in form.iter() if n.tag in ("input", "select")}
    assert set(FIELDS) | {"level", "target_points"} <= visible
    assert form.has("novalidate")
    error = form.one("id", "rules-error")
    assert error.get("role") == "alert" and error.text == ""


def test_the_card_loads_its_script_from_the_site(app):
    html = Table(app).home().get_data(as_text=True)
    assert '<script src="/static/rules.js" defer></script>' in html
    assert "<script>" not in html and " style=" not in html
    assert app.test_client().get("/static/rules.js").status_code == 200


def test_hand_sizes_are_those_that_fit(app):
    doc = page(Table(app).home())
    size = card_form(doc).one("name", "hand_size")
    offered = [int(o.get("value")) for o in size.find_all(tag="option")]
    assert offered == list(range(2, 15))
    most = json.loads(size.get("data-most-tiles"))
    assert (most["2 draw"], most["2 block"]) == (13, 14)
    for most, block in ((13, False), (14, True)):
        Rules(hand_size=most, boneyard=not block)  # fits
    with pytest.raises(ValueError):
        Rules(hand_size=14, boneyard=True)


# --- the invitation and the rules in words ------------------------------------------------------


@pytest.mark.parametrize("name", CARD_PRESETS)
def test_the_invitation_shows_the_rules_before_joining(app, name):
    host = Table(app)
    host.create_room(preset=name)
    guest = Table(app, host.room)
    doc = page(guest.open())
    shown = doc.one("data-rules")
    assert (
        json.loads(shown.get("data-rules")) == rules_of(host).to_json() == PRESETS[name].to_json()
    )
    with app.test_request_context():
        sentences = rules_text.rules_sentences(PRESETS[name])
        line = rules_text.rules_line(PRESETS[name])
    assert [li.text for li in shown.find_all(tag="li")] == sentences
    assert line in shown.text
    join = doc.one("hx-post", f"/r/{host.room}/join")
    assert "load" in join.get("hx-trigger")  # it still takes the seat at once
    assert guest.join().status_code == 303 and guest.seat == 1


def in_language(app, lang: str, what):
    with app.test_request_context(headers={"Cookie": f"lang={lang}"}):
        return what()


@pytest.mark.parametrize("name", CARD_PRESETS)
def test_the_rules_line_is_in_each_language(app, name):
    rules = PRESETS[name]
    lines = {lang: in_language(app, lang, lambda: rules_text.rules_line(rules)) for lang in LANGS}
    assert all(line.strip() for line in lines.values())
    assert len(set(lines.values())) == len(LANGS), lines
    sentences = {
        lang: in_language(app, lang, lambda: rules_text.rules_sentences(rules)) for lang in LANGS
    }
    for lang in ("nl", "pl", "fr"):
        assert len(sentences[lang]) == len(sentences["en"])
        for mine, english in zip(sentences[lang], sentences["en"], strict=True):
            assert mine.strip() and mine != english, (lang, english)


def test_the_default_line_reads_as_the_table_shows_it(app):
    line = in_language(app, "en", lambda: rules_text.rules_line(DEFAULT))
    assert line == "Draw game · 7 tiles · single rounds"
    block = in_language(app, "en", lambda: rules_text.rules_line(PRESETS["block"]))
    assert block == (
        "Block game · 7 tiles · lowest double opens · any first tile"
        " · blocked: other hands' pips · to 100"
    )


def test_every_setting_has_a_sentence(app):
    """Each setting changes the words: no two different settings read the same."""
    base = DEFAULT
    variants = [
        {"hand_size": 5},
        {"boneyard": False},
        {"opener": "lowest-double"},
        {"opener": "heaviest-tile"},
        {"lead": "any"},
        {"next_opener": "previous-winner"},
        {"blocked": "others"},
        {"blocked": "all"},
        {"scoring": "goat"},
        {"target": 50},
    ]
    plain = in_language(app, "en", lambda: rules_text.rules_sentences(base))
    for change in variants:
        changed = in_language(
            app, "en", lambda c=change: rules_text.rules_sentences(replace(base, **c))
        )
        assert changed != plain, change


@pytest.mark.slow  # every page of a room in each language
@pytest.mark.parametrize("lang", ["nl", "pl", "fr"])
def test_the_card_and_the_invitation_speak_the_language(app, lang):
    """No English left on the card (open on each preset, or refusing each setting) nor on
    the invitation's rules."""
    from tests.support.languages import ENGLISH_WORDS, english_phrases, visible_text

    phrases = english_phrases(lang)
    browser = Table(app)
    browser.client.set_cookie("lang", lang)
    pages = [browser.get(f"/?preset={name}").get_data(as_text=True) for name in CARD_PRESETS]
    for fields, _setting in REFUSED:
        pages.append(post(browser, "/rooms", fields).get_data(as_text=True))
    pages.append(post(browser, "/computer", {"level": "expert"}).get_data(as_text=True))
    for name in CARD_PRESETS:
        host = Table(app)
        host.create_room(preset=name)
        guest = Table(app, host.room)
        guest.client.set_cookie("lang", lang)
        pages.append(guest.open().get_data(as_text=True))
    for html in pages:
        text = visible_text(html)
        left = [p for p in phrases if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", text)]
        assert not left, f"English in a {lang} page: {left}"
        assert not ENGLISH_WORDS.findall(text.replace("Domino online", "")), text
