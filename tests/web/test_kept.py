"""The views' one kind of cache kept by key (domino/web/view/kept.py): bounded, oldest out
first, and every one alive listed for the tests that read or empty them all."""

from __future__ import annotations

import gc

from domino.web.view.kept import Kept, every, kept, recall, remember


def test_a_kept_cache_forgets_its_oldest_entry_past_its_bound():
    cache = kept(3)
    for key in "abcd":
        remember(cache, key, key.upper())
    assert list(cache) == ["b", "c", "d"]
    assert recall(cache, "a") is None and recall(cache, "d") == "D"


def test_an_entry_written_again_counts_as_new():
    cache = kept(2)
    remember(cache, "a", 1)
    remember(cache, "b", 2)
    remember(cache, "a", 3)  # a slot replaced (a room's line, a seat's move list)
    remember(cache, "c", 4)
    assert dict(cache) == {"a": 3, "c": 4}


def test_every_cache_alive_is_listed_and_a_dropped_one_is_not():
    cache = kept()
    assert any(found is cache for found in every())
    assert all(isinstance(found, Kept) for found in every())
    remember(cache, "name", "Zebedee")
    assert "Zebedee" in repr(every())
    del cache
    gc.collect()
    assert "Zebedee" not in repr(every())
