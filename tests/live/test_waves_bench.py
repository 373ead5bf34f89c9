"""bench/waves.py runs: one wave of a small queue opens every table, side by side or one by
one (the figures are the bench's to print, never asserted here)."""

from __future__ import annotations

import pytest

from bench import waves as bench
from domino.web.live import waves


@pytest.mark.parametrize("opening", [1, waves.OPENING])
def test_one_wave_opens_a_table_for_every_two_players(monkeypatch, opening):
    monkeypatch.setattr(waves, "OPENING", opening)
    opened, seconds = bench.one_wave(12)
    assert opened == 6 and seconds > 0
