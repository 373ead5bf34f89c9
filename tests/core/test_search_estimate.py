"""`bots.search.estimate`: every legal play weighed on shared worlds, and `hard` is its argmax."""

from __future__ import annotations

import random

import pytest

from domino import game
from domino.bots import heuristic, search
from domino.bots.heuristic import ends_after
from domino.events import LEFT, PASS, Play
from domino.rules import PRESETS, Rules
from domino.views import seat_view
from tests.support.scenario import play, round_of

RULES = [Rules(), PRESETS["block"], PRESETS["three"], PRESETS["pairs"]]


def choices(rules: Rules, rounds: int, seed: int):
    """Seat views with two or more plays, from rounds the medium bot plays out."""
    rng = random.Random(seed)
    for _ in range(rounds):
        state = game.start(game.deal(rules, rng), rules)
        while not state.over:
            view = seat_view(state, state.turn)
            if len({a for a in view.legal if isinstance(a, Play)}) >= 2:
                yield view
            state, _move = game.step(state, state.turn, heuristic.medium_bot(view, rng))


def effect(view, play: Play) -> tuple:
    """What a play does: its tile and the open ends it leaves."""
    return play.tile, tuple(sorted(ends_after(view, play)))


@pytest.fixture(autouse=True)
def few_playouts(monkeypatch):
    monkeypatch.setattr(search, "PLAYOUTS", 120)
    monkeypatch.setattr(search, "BLOCK_PLAYOUTS", 120)
    monkeypatch.setattr(search, "WIDE_PLAYOUTS", 120)


@pytest.mark.slow  # the hard bot's search, many positions
@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.seats}-{r.boneyard}")
def test_hard_plays_the_best_estimate(rules):
    views = list(choices(rules, 6, seed=rules.seats))
    assert len(views) >= 10
    for n, view in enumerate(views):
        rng = random.Random(n)
        two = rules.seats == 2
        options = search.estimate(view, rng, prune=two, bonus=search.WIN_BONUS if two else 0)
        best = max(ev for _play, ev in options)
        picks = [play for play, ev in options if ev == best]
        expected = picks[0] if len(picks) == 1 else rng.choice(picks)
        chosen = search.hard_bot(view, random.Random(n))
        if len({effect(view, play) for play, _ev in options}) > 1:
            assert chosen == expected
        else:  # a single effect, two ways round: hard takes it at once
            assert effect(view, chosen) == effect(view, expected)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.seats}-{r.boneyard}")
def test_the_estimate_weighs_every_legal_play_once(rules):
    for n, view in enumerate(choices(rules, 4, seed=10 + rules.seats)):
        options = search.estimate(view, random.Random(n), playouts=60)
        plays = [play for play, _ev in options]
        legal = [a for a in view.legal if isinstance(a, Play)]
        if not view.line:  # the first tile: one way round is enough
            legal = [play for play in legal if play.end == LEFT]
        assert plays == legal
        assert all(isinstance(ev, float) for _play, ev in options)


def test_a_forced_draw_or_pass_has_nothing_to_weigh():
    rules = PRESETS["block"]
    for view in (seat_view(s, s.turn) for s in _stuck(rules)):
        assert search.estimate(view, random.Random(1)) == ()


def _stuck(rules: Rules):
    """States where the seat to move may only pass."""
    rng = random.Random(5)
    found = []
    for _ in range(40):
        state = game.start(game.deal(rules, rng), rules)
        while not state.over:
            legal = game.legal_actions(state, state.turn)
            if legal == (PASS,):
                found.append(state)
            action = heuristic.medium_bot(seat_view(state, state.turn), rng)
            state, _move = game.step(state, state.turn, action)
    assert found
    return found


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.seats}-{r.boneyard}")
def test_hard_weighs_each_effect_once_and_drops_plays_clearly_worse(rules):
    dropped = 0
    for n, view in enumerate(choices(rules, 4, seed=20 + rules.seats)):
        kept = [play for play, _ev in search.estimate(view, random.Random(n), prune=True)]
        effects = [(play.tile, tuple(sorted(ends_after(view, play)))) for play in kept]
        assert len(set(effects)) == len(effects)
        every = [play for play, _ev in search.estimate(view, random.Random(n))]
        assert set(kept) <= set(every)
        distinct = {(play.tile, tuple(sorted(ends_after(view, play)))) for play in every}
        dropped += len(kept) < len(distinct)
    assert dropped


# -- the score hard plays for: net points, and a bonus for winning -----------------------------

# A double-three block game with every tile dealt: each seat counts the other's hand, so every
# world is the same one and solved exactly. Seat 1 then has two plays on the 3: 2-3 wins it
# the round by 3 points, 0-3 loses it by 3.
COUNTED = Rules(
    seats=2, hand_size=5, boneyard=False, max_pip=3, blocked="difference", opener="lowest-double"
)


def test_a_win_bonus_moves_each_exact_value_away_from_zero_and_estimate_reports_net_points():
    state = round_of("0-1 1-2 1-3 0-0 3-3", "1-1 2-2 0-2 2-3 0-3", rules=COUNTED)
    view = seat_view(play(state, "1: 1-1 right", "0: 1-3 right"), 1)
    net = {str(p.tile): ev for p, ev in search.estimate(view, random.Random(1))}
    assert net == {"2-3": 3.0, "0-3": -3.0}
    scored = search.estimate(view, random.Random(1), bonus=8)
    assert {str(p.tile): ev for p, ev in scored} == {"2-3": 11.0, "0-3": -11.0}
