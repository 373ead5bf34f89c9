"""The leak scanner (bench/leaks.py) and the one leak rule it shares with the tests
(webkit.leaked_tiles): short runs at two, three and four seats find nothing, and a hidden tile
is found (a boneyard tile, a partner's tile, a sleeping tile, one drawn as a face)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from domino import game
from domino.rules import DEFAULT, PRESETS, Rules
from domino.web.view import render
from domino.web.view.faces import face
from tests.support import leaks
from tests.support.leaks import leak_into_tables
from tests.support.webkit import leaked_tiles

pytestmark = pytest.mark.slow  # every test runs the leak scanner over whole rounds


def test_a_short_scan_through_the_server_finds_no_hidden_tile(tmp_path):
    result = leaks.scan(rounds=12, seed=7, db_dir=str(tmp_path), per_room=3)
    assert result["rounds"] >= 12 and result["rounds_by_seats"][2] == result["rounds"]
    assert result["computer_rooms"] >= 1
    assert result["responses"] > 0 and result["frames"] > 0
    assert result["leaks"] == 0, result["examples"]


@pytest.mark.parametrize("seats", ["3", "4"])
def test_a_short_scan_of_every_kind_of_room_of_three_and_four_finds_no_hidden_tile(tmp_path, seats):
    kinds = len(leaks.PLANS[int(seats)])  # one round in each kind of room
    result = leaks.scan(rounds=kinds, seed=7, db_dir=str(tmp_path), per_room=1, seats=seats)
    assert result["rounds_by_seats"][int(seats)] == result["rounds"] == kinds
    assert result["computer_rooms"] == 1 and result["given_rooms"] >= 1
    assert result["responses"] > 0 and result["frames"] > 0
    assert (result["partnered"] > 0) == (seats == "4")
    assert result["leaks"] == 0, result["examples"]


def test_the_scanner_detects_a_boneyard_tile_in_the_markup(tmp_path, monkeypatch):
    leak_into_tables(
        monkeypatch,
        lambda _tv, state: (
            f'<span data-tile="{state.boneyard[0]}"></span>' if state.boneyard else ""
        ),
    )
    result = leaks.scan(rounds=2, seed=7, db_dir=str(tmp_path))
    assert result["responses"] > 0 and result["frames"] > 0
    assert result["leaks"] > 0


def test_the_scanner_detects_a_partners_tile_pushed_to_its_partner(tmp_path, monkeypatch):
    def partners_tile(tv, state) -> str:
        partner = state.hands[(tv.seat + 2) % 4] if state.rules.teams else ()
        return f"<p>{partner[0]}</p>" if partner and not state.over else ""

    leak_into_tables(
        monkeypatch, partners_tile, modules=(render,)
    )  # in pushes only (render_pushed)
    result = leaks.scan(rounds=1, seed=7, db_dir=str(tmp_path), seats="4")
    assert result["leaks"] > 0
    assert all(example.startswith("frame to seat") for example in result["examples"])


PARTNER_LEFT = 1  # a pairs round that ends with tiles in seat 2's hand


def finished(rules: Rules, seed: int = 1) -> game.State:
    """A round under `rules` played to its end by random legal moves."""
    rng = random.Random(seed)
    state = game.start(game.deal(rules, rng), rules)
    while not state.over:
        state, _move = game.step(
            state, state.turn, rng.choice(game.legal_actions(state, state.turn))
        )
    return state


def revealed(seat: int, tiles) -> str:
    """A revealed hand as the table template draws it."""
    inner = "".join(f'<span data-tile="{tile}"></span>' for tile in tiles)
    return f'<div data-seat="{seat}"><div data-opponent-hand>{inner}</div></div>'


def test_the_rule_reads_bare_tiles_but_not_tokens():
    state = game.start(game.deal(DEFAULT, random.Random(1)))
    hidden = str(state.boneyard[0])
    low, high = hidden.split("-")
    assert leaked_tiles(f"<p>{high}-{low}</p>", state, 0) == {hidden}
    assert leaked_tiles(f'<a href="/r/abc{low}-{high}xyz">x</a>', state, 0) == set()


def test_the_rule_hides_a_partners_hand_until_the_end_and_then_shows_it_only_in_its_place():
    rules = PRESETS["pairs"]
    state = game.start(game.deal(rules, random.Random(3)), rules)
    partner = str(state.hands[2][0])
    assert leaked_tiles(f'<span data-tile="{partner}"></span>', state, 0) == {partner}
    assert leaked_tiles(revealed(2, [partner]), state, 0) == {partner}  # not before the end
    assert leaked_tiles(f"<p>{partner}</p>", state, 0) == {partner}
    low, high = map(int, partner.split("-"))
    assert leaked_tiles(str(face(high, low)), state, 0) == {partner}  # a face, drawn
    assert leaked_tiles(f'<span data-tile="{state.hands[0][0]}"></span>', state, 0) == set()
    over = finished(PRESETS["pairs"], seed=PARTNER_LEFT)
    hands = [[str(t) for t in hand] for hand in over.hands]
    assert hands[2], "the partner has no tile left: choose another PARTNER_LEFT"
    shown = "".join(revealed(other, hands[other]) for other in (1, 2, 3))
    assert leaked_tiles(shown, over, 0) == set()
    kept = hands[2][0]
    assert leaked_tiles(revealed(1, [kept]), over, 0) == {kept}  # in another seat's hand
    assert leaked_tiles(f'<span data-tile="{kept}"></span>', over, 0) == {kept}  # loose


def test_the_rule_never_shows_a_sleeping_tile_at_three_seats():
    over = finished(replace(PRESETS["three"], boneyard=False))  # 7 tiles sleep
    assert len(over.boneyard) == 7
    asleep = str(over.boneyard[0])
    others = "".join(revealed(seat, [str(t) for t in over.hands[seat]]) for seat in (1, 2))
    assert leaked_tiles(others, over, 0) == set()
    assert leaked_tiles(others + f"<p>{asleep}</p>", over, 0) == {asleep}
    assert leaked_tiles(revealed(1, [asleep]), over, 0) == {asleep}
