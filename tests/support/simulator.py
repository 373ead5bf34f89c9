"""The simulator (domino.simulate) run in-process, as its tests and the bots' simulation tests
run it: what it printed, the records it wrote, its usage errors, its summary's rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from domino.simulate import main


def simulate(capsys, *args: str) -> str:
    """Run the simulator in-process; return what it printed."""
    assert main(list(args)) == 0
    return capsys.readouterr().out


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def refused(capsys, *args: str) -> str:
    """Run the simulator expecting a usage error; return its error output."""
    with pytest.raises(SystemExit) as caught:
        main(list(args))
    assert caught.value.code == 2
    return capsys.readouterr().err


ROW = re.compile(
    r"^(?P<bot>\S.*?)\s+(?P<rounds>\d+)\s+(?P<win>\d+\.\d)% ± *(?P<win_ci>\d+\.\d)%"
    r"\s+(?P<net>[+-]\d+\.\d\d) ± *(?P<net_ci>\d+\.\d\d)\s+(?P<p50>\d+\.\d+)\s+(?P<p99>\d+\.\d+)$"
)


def summary(printed: str) -> dict[str, dict]:
    rows = {}
    for line in printed.splitlines():
        match = ROW.match(line)
        if match:
            rows[match["bot"]] = match.groupdict()
    return rows
