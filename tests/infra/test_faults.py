"""The production server, SIGKILLed mid-game, loses no acknowledged move (tests/support/faults.py,
run as bench/faults.py)."""

from __future__ import annotations

import pytest

from tests.support import faults


@pytest.mark.slow
def test_killed_server_keeps_every_acknowledged_move_and_every_room_resumes():
    if not faults.GUNICORN.exists():
        pytest.fail(f"gunicorn is not installed at {faults.GUNICORN}")
    result = faults.Run(kills=3, rooms=2, seed=7, deadline=60, quiet=True).run()
    assert result["kills"] == 3
    assert result["acknowledged"] > 0
    assert result["lost"] == 0
    assert result["resumed"] == 2
