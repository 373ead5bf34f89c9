"""Short notation for rule tests: deals from hand strings, moves as 'seat: 6-6 left'."""

from __future__ import annotations

from domino import game
from domino.events import DRAW, PASS, Play, RoundStarted
from domino.rules import DEFAULT, Rules
from domino.tiles import Tile, tiles


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
