"""The duplicate rematch's result (issue 16): one deal played twice, the hands turned one seat
on; a seat's score is its net points of both rounds added. The core is pure; the last test
draws the result's part in the four languages."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domino import game
from domino.duplicate import DuplicateResult, duplicate_result, signed
from domino.events import Passed, RoundStarted, TileDrawn, TilePlayed
from domino.rules import DEFAULT, PRESETS
from domino.simulate import net_points
from domino.views import seat_view, table_view
from domino.web.view.render import links, render_table
from tests.support.webkit import friends, make_app, parse

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
TABLES = [DEFAULT, PRESETS["three"], PRESETS["pairs"], PRESETS["block"], PRESETS["goat"]]


def turned(started: RoundStarted) -> RoundStarted:
    """The rematch's deal: seat s takes the hand seat s + 1 was dealt, the boneyard the same."""
    hands = started.hands
    return RoundStarted(
        tuple(hands[(s + 1) % len(hands)] for s in range(len(hands))), started.boneyard
    )


def random_round(started: RoundStarted, rules, rng: random.Random) -> game.State:
    state = game.start(started, rules)
    while not state.over:
        state, _ = game.step(state, state.turn, rng.choice(game.legal_actions(state, state.turn)))
    return state


def mirrored(first: game.State) -> game.State:
    """The rematch played move for move as the first round: each hand does what it did."""
    seats = first.rules.seats
    state = game.start(turned(first.start), first.rules)
    for move in first.moves:
        holder = (move.seat - 1) % seats  # the seat holding that hand in the rematch
        if isinstance(move, TilePlayed):
            state = game.apply(state, TilePlayed(holder, move.tile, move.end))
        elif isinstance(move, TileDrawn):
            state = game.apply(state, TileDrawn(holder, move.tile))
        else:
            assert isinstance(move, Passed)
            state = game.apply(state, Passed(holder))
    return state


def deal(rules, seed: int) -> RoundStarted:
    return game.deal(rules, random.Random(seed))


@given(SEEDS, SEEDS)
def test_playing_each_hand_as_it_was_played_scores_nothing_at_two_seats(deal_seed, play_seed):
    first = random_round(deal(DEFAULT, deal_seed), DEFAULT, random.Random(play_seed))
    second = mirrored(first)
    for seat in (0, 1):
        result = duplicate_result(first, second, seat)
        assert result.first.net == -result.second.net
        assert result.score == 0 and result.signed == "0"


@given(st.sampled_from(TABLES), SEEDS, SEEDS, SEEDS)
def test_the_score_is_the_net_points_of_both_rounds_and_sums_to_nothing(rules, a, b, c):
    first = random_round(deal(rules, a), rules, random.Random(b))
    second = random_round(turned(first.start), rules, random.Random(c))
    scores = []
    for seat in range(rules.seats):
        result = duplicate_result(first, second, seat)
        one = net_points(rules, game.outcome(first), seat)
        two = net_points(rules, game.outcome(second), seat)
        assert (result.first.net, result.second.net) == (one, two)
        assert result.score == pytest.approx(one + two)
        assert (result.first.hand, result.second.hand) == (seat, (seat + 1) % rules.seats)
        assert [r.number for r in result.rounds] == [1, 2]
        scores.append(result.score)
    # net points of a round add up to nothing over the seats, so the duplicate scores do too
    assert sum(scores) == pytest.approx(0)


def test_a_known_pair_of_rounds_gives_its_score():
    first = random_round(deal(DEFAULT, 11), DEFAULT, random.Random(1))
    second = random_round(turned(first.start), DEFAULT, random.Random(2))
    one, two = (game.outcome(first), game.outcome(second))
    result = duplicate_result(first, second, 0)
    mine = [
        one.points if 0 in one.winners else -one.points,
        two.points if 0 in two.winners else -two.points,
    ]
    assert [result.first.net, result.second.net] == mine
    assert result.score == sum(mine)
    assert result.signed == signed(sum(mine))
    assert isinstance(result, DuplicateResult)


def test_signs():
    assert [signed(5), signed(-3), signed(0), signed(2.5), signed(-0.5)] == [
        "+5",
        "-3",
        "0",
        "+2.5",
        "-0.5",
    ]


def test_only_a_finished_round_and_its_turned_rematch_make_a_result():
    first = random_round(deal(DEFAULT, 5), DEFAULT, random.Random(5))
    second = random_round(turned(first.start), DEFAULT, random.Random(6))
    with pytest.raises(ValueError, match="both rounds"):
        duplicate_result(first, game.start(turned(first.start), DEFAULT), 0)
    same = random_round(first.start, DEFAULT, random.Random(6))
    with pytest.raises(ValueError, match="hands turned"):
        duplicate_result(first, same, 0)
    other_boneyard = RoundStarted(turned(first.start).hands, first.start.boneyard[::-1])
    with pytest.raises(ValueError, match="hands turned"):
        duplicate_result(first, random_round(other_boneyard, DEFAULT, random.Random(6)), 0)
    with pytest.raises(ValueError, match="no seat 2"):
        duplicate_result(first, second, 2)
    block = replace(second, rules=PRESETS["block"])
    with pytest.raises(ValueError, match="same rules"):
        duplicate_result(first, block, 0)


# -- the result's part, drawn (the lead's TableView.duplicate) -------------------------------


@pytest.mark.parametrize("lang", ["en", "nl", "pl", "fr"])
def test_the_result_shows_both_rounds_and_the_signed_score(tmp_path, lang):
    app = make_app(tmp_path / "t.sqlite3")
    a, _b = friends(app)
    room = a.services.rooms.get(a.room)
    first = random_round(deal(DEFAULT, 11), DEFAULT, random.Random(1))
    second = random_round(turned(first.start), DEFAULT, random.Random(2))
    result = duplicate_result(first, second, 0)
    tv = table_view(room, 0, present={0, 1})
    tv = replace(tv, game=seat_view(second, 0), duplicate=result)
    with app.test_request_context(headers={"Accept-Language": lang}):
        doc = parse(render_table(tv, links(room), oob=False))
    part = doc.one("data-result").one("data-duplicate")
    rounds = part.find_all("data-duplicate-round")
    assert [r.get("data-duplicate-round") for r in rounds] == ["1", "2"]
    assert [r.get("data-duplicate-net") for r in rounds] == [
        signed(result.first.net),
        signed(result.second.net),
    ]
    score = part.one("data-duplicate-score")
    assert score.get("data-duplicate-score") == signed(result.score) == score.text.strip()
    heading = part.one(tag="h3").text
    assert (heading.startswith("Duplicate result")) == (lang == "en"), heading
    tv = replace(tv, duplicate=None)
    with app.test_request_context():
        assert parse(render_table(tv, links(room), oob=False)).find("data-duplicate") is None
