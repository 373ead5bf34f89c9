"""The production server, SIGKILLed mid-game, loses no acknowledged move (bench/faults.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "faults.py"


def load_faults():
    spec = importlib.util.spec_from_file_location("faults", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_killed_server_keeps_every_acknowledged_move_and_every_room_resumes():
    faults = load_faults()
    if not faults.GUNICORN.exists():
        pytest.fail(f"gunicorn is not installed at {faults.GUNICORN}")
    result = faults.Run(kills=3, rooms=2, seed=7, deadline=60, quiet=True).run()
    assert result["kills"] == 3
    assert result["acknowledged"] > 0
    assert result["lost"] == 0
    assert result["resumed"] == 2
