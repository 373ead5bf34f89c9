"""Four languages: complete catalogs, the right choice of language, no English left over."""

from __future__ import annotations

import random
import re

import pytest
from babel.messages.pofile import read_po

from app import create_app
from domino import game
from domino.events import Play
from tests.support.languages import CATALOGS, ENGLISH_WORDS, catalog, english_phrases, visible_text
from tests.support.templates import compiled
from tests.support.webkit import connection

FOREIGN = ("nl", "pl", "fr")


def template_ids() -> set:
    with (CATALOGS / "messages.pot").open("rb") as pot:
        return {m.id for m in read_po(pot) if m.id}


@pytest.mark.parametrize("lang", [*FOREIGN, "en"])
def test_every_catalog_translates_every_message(lang):
    messages = [m for m in catalog(lang) if m.id]
    assert {m.id for m in messages} == template_ids(), "run `make messages` and translate"
    for message in messages:
        assert not message.fuzzy, message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(s.strip() for s in strings), f"{lang}: {message.id!r} is not translated"
        if isinstance(message.id, tuple):
            assert len(strings) == catalog(lang).num_plurals, message.id
        for variable in re.findall(r"%\(\w+\)[sd]", str(message.id)):
            assert all(variable in s for s in strings), f"{lang}: {message.id!r} lost {variable}"


def test_polish_has_three_plural_forms():
    cat = catalog("pl")
    assert cat.num_plurals == 3
    tiles = cat[("tile", "tiles")].string
    assert len(set(tiles)) == 3  # 1 kostka, 2 kostki, 5 kostek: three different words


# -- choosing the language -------------------------------------------------------------------


@pytest.fixture
def app(tmp_path):
    return compiled(
        create_app(
            {
                "TESTING": True,
                "DOMINO_DB": str(tmp_path / "i18n.sqlite3"),
                "SECRET_KEY": "i18n",
                "DOMINO_RNG": random.Random(4),
                "WTF_CSRF_ENABLED": False,
                "BOT_DELAY_MS": 0,
            }
        )
    )


def lang_of(html: str) -> str:
    return re.search(r'<html lang="([a-z]+)"', html).group(1)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("pl-PL,pl;q=0.9,en;q=0.5", "pl"),
        ("nl-BE,nl;q=0.8", "nl"),
        ("fr-CA", "fr"),
        ("de-DE,en;q=0.3", "en"),
        ("de-DE", "en"),
        ("", "en"),
    ],
)
def test_accept_language_picks_the_language(app, header, expected):
    html = app.test_client().get("/", headers={"Accept-Language": header}).get_data(True)
    assert lang_of(html) == expected


def test_the_switch_overrides_the_browser_and_sticks(app):
    client = app.test_client()
    polish = {"Accept-Language": "pl"}
    response = client.get("/lang/fr?next=/help", headers=polish)
    assert response.status_code == 303 and response.headers["Location"].endswith("/help")
    for path in ("/", "/help"):
        assert lang_of(client.get(path, headers=polish).get_data(True)) == "fr"
    client.get("/lang/nl?next=/")
    assert lang_of(client.get("/", headers=polish).get_data(True)) == "nl"


def test_the_switch_only_sends_back_to_our_own_pages(app):
    client = app.test_client()
    for target in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)"):
        response = client.get(f"/lang/pl?next={target}")
        assert response.headers["Location"] in ("/", "http://localhost/")
    assert client.get("/lang/xx?next=/").status_code == 303
    assert lang_of(client.get("/").get_data(True)) == "pl"


def test_every_page_offers_the_switch(app):
    client = app.test_client()
    html = client.get("/").get_data(True)
    for lang in ("nl", "pl", "fr", "en"):
        assert f'hreflang="{lang}"' in html or f'<span aria-current="true" lang="{lang}"' in html


# -- no English left over --------------------------------------------------------------------


def pages_of_a_round(app, lang: str) -> list[str]:
    """Every kind of page, fragment and push a player meets in one friend round."""
    services = app.extensions["domino"]
    seen = []
    a, b, c = (app.test_client() for _ in range(3))
    for client in (a, b, c):
        client.set_cookie("lang", lang)
    seen.append(a.get("/").get_data(True))
    seen.append(a.get("/help").get_data(True))
    seen.append(a.get("/r/" + "x" * 22).get_data(True))
    for response in (a.get("/no/such/page"), a.get("/rooms")):  # 404 and 405
        assert response.status_code in (404, 405)
        seen.append(response.get_data(True))
    room_url = a.post("/rooms").headers["Location"]
    room_id = room_url.rsplit("/", 1)[-1]
    seen.append(a.get(room_url).get_data(True))
    seen.append(b.get(room_url).get_data(True))  # the join page
    b.post(room_url + "/join")
    seen.append(c.get(room_url).get_data(True))  # full
    frames = {0: [], 1: []}
    for seat in (0, 1):
        sink = type("Sink", (), {"send": frames[seat].append, "close": lambda self, **k: None})
        conn = connection(app, room_id, sink(), f"1.{seat}", lang)
        services.hub.attach(room_id, seat, conn)
    clients = {0: a, 1: b}
    room = services.rooms.get(room_id)
    seen.append(
        clients[0]
        .post(f"{room_url}/draw", data={"seq": room.seq}, headers={"X-Tab": "1.0"})
        .get_data(True)
    )
    while not room.round.over:
        seat = room.round.turn
        action = game.legal_actions(room.round, seat)[0]
        data = {"seq": room.seq}
        if isinstance(action, Play):
            data |= {"tile": str(action.tile), "end": action.end}
            name = "play"
        else:
            name = str(action).lower()
        headers = {"X-Tab": f"1.{seat}", "HX-Request": "true"}
        playable = [str(t) for t in room.round.hands[seat]]
        seen.append(
            clients[seat].get(f"{room_url}?select={playable[0]}", headers=headers).get_data(True)
        )
        seen.append(
            clients[seat].post(f"{room_url}/{name}", data=data, headers=headers).get_data(True)
        )
        room = services.rooms.get(room_id)
    seen.append(
        a.post(f"{room_url}/new-round", data={"seq": room.seq}, headers={"X-Tab": "1.0"}).get_data(
            True
        )
    )
    seen += frames[0] + frames[1]
    return seen


@pytest.mark.slow  # a whole round in each language
@pytest.mark.parametrize("lang", FOREIGN)
def test_no_english_is_left_in_a_translated_round(app, lang):
    phrases = english_phrases(lang)
    assert len(phrases) > 40
    pages = pages_of_a_round(app, lang)
    assert len(pages) > 20
    for html in pages:
        assert lang_of(html) == lang if html.lstrip().startswith("<!doctype") else True
        text = visible_text(html)
        left = [p for p in phrases if re.search(rf"(?<!\w){re.escape(p)}(?!\w)", text)]
        assert not left, f"English in a {lang} page: {left}"
        stray = ENGLISH_WORDS.findall(text.replace("Domino online", ""))
        assert not stray, f"English words in a {lang} page: {stray}"
