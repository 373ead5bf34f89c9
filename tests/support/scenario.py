"""Short notation for rule tests: deals from hand strings, moves as 'seat: 6-6 left', public
histories as 'seat action [tile end] @left,right'; and positions for the bots' tests."""

from __future__ import annotations

import dataclasses
import random

from domino import game
from domino.bots import heuristic
from domino.bots.knowledge import deduce
from domino.events import DRAW, PASS, Play, PublicMove, RoundStarted
from domino.rules import DEFAULT, Rules
from domino.tiles import Tile, tiles
from domino.views import seat_view


def deal_of(*hands: str, boneyard: str = "", rules: Rules = DEFAULT) -> RoundStarted:
    """A deal with these hands; the boneyard starts with `boneyard`, then the rest in order."""
    held = [tiles(hand) for hand in hands]
    head = tiles(boneyard)
    taken = {t for hand in held for t in hand} | set(head)
    rest = tuple(t for t in rules.full_set() if t not in taken)
    return RoundStarted(tuple(held), head + rest)


def round_of(*hands: str, boneyard: str = "", rules: Rules = DEFAULT) -> game.State:
    """A round just dealt with these hands."""
    return game.start(deal_of(*hands, boneyard=boneyard, rules=rules), rules)


def action(text: str):
    """Read 'draw', 'pass' or '2-5 left' as an action."""
    words = text.split()
    if words == ["draw"]:
        return DRAW
    if words == ["pass"]:
        return PASS
    tile, end = words
    return Play(Tile.parse(tile), end)


def play(state: game.State, *moves: str) -> game.State:
    """Apply moves written 'seat: action', in order."""
    for move in moves:
        seat, text = move.split(":")
        state, _ = game.step(state, int(seat), action(text))
    return state


def line(state: game.State) -> str:
    """The line as laid, left to right: '5-2 2-2 2-6'."""
    return " ".join(str(laid) for laid in state.line)


def position(deal_seed: int, moves: int, rules: Rules = DEFAULT) -> game.State:
    """A round after `moves` random legal actions (or its end, if sooner)."""
    state = game.start(game.deal(rules, random.Random(deal_seed)), rules)
    rng = random.Random(deal_seed + 1)
    for _ in range(moves):
        if state.over:
            break
        state, _ = game.step(state, state.turn, rng.choice(game.legal_actions(state, state.turn)))
    return state


def choice_views(rules: Rules, rng: random.Random, count: int, distinct: bool = False) -> list:
    """`count` seat views with two plays or more, each such view kept with chance 0.3, from
    rounds `medium` plays out with `rng`. With `distinct`, two plays that differ in effect
    (a tile and the open ends it leaves) or more."""
    views: list = []
    while len(views) < count:
        state = game.start(game.deal(rules, rng), rules)
        while not state.over:
            view = seat_view(state, state.turn)
            plays = {action for action in view.legal if isinstance(action, Play)}
            if distinct:
                plays = {(p.tile, tuple(sorted(heuristic.ends_after(view, p)))) for p in plays}
            if len(plays) >= 2 and rng.random() < 0.3 and len(views) < count:
                views.append(view)
            state, _move = game.step(state, state.turn, heuristic.medium_bot(view, rng))
    return views


def reshuffled(state: game.State, seat: int, rng: random.Random) -> game.State:
    """The same table with the hidden tiles dealt again: the other hands and the boneyard.

    Every other hand keeps its size and still lacks every number the seat knows it lacks,
    so the new world is consistent with everything public.
    """
    others = deduce(seat_view(state, seat)).others
    hidden = [t for other in others for t in state.hands[other.seat]] + list(state.boneyard)
    for _ in range(1000):
        rng.shuffle(hidden)
        hands, rest = list(state.hands), hidden
        for other in others:
            hands[other.seat], rest = tuple(rest[: other.count]), rest[other.count :]
        if not any(t.has(n) for o in others for t in hands[o.seat] for n in o.voids):
            break
    return dataclasses.replace(state, hands=tuple(hands), boneyard=tuple(rest))


def moves(*lines: str) -> list[PublicMove]:
    """Public history written 'seat action [tile end] @left,right'."""
    history = []
    for line in lines:
        words, ends = line.split("@")
        left, right = (int(n) for n in ends.split(","))
        seat, action, *rest = words.split()
        tile = game.Tile.parse(rest[0]) if rest else None
        end = rest[1] if rest else None
        history.append(PublicMove(int(seat), action, tile, end, left, right))
    return history
