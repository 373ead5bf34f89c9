"""The worker keeps the long-lived heap frozen out of full collections, and frees cyclic
garbage all the same (domino/server/worker.py: settle_heap)."""

from __future__ import annotations

import gc
import weakref

import pytest

from domino.server.worker import settle_heap


class Node:
    """An object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref:
    """A reference cycle nobody holds, as a weak reference to one of its nodes."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture(autouse=True)
def unfrozen():
    yield
    gc.unfreeze()


def test_a_settle_frees_young_cycles_and_freezes_the_rest():
    kept = [Node() for _ in range(100)]  # long-lived: held
    gone = cycle()
    assert settle_heap(last_full=0.0, now=10.0, full_seconds=3600) == 0.0
    assert gone() is None  # the young cycle was collected before the freeze
    assert gc.get_freeze_count() >= len(kept)  # the rest sits out of every scan


def test_cyclic_garbage_frozen_meanwhile_goes_at_the_next_full_collection():
    gc.collect()
    gc.freeze()
    frozen = cycle()  # garbage made ...
    gc.freeze()  # ... and frozen before any collection saw it
    assert settle_heap(last_full=0.0, now=10.0, full_seconds=3600) == 0.0
    assert frozen() is not None  # a young collection does not look at frozen objects
    assert settle_heap(last_full=0.0, now=3600.0, full_seconds=3600) == 3600.0
    assert frozen() is None  # the full one unfroze and freed it
