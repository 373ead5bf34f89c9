"""The round review in words (web/view/advice.py, web/routes/review.py): each costly move's
sentence in four languages, values said in words rather than bare numbers, tiles named as the
table names them, the review opening at the first costly move, and moves numbered alike in
the link, the step's header and the move list."""

from __future__ import annotations

import json
import random
import re

import pytest

from domino import game
from domino.bots import analysis
from domino.tiles import Tile
from domino.web.view.faces import Speaker
from tests.support.webkit import friends, make_app, new_round, parse

LANGS = ("en", "nl", "pl", "fr")
CODES = (
    ["leaves-void", {"number": 4, "seat": 1}],
    ["double", {"pips": 12}],
    ["no-answer", {"ends": [2, 5]}],
    ["kept-heavy", {"pips": 11, "made_pips": 3}],
    ["plain", {}],
)
COST = 13.9  # said "about 14 points", never "13.9"


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DELAY_MS=0)


def play_out(tables) -> None:
    """Play the round to its end with random legal moves through HTTP."""
    rng = random.Random(4)
    while not tables[0].state.over:
        state = tables[0].state
        mover = tables[state.turn]
        assert mover.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200


def reviewed(app, codes=CODES):
    """A friend room's finished round with a stored analysis in which the first decisions
    are costly, one for each reason of `codes` (the rest cost nothing), and the next round
    dealt, so that either seat sees every seat's decisions."""
    tables = friends(app)
    play_out(tables)
    store = tables[0].services.rooms.store
    ((seq, text),) = store.record_rows(tables[0].room)
    made = analysis.analyze(text, 1, playouts=40)
    rows = made["decisions"]
    assert len(rows) >= len(codes), "too few choices in this round"
    for row in rows:
        row["costly"], row["cost"], row["reason"] = False, 0.0, ["plain", {}]
        row["best"], row["best_ev"] = row["made"], row["made_ev"]
    for row, (code, details) in zip(rows, codes, strict=False):
        other = next(play for play, _ev in row["options"] if play != row["made"])
        if code == "leaves-void":  # the void is the other seat's: "you" for one viewer
            details = {**details, "seat": 1 - row["seat"]}
        row["best"], row["cost"], row["costly"] = other, COST, True
        row["reason"] = [code, details]
    store.save_review(tables[0].room, seq, json.dumps(made))
    new_round(tables)
    return tables, rows[: len(codes)], text


def in_words(app, lang: str, tile: Tile) -> str:
    """The tile's name as the table says it in `lang`."""
    with app.test_request_context("/", headers={"Cookie": f"lang={lang}"}):
        return Speaker().tile(tile)


def tile_of(play: str) -> Tile:
    return Tile.parse(play.split(":")[0])


@pytest.mark.parametrize("lang", LANGS)
def test_each_costly_move_is_explained_in_a_sentence_in_every_language(app, lang):
    tables, costly, _text = reviewed(app)
    player = tables[0]
    player.client.set_cookie("lang", lang)
    doc = parse(player.get(f"{player.url}/review/0").get_data(as_text=True))
    rows = {int(r.get("data-index")): r for r in doc.find_all("data-costly")}
    assert sorted(rows) == sorted(row["index"] for row in costly)
    sentences = []
    for row, (code, _details) in zip(costly, CODES, strict=True):
        why = rows[row["index"]].one("class", "review-why")
        assert why.get("data-why") == code
        said = why.text
        sentences.append(said)
        made, best = (
            in_words(app, lang, tile_of(row["made"])),
            in_words(app, lang, tile_of(row["best"])),
        )
        assert made in said and best in said, (lang, code, said)
        assert said[0].isupper(), said  # a sentence, not a tile's name in lower case
        assert "14" in said and "13" not in said, said  # the cost in words, rounded
        assert not re.search(r"\d[.,]\d", said), said
    assert len(set(sentences)) == len(CODES)  # one sentence for each reason
    english = "Laying" in " ".join(sentences)
    assert english == (lang == "en")  # the others read their own language
    if lang == "en":
        double = sentences[1]
        made = in_words(app, "en", tile_of(costly[1]["made"]))
        best = in_words(app, "en", tile_of(costly[1]["best"]))
        assert double.startswith(f"Laying {made} here cost about 14 points on average: ")
        assert f"it held back {best}, a double" in double


@pytest.mark.parametrize("lang", LANGS)
def test_values_are_said_in_words_and_tiles_by_their_names(app, lang):
    tables, _costly, _text = reviewed(app)
    player = tables[0]
    player.client.set_cookie("lang", lang)
    doc = parse(player.get(f"{player.url}/review/0").get_data(as_text=True))
    analysed = doc.one("id", "review-analysis")
    assert not re.search(r"-?\d+[.,]\d", analysed.text), analysed.text  # no "-13.9"
    for row in doc.find_all("data-decision"):
        pic = row.one("role", "img")
        named = pic.get("aria-label")
        assert named and named in row.text  # a picture, and its name in words
    worse = {
        "en": "About 14 points worse on average than",
        "nl": "Gemiddeld ongeveer 14 punten slechter dan",
        "pl": "Średnio mniej więcej o 14 punktów gorzej niż",
        "fr": "Environ 14 points de moins en moyenne que",
    }[lang]
    assert all(worse in r.text for r in doc.find_all("data-costly"))


def test_the_review_opens_at_the_first_costly_move_and_numbers_moves_alike(app):
    tables, costly, text = reviewed(app)
    player = tables[0]
    first = min(row["index"] for row in costly) + 1  # moves are counted from 1
    steps = len(json.loads(text)["events"])
    doc = parse(player.get(f"{player.url}/review/0").get_data(as_text=True))
    review = doc.one("data-review")
    assert review.get("data-step") == str(first)
    assert doc.one("id", "review-step-title").text == f"Move {first} of {steps}"
    current = doc.one("aria-current", "step")
    assert current.text == f"Move {first}" and current.get("href").endswith(f"?step={first}")
    row = doc.one("data-index", str(first - 1))
    link = row.find_all("href")[0]
    assert link.text == f"Move {first}" and link.get("href").endswith(f"?step={first}")
    assert doc.one("data-review-decision").one("class", "review-why").text
    # The step's move is the decision's move: the tile it laid is the newest of the line.
    made = tile_of(row_of(costly, first - 1)["made"])
    assert doc.one("data-review-line").one("data-last").get("data-tile") in (
        f"{made.low}-{made.high}",
        f"{made.high}-{made.low}",
    )


def row_of(rows, index):
    return next(row for row in rows if row["index"] == index)


def test_without_a_costly_move_the_review_opens_at_the_first_move(app):
    tables, _costly, _text = reviewed(app, codes=())
    doc = parse(tables[0].get(f"{tables[0].url}/review/0").get_data(as_text=True))
    assert doc.one("data-review").get("data-step") == "1"
    assert doc.find("data-no-mistakes") is not None


def test_htmx_gets_the_stepping_region_only_and_what_to_announce(app):
    tables, _costly, _text = reviewed(app)
    player = tables[0]
    url = f"{player.url}/review/0?step=2"
    response = player.client.get(url, headers={"HX-Request": "true"})
    body = response.get_data(as_text=True)
    assert "<html" not in body and 'id="review-analysis"' not in body
    doc = parse(body)
    assert doc.one("data-review").get("data-step") == "2"
    said = doc.one("id", "review-said")
    assert said.get("hx-swap-oob") == "innerHTML" and said.text.startswith("Move 2 of ")
    restored = player.client.get(
        url, headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}
    )
    assert "<html" in restored.get_data(as_text=True)  # a history restore gets the page
