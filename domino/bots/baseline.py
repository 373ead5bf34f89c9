"""The two reference bots: `random` and `greedy`."""

from __future__ import annotations

from random import Random

from ..events import Action, Play
from ..views import SeatView


def random_bot(view: SeatView, rng: Random) -> Action:
    """Any legal action, uniformly."""
    legal = view.legal
    return legal[0] if len(legal) == 1 else rng.choice(legal)


def greedy_bot(view: SeatView, rng: Random) -> Action:
    """The heaviest playable tile (ties broken at random); otherwise draw or pass."""
    legal = view.legal
    if len(legal) == 1 or not isinstance(legal[0], Play):
        return legal[0]
    best = max(action.tile.pips for action in legal)
    heaviest = [action for action in legal if action.tile.pips == best]
    return heaviest[0] if len(heaviest) == 1 else rng.choice(heaviest)
