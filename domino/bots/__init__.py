"""Computer players: each gets a seat view and a random source and returns an action."""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from ..events import Action
from ..views import SeatView
from . import baseline, heuristic, search, search_before

Bot = Callable[[SeatView, Random], Action]

BOTS: dict[str, Bot] = {
    "random": baseline.random_bot,
    "greedy": baseline.greedy_bot,
    "easy": heuristic.easy_bot,
    "medium": heuristic.medium_bot,
    "hard": search.hard_bot,
    "hard-before": search_before.hard_before_bot,  # the simulator only: see search_before
}
LEVELS = ("easy", "medium", "hard")
NAMES = tuple(BOTS)


class UnknownBot(ValueError):
    """A bot name that does not exist."""


def get(name: str) -> Bot:
    """The bot called `name`."""
    bot = BOTS.get(name)
    if bot is not None:
        return bot
    raise UnknownBot(f"unknown bot {name!r}: choose from {', '.join(NAMES)}")


def decide(level: str, view: SeatView, seed: int) -> Action:
    """The move the bot `level` makes from `view`, its randomness seeded by `seed`.

    A plain function of picklable values, so that it can run in another process.
    """
    return get(level)(view, Random(seed))
