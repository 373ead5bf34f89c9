"""The quick match bench in small: players take names and queue on the production server
(bench/lobby.py), every one seated on their room's page, the computer's seats marked."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from domino.players.pairing import SEATS

ROOT = Path(__file__).resolve().parents[2]
KEYS = [
    "players",
    "seated",
    "errors",
    "late",
    "seat_p50_s",
    "seat_p99_s",
    "seat_max_s",
    "wait_max_s",
    "tables",
    "tables_by_game",
    "computer_tables",
    "computer_share",
    "cpu_process",
    "cpu_s",
    "cpu_ms_per_player",
    "pool_cpu_s",
    "client_cpu_s",
]


def bench(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "bench.lobby", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def chosen(stdout: str) -> dict[str, int]:
    """How many players chose each game, from the run's table."""
    found = re.search(r"^games chosen\s+(.*)$", stdout, re.MULTILINE)
    assert found, stdout
    return {game: int(n) for game, n in (item.rsplit(" ", 1) for item in found[1].split(", "))}


@pytest.mark.slow
def test_twenty_players_are_all_seated_in_time_without_an_error():
    done = bench("--players", "20", "--seconds", "5", "--fill", "2", "--seed", "7")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(result) == KEYS
    assert result["players"] == result["seated"] == 20, output
    assert result["errors"] == 0 and result["late"] == 0, output
    # Each game's players sit at its tables; a game whose players do not fill whole tables
    # needed the computer (seed 7 picks such games: the run cannot pass without the fill).
    games = chosen(done.stdout)
    assert sum(games.values()) == 20
    by_game = result["tables_by_game"]
    for game, players in games.items():
        assert by_game[game] >= -(-players // SEATS[game]), (game, players, by_game)
        assert by_game[game] <= players
    assert any(players % SEATS[game] for game, players in games.items())
    assert result["computer_tables"] >= 1
    assert result["tables"] == sum(by_game.values())
    assert result["computer_share"] == pytest.approx(
        result["computer_tables"] / result["tables"], abs=1e-4
    )
    # Nobody waited past the fill and a wave; the seating time holds the wait.
    assert result["wait_max_s"] <= 2 + 2 + 0.5  # the fill, a wave and its slack (WAVE_SLACK)
    assert 0 < result["seat_p50_s"] <= result["seat_p99_s"] <= result["seat_max_s"]
    assert "gunicorn worker" in result["cpu_process"]
    assert result["cpu_s"] > 0 and result["cpu_ms_per_player"] > 0


@pytest.mark.slow
def test_split_the_lobby_alone_seats_everyone_on_the_shard_and_counts_its_own_cpu():
    done = bench("--players", "20", "--seconds", "5", "--fill", "2", "--seed", "7", "--split")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(result) == [*KEYS[:-2], "shard_cpu_s", *KEYS[-2:]]
    assert result["players"] == result["seated"] == 20, output
    assert result["errors"] == 0 and result["late"] == 0, output
    assert result["computer_tables"] >= 1
    assert "DOMINO_LOBBY=only" in result["cpu_process"]
    assert result["cpu_s"] > 0 and result["shard_cpu_s"] > 0
    # The lobby's own requests went to the lobby, the rest to the shard: both worked.
    requests = re.search(r"^the players' requests\s+\d+: (.*)$", done.stdout, re.MULTILINE)
    assert requests, done.stdout
    counts = dict(item.rsplit(" ", 1) for item in requests[1].split(", "))
    assert int(counts["take a name"]) == int(counts["room page"]) == 20


def test_bad_arguments_stop_the_bench_with_a_message_before_any_server_starts():
    done = bench("--players", "0", timeout=30)
    assert done.returncode == 2
    assert "--players and --seconds must be positive" in done.stderr
    assert done.stdout == ""
